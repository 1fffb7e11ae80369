// The signs of zeros (and exact bits) XLA:CPU gives where a result part is
// zero or infinite, read through bitcast_convert so that +0 and -0 differ:
// rsqrt of an infinite real part is a zero signed by (re, -im); sign keeps a
// zero operand as it is; exponential, exponential_minus_one and tanh of a
// value with a zero imaginary part (of either sign) have imaginary part +0;
// sqrt takes the sign of its imaginary part from `imag < 0`, so -0 gives +0.
// The expected bits are XLA:CPU's (jax 0.10.2).
// test: interpret
func.func @rsqrt_zero_signs() {
  %z = stablehlo.constant dense<[(0x7F800000, 1.0), (0xFF800000, -1.0)]> : tensor<2xcomplex<f32>>
  %r = stablehlo.rsqrt %z : tensor<2xcomplex<f32>>
  %re = stablehlo.real %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %im = stablehlo.imag %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %re_bits = stablehlo.bitcast_convert %re : (tensor<2xf32>) -> tensor<2xi32>
  %im_bits = stablehlo.bitcast_convert %im : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %re_bits, dense<[0, -2147483648]> : tensor<2xi32>
  check.expect_eq_const %im_bits, dense<[-2147483648, 0]> : tensor<2xi32>
  func.return
}

// -----

func.func @sign_zero_signs() {
  %z = stablehlo.constant dense<[(-0.0, 0.0), (0.0, -0.0)]> : tensor<2xcomplex<f32>>
  %r = stablehlo.sign %z : tensor<2xcomplex<f32>>
  %re = stablehlo.real %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %im = stablehlo.imag %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %re_bits = stablehlo.bitcast_convert %re : (tensor<2xf32>) -> tensor<2xi32>
  %im_bits = stablehlo.bitcast_convert %im : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %re_bits, dense<[-2147483648, 0]> : tensor<2xi32>
  check.expect_eq_const %im_bits, dense<[0, -2147483648]> : tensor<2xi32>
  func.return
}

// -----

func.func @exponential_zero_signs() {
  %z = stablehlo.constant dense<[(1000.0, -0.0), (-1.0, -0.0)]> : tensor<2xcomplex<f32>>
  %r = stablehlo.exponential %z : tensor<2xcomplex<f32>>
  %re = stablehlo.real %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %im = stablehlo.imag %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %re_bits = stablehlo.bitcast_convert %re : (tensor<2xf32>) -> tensor<2xi32>
  %im_bits = stablehlo.bitcast_convert %im : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %re_bits, dense<[2139095040, 1052531378]> : tensor<2xi32>
  check.expect_eq_const %im_bits, dense<[0, 0]> : tensor<2xi32>
  func.return
}

// -----

func.func @exponential_minus_one_zero_signs() {
  %z = stablehlo.constant dense<[(-1.0, -0.0), (2.0, 0.0)]> : tensor<2xcomplex<f32>>
  %r = stablehlo.exponential_minus_one %z : tensor<2xcomplex<f32>>
  %re = stablehlo.real %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %im = stablehlo.imag %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %re_bits = stablehlo.bitcast_convert %re : (tensor<2xf32>) -> tensor<2xi32>
  %im_bits = stablehlo.bitcast_convert %im : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %re_bits, dense<[-1088302425, 1087140646]> : tensor<2xi32>
  check.expect_eq_const %im_bits, dense<[0, 0]> : tensor<2xi32>
  func.return
}

// -----

func.func @tanh_zero_signs() {
  %z = stablehlo.constant dense<[(-0.0, -0.0), (1.0, -0.0)]> : tensor<2xcomplex<f32>>
  %r = stablehlo.tanh %z : tensor<2xcomplex<f32>>
  %re = stablehlo.real %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %im = stablehlo.imag %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %re_bits = stablehlo.bitcast_convert %re : (tensor<2xf32>) -> tensor<2xi32>
  %im_bits = stablehlo.bitcast_convert %im : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %re_bits, dense<[-2147483648, 1061353430]> : tensor<2xi32>
  check.expect_eq_const %im_bits, dense<[0, 0]> : tensor<2xi32>
  func.return
}

// -----

func.func @sqrt_zero_signs() {
  %z = stablehlo.constant dense<[(-0.0, -0.0), (4.0, -0.0)]> : tensor<2xcomplex<f32>>
  %r = stablehlo.sqrt %z : tensor<2xcomplex<f32>>
  %re = stablehlo.real %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %im = stablehlo.imag %r : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %re_bits = stablehlo.bitcast_convert %re : (tensor<2xf32>) -> tensor<2xi32>
  %im_bits = stablehlo.bitcast_convert %im : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %re_bits, dense<[0, 1073741824]> : tensor<2xi32>
  check.expect_eq_const %im_bits, dense<[0, 0]> : tensor<2xi32>
  func.return
}

// The binary elementwise ops on complex<f32> and complex<f64>: atan2 (of
// complex operands, which XLA computes as -i log((x + iy) / sqrt(x² + y²))),
// power with Kahan's special values (0^0 = 1, z^0 = 1, 1^w = 1, inf^c),
// power across the branch cut, division by zero and by infinity. The
// expected values (%xla) are what XLA:CPU computes (jax 0.10.2); each case
// allows 3 ulp per part, and a NaN part must be NaN.
// test: interpret
func.func @atan2_c64() {
  %lhs = stablehlo.constant dense<[(1.0, 0.0), (-1.0, 0.0), (1.0, 2.0), (0.5, -0.5), (-2.0, 1.0), (3.0, 0.0)]> : tensor<6xcomplex<f32>>
  %rhs = stablehlo.constant dense<[(0.0, 0.0), (0.0, 0.0), (3.0, -1.0), (-1.0, 0.25), (-2.0, -1.0), (-4.0, 0.0)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.atan2 %lhs, %rhs : tensor<6xcomplex<f32>>
  %xla = stablehlo.constant dense<[(1.5707964, 0.0), (-1.5707964, -0.0), (0.19025323, 0.8418239), (2.5676215, 0.26149204), (-2.3561945, -0.54930604), (2.4980917, 0.0)]> : tensor<6xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>
  func.return
}

// -----

func.func @atan2_c128() {
  %lhs = stablehlo.constant dense<[(1.0, 0.0), (-1.0, 0.0), (1.0, 2.0), (0.5, -0.5), (-2.0, 1.0), (3.0, 0.0)]> : tensor<6xcomplex<f64>>
  %rhs = stablehlo.constant dense<[(0.0, 0.0), (0.0, 0.0), (3.0, -1.0), (-1.0, 0.25), (-2.0, -1.0), (-4.0, 0.0)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.atan2 %lhs, %rhs : tensor<6xcomplex<f64>>
  %xla = stablehlo.constant dense<[(1.5707963267948966, 0.0), (-1.5707963267948966, -0.0), (0.19025318855618242, 0.8418239574966186), (2.5676214532588153, 0.2614921387956721), (-2.356194490192345, -0.549306144334055), (2.498091544796509, 0.0)]> : tensor<6xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>
  func.return
}

// -----

func.func @power_c64() {
  %lhs = stablehlo.constant dense<[(0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (2.0, 3.0), (-8.0, 0.0), (-8.0, -0.0), (1.0, 0.0), (0x7F800000, 0.0), (0x7F800000, 0.0), (1.5, -0.5)]> : tensor<10xcomplex<f32>>
  %rhs = stablehlo.constant dense<[(0.0, 0.0), (2.0, 0.0), (0.0, 1.0), (0.0, 0.0), (0.33333334, 0.0), (0.33333334, 0.0), (0x7FC00000, 0x7FC00000), (2.0, 0.0), (-2.0, 0.0), (2.5, 1.0)]> : tensor<10xcomplex<f32>>
  %r = stablehlo.power %lhs, %rhs : tensor<10xcomplex<f32>>
  %xla = stablehlo.constant dense<[(1.0, 0.0), (0.0, 0.0), (0x7FC00000, 0x7FC00000), (1.0, 0.0), (0.99999994, 1.7320509), (0.99999994, -1.7320509), (1.0, 0.0), (0x7F800000, 0.0), (0.0, 0.0), (4.079355, -1.4716808)]> : tensor<10xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<10xcomplex<f32>>, tensor<10xcomplex<f32>>
  func.return
}

// -----

func.func @power_c128() {
  %lhs = stablehlo.constant dense<[(0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (2.0, 3.0), (-8.0, 0.0), (-8.0, -0.0), (1.0, 0.0), (0x7FF0000000000000, 0.0), (0x7FF0000000000000, 0.0), (1.5, -0.5)]> : tensor<10xcomplex<f64>>
  %rhs = stablehlo.constant dense<[(0.0, 0.0), (2.0, 0.0), (0.0, 1.0), (0.0, 0.0), (0.3333333333333333, 0.0), (0.3333333333333333, 0.0), (0x7FF8000000000000, 0x7FF8000000000000), (2.0, 0.0), (-2.0, 0.0), (2.5, 1.0)]> : tensor<10xcomplex<f64>>
  %r = stablehlo.power %lhs, %rhs : tensor<10xcomplex<f64>>
  %xla = stablehlo.constant dense<[(1.0, 0.0), (0.0, 0.0), (0x7FF8000000000000, 0x7FF8000000000000), (1.0, 0.0), (1.0000000000000002, 1.7320508075688772), (1.0000000000000002, -1.7320508075688772), (1.0, 0.0), (0x7FF0000000000000, 0.0), (0.0, 0.0), (4.079354476835778, -1.4716808204458827)]> : tensor<10xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<10xcomplex<f64>>, tensor<10xcomplex<f64>>
  func.return
}

// -----

func.func @divide_c64() {
  %lhs = stablehlo.constant dense<[(1.0, 0.0), (1.0, 2.0), (0x7F800000, 1.0), (1.0, 1.0), (3.0, -4.0), (0.0, 0.0)]> : tensor<6xcomplex<f32>>
  %rhs = stablehlo.constant dense<[(0.0, 0.0), (0.0, 0x7F800000), (1.0, 1.0), (0.0, 0.0), (-2.0, 0.5), (0.0, 0.0)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.divide %lhs, %rhs : tensor<6xcomplex<f32>>
  %xla = stablehlo.constant dense<[(0x7F800000, 0x7FC00000), (0.0, -0.0), (0x7F800000, 0xFF800000), (0x7F800000, 0x7F800000), (-1.882353, 1.5294118), (0x7FC00000, 0x7FC00000)]> : tensor<6xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>
  func.return
}

// -----

func.func @divide_c128() {
  %lhs = stablehlo.constant dense<[(1.0, 0.0), (1.0, 2.0), (0x7FF0000000000000, 1.0), (1.0, 1.0), (3.0, -4.0), (0.0, 0.0)]> : tensor<6xcomplex<f64>>
  %rhs = stablehlo.constant dense<[(0.0, 0.0), (0.0, 0x7FF0000000000000), (1.0, 1.0), (1.0e-300, 1.0e-300), (-2.0, 0.5), (0.0, 0.0)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.divide %lhs, %rhs : tensor<6xcomplex<f64>>
  %xla = stablehlo.constant dense<[(0x7FF0000000000000, 0x7FF8000000000000), (0.0, -0.0), (0x7FF0000000000000, 0xFFF0000000000000), (9.999999999999999e+299, 0.0), (-1.8823529411764706, 1.5294117647058822), (0x7FF8000000000000, 0x7FF8000000000000)]> : tensor<6xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>
  func.return
}

// -----

func.func @multiply_c64() {
  %lhs = stablehlo.constant dense<[(1.0, 2.0), (0.1, 0.3), (0x7F800000, 0.0)]> : tensor<3xcomplex<f32>>
  %rhs = stablehlo.constant dense<[(3.0, -4.0), (0.7, -0.9), (0.0, 1.0)]> : tensor<3xcomplex<f32>>
  %r = stablehlo.multiply %lhs, %rhs : tensor<3xcomplex<f32>>
  %xla = stablehlo.constant dense<[(11.0, 2.0), (0.34, 0.12000001), (0x7FC00000, 0x7F800000)]> : tensor<3xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>
  func.return
}

// -----

func.func @multiply_c128() {
  %lhs = stablehlo.constant dense<[(1.0, 2.0), (0.1, 0.3), (0x7FF0000000000000, 0.0)]> : tensor<3xcomplex<f64>>
  %rhs = stablehlo.constant dense<[(3.0, -4.0), (0.7, -0.9), (0.0, 1.0)]> : tensor<3xcomplex<f64>>
  %r = stablehlo.multiply %lhs, %rhs : tensor<3xcomplex<f64>>
  %xla = stablehlo.constant dense<[(11.0, 2.0), (0.34, 0.11999999999999997), (0x7FF8000000000000, 0x7FF0000000000000)]> : tensor<3xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>
  func.return
}

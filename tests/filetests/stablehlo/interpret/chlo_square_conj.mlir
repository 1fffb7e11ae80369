// chlo.square and chlo.conj lowered by XLA's decompositions, on real and
// complex operands.
// test: interpret

// chlo.square on f32 is x * x
func.func @main() -> tensor<8xf32> {
  %x = stablehlo.constant dense<[0.0, -1.5, 3.0, 1.0e+20, 1.0e-30, -0.0025, 0x7F800000, 0x7FC00000]> : tensor<8xf32>
  %r = chlo.square %x : tensor<8xf32> -> tensor<8xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0.0, 2.25, 9.0, 0x7F800000, 0.0, 6.25e-06, 0x7F800000, 0x7FC00000]> : tensor<8xf32>
  check.expect_close %r, %expected, max_ulp_difference = 0 : tensor<8xf32>, tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// -----
// chlo.square on complex<f32>: ((re - im)(re + im), 2 re im), the real part exactly 0 where |re| == |im|
func.func @main() -> tensor<8xcomplex<f32>> {
  %z = stablehlo.constant dense<[(1.0, 1.0), (1.0, -1.0), (-3.0, 2.0), (2.5, -0.5), (1.0e+20, 1.0e+20), (0.0, 0.0), (0x7F800000, 1.0), (0x7FC00000, 0x7F800000)]> : tensor<8xcomplex<f32>>
  %r = chlo.square %z : tensor<8xcomplex<f32>> -> tensor<8xcomplex<f32>>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[(0.0, 2.0), (0.0, -2.0), (5.0, -12.0), (6.0, -2.5), (0.0, 0x7F800000), (0.0, 0.0), (0x7F800000, 0x7F800000), (0x7FC00000, 0x7FC00000)]> : tensor<8xcomplex<f32>>
  check.expect_close %r, %expected, max_ulp_difference = 0 : tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>
  func.return %r : tensor<8xcomplex<f32>>
}

// -----
// chlo.conj negates the imaginary part, and is the identity on reals
func.func @main() -> tensor<3xcomplex<f32>> {
  %z = stablehlo.constant dense<[(1.0, 2.0), (-3.0, -0.5), (0.0, 0.0)]> : tensor<3xcomplex<f32>>
  %r = chlo.conj %z : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  check.expect_eq_const %r, dense<[(1.0, -2.0), (-3.0, 0.5), (0.0, -0.0)]> : tensor<3xcomplex<f32>>
  %x = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf64>
  %same = chlo.conj %x : tensor<2xf64> -> tensor<2xf64>
  check.expect_eq_const %same, dense<[1.5, -2.0]> : tensor<2xf64>
  func.return %r : tensor<3xcomplex<f32>>
}

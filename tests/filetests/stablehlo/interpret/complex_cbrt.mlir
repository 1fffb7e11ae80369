// cbrt of complex numbers is the principal cube root, z^(1/3) with
// arg z in (-pi, pi]: the negative real axis is the branch cut, and the sign
// of a zero imaginary part picks the side. XLA refuses complex cbrt, so the
// expected values are the principal root computed in double precision (for
// complex<f32>, rounded to f32).
// test: interpret
func.func @cbrt_c64() {
  %z = stablehlo.constant dense<[(8.0, 0.0), (-8.0, 0.0), (-8.0, -0.0), (0.0, 27.0), (3.0, 4.0), (-1.0, 1.0), (0.0, 0.0), (0.001, -2000.0)]> : tensor<8xcomplex<f32>>
  %r = stablehlo.cbrt %z : tensor<8xcomplex<f32>>
  %root = stablehlo.constant dense<[(2.0, 0.0), (1.0, 1.7320508), (1.0, -1.7320508), (2.598076, 1.5), (1.6289371, 0.5201745), (0.7937005, 0.7937005), (0.0, 0.0), (10.911238, -6.2996035)]> : tensor<8xcomplex<f32>>
  check.expect_close %r, %root, max_ulp_difference = 3 : tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>
  func.return
}

// -----

func.func @cbrt_c128() {
  %z = stablehlo.constant dense<[(8.0, 0.0), (-8.0, 0.0), (-8.0, -0.0), (0.0, 27.0), (3.0, 4.0), (-1.0, 1.0), (0.0, 0.0), (0.001, -2000.0)]> : tensor<8xcomplex<f64>>
  %r = stablehlo.cbrt %z : tensor<8xcomplex<f64>>
  %root = stablehlo.constant dense<[(1.9999999999999998, 0.0), (1.0, 1.732050807568877), (1.0, -1.732050807568877), (2.5980762113533156, 1.4999999999999996), (1.6289371459221758, 0.5201745023045458), (0.7937005259840998, 0.7937005259840997), (0.0, 0.0), (10.911237409651726, -6.299603430935147)]> : tensor<8xcomplex<f64>>
  check.expect_close %r, %root, max_ulp_difference = 3 : tensor<8xcomplex<f64>>, tensor<8xcomplex<f64>>
  func.return
}

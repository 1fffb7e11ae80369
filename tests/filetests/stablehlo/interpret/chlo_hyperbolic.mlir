// chlo.sinh and chlo.cosh lowered by XLA's decompositions
// (e^(x + log 1/2) -+ e^(-x + log 1/2); sinh through expm1 below 1; f16 and
// bf16 computed in f32), against the values XLA:CPU computes.
// test: interpret

// chlo.sinh on f32
func.func @main() -> tensor<15xf32> {
  %x0 = stablehlo.constant dense<[-1.0e+02, -2.0, -0.5, -0.001, 0.0, 1.0e-06, 0.3, 1.0, 1.5, 1.0e+01, 1.0e+05, -0.99, 89.0, 89.5, 0x7FC00000]> : tensor<15xf32>
  %r = chlo.sinh %x0 : tensor<15xf32> -> tensor<15xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0xFF800000, -3.6268604, -0.5210953, -0.001, 0.0, 1.0e-06, 0.30452028, 1.1752012, 2.1292794, 11013.228, 0x7F800000, -1.1598289, 2.2448096e+38, 0x7F800000, 0x7FC00000]> : tensor<15xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<15xf32>, tensor<15xf32>
  func.return %r : tensor<15xf32>
}

// -----
// chlo.sinh on f64
func.func @main() -> tensor<15xf64> {
  %x0 = stablehlo.constant dense<[-100.0, -2.0, -0.5, -0.001, 0.0, 1.0e-09, 0.3, 0.999, 1.0, 1.5, 10.0, 700.0, 710.0, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<15xf64>
  %r = chlo.sinh %x0 : tensor<15xf64> -> tensor<15xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-1.3440585709080653e+43, -3.6268604078470186, -0.5210953054937473, -0.0010000001666666748, 0.0, 1.0e-09, 0.3045202934471426, 1.1736587003524521, 1.1752011936438016, 2.1292794550948178, 11013.232874703392, 5.0711602736753014e+303, 1.116997383080917e+308, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<15xf64>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<15xf64>, tensor<15xf64>
  func.return %r : tensor<15xf64>
}

// -----
// chlo.sinh on bf16: computed in f32
func.func @main() -> tensor<9xbf16> {
  %x0 = stablehlo.constant dense<[-10.0, -1.5, -0.5, 0.0, 0.010009765625, 0.75, 2.0, 80.0, 90.0]> : tensor<9xbf16>
  %r = chlo.sinh %x0 : tensor<9xbf16> -> tensor<9xbf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-11008.0, -2.125, -0.51953125, 0.0, 0.010009765625, 0.82421875, 3.625, 2.7746336337795485e+34, 0x7F80]> : tensor<9xbf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<9xbf16>, tensor<9xbf16>
  func.return %r : tensor<9xbf16>
}

// -----
// chlo.cosh on f32
func.func @main() -> tensor<15xf32> {
  %x0 = stablehlo.constant dense<[-1.0e+02, -2.0, -0.5, -0.001, 0.0, 1.0e-06, 0.3, 1.0, 1.5, 1.0e+01, 1.0e+05, -0.99, 89.0, 89.5, 0x7FC00000]> : tensor<15xf32>
  %r = chlo.cosh %x0 : tensor<15xf32> -> tensor<15xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0x7F800000, 3.7621958, 1.127626, 1.0000005, 1.0, 1.0, 1.0453385, 1.5430806, 2.3524096, 11013.228, 0x7F800000, 1.5314057, 2.2448096e+38, 0x7F800000, 0x7FC00000]> : tensor<15xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<15xf32>, tensor<15xf32>
  func.return %r : tensor<15xf32>
}

// -----
// chlo.cosh on f64
func.func @main() -> tensor<11xf64> {
  %x0 = stablehlo.constant dense<[-100.0, -2.0, -0.5, 0.0, 0.3, 1.0, 10.0, 700.0, 710.0, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<11xf64>
  %r = chlo.cosh %x0 : tensor<11xf64> -> tensor<11xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[1.3440585709080653e+43, 3.762195691083631, 1.1276259652063807, 1.0, 1.0453385141288605, 1.543080634815244, 11013.232920103323, 5.0711602736753014e+303, 1.116997383080917e+308, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<11xf64>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<11xf64>, tensor<11xf64>
  func.return %r : tensor<11xf64>
}

// -----
// chlo.cosh on f16: computed in f32
func.func @main() -> tensor<9xf16> {
  %x0 = stablehlo.constant dense<[-10.0, -1.5, -0.5, 0.0, 0.01000213623046875, 0.75, 2.0, 11.0, 12.0]> : tensor<9xf16>
  %r = chlo.cosh %x0 : tensor<9xf16> -> tensor<9xf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[11016.0, 2.3515625, 1.1279296875, 1.0, 1.0, 1.294921875, 3.76171875, 29936.0, 0x7C00]> : tensor<9xf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<9xf16>, tensor<9xf16>
  func.return %r : tensor<9xf16>
}

// -----
// chlo.sinh on complex<f32>: the e^(z + log 1/2) form only
func.func @main() -> tensor<6xcomplex<f32>> {
  %x0 = stablehlo.constant dense<[(0.5, 0.25), (-0.3, -2.0), (1.0, 0.0), (-1.5, 0.001), (3.0, -7.0), (2.0e+01, 0.5)]> : tensor<6xcomplex<f32>>
  %r = chlo.sinh %x0 : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[(0.5048957, 0.27897912), (0.12672514, -0.9505236), (1.1752012, 0.0), (-2.1292784, 0.0023524093), (7.5524983, -6.614319), (2.1288614e+08, 1.1630024e+08)]> : tensor<6xcomplex<f32>>
  check.expect_close %r, %expected, max_ulp_difference = 3 : tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>
  func.return %r : tensor<6xcomplex<f32>>
}

// -----
// chlo.cosh on complex<f64>
func.func @main() -> tensor<6xcomplex<f64>> {
  %x0 = stablehlo.constant dense<[(0.5, 0.25), (-0.3, -2.0), (1.0, 0.0), (-1.5, 0.001), (3.0, -7.0), (20.0, 0.5)]> : tensor<6xcomplex<f64>>
  %r = chlo.cosh %x0 : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[(1.0925708047319176, 0.12892104172809826), (-0.43501431577561567, 0.27689951924768835), (1.543080634815244, 0.0), (2.352408439038538, -0.002129279100214926), (7.59003307458327, -6.581609574949267), (212886257.5638839, 116300292.56067625)]> : tensor<6xcomplex<f64>>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>
  func.return %r : tensor<6xcomplex<f64>>
}

// chlo.asin, chlo.acos, chlo.atan, chlo.asinh, chlo.acosh and chlo.atanh
// lowered by XLA's decompositions (real operands through atan2, log1p and sqrt
// in the operand type; complex ones by Hull et al.'s algorithm), against the
// values XLA:CPU computes. No result is subnormal: XLA:CPU flushes those to 0.
// test: interpret

// chlo.asin on f32: 2 atan2(x, 1 + sqrt((1 - x)(1 + x))), NaN outside [-1, 1]
func.func @main() -> tensor<14xf32> {
  %x0 = stablehlo.constant dense<[-1.0, -0.999, -0.7, -0.5, -0.001, 0.0, 1.0e-06, 0.25, 0.6, 0.99, 1.0, 1.0001, -3.0, 0x7FC00000]> : tensor<14xf32>
  %r = chlo.asin %x0 : tensor<14xf32> -> tensor<14xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-1.5707964, -1.5260715, -0.7753975, -0.5235988, -0.0010000002, 0.0, 1.0e-06, 0.25268024, 0.6435011, 1.4292569, 1.5707964, 0x7FC00000, 0x7FC00000, 0x7FC00000]> : tensor<14xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<14xf32>, tensor<14xf32>
  func.return %r : tensor<14xf32>
}

// -----
// chlo.asin on f64
func.func @main() -> tensor<14xf64> {
  %x0 = stablehlo.constant dense<[-1.0, -0.999, -0.7, -0.5, -0.001, 0.0, 1.0e-06, 0.25, 0.6, 0.99, 1.0, 1.0001, -3.0, 0x7FF8000000000000]> : tensor<14xf64>
  %r = chlo.asin %x0 : tensor<14xf64> -> tensor<14xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-1.5707963267948966, -1.526071239626163, -0.7753974966107531, -0.5235987755982989, -0.0010000001666667416, 0.0, 1.0000000000001666e-06, 0.25268025514207865, 0.6435011087932844, 1.4292568534704693, 1.5707963267948966, 0x7FF8000000000000, 0x7FF8000000000000, 0x7FF8000000000000]> : tensor<14xf64>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<14xf64>, tensor<14xf64>
  func.return %r : tensor<14xf64>
}

// -----
// chlo.acos on f32: atan2(sqrt((1 - x)(1 + x)), x)
func.func @main() -> tensor<14xf32> {
  %x0 = stablehlo.constant dense<[-1.0, -0.999, -0.7, -0.5, -0.001, 0.0, 1.0e-06, 0.25, 0.6, 0.99, 1.0, 1.0001, -3.0, 0x7FC00000]> : tensor<14xf32>
  %r = chlo.acos %x0 : tensor<14xf32> -> tensor<14xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[3.1415927, 3.0968678, 2.3461938, 2.0943952, 1.5717963, 1.5707964, 1.5707953, 1.3181161, 0.9272952, 0.14153941, 0.0, 0x7FC00000, 0x7FC00000, 0x7FC00000]> : tensor<14xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<14xf32>, tensor<14xf32>
  func.return %r : tensor<14xf32>
}

// -----
// chlo.acos on f16
func.func @main() -> tensor<14xf16> {
  %x0 = stablehlo.constant dense<[-1.0, -0.9990234375, -0.7001953125, -0.5, -0.0010004043579101562, 0.0, 1.0132789611816406e-06, 0.25, 0.60009765625, 0.990234375, 1.0, 1.0, -3.0, 0x7E00]> : tensor<14xf16>
  %r = chlo.acos %x0 : tensor<14xf16> -> tensor<14xf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[3.140625, 3.09765625, 2.345703125, 2.09375, 1.572265625, 1.5703125, 1.5703125, 1.318359375, 0.92724609375, 0.139892578125, 0.0, 0.0, 0x7E00, 0x7E00]> : tensor<14xf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<14xf16>, tensor<14xf16>
  func.return %r : tensor<14xf16>
}

// -----
// chlo.atan on f32: atan2(x, 1)
func.func @main() -> tensor<16xf32> {
  %x0 = stablehlo.constant dense<[-1.0e+20, -1.0e+02, -2.0, -0.5, -0.001, 0.0, 1.0e-06, 0.3, 1.0, 1.5, 1.0e+01, 1.0e+05, 3.0e+38, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<16xf32>
  %r = chlo.atan %x0 : tensor<16xf32> -> tensor<16xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-1.5707964, -1.5607967, -1.1071489, -0.46364754, -0.0009999997, 0.0, 1.0e-06, 0.2914568, 0.7853981, 0.9827938, 1.4711277, 1.5707864, 1.5707964, 1.5707964, -1.5707964, 0x7FC00000]> : tensor<16xf32>
  check.expect_close %r, %expected, max_ulp_difference = 3 : tensor<16xf32>, tensor<16xf32>
  func.return %r : tensor<16xf32>
}

// -----
// chlo.asinh on f32: log1p form, log 2 + log|x| past sqrt(max)
func.func @main() -> tensor<16xf32> {
  %x0 = stablehlo.constant dense<[-1.0e+20, -1.0e+02, -2.0, -0.5, -0.001, 0.0, 1.0e-06, 0.3, 1.0, 1.5, 1.0e+01, 1.0e+05, 3.0e+38, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<16xf32>
  %r = chlo.asinh %x0 : tensor<16xf32> -> tensor<16xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-46.744846, -5.298342, -1.4436355, -0.48121184, -0.0009999999, 0.0, 1.0e-06, 0.29567307, 0.88137364, 1.1947632, 2.998223, 12.206073, 89.28999, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<16xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<16xf32>, tensor<16xf32>
  func.return %r : tensor<16xf32>
}

// -----
// chlo.asinh on f64
func.func @main() -> tensor<15xf64> {
  %x0 = stablehlo.constant dense<[-1.0e+200, -100.0, -2.0, -0.5, -0.001, 0.0, 1.0e-09, 0.3, 1.0, 1.5, 10.0, 100000.0, 1.0e+300, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<15xf64>
  %r = chlo.asinh %x0 : tensor<15xf64> -> tensor<15xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-461.2101657793691, -5.298342365610589, -1.4436354751788103, -0.48121182505960347, -0.0009999998333334083, 0.0, 1.0e-09, 0.29567304756342244, 0.8813735870195429, 1.1947632172871094, 2.99822295029797, 12.206072645555174, 691.4686750787736, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<15xf64>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<15xf64>, tensor<15xf64>
  func.return %r : tensor<15xf64>
}

// -----
// chlo.asinh on bf16
func.func @main() -> tensor<10xbf16> {
  %x0 = stablehlo.constant dense<[-100.0, -2.0, -0.5, 0.0, 0.30078125, 1.0, 1.5, 10.0, 1.0002555517425873e+30, 3.00405527047391e+38]> : tensor<10xbf16>
  %r = chlo.asinh %x0 : tensor<10xbf16> -> tensor<10xbf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-5.3125, -1.4453125, -0.48046875, 0.0, 0.296875, 0.8828125, 1.1953125, 3.0, 69.5, 89.0]> : tensor<10xbf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<10xbf16>, tensor<10xbf16>
  func.return %r : tensor<10xbf16>
}

// -----
// chlo.acosh on f32: log1p form, log 2 + log x past max / 2, NaN below 1
func.func @main() -> tensor<13xf32> {
  %x0 = stablehlo.constant dense<[0.5, 1.0, 1.0000001, 1.001, 1.5, 2.0, 1.0e+01, 1.0e+05, 1.0e+20, 2.0e+38, 3.4e+38, 0x7F800000, 0x7FC00000]> : tensor<13xf32>
  %r = chlo.acosh %x0 : tensor<13xf32> -> tensor<13xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0x7FC00000, 0.0, 0.00048828116, 0.044718675, 0.9624236, 1.316958, 2.993223, 12.206073, 46.74485, 88.88453, 89.41515, 0x7F800000, 0x7FC00000]> : tensor<13xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<13xf32>, tensor<13xf32>
  func.return %r : tensor<13xf32>
}

// -----
// chlo.acosh on f64
func.func @main() -> tensor<9xf64> {
  %x0 = stablehlo.constant dense<[0.5, 1.0, 1.0000000001, 1.5, 2.0, 100000.0, 1.0e+300, 1.7e+308, 0x7FF0000000000000]> : tensor<9xf64>
  %r = chlo.acosh %x0 : tensor<9xf64> -> tensor<9xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0x7FF8000000000000, 0.0, 1.4142136208675862e-05, 0.9624236501192069, 1.3169578969248166, 12.206072645505174, 691.4686750787737, 710.4199840737881, 0x7FF0000000000000]> : tensor<9xf64>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<9xf64>, tensor<9xf64>
  func.return %r : tensor<9xf64>
}

// -----
// chlo.atanh on f32: (log1p(x) - log1p(-x)) / 2, NaN outside [-1, 1]
func.func @main() -> tensor<14xf32> {
  %x0 = stablehlo.constant dense<[-1.0, -0.999, -0.7, -0.5, -0.001, 0.0, 1.0e-06, 0.25, 0.6, 0.99, 1.0, 1.0001, -3.0, 0x7FC00000]> : tensor<14xf32>
  %r = chlo.atanh %x0 : tensor<14xf32> -> tensor<14xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0xFF800000, -3.8002076, -0.8673005, -0.54930615, -0.0010000004, 0.0, 1.0e-06, 0.25541282, 0.6931472, 2.646653, 0x7F800000, 0x7FC00000, 0x7FC00000, 0x7FC00000]> : tensor<14xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<14xf32>, tensor<14xf32>
  func.return %r : tensor<14xf32>
}

// -----
// chlo.atanh on f64
func.func @main() -> tensor<14xf64> {
  %x0 = stablehlo.constant dense<[-1.0, -0.999, -0.7, -0.5, -0.001, 0.0, 1.0e-06, 0.25, 0.6, 0.99, 1.0, 1.0001, -3.0, 0x7FF8000000000000]> : tensor<14xf64>
  %r = chlo.atanh %x0 : tensor<14xf64> -> tensor<14xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0xFFF0000000000000, -3.8002011672501994, -0.8673005276940531, -0.5493061443340548, -0.0010000003333335333, 0.0, 1.0000000000003335e-06, 0.25541281188299536, 0.6931471805599453, 2.646652412362246, 0x7FF0000000000000, 0x7FF8000000000000, 0x7FF8000000000000, 0x7FF8000000000000]> : tensor<14xf64>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<14xf64>, tensor<14xf64>
  func.return %r : tensor<14xf64>
}

// -----
// chlo.asin on complex<f32>: Hull et al. through _asin_acos_kernel
func.func @main() -> tensor<12xcomplex<f32>> {
  %x0 = stablehlo.constant dense<[(0.5, 0.25), (-0.3, -2.0), (1.0, 0.0), (2.0, 0.0), (-1.5, 0.001), (3.0e-20, 1.0e-20), (1.0e+20, -1.0e+19), (-0.001, 5.0), (0.999, 1.0e-08), (1.0e+30, 1.0e+30), (0x7F800000, 1.0), (0x7FC00000, 0.5)]> : tensor<12xcomplex<f32>>
  %r = chlo.asin %x0 : tensor<12xcomplex<f32>> -> tensor<12xcomplex<f32>>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[(0.50160885, 0.28139606), (-0.13360214, -1.4516491), (1.5707964, 0.0), (1.5707964, 1.316958), (-1.569902, 0.96242416), (3.0e-20, 1.0e-20), (1.4711276, -46.74982), (-0.00019611613, 2.3124385), (1.5260715, 2.2366416e-07), (0.7853982, 70.11727), (1.5707964, 0x7F800000), (0x7FC00000, 0x7FC00000)]> : tensor<12xcomplex<f32>>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<12xcomplex<f32>>, tensor<12xcomplex<f32>>
  func.return %r : tensor<12xcomplex<f32>>
}

// -----
// chlo.acos on complex<f32>
func.func @main() -> tensor<12xcomplex<f32>> {
  %x0 = stablehlo.constant dense<[(0.5, 0.25), (-0.3, -2.0), (1.0, 0.0), (2.0, 0.0), (-1.5, 0.001), (3.0e-20, 1.0e-20), (1.0e+20, -1.0e+19), (-0.001, 5.0), (0.999, 1.0e-08), (1.0e+30, 1.0e+30), (0x7F800000, 1.0), (0x7FC00000, 0.5)]> : tensor<12xcomplex<f32>>
  %r = chlo.acos %x0 : tensor<12xcomplex<f32>> -> tensor<12xcomplex<f32>>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[(1.0691875, -0.28139606), (1.7043984, 1.4516491), (0.0, -0.0), (0.0, -1.316958), (3.1406982, -0.96242416), (1.5707964, -1.0e-20), (0.09966865, 46.74982), (1.5709925, -2.3124385), (0.044724803, -2.2366416e-07), (0.7853982, -70.11727), (0.0, 0xFF800000), (0x7FC00000, 0x7FC00000)]> : tensor<12xcomplex<f32>>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<12xcomplex<f32>>, tensor<12xcomplex<f32>>
  func.return %r : tensor<12xcomplex<f32>>
}

// -----
// chlo.acosh on complex<f32>
func.func @main() -> tensor<12xcomplex<f32>> {
  %x0 = stablehlo.constant dense<[(0.5, 0.25), (-0.3, -2.0), (1.0, 0.0), (2.0, 0.0), (-1.5, 0.001), (3.0e-20, 1.0e-20), (1.0e+20, -1.0e+19), (-0.001, 5.0), (0.999, 1.0e-08), (1.0e+30, 1.0e+30), (0x7F800000, 1.0), (0x7FC00000, 0.5)]> : tensor<12xcomplex<f32>>
  %r = chlo.acosh %x0 : tensor<12xcomplex<f32>> -> tensor<12xcomplex<f32>>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[(0.28139606, 1.0691875), (1.4516491, -1.7043984), (0.0, 0.0), (1.316958, 0.0), (0.96242416, 3.1406982), (1.0e-20, 1.5707964), (46.74982, -0.09966865), (2.3124385, 1.5709925), (2.2366416e-07, 0.044724803), (70.11727, 0.7853982), (0x7F800000, 0.0), (0x7FC00000, 0x7FC00000)]> : tensor<12xcomplex<f32>>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<12xcomplex<f32>>, tensor<12xcomplex<f32>>
  func.return %r : tensor<12xcomplex<f32>>
}

// -----
// chlo.asinh on complex<f64>
func.func @main() -> tensor<12xcomplex<f64>> {
  %x0 = stablehlo.constant dense<[(0.5, 0.25), (-0.3, -2.0), (1.0, 0.0), (2.0, 0.0), (-1.5, 0.001), (3.0e-20, 1.0e-20), (1.0e+20, -1.0e+19), (-0.001, 5.0), (0.999, 1.0e-08), (1.0e+30, 1.0e+30), (0x7FF0000000000000, 1.0), (0x7FF8000000000000, 0.5)]> : tensor<12xcomplex<f64>>
  %r = chlo.asinh %x0 : tensor<12xcomplex<f64>> -> tensor<12xcomplex<f64>>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[(0.4926756834207705, 0.2243284526346675), (-1.3338227904809452, -1.4000958553587002), (0.8813735870195429, 0.0), (1.4436354751788103, 0.0), (-1.1947633452948423, 0.0005547001655908975), (3.0e-20, 1.0e-20), (46.74982420586744, -0.09966865249116202), (-2.292431690824109, 1.5705922026526768), (0.8806663034322095, 7.074604229212225e-09), (70.11727356066129, 0.7853981633974483), (0x7FF0000000000000, 0.0), (0x7FF8000000000000, 0x7FF8000000000000)]> : tensor<12xcomplex<f64>>
  check.expect_close %r, %expected, max_ulp_difference = 3 : tensor<12xcomplex<f64>>, tensor<12xcomplex<f64>>
  func.return %r : tensor<12xcomplex<f64>>
}

// -----
// chlo.atanh on complex<f32>: by parts, with the forms past 1/eps^2
func.func @main() -> tensor<12xcomplex<f32>> {
  %x0 = stablehlo.constant dense<[(0.5, 0.25), (-0.3, -2.0), (1.0, 0.0), (2.0, 0.0), (-1.5, 0.001), (3.0e-20, 1.0e-20), (1.0e+20, -1.0e+19), (-0.001, 5.0), (0.999, 1.0e-08), (1.0e+30, 1.0e+30), (0x7F800000, 1.0), (0x7FC00000, 0.5)]> : tensor<12xcomplex<f32>>
  %r = chlo.atanh %x0 : tensor<12xcomplex<f32>> -> tensor<12xcomplex<f32>>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[(0.50037, 0.31439817), (-0.059214395, -1.1142714), (0x7F800000, 0.0), (0.54930615, 1.5707964), (-0.80471796, 1.5699964), (3.0e-20, 1.0e-20), (9.90099e-21, -1.5707964), (-3.846154e-05, 1.3734008), (3.8002076, 5.0025656e-06), (5.0e-31, 1.5707964), (0.0, 1.5707964), (0x7FC00000, 1.5707964)]> : tensor<12xcomplex<f32>>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<12xcomplex<f32>>, tensor<12xcomplex<f32>>
  func.return %r : tensor<12xcomplex<f32>>
}

// -----
// chlo.atan on complex<f64>: -i atanh(iz)
func.func @main() -> tensor<12xcomplex<f64>> {
  %x0 = stablehlo.constant dense<[(0.5, 0.25), (-0.3, -2.0), (1.0, 0.0), (2.0, 0.0), (-1.5, 0.001), (3.0e-20, 1.0e-20), (1.0e+20, -1.0e+19), (-0.001, 5.0), (0.999, 1.0e-08), (1.0e+30, 1.0e+30), (0x7FF0000000000000, 1.0), (0x7FF8000000000000, 0.5)]> : tensor<12xcomplex<f64>>
  %r = chlo.atan %x0 : tensor<12xcomplex<f64>> -> tensor<12xcomplex<f64>>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[(0.4842544903299662, 0.20058661813123432), (-1.474902255801544, -0.5302493029870837), (0.7853981633974483, -0.0), (1.1071487177940904, -0.0), (-0.9827938652591466, 0.00030769225185859716), (3.0e-20, 1.0e-20), (1.5707963267948966, -9.9009900990099e-22), (-1.5707546601300626, 0.202732545373527), (0.7848979133141151, 5.005002499998749e-09), (1.5707963267948966, 4.9999999999999995e-31), (1.5707963267948966, 0.0), (-1.5707963267948966, 0x7FF8000000000000)]> : tensor<12xcomplex<f64>>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<12xcomplex<f64>>, tensor<12xcomplex<f64>>
  func.return %r : tensor<12xcomplex<f64>>
}

// chlo.erf, chlo.erfc and chlo.erf_inv lowered by XLA's decompositions
// (Eigen's and Cephes' rational approximations, Giles' polynomials; f16 and
// bf16 computed in f32), against the values XLA:CPU computes.
// test: interpret

// chlo.erf on f32 (Eigen, clamped to [-4, 4])
func.func @main() -> tensor<20xf32> {
  %x0 = stablehlo.constant dense<[-5.0, -2.5, -1.0, -0.75, -0.1, -0.0001, 0.0, 0.0001, 0.3, 0.9, 1.0, 1.5, 2.0, 3.5, 4.5, 9.0, 3.0e+01, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<20xf32>
  %r = chlo.erf %x0 : tensor<20xf32> -> tensor<20xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-1.0, -0.999593, -0.84270084, -0.7111556, -0.112462915, -0.00011283791, 0.0, 0.00011283791, 0.3286268, 0.7969082, 0.84270084, 0.96610504, 0.9953222, 0.9999992, 1.0, 1.0, 1.0, 1.0, -1.0, 0x7FC00000]> : tensor<20xf32>
  check.expect_close %r, %expected, max_ulp_difference = 3 : tensor<20xf32>, tensor<20xf32>
  func.return %r : tensor<20xf32>
}

// -----
// chlo.erf on f64 (Cephes below 1, 1 - erfc above)
func.func @main() -> tensor<20xf64> {
  %x0 = stablehlo.constant dense<[-5.0, -2.5, -1.0, -0.75, -0.1, -0.0001, 0.0, 0.0001, 0.3, 0.9, 1.0, 1.5, 2.0, 3.5, 4.5, 9.0, 30.0, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000]> : tensor<20xf64>
  %r = chlo.erf %x0 : tensor<20xf64> -> tensor<20xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-0.9999999999984626, -0.999593047982555, -0.8427007929497149, -0.7111556336535151, -0.1124629160182849, -0.00011283791633342487, 0.0, 0.00011283791633342487, 0.3286267594591274, 0.7969082124228322, 0.8427007929497149, 0.9661051464753108, 0.9953222650189527, 0.9999992569016276, 0.9999999998033839, 1.0, 1.0, 1.0, -1.0, 0x7FF8000000000000]> : tensor<20xf64>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<20xf64>, tensor<20xf64>
  func.return %r : tensor<20xf64>
}

// -----
// chlo.erf on bf16
func.func @main() -> tensor<20xbf16> {
  %x0 = stablehlo.constant dense<[-5.0, -2.5, -1.0, -0.75, -0.10009765625, -0.00010013580322265625, 0.0, 0.00010013580322265625, 0.30078125, 0.8984375, 1.0, 1.5, 2.0, 3.5, 4.5, 9.0, 30.0, 0x7F80, 0xFF80, 0x7FC0]> : tensor<20xbf16>
  %r = chlo.erf %x0 : tensor<20xbf16> -> tensor<20xbf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-1.0, -1.0, -0.84375, -0.7109375, -0.11279296875, -0.00011301040649414062, 0.0, 0.00011301040649414062, 0.330078125, 0.796875, 0.84375, 0.96484375, 0.99609375, 1.0, 1.0, 1.0, 1.0, 1.0, -1.0, 0x7FC0]> : tensor<20xbf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<20xbf16>, tensor<20xbf16>
  func.return %r : tensor<20xbf16>
}

// -----
// chlo.erfc on f32 (1 - erf below 1, Cephes in 1/x^2 above, 0 past underflow)
func.func @main() -> tensor<20xf32> {
  %x0 = stablehlo.constant dense<[-5.0, -2.5, -1.0, -0.75, -0.1, -0.0001, 0.0, 0.0001, 0.3, 0.9, 1.0, 1.5, 2.0, 3.5, 4.5, 9.0, 3.0e+01, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<20xf32>
  %r = chlo.erfc %x0 : tensor<20xf32> -> tensor<20xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[2.0, 1.999593, 1.8427007, 1.7111555, 1.1124629, 1.0001129, 1.0, 0.99988717, 0.67137325, 0.20309184, 0.15729924, 0.033894856, 0.004677735, 7.430984e-07, 1.9661604e-10, 4.1370317e-37, 0.0, 0.0, 2.0, 0x7FC00000]> : tensor<20xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<20xf32>, tensor<20xf32>
  func.return %r : tensor<20xf32>
}

// -----
// chlo.erfc on f64
func.func @main() -> tensor<20xf64> {
  %x0 = stablehlo.constant dense<[-5.0, -2.5, -1.0, -0.75, -0.1, -0.0001, 0.0, 0.0001, 0.3, 0.9, 1.0, 1.5, 2.0, 3.5, 4.5, 9.0, 30.0, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000]> : tensor<20xf64>
  %r = chlo.erfc %x0 : tensor<20xf64> -> tensor<20xf64>
  // below |x| = 1 erfc is 1 - erf, so an ulp of erf(0.9) ~ 0.8 (the two
  // evaluations of its rational function differ by one) is 8 ulps of erfc(0.9) ~
  // 0.2: compared within a tolerance
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[1.9999999999984626, 1.999593047982555, 1.8427007929497148, 1.7111556336535152, 1.1124629160182848, 1.0001128379163333, 1.0, 0.9998871620836666, 0.6713732405408726, 0.20309178757716806, 0.15729920705028513, 0.033894853524689274, 0.004677734981047267, 7.430983723414129e-07, 1.9661604415428876e-10, 4.137031746513812e-37, 0.0, 0.0, 2.0, 0x7FF8000000000000]> : tensor<20xf64>
  check.expect_almost_eq %r, %expected, tolerance = 1e-15 : tensor<20xf64>
  func.return %r : tensor<20xf64>
}

// -----
// chlo.erfc on f16: computed in f32, so the tail does not round to 0
func.func @main() -> tensor<20xf16> {
  %x0 = stablehlo.constant dense<[-5.0, -2.5, -1.0, -0.75, -0.0999755859375, -0.00010001659393310547, 0.0, 0.00010001659393310547, 0.300048828125, 0.89990234375, 1.0, 1.5, 2.0, 3.5, 4.5, 9.0, 30.0, 0x7C00, 0xFC00, 0x7E00]> : tensor<20xf16>
  %r = chlo.erfc %x0 : tensor<20xf16> -> tensor<20xf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[2.0, 2.0, 1.8427734375, 1.7109375, 1.1123046875, 1.0, 1.0, 1.0, 0.67138671875, 0.203125, 0.1573486328125, 0.033905029296875, 0.00467681884765625, 7.152557373046875e-07, 0.0, 0.0, 0.0, 0.0, 2.0, 0x7E00]> : tensor<20xf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<20xf16>, tensor<20xf16>
  func.return %r : tensor<20xf16>
}

// -----
// chlo.erf_inv on f32 (Giles; +-inf at +-1, NaN outside)
func.func @main() -> tensor<14xf32> {
  %x0 = stablehlo.constant dense<[-1.0, -0.999, -0.9, -0.5, -0.1, 0.0, 1.0e-05, 0.25, 0.75, 0.99, 0.999999, 1.0, 1.5, 0x7FC00000]> : tensor<14xf32>
  %r = chlo.erf_inv %x0 : tensor<14xf32> -> tensor<14xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0xFF800000, -2.3267577, -1.163087, -0.47693628, -0.08885599, 0.0, 8.862268e-06, 0.22531207, 0.8134198, 1.8213867, 3.4570746, 0x7F800000, 0x7FC00000, 0x7FC00000]> : tensor<14xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<14xf32>, tensor<14xf32>
  func.return %r : tensor<14xf32>
}

// -----
// chlo.erf_inv on f64 (Giles, three ranges)
func.func @main() -> tensor<14xf64> {
  %x0 = stablehlo.constant dense<[-1.0, -0.999, -0.9, -0.5, -0.1, 0.0, 1.0e-05, 0.25, 0.75, 0.99, 0.999999, 1.0, 1.5, 0x7FF8000000000000]> : tensor<14xf64>
  %r = chlo.erf_inv %x0 : tensor<14xf64> -> tensor<14xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0xFFF0000000000000, -2.3267537655135273, -1.163087153676674, -0.47693627620446977, -0.08885599049425769, 0.0, 8.862269254759594e-06, 0.22531205501217808, 0.8134198475976187, 1.8213863677184494, 3.4589107372739605, 0x7FF0000000000000, 0x7FF8000000000000, 0x7FF8000000000000]> : tensor<14xf64>
  check.expect_close %r, %expected, max_ulp_difference = 3 : tensor<14xf64>, tensor<14xf64>
  func.return %r : tensor<14xf64>
}

// -----
// chlo.erf_inv on bf16
func.func @main() -> tensor<14xbf16> {
  %x0 = stablehlo.constant dense<[-1.0, -1.0, -0.8984375, -0.5, -0.10009765625, 0.0, 1.0013580322265625e-05, 0.25, 0.75, 0.98828125, 1.0, 1.0, 1.5, 0x7FC0]> : tensor<14xbf16>
  %r = chlo.erf_inv %x0 : tensor<14xbf16> -> tensor<14xbf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0xFF80, 0xFF80, -1.15625, -0.4765625, -0.0888671875, 0.0, 8.881092071533203e-06, 0.2255859375, 0.8125, 1.78125, 0x7F80, 0x7F80, 0x7FC0, 0x7FC0]> : tensor<14xbf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<14xbf16>, tensor<14xbf16>
  func.return %r : tensor<14xbf16>
}

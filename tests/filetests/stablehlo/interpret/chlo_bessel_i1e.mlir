// chlo.bessel_i1e lowered by XLA's decomposition (Cephes' Chebyshev series
// on either side of |x| = 8, odd in x), against the values XLA:CPU computes.
// test: interpret

// chlo.bessel_i1e on f32
func.func @main() -> tensor<19xf32> {
  %x0 = stablehlo.constant dense<[-3.0e+01, -8.0, -7.99, -2.5, -1.0, -0.001, 0.0, 0.001, 0.5, 1.0, 3.0, 7.5, 8.0, 8.01, 12.0, 1.0e+02, 1.0e+06, 0x7F800000, 0x7FC00000]> : tensor<19xf32>
  %r = chlo.bessel_i1e %x0 : tensor<19xf32> -> tensor<19xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-0.071916334, -0.13414262, -0.1342174, -0.20658463, -0.20791042, -0.00049950037, 0.0, 0.00049950037, 0.1564208, 0.20791042, 0.19682673, 0.13804132, 0.13414262, 0.13406779, 0.1114643, 0.039744154, 0.00039894215, 0.0, 0x7FC00000]> : tensor<19xf32>
  check.expect_close %r, %expected, max_ulp_difference = 3 : tensor<19xf32>, tensor<19xf32>
  func.return %r : tensor<19xf32>
}

// -----
// chlo.bessel_i1e on f64 (the longer series)
func.func @main() -> tensor<19xf64> {
  %x0 = stablehlo.constant dense<[-30.0, -8.0, -7.99, -2.5, -1.0, -0.001, 0.0, 0.001, 0.5, 1.0, 3.0, 7.5, 8.0, 8.01, 12.0, 100.0, 1000000.0, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<19xf64>
  %r = chlo.bessel_i1e %x0 : tensor<19xf64> -> tensor<19xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-0.07191633059864753, -0.13414249329269812, -0.13421733957828097, -0.20658464953126654, -0.2079104153497085, -0.0004995003123542215, 0.0, 0.0004995003123542215, 0.15642080318487173, 0.2079104153497085, 0.19682671329730084, 0.13804121154855417, 0.13414249329269812, 0.13406776900984485, 0.11146429929018098, 0.03974415302513025, 0.0003989421307980308, 0.0, 0x7FF8000000000000]> : tensor<19xf64>
  check.expect_close %r, %expected, max_ulp_difference = 3 : tensor<19xf64>, tensor<19xf64>
  func.return %r : tensor<19xf64>
}

// -----
// chlo.bessel_i1e on bf16: computed in f32
func.func @main() -> tensor<19xbf16> {
  %x0 = stablehlo.constant dense<[-30.0, -8.0, -8.0, -2.5, -1.0, -0.00099945068359375, 0.0, 0.00099945068359375, 0.5, 1.0, 3.0, 7.5, 8.0, 8.0, 12.0, 100.0, 999424.0, 0x7F80, 0x7FC0]> : tensor<19xbf16>
  %r = chlo.bessel_i1e %x0 : tensor<19xbf16> -> tensor<19xbf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-0.07177734375, -0.1337890625, -0.1337890625, -0.20703125, -0.2080078125, -0.000499725341796875, 0.0, 0.000499725341796875, 0.15625, 0.2080078125, 0.197265625, 0.1376953125, 0.1337890625, 0.1337890625, 0.111328125, 0.039794921875, 0.0003986358642578125, 0.0, 0x7FC0]> : tensor<19xbf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<19xbf16>, tensor<19xbf16>
  func.return %r : tensor<19xbf16>
}

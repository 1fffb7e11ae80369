// chlo.lgamma, chlo.digamma, chlo.polygamma and chlo.zeta lowered by XLA's
// decompositions (Lanczos' approximation; the Hurwitz zeta series), against
// the values XLA:CPU computes for the same inputs.
// test: interpret

// chlo.lgamma on f32 (Lanczos, reflected below 1/2), poles and infinities
func.func @main() -> tensor<20xf32> {
  %x0 = stablehlo.constant dense<[-4.5, -2.5, -1.25, -0.5, -0.001, 0.001, 0.25, 0.5, 1.0, 1.5, 2.0, 3.75, 1.0e+01, 123.5, 1.0e+10, -3.0, 0.0, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<20xf32>
  %r = chlo.lgamma %x0 : tensor<20xf32> -> tensor<20xf32>
  // lgamma sums terms of order 1 that cancel near its roots (1, 2, and -2.5
  // through the reflection), where the ulp by which XLA:CPU's log differs from a
  // correctly rounded one is a visible absolute error: compared within a
  // tolerance
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-2.813086, -0.056243896, 1.3664312, 1.2655118, 6.9083333, 6.907178, 1.2880225, 0.5723648, 4.7683716e-07, -0.1207819, 0.0, 1.4868164, 12.80183, 469.8173, 2.2025852e+11, 0x7F800000, 0x7F800000, 0x7F800000, 0x7F800000, 0x7FC00000]> : tensor<20xf32>
  check.expect_almost_eq %r, %expected, tolerance = 1e-6 : tensor<20xf32>
  func.return %r : tensor<20xf32>
}

// -----
// chlo.lgamma on f64
func.func @main() -> tensor<20xf64> {
  %x0 = stablehlo.constant dense<[-4.5, -2.5, -1.25, -0.5, -0.001, 0.001, 0.25, 0.5, 1.0, 1.5, 2.0, 3.75, 10.0, 123.5, 10000000000.0, -3.0, 0.0, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000]> : tensor<20xf64>
  %r = chlo.lgamma %x0 : tensor<20xf64> -> tensor<20xf64>
  // lgamma sums terms of order 1 that cancel near its roots (1, 2, and -2.5
  // through the reflection), where the ulp by which XLA:CPU's log differs from a
  // correctly rounded one is a visible absolute error: compared within a
  // tolerance
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-2.8130840817693183, -0.05624371649767457, 1.3664317612369745, 1.2655121234846451, 6.908333317515029, 6.9071788853838525, 1.2880225246980779, 0.5723649429247004, 0.0, -0.12078223763524498, 0.0, 1.4868155785934167, 12.801827480081473, 469.81727549193056, 220258509288.81058, 0x7FF0000000000000, 0x7FF0000000000000, 0x7FF0000000000000, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<20xf64>
  check.expect_almost_eq %r, %expected, tolerance = 1e-12 : tensor<20xf64>
  func.return %r : tensor<20xf64>
}

// -----
// chlo.lgamma on f16: computed in f32 and rounded
func.func @main() -> tensor<8xf16> {
  %x0 = stablehlo.constant dense<[-2.5, -0.5, 0.25, 1.5, 3.75, 10.0, 100.0, -3.0]> : tensor<8xf16>
  %r = chlo.lgamma %x0 : tensor<8xf16> -> tensor<8xf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[-0.056243896484375, 1.265625, 1.2880859375, -0.12078857421875, 1.486328125, 12.8046875, 359.25, 0x7C00]> : tensor<8xf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<8xf16>, tensor<8xf16>
  func.return %r : tensor<8xf16>
}

// -----
// chlo.digamma on f32 (reflected below 1/2; NaN at the poles)
func.func @main() -> tensor<20xf32> {
  %x0 = stablehlo.constant dense<[-4.5, -2.5, -1.25, -0.5, -0.001, 0.001, 0.25, 0.5, 1.0, 1.5, 2.0, 3.75, 1.0e+01, 123.5, 1.0e+10, -3.0, 0.0, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<20xf32>
  %r = chlo.digamma %x0 : tensor<20xf32> -> tensor<20xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[1.6110932, 1.1031562, 3.7141397, 0.036489945, 999.4211, -1000.5755, -4.2274537, -1.96351, -0.5772154, 0.036490083, 0.42278463, 1.1825373, 2.2517526, 4.812187, 23.025852, 0x7FC00000, 0x7FC00000, 0x7F800000, 0x7FC00000, 0x7FC00000]> : tensor<20xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<20xf32>, tensor<20xf32>
  func.return %r : tensor<20xf32>
}

// -----
// chlo.digamma on f64
func.func @main() -> tensor<20xf64> {
  %x0 = stablehlo.constant dense<[-4.5, -2.5, -1.25, -0.5, -0.001, 0.001, 0.25, 0.5, 1.0, 1.5, 2.0, 3.75, 10.0, 123.5, 10000000000.0, -3.0, 0.0, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000]> : tensor<20xf64>
  %r = chlo.digamma %x0 : tensor<20xf64> -> tensor<20xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[1.6110931485817515, 1.103156640645243, 3.7141391202135288, 0.03648997397857731, 999.4211381978914, -1000.5755719318104, -4.227453533376266, -1.9635100260214255, -0.5772156649015334, 0.03648997397857712, 0.42278433509846747, 1.1825373886117956, 2.2517525890667214, 4.812187109433142, 23.025850929890456, 0x7FF8000000000000, 0x7FF8000000000000, 0x7FF0000000000000, 0x7FF8000000000000, 0x7FF8000000000000]> : tensor<20xf64>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<20xf64>, tensor<20xf64>
  func.return %r : tensor<20xf64>
}

// -----
// chlo.digamma on bf16: computed in f32 and rounded
func.func @main() -> tensor<7xbf16> {
  %x0 = stablehlo.constant dense<[-2.5, -0.5, 0.25, 1.5, 3.75, 10.0, -3.0]> : tensor<7xbf16>
  %r = chlo.digamma %x0 : tensor<7xbf16> -> tensor<7xbf16>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[1.1015625, 0.036376953125, -4.21875, 0.036376953125, 1.1796875, 2.25, 0x7FC0]> : tensor<7xbf16>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<7xbf16>, tensor<7xbf16>
  func.return %r : tensor<7xbf16>
}

// -----
// chlo.polygamma on f32: n = 0 is digamma, natural n through zeta, other n NaN
func.func @main() -> tensor<9xf32> {
  %x0 = stablehlo.constant dense<[0.0, 1.0, 1.0, 2.0, 3.0, 1.0, 0.5, -1.0, 4.0]> : tensor<9xf32>
  %x1 = stablehlo.constant dense<[2.5, 0.5, 3.0, 1.25, 7.0, -1.5, 2.0, 2.0, 1.0e+01]> : tensor<9xf32>
  %r = chlo.polygamma %x0, %x1 : tensor<9xf32>, tensor<9xf32> -> tensor<9xf32>
  // n! comes from exp(lgamma(n + 1)), so lgamma's absolute error at 2 (see
  // above) becomes a relative one: compared within a tolerance
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[0.7031568, 4.934802, 0.39493403, -1.3277402, 0.007198205, 9.379247, 0x7FC00000, 0x7FC00000, -0.0007299318]> : tensor<9xf32>
  check.expect_almost_eq %r, %expected, tolerance = 1e-5 : tensor<9xf32>
  func.return %r : tensor<9xf32>
}

// -----
// chlo.zeta on f32: series with Euler-Maclaurin tail; domain errors and poles
func.func @main() -> tensor<11xf32> {
  %x0 = stablehlo.constant dense<[2.0, 3.0, 1.5, 4.0, 2.0, 1.0, 0.5, 2.5, 2.0, 3.0, 2.0e+01]> : tensor<11xf32>
  %x1 = stablehlo.constant dense<[1.0, 2.5, 0.5, 1.0e+01, -1.0, 1.0, 1.0, -1.5, -2.5, 0.001, 1.0]> : tensor<11xf32>
  %r = chlo.zeta %x0, %x1 : tensor<11xf32>, tensor<11xf32> -> tensor<11xf32>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[1.644934, 0.11810203, 4.7765384, 0.0003866502, 0x7F800000, 0x7F800000, 0x7FC00000, 0x7FC00000, 9.539247, 9.999999e+08, 1.000001]> : tensor<11xf32>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<11xf32>, tensor<11xf32>
  func.return %r : tensor<11xf32>
}

// -----
// chlo.zeta on f64
func.func @main() -> tensor<7xf64> {
  %x0 = stablehlo.constant dense<[2.0, 3.0, 1.5, 4.0, 6.0, 2.0, 3.0]> : tensor<7xf64>
  %x1 = stablehlo.constant dense<[1.0, 2.5, 0.5, 10.0, 0.75, -2.0, -1.5]> : tensor<7xf64>
  %r = chlo.zeta %x0, %x1 : tensor<7xf64>, tensor<7xf64> -> tensor<7xf64>
  // XLA:CPU's values (jax 0.10.2)
  %expected = stablehlo.constant dense<[1.6449340668482264, 0.11810202582086368, 4.776537947554833, 0.0003866502173816448, 5.656277857288165, 0x7FF0000000000000, 0.11810202582086413]> : tensor<7xf64>
  check.expect_close %r, %expected, max_ulp_difference = 1 : tensor<7xf64>, tensor<7xf64>
  func.return %r : tensor<7xf64>
}

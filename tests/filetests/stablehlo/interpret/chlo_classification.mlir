// chlo.is_inf, chlo.is_pos_inf and chlo.is_neg_inf lowered as XLA's
// decompositions compare (|x| == +inf, x == +inf, x == -inf); the expected
// values are exact by definition.
// test: interpret

// chlo.is_inf, chlo.is_pos_inf and chlo.is_neg_inf on f32: comparisons with the infinities (NaN is none of them)
func.func @main() -> tensor<8xi1> {
  %x = stablehlo.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0.0, -0.0, 1.5, -3.0e+38, 65504.0]> : tensor<8xf32>
  %inf = chlo.is_inf %x : tensor<8xf32> -> tensor<8xi1>
  %pos = chlo.is_pos_inf %x : tensor<8xf32> -> tensor<8xi1>
  %neg = chlo.is_neg_inf %x : tensor<8xf32> -> tensor<8xi1>
  check.expect_eq_const %inf, dense<[true, true, false, false, false, false, false, false]> : tensor<8xi1>
  check.expect_eq_const %pos, dense<[true, false, false, false, false, false, false, false]> : tensor<8xi1>
  check.expect_eq_const %neg, dense<[false, true, false, false, false, false, false, false]> : tensor<8xi1>
  func.return %inf : tensor<8xi1>
}

// -----
// chlo.is_inf, chlo.is_pos_inf and chlo.is_neg_inf on f64: comparisons with the infinities (NaN is none of them)
func.func @main() -> tensor<8xi1> {
  %x = stablehlo.constant dense<[0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0.0, -0.0, 1.5, -1.0e+308, 65504.0]> : tensor<8xf64>
  %inf = chlo.is_inf %x : tensor<8xf64> -> tensor<8xi1>
  %pos = chlo.is_pos_inf %x : tensor<8xf64> -> tensor<8xi1>
  %neg = chlo.is_neg_inf %x : tensor<8xf64> -> tensor<8xi1>
  check.expect_eq_const %inf, dense<[true, true, false, false, false, false, false, false]> : tensor<8xi1>
  check.expect_eq_const %pos, dense<[true, false, false, false, false, false, false, false]> : tensor<8xi1>
  check.expect_eq_const %neg, dense<[false, true, false, false, false, false, false, false]> : tensor<8xi1>
  func.return %inf : tensor<8xi1>
}

// -----
// chlo.is_inf, chlo.is_pos_inf and chlo.is_neg_inf on bf16: comparisons with the infinities (NaN is none of them)
func.func @main() -> tensor<8xi1> {
  %x = stablehlo.constant dense<[0x7F80, 0xFF80, 0x7FC0, 0.0, -0.0, 1.5, -3.00405527047391e+38, 65536.0]> : tensor<8xbf16>
  %inf = chlo.is_inf %x : tensor<8xbf16> -> tensor<8xi1>
  %pos = chlo.is_pos_inf %x : tensor<8xbf16> -> tensor<8xi1>
  %neg = chlo.is_neg_inf %x : tensor<8xbf16> -> tensor<8xi1>
  check.expect_eq_const %inf, dense<[true, true, false, false, false, false, false, false]> : tensor<8xi1>
  check.expect_eq_const %pos, dense<[true, false, false, false, false, false, false, false]> : tensor<8xi1>
  check.expect_eq_const %neg, dense<[false, true, false, false, false, false, false, false]> : tensor<8xi1>
  func.return %inf : tensor<8xi1>
}

// chlo.top_k: the k largest of each row in total order (-NaN < -inf < ... <
// +inf < +NaN), ties in index order, with and without an explicit is_stable;
// values compared through their bits so that NaN and -0 are checked exactly.
// test: interpret
func.func @main() -> tensor<2x3xi32> {
  %x = stablehlo.constant dense<[[0x7F800000, 0x7FC00000, 0xFFC00000, 0xFF800000, 3.0], [1.0, -0.0, 0.0, 1.0, -2.0]]> : tensor<2x5xf32>
  %values, %indices = chlo.top_k(%x, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  %bits = stablehlo.bitcast_convert %values : (tensor<2x3xf32>) -> tensor<2x3xi32>
  // +NaN, +inf, 3.0; 1.0, 1.0, 0.0
  check.expect_eq_const %bits, dense<[[2143289344, 2139095040, 1077936128], [1065353216, 1065353216, 0]]> : tensor<2x3xi32>
  check.expect_eq_const %indices, dense<[[1, 0, 4], [0, 3, 2]]> : tensor<2x3xi32>
  %stable_values, %stable_indices = chlo.top_k(%x, k = 2, is_stable = true) : tensor<2x5xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)
  check.expect_eq_const %stable_indices, dense<[[1, 0], [0, 3]]> : tensor<2x2xi32>
  func.return %indices : tensor<2x3xi32>
}

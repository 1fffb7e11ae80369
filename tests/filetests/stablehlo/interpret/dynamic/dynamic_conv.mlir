// dynamic_conv runs as convolution once its padding folds: a 1-D sum of three neighbours with one zero of padding on each side, the padding computed by a broadcast
// test: interpret
func.func @main() -> tensor<1x5x1xf32> {
  %input = stablehlo.constant dense<[[[1.0], [2.0], [3.0], [4.0], [5.0]]]> : tensor<1x5x1xf32>
  %kernel = stablehlo.constant dense<1.0> : tensor<3x1x1xf32>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %padding = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<i64>) -> tensor<1x2xi64>
  %result = "stablehlo.dynamic_conv"(%input, %kernel, %padding) {
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x5x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi64>) -> tensor<1x5x1xf32>
  check.expect_eq_const %result, dense<[[[3.0], [6.0], [9.0], [12.0], [9.0]]]> : tensor<1x5x1xf32>
  func.return %result : tensor<1x5x1xf32>
}

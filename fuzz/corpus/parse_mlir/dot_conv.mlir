func.func @cv(%i: tensor<1x8x8x2xf32>, %k: tensor<3x3x2x4xf32>, %m: tensor<3x2xf32>, %v: tensor<2xf32>) -> tensor<1x8x8x4xf32> {
  %d = stablehlo.dot %m, %v : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3xf32>
  %0 = stablehlo.convolution(%i, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// A convolution window takes stride, pad, lhs_dilate, rhs_dilate and reverse; a misspelt field is named
// test: error
func.func @conv(%x: tensor<1x8x3xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x3x4xf32> {
  // error: unknown window attribute 'strides'
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {strides = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x3xf32>, tensor<3x3x4xf32>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}

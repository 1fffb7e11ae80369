// A convolution layout names its batch and feature dimensions once each
// test: error
func.func @conv(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x2xf32>) -> tensor<1x2x2x2xf32> {
  // error: unexpected dimension 'b'
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, b, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

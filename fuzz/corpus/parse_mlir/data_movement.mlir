func.func @dm(%x: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<3x2xf32> {
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %t = stablehlo.transpose %b, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = stablehlo.reverse %x, dims = [1] : tensor<2x3xf32>
  %c = stablehlo.concatenate %x, %r, dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %sl = stablehlo.slice %c [0:2, 1:6:2] : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %rs = stablehlo.reshape %sl : (tensor<2x3xf32>) -> tensor<6xf32>
  %io = stablehlo.iota dim = 0 : tensor<6xi32>
  return %t : tensor<3x2xf32>
}

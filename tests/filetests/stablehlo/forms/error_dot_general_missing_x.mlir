// dot_general writes its lhs and rhs dimension lists joined by `x`
// test: error
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // error: expected 'x' between the lhs and rhs dimensions
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// A custom form without one of its clauses says which clause it expected
// test: error
func.func @f(%x: tensor<2xf32>, %v: tensor<f32>) -> tensor<4xf32> {
  // error: expected ',' and 'interior = […]'
  %0 = stablehlo.pad %x, %v, low = [1], high = [1] : (tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// The compact reduce form only takes a commutative binary op; subtract needs a reducer region
// test: error
func.func @difference(%x: tensor<5xf32>, %zero: tensor<f32>) -> tensor<f32> {
  // error: expected the inner-op to be a commutative binary-op
  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.subtract across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

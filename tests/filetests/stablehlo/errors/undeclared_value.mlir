// A use of a value nobody defined
// test: error
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  // error: use of undeclared SSA value name
  %0 = stablehlo.add %x, %y : tensor<f32>
  return %0 : tensor<f32>
}

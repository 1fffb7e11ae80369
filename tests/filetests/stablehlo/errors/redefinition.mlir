// The same name defined twice in one scope
// test: error
func.func @f(%x: tensor<f32>) {
  %0 = stablehlo.negate %x : tensor<f32>
  // error: redefinition of SSA value
  %0 = stablehlo.negate %x : tensor<f32>
  return
}

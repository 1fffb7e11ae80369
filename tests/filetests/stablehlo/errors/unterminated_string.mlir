// A string that never ends
// test: error
func.func @f(%x: tensor<f32>) {
  // error: unterminated string literal
  %0 = "stablehlo.negate(%x) : (tensor<f32>) -> tensor<f32>
  return
}

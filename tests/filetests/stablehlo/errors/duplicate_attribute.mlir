// An attribute named twice
// test: error
func.func @f(%x: tensor<f32>) {
  // error: occurs more than once
  %0 = "stablehlo.negate"(%x) {a = 1 : i32, a = 2 : i32} : (tensor<f32>) -> tensor<f32>
  return
}

// A value used with a type other than its own
// test: error
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  // error: expects different type than prior uses
  %0 = stablehlo.negate %x : tensor<i32>
  return %0 : tensor<f32>
}

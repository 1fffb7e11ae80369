// A function body that is never closed
// test: error
// error: region is never closed
func.func @f(%x: tensor<f32>) {
  %0 = stablehlo.negate %x : tensor<f32>

// futures hold ranked tensors
// test: check
// error: future element type must be a ranked tensor, but got 'f32'
func.func @f(%x: !stablehlo.future<f32>) {
  return
}

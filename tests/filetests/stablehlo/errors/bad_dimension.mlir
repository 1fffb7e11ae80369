// A dimension list without an element type
// test: error
// error: expected an element type
func.func @f(%x: tensor<2x>) {
  return
}

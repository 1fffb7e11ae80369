// An op in custom form that weft does not know
// test: error
func.func @f(%x: tensor<f32>) {
  // error: custom op
  %0 = mydialect.frobnicate %x : tensor<f32>
  return
}

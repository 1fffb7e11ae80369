// A dense literal element that does not fit its type
// test: error
func.func @f() {
  // error: out of range
  %0 = stablehlo.constant dense<[1, 300]> : tensor<2xi8>
  return
}

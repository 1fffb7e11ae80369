// A dense literal whose shape is not its type's
// test: error
func.func @f() {
  // error: does not match type
  %0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<3x2xi32>
  return
}

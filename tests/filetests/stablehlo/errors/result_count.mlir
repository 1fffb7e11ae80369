// More result names than the op has results
// test: error
func.func @f(%x: tensor<f32>) {
  // error: operation defines 1 results but was provided 2 to bind
  %a, %b = stablehlo.negate %x : tensor<f32>
  return
}

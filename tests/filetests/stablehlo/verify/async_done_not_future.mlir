// async_done unwraps a future
// test: check
func.func @f(%x: tensor<4xf32>) {
  // error: operand must be a future type
  %0 = "stablehlo.async_done"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

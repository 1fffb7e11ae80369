// async_done takes a future of one tensor
// test: check
func.func @f(%x: !stablehlo.future<tensor<4xf32>, tensor<i32>>) {
  // error: future must have exactly one type parameter, but got 2
  %0 = "stablehlo.async_done"(%x) : (!stablehlo.future<tensor<4xf32>, tensor<i32>>) -> tensor<4xf32>
  return
}

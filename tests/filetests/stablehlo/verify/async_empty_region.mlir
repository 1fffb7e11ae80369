// async_start's region may not be empty
// test: check
func.func @f(%x: tensor<4xf32>) {
  // error: region must not be empty
  %0 = "stablehlo.async_start"(%x) ({
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  return
}

// async_start needs its region
// test: check
func.func @f(%x: tensor<4xf32>) {
  // error: expected at least one region
  %0 = "stablehlo.async_start"(%x) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  return
}

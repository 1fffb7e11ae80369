func.func @wait(%f: !stablehlo.future<tensor<4xf32>, tensor<i32>>) -> tensor<i32> {
  %a, %b = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>, tensor<i32>>) -> (tensor<4xf32>, tensor<i32>)
  return %b : tensor<i32>
}

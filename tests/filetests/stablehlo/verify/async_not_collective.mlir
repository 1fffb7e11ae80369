// only collectives and slices run asynchronously
// test: check
func.func @f(%x: tensor<4xf32>) {
  // error: region must contain a collective or slice operation
  %0 = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %n = stablehlo.negate %a : tensor<4xf32>
    stablehlo.return %n : tensor<4xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
  return
}

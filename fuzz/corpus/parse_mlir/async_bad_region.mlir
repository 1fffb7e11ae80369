func.func @bad(%x: tensor<2xf32>) -> tensor<2xf32> {
  %f = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<2xf32>):
    %n = stablehlo.negate %a : tensor<2xf32>
    stablehlo.return %n, %n : tensor<2xf32>, tensor<2xf32>
  }) : (tensor<2xf32>) -> !stablehlo.future<tensor<3xf32>>
  %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<3xf32>>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

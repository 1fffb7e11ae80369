func.func @ag(%x: tensor<2xf32>) -> tensor<4xf32> {
  %f = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<2xf32>):
    %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<4xf32>
    "stablehlo.return"(%g) : (tensor<4xf32>) -> ()
  }) : (tensor<2xf32>) -> !stablehlo.future<tensor<4xf32>>
  %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

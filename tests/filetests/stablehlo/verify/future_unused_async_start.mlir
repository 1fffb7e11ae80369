// an async_start whose future no async_done takes
// test: check
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // error: result %started is a future with no matching done
  %started = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    stablehlo.return %g : tensor<8xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  return %x : tensor<4xf32>
}

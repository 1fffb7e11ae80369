// the region returns one value, so the future holds one tensor
// test: check
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // error: region must return exactly one value, but got 2
  %0 = "stablehlo.async_start"(%x, %y) ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %g:2 = "stablehlo.all_gather"(%a, %b) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>)
    stablehlo.return %g#0, %g#1 : tensor<8xf32>, tensor<8xf32>
  }) : (tensor<4xf32>, tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  return
}

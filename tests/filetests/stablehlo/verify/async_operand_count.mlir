// the operands bind the region's arguments one to one
// test: check
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // error: number of operands (2) must match number of region arguments (1)
  %0 = "stablehlo.async_start"(%x, %y) ({
  ^bb0(%a: tensor<4xf32>):
    %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    stablehlo.return %g : tensor<8xf32>
  }) : (tensor<4xf32>, tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  return
}

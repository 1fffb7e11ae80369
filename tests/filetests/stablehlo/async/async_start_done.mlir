// StableHLO's async_start/async_done with a future: always printed in the generic form, the region's block arguments named like any entry block's
// test: fmt
func.func @main(%x: tensor<8x2xf32>) -> tensor<8x8xf32> {
  %future = "stablehlo.async_start"(%x) ({
  ^bb0(%arg: tensor<8x2xf32>):
    %gathered = "stablehlo.all_gather"(%arg) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>}> : (tensor<8x2xf32>) -> tensor<8x8xf32>
    "stablehlo.return"(%gathered) : (tensor<8x8xf32>) -> ()
  }) : (tensor<8x2xf32>) -> !stablehlo.future<tensor<8x8xf32>>
  %y = "stablehlo.async_done"(%future) : (!stablehlo.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

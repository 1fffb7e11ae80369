// an explicit done must finish a start of its own kind (seed 004)
// test: check
func.func @f(%x: tensor<4xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.all_gather_start"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  // error: takes the future of 'stablehlo.all_gather_start', but 'stablehlo.reduce_scatter_done' finishes only 'stablehlo.reduce_scatter_start'
  %1 = "stablehlo.reduce_scatter_done"(%0) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

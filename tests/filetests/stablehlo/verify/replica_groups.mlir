// replica groups: unique ids 0..n-1 and -1 padding only for all_reduce
// test: check
func.func @f(%x: tensor<4xf32>) {
  // error: replica id #1 not seen in replica groups
  %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 2]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
  // error: replica id #0 seen more than once
  %1 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
  // error: duplicate sources not allowed
  %2 = "stablehlo.collective_permute"(%x) <{source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

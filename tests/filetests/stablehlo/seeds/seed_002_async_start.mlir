// The examples of seed 002 (async_start with the collective in its region, async_done unwrapping the future), made into one valid program: an all_gather and an all_to_all in flight while a multiply runs
// test: fmt
// test: fmt --async-style=pairs
// test: fmt --async-style=region
// test: convert --to hlo
// test: check
module @seed_002 attributes {mhlo.num_replicas = 8 : i32} {
  func.func @main(%x: tensor<8x2xf32>, %y: tensor<4x4xf32>) -> (tensor<8x8xf32>, tensor<4x4xf32>) {
    %gather = "stablehlo.async_start"(%x) ({
    ^bb0(%arg: tensor<8x2xf32>):
      %y = "stablehlo.all_gather"(%arg) {
        all_gather_dim = 1 : i64,
        replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
      } : (tensor<8x2xf32>) -> tensor<8x8xf32>
      "stablehlo.return"(%y) : (tensor<8x8xf32>) -> ()
    }) : (tensor<8x2xf32>) -> !stablehlo.future<tensor<8x8xf32>>
    %f1 = "stablehlo.async_start"(%y) ({
    ^bb0(%arg: tensor<4x4xf32>):
      %t = "stablehlo.all_to_all"(%arg) {
        split_dimension = 0 : i64,
        concat_dimension = 0 : i64,
        split_count = 4 : i64,
        replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>
      } : (tensor<4x4xf32>) -> tensor<4x4xf32>
      "stablehlo.return"(%t) : (tensor<4x4xf32>) -> ()
    }) : (tensor<4x4xf32>) -> !stablehlo.future<tensor<4x4xf32>>
    %square = stablehlo.multiply %y, %y : tensor<4x4xf32>
    %gathered = "stablehlo.async_done"(%gather) : (!stablehlo.future<tensor<8x8xf32>>) -> (tensor<8x8xf32>)
    %exchanged = "stablehlo.async_done"(%f1) : (!stablehlo.future<tensor<4x4xf32>>) -> (tensor<4x4xf32>)
    %sum = stablehlo.add %exchanged, %square : tensor<4x4xf32>
    return %gathered, %sum : tensor<8x8xf32>, tensor<4x4xf32>
  }
}

// A future carried around a while loop (seed 003's ring pattern): each iteration finishes the permute started by the one before, multiplies, and starts the next; the rewrite traces the loop-carried future to its start to name the done's kind
// test: fmt --async-style=pairs
// test: fmt --async-style=region
// test: convert --to hlo
// test: check
module @ring attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %first = "stablehlo.collective_permute_start"(%x) {
      source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>
    } : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %i, %acc, %inflight = stablehlo.while(%iterArg = %zero, %iterArg_0 = %x, %iterArg_1 = %first) : tensor<i32>, tensor<4xf32>, !stablehlo.future<tensor<4xf32>>
    cond {
      %three = stablehlo.constant dense<3> : tensor<i32>
      %more = stablehlo.compare LT, %iterArg, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %more : tensor<i1>
    } do {
      %received = "stablehlo.collective_permute_done"(%iterArg_1) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
      %next = "stablehlo.collective_permute_start"(%received) {
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>
      } : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
      %product = stablehlo.multiply %iterArg_0, %received : tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %step = stablehlo.add %iterArg, %one : tensor<i32>
      stablehlo.return %step, %product, %next : tensor<i32>, tensor<4xf32>, !stablehlo.future<tensor<4xf32>>
    }
    %last = "stablehlo.collective_permute_done"(%inflight) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
    %result = stablehlo.add %acc, %last : tensor<4xf32>
    return %result : tensor<4xf32>
  }
}

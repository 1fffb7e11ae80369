// The examples of seed 004 (explicit *_start returning a future, the matching *_done), made valid (`!stablehlo.future`, a program around them) and extended to the RFC's other pairs: collective_permute, all_reduce with its reducer, reduce_scatter and collective_broadcast
// test: fmt
// test: fmt --async-style=pairs
// test: fmt --async-style=region
// test: convert --to hlo
// test: check
module @seed_004 attributes {mhlo.num_replicas = 4 : i32} {
  func.func @main(%operand: tensor<2x2xi64>, %grad: tensor<8xf32>, %w: tensor<8xf32>) -> (tensor<2x2xi64>, tensor<8xf32>, tensor<2xf32>, tensor<8xf32>) {
    %future = "stablehlo.collective_permute_start"(%operand) {
      source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<2x2xi64>) -> !stablehlo.future<tensor<2x2xi64>>
    %sum_future = "stablehlo.all_reduce_start"(%grad) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<8xf32>) -> !stablehlo.future<tensor<8xf32>>
    %scatter_future = "stablehlo.reduce_scatter_start"(%grad) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<8xf32>) -> !stablehlo.future<tensor<2xf32>>
    %broadcast_future = "stablehlo.collective_broadcast_start"(%w) {
      replica_groups = dense<[[2, 0, 1, 3]]> : tensor<1x4xi64>
    } : (tensor<8xf32>) -> !stablehlo.future<tensor<8xf32>>
    %scaled = stablehlo.multiply %w, %w : tensor<8xf32>
    %result = "stablehlo.collective_permute_done"(%future) : (!stablehlo.future<tensor<2x2xi64>>) -> tensor<2x2xi64>
    %summed = "stablehlo.all_reduce_done"(%sum_future) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
    %scattered = "stablehlo.reduce_scatter_done"(%scatter_future) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
    %broadcast = "stablehlo.collective_broadcast_done"(%broadcast_future) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
    %update = stablehlo.subtract %scaled, %summed : tensor<8xf32>
    %next = stablehlo.add %update, %broadcast : tensor<8xf32>
    return %result, %next, %scattered, %broadcast : tensor<2x2xi64>, tensor<8xf32>, tensor<2xf32>, tensor<8xf32>
  }
}

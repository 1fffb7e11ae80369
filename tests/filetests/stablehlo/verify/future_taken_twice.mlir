// a future is taken once: a second done, a done and a barrier, or a done and another op are each an error at the second use
// test: check
func.func @main(%x: tensor<2xf32>, %y: tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<8xf32>) {
  %f = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  %a = "stablehlo.collective_permute_done"(%f) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  // error: takes future %f, which 'stablehlo.collective_permute_done' (defining %a) already took
  %b = "stablehlo.collective_permute_done"(%f) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  %g = "stablehlo.async_start"(%x) ({
  ^bb0(%arg: tensor<2xf32>):
    %p = "stablehlo.collective_permute"(%arg) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
    stablehlo.return %p : tensor<2xf32>
  }) : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  %c = "stablehlo.async_done"(%g) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  // error: takes future %g, which 'stablehlo.async_done' (defining %c) already took
  %h = stablehlo.optimization_barrier %g : !stablehlo.future<tensor<2xf32>>
  %s = stablehlo.custom_call @all-gather-start(%y) {mhlo.frontend_attributes = {async_collective_config = "{\"replica_groups\": [[0, 1]], \"channel_id\": 1, \"use_global_device_ids\": true, \"all_gather_dimension\": 0}"}} : (tensor<4xf32>) -> tensor<8xf32>
  %d = stablehlo.custom_call @all-gather-done(%s) : (tensor<8xf32>) -> tensor<8xf32>
  // error: takes future %s, but only a done may finish a future
  %e = stablehlo.add %s, %d : tensor<8xf32>
  return %a, %c, %e : tensor<2xf32>, tensor<2xf32>, tensor<8xf32>
}

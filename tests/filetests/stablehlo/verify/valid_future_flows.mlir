// futures taken once along every path verify clean: carried around a loop, through a barrier, finished once in each branch, passed to and returned from functions
// test: check
func.func private @finish(%f: !stablehlo.future<tensor<2xf32>>) -> tensor<2xf32> {
  %r = "stablehlo.collective_permute_done"(%f) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func private @start(%x: tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>> {
  %f = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  return %f : !stablehlo.future<tensor<2xf32>>
}
func.func @main(%x: tensor<2xf32>, %p: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %first = call @start(%x) : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  %i, %inflight = stablehlo.while(%k = %zero, %carried = %first) : tensor<i32>, !stablehlo.future<tensor<2xf32>>
  cond {
    %three = stablehlo.constant dense<3> : tensor<i32>
    %more = stablehlo.compare LT, %k, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    %received = "stablehlo.collective_permute_done"(%carried) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
    %next = "stablehlo.collective_permute_start"(%received) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
    stablehlo.return %k, %next : tensor<i32>, !stablehlo.future<tensor<2xf32>>
  }
  %held, %y = stablehlo.optimization_barrier %inflight, %x : !stablehlo.future<tensor<2xf32>>, tensor<2xf32>
  %last = call @finish(%held) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  %g = "stablehlo.collective_permute_start"(%y) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  %r = "stablehlo.if"(%p) ({
    %a = "stablehlo.collective_permute_done"(%g) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
    stablehlo.return %a : tensor<2xf32>
  }, {
    %b = "stablehlo.collective_permute_done"(%g) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
    %n = stablehlo.negate %b : tensor<2xf32>
    stablehlo.return %n : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %s = stablehlo.custom_call @all-gather-start(%x) {mhlo.frontend_attributes = {async_collective_config = "{\"replica_groups\": [[0, 1]], \"channel_id\": 1, \"use_global_device_ids\": true, \"all_gather_dimension\": 0}"}} : (tensor<2xf32>) -> tensor<4xf32>
  %ordered = stablehlo.custom_call @control_dep(%s, %y) {has_side_effect = true} : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xf32>
  %gathered = stablehlo.custom_call @all-gather-done(%s) : (tensor<4xf32>) -> tensor<4xf32>
  return %last, %r, %ordered : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

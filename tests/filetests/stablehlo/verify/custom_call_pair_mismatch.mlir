// JAX's custom-call encoding: a done custom call finishes a start of its own kind
// test: check
func.func @f(%x: tensor<4xf32>) -> tensor<8xf32> {
  %0 = stablehlo.custom_call @all-gather-start(%x) {mhlo.frontend_attributes = {async_collective_config = "{\"replica_groups\": [[0, 1]], \"channel_id\": 1, \"use_global_device_ids\": true, \"all_gather_dimension\": 0}"}} : (tensor<4xf32>) -> tensor<8xf32>
  // error: @all-reduce-done takes the result of @all-gather-start, but finishes only @all-reduce-start
  %1 = stablehlo.custom_call @all-reduce-done(%0) : (tensor<8xf32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

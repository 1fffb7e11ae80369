// JAX's encoding: the result of @all-gather-start stands for a future, and @all-gather-done must take it
// test: check
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // error: result %0 of @all-gather-start is a future with no matching done
  %0 = stablehlo.custom_call @all-gather-start(%x) {mhlo.frontend_attributes = {async_collective_config = "{\"replica_groups\": [[0, 1]], \"channel_id\": 1, \"use_global_device_ids\": true, \"all_gather_dimension\": 0}"}} : (tensor<4xf32>) -> tensor<8xf32>
  return %x : tensor<4xf32>
}

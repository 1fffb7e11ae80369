// the three encodings, each well formed, verify clean
// test: check
// test: fmt
func.func @f(%x: tensor<4xf32>, %p: tensor<2x2xi64>) -> (tensor<8xf32>, tensor<2x2xi64>, tensor<8xf32>) {
  %0 = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    stablehlo.return %g : tensor<8xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  %1 = "stablehlo.collective_permute_start"(%p) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x2xi64>) -> !stablehlo.future<tensor<2x2xi64>>
  %2 = stablehlo.custom_call @all-gather-start(%x) {mhlo.frontend_attributes = {async_collective_config = "{}"}} : (tensor<4xf32>) -> tensor<8xf32>
  %3 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
  %4 = "stablehlo.collective_permute_done"(%1) : (!stablehlo.future<tensor<2x2xi64>>) -> tensor<2x2xi64>
  %5 = stablehlo.custom_call @all-gather-done(%2) : (tensor<8xf32>) -> tensor<8xf32>
  return %3, %4, %5 : tensor<8xf32>, tensor<2x2xi64>, tensor<8xf32>
}

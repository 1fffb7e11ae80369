// Seed 002 also lets async_start wrap the slice ops (slice, dynamic_slice, dynamic_update_slice): each lowers to a generic HLO async-start calling a computation that holds the op, printed with XLA's sugar (`dynamic-slice-start`); slices have no *_start/*_done pair, so the pairs style keeps them in region form (this file uses only the region style)
// test: fmt
// test: convert --to hlo
// test: check
func.func @main(%buffer: tensor<16xf32>, %update: tensor<4xf32>, %offset: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<16xf32>) {
  %static = "stablehlo.async_start"(%buffer) ({
  ^bb0(%b: tensor<16xf32>):
    %s = "stablehlo.slice"(%b) <{start_indices = array<i64: 2>, limit_indices = array<i64: 10>, strides = array<i64: 2>}> : (tensor<16xf32>) -> tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<16xf32>) -> !stablehlo.future<tensor<4xf32>>
  %dynamic = "stablehlo.async_start"(%buffer, %offset) ({
  ^bb0(%b: tensor<16xf32>, %i: tensor<i32>):
    %s = stablehlo.dynamic_slice %b, %i, sizes = [4] : (tensor<16xf32>, tensor<i32>) -> tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<16xf32>, tensor<i32>) -> !stablehlo.future<tensor<4xf32>>
  %written = "stablehlo.async_start"(%buffer, %update, %offset) ({
  ^bb0(%b: tensor<16xf32>, %u: tensor<4xf32>, %i: tensor<i32>):
    %s = stablehlo.dynamic_update_slice %b, %u, %i : (tensor<16xf32>, tensor<4xf32>, tensor<i32>) -> tensor<16xf32>
    "stablehlo.return"(%s) : (tensor<16xf32>) -> ()
  }) : (tensor<16xf32>, tensor<4xf32>, tensor<i32>) -> !stablehlo.future<tensor<16xf32>>
  %a = "stablehlo.async_done"(%static) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  %b = "stablehlo.async_done"(%dynamic) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  %c = "stablehlo.async_done"(%written) : (!stablehlo.future<tensor<16xf32>>) -> tensor<16xf32>
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<16xf32>
}

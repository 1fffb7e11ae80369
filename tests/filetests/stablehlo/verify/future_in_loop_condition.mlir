// a while condition runs before every iteration: it may see a future in the loop state, but not finish it
// test: check
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %first = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  %i, %inflight = stablehlo.while(%k = %zero, %carried = %first) : tensor<i32>, !stablehlo.future<tensor<2xf32>>
  cond {
    // error: takes future %carried in a while loop's condition, which runs before every iteration
    %peek = "stablehlo.collective_permute_done"(%carried) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
    %three = stablehlo.constant dense<3> : tensor<i32>
    %more = stablehlo.compare LT, %k, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    stablehlo.return %k, %carried : tensor<i32>, !stablehlo.future<tensor<2xf32>>
  }
  %last = "stablehlo.collective_permute_done"(%inflight) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  return %last : tensor<2xf32>
}

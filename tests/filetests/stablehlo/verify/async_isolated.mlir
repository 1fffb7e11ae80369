// async_start is isolated from above: its region reads only its arguments
// test: check
func.func @f(%x: tensor<4xf32>) {
  %0 = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    // error: uses a value defined outside the isolated region
    %g = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    stablehlo.return %g : tensor<8xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  return
}

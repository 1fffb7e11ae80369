// async_start wraps exactly one op
// test: check
func.func @f(%x: tensor<4xf32>) {
  // error: region must contain exactly one operation and a return
  %0 = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %n = stablehlo.negate %a : tensor<4xf32>
    %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    stablehlo.return %g : tensor<8xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  return
}

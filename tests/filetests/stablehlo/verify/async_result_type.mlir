// the future's type is inferred from what the region returns
// test: check
func.func @f(%x: tensor<4xf32>) {
  // error: inferred type(s) '!stablehlo.future<tensor<8xf32>>' are incompatible with return type(s) of operation '!stablehlo.future<tensor<4xf32>>'
  // error: failed to infer returned types
  %0 = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    stablehlo.return %g : tensor<8xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
  return
}

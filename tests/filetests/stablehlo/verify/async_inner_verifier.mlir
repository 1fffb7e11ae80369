// the wrapped collective is verified like any other
// test: check
func.func @f(%x: tensor<4xf32>) {
  %0 = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    // error: all_gather_dim must be a valid index of operand
    %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    stablehlo.return %g : tensor<8xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
  return
}

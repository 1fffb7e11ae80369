func.func @ar(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = "stablehlo.all_reduce_start"(%x) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
  ^bb0(%l: tensor<f32>, %r: tensor<f32>):
    %m = stablehlo.add %l, %r : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
  %d = "stablehlo.all_reduce_done"(%s) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

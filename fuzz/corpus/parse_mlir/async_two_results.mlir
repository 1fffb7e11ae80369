func.func @two(%x: tensor<8xi32>, %i: tensor<i64>) -> (tensor<2xi32>, tensor<2xi32>) {
  %f = "stablehlo.async_start"(%x, %i) ({
  ^bb0(%a: tensor<8xi32>, %j: tensor<i64>):
    %s = "stablehlo.dynamic_slice"(%a, %j) <{slice_sizes = array<i64: 2>}> : (tensor<8xi32>, tensor<i64>) -> tensor<2xi32>
    %t = "stablehlo.slice"(%a) <{limit_indices = array<i64: 4>, start_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<8xi32>) -> tensor<2xi32>
    "stablehlo.return"(%s, %t) : (tensor<2xi32>, tensor<2xi32>) -> ()
  }) : (tensor<8xi32>, tensor<i64>) -> !stablehlo.future<tensor<2xi32>, tensor<2xi32>>
  %r:2 = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<2xi32>, tensor<2xi32>>) -> (tensor<2xi32>, tensor<2xi32>)
  return %r#0, %r#1 : tensor<2xi32>, tensor<2xi32>
}

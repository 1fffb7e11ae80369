func.func @mx(%x: tensor<7xi32>, %i: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.reduce"(%x, %i) <{dimensions = array<i64: 0>}> ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %1 = stablehlo.maximum %q, %p : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }) : (tensor<7xi32>, tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

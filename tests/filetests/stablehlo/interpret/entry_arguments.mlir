// The entry function takes its arguments from the `// args:` line, as
// `stablehlo-translate --interpret --args` takes them: a splat and a list.
// test: interpret
// args: [dense<2> : tensor<3xi32>, dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>]
func.func @main(%arg0: tensor<3xi32>, %arg1: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
  %1 = stablehlo.multiply %0, %arg1 : tensor<2x3xi32>
  check.expect_eq_const %1, dense<[[2, 4, 6], [8, 10, 12]]> : tensor<2x3xi32>
  func.return %1 : tensor<2x3xi32>
}

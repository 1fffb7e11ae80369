// dynamic_iota runs when its output shape folds: from a constant, from sizes read off another tensor, and with a result type that leaves the sizes to the shape operand
// test: interpret
func.func @main() -> tensor<2x3xi32> {
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %iota = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi32>
  check.expect_eq_const %iota, dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>
  func.return %iota : tensor<2x3xi32>
}

// -----

func.func @main() -> tensor<?x?xf32> {
  %like = stablehlo.constant dense<0.0> : tensor<3x2xf32>
  %rows = stablehlo.get_dimension_size %like, dim = 0 : (tensor<3x2xf32>) -> tensor<i32>
  %columns = stablehlo.get_dimension_size %like, dim = 1 : (tensor<3x2xf32>) -> tensor<i32>
  %r = stablehlo.reshape %rows : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.reshape %columns : (tensor<i32>) -> tensor<1xi32>
  %shape = stablehlo.concatenate %r, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %iota = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi32>) -> tensor<?x?xf32>
  func.return %iota : tensor<?x?xf32>
}

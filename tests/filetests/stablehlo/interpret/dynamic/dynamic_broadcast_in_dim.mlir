// dynamic_broadcast_in_dim runs when its output dimensions fold, stretching a size-1 dimension as broadcast_in_dim does; the output dimensions are computed with multiply and maximum
// test: interpret
func.func @main() -> tensor<2x?x3xi32> {
  %operand = stablehlo.constant dense<[[7], [8]]> : tensor<2x1xi32>
  %base = stablehlo.constant dense<[2, 2, 3]> : tensor<3xi32>
  %factor = stablehlo.constant dense<[1, 2, 1]> : tensor<3xi32>
  %scaled = stablehlo.multiply %base, %factor : tensor<3xi32>
  %floor = stablehlo.constant dense<1> : tensor<3xi32>
  %shape = stablehlo.maximum %scaled, %floor : tensor<3xi32>
  %result = stablehlo.dynamic_broadcast_in_dim %operand, %shape, dims = [0, 2] : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x?x3xi32>
  func.return %result : tensor<2x?x3xi32>
}

// -----

// A folded shape that disagrees with a static result dimension is an error naming both.
// expect-failure
func.func @main() -> tensor<2x3xi32> {
  %operand = stablehlo.constant dense<[7, 8]> : tensor<2xi32>
  %shape = stablehlo.constant dense<[2, 4]> : tensor<2xi32>
  %result = stablehlo.dynamic_broadcast_in_dim %operand, %shape, dims = [0] : (tensor<2xi32>, tensor<2xi32>) -> tensor<2x3xi32>
  func.return %result : tensor<2x3xi32>
}

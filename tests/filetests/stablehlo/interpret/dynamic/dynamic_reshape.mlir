// dynamic_reshape runs when its output shape folds; the shape here is computed (the element count divided by a constant), and the result type is refined from it
// test: interpret
func.func @main() -> tensor<?x2xi32> {
  %operand = stablehlo.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %count = stablehlo.get_dimension_size %operand, dim = 0 : (tensor<6xi32>) -> tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %rows = stablehlo.divide %count, %two : tensor<i32>
  %r = stablehlo.reshape %rows : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.reshape %two : (tensor<i32>) -> tensor<1xi32>
  %shape = stablehlo.concatenate %r, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %result = stablehlo.dynamic_reshape %operand, %shape : (tensor<6xi32>, tensor<2xi32>) -> tensor<?x2xi32>
  func.return %result : tensor<?x2xi32>
}

// -----

// A shape that does not hold the operand's elements is refused before anything runs.
// expect-failure
func.func @main() -> tensor<4xi32> {
  %operand = stablehlo.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %shape = stablehlo.constant dense<[4]> : tensor<1xi64>
  %result = stablehlo.dynamic_reshape %operand, %shape : (tensor<6xi32>, tensor<1xi64>) -> tensor<4xi32>
  func.return %result : tensor<4xi32>
}

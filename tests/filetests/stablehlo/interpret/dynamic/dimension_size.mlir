// get_dimension_size reads a static dimension's size at run time; set_dimension_size to the dimension's own size leaves the tensor as it is
// test: interpret
func.func @main() -> tensor<i32> {
  %operand = stablehlo.constant dense<0.5> : tensor<4x7xf32>
  %size = stablehlo.get_dimension_size %operand, dim = 1 : (tensor<4x7xf32>) -> tensor<i32>
  check.expect_eq_const %size, dense<7> : tensor<i32>
  func.return %size : tensor<i32>
}

// -----

func.func @main() -> tensor<2x3xi32> {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %same = stablehlo.set_dimension_size %operand, %three, dim = 1 : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  check.expect_eq_const %same, dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  func.return %same : tensor<2x3xi32>
}

// -----

// A smaller size would make the dimension dynamic, which weft does not run.
// expect-failure
func.func @main() -> tensor<2x3xi32> {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %smaller = stablehlo.set_dimension_size %operand, %two, dim = 1 : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  func.return %smaller : tensor<2x3xi32>
}

// real_dynamic_slice runs when its bounds fold; here they are computed from the operand's sizes (the last two rows, every other column) and the result type is refined
// test: interpret
func.func @main() -> tensor<?x?xi32> {
  %operand = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi32>
  %rows = stablehlo.get_dimension_size %operand, dim = 0 : (tensor<3x4xi32>) -> tensor<i32>
  %columns = stablehlo.get_dimension_size %operand, dim = 1 : (tensor<3x4xi32>) -> tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %from = stablehlo.subtract %rows, %one : tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<1xi32>
  %from_row = stablehlo.reshape %from : (tensor<i32>) -> tensor<1xi32>
  %start = stablehlo.concatenate %from_row, %zero, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %row_limit = stablehlo.reshape %rows : (tensor<i32>) -> tensor<1xi32>
  %column_limit = stablehlo.reshape %columns : (tensor<i32>) -> tensor<1xi32>
  %limit = stablehlo.concatenate %row_limit, %column_limit, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %strides = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %result = stablehlo.real_dynamic_slice %operand, %start, %limit, %strides : (tensor<3x4xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xi32>
  func.return %result : tensor<?x?xi32>
}

// -----

// Bounds outside the operand are refused with the dimension, its size and the bounds.
// expect-failure
func.func @main() -> tensor<2xi32> {
  %operand = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %start = stablehlo.constant dense<2> : tensor<1xi32>
  %limit = stablehlo.constant dense<4> : tensor<1xi32>
  %strides = stablehlo.constant dense<1> : tensor<1xi32>
  %result = stablehlo.real_dynamic_slice %operand, %start, %limit, %strides : (tensor<3xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  func.return %result : tensor<2xi32>
}

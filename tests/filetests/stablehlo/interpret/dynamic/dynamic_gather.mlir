// dynamic_gather runs as gather once its slice sizes fold; the sizes here are a constant clamped to the operand's, and the result's batch and slice sizes are refined
// test: interpret
func.func @main() -> tensor<?x?xi32> {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
  %indices = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
  %wanted = stablehlo.constant dense<[1, 5]> : tensor<2xi32>
  %low = stablehlo.constant dense<0> : tensor<2xi32>
  %high = stablehlo.constant dense<2> : tensor<2xi32>
  %sizes = stablehlo.clamp %low, %wanted, %high : tensor<2xi32>
  %result = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    indices_are_sorted = false
  } : (tensor<3x3xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<?x?xi32>
  func.return %result : tensor<?x?xi32>
}

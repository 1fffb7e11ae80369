func.func @n() -> tensor<2x3xi64> {
  %c = stablehlo.constant dense<[[1, 2, 3], [-4, -5, 6]]> : tensor<2x3xi64>
  return %c : tensor<2x3xi64>
}

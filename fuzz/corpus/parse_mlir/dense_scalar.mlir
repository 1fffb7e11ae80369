func.func @k() -> tensor<f32> {
  %c = stablehlo.constant dense<2.500000e+00> : tensor<f32>
  return %c : tensor<f32>
}

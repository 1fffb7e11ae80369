// leading comment
func.func @c(%x: tensor<f32>) -> tensor<f32> { // trailing
  // inside
  %0 = "stablehlo.rsqrt"(%x) {result_accuracy = #stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

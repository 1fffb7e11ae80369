func.func @sum(%x: tensor<4x6xf32>) -> tensor<6xf32> {
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

func.func @arr(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "stablehlo.transpose"(%x) {permutation = array<i64: 1, 0>, tag = array<i1: true>, w = array<f64: 0.5, 2.0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

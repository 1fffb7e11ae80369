// An inherent attribute written by the custom syntax may not be repeated in the attribute dictionary
// test: error
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // error: attribute 'permutation' of 'stablehlo.transpose' is given twice
  %0 = stablehlo.transpose %x, dims = [1, 0] {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

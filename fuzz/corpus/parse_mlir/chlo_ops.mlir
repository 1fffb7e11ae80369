func.func @ch(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = chlo.erf %x : tensor<3xf32> -> tensor<3xf32>
  %1:2 = chlo.top_k(%0, k = 2) : tensor<3xf32> -> (tensor<2xf32>, tensor<2xi32>)
  return %0 : tensor<3xf32>
}

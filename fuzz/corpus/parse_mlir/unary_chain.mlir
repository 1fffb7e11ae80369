func.func @u(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = stablehlo.exponential %x : tensor<4xf64>
  %1 = stablehlo.log %0 : tensor<4xf64>
  %2 = stablehlo.sqrt %1 : tensor<4xf64>
  %3 = stablehlo.tanh %2 : tensor<4xf64>
  %4 = stablehlo.abs %3 : tensor<4xf64>
  return %4 : tensor<4xf64>
}

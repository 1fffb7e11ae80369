// an op whose types disagree passes the StableHLO verifier (it does not infer every op's shapes yet), but its HLO form does not verify: the error is at the op
// test: check
func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<3x2xf32> {
  // error: 'stablehlo.add' op is not valid: its HLO form breaks [shape.elementwise]
  %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<2xf32>) -> tensor<3x2xf32>
  // error: 'stablehlo.transpose' op is not valid: its HLO form breaks [shape.transpose]
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// uniform_quantize and uniform_dequantize print as MLIR's SameOperandsAndResultType: one type when the operand and result types are the same (a requantization to the same type), the functional form otherwise; both forms parse
// test: fmt
// test: fmt --generic
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  %same = stablehlo.uniform_quantize %q : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  %d = stablehlo.uniform_dequantize %same : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

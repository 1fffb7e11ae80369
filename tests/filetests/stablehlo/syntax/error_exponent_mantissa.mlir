// reduce_precision's format must be e#m#
// test: error
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.reduce_precision %x, format = e5 : tensor<2xf32> // error: expected exponent mantissa in format e#m#
  return %0 : tensor<2xf32>
}

// Each elementwise op takes the element types its "Inputs" table in the
// StableHLO spec lists: atan2 and the other transcendental ops floats and
// complex numbers, popcnt integers, abs and sign signed integers (not
// unsigned ones), subtract no booleans, floor no complex numbers.
// test: check
func.func @f(%b: tensor<2xi1>, %u: tensor<2xui32>, %c: tensor<2xcomplex<f32>>, %x: tensor<2xf32>) {
  // error: operand #0 must be a tensor of floating-point or complex type values, but got 'tensor<2xi1>'
  %0 = stablehlo.atan2 %b, %b : tensor<2xi1>
  // error: operand #0 must be a tensor of integer type values, but got 'tensor<2xf32>'
  %1 = stablehlo.popcnt %x : tensor<2xf32>
  // error: operand #0 must be a tensor of signed integer, floating-point or complex type values, but got 'tensor<2xui32>'
  %2 = stablehlo.abs %u : tensor<2xui32>
  // error: operand #0 must be a tensor of signed integer, floating-point or complex type values, but got 'tensor<2xui32>'
  %3 = stablehlo.sign %u : tensor<2xui32>
  // error: operand #0 must be a tensor of integer, floating-point or complex type values, but got 'tensor<2xi1>'
  %4 = stablehlo.subtract %b, %b : tensor<2xi1>
  // error: operand #0 must be a tensor of floating-point type values, but got 'tensor<2xcomplex<f32>>'
  %5 = stablehlo.floor %c : tensor<2xcomplex<f32>>
  // Complex operands where the spec allows them.
  %6 = stablehlo.atan2 %c, %c : tensor<2xcomplex<f32>>
  %7 = stablehlo.cbrt %c : tensor<2xcomplex<f32>>
  %8 = stablehlo.remainder %c, %c : tensor<2xcomplex<f32>>
  %9 = stablehlo.abs %c : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  return
}

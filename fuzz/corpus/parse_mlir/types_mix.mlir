func.func @ty(%a: tensor<?x4xbf16>, %b: tensor<*xi8>, %c: tensor<2xui16>, %d: tensor<f8E4M3FN>, %e: tensor<?xf32, #stablehlo.bounds<8>>, %f: tensor<index>, %g: tensor<3x!quant.uniform<i8:f32, 2.500000e-01:4>>) -> tensor<2xui16> {
  return %c : tensor<2xui16>
}

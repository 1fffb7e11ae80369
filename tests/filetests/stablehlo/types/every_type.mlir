// Every element type, dynamic and bounded dimensions, unranked tensors, tuples, tokens, futures and quantized types
// test: fmt
func.func @types(%i: tensor<2xi1>, %s: tensor<2xi2>, %u: tensor<3xui4>, %si: tensor<si8>, %f8: tensor<f8E4M3FN>, %f8b: tensor<f8E5M2FNUZ>, %f4: tensor<f4E2M1FN>, %f6: tensor<f6E3M2FN>, %m: tensor<f8E8M0FNU>, %bf: tensor<2x?xbf16>, %h: tensor<?xf16, #stablehlo.bounds<4>>, %c: tensor<complex<f64>>, %x: tensor<index>, %any: tensor<*xf32>, %t: tuple<tensor<f32>, tuple<!stablehlo.token>>, %k: !stablehlo.token, %fut: !stablehlo.future<tensor<2xf32>, tensor<i32>>, %q: tensor<4x!quant.uniform<i8:f32, 1.000000e-01:-30>>, %qa: tensor<2x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-01:-30,5.000000e-01}>>, %tf: tensor<tf32>) -> tensor<2xi1> {
  return %i : tensor<2xi1>
}

func.func @mf(%a: tensor<2xf32>, %b: tensor<2xf32>, %s: tensor<2xui64>) -> tensor<2xf32> {
  %c = stablehlo.complex %a, %b : tensor<2xcomplex<f32>>
  %r = stablehlo.reduce_precision %a, format = e8m7 : tensor<2xf32>
  %o:2 = stablehlo.optimization_barrier %a, %b : tensor<2xf32>, tensor<2xf32>
  %st, %bits = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui32>)
  %ff = stablehlo.fft %c, type = FFT, length = [2] : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %o#1 : tensor<2xf32>
}

func.func @bc() {
  %t = stablehlo.constant dense<[false, true, true]> : tensor<3xi1>
  %z = stablehlo.constant dense<(2.0, -1.0)> : tensor<complex<f64>>
  %h = stablehlo.constant dense<"0x0000C03F"> : tensor<1xf32>
  %e = stablehlo.constant dense<> : tensor<0xi8>
  %x = stablehlo.constant dense<0xFF800000> : tensor<f32>
  return
}

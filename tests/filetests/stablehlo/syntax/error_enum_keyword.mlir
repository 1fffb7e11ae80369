// An unknown enum keyword in a custom form names the valid ones
// test: error
func.func @f(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = stablehlo.fft %x, type = DFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> // error: unknown fft_type 'DFT'
  return %0 : tensor<4xcomplex<f32>>
}

// sdy.manual_computation must say which axes are manual, even when there are none
// test: error
sdy.mesh @mesh = <["x"=2]>
func.func @local(%x: tensor<4xf32>) -> tensor<4xf32> {
  // error: expected 'manual_axes'
  %y = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] (%l: tensor<2xf32>) {
    sdy.return %l : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

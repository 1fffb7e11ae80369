module {
  sdy.mesh @grid = <["a"=2, "b"=2]>
  func.func @sh(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = sdy.sharding_constraint %arg0 <@grid, [{"a"}, {}]> : tensor<4x4xf32>
    %1 = sdy.manual_computation(%0) in_shardings=[<@grid, [{"a"}, {}]>] out_shardings=[<@grid, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<2x4xf32>) {
      %2 = stablehlo.add %arg1, %arg1 : tensor<2x4xf32>
      sdy.return %2 : tensor<2x4xf32>
    } : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
}

func.func @pd(%x: tensor<3xf32>, %v: tensor<f32>, %i: tensor<i32>) -> tensor<6xf32> {
  %p = stablehlo.pad %x, %v, low = [1], high = [2], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
  %d = stablehlo.dynamic_slice %p, %i, sizes = [2] : (tensor<6xf32>, tensor<i32>) -> tensor<2xf32>
  %u = stablehlo.dynamic_update_slice %p, %d, %i : (tensor<6xf32>, tensor<2xf32>, tensor<i32>) -> tensor<6xf32>
  return %u : tensor<6xf32>
}

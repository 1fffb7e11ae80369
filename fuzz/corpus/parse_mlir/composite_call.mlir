func.func @outer(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.composite "acme.double" %a {composite_attributes = {k = 2 : i64}, decomposition = @inner, version = 1 : i32} : (tensor<f32>) -> tensor<f32>
  %1 = func.call @inner(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @inner(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %a : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @decl(tensor<i32>) -> tensor<i32>

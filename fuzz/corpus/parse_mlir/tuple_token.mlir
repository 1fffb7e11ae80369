func.func @tt(%x: tensor<f32>, %t: !stablehlo.token) -> tuple<tensor<f32>, !stablehlo.token> {
  %a = stablehlo.after_all %t, %t : !stablehlo.token
  %tup = stablehlo.tuple %x, %a : tuple<tensor<f32>, !stablehlo.token>
  %e = stablehlo.get_tuple_element %tup[0] : (tuple<tensor<f32>, !stablehlo.token>) -> tensor<f32>
  return %tup : tuple<tensor<f32>, !stablehlo.token>
}

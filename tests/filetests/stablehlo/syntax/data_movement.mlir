// Data-movement custom forms (broadcast_in_dim, iota, transpose, reverse, concatenate, slice, dynamic_slice, pad, tuple, …) print as MLIR prints them; their generic form shows the properties MLIR stores
// test: fmt
// test: fmt --generic
func.func @data_movement(%x: tensor<2x3xf32>, %s: tensor<f32>, %i: tensor<i64>, %shape: tensor<2xi64>) -> tensor<3x2xf32> {
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %b2 = stablehlo.broadcast_in_dim %x, dims = [1, 2] {xla_shape = "f32[4,2,3]"} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %db = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [0, 1] {known_nonexpanding_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %iota = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %diota = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi64>) -> tensor<?x3xi32>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = stablehlo.reverse %x, dims = [0, 1] : tensor<2x3xf32>
  %c = stablehlo.concatenate %x, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %sl = stablehlo.slice %c [1:3, 0:3:2] : (tensor<4x3xf32>) -> tensor<2x2xf32>
  %ds = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<1x2xf32>
  %p = stablehlo.pad %x, %s, low = [1, -1], high = [0, 1], interior = [1, 0]
    : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %size = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
  %tup = stablehlo.tuple %x, %s : tuple<tensor<2x3xf32>, tensor<f32>>
  %e = stablehlo.get_tuple_element %tup[1] : (tuple<tensor<2x3xf32>, tensor<f32>>) -> tensor<f32>
  // Properties that do not fit the custom syntax keep the generic form.
  %g = "stablehlo.transpose"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

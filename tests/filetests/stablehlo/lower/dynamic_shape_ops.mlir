// Each dynamic-shape op becomes its static HLO form once its shape operands fold (here from a size read off the argument): dynamic_iota an iota, dynamic_reshape a reshape, dynamic_broadcast_in_dim a broadcast, dynamic_pad a pad, real_dynamic_slice a slice, dynamic_gather a gather, dynamic_conv a convolution, get_dimension_size a get-dimension-size, set_dimension_size to the dimension's own size nothing; the ? result types are refined first
// test: convert --to hlo
func.func @main(%x: tensor<4xf32>) -> (tensor<?xi32>, tensor<2x?xf32>, tensor<3x4xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x1xf32>, tensor<1x?x1xf32>, tensor<4xf32>) {
  %size = stablehlo.get_dimension_size %x, dim = 0 : (tensor<4xf32>) -> tensor<i32>
  %length = stablehlo.reshape %size : (tensor<i32>) -> tensor<1xi32>
  %iota = stablehlo.dynamic_iota %length, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %half = stablehlo.divide %length, %two : tensor<1xi32>
  %matrix_shape = stablehlo.concatenate %two, %half, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %matrix = stablehlo.dynamic_reshape %x, %matrix_shape : (tensor<4xf32>, tensor<2xi32>) -> tensor<2x?xf32>
  %three = stablehlo.constant dense<3> : tensor<1xi32>
  %rows_shape = stablehlo.concatenate %three, %length, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %rows = stablehlo.dynamic_broadcast_in_dim %x, %rows_shape, dims = [1] : (tensor<4xf32>, tensor<2xi32>) -> tensor<3x4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %none = stablehlo.constant dense<0> : tensor<1xi32>
  %padded = stablehlo.dynamic_pad %x, %zero, %one, %none, %one : (tensor<4xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %tail = stablehlo.real_dynamic_slice %x, %one, %length, %two : (tensor<4xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %indices = stablehlo.constant dense<[[3], [0]]> : tensor<2x1xi32>
  %gathered = "stablehlo.dynamic_gather"(%x, %indices, %one) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>,
    indices_are_sorted = false
  } : (tensor<4xf32>, tensor<2x1xi32>, tensor<1xi32>) -> tensor<?x1xf32>
  %input = stablehlo.reshape %x : (tensor<4xf32>) -> tensor<1x4x1xf32>
  %kernel = stablehlo.constant dense<1.0> : tensor<3x1x1xf32>
  %padding = stablehlo.reshape %matrix_shape : (tensor<2xi32>) -> tensor<1x2xi32>
  %convolved = "stablehlo.dynamic_conv"(%input, %kernel, %padding) {
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x4x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi32>) -> tensor<1x?x1xf32>
  %same = stablehlo.set_dimension_size %x, %size, dim = 0 : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  func.return %iota, %matrix, %rows, %padded, %tail, %gathered, %convolved, %same : tensor<?xi32>, tensor<2x?xf32>, tensor<3x4xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x1xf32>, tensor<1x?x1xf32>, tensor<4xf32>
}

// Linear-algebra custom forms (dot, dot_general, convolution) print as MLIR prints them: the precision and algorithm clauses only when set, batching_dims only when there are batching dimensions, the window fields in MLIR's fixed order whatever order they were written in, and the group counts and other attributes in the trailing dictionary
// test: fmt
// test: fmt --generic
// test: check
func.func @products(%m: tensor<4x8xf32>, %n: tensor<8x2xf32>, %v: tensor<8xf32>) -> (tensor<4xf32>, tensor<4x2xf32>) {
  %mv = stablehlo.dot %m, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %mm = stablehlo.dot %m, %n, precision = [HIGH, HIGHEST] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %g = stablehlo.dot_general %m, %n, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %gt = stablehlo.dot_general %n, %m, contracting_dims = [0] x [1], precision = [DEFAULT, HIGH] {mhlo.frontend_attributes = {note = "transposed"}} : (tensor<8x2xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %sum = stablehlo.add %mm, %g : tensor<4x2xf32>
  return %mv, %sum : tensor<4xf32>, tensor<4x2xf32>
}

func.func @attention_scores(%q: tensor<2x3x5xbf16>, %k: tensor<2x7x5xbf16>) -> tensor<2x3x7xf32> {
  %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [HIGHEST, HIGHEST] : (tensor<2x3x5xbf16>, tensor<2x7x5xbf16>) -> tensor<2x3x7xf32>
  %a = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3x5xbf16>, tensor<2x7x5xbf16>) -> tensor<2x3x7xf32>
  %b = "stablehlo.dot_general"(%q, %k) {algorithm = #stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>, dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3x5xbf16>, tensor<2x7x5xbf16>) -> tensor<2x3x7xf32>
  %sa = stablehlo.add %s, %a : tensor<2x3x7xf32>
  %sb = stablehlo.add %sa, %b : tensor<2x3x7xf32>
  return %sb : tensor<2x3x7xf32>
}

func.func @grouped_conv(%img: tensor<1x8x8x4xf32>, %ker: tensor<3x3x2x6xf32>) -> tensor<1x4x4x6xf32> {
  %y = stablehlo.convolution(%img, %ker) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>]} : (tensor<1x8x8x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x4x4x6xf32>
  return %y : tensor<1x4x4x6xf32>
}

func.func @dilated_conv_1d(%x: tensor<4x3x10xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x4x6xf32> {
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {reverse = [true], pad = [[0, 1]], stride = [3], rhs_dilate = [2], lhs_dilate = [2]} {feature_group_count = 1 : i64, batch_group_count = 2 : i64} : (tensor<4x3x10xf32>, tensor<4x3x3xf32>) -> tensor<2x4x6xf32>
  return %y : tensor<2x4x6xf32>
}

func.func @conv_from_generic(%x: tensor<2x5x5x3xf32>, %w: tensor<4x3x2x2xf32>) -> tensor<2x4x4x4xf32> {
  %y = "stablehlo.convolution"(%x, %w) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[o, i, 0, 1]->[b, 0, 1, f]>, feature_group_count = 1 : i64} : (tensor<2x5x5x3xf32>, tensor<4x3x2x2xf32>) -> tensor<2x4x4x4xf32>
  %z = "stablehlo.convolution"(%x, %w) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[o, i, 0, 1]->[b, 0, 1, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>} : (tensor<2x5x5x3xf32>, tensor<4x3x2x2xf32>) -> tensor<2x4x4x4xf32>
  %s = stablehlo.add %y, %z : tensor<2x4x4x4xf32>
  return %s : tensor<2x4x4x4xf32>
}

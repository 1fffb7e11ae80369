// Every CHLO op in its custom form as the dialect's assembly formats write it:
// unary ops `%x : t -> u`, the non-broadcasting binary ops `%x, %y : t, u -> v`,
// the chlo.broadcast_* ops in the functional form with their attributes,
// chlo.constant like stablehlo.constant, top_k with an optional is_stable;
// chlo.constant_like and chlo.ragged_dot have no custom form and stay generic
// test: fmt
// test: fmt --generic
// test: check
func.func @unary(%x: tensor<4xf32>, %z: tensor<4xcomplex<f32>>) -> tensor<4xi1> {
  %acos = chlo.acos %x : tensor<4xf32> -> tensor<4xf32>
  %acosh = chlo.acosh %x : tensor<4xf32> -> tensor<4xf32>
  %asin = chlo.asin %x : tensor<4xf32> -> tensor<4xf32>
  %asinh = chlo.asinh %x : tensor<4xf32> -> tensor<4xf32>
  %atan = chlo.atan %x : tensor<4xf32> -> tensor<4xf32>
  %atanh = chlo.atanh %x : tensor<4xf32> -> tensor<4xf32>
  %bessel_i1e = chlo.bessel_i1e %x : tensor<4xf32> -> tensor<4xf32>
  %conj = chlo.conj %x : tensor<4xf32> -> tensor<4xf32>
  %cosh = chlo.cosh %x : tensor<4xf32> -> tensor<4xf32>
  %sinh = chlo.sinh %x : tensor<4xf32> -> tensor<4xf32>
  %tan = chlo.tan %x : tensor<4xf32> -> tensor<4xf32>
  %digamma = chlo.digamma %x : tensor<4xf32> -> tensor<4xf32>
  %erf = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  %erf_inv = chlo.erf_inv %x : tensor<4xf32> -> tensor<4xf32>
  %erfc = chlo.erfc %x : tensor<4xf32> -> tensor<4xf32>
  %lgamma = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>
  %square = chlo.square %x : tensor<4xf32> -> tensor<4xf32>
  %asin_complex = chlo.asin %z : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %kernel = chlo._asin_acos_kernel %z : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %square_complex = chlo.square %z {note = "kept"} : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %is_inf = chlo.is_inf %x : tensor<4xf32> -> tensor<4xi1>
  %is_neg_inf = chlo.is_neg_inf %x : tensor<4xf32> -> tensor<4xi1>
  %is_pos_inf = chlo.is_pos_inf %x : tensor<4xf32> -> tensor<4xi1>
  %from_generic = "chlo.lgamma"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %is_inf : tensor<4xi1>
}

func.func @binary(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  %next = chlo.next_after %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %polygamma = chlo.polygamma %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %zeta = chlo.zeta %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %mulhi = chlo.mulhi %i, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %generic = "chlo.zeta"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %zeta : tensor<4xf32>
}

func.func @broadcasting(%m: tensor<2x4xf32>, %v: tensor<4xf32>, %i: tensor<2x4xi32>, %j: tensor<4xi32>, %p: tensor<2x4xi1>) -> tensor<2x4xf32> {
  %add = chlo.broadcast_add %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %atan2 = chlo.broadcast_atan2 %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %divide = chlo.broadcast_divide %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %maximum = chlo.broadcast_maximum %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %minimum = chlo.broadcast_minimum %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %multiply = chlo.broadcast_multiply %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %next_after = chlo.broadcast_next_after %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %polygamma = chlo.broadcast_polygamma %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %power = chlo.broadcast_power %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %remainder = chlo.broadcast_remainder %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %subtract = chlo.broadcast_subtract %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %zeta = chlo.broadcast_zeta %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %and = chlo.broadcast_and %i, %j : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %or = chlo.broadcast_or %i, %j : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %xor = chlo.broadcast_xor %i, %j : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %shift_left = chlo.broadcast_shift_left %i, %j : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %shift_right_arithmetic = chlo.broadcast_shift_right_arithmetic %i, %j : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %shift_right_logical = chlo.broadcast_shift_right_logical %i, %j : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %explicit = chlo.broadcast_add %m, %v {broadcast_dimensions = array<i64: 1>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %complex = chlo.broadcast_complex %m, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xcomplex<f32>>
  %compare = chlo.broadcast_compare %m, %v {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  %total = chlo.broadcast_compare %m, %v {compare_type = #chlo<comparison_type TOTALORDER>, comparison_direction = #chlo<comparison_direction GE>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  %select = chlo.broadcast_select %p, %m, %v : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %select : tensor<2x4xf32>
}

func.func @constants_and_top_k(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %c = chlo.constant dense<[1.5, 2.5]> : tensor<2xf32>
  %like = "chlo.constant_like"(%x) <{value = 1.000000e+00 : f32}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
  %values, %indices = chlo.top_k(%x, k = 2, is_stable = true) : tensor<3x8xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
  %unstable:2 = chlo.top_k(%x, k = 3, is_stable = false) {note = "kept"} : tensor<3x8xf32> -> (tensor<3x3xf32>, tensor<3x3xi32>)
  return %like : tensor<3x8xf32>
}

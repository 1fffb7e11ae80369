// The chlo.broadcast_* ops: operands broadcast with NumPy's rule (trailing
// dimensions aligned, size-1 dimensions stretched), then the elementwise op.
// test: interpret

// The arithmetic chlo.broadcast_* ops on f32: a tensor<3xf32> stretched along the leading dimension of a tensor<2x3xf32> (NumPy values)
func.func @main() -> tensor<2x3xf32> {
  %x = stablehlo.constant dense<[[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  %v = stablehlo.constant dense<[0.5, 2.0, -1.0]> : tensor<3xf32>
  %add = chlo.broadcast_add %x, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %add, dense<[[1.5, 0.0, 2.0], [4.5, 7.0, -7.0]]> : tensor<2x3xf32>
  %subtract = chlo.broadcast_subtract %x, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %subtract, dense<[[0.5, -4.0, 4.0], [3.5, 3.0, -5.0]]> : tensor<2x3xf32>
  %multiply = chlo.broadcast_multiply %x, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %multiply, dense<[[0.5, -4.0, -3.0], [2.0, 1.0e+01, 6.0]]> : tensor<2x3xf32>
  %divide = chlo.broadcast_divide %x, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %divide, dense<[[2.0, -1.0, -3.0], [8.0, 2.5, 6.0]]> : tensor<2x3xf32>
  %maximum = chlo.broadcast_maximum %x, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %maximum, dense<[[1.0, 2.0, 3.0], [4.0, 5.0, -1.0]]> : tensor<2x3xf32>
  %minimum = chlo.broadcast_minimum %x, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %minimum, dense<[[0.5, -2.0, -1.0], [0.5, 2.0, -6.0]]> : tensor<2x3xf32>
  %power = chlo.broadcast_power %x, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %power_expected = stablehlo.constant dense<[[1.0, 4.0, 0.33333334], [2.0, 25.0, -0.16666667]]> : tensor<2x3xf32>
  check.expect_close %power, %power_expected, max_ulp_difference = 1 : tensor<2x3xf32>, tensor<2x3xf32>
  %remainder = chlo.broadcast_remainder %x, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %remainder, dense<[[0.0, -0.0, 0.0], [0.0, 1.0, -0.0]]> : tensor<2x3xf32>
  %atan2 = chlo.broadcast_atan2 %x, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %atan2_expected = stablehlo.constant dense<[[1.1071488, -0.7853981, 1.8925469], [1.4464414, 1.19029, -1.7359451]]> : tensor<2x3xf32>
  check.expect_close %atan2, %atan2_expected, max_ulp_difference = 1 : tensor<2x3xf32>, tensor<2x3xf32>
  %swapped = chlo.broadcast_subtract %v, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %swapped, dense<[[-0.5, 4.0, -4.0], [-3.5, -3.0, 5.0]]> : tensor<2x3xf32>
  %explicit = chlo.broadcast_add %x, %v {broadcast_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %explicit, dense<[[1.5, 0.0, 2.0], [4.5, 7.0, -7.0]]> : tensor<2x3xf32>
  func.return %add : tensor<2x3xf32>
}

// -----
// The integer and logical chlo.broadcast_* ops: a size-1 dimension stretched (tensor<2x1xi32> to tensor<2x2xi32>), a scalar operand
func.func @main() -> tensor<2x2xi32> {
  %a = stablehlo.constant dense<[[12, -7], [5, 9]]> : tensor<2x2xi32>
  %b = stablehlo.constant dense<[[3], [2]]> : tensor<2x1xi32>
  %and = chlo.broadcast_and %a, %b : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %and, dense<[[0, 1], [0, 0]]> : tensor<2x2xi32>
  %or = chlo.broadcast_or %a, %b : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %or, dense<[[15, -5], [7, 11]]> : tensor<2x2xi32>
  %xor = chlo.broadcast_xor %a, %b : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %xor, dense<[[15, -6], [7, 11]]> : tensor<2x2xi32>
  %shift_left = chlo.broadcast_shift_left %a, %b : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %shift_left, dense<[[96, -56], [20, 36]]> : tensor<2x2xi32>
  %shift_right_arithmetic = chlo.broadcast_shift_right_arithmetic %a, %b : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %shift_right_arithmetic, dense<[[1, -1], [1, 2]]> : tensor<2x2xi32>
  %shift_right_logical = chlo.broadcast_shift_right_logical %a, %b : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %shift_right_logical, dense<[[1, 536870911], [1, 2]]> : tensor<2x2xi32>
  %remainder = chlo.broadcast_remainder %a, %b : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %remainder, dense<[[0, -1], [1, 1]]> : tensor<2x2xi32>
  %ten = stablehlo.constant dense<10> : tensor<i32>
  %scaled = chlo.broadcast_multiply %ten, %a : (tensor<i32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %scaled, dense<[[120, -70], [50, 90]]> : tensor<2x2xi32>
  %p = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %q = stablehlo.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %both = chlo.broadcast_and %p, %q : (tensor<2xi1>, tensor<2x1xi1>) -> tensor<2x2xi1>
  check.expect_eq_const %both, dense<[[true, false], [false, false]]> : tensor<2x2xi1>
  func.return %and : tensor<2x2xi32>
}

// -----
// chlo.broadcast_compare (direction and comparison type as attributes), chlo.broadcast_select (all three operands broadcast) and chlo.broadcast_complex
func.func @main() -> tensor<2x3xf32> {
  %x = stablehlo.constant dense<[[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  %v = stablehlo.constant dense<[0.5, 2.0, -1.0]> : tensor<3xf32>
  %gt = chlo.broadcast_compare %x, %v {comparison_direction = #chlo<comparison_direction GT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  check.expect_eq_const %gt, dense<[[true, false, true], [true, true, false]]> : tensor<2x3xi1>
  %eq = chlo.broadcast_compare %x, %v {compare_type = #chlo<comparison_type TOTALORDER>, comparison_direction = #chlo<comparison_direction LE>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  check.expect_eq_const %eq, dense<[[false, true, false], [false, false, true]]> : tensor<2x3xi1>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %picked = chlo.broadcast_select %gt, %v, %zero : (tensor<2x3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
  check.expect_eq_const %picked, dense<[[0.5, 0.0, -1.0], [0.5, 2.0, 0.0]]> : tensor<2x3xf32>
  %z = chlo.broadcast_complex %v, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xcomplex<f32>>
  check.expect_eq_const %z, dense<[[(0.5, 1.0), (2.0, -2.0), (-1.0, 3.0)], [(0.5, 4.0), (2.0, 5.0), (-1.0, -6.0)]]> : tensor<2x3xcomplex<f32>>
  func.return %picked : tensor<2x3xf32>
}

// -----
// chlo.broadcast_zeta, chlo.broadcast_polygamma and chlo.broadcast_next_after: the operands broadcast, then the decomposition of chlo.zeta, chlo.polygamma and chlo.next_after
func.func @main() -> tensor<2x3xf32> {
  %q = stablehlo.constant dense<[[1.0, 2.5, 0.5], [1.0e+01, 3.0, 1.25]]> : tensor<2x3xf32>
  %s = stablehlo.constant dense<[2.0, 3.0, 4.0]> : tensor<3xf32>
  %n = stablehlo.constant dense<[[0.0], [1.0]]> : tensor<2x1xf32>
  %zeta = chlo.broadcast_zeta %s, %q : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // XLA:CPU's values (jax 0.10.2) of chlo.zeta, chlo.polygamma, chlo.next_after on the broadcast operands
  %zeta_expected = stablehlo.constant dense<[[1.644934, 0.11810203, 16.23485], [0.10516632, 0.0770569, 0.46369064]]> : tensor<2x3xf32>
  check.expect_close %zeta, %zeta_expected, max_ulp_difference = 3 : tensor<2x3xf32>, tensor<2x3xf32>
  %polygamma = chlo.broadcast_polygamma %n, %q : (tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %polygamma_expected = stablehlo.constant dense<[[-0.5772154, 0.7031568, -1.96351], [0.10516632, 0.39493403, 1.1973293]]> : tensor<2x3xf32>
  check.expect_almost_eq %polygamma, %polygamma_expected, tolerance = 1e-5 : tensor<2x3xf32>
  %next = chlo.broadcast_next_after %q, %s : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %next, dense<[[1.0000001, 2.5000002, 0.50000006], [9.999999, 3.0, 1.2500001]]> : tensor<2x3xf32>
  func.return %zeta : tensor<2x3xf32>
}

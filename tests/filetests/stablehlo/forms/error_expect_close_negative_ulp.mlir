// check.expect_close counts ULPs with an unsigned 64-bit integer
// test: error
func.func @ulps() {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // error: integer constant out of range for ui64
  check.expect_close %x, %x, max_ulp_difference = -1 : tensor<2xf32>, tensor<2xf32>
  func.return
}

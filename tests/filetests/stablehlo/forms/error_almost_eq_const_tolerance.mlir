// check.expect_almost_eq_const takes its tolerance as a floating-point number, not a string
// test: error
func.func @close_enough() {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  // error: expected a floating-point number
  check.expect_almost_eq_const %x, dense<[1.0, 2.0]> : tensor<2xf64>, tolerance = "0.01"
  func.return
}

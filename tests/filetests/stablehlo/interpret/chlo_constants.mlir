// chlo.constant is a constant; chlo.constant_like (generic form only) is its
// scalar value in the operand's shape.
// test: interpret
func.func @main() -> tensor<2x3xf32> {
  %c = chlo.constant dense<[1, 2, 3]> : tensor<3xi64>
  check.expect_eq_const %c, dense<[1, 2, 3]> : tensor<3xi64>
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %half = "chlo.constant_like"(%x) <{value = 5.000000e-01 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %half, dense<0.5> : tensor<2x3xf32>
  %i = stablehlo.constant dense<[7, 8]> : tensor<2xi32>
  %minus = "chlo.constant_like"(%i) <{value = -3 : i32}> : (tensor<2xi32>) -> tensor<2xi32>
  check.expect_eq_const %minus, dense<-3> : tensor<2xi32>
  func.return %half : tensor<2x3xf32>
}

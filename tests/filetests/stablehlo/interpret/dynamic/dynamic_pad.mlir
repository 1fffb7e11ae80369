// dynamic_pad runs when its padding amounts fold: negative low padding trims, interior padding spreads; the amounts come from a slice and a negation
// test: interpret
func.func @main() -> tensor<?xi32> {
  %operand = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %value = stablehlo.constant dense<0> : tensor<i32>
  %amounts = stablehlo.constant dense<[1, 2, 1]> : tensor<3xi64>
  %first = stablehlo.slice %amounts [0:1] : (tensor<3xi64>) -> tensor<1xi64>
  %low = stablehlo.negate %first : tensor<1xi64>
  %high = stablehlo.slice %amounts [1:2] : (tensor<3xi64>) -> tensor<1xi64>
  %interior = stablehlo.slice %amounts [2:3] : (tensor<3xi64>) -> tensor<1xi64>
  %result = stablehlo.dynamic_pad %operand, %value, %low, %high, %interior : (tensor<4xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi32>
  func.return %result : tensor<?xi32>
}

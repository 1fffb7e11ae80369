// A while loop must name its body region with `do` after the cond region
// test: error
func.func @countdown(%n: tensor<i32>) -> tensor<i32> {
  %r = stablehlo.while(%i = %n) : tensor<i32>
  cond {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %gt = stablehlo.compare GT, %i, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  // error: expected 'do' and a region
  } {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %next = stablehlo.subtract %i, %one : tensor<i32>
    stablehlo.return %next : tensor<i32>
  }
  return %r : tensor<i32>
}

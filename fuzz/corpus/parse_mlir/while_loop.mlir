func.func @loop(%n: tensor<i64>, %v: tensor<2xf32>) -> tensor<2xf32> {
  %0:2 = stablehlo.while(%it = %n, %acc = %v) : tensor<i64>, tensor<2xf32>
  cond {
    %c = stablehlo.constant dense<10> : tensor<i64>
    %b = stablehlo.compare LT, %it, %c : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %b : tensor<i1>
  } do {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %i = stablehlo.add %it, %c : tensor<i64>
    %a = stablehlo.add %acc, %acc : tensor<2xf32>
    stablehlo.return %i, %a : tensor<i64>, tensor<2xf32>
  }
  return %0#1 : tensor<2xf32>
}

func.func @branch(%p: tensor<i1>, %k: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.if"(%p) ({
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }, {
    %n = stablehlo.negate %x : tensor<f32>
    "stablehlo.return"(%n) : (tensor<f32>) -> ()
  }) : (tensor<i1>) -> tensor<f32>
  %1 = "stablehlo.case"(%k) ({
    "stablehlo.return"(%0) : (tensor<f32>) -> ()
  }) : (tensor<i32>) -> tensor<f32>
  return %1 : tensor<f32>
}

%0 = stablehlo.constant dense<1> : tensor<i32>
%1 = stablehlo.add %0, %0 : tensor<i32>
{-#
  dialect_resources: {}
#-}

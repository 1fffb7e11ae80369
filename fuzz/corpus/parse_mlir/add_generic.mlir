"func.func"() <{function_type = (tensor<3xf32>) -> tensor<3xf32>, sym_name = "g"}> ({
^bb0(%arg0: tensor<3xf32>):
  %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  "func.return"(%0) : (tensor<3xf32>) -> ()
}) : () -> ()

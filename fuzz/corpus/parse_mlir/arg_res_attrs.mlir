func.func public @main(%x: tensor<4xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}, %y: tensor<4xf32> {jax.arg_info = "y"}) -> (tensor<4xf32> {jax.result_info = "out"}) attributes {no_inline} {
  %0 = stablehlo.subtract %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

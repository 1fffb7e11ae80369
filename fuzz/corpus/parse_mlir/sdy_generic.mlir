"sdy.mesh"() <{mesh = #sdy.mesh<["z"=4]>, sym_name = "mz"}> : () -> ()
func.func @g(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "sdy.sharding_constraint"(%x) <{sharding = #sdy.sharding<@mz, [{"z"}]>}> : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// Lowering a sharded program records the entry's result shardings on its
// ROOT, a tuple sharding for several results (as XLA writes them): a declared
// sharding, an undeclared result keeping the distribution it has, and a
// declared replicated result (all-gathered). On a 2×2 mesh a dimension split
// over one axis is replicated over the other (last_tile_dim_replicate), and
// splitting over "y" lists the devices transposed.
// test: convert --to hlo
module @entry_result_shardings attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<4x6xf32>, tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<8x4xf32>
    %1 = stablehlo.multiply %arg1, %arg1 : tensor<4x6xf32>
    return %0, %1, %0 : tensor<8x4xf32>, tensor<4x6xf32>, tensor<8x4xf32>
  }
}

module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<2x2xi32>) -> tensor<2x2xi32> {
    %0 = stablehlo.negate %x : tensor<2x2xi32>
    return %0 : tensor<2x2xi32>
  }
}

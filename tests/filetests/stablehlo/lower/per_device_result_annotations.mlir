// A program already per device (no mhlo.num_partitions) keeps its results'
// mhlo.sharding annotations on the ROOT, the results without one replicated,
// as XLA's export fills a tuple sharding.
// test: convert --to hlo
module @per_device_result_annotations {
  func.func @main(%arg0: tensor<2x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %arg1: tensor<4xf32>) -> (tensor<2x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<4xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<2x4xf32>
    return %0, %arg1 : tensor<2x4xf32>, tensor<4xf32>
  }
}

// A single result's annotation is the ROOT's own sharding, no tuple. A
// parameter returned as is under another annotation is copied, so the
// parameter keeps its own.
// test: convert --to hlo
module @per_device_single_result {
  func.func @main(%arg0: tensor<2x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<2x4xf32> {mhlo.sharding = "{devices=[1,4]<=[4]}"}) {
    return %arg0 : tensor<2x4xf32>
  }
}

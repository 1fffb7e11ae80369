// Modules, functions (visibility, argument and result attributes, declarations), calls, returns, and locations with aliases at the top and bottom
// test: fmt
// test: fmt --generic
#loc1 = loc("x")
module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32> {mhlo.sharding = "{replicated}"} loc("x"), %y: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %sum = func.call @helper(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(#loc1)
    return %sum : tensor<4xf32> loc(#loc2)
  } loc(#loc)
  func.func private @helper(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {no_inline} {
    %0 = stablehlo.add %a, %b : tensor<4xf32> loc(callsite("add"("f.py":3:7) at fused["g.py":1:2 to :9, unknown]))
    func.return %0 : tensor<4xf32>
  }
  func.func private @declared(tensor<f32>) -> tensor<f32>
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("f.py":10:3 to 11:1)

#loc0 = loc("in.py":1:1)
func.func @l(%x: tensor<f32> loc("x")) -> tensor<f32> {
  %0 = stablehlo.sine %x : tensor<f32> loc(#loc0)
  %1 = stablehlo.cosine %0 : tensor<f32> loc(callsite("c"("a.py":4:2) at "b.py":9:1))
  %2 = stablehlo.floor %1 : tensor<f32> loc(fused["p.py":1:2 to :5, unknown])
  return %2 : tensor<f32> loc(#loc9)
} loc(#loc0)
#loc9 = loc(unknown)

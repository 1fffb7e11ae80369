// A tensor type whose size in bytes overflows int64 (2^62 f32s), rejected as
// XLA rejects the shape, before any splat of it is read
// test: error
// error: tensor type is too large
func.func @main() -> tensor<4611686018427387904xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<4611686018427387904xf32>
  return %c : tensor<4611686018427387904xf32>
}

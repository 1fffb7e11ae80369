// A while loop gives one type per loop variable after its header
// test: error
func.func @pair(%n: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  // error: expected 2 types (one per loop variable) but had 1
  %r:2 = stablehlo.while(%i = %n, %acc = %x) : tensor<i32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %i, %acc : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}

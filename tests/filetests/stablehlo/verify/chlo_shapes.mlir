// CHLO's elementwise shape rules: a unary op keeps its operand's shape, the
// is_inf family gives i1, a binary op has one shape, and broadcasting
// operands align with the result's trailing dimensions
// test: check
func.func @f(%x: tensor<4xf32>, %m: tensor<2x4xf32>, %v: tensor<3xf32>) {
  // error: requires the same shape for all operands and results
  %0 = chlo.lgamma %x : tensor<4xf32> -> tensor<5xf32>
  // error: result #0 must be a tensor of i1 values
  %1 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xf32>
  // error: requires the same shape for all operands and results
  %2 = chlo.next_after %x, %m : tensor<4xf32>, tensor<2x4xf32> -> tensor<4xf32>
  // error: operand #1 of type 'tensor<3xf32>' does not broadcast
  %3 = chlo.broadcast_add %m, %v : (tensor<2x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  %fine = chlo.broadcast_multiply %m, %x : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %dynamic = chlo.broadcast_subtract %m, %x : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

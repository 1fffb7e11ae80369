// functions, returns and calls must agree; every op must be known
// test: check
func.func @f(%x: tensor<4xf32>) -> tensor<4xi32> {
  // error: does not reference a valid function
  %0 = func.call @missing(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // error: is not an operation weft knows
  %1 = "mystery.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // error: type of return operand 0 ('tensor<4xf32>') doesn't match function result type ('tensor<4xi32>') in function @f
  return %0 : tensor<4xf32>
}

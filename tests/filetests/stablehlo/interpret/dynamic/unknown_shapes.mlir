// Shapes that are not known before run time are errors naming the op and the reason: a shape computed from a float, from a loop's state, from an entry argument no input is given for, a result no rule refines, and a dynamic argument without inputs
// test: interpret
// expect-failure
func.func @main() -> tensor<2xi32> {
  %size = stablehlo.constant dense<2.0> : tensor<1xf32>
  %shape = stablehlo.convert %size : (tensor<1xf32>) -> tensor<1xi32>
  %iota = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi32>) -> tensor<2xi32>
  func.return %iota : tensor<2xi32>
}

// -----

// expect-failure
func.func @main() -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %result = stablehlo.while(%count = %zero) : tensor<i32>
  cond {
    %three = stablehlo.constant dense<3> : tensor<i32>
    %more = stablehlo.compare LT, %count, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    %shape = stablehlo.reshape %count : (tensor<i32>) -> tensor<1xi32>
    %iota = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi32>) -> tensor<2xi32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %next = stablehlo.add %count, %one : tensor<i32>
    stablehlo.return %next : tensor<i32>
  }
  func.return %result : tensor<i32>
}

// -----

// expect-failure
func.func @main(%length: tensor<i64>) -> tensor<3xi64> {
  %shape = stablehlo.reshape %length : (tensor<i64>) -> tensor<1xi64>
  %iota = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi64>) -> tensor<3xi64>
  func.return %iota : tensor<3xi64>
}

// -----

// expect-failure
func.func @main() -> tensor<?xf32> {
  %x = stablehlo.constant dense<1.0> : tensor<3xf32>
  %y = stablehlo.custom_call @opaque_target(%x) : (tensor<3xf32>) -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}

// -----

// expect-failure
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = stablehlo.negate %x : tensor<?xf32>
  func.return %y : tensor<?xf32>
}

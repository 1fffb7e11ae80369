// A shape-polymorphic program, as JAX exports them: the dimension variable is an i64 argument and the data argument has a ? dimension. The inputs fix both: the argument types are refined from them, the shape computations fold with the dimension's value, and a private function is refined for what its call passes
// test: interpret
// args: [dense<3> : tensor<i64>, dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>]
func.func public @main(%n: tensor<i64>, %x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %y = func.call @scaled_by_row(%n, %x) : (tensor<i64>, tensor<?x2xf32>) -> tensor<?x2xf32>
  func.return %y : tensor<?x2xf32>
}

func.func private @scaled_by_row(%n: tensor<i64>, %x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %rows = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>
  %r = stablehlo.reshape %rows : (tensor<i32>) -> tensor<1xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %shape = stablehlo.concatenate %r, %two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %row = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi32>) -> tensor<?x2xf32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %ones = stablehlo.dynamic_broadcast_in_dim %one, %shape, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x2xf32>
  %factor = stablehlo.add %row, %ones : tensor<?x2xf32>
  %scaled = stablehlo.multiply %x, %factor : tensor<?x2xf32>
  %total = stablehlo.constant dense<0.0> : tensor<f32>
  %sums = stablehlo.reduce(%scaled init: %total) applies stablehlo.add across dimensions = [1] : (tensor<?x2xf32>, tensor<f32>) -> tensor<?xf32>
  %back = stablehlo.dynamic_broadcast_in_dim %sums, %shape, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x2xf32>
  %result = stablehlo.subtract %scaled, %back : tensor<?x2xf32>
  func.return %result : tensor<?x2xf32>
}

// A dot with a dot algorithm XLA knows runs (the evaluator computes at full precision, which integer operands make exact); one XLA does not know is refused where it is lowered, naming the combination
// test: interpret
func.func @main() {
  %a = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %b = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %c, dense<[[19, 22], [43, 50]]> : tensor<2x2xi32>
  func.return
}

// -----

// expect-failure
func.func @main() {
  %a = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %c = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}

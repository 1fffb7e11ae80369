// an explicit start returns a future
// test: check
func.func @f(%x: tensor<2x2xi64>) {
  // error: must return a future
  %0 = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x2xi64>) -> tensor<2x2xi64>
  return
}

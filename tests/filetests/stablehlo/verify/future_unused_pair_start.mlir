// a collective_permute_start whose future no done takes: the collective would never finish
// test: check
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  // error: result %0 is a future with no matching done
  %0 = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  return %x : tensor<2xf32>
}

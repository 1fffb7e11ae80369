func.func @t(%a: tensor<2xf64>) {
  check.expect_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf64>
  check.expect_almost_eq %a, %a, tolerance = 0.01 : tensor<2xf64>
  check.expect_serialized_eq %a, probe_id = "p0" : tensor<2xf64>
  %0 = interpreter.probe %a, probe_id = "p1" : tensor<2xf64>
  func.return
}

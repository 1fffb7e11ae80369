// compare, maximum and minimum of complex numbers. EQ and NE compare both
// parts (a NaN part makes EQ false and NE true, as on XLA:CPU); the spec
// orders complex numbers lexicographically by (real, imaginary) for the
// other directions and for maximum/minimum (XLA:CPU refuses those).
// test: interpret
func.func @equality() {
  %a = stablehlo.constant dense<[(1.0, 2.0), (1.0, 2.0), (0.0, -0.0), (0x7FC00000, 0.0), (1.0, 0x7FC00000)]> : tensor<5xcomplex<f32>>
  %b = stablehlo.constant dense<[(1.0, 2.0), (1.0, 3.0), (-0.0, 0.0), (0x7FC00000, 0.0), (1.0, 0x7FC00000)]> : tensor<5xcomplex<f32>>
  %eq = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<5xcomplex<f32>>, tensor<5xcomplex<f32>>) -> tensor<5xi1>
  %ne = stablehlo.compare NE, %a, %b, FLOAT : (tensor<5xcomplex<f32>>, tensor<5xcomplex<f32>>) -> tensor<5xi1>
  check.expect_eq_const %eq, dense<[true, false, true, false, false]> : tensor<5xi1>
  check.expect_eq_const %ne, dense<[false, true, false, true, true]> : tensor<5xi1>
  func.return
}

// -----

func.func @lexicographic_order() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 2.0), (2.0, -9.0), (1.0, 2.0), (0x7FF8000000000000, 0.0)]> : tensor<5xcomplex<f64>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 3.0), (1.0, 9.0), (1.0, 2.0), (1.0, 0.0)]> : tensor<5xcomplex<f64>>
  %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>) -> tensor<5xi1>
  %le = stablehlo.compare LE, %a, %b, FLOAT : (tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>) -> tensor<5xi1>
  %gt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>) -> tensor<5xi1>
  %ge = stablehlo.compare GE, %a, %b, FLOAT : (tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>) -> tensor<5xi1>
  check.expect_eq_const %lt, dense<[true, true, false, false, false]> : tensor<5xi1>
  check.expect_eq_const %le, dense<[true, true, false, true, false]> : tensor<5xi1>
  check.expect_eq_const %gt, dense<[false, false, true, false, false]> : tensor<5xi1>
  check.expect_eq_const %ge, dense<[false, false, true, true, false]> : tensor<5xi1>
  func.return
}

// -----

func.func @maximum_minimum() {
  %a = stablehlo.constant dense<[(1.0, 5.0), (1.0, 2.0), (2.0, -9.0)]> : tensor<3xcomplex<f32>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (1.0, 3.0), (1.0, 9.0)]> : tensor<3xcomplex<f32>>
  %max = stablehlo.maximum %a, %b : tensor<3xcomplex<f32>>
  %min = stablehlo.minimum %a, %b : tensor<3xcomplex<f32>>
  check.expect_eq_const %max, dense<[(2.0, 0.0), (1.0, 3.0), (2.0, -9.0)]> : tensor<3xcomplex<f32>>
  check.expect_eq_const %min, dense<[(1.0, 5.0), (1.0, 2.0), (1.0, 9.0)]> : tensor<3xcomplex<f32>>
  func.return
}

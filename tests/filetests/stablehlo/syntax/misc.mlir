// The other StableHLO custom forms (select, complex, reduce_precision, optimization_barrier, custom_call, composite, rng, fft, cholesky, mismatched constants); default-valued attributes are left out of the custom form as MLIR does
// test: fmt
// test: fmt --generic
func.func @misc(%p: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf32>, %state: tensor<2xui64>, %k: tensor<i32>, %shape: tensor<1xi64>) -> tensor<2xf32> {
  %sel = stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>
  %cplx = stablehlo.complex %a, %b : tensor<2xcomplex<f32>>
  %rp = stablehlo.reduce_precision %a, format = e5m10 : tensor<2xf32>
  %ob:2 = stablehlo.optimization_barrier %a, %k : tensor<2xf32>, tensor<i32>
  stablehlo.optimization_barrier()
  %cc = stablehlo.custom_call @Sharding(%a) {backend_config = "", has_side_effect = false, api_version = 1 : i32, mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
  %ffi = stablehlo.custom_call @"my target"(%a, %k) {api_version = 4 : i32, backend_config = {n = 1 : i64}, has_side_effect = true} : (tensor<2xf32>, tensor<i32>) -> tensor<2xf32>
  %comp = stablehlo.composite "my.add" %a, %b {composite_attributes = {n = 2 : i64}, decomposition = @add_impl, version = 0 : i32} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %rng = stablehlo.rng %k, %k, %shape, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<4xi32>
  %st, %bits = stablehlo.rng_bit_generator %state, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %fft = stablehlo.fft %cplx, type = IFFT, length = [2] : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  %m = stablehlo.constant dense<[[4.0, 2.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %lower = stablehlo.cholesky %m, lower = true : tensor<2x2xf32>
  %upper = stablehlo.cholesky %m : tensor<2x2xf32>
  %q = stablehlo.constant() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>
  return %sel : tensor<2xf32>
}

func.func private @add_impl(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

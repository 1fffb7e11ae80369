func.func @cc(%x: tensor<3xf16>) -> tensor<3xf16> {
  %0 = stablehlo.custom_call @"weird target"(%x) {api_version = 5 : i32, backend_config = "cfg", has_side_effect = true} : (tensor<3xf16>) -> tensor<3xf16>
  %1 = stablehlo.custom_call @ffi(%0) {api_version = 4 : i32, backend_config = {k = 7 : i64}} : (tensor<3xf16>) -> tensor<3xf16>
  return %1 : tensor<3xf16>
}

// The StableHLO test dialects: check.expect_* and interpreter.probe / print print as their ODS assembly formats do (tolerance, min_ulp_difference and iter only when not the default; expect_close's dictionary after its colon); interpreter.run_parallel has no custom form
// test: fmt
// test: fmt --generic
// test: check
func.func @exact() {
  %a = stablehlo.constant dense<[1, -2, 3]> : tensor<3xi32>
  %b = stablehlo.add %a, %a : tensor<3xi32>
  check.expect_eq %b, %b : tensor<3xi32>
  check.expect_eq_const %b, dense<[2, -4, 6]> : tensor<3xi32>
  %flags = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  check.expect_eq_const %flags, dense<[true, false]> : tensor<2xi1> {note = "bools"}
  func.return
}

func.func @approximate() {
  %x = stablehlo.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %y = stablehlo.sqrt %x : tensor<2xf32>
  %z = stablehlo.multiply %y, %y : tensor<2xf32>
  check.expect_almost_eq %z, %x : tensor<2xf32>
  check.expect_almost_eq %z, %x, tolerance = 1.0e-3 : tensor<2xf32>
  check.expect_almost_eq %z, %x, tolerance = 1.0e-4 : tensor<2xf32>
  check.expect_almost_eq_const %y, dense<[0.7071, 1.4142]> : tensor<2xf32>
  check.expect_almost_eq_const %y, dense<[0.7, 1.4]> : tensor<2xf32>, tolerance = 0.05
  check.expect_almost_eq_const %y, dense<[0.71, 1.41]> : tensor<2xf32> {tolerance = 0.01 : f64}
  func.return
}

func.func @ulps() {
  %h = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf16>
  %d = stablehlo.divide %h, %h : tensor<2xf16>
  %one = stablehlo.constant dense<1.0> : tensor<2xf16>
  check.expect_close %d, %one, max_ulp_difference = 2 : tensor<2xf16>, tensor<2xf16>
  check.expect_close %d, %one, max_ulp_difference = 4, min_ulp_difference = 1 : {why = "not exact"} tensor<2xf16>, tensor<2xf16>
  check.expect_close %d, %one, max_ulp_difference = 4, min_ulp_difference = 0 : tensor<2xf16>, tensor<2xf16>
  func.return
}

func.func @probes(%x: tensor<2x2xbf16>) -> tensor<2x2xbf16> {
  %p = interpreter.probe %x, probe_id = "input" : tensor<2x2xbf16>
  %q = stablehlo.negate %p : tensor<2x2xbf16>
  %r = interpreter.probe %q, probe_id = "negated/0" {stage = 1 : i32} : tensor<2x2xbf16>
  check.expect_serialized_eq %p, probe_id = "input" : tensor<2x2xbf16>
  check.expect_serialized_eq %r, probe_id = "negated/0", iter = 0 : tensor<2x2xbf16>
  check.expect_serialized_eq %r, probe_id = "negated/0", iter = 3 {stage = 1 : i32} : tensor<2x2xbf16>
  interpreter.print %r : tensor<2x2xbf16>
  interpreter.print %x {label = "input"} : tensor<2x2xbf16>
  return %r : tensor<2x2xbf16>
}

func.func @shard(%v: tensor<2xi64>) -> tensor<2xi64> {
  %doubled = stablehlo.add %v, %v : tensor<2xi64>
  return %doubled : tensor<2xi64>
}

func.func @parallel() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %b = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %results:2 = "interpreter.run_parallel"(%a, %b) {
    programs = [[@shard], [@shard]]
  } : (tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %results#0, dense<[2, 4]> : tensor<2xi64>
  check.expect_eq_const %results#1, dense<[6, 8]> : tensor<2xi64>
  func.return
}

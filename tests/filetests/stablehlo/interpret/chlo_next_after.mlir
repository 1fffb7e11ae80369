// chlo.next_after lowered by XLA's decomposition on the bit patterns,
// compared bit for bit with XLA:CPU's results. No input is subnormal: XLA:CPU
// treats subnormal inputs as zero (so next_after(-min subnormal, 0) is +0
// there, -0 by the decomposition), weft reads them as they are.
// test: interpret

// chlo.next_after on f32: one step away from or towards zero, the smallest subnormal from +-0 (signed as y), y when x == y, NaN when either is
func.func @main() -> tensor<19xf32> {
  %x = stablehlo.constant dense<[1.0, 1.0, -1.0, -1.0, 0.0, 0.0, -0.0, 0.0, -0.0, 1.0e-45, 3.0e-45, 3.4028235e+38, 3.4028235e+38, 0x7F800000, 0xFF800000, 2.5, 0x7FC00000, 1.0, 0.0]> : tensor<19xf32>
  %y = stablehlo.constant dense<[2.0, 0.0, -2.0, 5.0, 1.0, -1.0, 0.0, -0.0, -0.0, 0.0, 1.0, 0x7F800000, 0.0, 0.0, 0.0, 2.5, 1.0, 0x7FC00000, 0x7FC00000]> : tensor<19xf32>
  %r = chlo.next_after %x, %y : tensor<19xf32>, tensor<19xf32> -> tensor<19xf32>
  %bits = stablehlo.bitcast_convert %r : (tensor<19xf32>) -> tensor<19xi32>
  // XLA:CPU's bits (jax 0.10.2); 1.0000001, 0.99999994, -1.0000001, -0.99999994, 1.0e-45, -1.0e-45, 0.0, -0.0, -0.0, 0.0, 4.0e-45, 0x7F800000, 3.4028233e+38, 3.4028235e+38, -3.4028235e+38, 2.5, 0x7FC00000, 0x7FC00000, 0x7FC00000
  check.expect_eq_const %bits, dense<[1065353217, 1065353215, -1082130431, -1082130433, 1, -2147483647, 0, -2147483648, -2147483648, 0, 3, 2139095040, 2139095038, 2139095039, -8388609, 1075838976, 2143289344, 2143289344, 2143289344]> : tensor<19xi32>
  func.return %r : tensor<19xf32>
}

// -----
// chlo.next_after on f64
func.func @main() -> tensor<14xf64> {
  %x = stablehlo.constant dense<[1.0, 1.0, -1.0, -1.0, 0.0, 0.0, -0.0, 0.0, -0.0, 1.401298464324817e-45, 2.802596928649634e-45, 1.0e+308, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<14xf64>
  %y = stablehlo.constant dense<[2.0, 0.0, -2.0, 5.0, 1.0, -1.0, 0.0, -0.0, -0.0, 0.0, 1.0, 0x7FF0000000000000, 0.0, 1.0]> : tensor<14xf64>
  %r = chlo.next_after %x, %y : tensor<14xf64>, tensor<14xf64> -> tensor<14xf64>
  %bits = stablehlo.bitcast_convert %r : (tensor<14xf64>) -> tensor<14xi64>
  // XLA:CPU's bits (jax 0.10.2); 1.0000000000000002, 0.9999999999999999, -1.0000000000000002, -0.9999999999999999, 5.0e-324, -5.0e-324, 0.0, -0.0, -0.0, 1.4012984643248169e-45, 2.802596928649635e-45, 1.0000000000000002e+308, 1.7976931348623157e+308, 0x7FF8000000000000
  check.expect_eq_const %bits, dense<[4607182418800017409, 4607182418800017407, -4616189618054758399, -4616189618054758401, 1, -9223372036854775807, 0, -9223372036854775808, -9223372036854775808, 3936146074321813503, 3940649673949184001, 9214871658872686753, 9218868437227405311, 9221120237041090560]> : tensor<14xi64>
  func.return %r : tensor<14xf64>
}

// -----
// chlo.next_after on bf16
func.func @main() -> tensor<6xbf16> {
  %x = stablehlo.constant dense<[1.0, -1.0, 0.0, -0.0, 2.5, 9.969209968386869e+37]> : tensor<6xbf16>
  %y = stablehlo.constant dense<[2.0, 0.0, -1.0, 0.0, 2.5, -9.969209968386869e+37]> : tensor<6xbf16>
  %r = chlo.next_after %x, %y : tensor<6xbf16>, tensor<6xbf16> -> tensor<6xbf16>
  %bits = stablehlo.bitcast_convert %r : (tensor<6xbf16>) -> tensor<6xi16>
  // XLA:CPU's bits (jax 0.10.2); 1.0078125, -0.99609375, -9.183549615799121e-41, 0.0, 2.5, 9.902748568597623e+37
  check.expect_eq_const %bits, dense<[16257, -16513, -32767, 0, 16416, 32405]> : tensor<6xi16>
  func.return %r : tensor<6xbf16>
}

// -----
// chlo.next_after on f16
func.func @main() -> tensor<5xf16> {
  %x = stablehlo.constant dense<[1.0, -1.0, 0.0, 65504.0, 2.5]> : tensor<5xf16>
  %y = stablehlo.constant dense<[2.0, 0.0, 1.0, 0x7C00, -3.0]> : tensor<5xf16>
  %r = chlo.next_after %x, %y : tensor<5xf16>, tensor<5xf16> -> tensor<5xf16>
  %bits = stablehlo.bitcast_convert %r : (tensor<5xf16>) -> tensor<5xi16>
  // XLA:CPU's bits (jax 0.10.2); 1.0009765625, -0.99951171875, 5.960464477539063e-08, 0x7C00, 2.498046875
  check.expect_eq_const %bits, dense<[15361, -17409, 1, 31744, 16639]> : tensor<5xi16>
  func.return %r : tensor<5xf16>
}

// bitcast_convert between i1 and wider types: each element's bits become a trailing dimension of booleans, least significant bit first, and back (a complex value is two words, its real part first: HLO bitcasts each part on its own)
// test: interpret
func.func @main() {
  %x = stablehlo.constant dense<[5, -128]> : tensor<2xi8>
  %bits = stablehlo.bitcast_convert %x : (tensor<2xi8>) -> tensor<2x8xi1>
  check.expect_eq_const %bits, dense<[[true, false, true, false, false, false, false, false],
                                      [false, false, false, false, false, false, false, true]]> : tensor<2x8xi1>
  %back = stablehlo.bitcast_convert %bits : (tensor<2x8xi1>) -> tensor<2xi8>
  check.expect_eq %back, %x : tensor<2xi8>
  func.return
}

// -----

func.func @main() {
  // 1.0 in f16 is 0x3C00: bits 10 to 13.
  %one = stablehlo.constant dense<1.0> : tensor<f16>
  %bits = stablehlo.bitcast_convert %one : (tensor<f16>) -> tensor<16xi1>
  check.expect_eq_const %bits, dense<[false, false, false, false, false, false, false, false,
                                      false, false, true, true, true, true, false, false]> : tensor<16xi1>
  func.return
}

// -----

func.func @main() {
  %z = stablehlo.constant dense<[(1.0, -2.0), (0.5, 3.25)]> : tensor<2xcomplex<f64>>
  %bits = stablehlo.bitcast_convert %z : (tensor<2xcomplex<f64>>) -> tensor<2x128xi1>
  // -2.0 is 0xC000000000000000: of the imaginary word only its top two bits.
  %imaginary = stablehlo.slice %bits [0:1, 120:128] : (tensor<2x128xi1>) -> tensor<1x8xi1>
  check.expect_eq_const %imaginary, dense<[[false, false, false, false, false, false, true, true]]> : tensor<1x8xi1>
  %back = stablehlo.bitcast_convert %bits : (tensor<2x128xi1>) -> tensor<2xcomplex<f64>>
  check.expect_eq %back, %z : tensor<2xcomplex<f64>>
  func.return
}

// -----

func.func @main() {
  %z = stablehlo.constant dense<[(1.0, -2.0), (0.5, 3.25)]> : tensor<2xcomplex<f32>>
  %bits = stablehlo.bitcast_convert %z : (tensor<2xcomplex<f32>>) -> tensor<2x64xi1>
  // -2.0 is 0xC0000000: of the imaginary word only its top two bits.
  %imaginary = stablehlo.slice %bits [0:1, 56:64] : (tensor<2x64xi1>) -> tensor<1x8xi1>
  check.expect_eq_const %imaginary, dense<[[false, false, false, false, false, false, true, true]]> : tensor<1x8xi1>
  %back = stablehlo.bitcast_convert %bits : (tensor<2x64xi1>) -> tensor<2xcomplex<f32>>
  check.expect_eq %back, %z : tensor<2xcomplex<f32>>
  func.return
}

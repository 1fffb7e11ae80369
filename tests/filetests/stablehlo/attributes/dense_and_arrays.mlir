// dense<…> constants of every kind (splat, nested, bool, complex, hex bit patterns, hex buffers, empty) and array<…> attributes, printed as MLIR prints them
// test: fmt
// test: fmt --generic
func.func @constants() {
  %splat = stablehlo.constant dense<[1.5, 1.5]> : tensor<2xf32>
  %nested = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  %unsigned = stablehlo.constant dense<[0, 255]> : tensor<2xui8>
  %bools = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %complex = stablehlo.constant dense<[(1.0, -2.5), (0.0, 3.0)]> : tensor<2xcomplex<f32>>
  %special = stablehlo.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000, -0.0]> : tensor<4xf32>
  %precise = stablehlo.constant dense<[3.14159274, 0.1, 1.0e-10, 1234565.0]> : tensor<4xf32>
  %double = stablehlo.constant dense<0.33333333333333331> : tensor<f64>
  %half = stablehlo.constant dense<[1.0, 0.099975586]> : tensor<2xf16>
  %buffer = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %empty = stablehlo.constant dense<> : tensor<0xf32>
  %scalar = stablehlo.constant dense<7> : tensor<i64>
  %r = "stablehlo.transpose"(%nested) {permutation = array<i64: 1, 0>, other = array<i1: true, false>, floats = array<f32: 1.5>, none = array<i64>} : (tensor<2x2xi32>) -> tensor<2x2xi32>
  func.return
}

func.func @nm(%x: tensor<2xi8>) -> tensor<2xi8> {
  %0 = stablehlo.not %x : tensor<2xi8> loc("name"("file.py":12:8 to 12:20))
  return %0 : tensor<2xi8> loc("ret")
}

func.func @cs(%a: tensor<5xi32>, %b: tensor<5xi32>) -> tensor<5xi32> {
  %p = stablehlo.compare GT, %a, %b, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
  %m = stablehlo.select %p, %a, %b : tensor<5xi1>, tensor<5xi32>
  return %m : tensor<5xi32>
}

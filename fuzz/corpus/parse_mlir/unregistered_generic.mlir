%0 = "foo.bar"() {attr = "x", n = 3 : i64, unit} : () -> tensor<2x?xf32>
%1:2 = "foo.baz"(%0, %0) <{p = 1.5 : f32}> : (tensor<2x?xf32>, tensor<2x?xf32>) -> (i32, !foo.thing<"a", 2>)

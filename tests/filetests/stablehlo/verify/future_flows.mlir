// futures passed on through loops, calls and branches: each value they become is taken once, and only where it runs once
// test: check
// error: argument %f is a future with no matching done
func.func private @drop(%f: !stablehlo.future<tensor<2xf32>>) -> tensor<2xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %p: tensor<i1>) -> (tensor<2xf32>, !stablehlo.future<tensor<2xf32>>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %first = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  // error: loop-body argument %carried is a future with no matching done
  %i, %inflight = stablehlo.while(%k = %zero, %carried = %first) : tensor<i32>, !stablehlo.future<tensor<2xf32>>
  cond {
    %three = stablehlo.constant dense<3> : tensor<i32>
    %more = stablehlo.compare LT, %k, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    %next = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
    stablehlo.return %k, %next : tensor<i32>, !stablehlo.future<tensor<2xf32>>
  }
  %outside = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  %j, %sum = stablehlo.while(%k = %zero, %acc = %x) : tensor<i32>, tensor<2xf32>
  cond {
    %three = stablehlo.constant dense<3> : tensor<i32>
    %more = stablehlo.compare LT, %k, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    // error: takes future %outside from outside the enclosing 'stablehlo.while', which may run it more than once
    %received = "stablehlo.collective_permute_done"(%outside) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
    %added = stablehlo.add %acc, %received : tensor<2xf32>
    stablehlo.return %k, %added : tensor<i32>, tensor<2xf32>
  }
  %branchy = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  // error: takes future %branchy in some branches but not in others
  %r = "stablehlo.if"(%p) ({
    %d = "stablehlo.collective_permute_done"(%branchy) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
    stablehlo.return %d : tensor<2xf32>
  }, {
    stablehlo.return %x : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %dropped = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  %n = call @drop(%dropped) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  // error: returns future %inflight from the entry function, where nothing can finish it
  return %r, %inflight : tensor<2xf32>, !stablehlo.future<tensor<2xf32>>
}

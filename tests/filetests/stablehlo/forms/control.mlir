// Region-carrying forms: stablehlo.while (cond/do with its loop variables named once in the header, from either spelling), stablehlo.reduce in its compact `applies` form and its `reducer` region form, chlo.scan and chlo.top_k; the region ops without a custom form in MLIR (if, case, sort, map, reduce_window, select_and_scatter, scatter) stay generic with pretty bodies
// test: fmt
// test: fmt --generic
// test: check
func.func @doubling_loop(%n: tensor<i64>, %acc: tensor<3xf32>) -> tensor<3xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r:3 = stablehlo.while(%i = %zero, %limit = %n, %sum = %acc) : tensor<i64>, tensor<i64>, tensor<3xf32> attributes {mhlo.frontend_attributes = {loop = "doubling"}}
  cond {
    %lt = stablehlo.compare LT, %i, %limit, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %next = stablehlo.add %i, %one : tensor<i64>
    %doubled = stablehlo.add %sum, %sum : tensor<3xf32>
    stablehlo.return %next, %limit, %doubled : tensor<i64>, tensor<i64>, tensor<3xf32>
  }
  return %r#2 : tensor<3xf32>
}

func.func @squaring_loop_from_generic(%x: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.while"(%x) ({
  ^bb0(%a: tensor<f32>):
    %limit = stablehlo.constant dense<1.0e+02> : tensor<f32>
    %c = stablehlo.compare LT, %a, %limit, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%b: tensor<f32>):
    %sq = stablehlo.multiply %b, %b : tensor<f32>
    stablehlo.return %sq : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

func.func @reductions(%x: tensor<4x6xf32>, %flags: tensor<5xi1>, %pos: tensor<4x6xi32>) -> (tensor<4xf32>, tensor<i1>, tensor<6xf32>, tensor<6xi32>, tensor<f32>, tensor<6xf32>, tensor<4xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %izero = stablehlo.constant dense<0> : tensor<i32>
  %rowmax = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %all = stablehlo.reduce(%flags init: %true) applies stablehlo.and across dimensions = [0] : (tensor<5xi1>, tensor<i1>) -> tensor<i1>
  %best:2 = stablehlo.reduce(%x init: %ninf), (%pos init: %izero) across dimensions = [0] : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>)
   reducer(%v: tensor<f32>, %w: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>)  {
    %gt = stablehlo.compare GT, %v, %w, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %bv = stablehlo.select %gt, %v, %w : tensor<i1>, tensor<f32>
    %bi = stablehlo.select %gt, %i, %j : tensor<i1>, tensor<i32>
    stablehlo.return %bv, %bi : tensor<f32>, tensor<i32>
  }
  %sumsq = stablehlo.reduce(%x init: %zero) across dimensions = [0, 1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<f32>
   reducer(%acc: tensor<f32>, %e: tensor<f32>)  {
    %sq = stablehlo.multiply %e, %e : tensor<f32>
    %s = stablehlo.add %acc, %sq : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  %prod = "stablehlo.reduce"(%x, %one) <{dimensions = array<i64: 0>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %m = stablehlo.multiply %p, %q : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
  %rowsum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] {mhlo.sharding = "{replicated}"} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %rowmax, %all, %best#0, %best#1, %sumsq, %prod, %rowsum : tensor<4xf32>, tensor<i1>, tensor<6xf32>, tensor<6xi32>, tensor<f32>, tensor<6xf32>, tensor<4xf32>
}

func.func @running_product(%xs: tensor<5xf32>) -> (tensor<5xf32>, tensor<f32>) {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %r:2 = chlo.scan(%xs) inits(%one) dimension=0 {
  ^bb0(%elem: tensor<f32>, %carry: tensor<f32>):
    %p = stablehlo.multiply %elem, %carry : tensor<f32>
    stablehlo.return %p, %p : tensor<f32>, tensor<f32>
  } : (tensor<5xf32>, tensor<f32>) -> (tensor<5xf32>, tensor<f32>)
  return %r#0, %r#1 : tensor<5xf32>, tensor<f32>
}

func.func @largest_two(%x: tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %values, %indices = chlo.top_k(%x, k = 2) : tensor<3x8xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
  return %values, %indices : tensor<3x2xf32>, tensor<3x2xi32>
}

func.func @generic_region_ops(%pred: tensor<i1>, %branch: tensor<i32>, %a: tensor<2xf32>, %keys: tensor<5xf32>, %vals: tensor<5xi32>, %img: tensor<4x4xf32>, %grad: tensor<2x2xf32>, %base: tensor<4x3xf32>, %rows: tensor<2x1xi64>, %upd: tensor<2x3xf32>) -> tensor<4x4xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %chosen = "stablehlo.if"(%pred) ({
    stablehlo.return %a : tensor<2xf32>
  }, {
    %neg = stablehlo.negate %a : tensor<2xf32>
    stablehlo.return %neg : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %picked = "stablehlo.case"(%branch) ({
    stablehlo.return %a : tensor<2xf32>
  }, {
    %abs = stablehlo.abs %a : tensor<2xf32>
    stablehlo.return %abs : tensor<2xf32>
  }, {
    %sq = stablehlo.multiply %a, %a : tensor<2xf32>
    stablehlo.return %sq : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  %sorted:2 = "stablehlo.sort"(%keys, %vals) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%k0: tensor<f32>, %k1: tensor<f32>, %v0: tensor<i32>, %v1: tensor<i32>):
    %lt = stablehlo.compare LT, %k0, %k1, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
  %mapped = "stablehlo.map"(%chosen, %picked) <{dimensions = array<i64: 0>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %p = stablehlo.multiply %x, %y : tensor<f32>
    stablehlo.return %p : tensor<f32>
  }) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %pool = "stablehlo.reduce_window"(%img, %ninf) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %mx = stablehlo.maximum %p, %q : tensor<f32>
    stablehlo.return %mx : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<2x2xf32>
  %back = "stablehlo.select_and_scatter"(%img, %grad, %zero) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %ge = stablehlo.compare GE, %p, %q, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %ge : tensor<i1>
  }, {
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  %scattered = "stablehlo.scatter"(%base, %rows, %upd) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    %s = stablehlo.add %old, %new : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %back : tensor<4x4xf32>
}

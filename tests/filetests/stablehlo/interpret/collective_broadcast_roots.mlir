// collective_broadcast on a process grid: the source is the group's first member, or with has_dynamic_root the member each result's root names; a process outside every group gets zeros; channel_handle > 0 groups partitions, not replicas. collective_reduce takes its roots the same way.
// test: interpret
module @outside_every_group {
  func.func @broadcast(%x : tensor<2xi32>) -> tensor<2xi32> {
    %r = "stablehlo.collective_broadcast"(%x) {
      replica_groups = dense<[[1, 2]]> : tensor<1x2xi64>
    } : (tensor<2xi32>) -> tensor<2xi32>
    return %r : tensor<2xi32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[10, 11]> : tensor<2xi32>
    %b = stablehlo.constant dense<[20, 21]> : tensor<2xi32>
    %c = stablehlo.constant dense<[30, 31]> : tensor<2xi32>
    %r:3 = "interpreter.run_parallel"(%a, %b, %c) {
      programs = [[@broadcast], [@broadcast], [@broadcast]]
    } : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
    check.expect_eq_const %r#0, dense<0> : tensor<2xi32>
    check.expect_eq_const %r#1, dense<[20, 21]> : tensor<2xi32>
    check.expect_eq_const %r#2, dense<[20, 21]> : tensor<2xi32>
    func.return
  }
}

// -----

module @dynamic_roots_per_result {
  func.func @broadcast(%x : tensor<f32>, %y : tensor<3xi8>, %roots : tensor<2xi32>) -> (tensor<f32>, tensor<3xi8>) {
    %r:2 = "stablehlo.collective_broadcast"(%x, %y, %roots) {
      replica_groups = dense<[[2, 0, 1]]> : tensor<1x3xi64>,
      has_dynamic_root
    } : (tensor<f32>, tensor<3xi8>, tensor<2xi32>) -> (tensor<f32>, tensor<3xi8>)
    return %r#0, %r#1 : tensor<f32>, tensor<3xi8>
  }
  func.func @main() {
    %x0 = stablehlo.constant dense<0.5> : tensor<f32>
    %x1 = stablehlo.constant dense<1.5> : tensor<f32>
    %x2 = stablehlo.constant dense<2.5> : tensor<f32>
    %y0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi8>
    %y1 = stablehlo.constant dense<[4, 5, 6]> : tensor<3xi8>
    %y2 = stablehlo.constant dense<[7, 8, 9]> : tensor<3xi8>
    // Group position 0 is process 2 and position 2 is process 1.
    %roots = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
    %r:6 = "interpreter.run_parallel"(%x0, %y0, %roots, %x1, %y1, %roots, %x2, %y2, %roots) {
      programs = [[@broadcast], [@broadcast], [@broadcast]]
    } : (tensor<f32>, tensor<3xi8>, tensor<2xi32>, tensor<f32>, tensor<3xi8>, tensor<2xi32>, tensor<f32>, tensor<3xi8>, tensor<2xi32>)
      -> (tensor<f32>, tensor<3xi8>, tensor<f32>, tensor<3xi8>, tensor<f32>, tensor<3xi8>)
    check.expect_eq_const %r#0, dense<2.5> : tensor<f32>
    check.expect_eq_const %r#1, dense<[4, 5, 6]> : tensor<3xi8>
    check.expect_eq_const %r#4, dense<2.5> : tensor<f32>
    check.expect_eq_const %r#5, dense<[4, 5, 6]> : tensor<3xi8>
    func.return
  }
}

// -----

module @cross_partition_channel {
  func.func @broadcast(%x : tensor<i64>) -> tensor<i64> {
    %r = "stablehlo.collective_broadcast"(%x) {
      replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 3, type = 0>
    } : (tensor<i64>) -> tensor<i64>
    return %r : tensor<i64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<1> : tensor<i64>
    %b = stablehlo.constant dense<2> : tensor<i64>
    %c = stablehlo.constant dense<3> : tensor<i64>
    %d = stablehlo.constant dense<4> : tensor<i64>
    // Two replicas of two partitions: each replica's partition 1 is the source.
    %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {
      programs = [[@broadcast, @broadcast], [@broadcast, @broadcast]]
    } : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
    check.expect_eq_const %r#0, dense<2> : tensor<i64>
    check.expect_eq_const %r#1, dense<2> : tensor<i64>
    check.expect_eq_const %r#2, dense<4> : tensor<i64>
    check.expect_eq_const %r#3, dense<4> : tensor<i64>
    func.return
  }
}

// -----

module @reduce_to_dynamic_root {
  func.func @reduce(%x : tensor<2xi32>, %roots : tensor<1xi32>) -> tensor<2xi32> {
    %r = "stablehlo.collective_reduce"(%x, %roots) ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %s = stablehlo.add %p, %q : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      has_dynamic_root
    } : (tensor<2xi32>, tensor<1xi32>) -> tensor<2xi32>
    return %r : tensor<2xi32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %b = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
    %root = stablehlo.constant dense<[1]> : tensor<1xi32>
    %r:2 = "interpreter.run_parallel"(%a, %root, %b, %root) {
      programs = [[@reduce], [@reduce]]
    } : (tensor<2xi32>, tensor<1xi32>, tensor<2xi32>, tensor<1xi32>) -> (tensor<2xi32>, tensor<2xi32>)
    check.expect_eq_const %r#0, dense<0> : tensor<2xi32>
    check.expect_eq_const %r#1, dense<[11, 22]> : tensor<2xi32>
    func.return
  }
}

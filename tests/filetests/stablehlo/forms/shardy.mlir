// Shardy forms: sdy.mesh (named axes, device_ids, the maximal mesh, the full #sdy.mesh spelling), shardings on function arguments and results, sdy.sharding_constraint and sdy.manual_computation (in/out shardings, manual_axes, body arguments, sdy.return), with their attributes printed stripped of the dialect prefix as Shardy prints them, from either spelling
// test: fmt
// test: fmt --generic
// test: check
module @sharded_matmul attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  sdy.mesh @ring = <["r"=4], device_ids=[3, 2, 1, 0]>
  sdy.mesh @single = #sdy.mesh<[], device_ids=[5]>
  func.func public @main(%a: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %b: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %a_open = sdy.sharding_constraint %a <@mesh, [{"x", ?}, {"y"}p1]> : tensor<8x16xf32>
    %b_full = sdy.sharding_constraint %b #sdy.sharding<@mesh, [{}, {}]> : tensor<16x4xf32>
    %c = sdy.manual_computation(%a_open, %b_full) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%la: tensor<4x16xf32>, %lb: tensor<16x4xf32>) {
      %p = stablehlo.dot_general %la, %lb, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
      sdy.return %p : tensor<4x4xf32>
    } : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    return %c : tensor<8x4xf32>
  }
  func.func @rotate(%v: tensor<4x2xi32> {sdy.sharding = #sdy.sharding<@ring, [{"r"}, {}]>}) -> tensor<4x2xi32> {
    %w = "sdy.sharding_constraint"(%v) <{sharding = #sdy.sharding<@ring, [{"r":(1)2}, {}], replicated={"r":(2)2}>}> : (tensor<4x2xi32>) -> tensor<4x2xi32>
    %r = "sdy.manual_computation"(%w) <{in_shardings = #sdy.sharding_per_value<[<@ring, [{"r"}, {}]>]>, manual_axes = #sdy<manual_axes{"r"}>, out_shardings = #sdy.sharding_per_value<[<@ring, [{"r"}, {}]>]>}> ({
    ^bb0(%local: tensor<1x2xi32>):
      %n = stablehlo.negate %local : tensor<1x2xi32>
      "sdy.return"(%n) : (tensor<1x2xi32>) -> ()
    }) {mhlo.frontend_attributes = {kind = "local"}} : (tensor<4x2xi32>) -> tensor<4x2xi32>
    %s = sdy.manual_computation(%r) in_shardings=[<@single, [{}, {}]>] out_shardings=[<@single, [{}, {}]>] manual_axes={} (%whole: tensor<4x2xi32>) {
      sdy.return %whole : tensor<4x2xi32>
    } : (tensor<4x2xi32>) -> tensor<4x2xi32>
    return %s : tensor<4x2xi32>
  }
}

// One data-parallel training step of a three-layer MLP on 8 devices, as JAX
// writes it with shard_map: the batch is split over the mesh axis "batch",
// the weights are replicated, and inside the manual computation each
// gradient's all-reduce is an `async_start` issued the moment the gradient
// exists, finished by an `async_done` only at the weight update.
//
// The same step as examples/dp_train_step.hlo. `weft run` takes the global
// batch and slices it per device by the argument shardings:
//
//   weft run examples/dp_train_step.stablehlo.mlir --link-bandwidth 2
module @dp_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["batch"=8]>
  func.func public @main(%arg0: tensor<1024x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}]>}, %arg1: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}]>}, %arg2: tensor<512x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg3: tensor<1024x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg4: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<512x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<1024x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %step:4 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3, %arg4) in_shardings=[<@mesh, [{"batch"}, {}]>, <@mesh, [{"batch"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, []>] manual_axes={"batch"} (%arg5: tensor<128x512xf32>, %arg6: tensor<128x256xf32>, %arg7: tensor<512x1024xf32>, %arg8: tensor<1024x1024xf32>, %arg9: tensor<1024x256xf32>) {
      %0 = stablehlo.dot_general %arg5, %arg7, contracting_dims = [1] x [0] : (tensor<128x512xf32>, tensor<512x1024xf32>) -> tensor<128x1024xf32>
      %1 = stablehlo.tanh %0 : tensor<128x1024xf32>
      %2 = stablehlo.dot_general %1, %arg8, contracting_dims = [1] x [0] : (tensor<128x1024xf32>, tensor<1024x1024xf32>) -> tensor<128x1024xf32>
      %3 = stablehlo.tanh %2 : tensor<128x1024xf32>
      %4 = stablehlo.dot_general %3, %arg9, contracting_dims = [1] x [0] : (tensor<128x1024xf32>, tensor<1024x256xf32>) -> tensor<128x256xf32>
      %5 = stablehlo.subtract %4, %arg6 : tensor<128x256xf32>
      %6 = stablehlo.multiply %5, %5 : tensor<128x256xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<128x256xf32>, tensor<f32>) -> tensor<f32>
      %8 = "stablehlo.all_reduce"(%7) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg10: tensor<f32>, %arg11: tensor<f32>):
        %37 = stablehlo.add %arg10, %arg11 : tensor<f32>
        stablehlo.return %37 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %cst_0 = stablehlo.constant dense<2.621440e+05> : tensor<f32>
      %9 = stablehlo.divide %8, %cst_0 : tensor<f32>
      %10 = stablehlo.dot_general %3, %5, contracting_dims = [0] x [0] : (tensor<128x1024xf32>, tensor<128x256xf32>) -> tensor<1024x256xf32>
      %11 = "stablehlo.async_start"(%10) ({
      ^bb0(%arg10: tensor<1024x256xf32>):
        %37 = "stablehlo.all_reduce"(%arg10) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg11: tensor<f32>, %arg12: tensor<f32>):
          %38 = stablehlo.add %arg11, %arg12 : tensor<f32>
          stablehlo.return %38 : tensor<f32>
        }) : (tensor<1024x256xf32>) -> tensor<1024x256xf32>
        stablehlo.return %37 : tensor<1024x256xf32>
      }) : (tensor<1024x256xf32>) -> !stablehlo.future<tensor<1024x256xf32>>
      %12 = stablehlo.dot_general %5, %arg9, contracting_dims = [1] x [1] : (tensor<128x256xf32>, tensor<1024x256xf32>) -> tensor<128x1024xf32>
      %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<128x1024xf32>
      %14 = stablehlo.multiply %3, %3 : tensor<128x1024xf32>
      %15 = stablehlo.subtract %13, %14 : tensor<128x1024xf32>
      %16 = stablehlo.multiply %12, %15 : tensor<128x1024xf32>
      %17 = stablehlo.dot_general %1, %16, contracting_dims = [0] x [0] : (tensor<128x1024xf32>, tensor<128x1024xf32>) -> tensor<1024x1024xf32>
      %18 = "stablehlo.async_start"(%17) ({
      ^bb0(%arg10: tensor<1024x1024xf32>):
        %37 = "stablehlo.all_reduce"(%arg10) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg11: tensor<f32>, %arg12: tensor<f32>):
          %38 = stablehlo.add %arg11, %arg12 : tensor<f32>
          stablehlo.return %38 : tensor<f32>
        }) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
        stablehlo.return %37 : tensor<1024x1024xf32>
      }) : (tensor<1024x1024xf32>) -> !stablehlo.future<tensor<1024x1024xf32>>
      %19 = stablehlo.dot_general %16, %arg8, contracting_dims = [1] x [1] : (tensor<128x1024xf32>, tensor<1024x1024xf32>) -> tensor<128x1024xf32>
      %20 = stablehlo.multiply %1, %1 : tensor<128x1024xf32>
      %21 = stablehlo.subtract %13, %20 : tensor<128x1024xf32>
      %22 = stablehlo.multiply %19, %21 : tensor<128x1024xf32>
      %23 = stablehlo.dot_general %arg5, %22, contracting_dims = [0] x [0] : (tensor<128x512xf32>, tensor<128x1024xf32>) -> tensor<512x1024xf32>
      %24 = "stablehlo.async_start"(%23) ({
      ^bb0(%arg10: tensor<512x1024xf32>):
        %37 = "stablehlo.all_reduce"(%arg10) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg11: tensor<f32>, %arg12: tensor<f32>):
          %38 = stablehlo.add %arg11, %arg12 : tensor<f32>
          stablehlo.return %38 : tensor<f32>
        }) : (tensor<512x1024xf32>) -> tensor<512x1024xf32>
        stablehlo.return %37 : tensor<512x1024xf32>
      }) : (tensor<512x1024xf32>) -> !stablehlo.future<tensor<512x1024xf32>>
      %cst_2 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
      %25 = "stablehlo.async_done"(%11) : (!stablehlo.future<tensor<1024x256xf32>>) -> tensor<1024x256xf32>
      %26 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
      %27 = stablehlo.multiply %25, %26 : tensor<1024x256xf32>
      %28 = stablehlo.subtract %arg9, %27 : tensor<1024x256xf32>
      %29 = "stablehlo.async_done"(%18) : (!stablehlo.future<tensor<1024x1024xf32>>) -> tensor<1024x1024xf32>
      %30 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
      %31 = stablehlo.multiply %29, %30 : tensor<1024x1024xf32>
      %32 = stablehlo.subtract %arg8, %31 : tensor<1024x1024xf32>
      %33 = "stablehlo.async_done"(%24) : (!stablehlo.future<tensor<512x1024xf32>>) -> tensor<512x1024xf32>
      %34 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<512x1024xf32>
      %35 = stablehlo.multiply %33, %34 : tensor<512x1024xf32>
      %36 = stablehlo.subtract %arg7, %35 : tensor<512x1024xf32>
      sdy.return %36, %32, %28, %9 : tensor<512x1024xf32>, tensor<1024x1024xf32>, tensor<1024x256xf32>, tensor<f32>
    } : (tensor<1024x512xf32>, tensor<1024x256xf32>, tensor<512x1024xf32>, tensor<1024x1024xf32>, tensor<1024x256xf32>) -> (tensor<512x1024xf32>, tensor<1024x1024xf32>, tensor<1024x256xf32>, tensor<f32>)
    return %step#0, %step#1, %step#2, %step#3 : tensor<512x1024xf32>, tensor<1024x1024xf32>, tensor<1024x256xf32>, tensor<f32>
  }
}

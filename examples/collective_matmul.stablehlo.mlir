// A collective matmul on 8 devices, Y = X · W, as a shard_map program: X
// (1024x512) is split by rows and W (512x2048) by columns over the mesh axis
// "ring", and Y comes out split by columns. Inside the manual computation
// each device multiplies the row block it holds while a
// `collective_permute_start` passes that block to the next device; the
// matching `collective_permute_done` comes after the multiplication.
//
// The same program as examples/collective_matmul.hlo, written with the
// explicit start/done pairs. `weft run` slices the global X and W by the
// argument shardings and reassembles Y:
//
//   weft run examples/collective_matmul.stablehlo.mlir --link-bandwidth 1
module @collective_matmul attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["ring"=8]>
  func.func public @main(%x: tensor<1024x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"ring"}, {}]>}, %w: tensor<512x2048xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"ring"}]>}) -> (tensor<1024x2048xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"ring"}]>}) {
    %y = sdy.manual_computation(%x, %w) in_shardings=[<@mesh, [{"ring"}, {}]>, <@mesh, [{}, {"ring"}]>] out_shardings=[<@mesh, [{}, {"ring"}]>] manual_axes={"ring"} (%rows: tensor<128x512xf32>, %columns: tensor<512x256xf32>) {
      %first = stablehlo.constant dense<0> : tensor<i32>
      %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %empty = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
      %ring:3 = stablehlo.while(%step = %first, %held = %rows, %product = %empty) : tensor<i32>, tensor<128x512xf32>, tensor<1024x256xf32>
      cond {
        %steps = stablehlo.constant dense<8> : tensor<i32>
        %more = stablehlo.compare LT, %step, %steps, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %more : tensor<i1>
      } do {
        // Pass the held rows on while they are multiplied.
        %passing = "stablehlo.collective_permute_start"(%held) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<128x512xf32>) -> !stablehlo.future<tensor<128x512xf32>>
        %block = stablehlo.dot_general %held, %columns, contracting_dims = [1] x [0] : (tensor<128x512xf32>, tensor<512x256xf32>) -> tensor<128x256xf32>
        // The rows held at step s started on device (d - s) mod 8.
        %device = stablehlo.partition_id : tensor<ui32>
        %device_i32 = stablehlo.convert %device : (tensor<ui32>) -> tensor<i32>
        %eight = stablehlo.constant dense<8> : tensor<i32>
        %shifted = stablehlo.add %device_i32, %eight : tensor<i32>
        %unwrapped = stablehlo.subtract %shifted, %step : tensor<i32>
        %origin = stablehlo.remainder %unwrapped, %eight : tensor<i32>
        %block_rows = stablehlo.constant dense<128> : tensor<i32>
        %row_offset = stablehlo.multiply %origin, %block_rows : tensor<i32>
        %column_offset = stablehlo.constant dense<0> : tensor<i32>
        %placed = stablehlo.dynamic_update_slice %product, %block, %row_offset, %column_offset : (tensor<1024x256xf32>, tensor<128x256xf32>, tensor<i32>, tensor<i32>) -> tensor<1024x256xf32>
        %next_rows = "stablehlo.collective_permute_done"(%passing) : (!stablehlo.future<tensor<128x512xf32>>) -> tensor<128x512xf32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %next_step = stablehlo.add %step, %one : tensor<i32>
        stablehlo.return %next_step, %next_rows, %placed : tensor<i32>, tensor<128x512xf32>, tensor<1024x256xf32>
      }
      sdy.return %ring#2 : tensor<1024x256xf32>
    } : (tensor<1024x512xf32>, tensor<512x2048xf32>) -> tensor<1024x2048xf32>
    return %y : tensor<1024x2048xf32>
  }
}

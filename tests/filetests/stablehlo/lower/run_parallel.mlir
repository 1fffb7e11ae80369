// interpreter.run_parallel becomes a side-effecting custom-call naming the
// programs' computations row-major, then the infeed functions, with the grid
// and each program's result count in its backend_config, and the module
// takes the grid's num_partitions; the send and recv of the programs become
// send/send-done and recv/recv-done on their channel.
// test: convert --to hlo
module @run_parallel {
  func.func @sender(%operand : tensor<2xi64>, %token : !stablehlo.token) -> !stablehlo.token {
    %sent = "stablehlo.send"(%operand, %token) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>,
      is_host_transfer = true
    } : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
    return %sent : !stablehlo.token
  }
  func.func @receiver(%token : !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {
    %data, %received = "stablehlo.recv"(%token) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>,
      is_host_transfer = true
    } : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
    %fed:2 = "stablehlo.infeed"(%received) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
    %sum = stablehlo.add %data, %fed#0 : tensor<2xi64>
    return %sum, %fed#1 : tensor<2xi64>, !stablehlo.token
  }
  func.func @queued() -> tensor<2xi64> {
    %value = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
    return %value : tensor<2xi64>
  }
  func.func @main() -> tensor<2xi64> {
    %operand = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %token = stablehlo.after_all : !stablehlo.token
    %results:3 = "interpreter.run_parallel"(%operand, %token, %token) {
      infeed = [@queued],
      programs = [[@sender, @receiver]]
    } : (tensor<2xi64>, !stablehlo.token, !stablehlo.token) -> (!stablehlo.token, tensor<2xi64>, !stablehlo.token)
    check.expect_eq_const %results#1, dense<[11, 22]> : tensor<2xi64>
    return %results#1 : tensor<2xi64>
  }
}

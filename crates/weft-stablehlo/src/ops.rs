//! The op table: every operation weft knows, in one place — its full name, the
//! custom (pretty) syntax it prints with, and its inherent attributes (MLIR's
//! properties, printed inside `<{…}>` in the generic form).
//!
//! An op that is not in the table still parses in the generic form (as MLIR's
//! unregistered ops do) and prints back unchanged; the verifier reports it.

/// Which custom assembly form an op uses; [`Syntax::Generic`] means it has none
/// and always prints as `"dialect.op"(…) … : (…) -> …`. The forms are
/// implemented in `text::syntax`, each parse next to its print.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// No custom form.
    Generic,
    /// `module @name attributes {…} { … }`.
    Module,
    /// `func.func visibility @name(args) -> results attributes {…} { … }`.
    Func,
    /// `func.return %a, %b : t, u`, `stablehlo.return …`, `sdy.return …`.
    Return,
    /// `func.call @f(%a) : (t) -> u`.
    Call,
    /// `%r = op %a, %b : t` when every operand and the result have one type, else
    /// `: (t, u) -> v` (MLIR's `SameOperandsAndResultType` printer).
    SameOperandsAndResultType,
    /// `op %a, %b : (t, u) -> v`.
    FunctionalType,
    /// `op %a, %b : t` where `t` is the result type (`after_all`, `replica_id`).
    ResultTypes,
    /// `stablehlo.constant dense<…> : t`.
    Constant,
    /// `stablehlo.compare LT, %a, %b, SIGNED : (t, t) -> u`.
    Compare,
    /// `chlo.erf_inv %a : t -> u`.
    ChloUnary,
    /// `chlo.next_after %a, %b : t, u -> v`: two operands of one shape.
    ChloBinary,
    /// `chlo.broadcast_add %a, %b : (t, u) -> v`: the functional form, for ops
    /// whose operands broadcast to the result's shape.
    ChloBroadcast,
    /// `stablehlo.broadcast_in_dim %x, dims = [0] : (t) -> u`.
    BroadcastInDim,
    /// `stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [0] : (t, s) -> u`.
    DynamicBroadcastInDim,
    /// `stablehlo.iota dim = 0 : t`.
    Iota,
    /// `stablehlo.dynamic_iota %shape, dim = 0 : (s) -> t`.
    DynamicIota,
    /// `stablehlo.transpose %x, dims = [1, 0] : (t) -> u`.
    Transpose,
    /// `stablehlo.reverse %x, dims = [0] : t`.
    Reverse,
    /// `stablehlo.concatenate %a, %b, dim = 0 : (t, u) -> v`.
    Concatenate,
    /// `stablehlo.slice %x [1:3, 0:8:2] : (t) -> u`.
    Slice,
    /// `stablehlo.dynamic_slice %x, %i, sizes = [2] : (t, i) -> u`.
    DynamicSlice,
    /// `stablehlo.pad %x, %v, low = [1], high = [0], interior = [0] : (t, v) -> u`.
    Pad,
    /// `stablehlo.get_dimension_size %x, dim = 0 : (t) -> tensor<i32>`.
    GetDimensionSize,
    /// `stablehlo.set_dimension_size %x, %size, dim = 0 : (t, tensor<i32>) -> u`.
    SetDimensionSize,
    /// `stablehlo.tuple %a, %b : tuple<t, u>`.
    Tuple,
    /// `stablehlo.get_tuple_element %t[0] : (tuple<t, u>) -> t`.
    GetTupleElement,
    /// `stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>` or a function type.
    Select,
    /// `stablehlo.complex %re, %im : tensor<2xcomplex<f32>>` or a function type.
    ComplexOpType,
    /// `stablehlo.reduce_precision %x, format = e5m10 : t`.
    ReducePrecision,
    /// `stablehlo.optimization_barrier %a, %b : t, u`, or `()` without operands.
    OptimizationBarrier,
    /// `stablehlo.custom_call @target(%x) {attrs} : (t) -> u`.
    CustomCall,
    /// `stablehlo.composite "name" %x {attrs} : (t) -> u`.
    Composite,
    /// `stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (…) -> t`.
    Rng,
    /// `stablehlo.rng_bit_generator %state, algorithm = DEFAULT : (s) -> (s, t)`.
    RngBitGenerator,
    /// `stablehlo.fft %x, type = FFT, length = [4] : (t) -> u`.
    Fft,
    /// `stablehlo.cholesky %a, lower = true : t`.
    Cholesky,
    /// `stablehlo.dot %a, %b, precision = [DEFAULT, DEFAULT] : (t, u) -> v`.
    Dot,
    /// `stablehlo.dot_general %a, %b, batching_dims = [0] x [0],
    /// contracting_dims = [2] x [1], precision = […], algorithm = <…> : (t, u) -> v`.
    DotGeneral,
    /// `stablehlo.convolution(%a, %b) dim_numbers = […]x[…]->[…], window = {…} {attrs} : (t, u) -> v`.
    Convolution,
    /// `stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (t, u) -> v`,
    /// or `… across dimensions = [0] : (t, u) -> v reducer(%a: s, %b: s) {…}`.
    Reduce,
    /// `stablehlo.while(%iterArg = %a) : t cond {…} do {…}`.
    While,
    /// `chlo.scan(%x) inits(%c) dimension=0 {…} : (t, u) -> (v, w)`.
    ChloScan,
    /// `chlo.top_k(%x, k = 4, is_stable = true) : t -> (u, v)` (`is_stable`
    /// optional).
    ChloTopK,
    /// `check.expect_eq %a, %b : t`, `check.expect_almost_eq %a, %b, tolerance = 0.1 : t`.
    CheckOperands,
    /// `check.expect_eq_const %a, dense<…> : t` and `check.expect_almost_eq_const`.
    CheckConstant,
    /// `check.expect_close %a, %b, max_ulp_difference = 3 : t, t`.
    CheckClose,
    /// `check.expect_serialized_eq %a, probe_id = "p", iter = 1 : t`.
    CheckSerializedEq,
    /// `interpreter.probe %a, probe_id = "p" : t`.
    Probe,
    /// `interpreter.print %a {attrs} : t`: operands and their types, no results.
    OperandTypes,
    /// `sdy.mesh @mesh = <["x"=8]>`.
    SdyMesh,
    /// `sdy.sharding_constraint %x <@mesh, [{"x"}]> : t`.
    SdyShardingConstraint,
    /// `sdy.manual_computation(%x) in_shardings=[…] out_shardings=[…] manual_axes={"x"}
    /// (%arg1: t) {…} : (t) -> u`.
    SdyManualComputation,
    /// An op whose custom form weft does not implement yet; it must be written in
    /// the generic form.
    Unimplemented,
}

macro_rules! op_table {
    ($( $variant:ident, $name:literal, $syntax:ident, [$($attr:literal),* $(,)?]; )*) => {
        /// An op weft knows.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum OpKind {
            $( $variant, )*
        }

        impl OpKind {
            /// Every known op.
            pub const ALL: &'static [OpKind] = &[$(OpKind::$variant,)*];

            /// The full name, `dialect.op`.
            pub fn name(self) -> &'static str {
                match self {
                    $( OpKind::$variant => $name, )*
                }
            }

            /// Its custom syntax.
            pub fn syntax(self) -> Syntax {
                match self {
                    $( OpKind::$variant => Syntax::$syntax, )*
                }
            }

            /// Its inherent attributes.
            pub fn inherent_attributes(self) -> &'static [&'static str] {
                match self {
                    $( OpKind::$variant => &[$($attr),*], )*
                }
            }

            /// The op named `name`, if weft knows it.
            pub fn from_name(name: &str) -> Option<OpKind> {
                match name {
                    $( $name => Some(OpKind::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

op_table! {
    // builtin and func
    Module, "builtin.module", Module, ["sym_name", "sym_visibility"];
    Func, "func.func", Func, ["arg_attrs", "function_type", "no_inline", "res_attrs", "sym_name", "sym_visibility"];
    FuncReturn, "func.return", Return, [];
    Call, "func.call", Call, ["arg_attrs", "callee", "no_inline", "res_attrs"];

    // stablehlo: elementwise
    Abs, "stablehlo.abs", SameOperandsAndResultType, [];
    Add, "stablehlo.add", SameOperandsAndResultType, [];
    And, "stablehlo.and", SameOperandsAndResultType, [];
    Atan2, "stablehlo.atan2", SameOperandsAndResultType, [];
    Cbrt, "stablehlo.cbrt", SameOperandsAndResultType, ["result_accuracy"];
    Ceil, "stablehlo.ceil", SameOperandsAndResultType, [];
    Clamp, "stablehlo.clamp", SameOperandsAndResultType, [];
    CountLeadingZeros, "stablehlo.count_leading_zeros", SameOperandsAndResultType, [];
    Complex, "stablehlo.complex", ComplexOpType, [];
    Convert, "stablehlo.convert", SameOperandsAndResultType, [];
    Cosine, "stablehlo.cosine", SameOperandsAndResultType, ["result_accuracy"];
    Divide, "stablehlo.divide", SameOperandsAndResultType, [];
    Exponential, "stablehlo.exponential", SameOperandsAndResultType, ["result_accuracy"];
    ExponentialMinusOne, "stablehlo.exponential_minus_one", SameOperandsAndResultType, ["result_accuracy"];
    Floor, "stablehlo.floor", SameOperandsAndResultType, [];
    Imag, "stablehlo.imag", SameOperandsAndResultType, [];
    IsFinite, "stablehlo.is_finite", SameOperandsAndResultType, [];
    Log, "stablehlo.log", SameOperandsAndResultType, ["result_accuracy"];
    LogPlusOne, "stablehlo.log_plus_one", SameOperandsAndResultType, ["result_accuracy"];
    Logistic, "stablehlo.logistic", SameOperandsAndResultType, ["result_accuracy"];
    Maximum, "stablehlo.maximum", SameOperandsAndResultType, [];
    Minimum, "stablehlo.minimum", SameOperandsAndResultType, [];
    Multiply, "stablehlo.multiply", SameOperandsAndResultType, [];
    Negate, "stablehlo.negate", SameOperandsAndResultType, [];
    Not, "stablehlo.not", SameOperandsAndResultType, [];
    Or, "stablehlo.or", SameOperandsAndResultType, [];
    PopulationCount, "stablehlo.popcnt", SameOperandsAndResultType, [];
    Power, "stablehlo.power", SameOperandsAndResultType, [];
    Real, "stablehlo.real", SameOperandsAndResultType, [];
    Remainder, "stablehlo.remainder", SameOperandsAndResultType, [];
    RoundNearestAfz, "stablehlo.round_nearest_afz", SameOperandsAndResultType, [];
    RoundNearestEven, "stablehlo.round_nearest_even", SameOperandsAndResultType, [];
    Rsqrt, "stablehlo.rsqrt", SameOperandsAndResultType, ["result_accuracy"];
    ShiftLeft, "stablehlo.shift_left", SameOperandsAndResultType, [];
    ShiftRightArithmetic, "stablehlo.shift_right_arithmetic", SameOperandsAndResultType, [];
    ShiftRightLogical, "stablehlo.shift_right_logical", SameOperandsAndResultType, [];
    Sign, "stablehlo.sign", SameOperandsAndResultType, [];
    Sine, "stablehlo.sine", SameOperandsAndResultType, ["result_accuracy"];
    Sqrt, "stablehlo.sqrt", SameOperandsAndResultType, ["result_accuracy"];
    Subtract, "stablehlo.subtract", SameOperandsAndResultType, [];
    Tan, "stablehlo.tan", SameOperandsAndResultType, ["result_accuracy"];
    Tanh, "stablehlo.tanh", SameOperandsAndResultType, ["result_accuracy"];
    Xor, "stablehlo.xor", SameOperandsAndResultType, [];
    Compare, "stablehlo.compare", Compare, ["compare_type", "comparison_direction"];
    Select, "stablehlo.select", Select, [];
    ReducePrecision, "stablehlo.reduce_precision", ReducePrecision, ["exponent_bits", "mantissa_bits"];
    Constant, "stablehlo.constant", Constant, ["value"];
    Iota, "stablehlo.iota", Iota, ["iota_dimension"];
    DynamicIota, "stablehlo.dynamic_iota", DynamicIota, ["iota_dimension"];

    // stablehlo: data movement
    BitcastConvert, "stablehlo.bitcast_convert", FunctionalType, [];
    Reshape, "stablehlo.reshape", FunctionalType, [];
    DynamicReshape, "stablehlo.dynamic_reshape", FunctionalType, [];
    BroadcastInDim, "stablehlo.broadcast_in_dim", BroadcastInDim, ["broadcast_dimensions"];
    DynamicBroadcastInDim, "stablehlo.dynamic_broadcast_in_dim", DynamicBroadcastInDim, ["broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions"];
    Transpose, "stablehlo.transpose", Transpose, ["permutation"];
    Reverse, "stablehlo.reverse", Reverse, ["dimensions"];
    Concatenate, "stablehlo.concatenate", Concatenate, ["dimension"];
    Slice, "stablehlo.slice", Slice, ["limit_indices", "start_indices", "strides"];
    DynamicSlice, "stablehlo.dynamic_slice", DynamicSlice, ["slice_sizes"];
    DynamicUpdateSlice, "stablehlo.dynamic_update_slice", FunctionalType, [];
    RealDynamicSlice, "stablehlo.real_dynamic_slice", FunctionalType, [];
    Pad, "stablehlo.pad", Pad, ["edge_padding_high", "edge_padding_low", "interior_padding"];
    DynamicPad, "stablehlo.dynamic_pad", FunctionalType, [];
    Gather, "stablehlo.gather", Generic, ["dimension_numbers", "indices_are_sorted", "slice_sizes"];
    DynamicGather, "stablehlo.dynamic_gather", Generic, ["dimension_numbers", "indices_are_sorted"];
    Scatter, "stablehlo.scatter", Generic, ["indices_are_sorted", "scatter_dimension_numbers", "unique_indices"];
    GetDimensionSize, "stablehlo.get_dimension_size", GetDimensionSize, ["dimension"];
    SetDimensionSize, "stablehlo.set_dimension_size", SetDimensionSize, ["dimension"];
    Tuple, "stablehlo.tuple", Tuple, [];
    GetTupleElement, "stablehlo.get_tuple_element", GetTupleElement, ["index"];
    UniformQuantize, "stablehlo.uniform_quantize", SameOperandsAndResultType, [];
    UniformDequantize, "stablehlo.uniform_dequantize", SameOperandsAndResultType, [];

    // stablehlo: linear algebra, reductions, control flow
    Dot, "stablehlo.dot", Dot, ["precision_config"];
    DotGeneral, "stablehlo.dot_general", DotGeneral, ["algorithm", "dot_dimension_numbers", "precision_config"];
    Convolution, "stablehlo.convolution", Convolution, ["batch_group_count", "dimension_numbers", "feature_group_count", "lhs_dilation", "padding", "precision_config", "rhs_dilation", "window_reversal", "window_strides"];
    DynamicConv, "stablehlo.dynamic_conv", Generic, ["batch_group_count", "dimension_numbers", "feature_group_count", "lhs_dilation", "precision_config", "rhs_dilation", "window_reversal", "window_strides"];
    Fft, "stablehlo.fft", Fft, ["fft_length", "fft_type"];
    TriangularSolve, "stablehlo.triangular_solve", Generic, ["left_side", "lower", "transpose_a", "unit_diagonal"];
    Cholesky, "stablehlo.cholesky", Cholesky, ["lower"];
    Reduce, "stablehlo.reduce", Reduce, ["dimensions"];
    ReduceWindow, "stablehlo.reduce_window", Generic, ["base_dilations", "padding", "window_dilations", "window_dimensions", "window_strides"];
    SelectAndScatter, "stablehlo.select_and_scatter", Generic, ["padding", "window_dimensions", "window_strides"];
    Sort, "stablehlo.sort", Generic, ["dimension", "is_stable"];
    Map, "stablehlo.map", Generic, ["dimensions"];
    While, "stablehlo.while", While, [];
    If, "stablehlo.if", Generic, [];
    Case, "stablehlo.case", Generic, [];
    Return, "stablehlo.return", Return, [];
    OptimizationBarrier, "stablehlo.optimization_barrier", OptimizationBarrier, [];
    CustomCall, "stablehlo.custom_call", CustomCall, ["api_version", "backend_config", "call_target_name", "called_computations", "has_side_effect", "operand_layouts", "output_operand_aliases", "result_layouts"];
    Composite, "stablehlo.composite", Composite, ["composite_attributes", "decomposition", "name", "version"];
    BatchNormGrad, "stablehlo.batch_norm_grad", Generic, ["epsilon", "feature_index"];
    BatchNormInference, "stablehlo.batch_norm_inference", Generic, ["epsilon", "feature_index"];
    BatchNormTraining, "stablehlo.batch_norm_training", Generic, ["epsilon", "feature_index"];
    Rng, "stablehlo.rng", Rng, ["rng_distribution"];
    RngBitGenerator, "stablehlo.rng_bit_generator", RngBitGenerator, ["rng_algorithm"];

    // stablehlo: distribution and side effects
    ReplicaId, "stablehlo.replica_id", ResultTypes, [];
    PartitionId, "stablehlo.partition_id", ResultTypes, [];
    AllGather, "stablehlo.all_gather", Generic, ["all_gather_dim", "channel_handle", "replica_groups", "use_global_device_ids"];
    AllReduce, "stablehlo.all_reduce", Generic, ["channel_handle", "replica_groups", "use_global_device_ids"];
    AllToAll, "stablehlo.all_to_all", Generic, ["channel_handle", "concat_dimension", "replica_groups", "split_count", "split_dimension"];
    CollectiveBroadcast, "stablehlo.collective_broadcast", Generic, ["channel_handle", "has_dynamic_root", "replica_groups"];
    CollectivePermute, "stablehlo.collective_permute", Generic, ["channel_handle", "source_target_pairs"];
    CollectiveReduce, "stablehlo.collective_reduce", Generic, ["channel_handle", "has_dynamic_root", "replica_groups", "use_global_device_ids"];
    ReduceScatter, "stablehlo.reduce_scatter", Generic, ["channel_handle", "replica_groups", "scatter_dimension", "use_global_device_ids"];
    AsyncStart, "stablehlo.async_start", Generic, [];
    AsyncDone, "stablehlo.async_done", Generic, [];
    AllGatherStart, "stablehlo.all_gather_start", Generic, ["all_gather_dim", "channel_handle", "replica_groups", "use_global_device_ids"];
    AllGatherDone, "stablehlo.all_gather_done", Generic, [];
    AllReduceStart, "stablehlo.all_reduce_start", Generic, ["channel_handle", "replica_groups", "use_global_device_ids"];
    AllReduceDone, "stablehlo.all_reduce_done", Generic, [];
    AllToAllStart, "stablehlo.all_to_all_start", Generic, ["channel_handle", "concat_dimension", "replica_groups", "split_count", "split_dimension"];
    AllToAllDone, "stablehlo.all_to_all_done", Generic, [];
    CollectiveBroadcastStart, "stablehlo.collective_broadcast_start", Generic, ["channel_handle", "has_dynamic_root", "replica_groups"];
    CollectiveBroadcastDone, "stablehlo.collective_broadcast_done", Generic, [];
    CollectivePermuteStart, "stablehlo.collective_permute_start", Generic, ["channel_handle", "source_target_pairs"];
    CollectivePermuteDone, "stablehlo.collective_permute_done", Generic, [];
    ReduceScatterStart, "stablehlo.reduce_scatter_start", Generic, ["channel_handle", "replica_groups", "scatter_dimension", "use_global_device_ids"];
    ReduceScatterDone, "stablehlo.reduce_scatter_done", Generic, [];
    Send, "stablehlo.send", Generic, ["channel_handle", "is_host_transfer", "source_target_pairs"];
    Recv, "stablehlo.recv", Generic, ["channel_handle", "is_host_transfer", "source_target_pairs"];
    Infeed, "stablehlo.infeed", Generic, ["infeed_config", "layout"];
    Outfeed, "stablehlo.outfeed", Generic, ["outfeed_config"];
    AfterAll, "stablehlo.after_all", ResultTypes, [];
    CreateToken, "stablehlo.create_token", ResultTypes, [];

    // mhlo ops XLA's exporter leaves in StableHLO text
    MhloCopy, "mhlo.copy", SameOperandsAndResultType, ["cross_program_prefetch_index"];

    // chlo: unary elementwise, `chlo.op %x : t -> u`
    ChloAcos, "chlo.acos", ChloUnary, [];
    ChloAcosh, "chlo.acosh", ChloUnary, [];
    ChloAsin, "chlo.asin", ChloUnary, [];
    ChloAsinAcosKernel, "chlo._asin_acos_kernel", ChloUnary, [];
    ChloAsinh, "chlo.asinh", ChloUnary, [];
    ChloAtan, "chlo.atan", ChloUnary, [];
    ChloAtanh, "chlo.atanh", ChloUnary, [];
    ChloBesselI1e, "chlo.bessel_i1e", ChloUnary, [];
    ChloConj, "chlo.conj", ChloUnary, [];
    ChloCosh, "chlo.cosh", ChloUnary, [];
    ChloDigamma, "chlo.digamma", ChloUnary, [];
    ChloErf, "chlo.erf", ChloUnary, [];
    ChloErfInv, "chlo.erf_inv", ChloUnary, [];
    ChloErfc, "chlo.erfc", ChloUnary, [];
    ChloIsInf, "chlo.is_inf", ChloUnary, [];
    ChloIsNegInf, "chlo.is_neg_inf", ChloUnary, [];
    ChloIsPosInf, "chlo.is_pos_inf", ChloUnary, [];
    ChloLgamma, "chlo.lgamma", ChloUnary, [];
    ChloSinh, "chlo.sinh", ChloUnary, [];
    ChloSquare, "chlo.square", ChloUnary, [];
    ChloTan, "chlo.tan", ChloUnary, [];

    // chlo: binary elementwise on equal shapes, `chlo.op %x, %y : t, u -> v`
    ChloMulhi, "chlo.mulhi", ChloBinary, [];
    ChloNextAfter, "chlo.next_after", ChloBinary, [];
    ChloPolygamma, "chlo.polygamma", ChloBinary, [];
    ChloZeta, "chlo.zeta", ChloBinary, [];

    // chlo: elementwise with implicit broadcasting, `chlo.op %x, %y : (t, u) -> v`
    ChloBroadcastAdd, "chlo.broadcast_add", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastAnd, "chlo.broadcast_and", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastAtan2, "chlo.broadcast_atan2", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastCompare, "chlo.broadcast_compare", ChloBroadcast, ["broadcast_dimensions", "compare_type", "comparison_direction"];
    ChloBroadcastComplex, "chlo.broadcast_complex", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastDivide, "chlo.broadcast_divide", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastMaximum, "chlo.broadcast_maximum", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastMinimum, "chlo.broadcast_minimum", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastMultiply, "chlo.broadcast_multiply", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastNextAfter, "chlo.broadcast_next_after", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastOr, "chlo.broadcast_or", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastPolygamma, "chlo.broadcast_polygamma", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastPower, "chlo.broadcast_power", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastRemainder, "chlo.broadcast_remainder", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastSelect, "chlo.broadcast_select", ChloBroadcast, [];
    ChloBroadcastShiftLeft, "chlo.broadcast_shift_left", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastShiftRightArithmetic, "chlo.broadcast_shift_right_arithmetic", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastShiftRightLogical, "chlo.broadcast_shift_right_logical", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastSubtract, "chlo.broadcast_subtract", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastXor, "chlo.broadcast_xor", ChloBroadcast, ["broadcast_dimensions"];
    ChloBroadcastZeta, "chlo.broadcast_zeta", ChloBroadcast, ["broadcast_dimensions"];

    // chlo: constants, linear algebra and the rest
    ChloConstant, "chlo.constant", Constant, ["value"];
    ChloConstantLike, "chlo.constant_like", Generic, ["value"];
    ChloRaggedDot, "chlo.ragged_dot", Generic, ["precision_config", "ragged_dot_dimension_numbers"];
    ChloScan, "chlo.scan", ChloScan, ["dimension", "is_associative", "is_reverse", "operandSegmentSizes", "resultSegmentSizes", "scan_dim_size"];
    ChloTopK, "chlo.top_k", ChloTopK, ["is_stable", "k", "largest"];

    // Shardy
    SdyMesh, "sdy.mesh", SdyMesh, ["mesh", "sym_name"];
    SdyShardingConstraint, "sdy.sharding_constraint", SdyShardingConstraint, ["sharding"];
    SdyManualComputation, "sdy.manual_computation", SdyManualComputation, ["in_shardings", "manual_axes", "out_shardings"];
    SdyReturn, "sdy.return", Return, [];

    // the StableHLO test dialects
    CheckExpectEq, "check.expect_eq", CheckOperands, [];
    CheckExpectEqConst, "check.expect_eq_const", CheckConstant, ["value"];
    CheckExpectAlmostEq, "check.expect_almost_eq", CheckOperands, ["tolerance"];
    CheckExpectAlmostEqConst, "check.expect_almost_eq_const", CheckConstant, ["tolerance", "value"];
    CheckExpectClose, "check.expect_close", CheckClose, ["max_ulp_difference", "min_ulp_difference"];
    CheckExpectSerializedEq, "check.expect_serialized_eq", CheckSerializedEq, ["iteration", "probe_id"];
    InterpreterRunParallel, "interpreter.run_parallel", Generic, ["infeed", "programs"];
    InterpreterPrint, "interpreter.print", OperandTypes, [];
    InterpreterProbe, "interpreter.probe", Probe, ["probe_id"];
}

/// StableHLO ops that are exactly one HLO instruction with no attributes,
/// read both ways: the lowering maps each op to its opcode, the export each
/// opcode to the first op listed for it (so `stablehlo.tan` before
/// `chlo.tan`, `after_all` before `create_token`). An elementwise chlo op
/// lowers by its rule in `lower::chlo` instead, which for `chlo.erf` is XLA's
/// polynomial, so HLO's `erf` exports to `chlo.erf` but does not come back
/// as one instruction.
pub(crate) const ONE_TO_ONE: &[(OpKind, weft_ir::Opcode)] = &[
    (OpKind::Abs, weft_ir::Opcode::Abs),
    (OpKind::Add, weft_ir::Opcode::Add),
    (OpKind::And, weft_ir::Opcode::And),
    (OpKind::Atan2, weft_ir::Opcode::Atan2),
    (OpKind::Cbrt, weft_ir::Opcode::Cbrt),
    (OpKind::Ceil, weft_ir::Opcode::Ceil),
    (OpKind::Clamp, weft_ir::Opcode::Clamp),
    (
        OpKind::CountLeadingZeros,
        weft_ir::Opcode::CountLeadingZeros,
    ),
    (OpKind::Complex, weft_ir::Opcode::Complex),
    (OpKind::Convert, weft_ir::Opcode::Convert),
    (OpKind::Cosine, weft_ir::Opcode::Cosine),
    (OpKind::Divide, weft_ir::Opcode::Divide),
    (OpKind::Exponential, weft_ir::Opcode::Exponential),
    (
        OpKind::ExponentialMinusOne,
        weft_ir::Opcode::ExponentialMinusOne,
    ),
    (OpKind::Floor, weft_ir::Opcode::Floor),
    (OpKind::Imag, weft_ir::Opcode::Imag),
    (OpKind::IsFinite, weft_ir::Opcode::IsFinite),
    (OpKind::Log, weft_ir::Opcode::Log),
    (OpKind::LogPlusOne, weft_ir::Opcode::LogPlusOne),
    (OpKind::Logistic, weft_ir::Opcode::Logistic),
    (OpKind::Maximum, weft_ir::Opcode::Maximum),
    (OpKind::Minimum, weft_ir::Opcode::Minimum),
    (OpKind::Multiply, weft_ir::Opcode::Multiply),
    (OpKind::Negate, weft_ir::Opcode::Negate),
    (OpKind::Not, weft_ir::Opcode::Not),
    (OpKind::Or, weft_ir::Opcode::Or),
    (OpKind::PopulationCount, weft_ir::Opcode::PopulationCount),
    (OpKind::Power, weft_ir::Opcode::Power),
    (OpKind::Real, weft_ir::Opcode::Real),
    (OpKind::Remainder, weft_ir::Opcode::Remainder),
    (OpKind::RoundNearestAfz, weft_ir::Opcode::RoundNearestAfz),
    (OpKind::RoundNearestEven, weft_ir::Opcode::RoundNearestEven),
    (OpKind::Rsqrt, weft_ir::Opcode::Rsqrt),
    (OpKind::ShiftLeft, weft_ir::Opcode::ShiftLeft),
    (
        OpKind::ShiftRightArithmetic,
        weft_ir::Opcode::ShiftRightArithmetic,
    ),
    (
        OpKind::ShiftRightLogical,
        weft_ir::Opcode::ShiftRightLogical,
    ),
    (OpKind::Sign, weft_ir::Opcode::Sign),
    (OpKind::Sine, weft_ir::Opcode::Sine),
    (OpKind::Sqrt, weft_ir::Opcode::Sqrt),
    (OpKind::Subtract, weft_ir::Opcode::Subtract),
    (OpKind::Tan, weft_ir::Opcode::Tan),
    (OpKind::ChloTan, weft_ir::Opcode::Tan),
    (OpKind::Tanh, weft_ir::Opcode::Tanh),
    (OpKind::Xor, weft_ir::Opcode::Xor),
    (OpKind::Select, weft_ir::Opcode::Select),
    (OpKind::BitcastConvert, weft_ir::Opcode::BitcastConvert),
    (OpKind::Reshape, weft_ir::Opcode::Reshape),
    (
        OpKind::DynamicUpdateSlice,
        weft_ir::Opcode::DynamicUpdateSlice,
    ),
    (OpKind::Tuple, weft_ir::Opcode::Tuple),
    (OpKind::AfterAll, weft_ir::Opcode::AfterAll),
    (OpKind::CreateToken, weft_ir::Opcode::AfterAll),
    (OpKind::ReplicaId, weft_ir::Opcode::ReplicaId),
    (OpKind::PartitionId, weft_ir::Opcode::PartitionId),
    (OpKind::MhloCopy, weft_ir::Opcode::Copy),
    (OpKind::ChloErf, weft_ir::Opcode::Erf),
    (OpKind::ChloMulhi, weft_ir::Opcode::Mulhi),
];

/// A collective with an explicit start/done pair (the RFC alternative of
/// seed 004): the synchronous op, its `*_start` and its `*_done`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExplicitPair {
    /// The synchronous collective, e.g. `stablehlo.all_gather`.
    pub collective: OpKind,
    /// `stablehlo.all_gather_start`.
    pub start: OpKind,
    /// `stablehlo.all_gather_done`.
    pub done: OpKind,
}

/// The six explicit pairs, one per collective the RFC names.
pub const EXPLICIT_PAIRS: &[ExplicitPair] = &[
    ExplicitPair {
        collective: OpKind::AllGather,
        start: OpKind::AllGatherStart,
        done: OpKind::AllGatherDone,
    },
    ExplicitPair {
        collective: OpKind::AllReduce,
        start: OpKind::AllReduceStart,
        done: OpKind::AllReduceDone,
    },
    ExplicitPair {
        collective: OpKind::AllToAll,
        start: OpKind::AllToAllStart,
        done: OpKind::AllToAllDone,
    },
    ExplicitPair {
        collective: OpKind::CollectiveBroadcast,
        start: OpKind::CollectiveBroadcastStart,
        done: OpKind::CollectiveBroadcastDone,
    },
    ExplicitPair {
        collective: OpKind::CollectivePermute,
        start: OpKind::CollectivePermuteStart,
        done: OpKind::CollectivePermuteDone,
    },
    ExplicitPair {
        collective: OpKind::ReduceScatter,
        start: OpKind::ReduceScatterStart,
        done: OpKind::ReduceScatterDone,
    },
];

impl ExplicitPair {
    /// The pair whose collective, start or done is `kind`.
    pub fn of(kind: OpKind) -> Option<ExplicitPair> {
        EXPLICIT_PAIRS
            .iter()
            .copied()
            .find(|pair| pair.collective == kind || pair.start == kind || pair.done == kind)
    }
}

/// An op's name: one weft knows, or any other.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpName {
    /// A known op.
    Known(OpKind),
    /// An op weft does not know, by its full name.
    Unregistered(String),
}

impl OpName {
    /// The op named `name`.
    pub fn parse(name: &str) -> OpName {
        match OpKind::from_name(name) {
            Some(kind) => OpName::Known(kind),
            None => OpName::Unregistered(name.to_string()),
        }
    }

    /// `builtin.module`.
    pub fn module() -> OpName {
        OpName::Known(OpKind::Module)
    }

    /// `func.func`.
    pub fn func() -> OpName {
        OpName::Known(OpKind::Func)
    }

    /// The full name.
    pub fn as_str(&self) -> &str {
        match self {
            OpName::Known(kind) => kind.name(),
            OpName::Unregistered(name) => name,
        }
    }

    /// The known op, if it is one.
    pub fn kind(&self) -> Option<OpKind> {
        match self {
            OpName::Known(kind) => Some(*kind),
            OpName::Unregistered(_) => None,
        }
    }

    /// Its custom syntax ([`Syntax::Generic`] for unregistered ops).
    pub fn syntax(&self) -> Syntax {
        self.kind().map_or(Syntax::Generic, OpKind::syntax)
    }

    /// Whether `attribute` is inherent to this op.
    pub fn is_inherent(&self, attribute: &str) -> bool {
        self.kind()
            .is_some_and(|k| k.inherent_attributes().contains(&attribute))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_inherent_lists_sorted() {
        let mut seen = std::collections::HashSet::new();
        for &kind in OpKind::ALL {
            assert!(seen.insert(kind.name()), "{} twice", kind.name());
            assert_eq!(OpKind::from_name(kind.name()), Some(kind));
            let attrs = kind.inherent_attributes();
            assert!(attrs.windows(2).all(|w| w[0] < w[1]), "{}", kind.name());
        }
    }
}

//! One op at a time: the dispatch from an op kind to its HLO instruction(s),
//! and the ops that map to one instruction with a typed attribute family
//! (elementwise, data movement, linear algebra, random numbers, custom calls).
//! Control flow and reducers are in [`super::control`], collectives and async
//! ops in [`super::collectives`], sharding in [`super::partition`], the testing
//! dialects in [`super::testing`].

use weft_ir::attrs::{
    Attrs, CompareType, ConvolutionAttrs, ConvolutionDims, CustomCallAttrs, Direction, DotAttrs,
    FftType, GatherAttrs, PaddingConfig, PaddingDim, Precision, RngAlgorithm, ScatterAttrs,
    SliceRange, TriangularSolveAttrs, Window, WindowDim,
};
use weft_ir::literal::Literal;
use weft_ir::{Comp, ElementType, Instr, Opcode, Shape};

use super::{LowerResult, Lowering, integer_attribute};
use crate::dot_algorithm::DotAlgorithm;
use crate::ir::attribute::{DenseArrayValues, DenseValues, NotNumbers};
use crate::ir::dialect_attr::{Structured, enum_keyword};
use crate::ir::{Attribute, Op};
use crate::ops::OpKind;
use crate::text::syntax::linalg::{ConvDimensions, ConvLayout};

/// Elementwise arithmetic that StableHLO defines on quantized tensors as
/// "dequantize, compute in the expressed type, quantize the result" (ops that
/// only move or reinterpret storage values are not among them).
fn dequantizes(kind: OpKind) -> bool {
    use OpKind as K;
    matches!(
        kind,
        K::Abs
            | K::Add
            | K::Atan2
            | K::Cbrt
            | K::Ceil
            | K::Cosine
            | K::Divide
            | K::Exponential
            | K::ExponentialMinusOne
            | K::Floor
            | K::Log
            | K::LogPlusOne
            | K::Logistic
            | K::Maximum
            | K::Minimum
            | K::Multiply
            | K::Negate
            | K::Power
            | K::Remainder
            | K::RoundNearestAfz
            | K::RoundNearestEven
            | K::Rsqrt
            | K::Sign
            | K::Sine
            | K::Sqrt
            | K::Subtract
            | K::Tan
            | K::Tanh
    )
}

/// The HLO opcode of an op that lowers to one instruction with no attributes.
fn plain_opcode(kind: OpKind) -> Option<Opcode> {
    crate::ops::ONE_TO_ONE
        .iter()
        .find(|&&(k, _)| k == kind)
        .map(|&(_, opcode)| opcode)
}

impl Lowering<'_> {
    /// Lowers `op` into `comp`, binding its results.
    pub(crate) fn lower_op(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let outer = self.lowering.replace(op);
        let lowered = self.lower_op_here(comp, op);
        self.lowering = outer;
        lowered
    }

    fn lower_op_here(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let Some(kind) = self.body.ops[op].name.kind() else {
            return Err(self.error(op, "unregistered op"));
        };
        let partial_sums = self.check_distribution(op, kind)?;
        self.lower_op_kind(comp, op, kind)?;
        if let Some(groups) = partial_sums {
            self.sum_partials(comp, op, groups)?;
        }
        Ok(())
    }

    fn lower_op_kind(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        if kind == OpKind::BitcastConvert && self.bitcasts_booleans(op) {
            return self.boolean_bitcast(comp, op);
        }
        if super::chlo::is_elementwise(kind) {
            return self.lower_chlo(comp, op, kind);
        }
        if let Some(opcode) = plain_opcode(kind) {
            if dequantizes(kind) && self.touches_quantized(op) {
                return self.quantized_elementwise(comp, op, opcode);
            }
            return self.one_instruction(comp, op, opcode, Attrs::plain());
        }
        use OpKind as K;
        match kind {
            K::Constant => self.constant(comp, op),
            K::Compare => self.compare(comp, op),
            K::Iota => {
                let dimension = self.int(op, "iota_dimension")?;
                self.one_instruction(comp, op, Opcode::Iota, Attrs::Iota { dimension })
            }
            K::BroadcastInDim => self.broadcast_in_dim(comp, op),
            K::Transpose => {
                let dimensions = self.ints(op, "permutation")?;
                self.one_instruction(
                    comp,
                    op,
                    Opcode::Transpose,
                    Attrs::Dimensions {
                        dimensions: dimensions.into(),
                    },
                )
            }
            K::Reverse => {
                let dimensions = self.ints(op, "dimensions")?;
                self.one_instruction(
                    comp,
                    op,
                    Opcode::Reverse,
                    Attrs::Dimensions {
                        dimensions: dimensions.into(),
                    },
                )
            }
            K::Concatenate => {
                let dimension = self.int(op, "dimension")?;
                self.one_instruction(
                    comp,
                    op,
                    Opcode::Concatenate,
                    Attrs::Dimensions {
                        dimensions: vec![dimension].into(),
                    },
                )
            }
            K::Slice => {
                let starts = self.ints(op, "start_indices")?;
                let limits = self.ints(op, "limit_indices")?;
                let strides = self.ints(op, "strides")?;
                let ranges = starts
                    .iter()
                    .zip(&limits)
                    .zip(&strides)
                    .map(|((&start, &limit), &stride)| SliceRange {
                        start,
                        limit,
                        stride,
                    })
                    .collect();
                self.one_instruction(comp, op, Opcode::Slice, Attrs::Slice(ranges))
            }
            K::DynamicSlice => {
                let sizes = self.ints(op, "slice_sizes")?;
                self.one_instruction(
                    comp,
                    op,
                    Opcode::DynamicSlice,
                    Attrs::DynamicSlice {
                        sizes: sizes.into(),
                    },
                )
            }
            K::Pad => {
                let low = self.ints(op, "edge_padding_low")?;
                let high = self.ints(op, "edge_padding_high")?;
                let interior = self.ints(op, "interior_padding")?;
                self.one_instruction(
                    comp,
                    op,
                    Opcode::Pad,
                    Attrs::Pad(padding(&low, &high, &interior)),
                )
            }
            K::GetTupleElement => {
                let index = self.int(op, "index")?;
                self.one_instruction(
                    comp,
                    op,
                    Opcode::GetTupleElement,
                    Attrs::GetTupleElement { index },
                )
            }
            K::ReducePrecision => {
                let exponent_bits = self.int(op, "exponent_bits")?;
                let mantissa_bits = self.int(op, "mantissa_bits")?;
                self.one_instruction(
                    comp,
                    op,
                    Opcode::ReducePrecision,
                    Attrs::ReducePrecision {
                        exponent_bits,
                        mantissa_bits,
                    },
                )
            }
            K::Gather | K::DynamicGather => self.gather(comp, op, kind),
            K::Dot => self.dot(comp, op),
            K::DotGeneral => self.dot_general(comp, op),
            K::Convolution | K::DynamicConv => self.convolution(comp, op, kind),
            K::Fft => self.fft(comp, op),
            K::Cholesky => {
                let lower = self.flag(op, "lower");
                self.one_instruction(comp, op, Opcode::Cholesky, Attrs::Cholesky { lower })
            }
            K::TriangularSolve => self.triangular_solve(comp, op),
            K::Rng => self.rng(comp, op),
            K::RngBitGenerator => self.rng_bit_generator(comp, op),
            K::OptimizationBarrier => self.optimization_barrier(comp, op),
            K::CustomCall => self.custom_call(comp, op),
            K::Composite => self.composite(comp, op),
            K::BatchNormGrad | K::BatchNormInference | K::BatchNormTraining => {
                self.batch_norm(comp, op, kind)
            }
            K::DynamicIota
            | K::DynamicReshape
            | K::DynamicBroadcastInDim
            | K::DynamicPad
            | K::RealDynamicSlice
            | K::GetDimensionSize
            | K::SetDimensionSize => self.lower_dynamic(comp, op, kind),
            K::UniformQuantize | K::UniformDequantize => self.quantization(comp, op, kind),
            K::ChloConstant => self.constant(comp, op),
            K::ChloConstantLike => self.constant_like(comp, op),
            K::ChloTopK => {
                let k = self.int(op, "k")?;
                let largest = self
                    .body
                    .attribute(op, "largest")
                    .is_none_or(|a| !matches!(a, Attribute::Bool(false)));
                // The dialect's default is a stable sort.
                let is_stable = !matches!(
                    self.body.attribute(op, "is_stable"),
                    Some(Attribute::Bool(false))
                );
                self.one_instruction(
                    comp,
                    op,
                    Opcode::TopK,
                    Attrs::TopK {
                        k,
                        largest,
                        is_stable,
                    },
                )
            }
            K::ChloRaggedDot => self.ragged_dot(comp, op),
            K::Reduce
            | K::ReduceWindow
            | K::SelectAndScatter
            | K::Sort
            | K::Map
            | K::Scatter
            | K::While
            | K::If
            | K::Case
            | K::Call
            | K::ChloScan => self.lower_control(comp, op, kind),
            K::AllGather
            | K::AllReduce
            | K::AllToAll
            | K::CollectiveBroadcast
            | K::CollectivePermute
            | K::CollectiveReduce
            | K::ReduceScatter
            | K::Send
            | K::Recv
            | K::Infeed
            | K::Outfeed => self.lower_communication(comp, op, kind),
            K::AsyncStart
            | K::AsyncDone
            | K::AllGatherStart
            | K::AllGatherDone
            | K::AllReduceStart
            | K::AllReduceDone
            | K::AllToAllStart
            | K::AllToAllDone
            | K::CollectiveBroadcastStart
            | K::CollectiveBroadcastDone
            | K::CollectivePermuteStart
            | K::CollectivePermuteDone
            | K::ReduceScatterStart
            | K::ReduceScatterDone => self.lower_async(comp, op, kind),
            K::SdyManualComputation | K::SdyShardingConstraint => {
                self.lower_sharding_op(comp, op, kind)
            }
            K::CheckExpectEq
            | K::CheckExpectEqConst
            | K::CheckExpectAlmostEq
            | K::CheckExpectAlmostEqConst
            | K::CheckExpectClose
            | K::CheckExpectSerializedEq
            | K::InterpreterPrint
            | K::InterpreterProbe
            | K::InterpreterRunParallel => self.lower_testing(comp, op, kind),
            _ => Err(self.error(op, "the lowering does not support this op")),
        }
    }

    // ----- helpers -----

    /// Whether a `bitcast_convert` reinterprets `i1` bits as another type.
    fn bitcasts_booleans(&self, op: Op) -> bool {
        let element = |value| {
            self.body
                .ty(value)
                .as_tensor()
                .and_then(|t| t.element.hlo())
        };
        let from = element(self.body.ops[op].operands[0]);
        let to = element(self.body.ops[op].results[0]);
        from != to && (from == Some(ElementType::Pred) || to == Some(ElementType::Pred))
    }

    /// Emits one instruction with `op`'s operands and result shape, and binds
    /// its results.
    pub(crate) fn one_instruction(
        &mut self,
        comp: Comp,
        op: Op,
        opcode: Opcode,
        attrs: Attrs,
    ) -> LowerResult<()> {
        let operands = self.operands(op)?;
        let shape = self.result_shape(op)?;
        let name = self.name_for(op, opcode.name());
        let instr = self.emit(comp, &name, opcode, shape, operands, attrs);
        self.bind_results(comp, op, instr);
        Ok(())
    }

    /// The integer list attribute `name` (`array<i64: …>` or a dense tensor).
    pub(crate) fn ints(&self, op: Op, name: &str) -> LowerResult<Vec<i64>> {
        self.optional_ints(op, name)?
            .ok_or_else(|| self.error(op, format!("missing attribute '{name}'")))
    }

    /// The integer list attribute `name`, if present.
    pub(crate) fn optional_ints(&self, op: Op, name: &str) -> LowerResult<Option<Vec<i64>>> {
        let Some(attribute) = self.body.attribute(op, name) else {
            return Ok(None);
        };
        integer_list(attribute)
            .map(Some)
            .ok_or_else(|| self.error(op, format!("'{name}' is not a list of integers")))
    }

    /// The integer attribute `name`.
    pub(crate) fn int(&self, op: Op, name: &str) -> LowerResult<i64> {
        integer_attribute(self.body.attribute(op, name))
            .ok_or_else(|| self.error(op, format!("missing integer attribute '{name}'")))
    }

    /// A boolean or unit attribute: present and not `false`.
    pub(crate) fn flag(&self, op: Op, name: &str) -> bool {
        match self.body.attribute(op, name) {
            None | Some(Attribute::Bool(false)) => false,
            Some(_) => true,
        }
    }

    fn precision(&self, op: Op) -> LowerResult<Vec<Precision>> {
        let Some(list) = self.body.attribute(op, "precision_config") else {
            return Ok(Vec::new());
        };
        let items = list.as_array().unwrap_or(&[]);
        let precisions = items
            .iter()
            .map(|item| {
                let word = enum_keyword(Some(item), "precision")
                    .ok_or_else(|| self.error(op, "unreadable precision_config"))?;
                match word {
                    "DEFAULT" => Ok(Precision::Default),
                    "HIGH" => Ok(Precision::High),
                    "HIGHEST" => Ok(Precision::Highest),
                    other => Err(self.error(op, format!("unknown precision '{other}'"))),
                }
            })
            .collect::<LowerResult<Vec<_>>>()?;
        // HLO leaves all-default precision unwritten.
        if precisions.iter().all(|p| *p == Precision::Default) {
            return Ok(Vec::new());
        }
        Ok(precisions)
    }

    // ----- ops with their own attribute family -----

    fn constant(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let Some(Attribute::DenseElements(dense)) = self.body.attribute(op, "value") else {
            return Err(self.error(op, "constant without a dense value"));
        };
        if let DenseValues::Splat(one) = &dense.values
            && dense.numbers(MAX_EXPANDED_SPLAT_BYTES).is_err()
        {
            // Too large to spell out: the scalar, broadcast.
            let shape = self.result_shape(op)?;
            let name = self.name_for(op, "constant");
            let scalar_shape = self.module.shapes.array_with_default_layout(one.elem, &[]);
            let scalar = self.emit(
                comp,
                &format!("{name}.splat"),
                Opcode::Constant,
                scalar_shape,
                Vec::new(),
                Attrs::Constant(Box::new(Literal::Array(one.clone()))),
            );
            let instr = self.broadcast_scalar(comp, scalar, shape, &name);
            self.bind_results(comp, op, instr);
            return Ok(());
        }
        let literal = dense_literal(dense).map_err(|e| match e {
            NotNumbers::Strings => self.error(op, "string constants have no HLO equivalent"),
            other => self.error(op, other.to_string()),
        })?;
        self.one_instruction(
            comp,
            op,
            Opcode::Constant,
            Attrs::Constant(Box::new(literal)),
        )
    }

    fn compare(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let attrs = self.compare_attrs(op)?;
        self.one_instruction(comp, op, Opcode::Compare, attrs)
    }

    /// The direction and comparison type of `stablehlo.compare` (or
    /// `chlo.broadcast_compare`), as HLO's `compare` attributes.
    pub(crate) fn compare_attrs(&self, op: Op) -> LowerResult<Attrs> {
        let direction = enum_keyword(
            self.body.attribute(op, "comparison_direction"),
            "comparison_direction",
        )
        .and_then(Direction::from_name)
        .ok_or_else(|| self.error(op, "missing or unknown comparison_direction"))?;
        let compare_type =
            match enum_keyword(self.body.attribute(op, "compare_type"), "comparison_type") {
                None | Some("NOTYPE") => None,
                Some(word) => Some(
                    CompareType::from_name(word)
                        .ok_or_else(|| self.error(op, format!("unknown comparison type {word}")))?,
                ),
            };
        Ok(Attrs::Compare {
            direction,
            compare_type,
        })
    }

    /// `broadcast_in_dim` may stretch a size-1 dimension, which HLO's
    /// `broadcast` cannot: such dimensions are first reshaped away, as XLA's
    /// translation does.
    fn broadcast_in_dim(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let shape = self.result_shape(op)?;
        self.broadcast_in_dim_to(comp, op, shape)
    }

    /// `broadcast_in_dim` of `op`'s first operand to `shape`.
    pub(crate) fn broadcast_in_dim_to(
        &mut self,
        comp: Comp,
        op: Op,
        shape: Shape,
    ) -> LowerResult<()> {
        let dims = self.ints(op, "broadcast_dimensions")?;
        let operand = self.operands(op)?[0];
        let operand_shape = self.module.shape_of(operand);
        let (Some(input), Some(output)) = (
            self.module.shapes.as_array(operand_shape).cloned(),
            self.module.shapes.as_array(shape).cloned(),
        ) else {
            return Err(self.error(op, "broadcast_in_dim of a non-array"));
        };
        let name = self.name_for(op, "broadcast");
        let mut kept = Vec::new();
        let mut kept_dims = Vec::new();
        for (i, &d) in dims.iter().enumerate() {
            let (Some(&from), Some(&to)) = (input.dims.get(i), output.dims.get(d as usize)) else {
                return Err(self.error(op, "broadcast_dimensions out of range"));
            };
            if from == to {
                kept.push(from);
                kept_dims.push(d);
            } else if from != 1 {
                return Err(self.error(op, "broadcast_in_dim between incompatible sizes"));
            }
        }
        let mut source = operand;
        if kept.len() != input.dims.len() {
            let reshaped = self
                .module
                .shapes
                .array_with_default_layout(input.elem, &kept);
            source = self.emit(
                comp,
                &name,
                Opcode::Reshape,
                reshaped,
                vec![operand],
                Attrs::plain(),
            );
        }
        let instr = self.emit(
            comp,
            &name,
            Opcode::Broadcast,
            shape,
            vec![source],
            Attrs::Dimensions {
                dimensions: kept_dims.into(),
            },
        );
        self.bind_results(comp, op, instr);
        Ok(())
    }

    fn gather(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        let dims = Structured::read(
            self.body.attribute(op, "dimension_numbers"),
            "stablehlo.gather",
        )
        .ok_or_else(|| self.error(op, "unreadable gather dimension_numbers"))?;
        let field = |name: &str| {
            dims.ints(name)
                .ok_or_else(|| self.error(op, format!("unreadable gather field '{name}'")))
        };
        let slice_sizes = if kind == OpKind::DynamicGather {
            self.shape_operand(op, 2, "slice_sizes")?
        } else {
            self.ints(op, "slice_sizes")?
        };
        let attrs = GatherAttrs {
            offset_dims: field("offset_dims")?,
            collapsed_slice_dims: field("collapsed_slice_dims")?,
            start_index_map: field("start_index_map")?,
            operand_batching_dims: field("operand_batching_dims")?,
            start_indices_batching_dims: field("start_indices_batching_dims")?,
            index_vector_dim: dims.int("index_vector_dim").unwrap_or(0),
            slice_sizes,
            indices_are_sorted: self.flag(op, "indices_are_sorted"),
        };
        let operands = self.operands(op)?;
        let shape = self.result_shape(op)?;
        let name = self.name_for(op, "gather");
        let instr = self.emit(
            comp,
            &name,
            Opcode::Gather,
            shape,
            operands[..2].to_vec(),
            Attrs::Gather(Box::new(attrs)),
        );
        self.bind_results(comp, op, instr);
        Ok(())
    }

    /// The scatter attributes of `op`.
    pub(crate) fn scatter_attrs(&self, op: Op) -> LowerResult<ScatterAttrs> {
        let dims = Structured::read(
            self.body.attribute(op, "scatter_dimension_numbers"),
            "stablehlo.scatter",
        )
        .ok_or_else(|| self.error(op, "unreadable scatter_dimension_numbers"))?;
        let field = |name: &str| {
            dims.ints(name)
                .ok_or_else(|| self.error(op, format!("unreadable scatter field '{name}'")))
        };
        Ok(ScatterAttrs {
            update_window_dims: field("update_window_dims")?,
            inserted_window_dims: field("inserted_window_dims")?,
            scatter_dims_to_operand_dims: field("scatter_dims_to_operand_dims")?,
            input_batching_dims: field("input_batching_dims")?,
            scatter_indices_batching_dims: field("scatter_indices_batching_dims")?,
            index_vector_dim: dims.int("index_vector_dim").unwrap_or(0),
            indices_are_sorted: self.flag(op, "indices_are_sorted"),
            unique_indices: self.flag(op, "unique_indices"),
        })
    }

    /// `stablehlo.dot`: contracts the last dimension of the left operand with
    /// the first of the right.
    fn dot(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let lhs = self.body.ops[op].operands[0];
        let rank = self.body.ty(lhs).rank().unwrap_or(1) as i64;
        let attrs = DotAttrs {
            lhs_contracting: vec![rank - 1],
            rhs_contracting: vec![0],
            precision: self.precision(op)?,
            ..DotAttrs::default()
        };
        self.one_instruction(comp, op, Opcode::Dot, Attrs::Dot(Box::new(attrs)))
    }

    fn dot_general(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let dims = Structured::read(
            self.body.attribute(op, "dot_dimension_numbers"),
            "stablehlo.dot",
        )
        .ok_or_else(|| self.error(op, "unreadable dot_dimension_numbers"))?;
        let algorithm = match self.body.attribute(op, "algorithm") {
            None => None,
            Some(attribute) => {
                let algorithm = Structured::read(Some(attribute), "stablehlo.dot_algorithm")
                    .ok_or_else(|| self.error(op, "unreadable dot algorithm"))
                    .and_then(|s| DotAlgorithm::read(&s).map_err(|m| self.error(op, m)))?;
                Some(
                    algorithm
                        .hlo_name()
                        .map_err(|m| self.error(op, m))?
                        .to_string(),
                )
            }
        };
        let field = |name: &str| {
            dims.ints(name)
                .ok_or_else(|| self.error(op, format!("unreadable dot field '{name}'")))
        };
        let attrs = DotAttrs {
            lhs_batch: field("lhs_batching_dimensions")?,
            rhs_batch: field("rhs_batching_dimensions")?,
            lhs_contracting: field("lhs_contracting_dimensions")?,
            rhs_contracting: field("rhs_contracting_dimensions")?,
            precision: self.precision(op)?,
            algorithm,
            ..DotAttrs::default()
        };
        self.one_instruction(comp, op, Opcode::Dot, Attrs::Dot(Box::new(attrs)))
    }

    fn ragged_dot(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let dims = Structured::read(
            self.body.attribute(op, "ragged_dot_dimension_numbers"),
            "chlo.ragged_dot",
        )
        .ok_or_else(|| self.error(op, "unreadable ragged_dot_dimension_numbers"))?;
        let field = |name: &str| {
            dims.ints(name)
                .ok_or_else(|| self.error(op, format!("unreadable ragged dot field '{name}'")))
        };
        let attrs = DotAttrs {
            lhs_batch: field("lhs_batching_dimensions")?,
            rhs_batch: field("rhs_batching_dimensions")?,
            lhs_contracting: field("lhs_contracting_dimensions")?,
            rhs_contracting: field("rhs_contracting_dimensions")?,
            lhs_ragged: field("lhs_ragged_dimensions")?,
            rhs_group: field("rhs_group_dimensions")?,
            precision: self.precision(op)?,
            algorithm: None,
        };
        self.one_instruction(comp, op, Opcode::RaggedDot, Attrs::Dot(Box::new(attrs)))
    }

    /// `convolution`, or `dynamic_conv` whose padding operand folds.
    fn convolution(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        let dims = ConvDimensions::from_attribute(self.body.attribute(op, "dimension_numbers"))
            .ok_or_else(|| self.error(op, "unreadable convolution dimension_numbers"))?;
        let spatial = dims.input.spatial.len();
        let kernel = self.body.ops[op].operands[1];
        let kernel_dims = self
            .body
            .ty(kernel)
            .static_dims()
            .ok_or_else(|| self.error(op, "the kernel needs a static shape"))?;
        let strides = self.optional_ints(op, "window_strides")?;
        let lhs_dilation = self.optional_ints(op, "lhs_dilation")?;
        let rhs_dilation = self.optional_ints(op, "rhs_dilation")?;
        let reversal = self.optional_ints(op, "window_reversal")?;
        let pads = if kind == OpKind::DynamicConv {
            Some(self.shape_operand(op, 2, "padding")?)
        } else {
            self.optional_ints(op, "padding")?
        };
        let window_dims = (0..spatial)
            .map(|k| {
                let size = kernel_dims[dims.kernel.spatial[k] as usize];
                WindowDim {
                    stride: strides.as_ref().map_or(1, |s| s[k]),
                    padding_low: pads.as_ref().map_or(0, |p| p[2 * k]),
                    padding_high: pads.as_ref().map_or(0, |p| p[2 * k + 1]),
                    base_dilation: lhs_dilation.as_ref().map_or(1, |d| d[k]),
                    window_dilation: rhs_dilation.as_ref().map_or(1, |d| d[k]),
                    reversal: reversal.as_ref().is_some_and(|r| r[k] != 0),
                    ..WindowDim::new(size)
                }
            })
            .collect();
        let attrs = ConvolutionAttrs {
            window: (spatial > 0).then_some(Window { dims: window_dims }),
            dims: convolution_dims(&dims),
            feature_group_count: integer_attribute(self.body.attribute(op, "feature_group_count"))
                .unwrap_or(1),
            batch_group_count: integer_attribute(self.body.attribute(op, "batch_group_count"))
                .unwrap_or(1),
            precision: self.precision(op)?,
            ..ConvolutionAttrs::default()
        };
        let operands = self.operands(op)?;
        let shape = self.result_shape(op)?;
        let name = self.name_for(op, "convolution");
        let instr = self.emit(
            comp,
            &name,
            Opcode::Convolution,
            shape,
            operands[..2].to_vec(),
            Attrs::Convolution(Box::new(attrs)),
        );
        self.bind_results(comp, op, instr);
        Ok(())
    }

    fn fft(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let fft_type = enum_keyword(self.body.attribute(op, "fft_type"), "fft_type")
            .and_then(FftType::from_name)
            .ok_or_else(|| self.error(op, "missing or unknown fft_type"))?;
        let fft_length = self.ints(op, "fft_length")?;
        self.one_instruction(
            comp,
            op,
            Opcode::Fft,
            Attrs::Fft {
                fft_type,
                fft_length: fft_length.into(),
            },
        )
    }

    fn triangular_solve(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        // HLO has no word for TRANSPOSE_INVALID: its parser refuses it.
        let transpose_a = match enum_keyword(self.body.attribute(op, "transpose_a"), "transpose") {
            None => "NO_TRANSPOSE",
            Some(word @ ("NO_TRANSPOSE" | "TRANSPOSE" | "ADJOINT")) => word,
            Some(other) => {
                return Err(self.error(op, format!("transpose_a {other} has no HLO form")));
            }
        }
        .into();
        let attrs = TriangularSolveAttrs {
            left_side: self.flag(op, "left_side"),
            lower: self.flag(op, "lower"),
            unit_diagonal: self.flag(op, "unit_diagonal"),
            transpose_a,
        };
        self.one_instruction(
            comp,
            op,
            Opcode::TriangularSolve,
            Attrs::TriangularSolve(Box::new(attrs)),
        )
    }

    /// A custom call's `api_version` (an integer, or the keyword), among
    /// those HLO can say: `API_VERSION_UNSPECIFIED` (0) is refused by HLO's
    /// parser, and other numbers name nothing.
    fn api_version(&self, op: Op) -> LowerResult<Option<&'static str>> {
        const VERSIONS: [&str; 5] = [
            "API_VERSION_UNSPECIFIED",
            "API_VERSION_ORIGINAL",
            "API_VERSION_STATUS_RETURNING",
            "API_VERSION_STATUS_RETURNING_UNIFIED",
            "API_VERSION_TYPED_FFI",
        ];
        let attribute = self.body.attribute(op, "api_version");
        let version = match enum_keyword(attribute, "custom_call_api_version") {
            Some(word) => VERSIONS.iter().position(|&v| v == word),
            None => match attribute {
                None => return Ok(None),
                Some(attribute) => integer_attribute(Some(attribute))
                    .and_then(|v| usize::try_from(v).ok())
                    .filter(|&v| v < VERSIONS.len()),
            },
        };
        match version {
            Some(0) | None => Err(self.error_with_hint(
                op,
                "api_version is not an API version HLO can say",
                "custom-call API versions are 1 (API_VERSION_ORIGINAL), 2 (API_VERSION_STATUS_RETURNING), 3 (API_VERSION_STATUS_RETURNING_UNIFIED) and 4 (API_VERSION_TYPED_FFI)",
            )),
            Some(v) => Ok(Some(VERSIONS[v])),
        }
    }

    /// `stablehlo.rng(a, b, shape)`: HLO's `rng` takes the bounds; the shape is
    /// the result's.
    fn rng(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let distribution = match enum_keyword(
            self.body.attribute(op, "rng_distribution"),
            "rng_distribution",
        ) {
            Some("UNIFORM") => weft_ir::attrs::Distribution::Uniform,
            Some("NORMAL") => weft_ir::attrs::Distribution::Normal,
            _ => return Err(self.error(op, "missing or unknown rng_distribution")),
        };
        let operands = self.operands(op)?;
        let shape = self.result_shape(op)?;
        let name = self.name_for(op, "rng");
        let instr = self.emit(
            comp,
            &name,
            Opcode::Rng,
            shape,
            operands[..2].to_vec(),
            Attrs::Rng { distribution },
        );
        self.bind_results(comp, op, instr);
        Ok(())
    }

    fn rng_bit_generator(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let algorithm =
            match enum_keyword(self.body.attribute(op, "rng_algorithm"), "rng_algorithm") {
                None | Some("DEFAULT") => RngAlgorithm::Default,
                Some("THREE_FRY") => RngAlgorithm::ThreeFry,
                Some("PHILOX") => RngAlgorithm::Philox,
                Some(other) => return Err(self.error(op, format!("unknown rng algorithm {other}"))),
            };
        self.one_instruction(
            comp,
            op,
            Opcode::RngBitGenerator,
            Attrs::RngBitGenerator { algorithm },
        )
    }

    /// `optimization_barrier` of several values is one `opt-barrier` of their
    /// tuple.
    fn optimization_barrier(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let operands = self.operands(op)?;
        let name = self.name_for(op, "opt-barrier");
        let tuple = self.tuple(comp, operands, &name);
        let shape = self.module.shape_of(tuple);
        let barrier = self.emit(
            comp,
            &name,
            Opcode::OptimizationBarrier,
            shape,
            vec![tuple],
            Attrs::plain(),
        );
        let results = self.body.ops[op].results.clone();
        for (index, result) in results.into_iter().enumerate() {
            let element = self.get_tuple_element(comp, barrier, index, &name);
            self.values.insert(result, element);
        }
        Ok(())
    }

    fn custom_call(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let target = self
            .body
            .attribute(op, "call_target_name")
            .and_then(Attribute::as_str)
            .unwrap_or_default()
            .to_string();
        if self.lower_check_custom_call(comp, op, &target)?
            || self.lower_special_custom_call(comp, op, &target)?
        {
            return Ok(());
        }
        let mut attrs = CustomCallAttrs {
            target: target.clone(),
            has_side_effect: self.flag(op, "has_side_effect"),
            ..CustomCallAttrs::default()
        };
        if let Some(version) = self.api_version(op)?
            && version != "API_VERSION_ORIGINAL"
        {
            attrs.api_version = Some(version.to_string());
        }
        let mut callees = Vec::new();
        if let Some(list) = self
            .body
            .attribute(op, "called_computations")
            .and_then(Attribute::as_array)
        {
            for item in list {
                let Attribute::SymbolRef(path) = item else {
                    continue;
                };
                let func = self.function_named(op, &path[0])?;
                callees.push(self.function_computation(func)?);
            }
        }
        let backend_config = match self.body.attribute(op, "backend_config") {
            Some(Attribute::String(text)) if !text.is_empty() => Some(text.clone()),
            Some(Attribute::Dictionary(_)) => Some(crate::text::attributes::attribute_to_string(
                self.body.attribute(op, "backend_config").expect("matched"),
            )),
            _ => None,
        };
        let operands = self.operands(op)?;
        let shape = self.result_shape(op)?;
        let name = self.name_for(op, "custom-call");
        let instr = self.emit(
            comp,
            &name,
            Opcode::CustomCall,
            shape,
            operands,
            Attrs::CustomCall(Box::new(attrs)),
        );
        self.module.instrs[instr].callees = callees.into();
        if let Some(config) = backend_config {
            self.module.instrs[instr].common_mut().backend_config =
                Some(weft_ir::attrs::BackendConfig(config));
        }
        self.bind_results(comp, op, instr);
        Ok(())
    }

    /// `stablehlo.composite`: a `call` of its decomposition, marked composite.
    fn composite(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let instr = self.call_function(comp, op, "decomposition", true)?;
        let mut frontend = weft_ir::attrs::FrontendAttributes::default();
        if let Some(composite_name) = self.body.attribute(op, "name").and_then(Attribute::as_str) {
            frontend.set("composite.name", composite_name);
        }
        let attributes = self
            .body
            .attribute(op, "composite_attributes")
            .map(crate::text::attributes::attribute_to_string)
            .unwrap_or_else(|| "{}".to_string());
        frontend.set("composite.attributes", &attributes);
        let version = integer_attribute(self.body.attribute(op, "version")).unwrap_or(0);
        frontend.set("composite.version", version.to_string());
        self.module.instrs[instr].common_mut().frontend_attributes = Some(frontend);
        self.bind_results(comp, op, instr);
        Ok(())
    }

    fn batch_norm(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        let epsilon = match self.body.attribute(op, "epsilon") {
            Some(Attribute::Float { value, .. }) => *value as f32,
            _ => return Err(self.error(op, "missing float attribute 'epsilon'")),
        };
        let feature_index = self.int(op, "feature_index")?;
        let opcode = match kind {
            OpKind::BatchNormGrad => Opcode::BatchNormGrad,
            OpKind::BatchNormInference => Opcode::BatchNormInference,
            _ => Opcode::BatchNormTraining,
        };
        self.one_instruction(
            comp,
            op,
            opcode,
            Attrs::BatchNorm {
                epsilon,
                feature_index,
            },
        )
    }

    /// A scalar constant of `element` type holding `value`, in `comp`.
    pub(crate) fn scalar_constant(
        &mut self,
        comp: Comp,
        element: ElementType,
        value: f64,
        name: &str,
    ) -> Instr {
        let mut array = weft_ir::literal::ArrayLiteral::zeros(element, &[]);
        if element.is_float() {
            array.set_float(0, value);
        } else {
            array.set_int(0, value as i128);
        }
        let shape = self.module.shapes.array_with_default_layout(element, &[]);
        self.emit(
            comp,
            name,
            Opcode::Constant,
            shape,
            Vec::new(),
            Attrs::Constant(Box::new(Literal::Array(array))),
        )
    }

    /// `broadcast(scalar)` to `shape`.
    pub(crate) fn broadcast_scalar(
        &mut self,
        comp: Comp,
        scalar: Instr,
        shape: Shape,
        name: &str,
    ) -> Instr {
        if self
            .module
            .shapes
            .as_array(shape)
            .is_some_and(|a| a.dims.is_empty())
        {
            return scalar;
        }
        self.emit(
            comp,
            name,
            Opcode::Broadcast,
            shape,
            vec![scalar],
            Attrs::Dimensions {
                dimensions: Box::default(),
            },
        )
    }
}

/// The most bytes a splat is expanded to when lowered to an HLO literal. Up
/// to it a splat constant lowers as XLA writes it, every element spelled
/// out; past it, to `broadcast(constant(v))`: the same value without a copy
/// of it per text, and a run then checks the broadcast against its own
/// limit on values (`--max-value-gib`) before anything is allocated.
pub(crate) const MAX_EXPANDED_SPLAT_BYTES: u64 = 1 << 20;

/// The literal of a `dense<…>` of numbers, with the type's dimensions (which
/// an empty tensor's elements alone do not give); an error for strings and
/// for a splat larger than [`MAX_EXPANDED_SPLAT_BYTES`].
pub(crate) fn dense_literal(
    dense: &crate::ir::attribute::DenseElements,
) -> Result<Literal, NotNumbers> {
    let mut array = dense.numbers(MAX_EXPANDED_SPLAT_BYTES)?.into_owned();
    if let Some(dims) = dense.ty.static_dims()
        && weft_ir::size::product(&dims).is_some_and(|n| n.as_usize() == array.len())
    {
        array.dims = dims;
    }
    Ok(Literal::Array(array))
}

/// `array<i64: …>`, `array<i1: …>` or an integer `dense<…>` as a list.
pub(crate) fn integer_list(attribute: &Attribute) -> Option<Vec<i64>> {
    match attribute {
        Attribute::DenseArray(array) => match &array.values {
            DenseArrayValues::Integers(values) => Some(values.clone()),
            DenseArrayValues::Floats(_) => None,
        },
        Attribute::DenseElements(dense) => match dense.numbers(MAX_EXPANDED_SPLAT_BYTES) {
            Ok(array) if !array.elem.is_float() => {
                Some((0..array.len()).map(|i| array.get_int(i) as i64).collect())
            }
            _ => None,
        },
        Attribute::Array(items) => items
            .iter()
            .map(|item| item.as_integer().and_then(|v| i64::try_from(v).ok()))
            .collect(),
        _ => None,
    }
}

/// HLO padding from low, high and interior amounts.
pub(crate) fn padding(low: &[i64], high: &[i64], interior: &[i64]) -> PaddingConfig {
    PaddingConfig {
        dims: (0..low.len())
            .map(|i| PaddingDim {
                low: low[i],
                high: high.get(i).copied().unwrap_or(0),
                interior: interior.get(i).copied().unwrap_or(0),
            })
            .collect(),
    }
}

/// HLO convolution dimension roles from `#stablehlo.conv<…>`.
fn convolution_dims(dims: &ConvDimensions) -> ConvolutionDims {
    let position = |layout: &ConvLayout, letter: char| {
        layout
            .non_spatial
            .iter()
            .find(|(_, l)| *l == letter)
            .map_or(0, |(p, _)| *p)
    };
    let rank = |layout: &ConvLayout| layout.spatial.len() + 2;
    ConvolutionDims {
        input_batch: position(&dims.input, 'b'),
        input_feature: position(&dims.input, 'f'),
        input_spatial: dims.input.spatial.clone(),
        kernel_input_feature: position(&dims.kernel, 'i'),
        kernel_output_feature: position(&dims.kernel, 'o'),
        kernel_spatial: dims.kernel.spatial.clone(),
        output_batch: position(&dims.output, 'b'),
        output_feature: position(&dims.output, 'f'),
        output_spatial: dims.output.spatial.clone(),
        ranks: [rank(&dims.input), rank(&dims.kernel), rank(&dims.output)],
    }
}

//! The instructions whose StableHLO ops carry a structured attribute family
//! or a computation of their own: indexing (`gather`, `scatter`), linear
//! algebra (`convolution`, `ragged-dot`, `fft`, `cholesky`,
//! `triangular-solve`), windows (`reduce-window`, `select-and-scatter`),
//! `sort`, `map`, `topk`, random numbers (`rng`, `rng-bit-generator`),
//! `reduce-precision`, the `batch-norm-*` family and `get-dimension-size`.
//!
//! Each instruction becomes the one op [`crate::lower`] reads back into the
//! same instruction; its attributes are written in the forms that lowering
//! reads and the printer and parser round-trip: dialect attributes as their
//! canonical text (`#stablehlo.gather<…>`, `#stablehlo.conv<…>`,
//! `#stablehlo<precision HIGH>`), integer lists as `array<i64: …>`, window
//! padding as a `dense<…> : tensor<Nx2xi64>` of `[low, high]` rows.
//!
//! Invariants:
//! - Attributes are written as XLA's importer writes them: a convolution's
//!   window in full (strides, padding, dilations, reversal), and the
//!   `indices_are_sorted` / `unique_indices` / `is_stable` flags even when
//!   `false`; the windows of reduce-window and select-and-scatter leave out
//!   fields at their default (strides and dilations of 1, zero padding), as
//!   the importer does ([`optional_window_field`] decides what "default"
//!   means for a window field); default precision is left out.
//! - A computation an op calls (scatter's update, sort's comparator, the
//!   reducer of a window, the body of a map) becomes a region whose block
//!   arguments are the computation's parameters as rank-0 tensors, returning
//!   the root's values flattened when it is a tuple.
//! - Anything StableHLO cannot say (a dilated select-and-scatter window, a
//!   window that disagrees with the kernel, an unknown `transpose_a`) is an
//!   error naming the instruction, never a silently different op.

use weft_ir::attrs::{
    Attrs, ConvolutionAttrs, ConvolutionDims, Distribution, DotAttrs, GatherAttrs, Precision,
    RngAlgorithm, ScatterAttrs, TriangularSolveAttrs, Window, WindowDim,
};
use weft_ir::literal::ArrayLiteral;
use weft_ir::{ElementType, Instr, Opcode};

use super::attributes::{self, array_i64, i64};
use super::{ExportResult, Exporter, Val};
use crate::ir::attribute::{DenseArray, DenseArrayValues, DenseElements, DenseValues};
use crate::ir::{Attribute, Block, ElementKind, FloatKind, Op, Type};
use crate::ops::OpKind;

/// An attribute name and value as [`Exporter::emit`] takes them.
type NamedValue = (&'static str, Attribute);

impl Exporter<'_> {
    /// Exports one of the instructions this module maps (see the module
    /// documentation); `instruction_value` sends them here.
    pub(crate) fn linalg_instruction(&mut self, block: Block, instr: Instr) -> ExportResult<Val> {
        let module = self.module;
        let data = module.instr(instr);
        use Opcode as O;
        match (&data.opcode, &data.attrs) {
            (O::Gather, Attrs::Gather(gather)) => self.gather(block, instr, gather),
            (O::Scatter, Attrs::Scatter(scatter)) => self.scatter(block, instr, scatter),
            (O::Convolution, Attrs::Convolution(convolution)) => {
                self.convolution(block, instr, convolution)
            }
            (O::RaggedDot, Attrs::Dot(dot)) => self.ragged_dot(block, instr, dot),
            (
                O::Sort,
                Attrs::Sort {
                    dimension,
                    is_stable,
                },
            ) => self.sort(block, instr, *dimension, *is_stable),
            (O::ReduceWindow, Attrs::Window(window)) => {
                self.reduce_window(block, instr, window.as_ref())
            }
            (O::SelectAndScatter, Attrs::Window(window)) => {
                self.select_and_scatter(block, instr, window.as_ref())
            }
            (O::Map, Attrs::Dimensions { dimensions }) => self.map(block, instr, dimensions),
            (O::RngBitGenerator, Attrs::RngBitGenerator { algorithm }) => {
                self.rng_bit_generator(block, instr, *algorithm)
            }
            (O::Rng, Attrs::Rng { distribution }) => self.rng(block, instr, *distribution),
            (
                O::ReducePrecision,
                Attrs::ReducePrecision {
                    exponent_bits,
                    mantissa_bits,
                },
            ) => {
                let attributes = vec![
                    ("exponent_bits", attributes::i32(*exponent_bits)),
                    ("mantissa_bits", attributes::i32(*mantissa_bits)),
                ];
                self.one_op(block, instr, OpKind::ReducePrecision, attributes)
            }
            (
                O::Fft,
                Attrs::Fft {
                    fft_type,
                    fft_length,
                },
            ) => {
                let attributes = vec![
                    ("fft_type", attributes::keyword("fft_type", fft_type.name())),
                    ("fft_length", array_i64(fft_length)),
                ];
                self.one_op(block, instr, OpKind::Fft, attributes)
            }
            (O::Cholesky, Attrs::Cholesky { lower }) => {
                // `lower` defaults to false; the custom form prints only `true`.
                let attributes = flag("lower", *lower).into_iter().collect();
                self.one_op(block, instr, OpKind::Cholesky, attributes)
            }
            (O::TriangularSolve, Attrs::TriangularSolve(options)) => {
                self.triangular_solve(block, instr, options)
            }
            (
                O::BatchNormGrad | O::BatchNormInference | O::BatchNormTraining,
                Attrs::BatchNorm {
                    epsilon,
                    feature_index,
                },
            ) => {
                let kind = match data.opcode {
                    O::BatchNormGrad => OpKind::BatchNormGrad,
                    O::BatchNormInference => OpKind::BatchNormInference,
                    _ => OpKind::BatchNormTraining,
                };
                let attributes = vec![
                    (
                        "epsilon",
                        Attribute::Float {
                            value: f64::from(*epsilon),
                            ty: Type::Element(ElementKind::Float(FloatKind::F32)),
                        },
                    ),
                    ("feature_index", i64(*feature_index)),
                ];
                self.one_op(block, instr, kind, attributes)
            }
            (
                O::TopK,
                Attrs::TopK {
                    k,
                    largest,
                    is_stable,
                },
            ) => {
                let mut attributes = vec![("k", i64(*k))];
                // chlo.top_k's `largest` and `is_stable` default to true.
                if !largest {
                    attributes.push(("largest", Attribute::Bool(false)));
                }
                if !is_stable {
                    attributes.push(("is_stable", Attribute::Bool(false)));
                }
                self.one_op(block, instr, OpKind::ChloTopK, attributes)
            }
            (O::GetDimensionSize, Attrs::Dimensions { dimensions }) => {
                let [dimension] = dimensions[..] else {
                    return Err(self.error(instr, "get-dimension-size needs exactly one dimension"));
                };
                let attributes = vec![("dimension", i64(dimension))];
                self.one_op(block, instr, OpKind::GetDimensionSize, attributes)
            }
            _ => Err(self.error(
                instr,
                format!("{} without the attributes of its kind", data.opcode.name()),
            )),
        }
    }

    /// An op with the instruction's operands, its (flattened) result types
    /// and `attributes`, as the instruction's value.
    fn one_op(
        &mut self,
        block: Block,
        instr: Instr,
        kind: OpKind,
        attributes: Vec<NamedValue>,
    ) -> ExportResult<Val> {
        let op = self.op_with_operands(block, instr, kind, attributes)?;
        Ok(self.results_val(op, self.module.shape_of(instr)))
    }

    /// [`Exporter::one_op`] returning the op, for callers that add regions.
    fn op_with_operands(
        &mut self,
        block: Block,
        instr: Instr,
        kind: OpKind,
        attributes: Vec<NamedValue>,
    ) -> ExportResult<Op> {
        let operands = self.operands(block, instr)?;
        let results = self.flat_types(instr, self.module.shape_of(instr))?;
        let name = self.module.instr(instr).name.clone();
        Ok(self.emit(block, kind, operands, results, attributes, Some(&name)))
    }

    /// An op calling computation `callees[index]` for each of `regions`, in
    /// order, as the instruction's value.
    fn op_with_regions(
        &mut self,
        block: Block,
        instr: Instr,
        kind: OpKind,
        attributes: Vec<NamedValue>,
        regions: usize,
    ) -> ExportResult<Val> {
        let op = self.op_with_operands(block, instr, kind, attributes)?;
        for index in 0..regions {
            let callee = self.callee(instr, index)?;
            self.called_region(instr, op, callee, true)?;
        }
        Ok(self.results_val(op, self.module.shape_of(instr)))
    }

    fn gather(&mut self, block: Block, instr: Instr, gather: &GatherAttrs) -> ExportResult<Val> {
        // MLIR's field order; empty lists are left out, as its printer does.
        let fields = structured_fields(&[
            ("offset_dims", &gather.offset_dims),
            ("collapsed_slice_dims", &gather.collapsed_slice_dims),
            ("operand_batching_dims", &gather.operand_batching_dims),
            (
                "start_indices_batching_dims",
                &gather.start_indices_batching_dims,
            ),
            ("start_index_map", &gather.start_index_map),
        ]);
        let mut attributes = vec![
            (
                "dimension_numbers",
                Attribute::Opaque(format!(
                    "#stablehlo.gather<{fields}index_vector_dim = {}>",
                    gather.index_vector_dim
                )),
            ),
            ("slice_sizes", array_i64(&gather.slice_sizes)),
        ];
        attributes.push((
            "indices_are_sorted",
            Attribute::Bool(gather.indices_are_sorted),
        ));
        self.one_op(block, instr, OpKind::Gather, attributes)
    }

    /// `stablehlo.scatter` of N inputs, the indices and N updates, returning
    /// N results; the update computation becomes its region.
    fn scatter(&mut self, block: Block, instr: Instr, scatter: &ScatterAttrs) -> ExportResult<Val> {
        let fields = structured_fields(&[
            ("update_window_dims", &scatter.update_window_dims),
            ("inserted_window_dims", &scatter.inserted_window_dims),
            ("input_batching_dims", &scatter.input_batching_dims),
            (
                "scatter_indices_batching_dims",
                &scatter.scatter_indices_batching_dims,
            ),
            (
                "scatter_dims_to_operand_dims",
                &scatter.scatter_dims_to_operand_dims,
            ),
        ]);
        let mut attributes = vec![(
            "scatter_dimension_numbers",
            Attribute::Opaque(format!(
                "#stablehlo.scatter<{fields}index_vector_dim = {}>",
                scatter.index_vector_dim
            )),
        )];
        attributes.push((
            "indices_are_sorted",
            Attribute::Bool(scatter.indices_are_sorted),
        ));
        attributes.push(("unique_indices", Attribute::Bool(scatter.unique_indices)));
        self.op_with_regions(block, instr, OpKind::Scatter, attributes, 1)
    }

    fn convolution(
        &mut self,
        block: Block,
        instr: Instr,
        convolution: &ConvolutionAttrs,
    ) -> ExportResult<Val> {
        let dims = &convolution.dims;
        let spatial = dims.input_spatial.len();
        if dims.kernel_spatial.len() != spatial || dims.output_spatial.len() != spatial {
            return Err(self.error(
                instr,
                "the input, kernel and output have different numbers of spatial dimensions",
            ));
        }
        let window_dims: &[WindowDim] = convolution.window.as_ref().map_or(&[], |w| &w.dims);
        if window_dims.len() != spatial {
            return Err(self.error(
                instr,
                format!(
                    "the window has {} dimension(s) but the convolution has {spatial} spatial dimension(s)",
                    window_dims.len()
                ),
            ));
        }
        // StableHLO has no window sizes: they are the kernel's spatial sizes,
        // so a window that says otherwise cannot be exported faithfully.
        let kernel = self.module.instr(instr).operands.get(1).copied();
        let kernel_dims = kernel
            .and_then(|k| self.module.shapes.as_array(self.module.shape_of(k)))
            .map(|array| array.dims.to_vec())
            .ok_or_else(|| self.error(instr, "the kernel is not an array"))?;
        for (k, window) in window_dims.iter().enumerate() {
            let size = usize::try_from(dims.kernel_spatial[k])
                .ok()
                .and_then(|d| kernel_dims.get(d));
            if size != Some(&window.size) {
                return Err(self.error(
                    instr,
                    format!(
                        "window size {} of spatial dimension {k} is not the kernel's size there",
                        window.size
                    ),
                ));
            }
        }
        for (what, present) in [
            ("algorithm", convolution.algorithm.is_some()),
            ("convolution_kind", convolution.convolution_kind.is_some()),
            ("sparsity_config", convolution.sparsity_config.is_some()),
        ] {
            if present {
                self.warn(
                    instr,
                    format!("its {what} has no StableHLO form and is dropped"),
                );
            }
        }
        let mut attributes = window_attributes(
            window_dims,
            &[
                WindowField::Strides("window_strides"),
                WindowField::Padding,
                WindowField::BaseDilations("lhs_dilation"),
                WindowField::WindowDilations("rhs_dilation"),
                WindowField::Reversal,
            ],
            true,
        );
        attributes.push((
            "dimension_numbers",
            Attribute::Opaque(format!(
                "#stablehlo.conv<{}>",
                self.convolution_dimensions(instr, dims)?
            )),
        ));
        attributes.push(("feature_group_count", i64(convolution.feature_group_count)));
        attributes.push(("batch_group_count", i64(convolution.batch_group_count)));
        if !convolution
            .precision
            .iter()
            .all(|p| *p == Precision::Default)
        {
            attributes.push((
                "precision_config",
                self.precision_config(instr, &convolution.precision)?,
            ));
        }
        self.one_op(block, instr, OpKind::Convolution, attributes)
    }

    /// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`: each operand's dimensions
    /// by position, `?` for a position HLO gives no role.
    fn convolution_dimensions(&self, instr: Instr, dims: &ConvolutionDims) -> ExportResult<String> {
        let operands = &self.module.instr(instr).operands;
        let rank_of = |instr: Option<&Instr>| {
            instr
                .and_then(|&i| self.module.shapes.as_array(self.module.shape_of(i)))
                .map_or(0, |array| array.dims.len())
        };
        let ranks = [
            rank_of(operands.first()),
            rank_of(operands.get(1)),
            rank_of(Some(&instr)),
        ];
        let layouts = [
            (
                ranks[0],
                [(dims.input_batch, "b"), (dims.input_feature, "f")],
                &dims.input_spatial,
            ),
            (
                ranks[1],
                [
                    (dims.kernel_input_feature, "i"),
                    (dims.kernel_output_feature, "o"),
                ],
                &dims.kernel_spatial,
            ),
            (
                ranks[2],
                [(dims.output_batch, "b"), (dims.output_feature, "f")],
                &dims.output_spatial,
            ),
        ];
        let mut texts = Vec::new();
        for (rank, roles, spatial) in layouts {
            let mut slots: Vec<Option<String>> = vec![None; rank];
            let named = roles
                .iter()
                .map(|&(position, letter)| (position, letter.to_string()))
                .chain(
                    spatial
                        .iter()
                        .enumerate()
                        .map(|(index, &position)| (position, index.to_string())),
                );
            for (position, label) in named {
                let slot = usize::try_from(position)
                    .ok()
                    .and_then(|p| slots.get_mut(p))
                    .filter(|slot| slot.is_none())
                    .ok_or_else(|| {
                        self.error(
                            instr,
                            format!(
                                "convolution dimension '{label}' at position {position} is out of range or taken twice"
                            ),
                        )
                    })?;
                *slot = Some(label);
            }
            let labels: Vec<&str> = slots
                .iter()
                .map(|slot| slot.as_deref().unwrap_or("?"))
                .collect();
            texts.push(format!("[{}]", labels.join(", ")));
        }
        Ok(format!("{}x{}->{}", texts[0], texts[1], texts[2]))
    }

    /// `chlo.ragged_dot`, the op JAX writes for a grouped matrix product.
    fn ragged_dot(&mut self, block: Block, instr: Instr, dot: &DotAttrs) -> ExportResult<Val> {
        if dot.algorithm.is_some() {
            return Err(self.error(instr, "a ragged dot with an algorithm has no CHLO form"));
        }
        let fields = structured_fields(&[
            ("lhs_batching_dimensions", &dot.lhs_batch),
            ("rhs_batching_dimensions", &dot.rhs_batch),
            ("lhs_contracting_dimensions", &dot.lhs_contracting),
            ("rhs_contracting_dimensions", &dot.rhs_contracting),
            ("lhs_ragged_dimensions", &dot.lhs_ragged),
            ("rhs_group_dimensions", &dot.rhs_group),
        ]);
        let fields = fields.trim_end_matches(", ");
        let mut attributes = vec![(
            "ragged_dot_dimension_numbers",
            Attribute::Opaque(format!("#chlo.ragged_dot<{fields}>")),
        )];
        if !dot.precision.iter().all(|p| *p == Precision::Default) {
            attributes.push((
                "precision_config",
                self.precision_config(instr, &dot.precision)?,
            ));
        }
        self.one_op(block, instr, OpKind::ChloRaggedDot, attributes)
    }

    fn sort(
        &mut self,
        block: Block,
        instr: Instr,
        dimension: i64,
        is_stable: bool,
    ) -> ExportResult<Val> {
        let mut attributes = vec![("dimension", i64(dimension))];
        attributes.push(("is_stable", Attribute::Bool(is_stable)));
        self.op_with_regions(block, instr, OpKind::Sort, attributes, 1)
    }

    /// `stablehlo.reduce_window` of N inputs and N initial values.
    fn reduce_window(
        &mut self,
        block: Block,
        instr: Instr,
        window: Option<&Window>,
    ) -> ExportResult<Val> {
        let dims: &[WindowDim] = window.map_or(&[], |w| &w.dims);
        if dims.iter().any(|d| d.reversal) {
            return Err(self.error(
                instr,
                "StableHLO's reduce_window has no window reversal (rhs_reversal)",
            ));
        }
        let attributes = window_attributes(
            dims,
            &[
                WindowField::Sizes,
                WindowField::Strides("window_strides"),
                WindowField::BaseDilations("base_dilations"),
                WindowField::WindowDilations("window_dilations"),
                WindowField::Padding,
            ],
            false,
        );
        self.op_with_regions(block, instr, OpKind::ReduceWindow, attributes, 1)
    }

    /// `stablehlo.select_and_scatter` with its select and scatter
    /// computations as its two regions, in that order.
    fn select_and_scatter(
        &mut self,
        block: Block,
        instr: Instr,
        window: Option<&Window>,
    ) -> ExportResult<Val> {
        let dims: &[WindowDim] = window.map_or(&[], |w| &w.dims);
        if dims
            .iter()
            .any(|d| d.base_dilation != 1 || d.window_dilation != 1 || d.reversal)
        {
            return Err(self.error(
                instr,
                "StableHLO's select_and_scatter has no dilated or reversed windows",
            ));
        }
        let attributes = window_attributes(
            dims,
            &[
                WindowField::Sizes,
                WindowField::Strides("window_strides"),
                WindowField::Padding,
            ],
            false,
        );
        self.op_with_regions(block, instr, OpKind::SelectAndScatter, attributes, 2)
    }

    fn map(&mut self, block: Block, instr: Instr, dimensions: &[i64]) -> ExportResult<Val> {
        // HLO may leave `dimensions` out; it then means every dimension,
        // which StableHLO's map requires spelled out.
        let dimensions = if dimensions.is_empty() {
            let rank = self
                .module
                .shapes
                .as_array(self.module.shape_of(instr))
                .map_or(0, |array| array.dims.len());
            (0..rank as i64).collect()
        } else {
            dimensions.to_vec()
        };
        let attributes = vec![("dimensions", array_i64(&dimensions))];
        self.op_with_regions(block, instr, OpKind::Map, attributes, 1)
    }

    /// `stablehlo.rng_bit_generator` returns the new state and the bits. An
    /// instruction of array shape (the bits alone, an older XLA form) still
    /// gets both results; its value is the bits.
    fn rng_bit_generator(
        &mut self,
        block: Block,
        instr: Instr,
        algorithm: RngAlgorithm,
    ) -> ExportResult<Val> {
        let word = match algorithm {
            RngAlgorithm::Default => "DEFAULT",
            RngAlgorithm::ThreeFry => "THREE_FRY",
            RngAlgorithm::Philox => "PHILOX",
        };
        let attributes = vec![("rng_algorithm", attributes::keyword("rng_algorithm", word))];
        let shape = self.module.shape_of(instr);
        if self.module.shapes.is_tuple(shape) {
            return self.one_op(block, instr, OpKind::RngBitGenerator, attributes);
        }
        let state = self.operand(block, instr, 0)?;
        let results = vec![self.body.ty(state).clone(), self.ty(instr, shape)?];
        let name = self.module.instr(instr).name.clone();
        let op = self.emit(
            block,
            OpKind::RngBitGenerator,
            vec![state],
            results,
            attributes,
            Some(&name),
        );
        Ok(Val::One(self.body.ops[op].results[1]))
    }

    /// `stablehlo.rng(a, b, shape)`: HLO's result shape becomes the constant
    /// `shape` operand.
    fn rng(&mut self, block: Block, instr: Instr, distribution: Distribution) -> ExportResult<Val> {
        let word = match distribution {
            Distribution::Uniform => "UNIFORM",
            Distribution::Normal => "NORMAL",
        };
        let mut operands = self.operands(block, instr)?;
        let shape = self.module.shape_of(instr);
        let dims = self
            .module
            .shapes
            .as_array(shape)
            .map(|array| array.dims.to_vec())
            .ok_or_else(|| self.error(instr, "rng of a non-array shape"))?;
        let count = [dims.len() as i64];
        let mut array = ArrayLiteral::zeros(ElementType::S64, &count);
        for (index, &size) in dims.iter().enumerate() {
            array.set_int(index, i128::from(size));
        }
        let shape_type = Type::tensor(&count, ElementKind::int(64));
        let value = Attribute::DenseElements(Box::new(DenseElements {
            ty: shape_type.clone(),
            values: DenseValues::Array(array),
        }));
        let name = self.module.instr(instr).name.clone();
        let constant = self.emit(
            block,
            OpKind::Constant,
            Vec::new(),
            vec![shape_type],
            vec![("value", value)],
            Some(&name),
        );
        operands.push(self.body.ops[constant].results[0]);
        let result = self.ty(instr, shape)?;
        let attributes = vec![(
            "rng_distribution",
            attributes::keyword("rng_distribution", word),
        )];
        let op = self.emit(
            block,
            OpKind::Rng,
            operands,
            vec![result],
            attributes,
            Some(&name),
        );
        Ok(Val::One(self.body.ops[op].results[0]))
    }

    fn triangular_solve(
        &mut self,
        block: Block,
        instr: Instr,
        options: &TriangularSolveAttrs,
    ) -> ExportResult<Val> {
        let transpose = &*options.transpose_a;
        if !matches!(transpose, "NO_TRANSPOSE" | "TRANSPOSE" | "ADJOINT") {
            return Err(self.error(
                instr,
                format!(
                    "unknown transpose_a '{transpose}' (expected NO_TRANSPOSE, TRANSPOSE or ADJOINT)"
                ),
            ));
        }
        let attributes = vec![
            ("left_side", Attribute::Bool(options.left_side)),
            ("lower", Attribute::Bool(options.lower)),
            ("unit_diagonal", Attribute::Bool(options.unit_diagonal)),
            ("transpose_a", attributes::keyword("transpose", transpose)),
        ];
        self.one_op(block, instr, OpKind::TriangularSolve, attributes)
    }
}

/// `name = true` when `value` is set; a `false` flag is StableHLO's default
/// and is left out.
fn flag(name: &'static str, value: bool) -> Option<NamedValue> {
    value.then_some((name, Attribute::Bool(true)))
}

/// `name = [a, b], ` for each non-empty list, in the order given: the body of
/// a `#stablehlo.gather<…>`-style attribute before its last field.
fn structured_fields(fields: &[(&str, &Vec<i64>)]) -> String {
    let mut text = String::new();
    for (name, values) in fields {
        if !values.is_empty() {
            text.push_str(&format!("{name} = {}, ", attributes::list(values)));
        }
    }
    text
}

/// One window attribute of `reduce_window`, `select_and_scatter` or
/// `convolution`, each op naming its own (`lhs_dilation` on a convolution is
/// `base_dilations` on a reduce_window).
#[derive(Clone, Copy)]
enum WindowField {
    /// `window_dimensions`, always written (StableHLO requires it).
    Sizes,
    /// Strides, default 1.
    Strides(&'static str),
    /// `padding` as `[low, high]` rows, default 0.
    Padding,
    /// Base (input) dilations, default 1.
    BaseDilations(&'static str),
    /// Window (kernel) dilations, default 1.
    WindowDilations(&'static str),
    /// `window_reversal` as `array<i1: …>`, default no reversal.
    Reversal,
}

/// The attributes `fields` give for the window `dims`: every field when
/// `in_full`, else each optional one only when [`optional_window_field`]
/// keeps it.
fn window_attributes(dims: &[WindowDim], fields: &[WindowField], in_full: bool) -> Vec<NamedValue> {
    let optional_window_field =
        |values: &[i64], default: i64| in_full || optional_window_field(values, default);
    let pick = |f: fn(&WindowDim) -> i64| -> Vec<i64> { dims.iter().map(f).collect() };
    let mut out = Vec::new();
    for &field in fields {
        match field {
            WindowField::Sizes => out.push(("window_dimensions", array_i64(&pick(|d| d.size)))),
            WindowField::Strides(name) => {
                let values = pick(|d| d.stride);
                if optional_window_field(&values, 1) {
                    out.push((name, array_i64(&values)));
                }
            }
            WindowField::Padding => {
                let rows: Vec<Vec<i64>> = dims
                    .iter()
                    .map(|d| vec![d.padding_low, d.padding_high])
                    .collect();
                if optional_window_field(&rows.concat(), 0) {
                    out.push(("padding", attributes::dense_i64_matrix(&rows)));
                }
            }
            WindowField::BaseDilations(name) => {
                let values = pick(|d| d.base_dilation);
                if optional_window_field(&values, 1) {
                    out.push((name, array_i64(&values)));
                }
            }
            WindowField::WindowDilations(name) => {
                let values = pick(|d| d.window_dilation);
                if optional_window_field(&values, 1) {
                    out.push((name, array_i64(&values)));
                }
            }
            WindowField::Reversal => {
                let values = pick(|d| i64::from(d.reversal));
                if optional_window_field(&values, 0) {
                    out.push((
                        "window_reversal",
                        Attribute::DenseArray(DenseArray {
                            element: ElementKind::int(1),
                            values: DenseArrayValues::Integers(values),
                        }),
                    ));
                }
            }
        }
    }
    out
}

/// Whether an optional window field with `values` is written: only when some
/// dimension differs from the field's `default`, so an all-default field is
/// left to StableHLO's default as MLIR omits it.
fn optional_window_field(values: &[i64], default: i64) -> bool {
    values.iter().any(|&v| v != default)
}

#[cfg(test)]
mod tests {
    use weft_ir::attrs::Attrs;
    use weft_ir::{Module, Opcode};

    /// Exports `hlo`, prints it, parses and verifies the text, lowers it back
    /// and verifies the HLO; returns the printed StableHLO and the lowered
    /// module.
    fn round_trip(hlo: &str) -> (String, Module, Module) {
        let module =
            weft_ir::text::parse(hlo).unwrap_or_else(|d| panic!("{}", d.render("hlo", hlo)));
        if let Err(errors) = weft_ir::verify(&module) {
            let list: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
            panic!("the test's own HLO does not verify:\n{}", list.join("\n"));
        }
        let exported = crate::export::export(&module).unwrap_or_else(|m| panic!("{m}"));
        let printed = crate::text::print(&exported.body, &Default::default());
        let body = crate::text::parse(&printed)
            .unwrap_or_else(|d| panic!("{}", d.render("exported", &printed)));
        if let Err(errors) = crate::verify(&body) {
            let rendered: String = errors
                .iter()
                .map(|e| e.to_diagnostic(&body).render("exported", &printed))
                .collect();
            panic!("{rendered}\n{printed}");
        }
        let lowered = crate::lower::lower(&body)
            .unwrap_or_else(|d| panic!("{}\n{printed}", d.render("exported", &printed)));
        if let Err(errors) = weft_ir::verify(&lowered) {
            let list: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
            panic!(
                "lowered back, the module does not verify:\n{}\n{printed}",
                list.join("\n")
            );
        }
        (printed, module, lowered)
    }

    /// The attributes of the only instruction of `opcode` in `module`.
    fn attrs_of(module: &Module, opcode: Opcode) -> Attrs {
        let found: Vec<_> = module
            .all_instrs()
            .filter(|&i| module.instr(i).opcode == opcode)
            .collect();
        assert_eq!(found.len(), 1, "one {} expected", opcode.name());
        module.instr(found[0]).attrs.clone()
    }

    /// Each opcode's only instruction has the same attributes in `original`
    /// and, exported and lowered back, in `lowered`.
    fn assert_attributes_survive(original: &Module, lowered: &Module, opcodes: &[Opcode]) {
        for &opcode in opcodes {
            assert_eq!(
                attrs_of(lowered, opcode),
                attrs_of(original, opcode),
                "{}",
                opcode.name()
            );
        }
    }

    /// The error the export gives for `hlo`.
    fn export_error(hlo: &str) -> String {
        let module =
            weft_ir::text::parse(hlo).unwrap_or_else(|d| panic!("{}", d.render("hlo", hlo)));
        match crate::export::export(&module) {
            Ok(_) => panic!("the export accepted:\n{hlo}"),
            Err(message) => message.to_string(),
        }
    }

    #[test]
    fn gather_keeps_its_dimension_numbers() {
        let hlo = r#"
HloModule m
ENTRY main {
  table = f32[10,4] parameter(0)
  indices = s32[10,1,1] parameter(1)
  ROOT gather = f32[10,1] gather(table, indices), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}, indices_are_sorted=true
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains("dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = true, slice_sizes = array<i64: 1, 1>"),
            "{printed}"
        );
        assert_attributes_survive(&original, &lowered, &[Opcode::Gather]);
    }

    #[test]
    fn unsorted_gather_writes_the_flag_as_false() {
        let hlo = r#"
HloModule m
ENTRY main {
  table = f32[10,4] parameter(0)
  indices = s32[6,1] parameter(1)
  ROOT gather = f32[6,4] gather(table, indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains("#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>"),
            "{printed}"
        );
        // XLA's importer writes the flag even when it is false.
        assert!(printed.contains("indices_are_sorted = false"), "{printed}");
        assert_attributes_survive(&original, &lowered, &[Opcode::Gather]);
    }

    #[test]
    fn variadic_scatter_keeps_its_update_region() {
        let hlo = r#"
HloModule m
update {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  sum = f32[] add(a, c)
  maximum = s32[] maximum(b, d)
  ROOT both = (f32[], s32[]) tuple(sum, maximum)
}
ENTRY main {
  values = f32[10,4] parameter(0)
  counts = s32[10,4] parameter(1)
  indices = s32[6,1] parameter(2)
  value_updates = f32[6,4] parameter(3)
  count_updates = s32[6,4] parameter(4)
  ROOT scatter = (f32[10,4], s32[10,4]) scatter(values, counts, indices, value_updates, count_updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=update
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains("scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true"),
            "{printed}"
        );
        assert!(printed.contains("indices_are_sorted = false"), "{printed}");
        assert_attributes_survive(&original, &lowered, &[Opcode::Scatter]);
        let scatter = lowered
            .all_instrs()
            .find(|&i| lowered.instr(i).opcode == Opcode::Scatter)
            .expect("a scatter");
        let update = lowered.instr(scatter).callees[0];
        assert_eq!(lowered.comp(update).params().len(), 4);
    }

    #[test]
    fn convolution_writes_the_parser_form_and_comes_back() {
        let hlo = r#"
HloModule m
ENTRY main {
  input = f32[1,5,5,2] parameter(0)
  kernel = f32[3,3,2,4] parameter(1)
  ROOT convolution = f32[1,3,7,4] convolution(input, kernel), window={size=3x3 stride=2x1 pad=1_1x0_0 lhs_dilate=1x2 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, operand_precision={highest,default}
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains("dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [0, 0]], lhs_dilate = [1, 2], rhs_dilate = [1, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>]}"),
            "{printed}"
        );
        assert_attributes_survive(&original, &lowered, &[Opcode::Convolution]);
    }

    #[test]
    fn grouped_convolution_writes_its_window_in_full() {
        let hlo = r#"
HloModule m
ENTRY main {
  input = f32[2,4,12] parameter(0)
  kernel = f32[6,2,3] parameter(1)
  ROOT convolution = f32[2,6,12] convolution(input, kernel), window={size=3 pad=2_2 rhs_dilate=2}, dim_labels=bf0_oi0->bf0, feature_group_count=2
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains("dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[2, 2]], lhs_dilate = [1], rhs_dilate = [2], reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64}"),
            "{printed}"
        );
        assert_attributes_survive(&original, &lowered, &[Opcode::Convolution]);
    }

    #[test]
    fn convolution_window_that_disagrees_with_the_kernel_is_refused() {
        let hlo = r#"
HloModule m
ENTRY main {
  input = f32[2,4,12] parameter(0)
  kernel = f32[6,4,3] parameter(1)
  ROOT convolution = f32[2,6,10] convolution(input, kernel), window={size=5}, dim_labels=bf0_oi0->bf0
}
"#;
        let error = export_error(hlo);
        assert!(
            error.contains("window size 5 of spatial dimension 0 is not the kernel's size"),
            "{error}"
        );
    }

    #[test]
    fn sort_keeps_its_comparator() {
        let hlo = r#"
HloModule m
compare {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT less = pred[] compare(a, b), direction=LT
}
ENTRY main {
  keys = f32[3,8] parameter(0)
  values = s32[3,8] parameter(1)
  ROOT sort = (f32[3,8], s32[3,8]) sort(keys, values), dimensions={1}, is_stable=true, to_apply=compare
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains("dimension = 1 : i64, is_stable = true"),
            "{printed}"
        );
        assert_attributes_survive(&original, &lowered, &[Opcode::Sort]);
        let sort = lowered
            .all_instrs()
            .find(|&i| lowered.instr(i).opcode == Opcode::Sort)
            .expect("a sort");
        let comparator = lowered.instr(sort).callees[0];
        assert_eq!(lowered.comp(comparator).params().len(), 4);
    }

    #[test]
    fn reduce_window_keeps_its_window() {
        let hlo = r#"
HloModule m
maximum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT maximum = f32[] maximum(a, b)
}
ENTRY main {
  input = f32[4,9] parameter(0)
  init = f32[] constant(-inf)
  ROOT pooled = f32[4,5] reduce-window(input, init), window={size=1x3 stride=1x2 pad=0_0x1_1 rhs_dilate=1x1}, to_apply=maximum
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains("padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 2>"),
            "{printed}"
        );
        assert!(!printed.contains("base_dilations"), "{printed}");
        assert!(!printed.contains("window_dilations"), "{printed}");
        assert_attributes_survive(&original, &lowered, &[Opcode::ReduceWindow]);
    }

    #[test]
    fn select_and_scatter_keeps_both_regions() {
        let hlo = r#"
HloModule m
select {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT greater = pred[] compare(a, b), direction=GE
}
scatter {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT sum = f32[] add(a, b)
}
ENTRY main {
  input = f32[4,8] parameter(0)
  source = f32[4,4] parameter(1)
  zero = f32[] constant(0)
  ROOT result = f32[4,8] select-and-scatter(input, source, zero), window={size=1x2 stride=1x2}, select=select, scatter=scatter
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains(
                "window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>"
            ),
            "{printed}"
        );
        assert_attributes_survive(&original, &lowered, &[Opcode::SelectAndScatter]);
        let result = lowered
            .all_instrs()
            .find(|&i| lowered.instr(i).opcode == Opcode::SelectAndScatter)
            .expect("a select-and-scatter");
        let callees = &lowered.instr(result).callees;
        assert_eq!(callees.len(), 2);
        let select_root = lowered.comp(callees[0]).root().expect("a root");
        assert_eq!(lowered.instr(select_root).opcode, Opcode::Compare);
    }

    #[test]
    fn dilated_select_and_scatter_is_refused() {
        let hlo = r#"
HloModule m
select {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT greater = pred[] compare(a, b), direction=GE
}
scatter {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT sum = f32[] add(a, b)
}
ENTRY main {
  input = f32[4,8] parameter(0)
  source = f32[4,3] parameter(1)
  zero = f32[] constant(0)
  ROOT result = f32[4,8] select-and-scatter(input, source, zero), window={size=1x2 stride=1x2 rhs_dilate=1x2}, select=select, scatter=scatter
}
"#;
        let error = export_error(hlo);
        assert!(error.contains("no dilated or reversed windows"), "{error}");
    }

    #[test]
    fn random_numbers_precision_and_map() {
        let hlo = r#"
HloModule m
double {
  x = f32[] parameter(0)
  ROOT sum = f32[] add(x, x)
}
ENTRY main {
  state = u64[2] parameter(0)
  low = f32[] parameter(1)
  high = f32[] parameter(2)
  generated = (u64[2], u32[4,4]) rng-bit-generator(state), algorithm=rng_three_fry
  bits = u32[4,4] get-tuple-element(generated), index=1
  uniform = f32[4,4] rng(low, high), distribution=rng_uniform
  reduced = f32[4,4] reduce-precision(uniform), exponent_bits=5, mantissa_bits=10
  doubled = f32[4,4] map(reduced), dimensions={0,1}, to_apply=double
  ROOT result = (u32[4,4], f32[4,4]) tuple(bits, doubled)
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(printed.contains("algorithm = THREE_FRY"), "{printed}");
        assert!(printed.contains("format = e5m10"), "{printed}");
        assert!(printed.contains("distribution = UNIFORM"), "{printed}");
        assert!(printed.contains("\"stablehlo.map\""), "{printed}");
        assert_attributes_survive(
            &original,
            &lowered,
            &[
                Opcode::RngBitGenerator,
                Opcode::Rng,
                Opcode::ReducePrecision,
                Opcode::Map,
            ],
        );
    }

    #[test]
    fn linear_algebra_and_batch_norm() {
        let hlo = r#"
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  b = f32[4,3] parameter(1)
  signal = c64[8] parameter(2)
  x = f32[2,3,5] parameter(3)
  scale = f32[3] parameter(4)
  offset = f32[3] parameter(5)
  factor = f32[4,4] cholesky(a), lower=true
  solved = f32[4,3] triangular-solve(factor, b), left_side=true, lower=true, transpose_a=TRANSPOSE
  spectrum = c64[8] fft(signal), fft_type=FFT, fft_length={8}
  normalized = (f32[2,3,5], f32[3], f32[3]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=1
  output = f32[2,3,5] get-tuple-element(normalized), index=0
  size = s32[] get-dimension-size(x), dimensions={2}
  ROOT result = (f32[4,3], c64[8], f32[2,3,5], s32[]) tuple(solved, spectrum, output, size)
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains("stablehlo.cholesky %arg0, lower = true"),
            "{printed}"
        );
        assert!(
            printed.contains("transpose_a = #stablehlo<transpose TRANSPOSE>"),
            "{printed}"
        );
        assert_attributes_survive(
            &original,
            &lowered,
            &[
                Opcode::Cholesky,
                Opcode::TriangularSolve,
                Opcode::Fft,
                Opcode::BatchNormTraining,
                Opcode::GetDimensionSize,
            ],
        );
    }

    #[test]
    fn top_k_and_ragged_dot() {
        let hlo = r#"
HloModule m
ENTRY main {
  x = f32[4,16] parameter(0)
  lhs = f32[8,5] parameter(1)
  rhs = f32[3,5,6] parameter(2)
  sizes = s32[3] parameter(3)
  top = (f32[4,2], s32[4,2]) topk(x), k=2, largest=false
  product = f32[8,6] ragged-dot(lhs, rhs, sizes), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  ROOT result = ((f32[4,2], s32[4,2]), f32[8,6]) tuple(top, product)
}
"#;
        let (printed, original, lowered) = round_trip(hlo);
        assert!(
            printed.contains("chlo.top_k(%arg0, k = 2) {largest = false}"),
            "{printed}"
        );
        assert!(
            printed.contains("#chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>"),
            "{printed}"
        );
        assert_attributes_survive(&original, &lowered, &[Opcode::RaggedDot, Opcode::TopK]);
    }

    #[test]
    fn unknown_transpose_is_refused() {
        let hlo = r#"
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  b = f32[4,3] parameter(1)
  ROOT solved = f32[4,3] triangular-solve(a, b), left_side=true, lower=true, transpose_a=SIDEWAYS
}
"#;
        let module = match weft_ir::text::parse(hlo) {
            Ok(module) => module,
            // The HLO parser may already reject the word; then there is
            // nothing for the export to refuse.
            Err(_) => return,
        };
        let error = crate::export::export(&module)
            .expect_err("an error")
            .to_string();
        assert!(error.contains("unknown transpose_a 'SIDEWAYS'"), "{error}");
    }
}

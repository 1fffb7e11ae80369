//! One HLO instruction at a time: the StableHLO op (or ops) that compute the
//! same value, as XLA's importer chooses them.

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::attrs::{Attrs, CollectiveAttrs};
use weft_ir::literal::Literal;
use weft_ir::{Comp, Instr, Opcode};

use super::attributes::{self, array_i64, i64};
use super::{ExportResult, Exporter, Val};
use crate::dot_algorithm::DotAlgorithm;
use crate::ir::attribute::{DenseElements, DenseValues};
use crate::ir::{Attribute, Block, ElementKind, Op, Type, Value};
use crate::ops::{ONE_TO_ONE, OpKind};

/// Ops StableHLO's `async_start` may hold, by the HLO opcode they come from.
const ASYNC_WRAPPABLE: &[Opcode] = &[
    Opcode::AllGather,
    Opcode::AllReduce,
    Opcode::AllToAll,
    Opcode::CollectiveBroadcast,
    Opcode::CollectivePermute,
    Opcode::ReduceScatter,
    Opcode::Slice,
    Opcode::DynamicSlice,
    Opcode::DynamicUpdateSlice,
];

impl Exporter<'_> {
    /// Exports `instr` into `block` and records its value.
    pub(crate) fn instruction(&mut self, block: Block, instr: Instr) -> ExportResult<()> {
        let outer = self.exporting.replace(instr);
        let val = self.instruction_value(block, instr);
        self.exporting = outer;
        self.values.insert(instr, val?);
        Ok(())
    }

    fn instruction_value(&mut self, block: Block, instr: Instr) -> ExportResult<Val> {
        let module = self.module;
        let data = module.instr(instr);
        let name = data.name.clone();
        let shape = data.shape;
        // A tuple is tracked by element (see `Val`), not built.
        let one_to_one = ONE_TO_ONE
            .iter()
            .find(|&&(_, o)| o == data.opcode && o != Opcode::Tuple);
        if let Some(&(kind, _)) = one_to_one {
            let operands = self.operands(block, instr)?;
            let result = self.ty(instr, shape)?;
            return Ok(self.single(block, kind, operands, result, Vec::new(), &name));
        }
        use Opcode as O;
        match (&data.opcode, &data.attrs) {
            (O::Constant, Attrs::Constant(literal)) => self.constant(block, instr, literal, &name),
            (O::GetTupleElement, Attrs::GetTupleElement { index }) => {
                let operand = self.val(data.operands[0])?;
                self.element(block, instr, &operand, *index as usize)
            }
            (O::Tuple, _) => Ok(Val::Tuple(
                data.operands
                    .iter()
                    .map(|&o| self.val(o))
                    .collect::<ExportResult<_>>()?,
            )),
            (
                O::Compare,
                Attrs::Compare {
                    direction,
                    compare_type,
                },
            ) => {
                let operands = self.operands(block, instr)?;
                let result = self.ty(instr, shape)?;
                let compare_type = compare_type.unwrap_or_else(|| {
                    weft_ir::attrs::CompareType::default_for(
                        self.element_of(instr, module.shape_of(data.operands[0]))
                            .unwrap_or(weft_ir::ElementType::F32),
                    )
                });
                let attributes = vec![
                    (
                        "comparison_direction",
                        attributes::keyword("comparison_direction", direction.name()),
                    ),
                    (
                        "compare_type",
                        attributes::keyword("comparison_type", compare_type.name()),
                    ),
                ];
                Ok(self.single(block, OpKind::Compare, operands, result, attributes, &name))
            }
            (O::Iota, Attrs::Iota { dimension }) => {
                let result = self.ty(instr, shape)?;
                let attributes = vec![("iota_dimension", i64(*dimension))];
                Ok(self.single(block, OpKind::Iota, Vec::new(), result, attributes, &name))
            }
            (O::Broadcast, Attrs::Dimensions { dimensions }) => self.with_ints(
                block,
                instr,
                OpKind::BroadcastInDim,
                "broadcast_dimensions",
                dimensions,
            ),
            (O::Transpose, Attrs::Dimensions { dimensions }) => {
                self.with_ints(block, instr, OpKind::Transpose, "permutation", dimensions)
            }
            (O::Reverse, Attrs::Dimensions { dimensions }) => {
                self.with_ints(block, instr, OpKind::Reverse, "dimensions", dimensions)
            }
            (O::Concatenate, Attrs::Dimensions { dimensions }) => {
                let operands = self.operands(block, instr)?;
                let result = self.ty(instr, shape)?;
                let dimension = *dimensions
                    .first()
                    .ok_or_else(|| self.error(instr, "concatenate without a dimension"))?;
                let attributes = vec![("dimension", i64(dimension))];
                Ok(self.single(
                    block,
                    OpKind::Concatenate,
                    operands,
                    result,
                    attributes,
                    &name,
                ))
            }
            (O::Slice, Attrs::Slice(ranges)) => {
                let operands = self.operands(block, instr)?;
                let result = self.ty(instr, shape)?;
                let pick = |f: fn(&weft_ir::attrs::SliceRange) -> i64| -> Vec<i64> {
                    ranges.iter().map(f).collect()
                };
                let attributes = vec![
                    ("start_indices", array_i64(&pick(|r| r.start))),
                    ("limit_indices", array_i64(&pick(|r| r.limit))),
                    ("strides", array_i64(&pick(|r| r.stride))),
                ];
                Ok(self.single(block, OpKind::Slice, operands, result, attributes, &name))
            }
            (O::DynamicSlice, Attrs::DynamicSlice { sizes }) => {
                self.with_ints(block, instr, OpKind::DynamicSlice, "slice_sizes", sizes)
            }
            (O::Pad, Attrs::Pad(config)) => {
                let operands = self.operands(block, instr)?;
                let result = self.ty(instr, shape)?;
                let pick = |f: fn(&weft_ir::attrs::PaddingDim) -> i64| -> Vec<i64> {
                    config.dims.iter().map(f).collect()
                };
                let attributes = vec![
                    ("edge_padding_low", array_i64(&pick(|d| d.low))),
                    ("edge_padding_high", array_i64(&pick(|d| d.high))),
                    ("interior_padding", array_i64(&pick(|d| d.interior))),
                ];
                Ok(self.single(block, OpKind::Pad, operands, result, attributes, &name))
            }
            (O::Dot, Attrs::Dot(dot)) => {
                let operands = self.operands(block, instr)?;
                let result = self.ty(instr, shape)?;
                let mut fields = Vec::new();
                for (field, values) in [
                    ("lhs_batching_dimensions", &dot.lhs_batch),
                    ("rhs_batching_dimensions", &dot.rhs_batch),
                    ("lhs_contracting_dimensions", &dot.lhs_contracting),
                    ("rhs_contracting_dimensions", &dot.rhs_contracting),
                ] {
                    if !values.is_empty() {
                        fields.push(format!("{field} = {}", attributes::list(values)));
                    }
                }
                let mut attributes = vec![(
                    "dot_dimension_numbers",
                    Attribute::Opaque(format!("#stablehlo.dot<{}>", fields.join(", "))),
                )];
                if !dot.precision.is_empty() {
                    attributes.push((
                        "precision_config",
                        self.precision_config(instr, &dot.precision)?,
                    ));
                }
                if let Some(name) = &dot.algorithm {
                    let element = |i: usize| {
                        let operand = self.module.instr(instr).operands[i];
                        self.module
                            .shapes
                            .as_array(self.module.shape_of(operand))
                            .and_then(|a| super::types::element_kind(a.elem))
                            .map(|kind| {
                                let mut name = String::new();
                                crate::text::types::print_type(&mut name, &Type::Element(kind));
                                name
                            })
                            .unwrap_or_default()
                    };
                    let algorithm = DotAlgorithm::from_hlo_name(name, &element(0), &element(1))
                        .ok_or_else(|| {
                            self.error(instr, format!("unknown dot algorithm {name}"))
                        })?;
                    attributes.push(("algorithm", Attribute::Opaque(algorithm.to_text())));
                }
                Ok(self.single(
                    block,
                    OpKind::DotGeneral,
                    operands,
                    result,
                    attributes,
                    &name,
                ))
            }
            (O::Reduce, Attrs::Dimensions { dimensions }) => {
                let operands = self.operands(block, instr)?;
                let results = self.flat_types(instr, shape)?;
                let op = self.emit(
                    block,
                    OpKind::Reduce,
                    operands,
                    results,
                    vec![("dimensions", array_i64(dimensions))],
                    Some(&name),
                );
                self.called_region(instr, op, self.callee(instr, 0)?, true)?;
                Ok(self.results_val(op, shape))
            }
            (
                O::Gather
                | O::Scatter
                | O::Convolution
                | O::RaggedDot
                | O::Sort
                | O::ReduceWindow
                | O::SelectAndScatter
                | O::Map
                | O::RngBitGenerator
                | O::Rng
                | O::ReducePrecision
                | O::Fft
                | O::Cholesky
                | O::TriangularSolve
                | O::BatchNormGrad
                | O::BatchNormInference
                | O::BatchNormTraining
                | O::TopK
                | O::GetDimensionSize,
                _,
            ) => self.linalg_instruction(block, instr),
            (O::Bitcast, _) => self.bitcast(block, instr, &name),
            (O::While, _) => self.while_loop(block, instr, &name),
            (O::Conditional, _) => self.conditional(block, instr, &name),
            (O::Call, _) | (O::Fusion, _) => {
                let callee = self.callee(instr, 0)?;
                let symbol = self.function_symbol(callee);
                let operands = self.operands(block, instr)?;
                let results = self.flat_types(instr, shape)?;
                let op = self.emit(
                    block,
                    OpKind::Call,
                    operands,
                    results,
                    vec![("callee", Attribute::SymbolRef(vec![symbol]))],
                    Some(&name),
                );
                Ok(self.results_val(op, shape))
            }
            (O::OptimizationBarrier, _) => {
                let operand = self.val(data.operands[0])?;
                let values = self.flatten(block, data.operands[0], &operand)?;
                let types = values.iter().map(|&v| self.body.ty(v).clone()).collect();
                let op = self.emit(
                    block,
                    OpKind::OptimizationBarrier,
                    values,
                    types,
                    Vec::new(),
                    Some(&name),
                );
                Ok(self.results_val(op, shape))
            }
            (O::CustomCall, Attrs::CustomCall(call)) => {
                let operands = self.operands(block, instr)?;
                let results = self.flat_types(instr, shape)?;
                let mut attributes =
                    vec![("call_target_name", Attribute::String(call.target.clone()))];
                if call.has_side_effect {
                    attributes.push(("has_side_effect", Attribute::Bool(true)));
                }
                if let Some(config) = &data.common().backend_config {
                    attributes.push(("backend_config", Attribute::String(config.0.clone())));
                }
                if let Some(version) = call.api_version.as_deref().and_then(api_version) {
                    attributes.push(("api_version", attributes::i32(version)));
                }
                if !data.callees.is_empty() {
                    let callees = data.callees.clone();
                    let symbols = callees
                        .into_iter()
                        .map(|c| Attribute::SymbolRef(vec![self.function_symbol(c)]))
                        .collect();
                    attributes.push(("called_computations", Attribute::Array(symbols)));
                }
                let op = self.emit(
                    block,
                    OpKind::CustomCall,
                    operands,
                    results,
                    attributes,
                    Some(&name),
                );
                Ok(self.results_val(op, shape))
            }
            (
                O::AllReduce
                | O::AllGather
                | O::ReduceScatter
                | O::AllToAll
                | O::CollectiveBroadcast
                | O::CollectivePermute,
                _,
            ) => {
                let operands = self.operands(block, instr)?;
                if data.opcode == O::CollectivePermute && operands.len() > 1 {
                    return self.combined_permute(block, instr, operands, &name);
                }
                let op = self.collective(block, instr, data.opcode, operands, &name)?;
                Ok(self.results_val(op, shape))
            }
            (O::AllReduceStart | O::AllGatherStart | O::CollectivePermuteStart, _) => {
                self.first_class_start(block, instr, &name)
            }
            (O::AllReduceDone | O::AllGatherDone | O::CollectivePermuteDone | O::AsyncDone, _) => {
                self.async_done(block, instr, &name)
            }
            (O::AsyncStart, _) => self.async_start(block, instr, &name),
            (O::AsyncUpdate, _) => self.val(data.operands[0]),
            (O::CopyStart, _) => {
                // StableHLO has no asynchronous copy; the copy happens at the
                // start and the done hands its value on.
                self.warn(
                    instr,
                    "copy-start has no StableHLO form; exported as a synchronous copy",
                );
                let operand = self.operand(block, instr, 0)?;
                let ty = self.body.ty(operand).clone();
                let copied = self.single(
                    block,
                    OpKind::MhloCopy,
                    vec![operand],
                    ty,
                    Vec::new(),
                    &name,
                );
                let source = self.val(data.operands[0])?;
                Ok(Val::Tuple(vec![copied, source]))
            }
            (O::CopyDone, _) => {
                let operand = self.val(data.operands[0])?;
                self.element(block, instr, &operand, 0)
            }
            _ => Err(self.error(
                instr,
                format!(
                    "exporting {} to StableHLO is not supported",
                    data.opcode.name()
                ),
            )),
        }
    }

    /// One op with one result, as the instruction's value.
    fn single(
        &mut self,
        block: Block,
        kind: OpKind,
        operands: Vec<Value>,
        result: Type,
        attributes: Vec<(&str, Attribute)>,
        name: &str,
    ) -> Val {
        let op = self.emit(block, kind, operands, vec![result], attributes, Some(name));
        Val::One(self.body.ops[op].results[0])
    }

    /// An op taking the instruction's operands with one `array<i64>` attribute.
    fn with_ints(
        &mut self,
        block: Block,
        instr: Instr,
        kind: OpKind,
        attribute: &str,
        values: &[i64],
    ) -> ExportResult<Val> {
        let operands = self.operands(block, instr)?;
        let result = self.ty(instr, self.module.shape_of(instr))?;
        let name = self.module.instr(instr).name.clone();
        Ok(self.single(
            block,
            kind,
            operands,
            result,
            vec![(attribute, array_i64(values))],
            &name,
        ))
    }

    pub(crate) fn callee(&self, instr: Instr, index: usize) -> ExportResult<Comp> {
        self.module
            .instr(instr)
            .callees
            .get(index)
            .copied()
            .ok_or_else(|| self.error(instr, format!("has no called computation {index}")))
    }

    fn constant(
        &mut self,
        block: Block,
        instr: Instr,
        literal: &Literal,
        name: &str,
    ) -> ExportResult<Val> {
        match literal {
            Literal::Array(array) => {
                let ty = self.ty(instr, self.module.shape_of(instr))?;
                let value = Attribute::DenseElements(Box::new(DenseElements {
                    ty: ty.clone(),
                    values: DenseValues::Array(array.clone()),
                }));
                Ok(self.single(
                    block,
                    OpKind::Constant,
                    Vec::new(),
                    ty,
                    vec![("value", value)],
                    name,
                ))
            }
            Literal::Tuple(elements) => {
                let shapes = self
                    .module
                    .shapes
                    .tuple_elements(self.module.shape_of(instr))
                    .map(<[weft_ir::Shape]>::to_vec)
                    .unwrap_or_default();
                let mut values = Vec::new();
                for (element, shape) in elements.iter().zip(shapes) {
                    let Literal::Array(array) = element else {
                        return Err(self.error(instr, "nested tuple constants are not supported"));
                    };
                    let ty = self.ty(instr, shape)?;
                    let value = Attribute::DenseElements(Box::new(DenseElements {
                        ty: ty.clone(),
                        values: DenseValues::Array(array.clone()),
                    }));
                    values.push(self.single(
                        block,
                        OpKind::Constant,
                        Vec::new(),
                        ty,
                        vec![("value", value)],
                        name,
                    ));
                }
                Ok(Val::Tuple(values))
            }
            Literal::Elided => Err(self.error(
                instr,
                "the constant's values were elided ({...}); there is nothing to export",
            )),
        }
    }

    /// A `bitcast` reinterprets its operand's buffer under the result's shape
    /// and layout: in logical terms, the operand read in its physical
    /// (major-to-minor) order, reshaped to the result's physical dimensions,
    /// then transposed into the result's logical order. With default layouts
    /// on both sides that is a plain reshape. A bitcast that also changes the
    /// element type (XLA's layout passes write one for a bitcast-convert of
    /// equal width) reads the physical elements through a
    /// `stablehlo.bitcast_convert` of the flattened value: of one width,
    /// element for element; into a narrower type, each element becomes a
    /// trailing group; from a narrower type, each trailing group one element.
    fn bitcast(&mut self, block: Block, instr: Instr, name: &str) -> ExportResult<Val> {
        let operand_instr = self.module.instr(instr).operands[0];
        let operand = self.operand(block, instr, 0)?;
        let (Some(from), Some(to)) = (
            self.module
                .shapes
                .as_array(self.module.shape_of(operand_instr))
                .cloned(),
            self.module
                .shapes
                .as_array(self.module.shape_of(instr))
                .cloned(),
        ) else {
            return Err(self.error(instr, "bitcast of a non-array"));
        };
        let (from_bits, to_bits) = (from.elem.bit_width(), to.elem.bit_width());
        if from.elem != to.elem && !(from_bits.is_multiple_of(8) && to_bits.is_multiple_of(8)) {
            return Err(self.error(
                instr,
                "a bitcast between element types narrower than a byte has no StableHLO form",
            ));
        }
        let major_to_minor = |array: &weft_ir::shape::ArrayShape| -> Vec<i64> {
            match &array.layout {
                Some(layout) if layout.minor_to_major.len() == array.dims.len() => {
                    layout.minor_to_major.iter().rev().copied().collect()
                }
                _ => (0..array.dims.len() as i64).collect(),
            }
        };
        let element = super::types::element_kind(to.elem)
            .ok_or_else(|| self.error(instr, "an element type StableHLO does not have"))?;
        let tensor = |dims: Vec<i64>| Type::tensor(&dims, element.clone());
        let mut value = operand;
        let from_order = major_to_minor(&from);
        if from_order.iter().enumerate().any(|(i, &d)| d != i as i64) {
            let dims = from_order.iter().map(|&d| from.dims[d as usize]).collect();
            let op = self.emit(
                block,
                OpKind::Transpose,
                vec![value],
                vec![tensor(dims)],
                vec![("permutation", array_i64(&from_order))],
                Some(name),
            );
            value = self.body.ops[op].results[0];
        }
        if from.elem != to.elem {
            value = self.bitcast_element_type(block, instr, value, &from, &to, name)?;
        }
        let to_order = major_to_minor(&to);
        let physical: Vec<i64> = to_order.iter().map(|&d| to.dims[d as usize]).collect();
        value = self.reshaped(block, value, &physical, element.clone(), name);
        if to_order.iter().enumerate().any(|(i, &d)| d != i as i64) {
            // Physical position p holds logical dimension to_order[p]; the
            // transpose back picks, for each logical dimension, its position.
            let mut inverse = vec![0i64; to_order.len()];
            for (position, &dimension) in to_order.iter().enumerate() {
                inverse[dimension as usize] = position as i64;
            }
            let op = self.emit(
                block,
                OpKind::Transpose,
                vec![value],
                vec![tensor(to.dims.to_vec())],
                vec![("permutation", array_i64(&inverse))],
                Some(name),
            );
            value = self.body.ops[op].results[0];
        }
        Ok(Val::One(value))
    }

    /// `value` reshaped to `dims` (of `element`), or `value` itself when it
    /// already has them.
    fn reshaped(
        &mut self,
        block: Block,
        value: Value,
        dims: &[i64],
        element: ElementKind,
        name: &str,
    ) -> Value {
        if self.body.ty(value).static_dims().as_deref() == Some(dims) {
            return value;
        }
        let op = self.emit(
            block,
            OpKind::Reshape,
            vec![value],
            vec![Type::tensor(dims, element)],
            Vec::new(),
            Some(name),
        );
        self.body.ops[op].results[0]
    }

    /// The physical elements of `value` (of `from`'s type, in `from`'s
    /// physical order) read again as `to`'s element type: a flat
    /// `tensor<N x to>` holding the same bytes.
    fn bitcast_element_type(
        &mut self,
        block: Block,
        instr: Instr,
        value: Value,
        from: &weft_ir::shape::ArrayShape,
        to: &weft_ir::shape::ArrayShape,
        name: &str,
    ) -> ExportResult<Value> {
        let kind = |elem| super::types::element_kind(elem);
        let (Some(from_kind), Some(to_kind)) = (kind(from.elem), kind(to.elem)) else {
            return Err(self.error(instr, "an element type StableHLO does not have"));
        };
        let (from_bits, to_bits) = (from.elem.bit_width(), to.elem.bit_width());
        let from_count: i64 = from.dims.iter().product();
        let to_count: i64 = to.dims.iter().product();
        // The flat operand, grouped when it is the narrower side.
        let grouped: Vec<i64> = if from_bits < to_bits {
            vec![to_count, i64::from(to_bits / from_bits)]
        } else {
            vec![from_count]
        };
        let flat = self.reshaped(block, value, &grouped, from_kind, name);
        let converted: Vec<i64> = if from_bits > to_bits {
            vec![from_count, i64::from(from_bits / to_bits)]
        } else {
            vec![to_count]
        };
        let op = self.emit(
            block,
            OpKind::BitcastConvert,
            vec![flat],
            vec![Type::tensor(&converted, to_kind)],
            Vec::new(),
            Some(name),
        );
        Ok(self.body.ops[op].results[0])
    }

    /// `stablehlo.while` carrying the tuple state as separate values.
    fn while_loop(&mut self, block: Block, instr: Instr, name: &str) -> ExportResult<Val> {
        let data = self.module.instr(instr);
        // XLA keeps a loop's body first, then its condition.
        let (body, condition) = (self.callee(instr, 0)?, self.callee(instr, 1)?);
        let init_instr = data.operands[0];
        let init = self.val(init_instr)?;
        let state_is_tuple = self
            .module
            .shapes
            .is_tuple(self.module.shape_of(init_instr));
        let carried = self.flatten(block, init_instr, &init)?;
        // The state's types come from the values themselves: a future carried
        // through the loop has no HLO shape of its own.
        let types: Vec<Type> = carried.iter().map(|&v| self.body.ty(v).clone()).collect();
        let op = self.emit(
            block,
            OpKind::While,
            carried,
            types.clone(),
            Vec::new(),
            Some(name),
        );
        let pack = |arguments: Vec<Value>| -> Val {
            if state_is_tuple {
                Val::Tuple(arguments.into_iter().map(Val::One).collect())
            } else {
                Val::One(arguments[0])
            }
        };
        let (cond_block, cond_arguments) = self.region_block(op, types.clone());
        let predicate =
            self.region_computation(condition, cond_block, vec![pack(cond_arguments)])?;
        let predicate = self.one(cond_block, &predicate)?;
        self.terminator(cond_block, OpKind::Return, vec![predicate]);
        let (body_block, body_arguments) = self.region_block(op, types);
        let next = self.region_computation(body, body_block, vec![pack(body_arguments)])?;
        let root = self.root(body)?;
        let next = self.flatten(body_block, root, &next)?;
        self.terminator(body_block, OpKind::Return, next);
        Ok(pack(self.body.ops[op].results.clone()))
    }

    /// `stablehlo.if` for a predicate, `stablehlo.case` for an index; each
    /// branch reads its operand from the enclosing scope.
    fn conditional(&mut self, block: Block, instr: Instr, name: &str) -> ExportResult<Val> {
        let data = self.module.instr(instr);
        let shape = data.shape;
        let selector = self.operand(block, instr, 0)?;
        let is_predicate = self
            .element_of(data.operands[0], self.module.shape_of(data.operands[0]))?
            == weft_ir::ElementType::Pred;
        let results = self.flat_types(instr, shape)?;
        let kind = if is_predicate {
            OpKind::If
        } else {
            OpKind::Case
        };
        let op = self.emit(block, kind, vec![selector], results, Vec::new(), Some(name));
        for (index, &branch) in data.callees.iter().enumerate() {
            let operand = *data
                .operands
                .get(index + 1)
                .ok_or_else(|| self.error(instr, "a branch without its operand"))?;
            let argument = self.val(operand)?;
            let (branch_block, _) = self.region_block(op, Vec::new());
            let value = self.region_computation(branch, branch_block, vec![argument])?;
            let root = self.root(branch)?;
            let returned = self.flatten(branch_block, root, &value)?;
            self.terminator(branch_block, OpKind::Return, returned);
        }
        Ok(self.results_val(op, shape))
    }

    /// A synchronous collective of `opcode` over `operands`, with the
    /// attributes of `instr` (a collective, or a first-class start).
    fn collective(
        &mut self,
        block: Block,
        instr: Instr,
        opcode: Opcode,
        operands: Vec<Value>,
        name: &str,
    ) -> ExportResult<Op> {
        let data = self.module.instr(instr);
        let results = self.collective_result_types(instr, opcode)?;
        let mut attributes = Vec::new();
        let kind = match (&data.attrs, opcode) {
            (
                Attrs::CollectivePermute(permute),
                Opcode::CollectivePermute | Opcode::CollectivePermuteStart,
            ) => {
                attributes.extend(permute_attributes(permute));
                OpKind::CollectivePermute
            }
            (Attrs::Collective(collective), _) => {
                self.collective_attributes(instr, collective, &mut attributes)?;
                match opcode {
                    Opcode::AllReduce | Opcode::AllReduceStart => OpKind::AllReduce,
                    Opcode::AllGather | Opcode::AllGatherStart => {
                        attributes
                            .push(("all_gather_dim", i64(self.dimension(instr, collective)?)));
                        OpKind::AllGather
                    }
                    Opcode::ReduceScatter => {
                        attributes
                            .push(("scatter_dimension", i64(self.dimension(instr, collective)?)));
                        OpKind::ReduceScatter
                    }
                    Opcode::AllToAll => {
                        let Some(dimension) = collective.dimension else {
                            return Err(self.error(
                                instr,
                                "the tuple form of all-to-all (no dimensions=) has no single StableHLO all_to_all",
                            ));
                        };
                        let groups = collective
                            .replica_groups
                            .groups()
                            .map_err(|e| self.error(instr, e.to_string()))?;
                        let split_count = match groups.first() {
                            Some(group) => group.len() as i64,
                            None => {
                                self.module.config.replicas().max(1)
                                    * if collective.channel_id.is_some() {
                                        self.module.config.num_partitions.unwrap_or(1)
                                    } else {
                                        1
                                    }
                            }
                        };
                        attributes.push(("split_dimension", i64(dimension)));
                        attributes.push(("concat_dimension", i64(dimension)));
                        attributes.push(("split_count", i64(split_count)));
                        OpKind::AllToAll
                    }
                    Opcode::CollectiveBroadcast => OpKind::CollectiveBroadcast,
                    _ => return Err(self.error(instr, "unexpected collective attributes")),
                }
            }
            _ => return Err(self.error(instr, "a collective without its attributes")),
        };
        let op = self.emit(block, kind, operands, results, attributes, Some(name));
        if matches!(kind, OpKind::AllReduce | OpKind::ReduceScatter) {
            let reducer = self.callee(instr, 0)?;
            self.called_region(instr, op, reducer, false)?;
        }
        Ok(op)
    }

    fn dimension(&self, instr: Instr, collective: &CollectiveAttrs) -> ExportResult<i64> {
        collective
            .dimension
            .ok_or_else(|| self.error(instr, "missing dimensions="))
    }

    fn collective_attributes(
        &self,
        instr: Instr,
        collective: &CollectiveAttrs,
        out: &mut Vec<(&str, Attribute)>,
    ) -> ExportResult<()> {
        let groups = collective
            .replica_groups
            .groups()
            .map_err(|e| self.error(instr, e.to_string()))?;
        out.push(("replica_groups", attributes::dense_i64_matrix(&groups)));
        if let Some(channel) = collective.channel_id {
            out.push(("channel_handle", attributes::channel_handle(channel, 1)));
        }
        if collective.use_global_device_ids {
            out.push(("use_global_device_ids", Attribute::Unit));
        }
        Ok(())
    }

    /// What the synchronous collective returns: for a first-class start, its
    /// done's type (the result slot of the start's tuple).
    fn collective_result_types(&self, instr: Instr, opcode: Opcode) -> ExportResult<Vec<Type>> {
        let shape = self.module.shape_of(instr);
        let payload = match opcode {
            Opcode::AllGatherStart | Opcode::CollectivePermuteStart => self
                .module
                .shapes
                .tuple_elements(shape)
                .and_then(|e| e.get(1).copied())
                .ok_or_else(|| self.error(instr, "a start whose shape has no result slot"))?,
            _ => shape,
        };
        self.flat_types(instr, payload)
    }

    /// `stablehlo.async_start` around the synchronous form of a first-class
    /// start.
    fn first_class_start(&mut self, block: Block, instr: Instr, name: &str) -> ExportResult<Val> {
        let opcode = self.module.instr(instr).opcode;
        let operands = self.operands(block, instr)?;
        let results = self.collective_result_types(instr, opcode)?;
        let [payload] = &results[..] else {
            return Err(self.error(
                instr,
                "a start of several values has no StableHLO form (async_start returns a future of one tensor)",
            ));
        };
        let future = Type::Future(vec![payload.clone()]);
        let types = operands.iter().map(|&v| self.body.ty(v).clone()).collect();
        let start = self.emit(
            block,
            OpKind::AsyncStart,
            operands,
            vec![future],
            Vec::new(),
            Some(name),
        );
        let (region_block, arguments) = self.region_block(start, types);
        let inner_name = crate::lower::synchronous_name(name);
        let inner = self.collective(region_block, instr, opcode, arguments, &inner_name)?;
        let returned = self.body.ops[inner].results.clone();
        self.terminator(region_block, OpKind::Return, returned);
        Ok(Val::One(self.body.ops[start].results[0]))
    }

    /// `stablehlo.async_start` around the op a generic `async-start` wraps, or
    /// the op itself, synchronously, when StableHLO cannot start it.
    fn async_start(&mut self, block: Block, instr: Instr, name: &str) -> ExportResult<Val> {
        let data = self.module.instr(instr);
        let wrapped = self.callee(instr, 0)?;
        let comp = self.module.comp(wrapped);
        let root = self.root(wrapped)?;
        let root_opcode = self.module.instr(root).opcode;
        let single_op = comp
            .body()
            .iter()
            .all(|&i| i == root || comp.params().contains(&i));
        let fully_bound = data.operands.len() == comp.params().len();
        let one_result = !self.module.shapes.is_tuple(self.module.shape_of(root));
        let operand_vals: Vec<Val> = data
            .operands
            .iter()
            .map(|&o| self.val(o))
            .collect::<ExportResult<_>>()?;
        if ASYNC_WRAPPABLE.contains(&root_opcode) && single_op && fully_bound && one_result {
            let operands = self.operands(block, instr)?;
            let payload = self.ty(root, self.module.shape_of(root))?;
            let types = operands.iter().map(|&v| self.body.ty(v).clone()).collect();
            let start = self.emit(
                block,
                OpKind::AsyncStart,
                operands,
                vec![Type::Future(vec![payload])],
                Vec::new(),
                Some(name),
            );
            let (region_block, arguments) = self.region_block(start, types);
            let bound = arguments.into_iter().map(Val::One).collect();
            let value = self.computation(wrapped, region_block, bound)?;
            let returned = self.one(region_block, &value)?;
            self.terminator(region_block, OpKind::Return, vec![returned]);
            return Ok(Val::One(self.body.ops[start].results[0]));
        }
        let why = if !fully_bound {
            "its operands are bound late (async-update), which StableHLO cannot say".to_string()
        } else if !ASYNC_WRAPPABLE.contains(&root_opcode) {
            format!(
                "StableHLO's async_start holds only collectives and slices, not {}",
                root_opcode.name()
            )
        } else {
            "the wrapped computation is not a single op of one result".to_string()
        };
        if !fully_bound {
            return Err(self.error(instr, why));
        }
        self.warn(instr, format!("exported synchronously: {why}"));
        let value = self.computation(wrapped, block, operand_vals.clone())?;
        // The start's value keeps its HLO shape, so loop state and barriers
        // that carry it see every slot: the bound operands, the result, and
        // the context, which is zeros (nothing runs asynchronously).
        let mut slots = vec![Val::Tuple(operand_vals), value];
        if !self.escapes_chain(instr) {
            // Only updates and the done read it: slot 1 is all they need.
            return Ok(Val::Tuple(slots));
        }
        let context: Vec<weft_ir::Shape> = self
            .module
            .shapes
            .tuple_elements(self.module.shape_of(instr))
            .map(|elements| elements.iter().skip(2).copied().collect())
            .unwrap_or_default();
        for shape in context {
            slots.push(self.zeros(block, instr, shape)?);
        }
        Ok(Val::Tuple(slots))
    }

    /// A collective-permute of several operands: XLA's combined form (each
    /// operand moves along the same pairs) becomes one `collective_permute`
    /// per operand; the in-place form (buffers and offsets) has no StableHLO
    /// equivalent.
    fn combined_permute(
        &mut self,
        block: Block,
        instr: Instr,
        operands: Vec<Value>,
        name: &str,
    ) -> ExportResult<Val> {
        if let Attrs::CollectivePermute(permute) = &self.module.instr(instr).attrs
            && permute.slice_sizes.is_some()
        {
            return Err(self.error(
                instr,
                "the in-place collective-permute (output buffers and offsets) has no StableHLO form",
            ));
        }
        let shape = self.module.shape_of(instr);
        let element_shapes = self
            .module
            .shapes
            .tuple_elements(shape)
            .map(<[weft_ir::Shape]>::to_vec)
            .filter(|elements| elements.len() == operands.len())
            .ok_or_else(|| {
                self.error(
                    instr,
                    "a combined collective-permute must return one value per operand",
                )
            })?;
        let Attrs::CollectivePermute(permute) = &self.module.instr(instr).attrs else {
            return Err(self.error(instr, "a collective without its attributes"));
        };
        let attributes = permute_attributes(permute);
        let mut results = Vec::new();
        for (index, (operand, element_shape)) in
            operands.into_iter().zip(element_shapes).enumerate()
        {
            let result = self.ty(instr, element_shape)?;
            results.push(self.single(
                block,
                OpKind::CollectivePermute,
                vec![operand],
                result,
                attributes.clone(),
                &format!("{name}.{index}"),
            ));
        }
        Ok(Val::Tuple(results))
    }

    /// Whether the value of the async op `instr` reaches anything but the
    /// updates and the done of its chain (a tuple, a loop, a barrier, …).
    /// Iterative, over the module's users found once: a chain may hold any
    /// number of updates.
    fn escapes_chain(&self, instr: Instr) -> bool {
        let users = self.users.get_or_init(|| {
            let mut users: FxHashMap<Instr, Vec<Instr>> = FxHashMap::default();
            for user in self.module.all_instrs() {
                for &operand in &self.module.instr(user).operands {
                    users.entry(operand).or_default().push(user);
                }
            }
            users
        });
        let mut pending = vec![instr];
        let mut seen = FxHashSet::default();
        while let Some(op) = pending.pop() {
            for &user in users.get(&op).map_or(&[][..], Vec::as_slice) {
                match self.module.instr(user).opcode {
                    Opcode::AsyncDone => {}
                    Opcode::AsyncUpdate => {
                        if seen.insert(user) {
                            pending.push(user);
                        }
                    }
                    _ => return true,
                }
            }
        }
        false
    }

    /// A constant of zeros of an array shape, or a tuple of them.
    fn zeros(&mut self, block: Block, instr: Instr, shape: weft_ir::Shape) -> ExportResult<Val> {
        if let Some(elements) = self.module.shapes.tuple_elements(shape).map(<[_]>::to_vec) {
            let mut vals = Vec::new();
            for element in elements {
                vals.push(self.zeros(block, instr, element)?);
            }
            return Ok(Val::Tuple(vals));
        }
        let array = self
            .module
            .shapes
            .as_array(shape)
            .cloned()
            .ok_or_else(|| self.error(instr, "an async context that is not an array"))?;
        let ty = self.ty(instr, shape)?;
        let literal = weft_ir::literal::ArrayLiteral::zeros(array.elem, &array.dims);
        let value = Attribute::DenseElements(Box::new(DenseElements {
            ty: ty.clone(),
            values: DenseValues::Array(literal),
        }));
        let name = format!("{}.context", self.module.instr(instr).name);
        Ok(self.single(
            block,
            OpKind::Constant,
            Vec::new(),
            ty,
            vec![("value", value)],
            &name,
        ))
    }

    /// `stablehlo.async_done` of the future a start made (or the result of a
    /// start exported synchronously).
    fn async_done(&mut self, block: Block, instr: Instr, name: &str) -> ExportResult<Val> {
        let operand = self.val(self.module.instr(instr).operands[0])?;
        match operand {
            Val::One(future) if matches!(self.body.ty(future), Type::Future(_)) => {
                let result = self.ty(instr, self.module.shape_of(instr))?;
                Ok(self.single(
                    block,
                    OpKind::AsyncDone,
                    vec![future],
                    result,
                    Vec::new(),
                    name,
                ))
            }
            // A start exported synchronously: slot 1 holds the result,
            // whether the value arrives whole or through loop state.
            other => self.element(block, instr, &other, 1),
        }
    }
}

/// `source_target_pairs` and the channel of a collective-permute.
fn permute_attributes(
    permute: &weft_ir::attrs::CollectivePermuteAttrs,
) -> Vec<(&'static str, Attribute)> {
    let pairs: Vec<Vec<i64>> = permute
        .source_target_pairs
        .iter()
        .map(|&(source, target)| vec![source, target])
        .collect();
    let mut attributes = vec![("source_target_pairs", attributes::dense_i64_matrix(&pairs))];
    if let Some(channel) = permute.channel_id {
        attributes.push(("channel_handle", attributes::channel_handle(channel, 1)));
    }
    attributes
}

/// HLO's `api_version=API_VERSION_…` as StableHLO's number.
fn api_version(text: &str) -> Option<i64> {
    match text {
        "API_VERSION_ORIGINAL" => Some(1),
        "API_VERSION_STATUS_RETURNING" => Some(2),
        "API_VERSION_STATUS_RETURNING_UNIFIED" => Some(3),
        "API_VERSION_TYPED_FFI" => Some(4),
        _ => None,
    }
}

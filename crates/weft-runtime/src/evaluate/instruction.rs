//! One instruction: read its operands from the environment, run its kernel.

use rustc_hash::FxHashMap;
use weft_ir::attrs::Attrs;
use weft_ir::{Instr, Module, Opcode, Shape, ShapeData};

use super::{Evaluator, RunError, data_movement, dimension_size, dot, elementwise};
use crate::numbers::{Numbers, convert_numbers, decode, encode};
use crate::tensor::{Tensor, Value};

impl Evaluator<'_> {
    /// The value `instr` produces, its operands read from `environment`.
    pub(crate) fn instruction(
        &mut self,
        instr: Instr,
        environment: &FxHashMap<Instr, Value>,
    ) -> Result<Value, RunError> {
        let module = self.module;
        let data = module.instr(instr);
        let operand = |i: usize| -> Result<&Value, RunError> {
            data.operands
                .get(i)
                .and_then(|o| environment.get(o))
                .ok_or_else(|| self.error(instr, format!("operand {i} has no value")))
        };
        let tensor = |i: usize| -> Result<&Tensor, RunError> {
            operand(i)?
                .as_tensor()
                .ok_or_else(|| self.error(instr, format!("operand {i} is not an array")))
        };
        let shape = data.shape;
        let result_array = || -> Result<(weft_ir::ElementType, Vec<i64>), RunError> {
            module
                .shapes
                .as_array(shape)
                .map(|a| (a.elem, a.dims.to_vec()))
                .ok_or_else(|| self.error(instr, "expected an array result"))
        };
        let kernel = |result: Result<Tensor, String>| -> Result<Value, RunError> {
            result
                .map(Value::Tensor)
                .map_err(|message| self.error(instr, message))
        };
        use Opcode as O;
        let value = match (data.opcode, &data.attrs) {
            (O::Constant, Attrs::Constant(literal)) => Value::from_constant(literal)
                .ok_or_else(|| self.error(instr, "the constant's values were elided ({...})"))?,
            (O::Tuple, _) => Value::Tuple(
                (0..data.operands.len())
                    .map(|i| operand(i).cloned())
                    .collect::<Result<_, _>>()?,
            ),
            (O::GetTupleElement, Attrs::GetTupleElement { index }) => match operand(0)? {
                Value::Tuple(elements) => {
                    elements.get(*index as usize).cloned().ok_or_else(|| {
                        self.error(instr, format!("tuple index {index} out of range"))
                    })?
                }
                _ => {
                    return Err(
                        self.error(instr, "get-tuple-element of a value that is not a tuple")
                    );
                }
            },
            (O::AfterAll, _) => Value::Token,
            (O::Copy | O::OptimizationBarrier, _) => operand(0)?.clone(),
            (O::PartitionId | O::ReplicaId, _) => {
                // On one device both ids are 0.
                let id = match (&self.device, data.opcode) {
                    (Some(device), O::PartitionId) => device.id.partition as u64,
                    (Some(device), _) => device.id.replica as u64,
                    (None, _) => 0,
                };
                Value::Tensor(encode(
                    weft_ir::ElementType::U32,
                    &[],
                    &Numbers::Unsigned(vec![id]),
                ))
            }
            (
                O::Abs
                | O::Negate
                | O::Exponential
                | O::ExponentialMinusOne
                | O::Log
                | O::LogPlusOne
                | O::Sqrt
                | O::Rsqrt
                | O::Cbrt
                | O::Tanh
                | O::Logistic
                | O::Sine
                | O::Cosine
                | O::Tan
                | O::Floor
                | O::Ceil
                | O::RoundNearestAfz
                | O::RoundNearestEven
                | O::Sign
                | O::Not
                | O::IsFinite
                | O::PopulationCount
                | O::CountLeadingZeros
                | O::Real
                | O::Imag
                | O::Erf,
                _,
            ) => {
                let (elem, _) = result_array()?;
                kernel(elementwise::unary(data.opcode, tensor(0)?, elem))?
            }
            (
                O::Add
                | O::Subtract
                | O::Multiply
                | O::Divide
                | O::Remainder
                | O::Power
                | O::Maximum
                | O::Minimum
                | O::Atan2
                | O::And
                | O::Or
                | O::Xor
                | O::ShiftLeft
                | O::ShiftRightArithmetic
                | O::ShiftRightLogical
                | O::Complex
                | O::Mulhi,
                _,
            ) => {
                let (elem, _) = result_array()?;
                kernel(elementwise::binary(
                    data.opcode,
                    tensor(0)?,
                    tensor(1)?,
                    elem,
                ))?
            }
            (
                O::Compare,
                Attrs::Compare {
                    direction,
                    compare_type,
                },
            ) => kernel(elementwise::compare(
                *direction,
                *compare_type,
                tensor(0)?,
                tensor(1)?,
            ))?,
            (O::Select, _) => kernel(elementwise::select(tensor(0)?, tensor(1)?, tensor(2)?))?,
            (O::Clamp, _) => kernel(elementwise::clamp(tensor(0)?, tensor(1)?, tensor(2)?))?,
            (O::Convert, _) => {
                let (elem, dims) = result_array()?;
                let input = tensor(0)?;
                let numbers = convert_numbers(&decode(input), elem);
                Value::Tensor(encode(elem, &dims, &numbers))
            }
            (O::BitcastConvert, _) => {
                let (elem, dims) = result_array()?;
                let input = tensor(0)?;
                // Between types of different widths the result gains or loses
                // a last dimension; the bytes are the same little-endian
                // bits either way.
                let packed = |elem: weft_ir::ElementType| {
                    elem.bit_width() >= 8 || elem == weft_ir::ElementType::Pred
                };
                if weft_ir::literal::storage_bytes(elem) * crate::tensor::element_count(&dims)
                    != input.bytes.len()
                    || !packed(elem)
                    || !packed(input.elem)
                {
                    return Err(self.error(
                        instr,
                        "bitcast-convert between these shapes does not keep the number of bytes",
                    ));
                }
                Value::Tensor(Tensor {
                    elem,
                    dims,
                    bytes: input.bytes.clone(),
                })
            }
            (O::Reshape, _) => {
                let (_, dims) = result_array()?;
                Value::Tensor(tensor(0)?.clone().reshaped(&dims))
            }
            (O::Bitcast, _) => {
                let (elem, dims) = result_array()?;
                let from = module.shape_of(data.operands[0]);
                Value::Tensor(self.bitcast(instr, tensor(0)?, from, shape, elem, &dims)?)
            }
            (O::Broadcast, Attrs::Dimensions { dimensions }) => {
                let (_, dims) = result_array()?;
                Value::Tensor(data_movement::broadcast(tensor(0)?, &dims, dimensions))
            }
            (O::Transpose, Attrs::Dimensions { dimensions }) => {
                Value::Tensor(data_movement::transpose(tensor(0)?, dimensions))
            }
            (O::Reverse, Attrs::Dimensions { dimensions }) => {
                Value::Tensor(data_movement::reverse(tensor(0)?, dimensions))
            }
            (O::Slice, Attrs::Slice(ranges)) => {
                Value::Tensor(data_movement::slice(tensor(0)?, ranges))
            }
            (O::DynamicSlice, Attrs::DynamicSlice { sizes }) => {
                let starts = self.indices(instr, environment, 1)?;
                Value::Tensor(data_movement::dynamic_slice(tensor(0)?, &starts, sizes))
            }
            (O::DynamicUpdateSlice, _) => {
                let starts = self.indices(instr, environment, 2)?;
                Value::Tensor(data_movement::dynamic_update_slice(
                    tensor(0)?.clone(),
                    tensor(1)?,
                    &starts,
                ))
            }
            (O::Concatenate, Attrs::Dimensions { dimensions }) => {
                let parts: Vec<&Tensor> = (0..data.operands.len())
                    .map(tensor)
                    .collect::<Result<_, _>>()?;
                let dimension = *dimensions
                    .first()
                    .ok_or_else(|| self.error(instr, "concatenate without a dimension"))?;
                Value::Tensor(data_movement::concatenate(&parts, dimension as usize))
            }
            (O::GetDimensionSize, Attrs::Dimensions { dimensions }) => {
                let dimension = dimensions.first().copied().unwrap_or(-1);
                kernel(dimension_size::get_dimension_size(tensor(0)?, dimension))?
            }
            (O::SetDimensionSize, Attrs::Dimensions { dimensions }) => {
                let dimension = dimensions.first().copied().unwrap_or(-1);
                let size = self.indices(instr, environment, 1)?[0];
                kernel(dimension_size::set_dimension_size(
                    tensor(0)?,
                    size,
                    dimension,
                ))?
            }
            (O::Pad, Attrs::Pad(config)) => {
                Value::Tensor(data_movement::pad(tensor(0)?, tensor(1)?, config))
            }
            (O::Iota, Attrs::Iota { dimension }) => {
                let (elem, dims) = result_array()?;
                Value::Tensor(data_movement::iota(elem, &dims, *dimension as usize))
            }
            (O::Dot, Attrs::Dot(dims)) => {
                let (elem, _) = result_array()?;
                kernel(dot::dot(tensor(0)?, tensor(1)?, dims, elem))?
            }
            (O::Reduce, Attrs::Dimensions { dimensions }) => {
                let operands: Vec<&Tensor> = (0..data.operands.len())
                    .map(tensor)
                    .collect::<Result<_, _>>()?;
                let reducer = self.callee(instr, 0)?;
                self.reduce(instr, &operands, dimensions, reducer)?
            }
            (O::Convolution, Attrs::Convolution(attrs)) => {
                let (elem, dims) = result_array()?;
                kernel(super::convolution::convolution(
                    tensor(0)?,
                    tensor(1)?,
                    attrs,
                    elem,
                    &dims,
                ))?
            }
            (O::Gather, Attrs::Gather(attrs)) => {
                let (_, dims) = result_array()?;
                Value::Tensor(self.gather(instr, tensor(0)?, tensor(1)?, attrs, &dims)?)
            }
            (O::Scatter, Attrs::Scatter(attrs)) => {
                let count = (data.operands.len() - 1) / 2;
                let operands: Vec<&Tensor> = (0..count).map(tensor).collect::<Result<_, _>>()?;
                let updates: Vec<&Tensor> = (count + 1..2 * count + 1)
                    .map(tensor)
                    .collect::<Result<_, _>>()?;
                let combiner = self.callee(instr, 0)?;
                self.scatter(instr, &operands, tensor(count)?, &updates, attrs, combiner)?
            }
            (O::While, _) => self.while_loop(instr, operand(0)?.clone())?,
            (O::Conditional, _) => {
                let arguments: Vec<Value> = (0..data.operands.len())
                    .map(|i| operand(i).cloned())
                    .collect::<Result<_, _>>()?;
                self.conditional(instr, arguments)?
            }
            (O::Call | O::Fusion, _) => {
                let arguments: Vec<Value> = (0..data.operands.len())
                    .map(|i| operand(i).cloned())
                    .collect::<Result<_, _>>()?;
                let callee = self.callee(instr, 0)?;
                // A fusion is one kernel: the clock charges the fusion, not
                // what it fuses.
                let fusion = data.opcode == O::Fusion;
                if fusion && let Some(clock) = self.clock.as_mut() {
                    clock.enter_fusion();
                }
                let result = self.call(callee, arguments);
                if fusion && let Some(clock) = self.clock.as_mut() {
                    clock.leave_fusion();
                }
                result?
            }
            (O::AsyncStart | O::AsyncUpdate | O::AsyncDone, _) => {
                let arguments: Vec<Value> = (0..data.operands.len())
                    .map(|i| operand(i).cloned())
                    .collect::<Result<_, _>>()?;
                self.async_step(instr, arguments)?
            }
            (
                O::AllReduce
                | O::AllGather
                | O::ReduceScatter
                | O::AllToAll
                | O::CollectivePermute
                | O::CollectiveBroadcast
                | O::CollectiveReduce
                | O::RaggedAllToAll
                | O::AllReduceStart
                | O::AllGatherStart
                | O::CollectivePermuteStart
                | O::AllReduceDone
                | O::AllGatherDone
                | O::CollectivePermuteDone
                | O::CopyStart
                | O::CopyDone,
                _,
            ) => {
                let arguments: Vec<Value> = (0..data.operands.len())
                    .map(|i| operand(i).cloned())
                    .collect::<Result<_, _>>()?;
                self.single_device_collective(instr, arguments)?
            }
            (O::CustomCall, Attrs::CustomCall(call))
                if call.target == weft_ir::interpreter_calls::RUN_PARALLEL =>
            {
                let arguments: Vec<Value> = (0..data.operands.len())
                    .map(|i| operand(i).cloned())
                    .collect::<Result<_, _>>()?;
                self.run_parallel(instr, arguments)?
            }
            (O::Send | O::SendDone | O::Recv | O::RecvDone | O::Infeed | O::Outfeed, _) => {
                let arguments: Vec<Value> = (0..data.operands.len())
                    .map(|i| operand(i).cloned())
                    .collect::<Result<_, _>>()?;
                self.transfer(instr, arguments)?
            }
            (O::CustomCall, Attrs::CustomCall(call)) => {
                let arguments: Vec<Value> = (0..data.operands.len())
                    .map(|i| operand(i).cloned())
                    .collect::<Result<_, _>>()?;
                self.custom_call(instr, &call.target, arguments)?
            }
            (
                O::Sort
                | O::Scan
                | O::ReduceWindow
                | O::SelectAndScatter
                | O::ReducePrecision
                | O::RngBitGenerator
                | O::Map
                | O::Fft
                | O::TriangularSolve
                | O::Cholesky
                | O::TopK
                | O::RaggedDot,
                _,
            ) => self.structured(instr, environment)?,
            (opcode, _) => {
                return Err(self.error(
                    instr,
                    format!("{} is not supported by the evaluator", opcode.name()),
                ));
            }
        };
        Ok(value)
    }

    /// The scalar index operands of `instr` from operand `first` on.
    /// `dynamic-update-slice` `instr` writing into `buffer`, its operand 0
    /// moved out of the environment (see [`super::plan`]).
    pub(crate) fn update_in_place(
        &mut self,
        instr: Instr,
        buffer: Option<Value>,
        environment: &FxHashMap<Instr, Value>,
    ) -> Result<Value, RunError> {
        let Some(Value::Tensor(buffer)) = buffer else {
            return Err(self.error(instr, "operand 0 is not an array"));
        };
        let update = self
            .module
            .instr(instr)
            .operands
            .get(1)
            .and_then(|o| environment.get(o))
            .and_then(Value::as_tensor)
            .ok_or_else(|| self.error(instr, "operand 1 is not an array"))?;
        let starts = self.indices(instr, environment, 2)?;
        Ok(Value::Tensor(data_movement::dynamic_update_slice(
            buffer, update, &starts,
        )))
    }

    fn indices(
        &self,
        instr: Instr,
        environment: &FxHashMap<Instr, Value>,
        first: usize,
    ) -> Result<Vec<i64>, RunError> {
        let data = self.module.instr(instr);
        data.operands[first..]
            .iter()
            .map(|o| {
                let index = environment
                    .get(o)
                    .and_then(Value::as_tensor)
                    .ok_or_else(|| self.error(instr, "an index operand has no value"))?;
                scalar_index(index)
                    .ok_or_else(|| self.error(instr, "an index operand is not an integer scalar"))
            })
            .collect()
    }

    pub(crate) fn callee(&self, instr: Instr, index: usize) -> Result<weft_ir::Comp, RunError> {
        self.module
            .instr(instr)
            .callees
            .get(index)
            .copied()
            .ok_or_else(|| self.error(instr, format!("has no called computation {index}")))
    }

    /// `bitcast`: the operand's buffer read under the result's layout.
    /// A `bitcast`: the operand's bytes, in the physical order its layout
    /// gives them, read again under the result's element type, dimensions
    /// and layout. XLA's layout passes write a bitcast for a reshape or a
    /// transpose that moves no byte, and for a bitcast-convert between types
    /// of one width (`s32[] bitcast(f32[] %x)`), so all three may change at
    /// once while the byte count stays the same.
    fn bitcast(
        &self,
        instr: Instr,
        input: &Tensor,
        from: Shape,
        to: Shape,
        elem: weft_ir::ElementType,
        dims: &[i64],
    ) -> Result<Tensor, RunError> {
        let major_to_minor = |shape: Shape| -> Vec<i64> {
            match self.module.shapes.as_array(shape) {
                Some(array) => match &array.layout {
                    Some(layout) if layout.minor_to_major.len() == array.dims.len() => {
                        layout.minor_to_major.iter().rev().copied().collect()
                    }
                    _ => (0..array.dims.len() as i64).collect(),
                },
                None => Vec::new(),
            }
        };
        let is_identity = |order: &[i64]| order.iter().enumerate().all(|(i, &d)| d == i as i64);
        let from_order = major_to_minor(from);
        let physical = if is_identity(&from_order) {
            input.clone()
        } else {
            data_movement::transpose(input, &from_order)
        };
        let to_order = major_to_minor(to);
        let physical_dims: Vec<i64> = to_order.iter().map(|&d| dims[d as usize]).collect();
        let reinterpreted = if elem == physical.elem {
            physical.reshaped(&physical_dims)
        } else {
            // Another element type: the same bytes, little-endian as XLA:CPU
            // keeps them. Types narrower than a byte are stored one per byte
            // here but packed in XLA, so their bits cannot be reread.
            let result_bytes =
                weft_ir::literal::storage_bytes(elem) * crate::tensor::element_count(dims);
            let whole_bytes = |e: weft_ir::ElementType| e.bit_width().is_multiple_of(8);
            if result_bytes != physical.bytes.len()
                || !whole_bytes(elem)
                || !whole_bytes(physical.elem)
            {
                return Err(self.error(
                    instr,
                    format!(
                        "bitcast from {}{:?} to {}{:?} does not keep the number of bytes",
                        physical.elem.name(),
                        input.dims,
                        elem.name(),
                        dims
                    ),
                ));
            }
            Tensor {
                elem,
                dims: physical_dims,
                bytes: physical.bytes.clone(),
            }
        };
        if is_identity(&to_order) {
            return Ok(reinterpreted);
        }
        let mut inverse = vec![0i64; to_order.len()];
        for (position, &dimension) in to_order.iter().enumerate() {
            inverse[dimension as usize] = position as i64;
        }
        Ok(data_movement::transpose(&reinterpreted, &inverse))
    }
}

/// An integer scalar as `i64`.
pub(crate) fn scalar_index(tensor: &Tensor) -> Option<i64> {
    if tensor.len() != 1 {
        return None;
    }
    match decode(tensor) {
        Numbers::Signed(v) => v.first().copied(),
        Numbers::Unsigned(v) => v.first().map(|&x| x.min(i64::MAX as u64) as i64),
        _ => None,
    }
}

/// `f32[4,6]`, `(f32[2], s32[])` — a shape without layouts.
pub(crate) fn describe_shape(module: &Module, shape: Shape) -> String {
    match module.shapes.get(shape) {
        ShapeData::Array(array) => {
            let dims: Vec<String> = array.dims.iter().map(i64::to_string).collect();
            format!("{}[{}]", array.elem.name(), dims.join(","))
        }
        ShapeData::Tuple(elements) => {
            let parts: Vec<String> = elements
                .iter()
                .map(|&e| describe_shape(module, e))
                .collect();
            format!("({})", parts.join(", "))
        }
        ShapeData::Token => "token[]".into(),
        ShapeData::Opaque => "opaque[]".into(),
        ShapeData::Buffer(inner) => format!("b({})", describe_shape(module, *inner)),
    }
}

/// [`describe_shape`] of a value.
pub(crate) fn describe_value_shape(value: &Value) -> String {
    value.describe()
}

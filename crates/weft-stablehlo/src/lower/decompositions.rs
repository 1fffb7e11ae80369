//! Ops HLO has no instruction for, expanded into arithmetic the way XLA's
//! legalizations do:
//! - `uniform_quantize` / `uniform_dequantize` (per-tensor and per-axis):
//!   `q = clamp(round_nearest_even(x / scale) + zero_point, min, max)` in the
//!   expressed type, converted to the storage type; `x = (q - zero_point) *
//!   scale`; a quantized-to-quantized `uniform_quantize` dequantizes first;
//! - elementwise arithmetic on quantized tensors: dequantize, compute in
//!   the expressed type, quantize the result.
//!
//! The CHLO ops have their own module, [`super::chlo`].

use weft_ir::attrs::Attrs;
use weft_ir::literal::{ArrayLiteral, Literal};
use weft_ir::{Comp, ElementType, Instr, Opcode, Shape};

use super::shapes::element_type;
use super::{LowerResult, Lowering};
use crate::ir::types::QuantizedType;
use crate::ir::{ElementKind, Op, Type};
use crate::ops::OpKind;

impl Lowering<'_> {
    pub(crate) fn quantization(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        let operand_value = self.body.ops[op].operands[0];
        let result_value = self.body.ops[op].results[0];
        let operand_type = self.body.ty(operand_value).clone();
        let result_type = self.body.ty(result_value).clone();
        let mut value = self.operands(op)?[0];
        let name = self.name_for(op, "quantize");
        if let Some(quantized) = quantized_of(&operand_type) {
            value = self.dequantize(comp, op, value, &quantized, &name)?;
        }
        if kind == OpKind::UniformQuantize {
            let Some(quantized) = quantized_of(&result_type) else {
                return Err(self.error(op, "uniform_quantize must produce a quantized tensor"));
            };
            value = self.quantize(comp, op, value, &quantized, &name)?;
        }
        self.values.insert(result_value, value);
        Ok(())
    }

    /// Whether an operand or result of `op` is a quantized tensor.
    pub(crate) fn touches_quantized(&self, op: Op) -> bool {
        let data = &self.body.ops[op];
        data.operands
            .iter()
            .chain(&data.results)
            .any(|&v| quantized_of(self.body.ty(v)).is_some())
    }

    /// An elementwise op on quantized tensors: each quantized operand is
    /// dequantized, `opcode` runs in the expressed type, and a quantized
    /// result is quantized again (StableHLO's `dequantize_op_quantize`).
    pub(crate) fn quantized_elementwise(
        &mut self,
        comp: Comp,
        op: Op,
        opcode: Opcode,
    ) -> LowerResult<()> {
        let name = self.name_for(op, opcode.name());
        let mut operands = self.operands(op)?;
        let operand_values = self.body.ops[op].operands.clone();
        for (operand, value) in operands.iter_mut().zip(operand_values) {
            if let Some(quantized) = quantized_of(&self.body.ty(value).clone()) {
                *operand = self.dequantize(comp, op, *operand, &quantized, &name)?;
            }
        }
        let result_value = self.body.ops[op].results[0];
        let result_type = self.body.ty(result_value).clone();
        let computed_shape = match quantized_of(&result_type) {
            Some(quantized) => {
                let expressed =
                    element_type(&quantized.expressed).map_err(|m| self.error(op, m))?;
                self.with_element(operands[0], expressed)
            }
            None => self.shape(&result_type).map_err(|m| self.error(op, m))?,
        };
        let mut value = self.emit(
            comp,
            &name,
            opcode,
            computed_shape,
            operands,
            Attrs::plain(),
        );
        if let Some(quantized) = quantized_of(&result_type) {
            value = self.quantize(comp, op, value, &quantized, &name)?;
        }
        self.values.insert(result_value, value);
        Ok(())
    }

    /// `(convert(q) - zero_point) * scale`, in the expressed type.
    fn dequantize(
        &mut self,
        comp: Comp,
        op: Op,
        q: Instr,
        quantized: &QuantizedType,
        name: &str,
    ) -> LowerResult<Instr> {
        let expressed = element_type(&quantized.expressed).map_err(|m| self.error(op, m))?;
        let shape = self.with_element(q, expressed);
        let converted = self.emit(comp, name, Opcode::Convert, shape, vec![q], Attrs::plain());
        let zero_points =
            self.per_channel(comp, op, quantized, shape, |(_, zp)| zp as f64, name)?;
        let scales = self.per_channel(comp, op, quantized, shape, |(scale, _)| scale, name)?;
        let shifted = self.emit(
            comp,
            name,
            Opcode::Subtract,
            shape,
            vec![converted, zero_points],
            Attrs::plain(),
        );
        Ok(self.emit(
            comp,
            name,
            Opcode::Multiply,
            shape,
            vec![shifted, scales],
            Attrs::plain(),
        ))
    }

    /// `convert(clamp(min, round(x / scale) + zero_point, max))`.
    fn quantize(
        &mut self,
        comp: Comp,
        op: Op,
        x: Instr,
        quantized: &QuantizedType,
        name: &str,
    ) -> LowerResult<Instr> {
        let storage = element_type(&quantized.storage).map_err(|m| self.error(op, m))?;
        let shape = self.module.shape_of(x);
        let scales = self.per_channel(comp, op, quantized, shape, |(scale, _)| scale, name)?;
        let zero_points =
            self.per_channel(comp, op, quantized, shape, |(_, zp)| zp as f64, name)?;
        let divided = self.emit(
            comp,
            name,
            Opcode::Divide,
            shape,
            vec![x, scales],
            Attrs::plain(),
        );
        let rounded = self.emit(
            comp,
            name,
            Opcode::RoundNearestEven,
            shape,
            vec![divided],
            Attrs::plain(),
        );
        let shifted = self.emit(
            comp,
            name,
            Opcode::Add,
            shape,
            vec![rounded, zero_points],
            Attrs::plain(),
        );
        let (low, high) = storage_range(quantized);
        let element = self.element(shape);
        let low = self.scalar_constant(comp, element, low as f64, name);
        let high = self.scalar_constant(comp, element, high as f64, name);
        let low = self.broadcast_scalar(comp, low, shape, name);
        let high = self.broadcast_scalar(comp, high, shape, name);
        let clamped = self.emit(
            comp,
            name,
            Opcode::Clamp,
            shape,
            vec![low, shifted, high],
            Attrs::plain(),
        );
        let result = self.with_element(x, storage);
        Ok(self.emit(
            comp,
            name,
            Opcode::Convert,
            result,
            vec![clamped],
            Attrs::plain(),
        ))
    }

    /// The quantization parameter `pick` as a tensor of `shape`: a broadcast
    /// scalar per tensor, a broadcast vector along the quantized axis.
    fn per_channel(
        &mut self,
        comp: Comp,
        op: Op,
        quantized: &QuantizedType,
        shape: Shape,
        pick: impl Fn((f64, i64)) -> f64,
        name: &str,
    ) -> LowerResult<Instr> {
        let element = self.element(shape);
        let values: Vec<f64> = quantized.parameters.iter().map(|&p| pick(p)).collect();
        match quantized.axis {
            None => {
                let scalar = self.scalar_constant(
                    comp,
                    element,
                    values.first().copied().unwrap_or(0.0),
                    name,
                );
                Ok(self.broadcast_scalar(comp, scalar, shape, name))
            }
            Some(axis) => {
                let mut array = ArrayLiteral::zeros(element, &[values.len() as i64]);
                for (i, &v) in values.iter().enumerate() {
                    array.set_float(i, v);
                }
                let vector_shape = self
                    .module
                    .shapes
                    .array_with_default_layout(element, &[values.len() as i64]);
                let vector = self.emit(
                    comp,
                    name,
                    Opcode::Constant,
                    vector_shape,
                    Vec::new(),
                    Attrs::Constant(Box::new(Literal::Array(array))),
                );
                let dims = self
                    .module
                    .shapes
                    .as_array(shape)
                    .map(|a| a.dims.clone())
                    .unwrap_or_default();
                if dims.get(axis as usize) != Some(&(values.len() as i64)) {
                    return Err(
                        self.error(op, "the quantized axis does not match the number of scales")
                    );
                }
                Ok(self.emit(
                    comp,
                    name,
                    Opcode::Broadcast,
                    shape,
                    vec![vector],
                    Attrs::Dimensions {
                        dimensions: vec![axis].into(),
                    },
                ))
            }
        }
    }

    /// `instr`'s shape with element type `element`.
    fn with_element(&mut self, instr: Instr, element: ElementType) -> Shape {
        let shape = self.module.shape_of(instr);
        let dims = self
            .module
            .shapes
            .as_array(shape)
            .map(|a| a.dims.clone())
            .unwrap_or_default();
        self.module.shapes.array_with_default_layout(element, &dims)
    }

    fn element(&self, shape: Shape) -> ElementType {
        self.module
            .shapes
            .as_array(shape)
            .map_or(ElementType::F32, |a| a.elem)
    }
}

/// The quantization of a quantized tensor type.
fn quantized_of(ty: &Type) -> Option<QuantizedType> {
    match &ty.as_tensor()?.element {
        ElementKind::Quantized(q) => Some((**q).clone()),
        _ => None,
    }
}

/// The storage range: as written, else the full range of the storage type.
fn storage_range(quantized: &QuantizedType) -> (i64, i64) {
    if let Some(range) = quantized.storage_range {
        return range;
    }
    match &quantized.storage {
        ElementKind::Integer { width, signedness } => {
            let width = (*width).min(63);
            if *signedness == crate::ir::Signedness::Unsigned {
                (0, (1i64 << width) - 1)
            } else {
                (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
            }
        }
        _ => (i64::MIN, i64::MAX),
    }
}

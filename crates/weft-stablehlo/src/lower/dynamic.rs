//! The dynamic-shape ops, lowered to their static HLO equivalents once their
//! shape operands fold ([`super::shape_folding`]):
//!
//! | op | becomes |
//! |---|---|
//! | `dynamic_iota` | `iota` |
//! | `dynamic_reshape` | `reshape` |
//! | `dynamic_broadcast_in_dim` | `broadcast` (after a `reshape` dropping stretched size-1 dimensions) |
//! | `dynamic_pad` | `pad` |
//! | `real_dynamic_slice` | `slice` |
//! | `dynamic_gather` | `gather` |
//! | `dynamic_conv` | `convolution` |
//! | `get_dimension_size` | `get-dimension-size` (of a static dimension) |
//! | `set_dimension_size` | nothing: the operand itself, when the size is the dimension's |
//!
//! Invariants: the shape an op's folded operands give is the shape of its
//! lowered instruction, and it agrees with every static dimension of the
//! op's result type (a disagreement is an error naming both); a shape operand
//! that does not fold is an error naming the op, the operand and the reason.
//! HLO has no dimension whose size is known only at run time here: weft runs
//! every tensor at its full size.

use weft_ir::attrs::{Attrs, SliceRange};
use weft_ir::{Comp, Opcode, Shape};

use super::ops::padding;
use super::shape_folding::ShapeFolder;
use super::{LowerResult, Lowering};
use crate::ir::{Dim, Op, Type};
use crate::ops::OpKind;

/// What to tell a user whose shape operand does not fold.
const UNKNOWN_SHAPE_HINT: &str = "weft runs static shapes: compute the shape from constants, or \
     give the program's inputs (`weft run --inputs`, `weft interpret --args`) so shapes that \
     depend on them are known";

impl Lowering<'_> {
    /// The elements of operand `index` of `op` (its `what`), folded.
    pub(crate) fn shape_operand(&self, op: Op, index: usize, what: &str) -> LowerResult<Vec<i64>> {
        let value = *self.body.ops[op]
            .operands
            .get(index)
            .ok_or_else(|| self.error(op, format!("missing operand '{what}'")))?;
        ShapeFolder::new(self.body, &self.known_values)
            .fold_list(value)
            .map_err(|reason| {
                self.error_with_hint(
                    op,
                    format!("its {what} is not known before run time: {reason}"),
                    UNKNOWN_SHAPE_HINT,
                )
            })
    }

    /// Lowers one of the dynamic-shape ops of the table above.
    pub(crate) fn lower_dynamic(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        // Without a location name, the instruction is named for what it became.
        let became = match kind {
            OpKind::DynamicIota => "iota",
            OpKind::DynamicReshape => "reshape",
            OpKind::DynamicPad => "pad",
            OpKind::RealDynamicSlice => "slice",
            OpKind::GetDimensionSize => "get-dimension-size",
            _ => "op",
        };
        let name = self.name_for(op, became);
        let instr = match kind {
            OpKind::DynamicIota => {
                let dims = self.shape_operand(op, 0, "output_shape")?;
                let shape = self.folded_result_shape(op, &dims)?;
                let dimension = self.int(op, "iota_dimension")?;
                self.emit(
                    comp,
                    &name,
                    Opcode::Iota,
                    shape,
                    Vec::new(),
                    Attrs::Iota { dimension },
                )
            }
            OpKind::DynamicReshape => {
                let dims = self.shape_operand(op, 1, "output_shape")?;
                let operand = self.value(op, self.body.ops[op].operands[0])?;
                let from: i64 = self
                    .array_dims(self.module.shape_of(operand))
                    .iter()
                    .product();
                let to = dims.iter().try_fold(1i64, |n, &d| n.checked_mul(d));
                if to != Some(from) || dims.iter().any(|&d| d < 0) {
                    return Err(self.error(
                        op,
                        format!(
                            "output_shape {dims:?} does not hold the operand's {from} elements"
                        ),
                    ));
                }
                let shape = self.folded_result_shape(op, &dims)?;
                self.emit(
                    comp,
                    &name,
                    Opcode::Reshape,
                    shape,
                    vec![operand],
                    Attrs::plain(),
                )
            }
            OpKind::DynamicBroadcastInDim => {
                let dims = self.shape_operand(op, 1, "output_dimensions")?;
                let shape = self.folded_result_shape(op, &dims)?;
                return self.broadcast_in_dim_to(comp, op, shape);
            }
            OpKind::DynamicPad => {
                let low = self.shape_operand(op, 2, "edge_padding_low")?;
                let high = self.shape_operand(op, 3, "edge_padding_high")?;
                let interior = self.shape_operand(op, 4, "interior_padding")?;
                let operands = self.operands(op)?;
                let input = self.array_dims(self.module.shape_of(operands[0]));
                if low.len() != input.len() || high.len() != input.len() {
                    return Err(self.error(op, "the padding amounts do not match the rank"));
                }
                if interior.iter().any(|&i| i < 0) {
                    return Err(self.error(
                        op,
                        format!("interior_padding {interior:?} has a negative amount"),
                    ));
                }
                let dims = padded_dims(&input, &low, &high, &interior);
                if dims.iter().any(|&d| d < 0) {
                    return Err(self.error(
                        op,
                        format!("the padding amounts give the negative shape {dims:?}"),
                    ));
                }
                let shape = self.folded_result_shape(op, &dims)?;
                self.emit(
                    comp,
                    &name,
                    Opcode::Pad,
                    shape,
                    operands[..2].to_vec(),
                    Attrs::Pad(padding(&low, &high, &interior)),
                )
            }
            OpKind::RealDynamicSlice => {
                let starts = self.shape_operand(op, 1, "start_indices")?;
                let limits = self.shape_operand(op, 2, "limit_indices")?;
                let strides = self.shape_operand(op, 3, "strides")?;
                let operand = self.value(op, self.body.ops[op].operands[0])?;
                let input = self.array_dims(self.module.shape_of(operand));
                let mut ranges = Vec::with_capacity(input.len());
                for (d, &size) in input.iter().enumerate() {
                    let (Some(&start), Some(&limit), Some(&stride)) =
                        (starts.get(d), limits.get(d), strides.get(d))
                    else {
                        return Err(self.error(op, "the slice bounds do not match the rank"));
                    };
                    if !(0 <= start && start <= limit && limit <= size && stride > 0) {
                        return Err(self.error(
                            op,
                            format!(
                                "dimension {d} of size {size} cannot be sliced from {start} to {limit} by {stride}"
                            ),
                        ));
                    }
                    ranges.push(SliceRange {
                        start,
                        limit,
                        stride,
                    });
                }
                let dims = sliced_dims(&starts, &limits, &strides);
                let shape = self.folded_result_shape(op, &dims)?;
                self.emit(
                    comp,
                    &name,
                    Opcode::Slice,
                    shape,
                    vec![operand],
                    Attrs::Slice(ranges.into()),
                )
            }
            OpKind::GetDimensionSize => {
                // As XLA's translation: the evaluator reads the size, and
                // shape folding reads it from the (refined) operand type.
                let dimension = self.int(op, "dimension")?;
                let operand = self.value(op, self.body.ops[op].operands[0])?;
                let shape = self.result_shape(op)?;
                self.emit(
                    comp,
                    &name,
                    Opcode::GetDimensionSize,
                    shape,
                    vec![operand],
                    Attrs::Dimensions {
                        dimensions: vec![dimension].into(),
                    },
                )
            }
            _ => {
                // set_dimension_size: only the dimension's own size keeps the
                // shape static.
                let dimension = self.int(op, "dimension")?;
                let size = self.shape_operand(op, 1, "size")?;
                let operand = self.value(op, self.body.ops[op].operands[0])?;
                let input = self.array_dims(self.module.shape_of(operand));
                let Some(&bound) = input.get(dimension as usize) else {
                    return Err(self.error(
                        op,
                        format!("dimension {dimension} is out of range for the operand"),
                    ));
                };
                let [size] = size[..] else {
                    return Err(self.error(op, "the size is not a scalar"));
                };
                if size != bound {
                    return Err(self.error_with_hint(
                        op,
                        format!(
                            "setting dimension {dimension} of size {bound} to {size} makes it dynamic"
                        ),
                        "weft runs every tensor at its full size; only the dimension's own size is supported",
                    ));
                }
                self.folded_result_shape(op, &input)?;
                operand
            }
        };
        self.bind_results(comp, op, instr);
        Ok(())
    }

    /// The HLO shape of `op`'s result with the folded sizes `dims`, after
    /// checking they agree with the result type.
    pub(crate) fn folded_result_shape(&mut self, op: Op, dims: &[i64]) -> LowerResult<Shape> {
        let result = self.body.ops[op].results[0];
        let ty = self.body.ty(result).clone();
        let Type::Tensor(tensor) = &ty else {
            return Err(self.error(op, "the result is not a tensor"));
        };
        let agrees = tensor.dims.as_ref().is_none_or(|declared| {
            declared.len() == dims.len()
                && declared
                    .iter()
                    .zip(dims)
                    .all(|(declared, &size)| match declared {
                        Dim::Static(declared) => *declared == size,
                        Dim::Dynamic => true,
                    })
        });
        if !agrees || dims.iter().any(|&d| d < 0) {
            return Err(self.error(
                op,
                format!(
                    "the folded shape {dims:?} disagrees with the result type {}",
                    crate::verify::type_text(&ty)
                ),
            ));
        }
        let element =
            super::shapes::element_type(&tensor.element).map_err(|m| self.error(op, m))?;
        Ok(self.module.shapes.array_with_default_layout(element, dims))
    }
}

/// The shape `pad` gives an operand of shape `input`: each dimension grows by
/// its low and high amounts and by its interior amount between elements.
pub(crate) fn padded_dims(input: &[i64], low: &[i64], high: &[i64], interior: &[i64]) -> Vec<i64> {
    (0..input.len())
        .map(|d| {
            let size = input[d];
            let between = interior.get(d).copied().unwrap_or(0) * (size - 1).max(0);
            size + low.get(d).copied().unwrap_or(0) + high.get(d).copied().unwrap_or(0) + between
        })
        .collect()
}

/// The shape of a slice from `starts` to `limits` by `strides` (positive).
pub(crate) fn sliced_dims(starts: &[i64], limits: &[i64], strides: &[i64]) -> Vec<i64> {
    starts
        .iter()
        .zip(limits)
        .zip(strides)
        .map(|((&start, &limit), &stride)| {
            if stride > 0 {
                ((limit - start).max(0) + stride - 1) / stride
            } else {
                0
            }
        })
        .collect()
}

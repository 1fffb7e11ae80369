//! Inference for asynchronous operations: the generic `async-start`, and the
//! first-class start/done pairs (all-reduce, all-gather, collective-permute,
//! copy).
//!
//! Shapes, as XLA builds them:
//! - `async-start`: `((bound operands…), output, context…)`; its done returns
//!   the output (element 1);
//! - `all-reduce-start`: the all-reduce's result; its done returns it;
//! - `all-gather-start`: `(operands, result)`, the operands a tuple when there
//!   are several; its done returns element 1;
//! - `collective-permute-start` (XLA's `InferCollectivePermuteStartShape`):
//!   `(operand, operand, context…)` for one operand, `((operands), (operands),
//!   context…)` for several, `(input, output, context…)` in place; its done
//!   returns element 1;
//! - `copy-start`: `(operand, operand, u32[])`; its done returns element 0.
//!
//! The context elements are whatever the runtime keeps between start and
//! done: inference takes them as given (a pass building a start passes none).

use crate::element_type::ElementType;
use crate::opcode::Opcode;
use crate::shape::{Shape, ShapeTable};

use super::collectives::{collective_permute_parts, forwarded};
use super::{InferError, InferredShape, shape_text_with_layout};

/// async-start around a computation returning `output`:
/// `((operands…), output, context…)`.
pub fn async_start(operands: &[Shape], output: InferredShape, context: &[Shape]) -> InferredShape {
    let mut elements = Vec::with_capacity(2 + context.len());
    elements.push(InferredShape::tuple_of(operands));
    elements.push(output);
    elements.extend(context.iter().map(|&c| InferredShape::Existing(c)));
    InferredShape::Tuple(elements)
}

/// all-gather-start of `operands` gathering into `result`: `(operands,
/// result)`, the operands a tuple when there are several.
pub fn all_gather_start(operands: &[Shape], result: InferredShape) -> InferredShape {
    InferredShape::Tuple(vec![forwarded(operands), result])
}

/// collective-permute-start: `(input, output, context…)`.
pub fn collective_permute_start(
    shapes: &ShapeTable,
    operands: &[Shape],
    in_place: bool,
    context: &[Shape],
) -> Result<InferredShape, InferError> {
    let (input, output) =
        collective_permute_parts(shapes, Opcode::CollectivePermuteStart, operands, in_place)?;
    let mut elements = Vec::with_capacity(2 + context.len());
    elements.push(input);
    elements.push(output);
    elements.extend(context.iter().map(|&c| InferredShape::Existing(c)));
    Ok(InferredShape::Tuple(elements))
}

/// all-reduce-start of an all-reduce whose result is `result`: that result
/// (XLA builds the start with the all-reduce's shape).
pub fn all_reduce_start(result: Shape) -> InferredShape {
    InferredShape::Existing(result)
}

/// all-reduce-done: the start's shape, which is the all-reduce's result.
pub fn all_reduce_done(start: Shape) -> InferredShape {
    InferredShape::Existing(start)
}

/// all-gather-done, collective-permute-done and async-done: element 1 of
/// the start, where the start keeps its result.
pub fn done_of_element_one(
    shapes: &ShapeTable,
    opcode: Opcode,
    start: Shape,
) -> Result<InferredShape, InferError> {
    match shapes.tuple_elements(start).and_then(|e| e.get(1).copied()) {
        Some(result) => Ok(InferredShape::Existing(result)),
        None => Err(InferError::new(format!(
            "the operand of {opcode} must be its start's tuple, with the result at index 1; it has shape {}",
            shape_text_with_layout(shapes, start)
        ))
        .at_operand(0)),
    }
}

/// copy-start: `(destination, source, u32[])`, both buffers the operand's
/// shape (they may differ in memory space, which layouts record).
pub fn copy_start(operand: Shape) -> InferredShape {
    InferredShape::Tuple(vec![
        InferredShape::Existing(operand),
        InferredShape::Existing(operand),
        InferredShape::array(ElementType::U32, Vec::new()),
    ])
}

/// copy-done: element 0 of the copy-start tuple (the destination).
pub fn copy_done(shapes: &ShapeTable, start: Shape) -> Result<InferredShape, InferError> {
    match shapes.tuple_elements(start) {
        Some(&[destination, _, ..]) => Ok(InferredShape::Existing(destination)),
        _ => Err(InferError::new(format!(
            "the operand of copy-done must be a copy-start tuple (destination, source, context), has shape {}",
            shape_text_with_layout(shapes, start)
        ))
        .at_operand(0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(shapes: &mut ShapeTable, inferred: &InferredShape) -> String {
        let shape = inferred.intern(shapes);
        super::super::shape_text(shapes, shape)
    }

    #[test]
    fn collective_permute_start_has_xla_three_forms() {
        let mut shapes = ShapeTable::new();
        let a = shapes.array_with_default_layout(ElementType::F32, &[8]);
        let b = shapes.array_with_default_layout(ElementType::S32, &[2]);
        let offsets = shapes.tuple(&[b]);
        let one = collective_permute_start(&shapes, &[a], false, &[]).unwrap();
        assert_eq!(text(&mut shapes, &one), "(f32[8], f32[8])");
        let several = collective_permute_start(&shapes, &[a, b], false, &[]).unwrap();
        assert_eq!(
            text(&mut shapes, &several),
            "((f32[8], s32[2]), (f32[8], s32[2]))"
        );
        let in_place =
            collective_permute_start(&shapes, &[a, a, offsets, offsets], true, &[b]).unwrap();
        assert_eq!(text(&mut shapes, &in_place), "(f32[8], f32[8], s32[2])");
    }

    #[test]
    fn async_and_all_gather_starts_bind_their_operands() {
        let mut shapes = ShapeTable::new();
        let a = shapes.array_with_default_layout(ElementType::F32, &[8]);
        let b = shapes.array_with_default_layout(ElementType::F32, &[16]);
        let start = async_start(&[a], InferredShape::Existing(b), &[]);
        assert_eq!(text(&mut shapes, &start), "((f32[8]), f32[16])");
        let gather = all_gather_start(&[a], InferredShape::Existing(b));
        assert_eq!(text(&mut shapes, &gather), "(f32[8], f32[16])");
        let gathers = all_gather_start(&[a, a], InferredShape::tuple_of(&[b, b]));
        assert_eq!(
            text(&mut shapes, &gathers),
            "((f32[8], f32[8]), (f32[16], f32[16]))"
        );
        let start = start.intern(&mut shapes);
        let done = done_of_element_one(&shapes, Opcode::AsyncDone, start).unwrap();
        assert_eq!(done, InferredShape::Existing(b));
    }
}

//! Inference for control flow and plumbing: tuple, get-tuple-element, while,
//! call, conditional, the ops that forward their operand (opt-barrier,
//! add-dependency, domain, copy), after-all and constants (XLA's
//! `InferVariadicOpShape`, `InferGetTupleElementShape`, `InferWhileShape`,
//! `InferCallShape`, `InferConditionalShape`).
//!
//! Control flow returns its callee's result: the body's loop state for a
//! while (which is the operand's shape, since the body must preserve it), the
//! first branch's result for a conditional, the callee's for a call. That the
//! callees' parameters fit the operands is the verifier's rule, not part of
//! inference.

use crate::literal::Literal;
use crate::shape::{Shape, ShapeTable};

use super::{InferError, InferredShape, Signature, shape_text_with_layout};

/// tuple: the tuple of the operands.
pub fn tuple(operands: &[Shape]) -> InferredShape {
    InferredShape::tuple_of(operands)
}

/// get-tuple-element: element `index` of the operand's tuple.
pub fn get_tuple_element(
    shapes: &ShapeTable,
    operand: Shape,
    index: i64,
) -> Result<InferredShape, InferError> {
    let Some(elements) = shapes.tuple_elements(operand) else {
        return Err(InferError::new(format!(
            "Cannot infer shape: attempting to index into non-tuple: {}",
            shape_text_with_layout(shapes, operand)
        ))
        .with_hint("get-tuple-element reads an element of a tuple-shaped operand")
        .at_operand(0));
    };
    match usize::try_from(index).ok().and_then(|i| elements.get(i)) {
        Some(&element) => Ok(InferredShape::Existing(element)),
        None => Err(InferError::new(format!(
            "Cannot infer shape: attempt to index out of tuple bounds: {index} >= {} in shape {}",
            elements.len(),
            shape_text_with_layout(shapes, operand)
        ))
        .with_hint(format!(
            "the index must be in 0..{} for this operand",
            elements.len()
        ))
        .at_attribute("index")),
    }
}

/// while: the loop state, which is its operand.
pub fn while_loop(state: Shape) -> InferredShape {
    InferredShape::Existing(state)
}

/// call, and conditional through its first branch: the callee's result.
pub fn callee_result(callee: Option<&Signature>) -> Result<InferredShape, InferError> {
    let callee =
        callee.ok_or_else(|| InferError::new("no computation").at_attribute("to_apply"))?;
    callee
        .result
        .map(InferredShape::Existing)
        .ok_or_else(|| InferError::new("the computation has no root"))
}

/// opt-barrier, add-dependency, domain and copy: the (first) operand.
pub fn forwarded(operand: Shape) -> InferredShape {
    InferredShape::Existing(operand)
}

/// after-all: a token.
pub fn after_all() -> InferredShape {
    InferredShape::Token
}

/// The shape of a constant's `literal`, with dynamic flags taken from
/// `declared` where the ranks agree (literals do not record them); `None` for
/// an elided literal, which takes whatever shape is declared.
pub fn constant(shapes: &ShapeTable, literal: &Literal, declared: Shape) -> Option<InferredShape> {
    match literal {
        Literal::Elided => None,
        Literal::Array(array) => {
            let dynamic = match shapes.as_array(declared) {
                Some(d) if d.rank() == array.dims.len() => {
                    (0..d.rank()).map(|i| d.is_dynamic(i)).collect()
                }
                _ => vec![false; array.dims.len()],
            };
            Some(InferredShape::dynamic_array(
                array.elem,
                array.dims.clone(),
                dynamic,
            ))
        }
        Literal::Tuple(elements) => {
            let declared_elements = shapes.tuple_elements(declared).unwrap_or(&[]);
            let mut inferred = Vec::with_capacity(elements.len());
            for (i, element) in elements.iter().enumerate() {
                let declared_element = declared_elements.get(i).copied();
                let shape = constant(
                    shapes,
                    element,
                    declared_element.unwrap_or_else(|| shapes.empty_tuple()),
                );
                // An elided element inside a tuple literal matches its slot.
                inferred.push(shape.unwrap_or_else(|| {
                    declared_element
                        .map_or(InferredShape::Tuple(Vec::new()), InferredShape::Existing)
                }));
            }
            Some(InferredShape::Tuple(inferred))
        }
    }
}

//! Shape inference (XLA's `ShapeInference`): the result shape an instruction
//! has, given its opcode, its operands' shapes, its attributes and the
//! results of the computations it calls.
//!
//! One inference serves every reader: the verifier compares what it infers
//! with the declared shape, the text parser fills in a result shape the text
//! omits, and passes give the instructions they build the shapes inference
//! gives. Each opcode family has its file, mirroring the verifier's shape
//! rules; the functions there take their inputs explicitly, as XLA's do (a
//! shard count, a conversion's target type), and [`infer`] reads those inputs
//! off one instruction's [`Request`].
//!
//! Invariants:
//! - inference reads the [`ShapeTable`] and never writes it: it returns an
//!   [`InferredShape`], a description that [`InferredShape::intern`] turns
//!   into a handle, so a reader holding the table immutably can infer;
//! - a result equal to an operand's (or a callee's) shape is that shape
//!   ([`InferredShape::Existing`]), layout included, so the common case
//!   interns nothing;
//! - a dimension is dynamic wherever the operand dimension it comes from is,
//!   and an unbounded (`?`) one stays unbounded;
//! - sizes are computed with checked arithmetic: a size that would not fit
//!   in `i64` is an [`InferError`], never a wrapped value, so an inferred
//!   shape always prints as text that parses again;
//! - errors carry XLA's wording where XLA has one, and point at the operand
//!   or attribute they are about.
//!
//! Inference checks what XLA's `ShapeInference` checks. What only XLA's
//! verifier adds (replica groups, mixed floating-point precision, operand
//! precision, callee parameters, layouts) stays in [`crate::verify`](mod@crate::verify).

pub mod asynchronous;
pub mod collectives;
pub mod control;
pub mod data_movement;
pub mod dot_conv;
pub mod elementwise;
mod error;
pub mod gather_scatter;
mod inferred;
mod instruction;
pub mod misc;
pub mod reduce;

pub use error::{InferError, InferFocus};
pub use inferred::InferredShape;
pub use instruction::{Request, Signature, infer};

use crate::shape::{Shape, ShapeTable};

/// `shape` as XLA's `HumanString` prints it (no layout), for messages.
pub(crate) fn shape_text(shapes: &ShapeTable, shape: Shape) -> String {
    let mut out = String::new();
    crate::text::shape::print_shape_without_layout(shapes, &mut out, shape);
    out
}

/// `shape` as HLO text with its layout, for messages.
pub(crate) fn shape_text_with_layout(shapes: &ShapeTable, shape: Shape) -> String {
    let mut out = String::new();
    crate::text::shape::print_shape(shapes, &mut out, shape);
    out
}

//! Result shapes the text omits (XLA's `CanInferShape` set): the parser fills
//! them in through [`crate::infer`], the same inference the verifier checks
//! declared shapes with. Opcodes XLA always prints with a shape (collectives,
//! async ops, reshape, …) must be written with one.
//!
//! Invariants: the inferred shape is what [`crate::infer`] gives, so a
//! dimension is dynamic wherever the operand dimension it comes from is, and
//! sizes are overflow-checked; an inferred shape prints as text that parses
//! again. Inferring allocates only for an instruction whose shape is omitted.

use crate::attrs::Attrs;
use crate::diagnostic::Span;
use crate::infer::{self, Request, Signature};
use crate::module::{Comp, Instr};
use crate::opcode::{Flags, Opcode};
use crate::shape::Shape;
use crate::text::parser::{PResult, Parser};

/// Whether the text may omit `opcode`'s result shape.
fn may_omit_shape(opcode: Opcode) -> bool {
    use Opcode as O;
    opcode.has(Flags::ELEMENTWISE)
        || matches!(
            opcode,
            O::Tuple
                | O::OptimizationBarrier
                | O::AddDependency
                | O::Copy
                | O::Domain
                | O::AfterAll
                | O::ReplicaId
                | O::PartitionId
                | O::GetDimensionSize
                | O::GetTupleElement
                | O::Call
                | O::Conditional
                | O::While
                | O::Transpose
                | O::Reverse
                | O::Concatenate
                | O::Reduce
                | O::Sort
                | O::Pad
                | O::Dot
                | O::Scan
                | O::Broadcast
        )
}

impl Parser<'_> {
    /// The result shape of an instruction written without one.
    pub(crate) fn infer_omitted_shape(
        &mut self,
        opcode: Opcode,
        operands: &[Instr],
        attrs: &Attrs,
        callees: &[Comp],
        span: Span,
    ) -> PResult<Shape> {
        if !may_omit_shape(opcode) {
            return Err(self
                .error_at(
                    span,
                    format!("cannot infer shape for opcode: {}", opcode.name()),
                )
                .with_hint(format!("write the result shape before '{}'", opcode.name())));
        }
        let operand_shapes: Vec<Shape> = operands.iter().map(|&o| self.operand_shape(o)).collect();
        let signatures: Vec<Signature> = callees
            .iter()
            .map(|&c| Signature {
                result: self.m.comps[c].root.map(|root| self.operand_shape(root)),
            })
            .collect();
        let request = Request {
            opcode,
            operands: &operand_shapes,
            attrs,
            callees: &signatures,
            declared: None,
        };
        match infer::infer(&self.m.shapes, &request) {
            Ok(inferred) => Ok(inferred.intern(&mut self.m.shapes)),
            Err(error) => Err(self
                .error_at(
                    span,
                    format!(
                        "failed to infer shape for opcode: {}, error: {}",
                        opcode.name(),
                        error.message
                    ),
                )
                .with_hint("write the result shape before the opcode")),
        }
    }
}

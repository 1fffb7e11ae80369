//! The StableHLO verifier: what the lowering to HLO relies on, with the
//! dialect's own messages where it has them.
//!
//! Split by concern:
//! 1. `structure`: every op is registered; operand, result and region counts;
//!    regions end in the right terminator; functions, calls and returns agree
//!    on types; symbols are unique; isolated regions (`func.func`,
//!    `stablehlo.async_start`) use no value from outside;
//! 2. `async_ops`: `!stablehlo.future`, `async_start` / `async_done` (the rules
//!    and messages of `AsyncStartOp::inferReturnTypes`), the explicit
//!    `*_start` / `*_done` pairs and their matching by kind, and JAX's
//!    `@…-start` / `@…-done` custom calls;
//! 3. `collectives`: the attributes of every collective (dimensions, replica
//!    groups, source-target pairs), wherever it appears — alone, in an
//!    `async_start` region, or as an explicit start;
//! 4. `chlo`: the shape rules of CHLO's elementwise families (same shape,
//!    `i1` predicates, NumPy broadcasting).
//! 5. `element_types`: the element types the spec allows for each
//!    elementwise op's operands.
//! 6. `future_uses`: every future (and JAX's `@…-start` result) is taken
//!    exactly once — by its done, or passed on through loop state, a call,
//!    a barrier or a branch result — never dropped, finished twice or used
//!    by another op. Last, so that it can stay quiet about starts the other
//!    stages already rejected.
//!
//! All errors are collected, each tied to an op; [`VerifyError::to_diagnostic`]
//! renders it at the op's name.

mod async_ops;
mod chlo;
mod collectives;
mod custom_calls;
mod element_types;
mod future_uses;
mod structure;

use weft_ir::{Diagnostic, Span};

use crate::future_origin::FutureOrigins;
use crate::ir::{Body, Op};

/// One verifier error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The op at fault.
    pub op: Op,
    /// MLIR-style message: `'stablehlo.async_start' op region must …`.
    pub message: String,
    /// How to fix it, when there is something to say.
    pub hint: Option<String>,
}

impl VerifyError {
    /// A diagnostic at the op's name (or at the start of the file when the op
    /// was built, not parsed).
    pub fn to_diagnostic(&self, body: &Body) -> Diagnostic {
        let span = body.span(self.op).unwrap_or(Span::new(0, 0));
        let mut diagnostic = Diagnostic::error(span, self.message.clone());
        if let Some(hint) = &self.hint {
            diagnostic = diagnostic.with_hint(hint.clone());
        }
        diagnostic
    }
}

/// Collects errors.
pub(crate) struct Checker<'a> {
    pub(crate) body: &'a Body,
    /// Where futures started, remembered across the stages.
    pub(crate) origins: FutureOrigins<'a>,
    errors: Vec<VerifyError>,
}

impl<'a> Checker<'a> {
    /// Reports `message` about `op`, prefixed with the op's name as MLIR does.
    pub(crate) fn report(&mut self, op: Op, message: impl AsRef<str>) -> &mut VerifyError {
        let name = self.body.ops[op].name.as_str();
        self.errors.push(VerifyError {
            op,
            message: format!("'{name}' op {}", message.as_ref()),
            hint: None,
        });
        self.errors.last_mut().expect("just pushed")
    }
}

impl VerifyError {
    /// Adds a hint.
    pub fn with_hint(&mut self, hint: impl Into<String>) -> &mut VerifyError {
        self.hint = Some(hint.into());
        self
    }
}

/// Verifies a parsed file: `Ok` when clean, else every error found, in op
/// order.
pub fn verify(body: &Body) -> Result<(), Vec<VerifyError>> {
    let mut checker = Checker {
        body,
        origins: FutureOrigins::new(body),
        errors: Vec::new(),
    };
    let mut ops = Vec::new();
    body.walk(body.module, &mut |op| ops.push(op));
    structure::check(&mut checker, &ops);
    async_ops::check(&mut checker, &ops);
    collectives::check(&mut checker, &ops);
    custom_calls::check(&mut checker, &ops);
    chlo::check(&mut checker, &ops);
    element_types::check(&mut checker, &ops);
    future_uses::check(&mut checker, &ops);
    if checker.errors.is_empty() {
        return Ok(());
    }
    let order: rustc_hash::FxHashMap<Op, usize> =
        ops.iter().enumerate().map(|(i, &op)| (op, i)).collect();
    checker
        .errors
        .sort_by_key(|e| order.get(&e.op).copied().unwrap_or(usize::MAX));
    Err(checker.errors)
}

/// A short rendering of a type for messages.
pub(crate) fn type_text(ty: &crate::ir::Type) -> String {
    let mut out = String::new();
    crate::text::types::print_type(&mut out, ty);
    out
}

//! The verifier: checks that a [`Module`] is well formed the way XLA's
//! `HloVerifier` does, and reports every problem it finds.
//!
//! Verification is separate from construction: the parser and passes build
//! modules freely, and [`verify`] says afterwards whether the result is valid.
//! It runs in stages, each in its own file:
//!
//! 1. `handles`: every operand, callee and control predecessor exists and
//!    belongs where it should, each instruction carries its opcode's attribute
//!    family, and the call graph is acyclic. Later stages rely on these facts,
//!    so verification stops here if any fails.
//! 2. `module_rules`: unique names, the entry computation, computation
//!    parameters and roots, callee signatures.
//! 3. `shapes`: per opcode family, the result shape follows from the operands
//!    and attributes (XLA's `ShapeInference`), and operands have the types the
//!    opcode needs.
//! 4. `async_rules`: XLA's async rules R1–R14, with R12 (explicit buffers)
//!    in `buffers` and R14 (collective deadlocks) in `collective_deadlock`.
//! 5. `schedule`: a scheduled module lists every live instruction once, after
//!    its operands.
//!
//! All errors are collected; each is tied to an instruction (or computation)
//! and names the rule it breaks. [`VerifyError::to_diagnostic`] locates one in
//! the parsed text.

mod async_rules;
mod buffers;
mod checker;
mod collective_deadlock;
mod error;
mod expected;
mod handles;
mod module_rules;
mod schedule;
mod shapes;

pub use error::{Rule, VerifyError};

use crate::module::Module;
use checker::Checker;

/// How strictly a module is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Compare layouts too (XLA's `layout_sensitive`). Off by default, as for
    /// modules straight from text: shapes then only need to be compatible.
    pub layout_sensitive: bool,
    /// Check that the devices' collectives cannot deadlock (R14). On by
    /// default; a compiler pipeline given a module that already fails it
    /// turns it off, since a well-formed module may still be one no device
    /// could run to the end.
    pub collective_deadlocks: bool,
}

impl Default for VerifyOptions {
    fn default() -> VerifyOptions {
        VerifyOptions {
            layout_sensitive: false,
            collective_deadlocks: true,
        }
    }
}

/// Verifies `module` with the default options.
pub fn verify(module: &Module) -> Result<(), Vec<VerifyError>> {
    verify_with(module, &VerifyOptions::default())
}

/// Verifies `module`; returns every error found, in module order.
pub fn verify_with(module: &Module, options: &VerifyOptions) -> Result<(), Vec<VerifyError>> {
    let mut checker = Checker::new(module, *options);
    handles::check(&mut checker);
    if checker.has_errors() {
        return Err(checker.into_errors());
    }
    module_rules::check(&mut checker);
    shapes::check(&mut checker);
    async_rules::check(&mut checker);
    schedule::check(&mut checker);
    if checker.has_errors() {
        Err(checker.into_errors())
    } else {
        Ok(())
    }
}

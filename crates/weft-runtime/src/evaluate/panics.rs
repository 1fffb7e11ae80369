//! A panic while evaluating — a bug in weft, never the program's fault —
//! as a [`RunError`] at the instruction that was being evaluated, so that a
//! grid can stop every device at once and say where.
//!
//! The evaluator notes each instruction it is about to run in a
//! thread-local (one store per instruction) and puts its caller's back when
//! a computation returns. A panic unwinds past that restore, so after a
//! caught panic the note names the innermost instruction that was running:
//! the reduce inside a branch, not the conditional that called it.
//!
//! The panic's own message still goes to standard error through the panic
//! hook (with a backtrace when `RUST_BACKTRACE` asks for one): it is what a
//! bug report needs. The error adds where in the program it happened.

use std::any::Any;
use std::cell::Cell;
use std::panic::AssertUnwindSafe;

use weft_ir::{Instr, Module};

use super::RunError;

thread_local! {
    /// The instruction this thread evaluates now, innermost first.
    static RUNNING: Cell<Option<Instr>> = const { Cell::new(None) };
}

/// The instruction this thread evaluates now.
pub(crate) fn running() -> Option<Instr> {
    RUNNING.get()
}

/// Notes that this thread evaluates `instr` now (`None`: no instruction).
pub(crate) fn set_running(instr: Option<Instr>) {
    RUNNING.set(instr);
}

/// Runs `work`, turning a panic into an error at the instruction of
/// `module` that was being evaluated when it happened.
pub(crate) fn catch<T>(
    module: &Module,
    work: impl FnOnce() -> Result<T, RunError>,
) -> Result<T, RunError> {
    set_running(None);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(work));
    let at = running();
    set_running(None);
    outcome.unwrap_or_else(|payload| Err(panic_error(module, at, payload.as_ref())))
}

/// The error of a panic with `payload` while evaluating `at`.
fn panic_error(module: &Module, at: Option<Instr>, payload: &(dyn Any + Send)) -> RunError {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    let message = format!("{PANICKED}: {what}");
    match at {
        Some(instr) => RunError {
            instruction: Some(format!(
                "{}/%{}",
                module.comp(module.parent(instr)).name,
                module.instr(instr).name
            )),
            instr: Some(instr),
            message,
        },
        None => RunError {
            instruction: None,
            instr: None,
            message,
        },
    }
}

/// How the error of a caught panic begins.
pub(crate) const PANICKED: &str = "weft panicked here (a bug in weft, not in the program)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_an_error_at_the_innermost_instruction() {
        let module = weft_ir::text::parse(
            "HloModule m\nENTRY e {\n  a = f32[] constant(1)\n  ROOT b = f32[] negate(a)\n}\n",
        )
        .unwrap_or_else(|d| panic!("{d:?}"));
        let entry = module.entry.expect("an entry");
        let body = module.comp(entry).body().to_vec();
        let error = catch(&module, || -> Result<(), RunError> {
            set_running(Some(body[0]));
            set_running(Some(body[1]));
            panic!("index out of bounds");
        })
        .unwrap_err();
        assert_eq!(error.instruction.as_deref(), Some("e/%b"));
        assert_eq!(error.instr, Some(body[1]));
        assert_eq!(error.message, format!("{PANICKED}: index out of bounds"));
        assert_eq!(running(), None, "the note is cleared after a catch");
        let none = catch(&module, || -> Result<(), RunError> {
            panic!("{}", String::from("formatted"))
        })
        .unwrap_err();
        assert_eq!(none.instruction, None);
        assert!(none.message.ends_with(": formatted"), "{}", none.message);
    }
}

//! Pinned order: a computation whose written order its schedule keeps.
//!
//! XLA treats the order a program is written in as a suggestion: only data
//! and control dependencies bind its schedulers, so "start, then `x + 1`,
//! then done" may run as "start, done, `x + 1`" (the first problem of the
//! Pallas async design). A computation is *pinned* when its root carries the
//! frontend attribute `_weft_pin_order="true"` (or a scheduler is told to
//! pin every computation): its schedule must keep the relative order of its
//! instructions as written (its body order).
//!
//! What the user left open stays open: an async start immediately followed
//! by its own done, with nothing written between them, is a collective the
//! user wrote synchronously (or a pass split for them). Such pairs are not
//! pinned, and a scheduler may spread them to overlap the pinned work
//! around them. Every other instruction is pinned.
//!
//! The verifier reports a scheduled, pinned computation whose sequence
//! breaks the written order, naming both instructions.

use crate::module::{Comp, Instr, Module};
use crate::opcode::{Flags, Opcode};

/// The frontend attribute that pins a computation (on its root).
pub const ATTRIBUTE: &str = "_weft_pin_order";

/// Whether `comp`'s root asks for its written order to be kept.
pub fn is_pinned(module: &Module, comp: Comp) -> bool {
    module.comp(comp).root().is_some_and(|root| {
        module
            .instr(root)
            .common()
            .frontend_attributes
            .as_ref()
            .and_then(|attributes| attributes.get(ATTRIBUTE))
            == Some("true")
    })
}

fn is_async_start(opcode: Opcode) -> bool {
    opcode == Opcode::AsyncStart || opcode.has(Flags::FIRST_CLASS_START)
}

/// The pinned instructions of `comp`, in written order: every instruction
/// but the async starts and dones written back to back (see the module
/// docs).
pub fn pinned_instructions(module: &Module, comp: Comp) -> Vec<Instr> {
    let body = module.comp(comp).body();
    let mut open = vec![false; body.len()];
    for at in 0..body.len().saturating_sub(1) {
        let (start, next) = (body[at], body[at + 1]);
        let next_data = module.instr(next);
        if is_async_start(module.instr(start).opcode)
            && next_data.operands.first() == Some(&start)
            && (next_data.opcode == Opcode::AsyncDone
                || next_data.opcode.has(Flags::FIRST_CLASS_DONE))
        {
            open[at] = true;
            open[at + 1] = true;
        }
    }
    body.iter()
        .zip(open)
        .filter(|(_, open)| !open)
        .map(|(&instr, _)| instr)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_to_back_pairs_are_left_open() {
        let module = crate::text::parse(
            "HloModule m\n\nENTRY e {\n  p = f32[8] parameter(0)\n  start = (f32[8], f32[16]) all-gather-start(p), replica_groups={{0,1}}, dimensions={0}\n  done = f32[16] all-gather-done(start)\n  n = f32[8] negate(p)\n  later_start = (f32[8], f32[16]) all-gather-start(n), replica_groups={{0,1}}, dimensions={0}\n  a = f32[8] abs(n)\n  later_done = f32[16] all-gather-done(later_start)\n  ROOT t = (f32[16], f32[16], f32[8]) tuple(done, later_done, a), frontend_attributes={_weft_pin_order=\"true\"}\n}\n",
        )
        .unwrap();
        let entry = module.entry().unwrap();
        assert!(is_pinned(&module, entry));
        let names: Vec<&str> = pinned_instructions(&module, entry)
            .into_iter()
            .map(|i| module.instr(i).name.as_str())
            .collect();
        assert_eq!(names, ["p", "n", "later_start", "a", "later_done", "t"]);
    }

    #[test]
    fn the_verifier_names_a_schedule_that_breaks_a_pinned_order() {
        let mut module = crate::text::parse(
            "HloModule m, is_scheduled=true\n\nENTRY e {\n  p = f32[8] parameter(0)\n  a = f32[8] negate(p)\n  b = f32[8] abs(p)\n  ROOT t = (f32[8], f32[8]) tuple(a, b), frontend_attributes={_weft_pin_order=\"true\"}\n}\n",
        )
        .unwrap();
        assert!(crate::verify(&module).is_ok());
        let entry = module.entry().unwrap();
        let mut sequence = module.schedule().sequence(entry).unwrap().to_vec();
        sequence.swap(1, 2);
        module.schedule_mut().set_sequence(entry, sequence);
        let errors = crate::verify(&module).unwrap_err();
        assert!(
            errors[0]
                .message
                .contains("%b is scheduled before %a, but %e pins its written order"),
            "{}",
            errors[0].message
        );
    }
}

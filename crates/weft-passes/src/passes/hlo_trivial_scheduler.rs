//! `hlo-trivial-scheduler` (XLA's `HloTrivialScheduler`): schedule every
//! computation in the order a plain depth-first walk visits it, with no
//! thought for memory.
//!
//! **Problem.** Some passes, and tests of them, need a scheduled module but
//! not a good schedule; the memory scheduler's analyses are wasted on them.
//!
//! **Algorithm.** Each computation but fusion bodies gets the order XLA's
//! `HloComputation::Accept` visits it in: a depth-first walk from each
//! instruction nothing uses or waits for (in body order), then from the
//! root, placing an instruction after its operands (left to right) and then
//! its control predecessors.
//!
//! **Invariants.** Before: a module that verifies, scheduled or not (its
//! schedule is replaced). After: the module is in the scheduled phase; every
//! computation but fusion bodies has a sequence that runs operands and
//! control predecessors first. No instruction changes.
//!
//! ```text
//! before                                  after
//!   %p = f32[4] parameter(0)                %p = f32[4] parameter(0)
//!   %b = f32[4] negate(%p)                  %a = f32[4] abs(%p)
//!   %a = f32[4] abs(%p)                     %b = f32[4] negate(%p)
//!   ROOT %r = f32[4] add(%a, %b)            ROOT %r = f32[4] add(%a, %b)
//! ```

use weft_ir::{Module, Phase};

use super::hlo_memory_scheduler::{accept_order, scheduled_computations};
use crate::pass::{OptionSpec, Options, Pass, PassError};

/// The pass's name.
pub const NAME: &str = "hlo-trivial-scheduler";

/// Its options: none.
pub const OPTIONS: &[OptionSpec] = &[];

/// Gives every computation of `module` but fusion bodies its depth-first
/// order as its schedule, replacing any it had, and moves the module to the
/// scheduled phase.
pub fn schedule_trivially(module: &mut Module) -> Result<(), PassError> {
    let mut sequences = Vec::new();
    for comp in scheduled_computations(module) {
        let Some(order) = accept_order(module, comp) else {
            return Err(PassError::new(format!(
                "the operands and control predecessors of %{} form a cycle, so it has no schedule",
                module.comp(comp).name
            )));
        };
        sequences.push((comp, order));
    }
    let old: Vec<_> = module.schedule().computations().collect();
    let schedule = module.schedule_mut();
    for comp in old {
        schedule.remove_sequence(comp);
    }
    for (comp, order) in sequences {
        schedule.set_sequence(comp, order);
    }
    module
        .advance_phase(Phase::Scheduled)
        .map_err(PassError::new)
}

struct HloTrivialScheduler;

impl Pass for HloTrivialScheduler {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        schedule_trivially(module)?;
        Ok(true)
    }
}

pub(crate) fn make(_: &Options) -> Box<dyn Pass> {
    Box::new(HloTrivialScheduler)
}

#[cfg(test)]
mod tests {
    use weft_ir::text::parse;

    #[test]
    fn every_computation_gets_the_walk_order() {
        let mut module = parse(
            "HloModule m\n\n%body (b: (s32[], s32[])) -> (s32[], s32[]) {\n  %b = (s32[], s32[]) parameter(0)\n  %g0 = s32[] get-tuple-element(%b), index=0\n  %g1 = s32[] get-tuple-element(%b), index=1\n  %add = s32[] add(%g0, %g1)\n  ROOT %t = (s32[], s32[]) tuple(%g0, %add)\n}\n\n%cond (c: (s32[], s32[])) -> pred[] {\n  %c = (s32[], s32[]) parameter(0)\n  ROOT %k = pred[] constant(true)\n}\n\nENTRY %main (p: f32[4], init: (s32[], s32[])) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %init = (s32[], s32[]) parameter(1)\n  %loop = (s32[], s32[]) while(%init), condition=%cond, body=%body\n  %n = f32[4] negate(%p)\n  %a = f32[4] abs(%p)\n  ROOT %r = f32[4] add(%a, %n)\n}\n",
        )
        .expect("parses");
        super::schedule_trivially(&mut module).expect("schedules");
        weft_ir::verify(&module).expect("verifies");
        assert!(module.is_scheduled());
        let names = |comp: &str| -> Vec<String> {
            let comp = module.comp_by_name(comp).unwrap();
            let sequence = module.schedule().sequence(comp).unwrap();
            sequence
                .iter()
                .map(|&i| module.instr(i).name.to_string())
                .collect()
        };
        // The loop is an unreachable root: walked first. Then the root's
        // operands left to right. In the condition, the unused parameter
        // comes before the root.
        assert_eq!(names("main"), ["init", "loop", "p", "a", "n", "r"]);
        assert_eq!(names("cond"), ["c", "k"]);
        assert_eq!(names("body"), ["b", "g0", "g1", "add", "t"]);
    }
}

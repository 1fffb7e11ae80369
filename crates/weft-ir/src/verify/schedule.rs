//! The schedule of a scheduled module: each sequence lists every live
//! instruction of its computation exactly once, and each instruction comes after
//! its operands and control predecessors.

use crate::entity::EntityRef;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

pub(super) fn check(cx: &mut Checker) {
    let m = cx.m;
    let Some(schedule) = &m.schedule else {
        return;
    };
    // Position of each instruction in its sequence (u32::MAX: not scheduled),
    // and the computation whose body holds it.
    let mut position = vec![u32::MAX; m.instrs.len()];
    let mut home = vec![None; m.instrs.len()];
    for comp in cx.computations() {
        for &instr in cx.body(comp) {
            home[instr.index()] = Some(comp);
        }
    }
    for (comp, sequence) in &schedule.sequences {
        let comp = *comp;
        let name = &m.comps[comp].name;
        for (at, &instr) in sequence.iter().enumerate() {
            if m.instrs.get(instr).is_none() {
                cx.report_comp(
                    Rule::Schedule,
                    comp,
                    format!(
                        "the schedule of %{name} lists instruction #{} which does not exist",
                        instr.index()
                    ),
                );
                continue;
            }
            if home[instr.index()] != Some(comp) {
                cx.report(
                    Rule::Schedule,
                    instr,
                    format!(
                        "the schedule of %{name} lists {}, which is not one of its instructions",
                        cx.name(instr)
                    ),
                );
                continue;
            }
            if position[instr.index()] != u32::MAX {
                cx.report(
                    Rule::Schedule,
                    instr,
                    format!(
                        "{} appears more than once in the schedule of %{name}",
                        cx.name(instr)
                    ),
                );
                continue;
            }
            position[instr.index()] = at as u32;
        }
        for &instr in &m.comps[comp].body {
            let at = position[instr.index()];
            if at == u32::MAX {
                cx.report(
                    Rule::Schedule,
                    instr,
                    format!("{} is missing from the schedule of %{name}", cx.name(instr)),
                )
                .with_hint("a scheduled computation lists every instruction it has");
                continue;
            }
            let data = cx.data(instr);
            let before = data.operands.iter().chain(data.control_predecessors());
            for &operand in before {
                let operand_at = position[operand.index()];
                if operand_at != u32::MAX && operand_at > at {
                    cx.report(
                        Rule::Schedule,
                        instr,
                        format!(
                            "{} is scheduled before {}, which it uses",
                            cx.name(instr),
                            cx.name(operand)
                        ),
                    )
                    .with_hint(
                        "in a scheduled module, operands and control predecessors run first",
                    );
                }
            }
        }
    }
}

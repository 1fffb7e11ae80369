//! The schedule of a scheduled module: each sequence lists every live
//! instruction of its computation exactly once, and each instruction comes after
//! its operands and control predecessors.

use crate::entity::EntityRef;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

pub(super) fn check(cx: &mut Checker) {
    let m = cx.m;
    let schedule = m.schedule();
    if m.is_scheduled() {
        // The scheduled phase's invariant: every computation XLA schedules
        // (all but fusion bodies) has a sequence.
        let fusion_bodies: rustc_hash::FxHashSet<_> = m
            .all_instrs()
            .filter(|&i| m.instrs[i].opcode == crate::opcode::Opcode::Fusion)
            .flat_map(|i| m.instrs[i].callees.iter().copied())
            .collect();
        for comp in cx.computations() {
            if schedule.sequence(comp).is_none() && !fusion_bodies.contains(&comp) {
                let name = &m.comps[comp].name;
                cx.report_comp(
                    Rule::Schedule,
                    comp,
                    format!("the module is scheduled, but %{name} has no schedule"),
                )
                .with_hint("a scheduled module gives every computation but fusion bodies a sequence; schedule it, or edit it through the editor, which keeps sequences in step");
            }
        }
    }
    // Position of each instruction in its sequence (u32::MAX: not scheduled),
    // and the computation whose body holds it.
    let mut position = vec![u32::MAX; m.instrs.len()];
    let mut home = vec![None; m.instrs.len()];
    for comp in cx.computations() {
        for &instr in cx.body(comp) {
            home[instr.index()] = Some(comp);
        }
    }
    let scheduled: Vec<_> = cx
        .computations()
        .filter_map(|comp| Some((comp, schedule.sequence(comp)?)))
        .collect();
    for (comp, sequence) in scheduled {
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

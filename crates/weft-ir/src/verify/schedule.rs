//! The schedule of a scheduled module: each sequence lists every live
//! instruction of its computation exactly once, each instruction comes after
//! its operands (an optimization barrier's users after the barrier, named as
//! such) and control predecessors, and a pinned computation keeps its written
//! order ([`crate::pinned_order`]).

use crate::entity::EntityRef;
use crate::opcode::Opcode;
use crate::pinned_order;
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
            for &operand in data.operands.iter() {
                let operand_at = position[operand.index()];
                if operand_at != u32::MAX && operand_at > at {
                    let barrier = cx.data(operand).opcode == Opcode::OptimizationBarrier;
                    let message = if barrier {
                        format!(
                            "{} is scheduled before the optimization barrier {}, whose result it uses",
                            cx.name(instr),
                            cx.name(operand)
                        )
                    } else {
                        format!(
                            "{} is scheduled before {}, which it uses",
                            cx.name(instr),
                            cx.name(operand)
                        )
                    };
                    cx.report(Rule::Schedule, instr, message).with_hint(
                        "in a scheduled module, operands and control predecessors run first",
                    );
                }
            }
            for &predecessor in data.control_predecessors() {
                let predecessor_at = position[predecessor.index()];
                if predecessor_at != u32::MAX && predecessor_at > at {
                    cx.report(
                        Rule::Schedule,
                        instr,
                        format!(
                            "{} is scheduled before its control predecessor {}",
                            cx.name(instr),
                            cx.name(predecessor)
                        ),
                    )
                    .with_hint(
                        "in a scheduled module, operands and control predecessors run first",
                    );
                }
            }
        }
        if pinned_order::is_pinned(m, comp) {
            check_pinned(cx, comp, &position);
        }
    }
}

/// A pinned computation's sequence keeps its written order.
fn check_pinned(cx: &mut Checker, comp: crate::module::Comp, position: &[u32]) {
    let m = cx.m;
    let pinned = pinned_order::pinned_instructions(m, comp);
    for pair in pinned.windows(2) {
        let (first, second) = (pair[0], pair[1]);
        let (first_at, second_at) = (position[first.index()], position[second.index()]);
        if first_at != u32::MAX && second_at != u32::MAX && second_at < first_at {
            let name = &m.comps[comp].name;
            cx.report(
                Rule::Schedule,
                second,
                format!(
                    "{} is scheduled before {}, but %{name} pins its written order ({}=\"true\"), which puts {} first",
                    cx.name(second),
                    cx.name(first),
                    pinned_order::ATTRIBUTE,
                    cx.name(first)
                ),
            )
            .with_hint("schedule the pinned computation in its written order; only async pairs written back to back may move");
            return;
        }
    }
}

//! Structural integrity, checked before anything reads shapes: every handle an
//! instruction or computation holds points at a live entity in the right place,
//! each instruction carries its opcode's attribute family and operand count, and
//! the call graph is acyclic.
//!
//! After this stage passes, later stages may index operands, callees,
//! parameters and roots freely and may recurse along callees without a cycle
//! guard.

use crate::entity::EntityRef;
use crate::module::{Comp, Instr};
use crate::opcode::Arity;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

pub(super) fn check(cx: &mut Checker) {
    let m = cx.m;
    // Where each live instruction is: its computation, by instruction index.
    let mut home: Vec<Option<Comp>> = vec![None; m.instrs.len()];
    let mut live_comp = vec![false; m.comps.len()];
    for comp in cx.computations() {
        if comp.index() >= m.comps.len() {
            cx.report_module(
                Rule::Handles,
                format!(
                    "the module lists computation #{} which does not exist",
                    comp.index()
                ),
            );
            continue;
        }
        live_comp[comp.index()] = true;
        for &instr in cx.body(comp) {
            match home.get_mut(instr.index()) {
                None => {
                    cx.report_comp(
                        Rule::Handles,
                        comp,
                        format!(
                            "the body lists instruction #{} which does not exist",
                            instr.index()
                        ),
                    );
                }
                Some(Some(_)) => {
                    cx.report(Rule::Handles, instr, format!(
                        "instruction {} is listed in more than one computation body (or twice in one)",
                        cx.name(instr)
                    ));
                }
                Some(slot) => *slot = Some(comp),
            }
        }
    }
    if cx.has_errors() {
        return;
    }
    for comp in cx.computations() {
        for &instr in cx.body(comp) {
            check_instruction(cx, instr, comp, &home, &live_comp);
        }
        let data = &m.comps[comp];
        match data.root {
            None => {
                cx.report_comp(
                    Rule::Computation,
                    comp,
                    format!("computation %{} has no root", data.name),
                );
            }
            Some(root) if home.get(root.index()).copied().flatten() != Some(comp) => {
                cx.report_comp(
                    Rule::Handles,
                    comp,
                    format!(
                        "the root of computation %{} is not one of its instructions",
                        data.name
                    ),
                );
            }
            Some(_) => {}
        }
        for (number, &param) in data.params.iter().enumerate() {
            if home.get(param.index()).copied().flatten() != Some(comp) {
                cx.report_comp(
                    Rule::Handles,
                    comp,
                    format!(
                        "parameter {number} of computation %{} is not one of its instructions",
                        data.name
                    ),
                );
            }
        }
    }
    if !cx.has_errors() {
        check_call_graph(cx);
    }
}

fn check_instruction(
    cx: &mut Checker,
    instr: Instr,
    comp: Comp,
    home: &[Option<Comp>],
    live_comp: &[bool],
) {
    let data = cx.data(instr);
    match cx.m.parents.get(instr) {
        Some(&parent) if parent == comp => {}
        Some(_) => {
            cx.report(
                Rule::Handles,
                instr,
                format!(
                    "instruction {} is in the body of %{} but names another computation as its parent",
                    cx.name(instr),
                    cx.m.comps[comp].name
                ),
            );
        }
        // Pushed straight onto `Module::instrs` instead of through `add_instr`.
        None => {
            cx.report(
                Rule::Handles,
                instr,
                format!(
                    "instruction {} is in the body of %{} but has no parent recorded",
                    cx.name(instr),
                    cx.m.comps[comp].name
                ),
            );
        }
    }
    let in_comp = |other: Instr| home.get(other.index()).copied().flatten() == Some(comp);
    for (i, &operand) in data.operands.iter().enumerate() {
        if !in_comp(operand) {
            cx.report(
                Rule::Handles,
                instr,
                format!(
                    "operand {i} of {} is not an instruction of the same computation",
                    cx.name(instr)
                ),
            )
            .at_operand(i);
        }
    }
    for &predecessor in data.control_predecessors() {
        if !in_comp(predecessor) {
            cx.report(
                Rule::Handles,
                instr,
                format!(
                    "a control predecessor of {} is not an instruction of the same computation",
                    cx.name(instr)
                ),
            )
            .at_attribute("control-predecessors");
        }
    }
    for &callee in &data.callees {
        if !live_comp.get(callee.index()).copied().unwrap_or(false) {
            cx.report(
                Rule::Handles,
                instr,
                format!(
                    "{} calls computation #{} which is not in the module",
                    cx.name(instr),
                    callee.index()
                ),
            );
        }
    }
    let opcode = data.opcode;
    if data.attrs.family() != opcode.family() {
        cx.report(
            Rule::Handles,
            instr,
            format!(
                "{} carries {:?} attributes, but {opcode} takes {:?} attributes",
                cx.name(instr),
                data.attrs.family(),
                opcode.family()
            ),
        );
    }
    if let Arity::Fixed(n) = opcode.arity()
        && data.operands.len() != usize::from(n)
    {
        cx.report(
            Rule::OperandCount,
            instr,
            format!(
                "{opcode} takes {n} operand{}, but {} has {}",
                if n == 1 { "" } else { "s" },
                cx.name(instr),
                data.operands.len()
            ),
        )
        .at_opcode();
    }
}

/// Reports one error per cycle of computations calling each other.
fn check_call_graph(cx: &mut Checker) {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unvisited,
        OnStack,
        Done,
    }
    let m = cx.m;
    let mut state = vec![State::Unvisited; m.comps.len()];
    let callees_of = |comp: Comp| -> Vec<Comp> {
        let mut out: Vec<Comp> = m.comps[comp]
            .body
            .iter()
            .flat_map(|&i| m.instrs[i].callees.iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    };
    for start in cx.computations() {
        if state[start.index()] != State::Unvisited {
            continue;
        }
        // Iterative depth-first search: call chains can be deep.
        let mut stack: Vec<(Comp, Vec<Comp>, usize)> = vec![(start, callees_of(start), 0)];
        state[start.index()] = State::OnStack;
        while let Some((comp, callees, next)) = stack.last_mut() {
            let comp = *comp;
            let Some(&callee) = callees.get(*next) else {
                state[comp.index()] = State::Done;
                stack.pop();
                continue;
            };
            *next += 1;
            match state[callee.index()] {
                State::Done => {}
                State::OnStack => {
                    let cycle: Vec<String> = stack
                        .iter()
                        .skip_while(|(c, _, _)| *c != callee)
                        .map(|(c, _, _)| format!("%{}", m.comps[*c].name))
                        .collect();
                    let caller = comp;
                    cx.report_comp(
                        Rule::CallGraph,
                        caller,
                        format!(
                            "computations call each other in a cycle: {} -> %{}",
                            cycle.join(" -> "),
                            m.comps[callee].name
                        ),
                    )
                    .with_hint("HLO computations may not be recursive");
                }
                State::Unvisited => {
                    state[callee.index()] = State::OnStack;
                    let next_callees = callees_of(callee);
                    stack.push((callee, next_callees, 0));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::verify::{Rule, verify};

    const TWO_COMPUTATIONS: &str = "HloModule m

%other (p: f32[]) -> f32[] {
  ROOT %p = f32[] parameter(0)
}

ENTRY %main (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %n = f32[] negate(%x)
}
";

    fn handle_errors(m: &crate::Module) -> Vec<String> {
        let errors = verify(m).expect_err("the module is broken");
        errors
            .into_iter()
            .filter(|e| e.rule == Rule::Handles)
            .map(|e| e.message)
            .collect()
    }

    #[test]
    fn an_instruction_in_the_body_of_another_computation_is_reported() {
        let mut m = crate::text::parse(TWO_COMPUTATIONS).unwrap();
        let other = m.comp_by_name("other").unwrap();
        let main = m.comp_by_name("main").unwrap();
        let stray = m.comps[other].body.remove(0);
        m.comps[main].body.insert(0, stray);
        let errors = handle_errors(&m);
        assert!(
            errors.iter().any(|e| e
                == "instruction %p is in the body of %main but names another computation as its parent"),
            "{errors:?}"
        );
    }

    #[test]
    fn an_instruction_pushed_without_a_parent_is_reported() {
        let mut m = crate::text::parse(TWO_COMPUTATIONS).unwrap();
        let main = m.comp_by_name("main").unwrap();
        let root = m.comps[main].root.unwrap();
        let mut copy = m.instrs[root].clone();
        copy.name = "copy".into();
        let pushed = m.instrs.push(copy);
        m.comps[main].body.push(pushed);
        let errors = handle_errors(&m);
        assert!(
            errors.iter().any(
                |e| e == "instruction %copy is in the body of %main but has no parent recorded"
            ),
            "{errors:?}"
        );
    }
}

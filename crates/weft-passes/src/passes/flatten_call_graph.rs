//! `flatten-call-graph` (XLA's `FlattenCallGraph`).
//!
//! **Problem.** One computation may be the body of two while loops, the
//! branch of two conditionals, or the callee of two calls. Passes that
//! rewrite a loop body for its loop — pipelining a collective, unrolling,
//! annotating per-loop facts — would then rewrite it for every other caller
//! too. A flat call graph, where each control-flow call site has its own
//! computation, lets such passes treat a computation and its call site as
//! one.
//!
//! **Algorithm.** Computations are visited callees first. For each
//! computation run as control flow (a while condition or body, a
//! conditional branch, a call), every control-flow call site but the first
//! gets a clone: the call site's slot that named the computation (a while's
//! condition before its body, a conditional's first matching branch) now
//! names the clone, and every computation the clone runs as control flow is
//! cloned in turn, all the way down, so that nothing below a clone is shared
//! either. A computation called both as control flow and embedded (inside a
//! fusion, a reduce, …) is cloned for its first control-flow site too.
//! Embedded calls (fusion bodies, reducers, comparators) are left shared,
//! and so are the computations async ops wrap, as in XLA.
//!
//! A clone is named `name.clone` (made unique as XLA makes names: a second
//! clone is `name.clone.1`), and so are its instructions; it keeps the
//! original's execution thread, and a clone of a scheduled computation gets
//! the original's sequence, cloned. The originals stay where they are, so
//! the first call site keeps them. As XLA's pass does, it reports a change
//! whether or not it cloned anything.
//!
//! **Invariants.** Before: a module that verifies. After: it computes the
//! same values; every computation run as control flow has exactly one call
//! site, except those async ops wrap; schedules cover every clone.
//!
//! ```text
//! before                                               after
//!   %w1 = while(%a), condition=%c, body=%b               %w1 = while(%a), condition=%c, body=%b
//!   %w2 = while(%w1), condition=%c, body=%b              %w2 = while(%w1), condition=%c.clone, body=%b.clone
//! ```

use rustc_hash::FxHashMap;
use weft_ir::order::post_order;
use weft_ir::{Comp, Editor, Instr, Module, Opcode};

use crate::analysis::call_graph::{self, CallContext, CallGraph};
use crate::pass::{OptionSpec, Options, Pass, PassError};

/// The pass's name.
pub const NAME: &str = "flatten-call-graph";

/// Its options: none.
pub const OPTIONS: &[OptionSpec] = &[];

/// Flattens `module`'s call graph (see the module docs); returns `true`, as
/// XLA's pass does.
pub fn flatten_call_graph(module: &mut Module) -> Result<bool, PassError> {
    let graph = CallGraph::of(module);
    let wrapped = call_graph::async_computations(module);
    let mut editor = module.edit();
    for &comp in graph.callees_first() {
        if wrapped.contains(&comp) {
            continue;
        }
        let called_both_ways = graph.context(comp) == CallContext::Both;
        for (position, site) in graph.callers_of(comp).iter().enumerate() {
            if site.context != CallContext::ControlFlow || (position == 0 && !called_both_ways) {
                continue;
            }
            let clone = clone_computation(&mut editor, comp)?;
            replace_callee(&mut editor, site.instr, comp, clone)?;
            clone_control_flow_below(&mut editor, clone)?;
        }
    }
    Ok(true)
}

/// Gives every computation run as control flow from `top`, and from the
/// clones made on the way, a clone of its own.
fn clone_control_flow_below(editor: &mut Editor<'_>, top: Comp) -> Result<(), PassError> {
    let mut worklist = vec![top];
    while let Some(current) = worklist.pop() {
        let body: Vec<Instr> = editor.module().comp(current).body().to_vec();
        for instr in body {
            let opcode = editor.data(instr).opcode;
            // Async ops share their wrapped computation with their partners.
            if call_graph::call_context(opcode) != CallContext::ControlFlow
                || matches!(
                    opcode,
                    Opcode::AsyncStart | Opcode::AsyncUpdate | Opcode::AsyncDone
                )
            {
                continue;
            }
            for slot in 0..editor.data(instr).callees.len() {
                let callee = editor.data(instr).callees[slot];
                let callee_clone = clone_computation(editor, callee)?;
                editor.data_mut(instr).callees[slot] = callee_clone;
                worklist.push(callee_clone);
            }
        }
    }
    Ok(())
}

/// Makes `site` call `clone` in the one slot where it called `original`
/// (XLA's `ReplaceCalledComputation`).
fn replace_callee(
    editor: &mut Editor<'_>,
    site: Instr,
    original: Comp,
    clone: Comp,
) -> Result<(), PassError> {
    let data = editor.data(site);
    let callees = &data.callees;
    let slot = match data.opcode {
        // A while's callees are its body, then its condition; XLA looks at
        // the condition first.
        Opcode::While if callees.len() == 2 => {
            if callees[1] == original {
                Some(1)
            } else {
                Some(0).filter(|_| callees[0] == original)
            }
        }
        Opcode::Call | Opcode::Conditional => callees.iter().position(|&c| c == original),
        _ => None,
    };
    let Some(slot) = slot else {
        return Err(PassError::new(format!(
            "%{} ({}) does not call %{} as control flow",
            data.name,
            data.opcode.name(),
            editor.module().comp(original).name
        )));
    };
    editor.data_mut(site).callees[slot] = clone;
    Ok(())
}

/// A copy of `original` named `original.clone` (made unique), its
/// instructions renamed the same way, with the original's sequence when it
/// has one. The copy calls what the original calls.
fn clone_computation(editor: &mut Editor<'_>, original: Comp) -> Result<Comp, PassError> {
    let name = editor.unique_comp_name(&format!("{}.clone", editor.module().comp(original).name));
    let clone = editor.add_comp(name);
    let thread = editor.module().comp(original).execution_thread.clone();
    editor.comp_mut(clone).execution_thread = thread;
    // XLA clones in post order, which decides who gets which name.
    let order = post_order(editor.module(), original);
    let mut clones: FxHashMap<Instr, Instr> = FxHashMap::default();
    let outside = |editor: &Editor<'_>, instr: Instr| {
        PassError::new(format!(
            "%{} is used in %{} but is not one of its instructions",
            editor.data(instr).name,
            editor.module().comp(original).name
        ))
    };
    for &instr in &order {
        let mut data = editor.data(instr).clone();
        data.name = editor.unique_instr_name(&format!("{}.clone", data.name));
        for operand in data.operands.iter_mut() {
            *operand = *clones
                .get(operand)
                .ok_or_else(|| outside(editor, *operand))?;
        }
        if let Some(common) = data.common.as_deref_mut() {
            for predecessor in &mut common.control_predecessors {
                *predecessor = *clones
                    .get(predecessor)
                    .ok_or_else(|| outside(editor, *predecessor))?;
            }
        }
        clones.insert(instr, editor.append(clone, data));
    }
    if let Some(root) = editor.module().comp(original).root() {
        let root = *clones.get(&root).ok_or_else(|| outside(editor, root))?;
        editor.set_root(clone, root);
    }
    if let Some(sequence) = editor.module().schedule().sequence(original) {
        let cloned: Vec<Instr> = sequence
            .iter()
            .filter_map(|instr| clones.get(instr).copied())
            .collect();
        editor.schedule_mut().set_sequence(clone, cloned);
    }
    Ok(clone)
}

struct FlattenCallGraph;

impl Pass for FlattenCallGraph {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        flatten_call_graph(module)
    }
}

pub(crate) fn make(_: &Options) -> Box<dyn Pass> {
    Box::new(FlattenCallGraph)
}

#[cfg(test)]
mod tests {
    use weft_ir::text::{PrintOptions, parse, print};

    fn flatten(text: &str) -> String {
        let mut module = parse(text).expect("parses");
        super::flatten_call_graph(&mut module).expect("runs");
        weft_ir::verify(&module).expect("still verifies");
        print(&module, &PrintOptions::long())
    }

    const TWO_LOOPS: &str = "HloModule m\n\n%add (x: s32[], y: s32[]) -> s32[] {\n  %x = s32[] parameter(0)\n  %y = s32[] parameter(1)\n  ROOT %s = s32[] add(%x, %y)\n}\n\n%step (i: s32[]) -> s32[] {\n  %i = s32[] parameter(0)\n  %one = s32[] constant(1)\n  ROOT %next = s32[] add(%i, %one)\n}\n\n%body (p: (s32[])) -> (s32[]) {\n  %p = (s32[]) parameter(0)\n  %i = s32[] get-tuple-element(%p), index=0\n  %next = s32[] call(%i), to_apply=%step\n  ROOT %t = (s32[]) tuple(%next)\n}\n\n%cond (p: (s32[])) -> pred[] {\n  %p = (s32[]) parameter(0)\n  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(10)\n  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n\nENTRY %main (a: (s32[])) -> (s32[]) {\n  %a = (s32[]) parameter(0)\n  %w1 = (s32[]) while(%a), condition=%cond, body=%body\n  ROOT %w2 = (s32[]) while(%w1), condition=%cond, body=%body\n}\n";

    #[test]
    fn a_second_loop_gets_clones_all_the_way_down() {
        let text = flatten(TWO_LOOPS);
        assert!(
            text.contains("%w1 = (s32[]) while((s32[]) %a), condition=%cond, body=%body\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "ROOT %w2 = (s32[]) while((s32[]) %w1), condition=%cond.clone, body=%body.clone\n"
            ),
            "{text}"
        );
        // The call inside the cloned body calls a clone of its own.
        assert!(
            text.contains("%next.1.clone = s32[] call(s32[] %i.1.clone), to_apply=%step.clone\n"),
            "{text}"
        );
        assert!(
            text.contains("ROOT %next.clone = s32[] add(s32[] %i.clone, s32[] %one.clone)\n"),
            "{text}"
        );
    }

    #[test]
    fn embedded_calls_stay_shared_and_a_second_clone_is_numbered() {
        let text = TWO_LOOPS.replace(
            "  ROOT %w2 = (s32[]) while(%w1), condition=%cond, body=%body\n",
            "  %w2 = (s32[]) while(%w1), condition=%cond, body=%body\n  %w3 = (s32[]) while(%w2), condition=%cond, body=%body\n  %v = s32[] get-tuple-element(%w3), index=0\n  %z = s32[] constant(0)\n  %r = s32[] reduce(%v, %z), dimensions={}, to_apply=%add\n  %r2 = s32[] reduce(%v, %z), dimensions={}, to_apply=%add\n  ROOT %t = (s32[]) tuple(%r2)\n",
        );
        let out = flatten(&text);
        assert!(
            out.contains("condition=%cond.clone.1, body=%body.clone.1"),
            "{out}"
        );
        assert_eq!(out.matches("to_apply=%add\n").count(), 2, "{out}");
        assert!(!out.contains("%add.clone"), "{out}");
    }

    #[test]
    fn a_scheduled_clone_gets_the_cloned_sequence() {
        let text = TWO_LOOPS.replace("HloModule m", "HloModule m, is_scheduled=true");
        let mut module = parse(&text).expect("parses");
        super::flatten_call_graph(&mut module).expect("runs");
        weft_ir::verify(&module).expect("still verifies");
        let body = module.comp_by_name("body.clone").expect("cloned");
        let names: Vec<&str> = module
            .schedule()
            .sequence(body)
            .expect("scheduled")
            .iter()
            .map(|&instr| module.instr(instr).name.as_str())
            .collect();
        assert_eq!(names, ["p.clone", "i.1.clone", "next.1.clone", "t.clone"]);
    }
}

//! Happens-before between instructions (XLA's `HloOrdering`: the
//! dependency ordering of an unscheduled module, the sequential ordering of
//! a scheduled one).
//!
//! Within a computation, `a` happens before `b` when:
//! - the computation is scheduled and `a` comes earlier in its sequence;
//! - otherwise, when `b` depends on `a`: through operands and control
//!   predecessors, transitively. An `opt-barrier` orders what passes through
//!   it exactly this way: whatever reads its result depends on all its
//!   operands.
//!
//! Across computations, an instruction of a control-flow callee (a loop body,
//! a branch, a called or async-wrapped computation) runs *at* its call site:
//! `a` happens before `b` when their nearest ancestors in a common
//! computation are ordered that way. Two instructions of the same callee
//! reached through different call sites are ordered by those sites.
//!
//! Invariants: the relation is irreflexive and transitive; for a scheduled
//! computation it is the sequence's order, so it is total there.

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::{Comp, Instr, Module};

use super::call_graph::{CallContext, CallGraph};

/// Happens-before for one module (see the module docs).
pub struct Ordering<'m> {
    module: &'m Module,
    graph: CallGraph,
    positions: FxHashMap<Instr, usize>,
}

impl<'m> Ordering<'m> {
    /// The ordering of `module`: sequential where it is scheduled, by
    /// dependencies elsewhere.
    pub fn of(module: &'m Module) -> Ordering<'m> {
        let mut positions = FxHashMap::default();
        for comp in module.computations() {
            if let Some(sequence) = module.schedule().sequence(comp) {
                for (at, &instr) in sequence.iter().enumerate() {
                    positions.insert(instr, at);
                }
            }
        }
        Ordering {
            module,
            graph: CallGraph::of(module),
            positions,
        }
    }

    /// Whether `a` happens before `b`.
    pub fn executes_before(&self, a: Instr, b: Instr) -> bool {
        if a == b {
            return false;
        }
        let (a_chain, b_chain) = (self.call_chain(a), self.call_chain(b));
        // The nearest computation both run in, and the instruction standing
        // for each there.
        for &(comp_a, at_a) in &a_chain {
            if let Some(&(_, at_b)) = b_chain.iter().find(|(comp_b, _)| *comp_b == comp_a) {
                if at_a == at_b {
                    // One runs inside the other's call (or both inside the
                    // same call): the caller comes after its callee's work.
                    return at_b == b && at_a != a;
                }
                return self.before_in(comp_a, at_a, at_b);
            }
        }
        false
    }

    /// `instr`, then the control-flow call site of its computation, and so
    /// on up: each with the computation it stands in.
    fn call_chain(&self, instr: Instr) -> Vec<(Comp, Instr)> {
        let mut chain = vec![(self.module.parent(instr), instr)];
        let mut seen = FxHashSet::default();
        while let Some(&(comp, _)) = chain.last() {
            if !seen.insert(comp) {
                break;
            }
            let site = self.graph.callers_of(comp).iter().find(|site| {
                super::call_graph::call_context(self.module.instr(site.instr).opcode)
                    == CallContext::ControlFlow
            });
            match site {
                Some(site) => chain.push((self.module.parent(site.instr), site.instr)),
                None => break,
            }
        }
        chain
    }

    /// Whether `a` happens before `b`, both in `comp`.
    fn before_in(&self, comp: Comp, a: Instr, b: Instr) -> bool {
        if self.module.schedule().sequence(comp).is_some() {
            return match (self.positions.get(&a), self.positions.get(&b)) {
                (Some(x), Some(y)) => x < y,
                _ => false,
            };
        }
        // Does `b` depend on `a`? Walk back from `b`.
        let mut pending = vec![b];
        let mut seen = FxHashSet::default();
        while let Some(current) = pending.pop() {
            let data = self.module.instr(current);
            for &before in data.operands.iter().chain(data.control_predecessors()) {
                if before == a {
                    return true;
                }
                if seen.insert(before) {
                    pending.push(before);
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::find;

    #[test]
    fn dependencies_order_an_unscheduled_computation() {
        let module = weft_ir::text::parse(
            "HloModule m\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %a = f32[4] negate(%p)\n  %b = f32[4] abs(%p)\n  %c = f32[4] exponential(%p), control-predecessors={%b}\n  ROOT %d = f32[4] add(%a, %c)\n}\n",
        )
        .expect("parses");
        let ordering = Ordering::of(&module);
        let [p, a, b, c, d] = ["p", "a", "b", "c", "d"].map(|n| find(&module, n));
        assert!(ordering.executes_before(p, d) && ordering.executes_before(b, c));
        assert!(ordering.executes_before(b, d), "through the control edge");
        assert!(!ordering.executes_before(a, b) && !ordering.executes_before(b, a));
        assert!(!ordering.executes_before(d, p) && !ordering.executes_before(a, a));
    }

    #[test]
    fn a_schedule_orders_everything_and_callees_run_at_their_call() {
        let module = weft_ir::text::parse(
            "HloModule m, is_scheduled=true\n\n%callee (x: f32[4]) -> f32[4] {\n  %x = f32[4] parameter(0)\n  ROOT %n = f32[4] negate(%x)\n}\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %a = f32[4] abs(%p)\n  %call = f32[4] call(%p), to_apply=%callee\n  ROOT %b = f32[4] add(%a, %call)\n}\n",
        )
        .expect("parses");
        let ordering = Ordering::of(&module);
        let [a, n, call, b] = ["a", "n", "call", "b"].map(|name| find(&module, name));
        assert!(ordering.executes_before(a, n), "a is before the call");
        assert!(ordering.executes_before(n, b) && ordering.executes_before(n, call));
        assert!(!ordering.executes_before(call, n));
    }
}

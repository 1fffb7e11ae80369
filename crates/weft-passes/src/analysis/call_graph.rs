//! The call graph (XLA's `CallGraph`): which instructions call which
//! computations, and in what context.
//!
//! XLA tells two kinds of call apart, and so does every analysis built on
//! this one:
//! - **control flow**: the callee runs as part of the caller's sequence —
//!   a `while`'s condition and body, a `conditional`'s branches, a `call`'s
//!   callee, and the computation an `async-start` wraps (it runs beside the
//!   caller, on its own stream). Its values are values of the program, with
//!   buffers of their own;
//! - **embedded**: the callee is a piece of the calling instruction — a
//!   fusion body, a reducer or comparator (`to_apply` of reduce, map, sort,
//!   scatter, all-reduce, …). Its values live inside the instruction.
//!
//! A computation called in both ways has context *both*; the entry and
//! computations nothing calls have none.
//!
//! Invariants: every call site is listed once, in module order; a
//! computation's context is the union of its call sites'.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;
use weft_ir::{Comp, Instr, Module, Opcode};

/// How a computation is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallContext {
    /// Part of the caller's sequence (while, conditional, call, async).
    ControlFlow,
    /// A piece of the calling instruction (fusion, reducers, comparators).
    Embedded,
    /// Called both ways.
    Both,
    /// Not called (the entry, or dead computations).
    None,
}

impl CallContext {
    fn union(self, other: CallContext) -> CallContext {
        match (self, other) {
            (CallContext::None, x) | (x, CallContext::None) => x,
            (a, b) if a == b => a,
            _ => CallContext::Both,
        }
    }

    /// The context's name, as the dump writes it.
    pub fn name(self) -> &'static str {
        match self {
            CallContext::ControlFlow => "control-flow",
            CallContext::Embedded => "embedded",
            CallContext::Both => "both",
            CallContext::None => "none",
        }
    }
}

/// One instruction calling one computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The calling instruction.
    pub instruction: Instr,
    /// The computation it calls.
    pub callee: Comp,
    /// How.
    pub context: CallContext,
}

/// The context in which `opcode` calls its computations (XLA's
/// `GetInstructionCallContext`).
pub fn call_context(opcode: Opcode) -> CallContext {
    match opcode {
        Opcode::Call
        | Opcode::Conditional
        | Opcode::While
        | Opcode::AsyncStart
        | Opcode::AsyncUpdate
        | Opcode::AsyncDone => CallContext::ControlFlow,
        _ => CallContext::Embedded,
    }
}

/// A module's call graph.
pub struct CallGraph {
    sites: Vec<CallSite>,
    callers: FxHashMap<Comp, Vec<usize>>,
    contexts: FxHashMap<Comp, CallContext>,
}

impl CallGraph {
    /// The call graph of `module`.
    pub fn of(module: &Module) -> CallGraph {
        let mut graph = CallGraph {
            sites: Vec::new(),
            callers: FxHashMap::default(),
            contexts: FxHashMap::default(),
        };
        for instr in module.all_instrs() {
            let data = module.instr(instr);
            let context = call_context(data.opcode);
            for &callee in data.callees.iter() {
                graph
                    .callers
                    .entry(callee)
                    .or_default()
                    .push(graph.sites.len());
                let known = graph.contexts.entry(callee).or_insert(CallContext::None);
                *known = known.union(context);
                graph.sites.push(CallSite {
                    instruction: instr,
                    callee,
                    context,
                });
            }
        }
        graph
    }

    /// Every call site, in module order.
    pub fn sites(&self) -> &[CallSite] {
        &self.sites
    }

    /// The call sites of `comp`.
    pub fn callers(&self, comp: Comp) -> impl Iterator<Item = &CallSite> {
        self.callers
            .get(&comp)
            .into_iter()
            .flatten()
            .map(|&at| &self.sites[at])
    }

    /// How `comp` is called.
    pub fn context(&self, comp: Comp) -> CallContext {
        self.contexts
            .get(&comp)
            .copied()
            .unwrap_or(CallContext::None)
    }

    /// Whether every computation is called from at most one site (XLA's
    /// `IsFlattened`, what `flatten-call-graph` makes true).
    pub fn is_flattened(&self) -> bool {
        self.callers.values().all(|sites| sites.len() <= 1)
    }

    /// The graph as text: per computation its context and callers.
    pub fn dump(&self, module: &Module) -> String {
        let mut out = String::new();
        for comp in module.computations() {
            let name = &module.comp(comp).name;
            let _ = write!(out, "%{name}: {}", self.context(comp).name());
            let callers: Vec<String> = self
                .callers(comp)
                .map(|site| format!("%{}", module.instr(site.instruction).name))
                .collect();
            if !callers.is_empty() {
                let _ = write!(out, ", called by {}", callers.join(", "));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_follow_the_calling_opcode() {
        let module = weft_ir::text::parse(
            "HloModule m\n\n%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n\n%body (x: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  ROOT %y = f32[] call(%x, %x), to_apply=%add\n}\n\nENTRY %main (p: f32[4]) -> f32[] {\n  %p = f32[4] parameter(0)\n  %z = f32[] constant(0)\n  %r = f32[] reduce(%p, %z), dimensions={0}, to_apply=%add\n  ROOT %c = f32[] call(%r), to_apply=%body\n}\n",
        )
        .expect("parses");
        let graph = CallGraph::of(&module);
        assert_eq!(
            graph.dump(&module),
            "%add: both, called by %y, %r\n%body: control-flow, called by %c\n%main: none\n"
        );
        assert!(!graph.is_flattened());
    }
}

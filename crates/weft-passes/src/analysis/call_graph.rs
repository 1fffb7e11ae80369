//! Who calls which computation, and in what context (XLA's `CallGraph`).
//!
//! A computation is called in one of two ways. Control flow runs it as a
//! sequence of its own — a while loop's condition and body, a conditional's
//! branches, a `call`, the computation an async op wraps. Embedded calls hand
//! it to another instruction as an operation to apply element by element or
//! to fuse — a reducer, a fusion body, a sort's comparator. A computation's
//! *context* is how it runs: a loop body inside a fusion is embedded too, so
//! the context flows down from the callers ([`CallContext::Both`] when callers
//! disagree).
//!
//! The graph lists, for each computation, the call sites that call it, in
//! the order XLA finds them (computations in module order, instructions in
//! body order, each callee slot once), and visits computations callees first
//! (from the entry, then whatever the entry does not reach), which is the
//! order a pass that rewrites callers from their callees needs.

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::{Comp, Instr, Module, Opcode};

/// How a computation is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallContext {
    /// Not called (yet).
    None,
    /// As a sequence of its own: while, conditional, call, async ops.
    ControlFlow,
    /// Applied inside another instruction: fusion, reduce, sort, map, ….
    Embedded,
    /// Both, from different callers.
    Both,
}

impl CallContext {
    /// The context's name, as the dump writes it.
    pub fn name(self) -> &'static str {
        match self {
            CallContext::ControlFlow => "control-flow",
            CallContext::Embedded => "embedded",
            CallContext::Both => "both",
            CallContext::None => "none",
        }
    }

    /// The context of a computation called in both `self` and `other`.
    fn union(self, other: CallContext) -> CallContext {
        match (self, other) {
            (CallContext::None, other) => other,
            (this, CallContext::None) => this,
            (this, other) if this == other => this,
            _ => CallContext::Both,
        }
    }
}

/// The context in which an instruction of `opcode` calls its computations
/// (XLA's `GetInstructionCallContext`).
pub fn call_context(opcode: Opcode) -> CallContext {
    match opcode {
        Opcode::Call
        | Opcode::Conditional
        | Opcode::While
        | Opcode::AsyncStart
        | Opcode::AsyncUpdate
        | Opcode::AsyncDone => CallContext::ControlFlow,
        Opcode::AllReduce
        | Opcode::ReduceScatter
        | Opcode::AllReduceStart
        | Opcode::Map
        | Opcode::Reduce
        | Opcode::ReduceWindow
        | Opcode::Scatter
        | Opcode::SelectAndScatter
        | Opcode::Sort
        | Opcode::TopK
        | Opcode::Fusion
        | Opcode::CustomCall => CallContext::Embedded,
        _ => CallContext::None,
    }
}

/// One instruction calling a computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The calling instruction.
    pub instr: Instr,
    /// How it calls.
    pub context: CallContext,
}

/// The call graph of a module, as it was when built.
pub struct CallGraph {
    callers: FxHashMap<Comp, Vec<CallSite>>,
    contexts: FxHashMap<Comp, CallContext>,
    callees_first: Vec<Comp>,
}

impl CallGraph {
    /// The call graph of `module`.
    pub fn of(module: &Module) -> CallGraph {
        let mut callers: FxHashMap<Comp, Vec<CallSite>> = FxHashMap::default();
        for comp in module.computations() {
            for &instr in module.comp(comp).body() {
                let data = module.instr(instr);
                let site = CallSite {
                    instr,
                    context: call_context(data.opcode),
                };
                // Once per callee slot: a while whose condition is its body
                // calls it twice, as XLA counts.
                for &callee in data.callees.iter() {
                    callers.entry(callee).or_default().push(site);
                }
            }
        }
        let contexts = contexts(module, &callers);
        let callees_first = callees_first(module);
        CallGraph {
            callers,
            contexts,
            callees_first,
        }
    }

    /// The call sites that call `comp`, in XLA's order.
    pub fn callers_of(&self, comp: Comp) -> &[CallSite] {
        self.callers.get(&comp).map_or(&[], Vec::as_slice)
    }

    /// How `comp` is run.
    pub fn context(&self, comp: Comp) -> CallContext {
        self.contexts
            .get(&comp)
            .copied()
            .unwrap_or(CallContext::None)
    }

    /// Every computation, each after the computations it calls (XLA's
    /// `VisitNodes` order).
    pub fn callees_first(&self) -> &[Comp] {
        &self.callees_first
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
            out.push_str(&format!(
                "%{}: {}",
                module.comp(comp).name,
                self.context(comp).name()
            ));
            let callers: Vec<String> = self
                .callers_of(comp)
                .iter()
                .map(|site| format!("%{}", module.instr(site.instr).name))
                .collect();
            if !callers.is_empty() {
                out.push_str(&format!(", called by {}", callers.join(", ")));
            }
            out.push('\n');
        }
        out
    }
}

/// XLA's `SetCallContexts`: computations nothing calls run as control flow,
/// and contexts flow down from callers to callees.
fn contexts(
    module: &Module,
    callers: &FxHashMap<Comp, Vec<CallSite>>,
) -> FxHashMap<Comp, CallContext> {
    let mut contexts: FxHashMap<Comp, CallContext> = FxHashMap::default();
    let mut worklist: Vec<Comp> = Vec::new();
    for comp in module.computations() {
        if !callers.contains_key(&comp) {
            contexts.insert(comp, CallContext::ControlFlow);
            worklist.push(comp);
        }
    }
    while let Some(comp) = worklist.pop() {
        let context = contexts[&comp];
        for &instr in module.comp(comp).body() {
            let data = module.instr(instr);
            let passed = match call_context(data.opcode) {
                CallContext::Embedded => CallContext::Embedded,
                _ => context,
            };
            for &callee in data.callees.iter() {
                let before = contexts.get(&callee).copied().unwrap_or(CallContext::None);
                let after = before.union(passed);
                if after != before {
                    contexts.insert(callee, after);
                    worklist.push(callee);
                }
            }
        }
    }
    contexts
}

/// Post-order from the entry, then from each computation it does not reach,
/// in module order.
fn callees_first(module: &Module) -> Vec<Comp> {
    let mut order = Vec::new();
    let mut visited: FxHashSet<Comp> = FxHashSet::default();
    let roots = module.entry.into_iter().chain(module.computations());
    for root in roots {
        if !visited.insert(root) {
            continue;
        }
        // Iterative: call chains may be long.
        let mut stack: Vec<(Comp, Vec<Comp>, usize)> =
            vec![(root, distinct_callees(module, root), 0)];
        while let Some((comp, callees, next)) = stack.last_mut() {
            if let Some(&callee) = callees.get(*next) {
                *next += 1;
                if visited.insert(callee) {
                    let callees = distinct_callees(module, callee);
                    stack.push((callee, callees, 0));
                }
            } else {
                order.push(*comp);
                stack.pop();
            }
        }
    }
    order
}

fn distinct_callees(module: &Module, comp: Comp) -> Vec<Comp> {
    let mut callees: Vec<Comp> = Vec::new();
    for &instr in module.comp(comp).body() {
        for &callee in module.instr(instr).callees.iter() {
            if !callees.contains(&callee) {
                callees.push(callee);
            }
        }
    }
    callees
}

/// The computations async ops wrap (XLA's `IsAsyncComputation`).
pub fn async_computations(module: &Module) -> FxHashSet<Comp> {
    module
        .all_instrs()
        .filter(|&instr| {
            matches!(
                module.instr(instr).opcode,
                Opcode::AsyncStart | Opcode::AsyncUpdate | Opcode::AsyncDone
            )
        })
        .flat_map(|instr| module.instr(instr).callees.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::text::parse;

    #[test]
    fn callers_contexts_and_order() {
        let module = parse("HloModule m\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\n%f (a: f32[4]) -> f32[] {\n  %a = f32[4] parameter(0)\n  %z = f32[] constant(0)\n  ROOT %r = f32[] reduce(%a, %z), dimensions={0}, to_apply=%add\n}\n\nENTRY %main (p: f32[4]) -> (f32[], f32[], f32[]) {\n  %p = f32[4] parameter(0)\n  %c1 = f32[] call(%p), to_apply=%f\n  %c2 = f32[] call(%p), to_apply=%f\n  %z = f32[] constant(0)\n  %r = f32[] reduce(%p, %z), dimensions={0}, to_apply=%add\n  ROOT %t = (f32[], f32[], f32[]) tuple(%c1, %c2, %r)\n}\n").expect("parses");
        let graph = CallGraph::of(&module);
        let f = module.comp_by_name("f").unwrap();
        let add = module.comp_by_name("add").unwrap();
        let main = module.entry.unwrap();
        assert_eq!(graph.callers_of(f).len(), 2);
        assert_eq!(graph.context(f), CallContext::ControlFlow);
        assert_eq!(graph.context(add), CallContext::Embedded);
        assert_eq!(graph.context(main), CallContext::ControlFlow);
        assert_eq!(graph.callees_first(), &[add, f, main]);
        assert!(!graph.is_flattened());
        assert_eq!(
            graph.dump(&module),
            "%add: embedded, called by %r, %r.1\n%f: control-flow, called by %c1, %c2\n%main: control-flow\n"
        );
    }
}

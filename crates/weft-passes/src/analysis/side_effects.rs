//! Which instructions have side effects, as XLA's
//! `HloInstruction::HasSideEffect` decides: an instruction with one is never
//! removed as dead, and never merged or reordered freely.
//!
//! An instruction has a side effect when its opcode has one (send, recv and
//! their dones, infeed, outfeed, rng, the first-class async collectives), a
//! custom call says it has one, a collective constrains its layout, or a
//! collective with a channel runs where SPMD partitioning did not make it
//! (XLA's `use_spmd_partitioning`, off for a module read from text); or when a
//! computation it calls has an instruction with one (a while loop around a
//! send, an async-start around a collective with a channel — and that
//! start's updates and done, which finish it).

use rustc_hash::FxHashMap;
use weft_ir::attrs::Attrs;
use weft_ir::opcode::Flags;
use weft_ir::{Comp, Instr, Module, Opcode};

/// Whether each computation holds an instruction with a side effect,
/// computed once for a module.
pub struct SideEffects {
    computations: FxHashMap<Comp, bool>,
}

impl SideEffects {
    /// The side effects of `module`'s computations.
    pub fn of(module: &Module) -> SideEffects {
        let mut effects = SideEffects {
            computations: FxHashMap::default(),
        };
        // Callees before callers: a computation's answer needs its callees'.
        for comp in callees_first(module) {
            let has = module
                .comp(comp)
                .body()
                .iter()
                .any(|&instr| effects.instruction(module, instr));
            effects.computations.insert(comp, has);
        }
        effects
    }

    /// Whether `instr` has a side effect (itself, or in what it calls). An
    /// async-update or async-done has its chain's: the wrapped
    /// computation's, whether or not it names it (a start whose done went
    /// would be left unfinished).
    pub fn instruction(&self, module: &Module, instr: Instr) -> bool {
        let data = module.instr(instr);
        let calls_effect = |callee: &Comp| self.computations.get(callee).copied().unwrap_or(false);
        if own_side_effect(module, instr) || data.callees.iter().any(calls_effect) {
            return true;
        }
        matches!(data.opcode, Opcode::AsyncUpdate | Opcode::AsyncDone)
            && weft_ir::async_chain::ChainTracer::new(module)
                .wrapped_computation(instr)
                .is_some_and(|wrapped| calls_effect(&wrapped))
    }
}

/// XLA's `HasSideEffectNoRecurse`.
pub fn own_side_effect(module: &Module, instr: Instr) -> bool {
    let data = module.instr(instr);
    match data.opcode {
        Opcode::AllReduceStart
        | Opcode::AllReduceDone
        | Opcode::AllGatherStart
        | Opcode::AllGatherDone
        | Opcode::CollectivePermuteStart
        | Opcode::CollectivePermuteDone => true,
        Opcode::AllToAll | Opcode::AllGather | Opcode::AllReduce | Opcode::ReduceScatter => {
            let constrained = matches!(&data.attrs, Attrs::Collective(c) if c.constrain_layout);
            constrained || has_channel(module, instr)
        }
        Opcode::CollectivePermute => has_channel(module, instr),
        Opcode::CustomCall => {
            matches!(&data.attrs, Attrs::CustomCall(c) if c.has_side_effect)
        }
        opcode => opcode.has(Flags::SIDE_EFFECT),
    }
}

/// A collective with a channel. XLA exempts SPMD-partitioned modules
/// (`use_spmd_partitioning`, a compiler setting no HLO text carries, off for
/// a module read from text), so weft, reading text, never does.
fn has_channel(module: &Module, instr: Instr) -> bool {
    match &module.instr(instr).attrs {
        Attrs::Collective(c) => c.channel_id.is_some(),
        Attrs::CollectivePermute(c) => c.channel_id.is_some(),
        _ => false,
    }
}

/// The module's computations, every callee before its callers.
pub fn callees_first(module: &Module) -> Vec<Comp> {
    let mut order = Vec::new();
    let mut state: FxHashMap<Comp, bool> = FxHashMap::default();
    for root in module.computations() {
        if state.contains_key(&root) {
            continue;
        }
        // Iterative post-order: call chains may be long.
        let mut stack: Vec<(Comp, usize)> = vec![(root, 0)];
        state.insert(root, false);
        while let Some((comp, next)) = stack.pop() {
            let callees: Vec<Comp> = module
                .comp(comp)
                .body()
                .iter()
                .flat_map(|&i| module.instr(i).callees.iter().copied())
                .collect();
            if let Some(&callee) = callees.get(next) {
                stack.push((comp, next + 1));
                if let std::collections::hash_map::Entry::Vacant(slot) = state.entry(callee) {
                    slot.insert(false);
                    stack.push((callee, 0));
                }
            } else {
                state.insert(comp, true);
                order.push(comp);
            }
        }
    }
    order
}

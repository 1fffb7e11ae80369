//! Async chains, derived rather than stored: from an `async-update` or
//! `async-done` back to the `async-start` that began it, and to the computation
//! it wraps.
//!
//! A chain's value may pass through intermediaries before reaching the next op of
//! the chain, exactly as XLA allows: `tuple` / `get-tuple-element` (followed by
//! shape index), `opt-barrier`, `copy`, the metadata custom-calls (`Sharding`,
//! `LocalToGlobalShape`, `GlobalToLocalShape`, `xla.sdy.*`), and while loops (a
//! body or condition parameter leads to the while's operand; a while result leads
//! into the body root).

use rustc_hash::FxHashMap;

use crate::attrs::Attrs;
use crate::module::{Comp, Instr, Module};
use crate::opcode::Opcode;

/// Whether `target` is one of the custom-call targets that only annotate their
/// operand (and so may sit inside an async chain).
pub fn is_metadata_custom_call(target: &str) -> bool {
    matches!(
        target,
        "Sharding" | "LocalToGlobalShape" | "GlobalToLocalShape"
    ) || target.starts_with("xla.sdy.")
}

/// Which while loops call each computation (as body or condition).
pub fn while_callers(m: &Module) -> FxHashMap<Comp, Vec<Instr>> {
    let mut callers: FxHashMap<Comp, Vec<Instr>> = FxHashMap::default();
    for instr in m.all_instrs() {
        let data = m.instr(instr);
        if data.opcode == Opcode::While {
            for &c in &data.callees {
                callers.entry(c).or_default().push(instr);
            }
        }
    }
    callers
}

/// Traces chains; holds the while-caller map and the chain starts found so far,
/// so repeated queries stay cheap (a chain of n updates costs O(n) in all, not
/// O(n²)).
pub struct ChainTracer<'m> {
    m: &'m Module,
    callers: Option<FxHashMap<Comp, Vec<Instr>>>,
    starts: FxHashMap<Instr, Option<Instr>>,
}

impl<'m> ChainTracer<'m> {
    /// A tracer over `m`.
    pub fn new(m: &'m Module) -> Self {
        ChainTracer {
            m,
            callers: None,
            starts: FxHashMap::default(),
        }
    }

    /// The async-start or async-update whose value reaches `instr` at shape
    /// `index`, if the value comes from one.
    pub fn producer(&mut self, instr: Instr, index: &[i64]) -> Option<Instr> {
        self.producer_visiting(instr, index, |_| {})
    }

    /// [`producer`](Self::producer), calling `visit` on every instruction the
    /// walk reads (`instr` first, the producer last).
    pub fn producer_visiting(
        &mut self,
        instr: Instr,
        index: &[i64],
        visit: impl FnMut(Instr),
    ) -> Option<Instr> {
        self.origin_visiting(
            instr,
            index,
            |opcode| matches!(opcode, Opcode::AsyncStart | Opcode::AsyncUpdate),
            visit,
        )
    }

    /// The instruction whose whole value reaches `instr` at shape `index`
    /// through the intermediaries chains may pass, stopping at the first one
    /// whose opcode `is_origin` accepts (e.g. a first-class
    /// `collective-permute-start` carried through a loop to its done).
    pub fn origin(
        &mut self,
        instr: Instr,
        index: &[i64],
        is_origin: impl Fn(Opcode) -> bool,
    ) -> Option<Instr> {
        self.origin_visiting(instr, index, is_origin, |_| {})
    }

    /// [`origin`](Self::origin), calling `visit` on every instruction the walk
    /// reads.
    pub fn origin_visiting(
        &mut self,
        instr: Instr,
        index: &[i64],
        is_origin: impl Fn(Opcode) -> bool,
        mut visit: impl FnMut(Instr),
    ) -> Option<Instr> {
        let mut index = index.to_vec();
        let mut current = instr;
        // A bounded walk: chains through loops could otherwise cycle.
        for _ in 0..10_000 {
            visit(current);
            let data = self.m.instr(current);
            match data.opcode {
                opcode if index.is_empty() && is_origin(opcode) => return Some(current),
                Opcode::GetTupleElement => {
                    let Attrs::GetTupleElement { index: i } = data.attrs else {
                        return None;
                    };
                    index.insert(0, i);
                    current = *data.operands.first()?;
                }
                Opcode::Tuple => {
                    let (&first, rest) = index.split_first()?;
                    current = *data.operands.get(usize::try_from(first).ok()?)?;
                    index = rest.to_vec();
                }
                Opcode::OptimizationBarrier | Opcode::Copy => {
                    current = *data.operands.first()?;
                }
                Opcode::CustomCall => match &data.attrs {
                    Attrs::CustomCall(cc) if is_metadata_custom_call(&cc.target) => {
                        current = *data.operands.first()?;
                    }
                    _ => return None,
                },
                Opcode::Parameter => {
                    let comp = self.m.parent(current);
                    let callers = self.callers.get_or_insert_with(|| while_callers(self.m));
                    let &caller = callers.get(&comp)?.first()?;
                    current = *self.m.instr(caller).operands.first()?;
                }
                // A loop's result is its body's last value, which (like XLA)
                // is where a chain carried through the loop continues.
                Opcode::While => {
                    let &body = data.callees.first()?;
                    current = self.m.comp(body).root?;
                }
                _ => return None,
            }
        }
        None
    }

    /// The async-start a chain element (start, update or done) belongs to.
    pub fn chain_start(&mut self, instr: Instr) -> Option<Instr> {
        // Walk back to the start (or to an op whose start is already known),
        // then remember the answer for every op on the way.
        let mut walked: Vec<Instr> = Vec::new();
        let mut on_path: rustc_hash::FxHashSet<Instr> = Default::default();
        let mut current = instr;
        let start = loop {
            if let Some(&known) = self.starts.get(&current) {
                break known;
            }
            let data = self.m.instr(current);
            match data.opcode {
                Opcode::AsyncStart => break Some(current),
                Opcode::AsyncUpdate | Opcode::AsyncDone => {
                    // A chain that runs back into itself has no start.
                    if !on_path.insert(current) {
                        break None;
                    }
                    walked.push(current);
                    match data.operands.first().and_then(|&o| self.producer(o, &[])) {
                        Some(next) => current = next,
                        None => break None,
                    }
                }
                _ => break None,
            }
        };
        for w in walked {
            self.starts.insert(w, start);
        }
        start
    }

    /// The computation an async op wraps: its own `calls=`, else its chain
    /// start's.
    pub fn wrapped_computation(&mut self, instr: Instr) -> Option<Comp> {
        let data = self.m.instr(instr);
        if !data.opcode.is_generic_async() {
            return None;
        }
        if let Some(&c) = data.callees.first() {
            return Some(c);
        }
        let start = self.chain_start(instr)?;
        self.m.instr(start).callees.first().copied()
    }

    /// The execution thread of an async op's chain (`main` when unknown).
    pub fn thread(&mut self, instr: Instr) -> String {
        let start = self.chain_start(instr).unwrap_or(instr);
        match &self.m.instr(start).attrs {
            Attrs::Async(a) => a
                .thread
                .clone()
                .unwrap_or_else(|| crate::module::MAIN_THREAD.to_string()),
            _ => crate::module::MAIN_THREAD.to_string(),
        }
    }
}

/// Whether a wrapped computation is just its root plus parameters, so that the
/// async ops around it can print as `<op>-start` sugar.
pub fn is_single_instruction(m: &Module, comp: Comp) -> bool {
    let data = m.comp(comp);
    let Some(root) = data.root else {
        return false;
    };
    data.body
        .iter()
        .all(|&i| i == root || m.instr(i).opcode == Opcode::Parameter)
}

//! The ordering constraints of one computation, numbered densely: what must
//! run before each instruction (its operands and control predecessors) and
//! what waits for it (its users and control successors).
//!
//! Instructions are numbered in body order, as
//! [`BufferUses`](crate::analysis::buffer_uses::BufferUses) numbers them, so
//! the schedulers index both with one number. Each list holds an
//! instruction once even when it is an operand twice: XLA's
//! `unique_operands` and `users`. Users come in body order, the order a
//! parse adds them in, which is the order XLA visits `users()` in.
//!
//! Invariant: `b` is in `users(a)` exactly when `a` is in `operands(b)`, and
//! likewise for control edges; every number is below `len()`.

use rustc_hash::FxHashMap;
use weft_ir::{Comp, Instr, Module};

/// The dependency graph of one computation (see the module docs).
pub(super) struct Dependencies {
    pub(super) instructions: Vec<Instr>,
    operands: Vec<Vec<usize>>,
    control_predecessors: Vec<Vec<usize>>,
    users: Vec<Vec<usize>>,
    control_successors: Vec<Vec<usize>>,
    /// Each instruction's operands with repeats, in order (XLA's
    /// `operands()`).
    all_operands: Vec<Vec<usize>>,
    root: Option<usize>,
}

impl Dependencies {
    /// The graph of `comp`.
    pub(super) fn of(module: &Module, comp: Comp) -> Dependencies {
        let instructions: Vec<Instr> = module.comp(comp).body().to_vec();
        let number: FxHashMap<Instr, usize> = instructions
            .iter()
            .enumerate()
            .map(|(at, &instr)| (instr, at))
            .collect();
        let count = instructions.len();
        let mut graph = Dependencies {
            operands: vec![Vec::new(); count],
            control_predecessors: vec![Vec::new(); count],
            users: vec![Vec::new(); count],
            control_successors: vec![Vec::new(); count],
            all_operands: vec![Vec::new(); count],
            root: module
                .comp(comp)
                .root()
                .and_then(|r| number.get(&r).copied()),
            instructions,
        };
        for at in 0..count {
            let data = module.instr(graph.instructions[at]);
            for operand in data.operands.iter() {
                let Some(&from) = number.get(operand) else {
                    continue;
                };
                graph.all_operands[at].push(from);
                if !graph.operands[at].contains(&from) {
                    graph.operands[at].push(from);
                    graph.users[from].push(at);
                }
            }
            for predecessor in data.control_predecessors() {
                let Some(&from) = number.get(predecessor) else {
                    continue;
                };
                if !graph.control_predecessors[at].contains(&from) {
                    graph.control_predecessors[at].push(from);
                    graph.control_successors[from].push(at);
                }
            }
        }
        graph
    }

    /// How many instructions the computation has.
    pub(super) fn len(&self) -> usize {
        self.instructions.len()
    }

    /// The operands of `at`, each once, in operand order.
    pub(super) fn operands(&self, at: usize) -> &[usize] {
        &self.operands[at]
    }

    /// The operands of `at` as written, repeats included.
    pub(super) fn operands_with_repeats(&self, at: usize) -> &[usize] {
        &self.all_operands[at]
    }

    /// The control predecessors of `at`.
    pub(super) fn control_predecessors(&self, at: usize) -> &[usize] {
        &self.control_predecessors[at]
    }

    /// The users of `at`, each once, in body order.
    pub(super) fn users(&self, at: usize) -> &[usize] {
        &self.users[at]
    }

    /// The control successors of `at`.
    pub(super) fn control_successors(&self, at: usize) -> &[usize] {
        &self.control_successors[at]
    }

    /// The computation's root.
    pub(super) fn root(&self) -> Option<usize> {
        self.root
    }

    /// How many instructions must run before `at`: its operands and control
    /// predecessors.
    pub(super) fn predecessor_count(&self, at: usize) -> usize {
        self.operands[at].len() + self.control_predecessors[at].len()
    }

    /// The instructions the computation's root does not reach: nothing uses
    /// them, nothing waits for them, and they are not the root (XLA's
    /// `CollectUnreachableRoots`), in body order.
    pub(super) fn unreachable_roots(&self) -> Vec<usize> {
        (0..self.len())
            .filter(|&at| {
                Some(at) != self.root
                    && self.users[at].is_empty()
                    && self.control_successors[at].is_empty()
            })
            .collect()
    }
}

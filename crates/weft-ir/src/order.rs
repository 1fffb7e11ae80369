//! XLA's post-order of a computation's instructions
//! (`HloComputation::MakeInstructionPostOrder`): the order the text printer
//! writes an unscheduled computation in, and the order the evaluator runs it
//! in, so that a module runs in the order it prints.
//!
//! Each instruction of the body that nothing in the computation uses starts,
//! in body order, a depth-first walk; the walk visits an instruction's control
//! predecessors, then its operands left to right, then (except for the
//! instruction the walk started from) the collectives it must follow because
//! they share its channel id, and places the instruction after all of them.
//!
//! Invariants: every instruction of the body is placed exactly once, even in a
//! computation with a cycle (which the verifier rejects: an instruction met
//! again while its own walk is under way is placed there); in an acyclic
//! computation each instruction comes after its operands and control
//! predecessors. The order is computed from a `&Module` and is stale as soon as
//! the module changes; a scheduled computation has its schedule instead.

use rustc_hash::FxHashMap;

use crate::attrs::Attrs;
use crate::module::{Comp, Instr, Module};
use crate::opcode::Opcode;

/// XLA's instruction post-order for an unscheduled computation.
pub fn post_order(m: &Module, comp: Comp) -> Vec<Instr> {
    PostOrder::new(m).order(comp)
}

/// Computes post-orders computation by computation, reusing module-wide dense
/// state (so walking every computation of a large module stays linear).
pub(crate) struct PostOrder<'m> {
    m: &'m Module,
    /// Per instruction: 0 new, 1 visiting, 2 visited.
    state: Vec<u8>,
    /// Per instruction: whether something in its computation uses it.
    used: Vec<bool>,
    stack: Vec<Instr>,
}

impl<'m> PostOrder<'m> {
    pub(crate) fn new(m: &'m Module) -> Self {
        PostOrder {
            m,
            state: vec![0; m.instrs.len()],
            used: vec![false; m.instrs.len()],
            stack: Vec::new(),
        }
    }

    /// The post-order of `comp`.
    pub(crate) fn order(&mut self, comp: Comp) -> Vec<Instr> {
        use crate::entity::EntityRef;
        const VISITING: u8 = 1;
        const VISITED: u8 = 2;
        let m = self.m;
        let body = &m.comp(comp).body;
        for &i in body {
            for &o in &m.instr(i).operands {
                self.used[o.index()] = true;
            }
        }
        let deps = channel_dependencies(m, comp);
        let mut order = Vec::with_capacity(body.len());
        for &start in body {
            if self.used[start.index()] || self.state[start.index()] == VISITED {
                continue;
            }
            self.stack.clear();
            self.stack.push(start);
            while let Some(&current) = self.stack.last() {
                let state = &mut self.state[current.index()];
                if *state != 0 {
                    self.stack.pop();
                    if *state != VISITED {
                        *state = VISITED;
                        order.push(current);
                    }
                    continue;
                }
                *state = VISITING;
                let data = m.instr(current);
                let state = &self.state;
                let stack = &mut self.stack;
                let mut push = |i: Instr| {
                    if state[i.index()] != VISITED {
                        stack.push(i);
                    }
                };
                if current != start {
                    deps.of(current).iter().for_each(|&i| push(i));
                }
                data.operands.iter().rev().for_each(|&i| push(i));
                data.control_predecessors().iter().for_each(|&i| push(i));
            }
        }
        order
    }
}

/// Collectives with the same channel id in one computation must be performed
/// together: each depends on the earlier ones (XLA's `ComputeChannelDependencies`;
/// none under SPMD partitioning). Stored as groups plus each member's position, so
/// a module where every collective shares one channel id (as JAX emits) stays
/// linear.
#[derive(Default)]
struct ChannelDependencies {
    groups: Vec<Vec<Instr>>,
    /// Member → (group, position in it).
    members: FxHashMap<Instr, (usize, usize)>,
}

impl ChannelDependencies {
    /// The collectives `instr` depends on.
    fn of(&self, instr: Instr) -> &[Instr] {
        match self.members.get(&instr) {
            Some(&(group, position)) => &self.groups[group][..position],
            None => &[],
        }
    }
}

fn channel_dependencies(m: &Module, comp: Comp) -> ChannelDependencies {
    let mut deps = ChannelDependencies::default();
    if m.config.partitions() != 1 {
        return deps;
    }
    let mut group_of: FxHashMap<i64, usize> = FxHashMap::default();
    for &i in &m.comp(comp).body {
        let data = m.instr(i);
        let channel = match (&data.opcode, &data.attrs) {
            (
                Opcode::AllReduce
                | Opcode::AllGather
                | Opcode::AllToAll
                | Opcode::CollectiveBroadcast
                | Opcode::RaggedAllToAll
                | Opcode::ReduceScatter,
                Attrs::Collective(c),
            ) => c.channel_id,
            (Opcode::CollectivePermute, Attrs::CollectivePermute(c)) => c.channel_id,
            _ => None,
        };
        if let Some(channel) = channel {
            let next = deps.groups.len();
            let group = *group_of.entry(channel).or_insert(next);
            if group == next {
                deps.groups.push(Vec::new());
            }
            let position = deps.groups[group].len();
            deps.groups[group].push(i);
            deps.members.insert(i, (group, position));
        }
    }
    deps
}

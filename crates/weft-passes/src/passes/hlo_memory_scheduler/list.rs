//! The list scheduler (XLA's `ListMemoryScheduler`): a greedy top-down
//! order that, among the instructions whose operands and control
//! predecessors have run, always places the one that frees the most bytes
//! net of what it allocates.
//!
//! **Priority.** An instruction's priority is the pair (bytes freed − bytes
//! defined, number of users), compared in that order; the highest runs next.
//! It frees each non-free value it reads (see
//! [`crate::analysis::buffer_uses`]) whose last remaining use it is, and
//! defines its own values. Three exceptions, as in XLA: an instruction whose
//! result is an effective scalar (one element) goes first, so that scalars
//! cluster together and can stay in registers; an outfeed with a config
//! goes first and an infeed with a config goes last, to give the other end
//! of the transfer time.
//!
//! **Ties** go to the instruction that became ready — or whose priority
//! last changed — most recently, as XLA's multimap of the ready list gives
//! them; so on the same module this scheduler and XLA's agree.
//!
//! **Updates.** Placing an instruction lowers its operands' remaining use
//! counts; when one reaches 1, its last user will free it, so every ready
//! user of the placed instruction's operands has its priority recomputed.
//!
//! Greedy, so not optimal: an instruction whose result is larger than its
//! operands is put off as long as anything else is ready, even when running
//! it early would lower the peak.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use weft_ir::attrs::Attrs;
use weft_ir::{Instr, Module, Opcode};

use super::dependencies::Dependencies;
use crate::analysis::buffer_uses::BufferUses;
use crate::analysis::dataflow::ValueId;

/// (bytes freed − bytes defined, users): higher runs first.
type Priority = (i64, i64);

/// The list scheduler's order of the computation `graph` and `uses`
/// describe, or `None` when its dependencies form a cycle.
pub(super) fn list_order(
    module: &Module,
    graph: &Dependencies,
    uses: &BufferUses,
) -> Option<Vec<Instr>> {
    let count = graph.len();
    let mut remaining_uses: FxHashMap<ValueId, u32> = uses.use_counts();
    let mut waiting_for: Vec<usize> = (0..count).map(|at| graph.predecessor_count(at)).collect();
    // The ready list, highest key last; the sequence number breaks ties in
    // favour of the latest insertion.
    let mut ready: BTreeMap<(Priority, u64), usize> = BTreeMap::new();
    let mut key_of: Vec<Option<(Priority, u64)>> = vec![None; count];
    let mut inserted: u64 = 0;

    let priority = |at: usize, remaining_uses: &FxHashMap<ValueId, u32>| -> Priority {
        let instr = graph.instructions[at];
        if is_effective_scalar(module, instr) {
            return (i64::MAX, i64::MAX);
        }
        let users = graph.users(at).len() as i64;
        let data = module.instr(instr);
        match (&data.opcode, &data.attrs) {
            (Opcode::Outfeed, Attrs::Outfeed(outfeed)) if !outfeed.config.is_empty() => {
                return (i64::from(i32::MAX), users);
            }
            (Opcode::Infeed, Attrs::Infeed { config }) if !config.is_empty() => {
                return (i64::from(i32::MIN), users);
            }
            _ => {}
        }
        let freed: u64 = uses
            .used(at)
            .iter()
            .filter(|&&value| !uses.is_free(value) && remaining_uses.get(&value) == Some(&1))
            .map(|&value| uses.bytes(value))
            .sum();
        (freed as i64 - uses.bytes_defined(at) as i64, users)
    };

    let mut make_ready = |at: usize,
                          remaining_uses: &FxHashMap<ValueId, u32>,
                          ready: &mut BTreeMap<(Priority, u64), usize>,
                          key_of: &mut Vec<Option<(Priority, u64)>>| {
        let key = (priority(at, remaining_uses), inserted);
        inserted += 1;
        ready.insert(key, at);
        key_of[at] = Some(key);
    };

    for (at, &waiting) in waiting_for.iter().enumerate() {
        if waiting == 0 {
            make_ready(at, &remaining_uses, &mut ready, &mut key_of);
        }
    }
    let mut order = Vec::with_capacity(count);
    while let Some((_, best)) = ready.pop_last() {
        key_of[best] = None;
        order.push(graph.instructions[best]);

        let mut some_value_has_one_use_left = false;
        for value in uses.used(best) {
            let left = remaining_uses.entry(*value).or_default();
            debug_assert!(*left > 0, "a value used more often than counted");
            *left = left.saturating_sub(1);
            if *left == 1 {
                some_value_has_one_use_left = true;
            }
        }
        for &next in graph
            .users(best)
            .iter()
            .chain(graph.control_successors(best))
        {
            waiting_for[next] -= 1;
            if waiting_for[next] == 0 {
                make_ready(next, &remaining_uses, &mut ready, &mut key_of);
            }
        }
        if !some_value_has_one_use_left {
            continue;
        }
        // A value down to its last use makes that use free it: the ready
        // instructions that read the placed instruction's operands may now
        // rank higher.
        for &operand in graph.operands_with_repeats(best) {
            for &user in graph.users(operand) {
                let Some(old) = key_of[user] else {
                    continue;
                };
                let new_priority = priority(user, &remaining_uses);
                if new_priority == old.0 {
                    continue;
                }
                ready.remove(&old);
                make_ready(user, &remaining_uses, &mut ready, &mut key_of);
            }
        }
    }
    (order.len() == count).then_some(order)
}

/// Whether `instr`'s result is an array of one element (XLA's
/// `IsEffectiveScalar`: every dimension is 1).
fn is_effective_scalar(module: &Module, instr: Instr) -> bool {
    module
        .shapes
        .as_array(module.shape_of(instr))
        .is_some_and(|array| array.dims.iter().all(|&d| d == 1))
}

//! The breadth-first scheduler (XLA's `BFScheduler`): instructions in
//! waves, each as soon as its operands and control predecessors have run,
//! first ready first placed.
//!
//! It ignores memory: every instruction of a wave runs before any of the
//! next, so independent chains advance side by side and their temporaries
//! are all live at once. What it buys is concurrency — a runtime that
//! overlaps independent instructions sees them next to each other. It is
//! one of the `algorithm`s to choose; the default never picks it.

use std::collections::VecDeque;

use weft_ir::Instr;

use super::dependencies::Dependencies;

/// The breadth-first order of the computation `graph` describes, or `None`
/// when its dependencies form a cycle.
pub(super) fn breadth_first_order(graph: &Dependencies) -> Option<Vec<Instr>> {
    let count = graph.len();
    let mut waiting_for: Vec<usize> = (0..count).map(|at| graph.predecessor_count(at)).collect();
    let mut ready: VecDeque<usize> = (0..count).filter(|&at| waiting_for[at] == 0).collect();
    let mut order = Vec::with_capacity(count);
    while let Some(at) = ready.pop_front() {
        for &next in graph.users(at).iter().chain(graph.control_successors(at)) {
            waiting_for[next] -= 1;
            if waiting_for[next] == 0 {
                ready.push_back(next);
            }
        }
        order.push(graph.instructions[at]);
    }
    (order.len() == count).then_some(order)
}

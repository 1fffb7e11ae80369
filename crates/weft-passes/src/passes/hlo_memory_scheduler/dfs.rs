//! Depth-first orders: the DFS scheduler (XLA's `DFSMemoryScheduler`), and
//! the plain walk from the root it and the trivial scheduler share (XLA's
//! `HloComputation::Accept`).
//!
//! **The walk.** Each instruction nothing uses or waits for (in body order),
//! then the root, starts a depth-first walk that places an instruction after
//! its operands and control predecessors. Without an order, operands are
//! visited left to right and then the control predecessors; with one, they
//! are visited in that order. What an earlier walk placed is not placed
//! again.
//!
//! **The DFS scheduler** orders an instruction's operands by how much hangs
//! off them: first by *extra users* (users beyond the first, summed over
//! everything that leads to the operand), so that values with a wide
//! fan-out are computed early and their users can free them; then by
//! *total size* (the bytes defined by everything that leads to it), larger
//! first; then by name. Both sums count shared ancestors once per path, so
//! they are capped — extra users at the instruction count, sizes at the
//! bytes defined so far — as XLA caps them against overflow. Parameters and
//! constants count nothing.

use std::cmp::Ordering;

use weft_ir::{Instr, Module};

use super::dependencies::Dependencies;
use crate::analysis::buffer_uses::{BufferUses, defines_free_values};

/// The DFS scheduler's order, or `None` when the dependencies form a cycle.
pub(super) fn dfs_order(
    module: &Module,
    graph: &Dependencies,
    uses: &BufferUses,
) -> Option<Vec<Instr>> {
    #[derive(Clone, Copy, Default)]
    struct Stats {
        extra_users: i64,
        total_sizes: i64,
    }
    let count = graph.len();
    let mut stats = vec![Stats::default(); count];
    let mut cumulative_size: i64 = 0;
    let instruction_count = count as i64;
    let comp = graph
        .instructions
        .first()
        .map(|&instr| module.parent(instr));
    let post_order = comp.map_or_else(Vec::new, |comp| weft_ir::order::post_order(module, comp));
    for instr in post_order {
        let Some(at) = uses.number(instr) else {
            continue;
        };
        if defines_free_values(module, instr) {
            continue;
        }
        let own_size = uses.bytes_defined(at) as i64;
        cumulative_size = cumulative_size.saturating_add(own_size);
        let mut mine = Stats {
            extra_users: graph.users(at).len().saturating_sub(1) as i64,
            total_sizes: own_size,
        };
        for &operand in graph.operands(at) {
            mine.extra_users = mine.extra_users.saturating_add(stats[operand].extra_users);
            mine.total_sizes = mine.total_sizes.saturating_add(stats[operand].total_sizes);
        }
        mine.total_sizes = mine.total_sizes.min(cumulative_size);
        mine.extra_users = mine.extra_users.min(instruction_count);
        stats[at] = mine;
    }
    let first = |a: usize, b: usize| -> Ordering {
        let (sa, sb) = (stats[a], stats[b]);
        sb.extra_users
            .cmp(&sa.extra_users)
            .then(sb.total_sizes.cmp(&sa.total_sizes))
            .then_with(|| {
                let name = |at: usize| &module.instr(graph.instructions[at]).name;
                name(a).cmp(name(b))
            })
    };
    walk_from_roots(graph, Some(&first))
}

/// The depth-first order from the unreachable roots, then the root (see the
/// module docs): children are visited in `order` when given, else operands
/// left to right, then control predecessors. `None` when the dependencies
/// form a cycle.
pub(super) fn walk_from_roots(
    graph: &Dependencies,
    order: Option<&dyn Fn(usize, usize) -> Ordering>,
) -> Option<Vec<Instr>> {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum State {
        New,
        Visiting,
        Visited,
    }
    let count = graph.len();
    let mut state = vec![State::New; count];
    let mut sequence = Vec::with_capacity(count);
    let mut stack: Vec<usize> = Vec::new();
    let starts = graph.unreachable_roots().into_iter().chain(graph.root());
    for start in starts {
        stack.push(start);
        while let Some(&current) = stack.last() {
            match state[current] {
                State::Visited => {
                    stack.pop();
                    continue;
                }
                State::Visiting => {
                    stack.pop();
                    state[current] = State::Visited;
                    sequence.push(graph.instructions[current]);
                    continue;
                }
                State::New => {}
            }
            state[current] = State::Visiting;
            let children_from = stack.len();
            for &child in graph
                .operands_with_repeats(current)
                .iter()
                .chain(graph.control_predecessors(current))
            {
                match state[child] {
                    State::Visiting => return None,
                    State::Visited => {}
                    State::New => stack.push(child),
                }
            }
            if let Some(order) = order {
                stack[children_from..].sort_by(|&a, &b| order(a, b));
            }
            // The first child in order goes on top, so it is visited first.
            stack[children_from..].reverse();
        }
    }
    (sequence.len() == count).then_some(sequence)
}

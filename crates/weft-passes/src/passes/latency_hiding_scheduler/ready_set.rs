//! Which ready node to schedule next (XLA's `ReadySetLt`).
//!
//! Candidates are compared pairwise by a fixed list of rules; the first
//! rule that tells them apart decides, and its name is the *reason* the
//! winner was placed where it is (what `--explain` prints). The rules, in
//! order (bottom-up wording; top-down mirrors them):
//!
//! 1. `kForceEarly`, `kForceDelay`, `kForceDelayPriority`: scheduler hints;
//! 2. memory, when a limit is set and more than half of it is live:
//!    `kDecreaseMemoryOverLimit`, `kMemoryPeakOverLimit` (and
//!    `kDepthOverLimit`, `kNoIncreaseMemoryOverLimit` with depth-based
//!    reduction);
//! 3. `kForceDelayAfterTarget`: the start a flexible group left behind;
//! 4. `kScheduleDone` (`kScheduleAsyncStart` top-down): an async done is
//!    scheduled as soon as it is ready, so its start can go as far up as
//!    possible — the heart of latency hiding;
//! 5. `kDelayDoneOfForceDelayedAsyncStart`, `kScheduleStart` (release-start
//!    policy), `kStartAtZeroDepth` (aggressive);
//! 6. `kLessStall`: the node that is ready soonest;
//! 7. `kFreeBackedupResource`: a start that frees a resource others wait
//!    for;
//! 8. aggressive only: `kAsyncDepth`/`kAsyncHeight`, `kAvoidWaste`;
//! 9. `kUnlockDone` (`kUnlockStart`): a node whose operand is an async done
//!    (bottom-up), so that done becomes ready;
//! 10. aggressive only: `kCreatesMoreReadyNodes`; then `kDecreaseMemory`;
//! 11. weft only, with `contention_aware`: `kAvoidContention`: inside a
//!     window, the work that slows least beside a transfer next to the
//!     start and the work that would slow most next to the done;
//! 12. `kOriginalOrder`: the later instruction first (bottom-up), keeping
//!     the written order among equals.
//!
//! XLA's rules for preferences, shareable, serial, non-extendable and
//! selective resources never decide with XLA's default async tracker (it
//! declares none of those resources), so they are not listed.

use weft_ir::{Module, Opcode};

use super::graph::{Node, NodeId};
use super::resources::{COLLECTIVE_PERMUTE, SEND_HOST};
use super::state::State;

/// A node under comparison, with what was computed about it so far.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// The node.
    pub node: NodeId,
    pressure: Option<(i64, i64)>,
    send_ready_time: Option<f64>,
}

impl Candidate {
    /// A fresh candidate for `node`.
    pub fn new(node: NodeId) -> Candidate {
        Candidate {
            node,
            pressure: None,
            send_ready_time: None,
        }
    }
}

/// `Some(a > b)` when they differ.
fn explicit<T: PartialOrd>(a: T, b: T) -> Option<bool> {
    if a == b { None } else { Some(a > b) }
}

/// [`explicit`], reversed bottom-up.
fn directional<T: PartialOrd>(top_down: bool, a: T, b: T) -> Option<bool> {
    if top_down {
        explicit(a, b)
    } else {
        explicit(b, a)
    }
}

/// Compares candidates within one scheduling state.
pub struct ReadySetRules<'s, 'm> {
    /// The state.
    pub state: &'s State<'m>,
    /// The module.
    pub module: &'m Module,
}

impl ReadySetRules<'_, '_> {
    fn node(&self, id: NodeId) -> &Node {
        &self.state.graph.nodes[id]
    }

    /// Whether a node is held back by a resource with no unit left while
    /// others wait for it.
    pub fn is_resource_constrained(&self, id: NodeId) -> bool {
        self.node(id).resources.iter().any(|&(resource, _)| {
            self.state.available[resource] == Some(0) && self.state.users_in_queue[resource] > 0
        })
    }

    fn should_delay_send_host_done(&self, candidate: &mut Candidate) -> bool {
        let node = self.node(candidate.node);
        if node.opcode != Opcode::SendDone || !node.uses(SEND_HOST) {
            return false;
        }
        let Some(&start) = self.module.instr(node.instr).operands.first() else {
            return false;
        };
        let Some(&start_id) = self.state.graph.index.get(&start) else {
            return false;
        };
        let latency = self
            .state
            .estimator
            .latency_between(self.module, start, node.instr);
        if candidate.send_ready_time.is_none() {
            let mut ready = 0.0f64;
            for edge in &self.node(start_id).successors {
                let target_ready = self.node(edge.target).ready_time;
                if target_ready >= f64::MAX {
                    return false;
                }
                ready = ready.max(edge.latency + target_ready);
            }
            candidate.send_ready_time = Some(ready);
        }
        candidate.send_ready_time.unwrap_or(0.0) - self.state.current_time > latency
    }

    fn should_schedule_async_done(&self, candidate: &mut Candidate) -> bool {
        self.node(candidate.node).does_occupy_any_resource
            && !self.should_delay_send_host_done(candidate)
    }

    fn should_schedule_async_start(&self, id: NodeId) -> bool {
        let node = self.node(id);
        node.is_supported_async_start && node.does_occupy_any_resource
    }

    fn async_depth_zero_condition(&self, id: NodeId) -> bool {
        let node = self.node(id);
        !(node.does_release_any_resource
            && node.async_depth == 0.0
            && !self.is_resource_constrained(id))
    }

    fn pressure(&self, candidate: &mut Candidate) -> (i64, i64) {
        if let Some(known) = candidate.pressure {
            return known;
        }
        let node = self.node(candidate.node);
        let mut change = self.state.pressure_difference(node.instr);
        if !self.state.graph.top_down && node.is_supported_async_done {
            // Scheduling a done commits to its start too.
            if let Some(edge) = node.predecessors.first() {
                let start = self.node(edge.target);
                if start.is_supported_async_start {
                    let start_change = self.state.pressure_difference(start.instr);
                    change.0 = change.0.min(start_change.0);
                    change.1 = change.1.max(start_change.1);
                }
            }
        }
        candidate.pressure = Some(change);
        change
    }

    fn memory_pressure_policy(
        &self,
        a: NodeId,
        a_increase: (i64, i64),
        b: NodeId,
        b_increase: (i64, i64),
    ) -> Option<(bool, &'static str)> {
        let usage = self.state.pressure_usage();
        let limit = self.state.config.memory_limit.unwrap_or(u64::MAX) as i128;
        if usage as i128 >= limit {
            if self.state.config.depth_based_memory_pressure_reduction {
                if let Some(r) = explicit(
                    a_increase.0 <= 0 && a_increase.0 < b_increase.0,
                    b_increase.0 <= 0 && b_increase.0 < a_increase.0,
                ) {
                    return Some((r, "kNoIncreaseMemoryOverLimit"));
                }
                if let Some(r) = explicit(self.node(a).graph_depth, self.node(b).graph_depth) {
                    return Some((r, "kDepthOverLimit"));
                }
            }
            if a_increase.0 != b_increase.0
                && let Some(r) = explicit(a_increase.0 < b_increase.0, b_increase.0 < a_increase.0)
            {
                return Some((r, "kDecreaseMemoryOverLimit"));
            }
        }
        explicit(
            a_increase.1 as i128 + usage as i128 <= limit,
            b_increase.1 as i128 + usage as i128 <= limit,
        )
        .map(|r| (r, "kMemoryPeakOverLimit"))
    }

    fn release_start_policy(&self, a: NodeId, b: NodeId) -> Option<bool> {
        let now = self.state.current_time;
        let (an, bn) = (self.node(a), self.node(b));
        let a_interval = an.ready_time - now;
        let b_interval = bn.ready_time - now;
        let a_release = a_interval <= 0.0 && an.releases(COLLECTIVE_PERMUTE);
        let b_release = b_interval <= 0.0 && bn.releases(COLLECTIVE_PERMUTE);
        if let Some(r) = explicit(a_release, b_release) {
            return Some(r);
        }
        if a_release && b_release {
            return explicit(a_interval, b_interval);
        }
        None
    }

    /// Whether `a` should be scheduled before `b`, and the rule that said
    /// so (XLA's `AIsBetterThanB`).
    pub fn a_is_better(&self, a: &mut Candidate, b: &mut Candidate) -> (bool, &'static str) {
        let top_down = self.state.graph.top_down;
        let config = self.state.config;
        let (an, bn) = (self.node(a.node), self.node(b.node));
        if let Some(r) = directional(top_down, !an.force_early, !bn.force_early) {
            return (r, "kForceEarly");
        }
        if let Some(r) = directional(top_down, an.force_delay, bn.force_delay) {
            return (r, "kForceDelay");
        }
        if let Some(r) = directional(top_down, an.force_delay_priority, bn.force_delay_priority) {
            return (r, "kForceDelayPriority");
        }
        if config.force_delay_over_memory_pressure
            && let Some(r) = directional(
                top_down,
                an.force_delay_after_target,
                bn.force_delay_after_target,
            )
        {
            return (r, "kForceDelayAfterTarget");
        }
        let mut increases = None;
        if let Some(limit) = config.memory_limit
            && self.state.pressure_usage() > (limit / 2) as i64
        {
            let a_increase = self.pressure(a);
            let b_increase = self.pressure(b);
            increases = Some((a_increase, b_increase));
            if let Some(decided) =
                self.memory_pressure_policy(a.node, a_increase, b.node, b_increase)
            {
                return decided;
            }
        }
        let (an, bn) = (self.node(a.node), self.node(b.node));
        if !config.force_delay_over_memory_pressure
            && let Some(r) = directional(
                top_down,
                an.force_delay_after_target,
                bn.force_delay_after_target,
            )
        {
            return (r, "kForceDelayAfterTarget");
        }
        if config.enable_schedule_by_structure {
            if top_down {
                let (a_done, b_done) = (an.is_supported_async_done, bn.is_supported_async_done);
                if let Some(r) = explicit(!a_done && b_done, a_done && !b_done) {
                    return (r, "kDelayAsyncDoneOfSamePreference");
                }
            } else {
                let (a_start, b_start) = (an.is_supported_async_start, bn.is_supported_async_start);
                if let Some(r) = explicit(!a_start && b_start, a_start && !b_start) {
                    return (r, "kDelayAsyncStartOfSamePreference");
                }
            }
        }
        if top_down {
            if let Some(r) = explicit(
                self.should_schedule_async_start(a.node),
                self.should_schedule_async_start(b.node),
            ) {
                return (r, "kScheduleAsyncStart");
            }
        } else {
            let a_done = self.should_schedule_async_done(a);
            let b_done = self.should_schedule_async_done(b);
            if let Some(r) = explicit(a_done, b_done) {
                return (r, "kScheduleDone");
            }
        }
        let (an, bn) = (self.node(a.node), self.node(b.node));
        if an.is_supported_async_done && bn.is_supported_async_done && an.opcode == bn.opcode {
            let start_of = |node: &Node| {
                self.module
                    .instr(node.instr)
                    .operands
                    .first()
                    .and_then(|start| self.state.graph.index.get(start))
                    .map(|&id| self.node(id).force_delay)
                    .unwrap_or(false)
            };
            if let Some(r) = directional(top_down, start_of(an), start_of(bn)) {
                return (r, "kDelayDoneOfForceDelayedAsyncStart");
            }
        }
        if config.enable_release_start_policy
            && let Some(r) = self.release_start_policy(a.node, b.node)
        {
            return (r, "kScheduleStart");
        }
        let aggressive = config.aggressive_scheduling_policies;
        if aggressive
            && config.prioritize_async_depth_over_stall
            && let Some(r) = explicit(
                self.async_depth_zero_condition(a.node),
                self.async_depth_zero_condition(b.node),
            )
        {
            return (r, "kStartAtZeroDepth");
        }
        let now = self.state.current_time;
        if an.ready_time != bn.ready_time {
            let a_interval = (an.ready_time - now).max(0.0);
            let b_interval = (bn.ready_time - now).max(0.0);
            if let Some(r) = explicit(a_interval < b_interval, b_interval < a_interval) {
                return (r, "kLessStall");
            }
        }
        if aggressive
            && !config.prioritize_async_depth_over_stall
            && let Some(r) = explicit(
                self.async_depth_zero_condition(a.node),
                self.async_depth_zero_condition(b.node),
            )
        {
            return (r, "kStartAtZeroDepth");
        }
        if let Some(r) = explicit(
            an.does_release_any_resource && self.is_resource_constrained(a.node),
            bn.does_release_any_resource && self.is_resource_constrained(b.node),
        ) {
            return (r, "kFreeBackedupResource");
        }
        if aggressive {
            if top_down {
                if let Some(r) = explicit(an.async_height, bn.async_height) {
                    return (r, "kAsyncHeight");
                }
            } else if let Some(r) = explicit(an.async_depth, bn.async_depth) {
                return (r, "kAsyncDepth");
            }
            if let Some(latest_ready) = self.state.earliest_future_ready() {
                let a_diff = (latest_ready - now - an.cost).abs();
                let b_diff = (latest_ready - now - bn.cost).abs();
                if let Some(r) = explicit(
                    !an.does_release_any_resource && a_diff < b_diff,
                    !bn.does_release_any_resource && b_diff < a_diff,
                ) {
                    return (r, "kAvoidWaste");
                }
            }
        }
        if top_down {
            if let Some(r) = explicit(
                an.has_user_that_is_supported_async_start,
                bn.has_user_that_is_supported_async_start,
            ) {
                return (r, "kUnlockStart");
            }
        } else if let Some(r) = explicit(
            an.has_operand_that_is_supported_async_done,
            bn.has_operand_that_is_supported_async_done,
        ) {
            return (r, "kUnlockDone");
        }
        if aggressive
            && let Some(r) = explicit(an.ready_nodes_if_scheduled, bn.ready_nodes_if_scheduled)
        {
            return (r, "kCreatesMoreReadyNodes");
        }
        if let Some((a_increase, b_increase)) = increases
            && let Some(r) = explicit(a_increase.0 < 0, b_increase.0 < 0)
        {
            return (r, "kDecreaseMemory");
        }
        if config.contention_aware && self.state.transfer_in_flight() {
            // A transfer runs from its start: the work just after the start
            // flies beside it, the work just before the done may run after
            // it has landed. So top-down the work that slows least beside
            // a transfer goes first, and bottom-up (walking back from the
            // done) the work that would slow most.
            if let Some(r) = directional(top_down, bn.contention, an.contention) {
                return (r, "kAvoidContention");
            }
        }
        let later = if top_down {
            a.node < b.node
        } else {
            a.node > b.node
        };
        (later, "kOriginalOrder")
    }
}

//! List scheduling of one computation (XLA's `DefaultSchedulerCore`).
//!
//! The walk starts from the graph's roots (bottom-up: the nodes nothing
//! waits for) and repeatedly takes the best ready node by the rules of
//! [`ready_set`](super::ready_set), keeping a clock: a node is *ready* when
//! all its successors (bottom-up) are scheduled, at the latest of their
//! times plus the edge latency; scheduling it advances the clock by its
//! cost. Resources count units in flight: a node whose callees or own
//! async op would exceed an overlap limit waits. No-op nodes
//! (get-tuple-element, bitcast, constants, …) are taken the moment they are
//! ready, ahead of any choice.
//!
//! Scheduling groups (`_scheduling_group_id`) are placed as one unit: a
//! group becomes ready when everything outside it that depends on it
//! (bottom-up) is scheduled and its resources fit, and is then scheduled
//! without interleaving, async done first.
//!
//! The result is the reverse of the walk (bottom-up), and each async op
//! carries the rule that put it where it is.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::{Comp, Instr, Module, Opcode};

use super::config::SchedulerConfig;
use super::estimator::Estimator;
use super::graph::{NodeId, ScheduleGraph, is_nop};
use super::memory::{ComputationMemory, ModuleMemory, PressureTracker};
use super::ready_set::{Candidate, ReadySetRules};
use super::resources::{RESOURCE_COUNT, ResourceCounter, Usage, resource_name};
use crate::pass::PassError;

/// A node waiting for the clock, ordered soonest first.
#[derive(Clone, Copy, Debug)]
struct FutureReady {
    time: f64,
}

impl PartialEq for FutureReady {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time
    }
}

impl Eq for FutureReady {}

impl PartialOrd for FutureReady {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FutureReady {
    fn cmp(&self, other: &Self) -> Ordering {
        // A max-heap of reversed times: the soonest on top.
        other.time.total_cmp(&self.time)
    }
}

/// Why an instruction was placed where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The instruction.
    pub instr: Instr,
    /// The rule that chose it over the last rival, or why there was none.
    pub reason: &'static str,
    /// The scheduler's clock when it was placed (from the end, bottom-up).
    pub time: f64,
}

/// The groups of one computation (XLA's `AnnotationTracker`).
#[derive(Default)]
pub struct Groups {
    /// Groups in the order they first appear.
    pub order: Vec<i64>,
    /// Members of each group, in body order.
    pub members: FxHashMap<i64, Vec<Instr>>,
}

impl Groups {
    /// The groups of `comp`.
    pub fn of(module: &Module, comp: Comp) -> Groups {
        let mut groups = Groups::default();
        for &instr in module.comp(comp).body() {
            if let Ok(Some(group)) = crate::scheduling_annotation::group(module.instr(instr)) {
                let members = groups.members.entry(group).or_default();
                if members.is_empty() {
                    groups.order.push(group);
                }
                members.push(instr);
            }
        }
        groups
    }
}

/// The state of scheduling one computation.
pub struct State<'m> {
    /// The graph.
    pub graph: ScheduleGraph,
    /// The configuration.
    pub config: &'m SchedulerConfig,
    /// The latency estimator.
    pub estimator: &'m Estimator,
    /// Units left of each resource.
    pub available: [Option<i64>; RESOURCE_COUNT],
    /// Each resource's limit.
    limits: [Option<i64>; RESOURCE_COUNT],
    /// Ready nodes that occupy each resource.
    pub users_in_queue: [i64; RESOURCE_COUNT],
    /// The clock.
    pub current_time: f64,
    ready: Vec<NodeId>,
    nops: Vec<NodeId>,
    future: BinaryHeap<FutureReady>,
    in_flight: FxHashMap<usize, FxHashSet<Instr>>,
    scheduled: Vec<Instr>,
    placements: Vec<Placement>,
    group_neighbours: FxHashMap<i64, (i64, i64)>,
    ready_groups: Vec<i64>,
    group_ready: Vec<NodeId>,
    ongoing_group: i64,
    holding_groups: FxHashSet<NodeId>,
    groups: Groups,
    memory: &'m ModuleMemory<'m>,
    metadata: ComputationMemory,
    pressure: PressureTracker,
    module: &'m Module,
}

impl<'m> State<'m> {
    /// Bytes live now.
    pub fn pressure_usage(&self) -> i64 {
        self.pressure.usage()
    }

    /// What scheduling `instr` would change in live bytes.
    pub fn pressure_difference(&self, instr: Instr) -> (i64, i64) {
        self.pressure.difference(self.memory, &self.metadata, instr)
    }

    /// Whether a transfer is in flight at the clock: an async op's unit is
    /// held (bottom-up, its done is placed and its start is not yet).
    pub fn transfer_in_flight(&self) -> bool {
        self.in_flight.values().any(|holders| !holders.is_empty())
    }

    /// The soonest ready time still ahead of the clock.
    pub fn earliest_future_ready(&self) -> Option<f64> {
        self.future.peek().map(|f| f.time)
    }

    /// Whether scheduling `node` now would put more of a resource in flight
    /// than its limit allows. A node that needs more than the whole limit (a
    /// loop whose body was scheduled under a larger one) may still go when
    /// nothing else holds the resource; XLA would stop there with an error.
    fn crosses_overlap_limit(&self, node: NodeId) -> bool {
        self.graph.nodes[node]
            .recursive_resources
            .iter()
            .any(|&(resource, count)| {
                self.available[resource].is_some_and(|available| {
                    let whole = self.limits[resource].unwrap_or(available);
                    count.min(whole.max(1)) > available
                })
            })
    }

    fn best_available(&mut self) -> Result<NodeId, PassError> {
        loop {
            if let Some(node) = self.nops.pop() {
                self.placements.push(Placement {
                    instr: self.graph.nodes[node].instr,
                    reason: "kNop",
                    time: self.current_time,
                });
                return Ok(node);
            }
            let mut skipped_for_group: Vec<NodeId> = Vec::new();
            let mut skipped: Vec<(NodeId, &'static str)> = Vec::new();
            let mut chosen: Option<(usize, Candidate, &'static str)> = None;
            let rules = ReadySetRules {
                state: self,
                module: self.module,
            };
            for at in 0..self.ready.len() {
                let node = self.ready[at];
                if self.graph.nodes[node].annotation != -1 {
                    if chosen.is_none() {
                        skipped_for_group.push(node);
                        skipped.push((node, "its scheduling group is not ready"));
                    }
                    continue;
                }
                if self.crosses_overlap_limit(node) {
                    if chosen.is_none() {
                        skipped.push((node, "it would exceed an overlap limit"));
                    }
                    continue;
                }
                let mut candidate = Candidate::new(node);
                match &mut chosen {
                    None => chosen = Some((at, candidate, "kOnlyCandidate")),
                    Some((chosen_at, best, reason)) => {
                        let (better, why) = rules.a_is_better(&mut candidate, best);
                        if better {
                            *best = candidate;
                            *chosen_at = at;
                        }
                        // The rule that decided the last comparison is why
                        // the winner stands.
                        *reason = why;
                    }
                }
            }
            if let Some((at, candidate, reason)) = chosen {
                let last = self.ready.len() - 1;
                self.ready.swap(at, last);
                self.ready.pop();
                self.placements.push(Placement {
                    instr: self.graph.nodes[candidate.node].instr,
                    reason,
                    time: self.current_time,
                });
                return Ok(candidate.node);
            }
            if self.config.deannotate_group_if_blocked {
                let smallest = skipped_for_group.iter().copied().min_by_key(|&node| {
                    let group = self.graph.nodes[node].annotation;
                    self.groups.members.get(&group).map_or(0, Vec::len)
                });
                if let Some(node) = smallest {
                    let group = self.graph.nodes[node].annotation;
                    for instr in self.groups.members.get(&group).cloned().unwrap_or_default() {
                        if let Some(&id) = self.graph.index.get(&instr) {
                            self.graph.nodes[id].annotation = -1;
                        }
                    }
                    if self.ongoing_group == group {
                        self.ongoing_group = -1;
                    }
                    self.ready_groups.retain(|&g| g != group);
                    continue;
                }
            }
            if let Some(&group) = self.ready_groups.first() {
                let mut message = format!(
                    "there is a scheduling group which exceeds the overlap limits. Annotation id: {group}."
                );
                let needed = self.resources_needed_for_group(group, false);
                let mut needed: Vec<_> = needed.into_iter().collect();
                needed.sort_unstable();
                for (resource, count) in needed {
                    let limit = self.available[resource].unwrap_or(0);
                    if count > limit {
                        message.push_str(&format!(
                            " It needs {count} {} resources, but the limit is {limit}.",
                            resource_name(resource)
                        ));
                    }
                }
                return Err(PassError::new(message).with_hint(
                    "raise the overlap limit of that resource, or split the group (deannotate_group_if_blocked=true dissolves blocked groups)",
                ));
            }
            let names: Vec<String> = skipped
                .iter()
                .map(|(node, why)| {
                    format!(
                        "{} ({why})",
                        self.module.instr(self.graph.nodes[*node].instr).name
                    )
                })
                .collect();
            return Err(PassError::new(format!(
                "the latency-hiding scheduler found no instruction it may schedule; skipped: {}",
                names.join(", ")
            )));
        }
    }

    /// The earliest `node` may run, and no earlier than `floor`: each node
    /// the walk has already placed on its far side, plus the edge's latency.
    fn earliest(&self, node: NodeId, floor: f64) -> f64 {
        let placed = if self.graph.top_down {
            &self.graph.nodes[node].predecessors
        } else {
            &self.graph.nodes[node].successors
        };
        placed.iter().fold(floor, |time, edge| {
            time.max(self.graph.nodes[edge.target].ready_time + edge.latency)
        })
    }

    fn schedule_node(&mut self, node: NodeId) -> f64 {
        let top_down = self.graph.top_down;
        let instr = self.graph.nodes[node].instr;
        self.scheduled.push(instr);
        self.graph.nodes[node].scheduled = true;
        self.holding_groups.remove(&node);
        let own_group = self.graph.nodes[node].annotation;
        let mut neighbour_groups: Vec<i64> = Vec::new();
        let edges = if top_down {
            &self.graph.nodes[node].successors
        } else {
            &self.graph.nodes[node].predecessors
        };
        for edge in edges {
            let group = self.graph.nodes[edge.target].annotation;
            if group != own_group && !neighbour_groups.contains(&group) {
                neighbour_groups.push(group);
            }
        }
        for group in neighbour_groups {
            let entry = self.group_neighbours.entry(group).or_insert((0, 0));
            entry.0 += 1;
            if entry.0 == entry.1 {
                self.ready_groups.push(group);
            }
        }
        for (resource, usage) in self.graph.nodes[node].net_resources() {
            match usage {
                Usage::Release => {
                    if let Some(available) = &mut self.available[resource] {
                        *available += 1;
                    }
                }
                Usage::Occupy => {
                    if let Some(available) = &mut self.available[resource] {
                        *available -= 1;
                    }
                    self.users_in_queue[resource] -= 1;
                }
                Usage::None => {}
            }
        }
        let schedule_time = self.earliest(node, self.current_time);
        self.graph.nodes[node].ready_time = schedule_time;
        let current_time = schedule_time + self.graph.nodes[node].cost;
        while let Some(next) = self.future.peek() {
            if next.time < current_time {
                self.future.pop();
            } else {
                break;
            }
        }
        let unlocks: Vec<NodeId> = if top_down {
            self.graph.nodes[node]
                .successors
                .iter()
                .map(|e| e.target)
                .collect()
        } else {
            self.graph.nodes[node]
                .predecessors
                .iter()
                .map(|e| e.target)
                .collect()
        };
        for target in unlocks {
            let degree = if top_down {
                self.graph.nodes[target].indegree
            } else {
                self.graph.nodes[target].outdegree
            };
            if degree != 1 {
                if top_down {
                    self.graph.set_indegree(target, degree - 1);
                } else {
                    self.graph.set_outdegree(target, degree - 1);
                }
                continue;
            }
            if top_down {
                self.graph.set_indegree(target, 0);
            } else {
                self.graph.set_outdegree(target, 0);
            }
            let ready_time = self.earliest(target, current_time);
            for &(resource, usage) in &self.graph.nodes[target].resources {
                if usage == Usage::Occupy {
                    self.users_in_queue[resource] += 1;
                }
            }
            self.graph.nodes[target].ready_time = ready_time;
            let group = self.graph.nodes[target].annotation;
            let target_instr = self.graph.nodes[target].instr;
            let users = self.users_of(target_instr);
            if group == -1 && is_nop(self.module, target_instr, &users) {
                self.nops.push(target);
                continue;
            }
            self.ready.push(target);
            if group != -1 && group == self.ongoing_group {
                self.group_ready.push(target);
            }
            if ready_time > current_time {
                self.future.push(FutureReady { time: ready_time });
            }
        }
        let resources = self.graph.nodes[node].resources.clone();
        for (resource, usage) in resources {
            match usage {
                Usage::Release => {
                    if let Some(set) = self.in_flight.get_mut(&resource) {
                        set.remove(&instr);
                    }
                }
                Usage::Occupy => {
                    let holder = match self.module.instr(instr).operands.first() {
                        Some(&start)
                            if self.graph.nodes[node].is_supported_async_done
                                && self.graph.index.get(&start).is_some_and(|&s| {
                                    self.graph.nodes[s].is_supported_async_start
                                }) =>
                        {
                            start
                        }
                        _ => instr,
                    };
                    self.in_flight.entry(resource).or_default().insert(holder);
                }
                Usage::None => {}
            }
        }
        self.pressure.update(self.memory, &self.metadata, instr);
        current_time
    }

    fn users_of(&self, instr: Instr) -> Vec<Instr> {
        // Only asked of tuples (a tuple feeding one while loop is a no-op).
        if self.module.instr(instr).opcode != Opcode::Tuple {
            return Vec::new();
        }
        let id = self.graph.index[&instr];
        self.graph.nodes[id]
            .successors
            .iter()
            .map(|e| self.graph.nodes[e.target].instr)
            .filter(|&user| self.module.instr(user).operands.contains(&instr))
            .collect()
    }

    fn resources_needed_for_group(&self, group: i64, use_max: bool) -> FxHashMap<usize, i64> {
        let members = self.groups.members.get(&group).cloned().unwrap_or_default();
        let mut needed: FxHashMap<usize, i64> = FxHashMap::default();
        if members
            .first()
            .is_some_and(|&first| keeps_written_order_in_group(self.module, first))
        {
            return self.resources_needed_in_written_order(&members);
        }
        for &instr in &members {
            let Some(&id) = self.graph.index.get(&instr) else {
                continue;
            };
            for &(resource, count) in &self.graph.nodes[id].recursive_resources {
                let entry = needed.entry(resource).or_insert(0);
                if self.module.instr(instr).opcode == Opcode::AsyncDone {
                    let start = self.module.instr(instr).operands.first().copied();
                    if start.is_none_or(|s| !members.contains(&s)) || use_max {
                        *entry += count;
                        continue;
                    }
                }
                *entry = (*entry).max(count);
            }
        }
        needed
    }

    fn resources_needed_in_written_order(&self, members: &[Instr]) -> FxHashMap<usize, i64> {
        let mut sorted: Vec<(NodeId, Instr)> = members
            .iter()
            .filter_map(|&i| self.graph.index.get(&i).map(|&n| (n, i)))
            .collect();
        sorted.sort_by_key(|&(node, _)| std::cmp::Reverse(node));
        let top_down = self.graph.top_down;
        let mut max_needed: FxHashMap<usize, i64> = FxHashMap::default();
        let mut current: FxHashMap<usize, i64> = FxHashMap::default();
        for (node, _) in sorted {
            let n = &self.graph.nodes[node];
            if n.is_supported_async_start {
                // The start's done holds the units.
                let done_resources = n
                    .successors
                    .iter()
                    .map(|e| &self.graph.nodes[e.target])
                    .find(|d| d.is_supported_async_done)
                    .map(|d| d.recursive_resources.clone())
                    .unwrap_or_default();
                for (resource, count) in done_resources {
                    *current.entry(resource).or_insert(0) += if top_down { count } else { -count };
                }
            } else {
                for &(resource, count) in &n.recursive_resources {
                    *current.entry(resource).or_insert(0) += if top_down { -count } else { count };
                }
                for (&resource, &count) in &current {
                    let entry = max_needed.entry(resource).or_insert(0);
                    *entry = (*entry).max(count);
                }
            }
        }
        max_needed
    }

    fn group_crosses_overlap_limit(&self, group: i64, use_max: bool) -> bool {
        self.resources_needed_for_group(group, use_max)
            .into_iter()
            .any(|(resource, needed)| needed > self.available[resource].unwrap_or(i64::MAX))
    }

    fn best_in_group(&mut self) -> NodeId {
        let mut chosen: Option<usize> = None;
        for at in 0..self.group_ready.len() {
            let node = self.group_ready[at];
            if self.crosses_overlap_limit(node) {
                continue;
            }
            let Some(best_at) = chosen else {
                chosen = Some(at);
                continue;
            };
            let best = self.group_ready[best_at];
            let (a, b) = (&self.graph.nodes[node], &self.graph.nodes[best]);
            let a_wins = if keeps_written_order_in_group(self.module, a.instr)
                && keeps_written_order_in_group(self.module, b.instr)
            {
                node > best
            } else if a.does_occupy_any_resource != b.does_occupy_any_resource {
                a.does_occupy_any_resource
            } else if a.does_release_any_resource != b.does_release_any_resource {
                !a.does_release_any_resource
            } else {
                true
            };
            if a_wins {
                chosen = Some(at);
            }
        }
        // XLA takes the first entry when every member crosses a limit.
        let at = chosen.unwrap_or(0);
        let last = self.group_ready.len() - 1;
        self.group_ready.swap(at, last);
        self.group_ready.pop().expect("a ready group member")
    }

    fn schedule_group(&mut self, group: i64) -> Result<(), PassError> {
        self.group_ready = self
            .ready
            .iter()
            .copied()
            .filter(|&n| self.graph.nodes[n].annotation == group)
            .collect();
        let size = self.groups.members.get(&group).map_or(0, Vec::len) as i64;
        let mut scheduled = 0i64;
        let mut held = 0i64;
        while !self.group_ready.is_empty() {
            let node = self.best_in_group();
            if self.config.flexible_scheduling_annotation_scheduling
                && scheduled == size - 1
                && self.graph.nodes[node].is_supported_async_start
            {
                held += 1;
                self.graph.nodes[node].annotation = -1;
                if self.config.aggressive_flexible_annotation_scheduling {
                    self.graph.nodes[node].force_delay_after_target = true;
                }
                self.holding_groups.insert(node);
                continue;
            }
            let Some(at) = self.ready.iter().position(|&n| n == node) else {
                return Err(PassError::new(format!(
                    "scheduling group {group}: '{}' is not ready",
                    self.module.instr(self.graph.nodes[node].instr).name
                )));
            };
            let last = self.ready.len() - 1;
            self.ready.swap(at, last);
            self.ready.pop();
            self.placements.push(Placement {
                instr: self.graph.nodes[node].instr,
                reason: "kScheduledWithItsGroup",
                time: self.current_time,
            });
            self.current_time = self.schedule_node(node);
            scheduled += 1;
        }
        if scheduled < size - held {
            for instr in self.groups.members.get(&group).cloned().unwrap_or_default() {
                let Some(&id) = self.graph.index.get(&instr) else {
                    continue;
                };
                if !self.graph.nodes[id].scheduled {
                    self.graph.nodes[id].annotation = -1;
                    self.holding_groups.insert(id);
                }
            }
        }
        Ok(())
    }

    fn try_schedule_one_group(&mut self, use_max: bool) -> Result<bool, PassError> {
        if self.ready_groups.is_empty() || !self.holding_groups.is_empty() {
            return Ok(false);
        }
        let Some(at) = (0..self.ready_groups.len())
            .find(|&at| !self.group_crosses_overlap_limit(self.ready_groups[at], use_max))
        else {
            return Ok(false);
        };
        let last = self.ready_groups.len() - 1;
        self.ready_groups.swap(at, last);
        let group = self.ready_groups.pop().expect("a ready group");
        self.ongoing_group = group;
        self.schedule_group(group)?;
        self.ongoing_group = -1;
        Ok(true)
    }
}

/// Whether `instr` asks its group to keep its written order
/// (`keep_original_sequence_order_in_group="true"`).
fn keeps_written_order_in_group(module: &Module, instr: Instr) -> bool {
    module
        .instr(instr)
        .common()
        .frontend_attributes
        .as_ref()
        .and_then(|attributes| attributes.get("keep_original_sequence_order_in_group"))
        == Some("true")
}

/// The outcome of scheduling one computation.
pub struct ComputationSchedule {
    /// The new sequence.
    pub sequence: Vec<Instr>,
    /// Why each instruction is where it is, in sequence order.
    pub placements: Vec<Placement>,
    /// The most bytes live at once under the new sequence.
    pub peak_bytes: i64,
    /// The scheduler's estimate of the computation's run time.
    pub estimated_time: f64,
}

/// Everything the scheduling of one computation reads.
pub struct Inputs<'a> {
    /// The module.
    pub module: &'a Module,
    /// The configuration.
    pub config: &'a SchedulerConfig,
    /// The estimator.
    pub estimator: &'a Estimator,
    /// The module's memory.
    pub memory: &'a ModuleMemory<'a>,
}

/// Schedules `comp` whose graph is `graph`.
pub fn schedule_computation(
    inputs: &Inputs<'_>,
    comp: Comp,
    mut graph: ScheduleGraph,
    counter: &ResourceCounter<'_>,
) -> Result<ComputationSchedule, PassError> {
    let module = inputs.module;
    let groups = Groups::of(module, comp);
    let top_down = graph.top_down;
    let mut group_neighbours: FxHashMap<i64, (i64, i64)> = FxHashMap::default();
    let mut ready_groups = Vec::new();
    if !groups.order.is_empty() {
        graph.annotate(module);
        for &group in &groups.order {
            let mut seen: FxHashSet<Instr> = groups.members[&group].iter().copied().collect();
            let mut count = 0;
            for &instr in &groups.members[&group] {
                let Some(&id) = graph.index.get(&instr) else {
                    continue;
                };
                let edges = if top_down {
                    &graph.nodes[id].predecessors
                } else {
                    &graph.nodes[id].successors
                };
                for edge in edges {
                    let other = &graph.nodes[edge.target];
                    if seen.insert(other.instr) && other.annotation != group {
                        count += 1;
                    }
                }
            }
            group_neighbours.insert(group, (0, count));
            if count == 0 {
                ready_groups.push(group);
            }
        }
    }
    let metadata = inputs.memory.metadata(comp);
    let pressure = PressureTracker::new(inputs.memory, &inputs.memory.live_at_bottom(comp));
    let roots = if top_down {
        graph.top_roots()
    } else {
        graph.bottom_roots()
    };
    let mut state = State {
        graph,
        config: inputs.config,
        estimator: inputs.estimator,
        available: counter.limits(),
        limits: counter.limits(),
        users_in_queue: [0; RESOURCE_COUNT],
        current_time: 0.0,
        ready: Vec::new(),
        nops: Vec::new(),
        future: BinaryHeap::new(),
        in_flight: FxHashMap::default(),
        scheduled: Vec::new(),
        placements: Vec::new(),
        group_neighbours,
        ready_groups,
        group_ready: Vec::new(),
        ongoing_group: -1,
        holding_groups: FxHashSet::default(),
        groups,
        memory: inputs.memory,
        metadata,
        pressure,
        module,
    };
    for root in roots {
        state.graph.nodes[root].ready_time = 0.0;
        let instr = state.graph.nodes[root].instr;
        let users = state.users_of(instr);
        if is_nop(module, instr, &users) {
            state.nops.push(root);
        } else {
            state.ready.push(root);
        }
    }
    while !state.ready.is_empty() || !state.nops.is_empty() {
        if state.try_schedule_one_group(true)? {
            continue;
        }
        match state.best_available() {
            Ok(node) => state.current_time = state.schedule_node(node),
            Err(error) => {
                if state.try_schedule_one_group(false)? {
                    continue;
                }
                return Err(error);
            }
        }
    }
    let total = state.graph.nodes.len();
    if state.scheduled.len() != total {
        let missing: Vec<&str> = state
            .graph
            .nodes
            .iter()
            .filter(|n| !n.scheduled)
            .take(5)
            .map(|n| module.instr(n.instr).name.as_str())
            .collect();
        return Err(PassError::new(format!(
            "the latency-hiding scheduler could not place {} of {total} instructions (among them {}): their dependencies form a cycle",
            total - state.scheduled.len(),
            missing.join(", ")
        ))
        .with_hint("a control edge or scheduling group contradicts the data dependencies"));
    }
    let mut sequence = state.scheduled;
    let mut placements = state.placements;
    if !top_down {
        sequence.reverse();
        placements.reverse();
    }
    Ok(ComputationSchedule {
        sequence,
        placements,
        peak_bytes: state.pressure.peak(),
        estimated_time: state.current_time,
    })
}

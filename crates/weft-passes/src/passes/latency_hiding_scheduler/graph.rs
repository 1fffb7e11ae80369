//! The scheduling graph of one computation (XLA's `HloScheduleGraph`).
//!
//! One node per instruction of the computation's sequence, numbered by its
//! position there (its *original position*, the last tie-breaker). An edge
//! runs from every instruction to each of its users and control successors,
//! carrying the estimator's latency. Two kinds of edges keep buffers safe:
//!
//! - an async done whose result shares a buffer with other values (a loop
//!   state, an in-place update) gets, for every other reader of that buffer
//!   that does not depend on the done, an edge from the reader to the
//!   start: the transfer may only begin writing once they have read;
//! - a send-done that must follow a recv-done feeding a while loop is kept
//!   before that loop (and, top-down, the loop before the next recv).
//!
//! Edges are added in XLA's order — instructions in sequence order, each
//! one's users, then control successors, then the buffer edges — because
//! a node's predecessor order decides the order nodes become ready in.
//!
//! After construction, [`ScheduleGraph::analyse`] computes each node's
//! depth (longest cost+latency path from a root), async depth (longest
//! latency path through async start→done edges below it) and async height
//! (the same above it).

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::{Instr, Module, Opcode};

use super::estimator::Estimator;
use super::resources::{Resource, ResourceCounter, Usage};
use crate::analysis::alias::Aliases;
use crate::analysis::dataflow::{Dataflow, ShapeIndex, ValueId};
use crate::scheduling_annotation;

/// A node's handle: its original position.
pub type NodeId = usize;

/// An edge to `target`, waiting `latency`.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    /// How long the later node waits after the earlier.
    pub latency: f64,
    /// The node at the other end.
    pub target: NodeId,
}

/// One instruction of the computation, with what the scheduler knows of it.
#[derive(Clone, Debug)]
pub struct Node {
    /// The instruction.
    pub instr: Instr,
    /// Its opcode.
    pub opcode: Opcode,
    /// How long it keeps the device busy.
    pub cost: f64,
    /// How much longer it runs beside a transfer than alone (0 when
    /// compute-bound, or without the analytic estimator).
    pub contention: f64,
    /// The resources it occupies or releases.
    pub resources: Vec<(Resource, Usage)>,
    /// The units of each resource it needs at once, callees included.
    pub recursive_resources: Vec<(Resource, i64)>,
    /// An async done the scheduler moves.
    pub is_supported_async_done: bool,
    /// An async start the scheduler moves.
    pub is_supported_async_start: bool,
    /// One of its operands is a supported async done.
    pub has_operand_that_is_supported_async_done: bool,
    /// One of its users is a supported async start.
    pub has_user_that_is_supported_async_start: bool,
    /// Whether it occupies any resource.
    pub does_occupy_any_resource: bool,
    /// Whether it releases any resource.
    pub does_release_any_resource: bool,
    /// `scheduler_hint="force_delay"` (or `force_delay_async` on a start).
    pub force_delay: bool,
    /// `scheduler_delay_priority=N`.
    pub force_delay_priority: i64,
    /// `scheduler_hint="force_early"` (or `force_delay_async` on a done).
    pub force_early: bool,
    /// Set when a flexible group leaves this start to be delayed.
    pub force_delay_after_target: bool,
    /// Its scheduling group, or -1.
    pub annotation: i64,
    /// Whether it has been scheduled.
    pub scheduled: bool,
    /// When it may run (`f64::MAX` until known).
    pub ready_time: f64,
    /// Longest latency through async pairs between it and a root.
    pub async_depth: f64,
    /// Longest latency through async pairs between it and a leaf.
    pub async_height: f64,
    /// Longest cost+latency path between it and a root.
    pub depth: f64,
    /// Longest edge count between it and a root.
    pub graph_depth: i64,
    /// How many neighbours it would make ready.
    pub ready_nodes_if_scheduled: i64,
    /// Unscheduled predecessors.
    pub indegree: i64,
    /// Unscheduled successors.
    pub outdegree: i64,
    /// Edges from its predecessors.
    pub predecessors: Vec<Edge>,
    /// Edges to its successors.
    pub successors: Vec<Edge>,
}

impl Node {
    /// Whether it releases `resource`.
    pub fn releases(&self, resource: Resource) -> bool {
        self.resources
            .iter()
            .any(|&(r, usage)| r == resource && usage == Usage::Release)
    }

    /// Whether it occupies `resource`.
    pub fn occupies(&self, resource: Resource) -> bool {
        self.resources
            .iter()
            .any(|&(r, usage)| r == resource && usage == Usage::Occupy)
    }

    /// Whether it uses `resource` at all.
    pub fn uses(&self, resource: Resource) -> bool {
        self.resources.iter().any(|&(r, _)| r == resource)
    }

    /// Its resources, a while loop's counted net of what its body both
    /// occupies and releases.
    pub fn net_resources(&self) -> Vec<(Resource, Usage)> {
        if self.opcode != Opcode::While {
            return self.resources.clone();
        }
        self.resources
            .iter()
            .copied()
            .filter(|&(resource, usage)| match usage {
                Usage::Occupy => !self.releases(resource),
                Usage::Release => !self.occupies(resource),
                Usage::None => false,
            })
            .collect()
    }
}

/// The graph of one computation.
pub struct ScheduleGraph {
    /// The nodes, by original position.
    pub nodes: Vec<Node>,
    /// Node of each instruction.
    pub index: FxHashMap<Instr, NodeId>,
    /// Whether the walk is top-down.
    pub top_down: bool,
}

fn frontend<'m>(module: &'m Module, instr: Instr, key: &str) -> Option<&'m str> {
    module
        .instr(instr)
        .common()
        .frontend_attributes
        .as_ref()
        .and_then(|attributes| attributes.get(key))
}

fn delay_priority(module: &Module, instr: Instr) -> i64 {
    frontend(module, instr, "scheduler_delay_priority")
        .and_then(|text| text.parse().ok())
        .unwrap_or(0)
}

/// Whether `instr` asks to be delayed (`scheduler_hint="force_delay"` on a
/// custom call or async op).
pub fn has_force_delay_hint(module: &Module, instr: Instr) -> bool {
    matches!(
        module.instr(instr).opcode,
        Opcode::CustomCall | Opcode::AsyncStart | Opcode::AsyncDone
    ) && frontend(module, instr, "scheduler_hint") == Some("force_delay")
}

/// XLA's `IsNopInstruction`: instructions scheduled the moment they are
/// ready, ahead of any choice.
pub fn is_nop(module: &Module, instr: Instr, users: &[Instr]) -> bool {
    let data = module.instr(instr);
    match data.opcode {
        Opcode::GetTupleElement
        | Opcode::Bitcast
        | Opcode::Constant
        | Opcode::Parameter
        | Opcode::Broadcast
        | Opcode::Iota => true,
        Opcode::Transpose => transpose_is_bitcast(module, instr),
        Opcode::Tuple => users.len() == 1 && module.instr(users[0]).opcode == Opcode::While,
        _ => false,
    }
}

/// Whether a transpose only renames dimensions under its layouts.
fn transpose_is_bitcast(module: &Module, instr: Instr) -> bool {
    let data = module.instr(instr);
    let Some(permutation) = data.attrs.dimensions() else {
        return false;
    };
    let layout_of = |shape| {
        module.shapes.as_array(shape).map(|array| {
            array.layout.as_ref().map_or_else(
                || (0..array.rank() as i64).rev().collect::<Vec<_>>(),
                |layout| layout.minor_to_major.clone(),
            )
        })
    };
    let (Some(input), Some(output)) = (
        layout_of(module.instr(data.operands[0]).shape),
        layout_of(data.shape),
    ) else {
        return false;
    };
    input.len() == output.len()
        && output
            .iter()
            .zip(&input)
            .all(|(&out_dim, &in_dim)| permutation.get(out_dim as usize).copied() == Some(in_dim))
}

/// Users and control successors of each instruction of a computation, in
/// the order they were written.
pub struct Neighbours {
    /// Users, each once.
    pub users: FxHashMap<Instr, Vec<Instr>>,
    /// Control successors.
    pub control_successors: FxHashMap<Instr, Vec<Instr>>,
}

impl Neighbours {
    /// The neighbours within `sequence`.
    pub fn of(module: &Module, sequence: &[Instr]) -> Neighbours {
        let mut users: FxHashMap<Instr, Vec<Instr>> = FxHashMap::default();
        let mut control_successors: FxHashMap<Instr, Vec<Instr>> = FxHashMap::default();
        for &instr in sequence {
            let data = module.instr(instr);
            for &operand in data.operands.iter() {
                let list = users.entry(operand).or_default();
                if list.last() != Some(&instr) && !list.contains(&instr) {
                    list.push(instr);
                }
            }
            for &predecessor in data.control_predecessors() {
                control_successors
                    .entry(predecessor)
                    .or_default()
                    .push(instr);
            }
        }
        Neighbours {
            users,
            control_successors,
        }
    }

    /// The users of `instr`.
    pub fn users(&self, instr: Instr) -> &[Instr] {
        self.users.get(&instr).map_or(&[], Vec::as_slice)
    }

    /// The control successors of `instr`.
    pub fn control_successors(&self, instr: Instr) -> &[Instr] {
        self.control_successors
            .get(&instr)
            .map_or(&[], Vec::as_slice)
    }
}

/// Whether `to` depends on `from` (or is it), through operands and control
/// predecessors (XLA's `HloReachabilityMap::IsReachable(from, to)`).
fn reaches(module: &Module, from: Instr, to: Instr, in_graph: &FxHashMap<Instr, NodeId>) -> bool {
    let mut stack = vec![to];
    let mut seen: FxHashSet<Instr> = FxHashSet::default();
    while let Some(current) = stack.pop() {
        if current == from {
            return true;
        }
        if !seen.insert(current) {
            continue;
        }
        let data = module.instr(current);
        for &next in data.operands.iter().chain(data.control_predecessors()) {
            if in_graph.contains_key(&next) {
                stack.push(next);
            }
        }
    }
    false
}

/// What the graph builder reads besides the module.
pub struct GraphInputs<'a> {
    /// The latency estimator.
    pub estimator: &'a Estimator,
    /// The module's dataflow.
    pub dataflow: &'a Dataflow,
    /// The module's buffers.
    pub aliases: &'a Aliases,
    /// Whether copy insertion is assumed: a value read where other values
    /// may also arrive (a loop's state) is read from a copy, not from the
    /// buffer the transfer writes.
    pub copies_assumed: bool,
}

impl ScheduleGraph {
    /// The graph of `sequence` (one computation's schedule).
    pub fn build(
        module: &Module,
        sequence: &[Instr],
        inputs: &GraphInputs<'_>,
        tracker: &mut ResourceCounter<'_>,
        top_down: bool,
        pin: bool,
    ) -> ScheduleGraph {
        let neighbours = Neighbours::of(module, sequence);
        let index: FxHashMap<Instr, NodeId> = sequence
            .iter()
            .enumerate()
            .map(|(at, &instr)| (instr, at))
            .collect();
        let mut nodes = Vec::with_capacity(sequence.len());
        for &instr in sequence {
            let data = module.instr(instr);
            let resources = tracker.resources(module, instr);
            let mut recursive: Vec<(Resource, i64)> =
                tracker.recursive(module, instr).into_iter().collect();
            recursive.sort_unstable();
            let is_supported_async_done = tracker.is_supported_async_done(module, instr);
            let is_supported_async_start = tracker.is_supported_async_start(module, instr);
            let hint = frontend(module, instr, "scheduler_hint");
            let mut force_early = data.opcode == Opcode::CustomCall && hint == Some("force_early");
            let mut force_delay = false;
            let mut force_delay_priority = 0;
            if has_force_delay_hint(module, instr) {
                force_delay = true;
                force_delay_priority = delay_priority(module, instr);
            }
            if is_supported_async_start && hint == Some("force_delay_async") {
                force_delay = true;
                force_delay_priority = delay_priority(module, instr);
            }
            if is_supported_async_done && hint == Some("force_delay_async") {
                force_early = true;
            }
            nodes.push(Node {
                instr,
                opcode: data.opcode,
                cost: inputs.estimator.node_cost(module, instr),
                contention: inputs.estimator.contention(module, instr),
                does_occupy_any_resource: resources.iter().any(|&(_, u)| u == Usage::Occupy),
                does_release_any_resource: resources.iter().any(|&(_, u)| u == Usage::Release),
                resources,
                recursive_resources: recursive,
                is_supported_async_done,
                is_supported_async_start,
                has_operand_that_is_supported_async_done: data
                    .operands
                    .iter()
                    .any(|&operand| tracker.is_supported_async_done(module, operand)),
                has_user_that_is_supported_async_start: neighbours
                    .users(instr)
                    .iter()
                    .any(|&user| tracker.is_supported_async_start(module, user)),
                force_delay,
                force_delay_priority,
                force_early,
                force_delay_after_target: false,
                annotation: -1,
                scheduled: false,
                ready_time: f64::MAX,
                async_depth: 0.0,
                async_height: 0.0,
                depth: 0.0,
                graph_depth: 0,
                ready_nodes_if_scheduled: 0,
                indegree: 0,
                outdegree: 0,
                predecessors: Vec::new(),
                successors: Vec::new(),
            });
        }
        let mut graph = ScheduleGraph {
            nodes,
            index,
            top_down,
        };
        graph.add_edges(module, sequence, &neighbours, inputs);
        if pin {
            graph.pin_written_order(module, inputs.estimator);
        }
        for node in 0..graph.nodes.len() {
            graph.update_ready_nodes_if_scheduled(node);
        }
        graph
    }

    fn add_edge(&mut self, from: NodeId, to: NodeId, latency: f64) {
        self.nodes[to].predecessors.push(Edge {
            latency,
            target: from,
        });
        self.nodes[to].indegree += 1;
        self.nodes[from].successors.push(Edge {
            latency,
            target: to,
        });
        self.nodes[from].outdegree += 1;
    }

    fn add_edges(
        &mut self,
        module: &Module,
        sequence: &[Instr],
        neighbours: &Neighbours,
        inputs: &GraphInputs<'_>,
    ) {
        let whiles: Vec<Instr> = sequence
            .iter()
            .copied()
            .filter(|&instr| module.instr(instr).opcode == Opcode::While)
            .collect();
        let mut value_positions: Option<FxHashMap<ValueId, Vec<(Instr, ShapeIndex)>>> = None;
        for (at, &instr) in sequence.iter().enumerate() {
            for &user in neighbours.users(instr) {
                if let Some(&to) = self.index.get(&user) {
                    let latency = inputs.estimator.latency_between(module, instr, user);
                    self.add_edge(at, to, latency);
                }
            }
            for &successor in neighbours.control_successors(instr) {
                if let Some(&to) = self.index.get(&successor) {
                    let latency = inputs.estimator.latency_between(module, instr, successor);
                    self.add_edge(at, to, latency);
                }
            }
            if self.nodes[at].is_supported_async_done {
                let positions = value_positions.get_or_insert_with(|| {
                    positions_in(sequence, inputs.dataflow, inputs.copies_assumed)
                });
                self.add_buffer_edges(module, instr, neighbours, inputs, positions);
            }
            if module.instr(instr).opcode == Opcode::SendDone {
                self.add_send_done_edges(module, instr, &whiles);
            }
            if self.top_down && module.instr(instr).opcode == Opcode::SendDone {
                for &loop_instr in &whiles {
                    if !reaches(module, loop_instr, instr, &self.index)
                        || self.index[&loop_instr] >= self.index[&instr]
                    {
                        continue;
                    }
                    for &recv_done in neighbours.control_successors(instr) {
                        if module.instr(recv_done).opcode != Opcode::RecvDone {
                            continue;
                        }
                        let recv = module.instr(recv_done).operands[0];
                        if let (Some(&recv_node), Some(&loop_node)) =
                            (self.index.get(&recv), self.index.get(&loop_instr))
                        {
                            self.add_edge(loop_node, recv_node, 1.0);
                        }
                    }
                }
            }
        }
    }

    /// Chains the pinned instructions in their written order, so that the
    /// walk can only choose among what the user left open.
    fn pin_written_order(&mut self, module: &Module, estimator: &Estimator) {
        let Some(&first) = self.nodes.first().map(|n| &n.instr) else {
            return;
        };
        let comp = module.parent(first);
        let pinned: Vec<NodeId> = weft_ir::pinned_order::pinned_instructions(module, comp)
            .into_iter()
            .filter_map(|instr| self.index.get(&instr).copied())
            .collect();
        for pair in pinned.windows(2) {
            let (from, to) = (pair[0], pair[1]);
            if self.nodes[from].successors.iter().any(|e| e.target == to) {
                continue;
            }
            let latency =
                estimator.latency_between(module, self.nodes[from].instr, self.nodes[to].instr);
            self.add_edge(from, to, latency);
        }
    }

    /// Readers of the buffer an async done writes come before its start.
    fn add_buffer_edges(
        &mut self,
        module: &Module,
        done: Instr,
        neighbours: &Neighbours,
        inputs: &GraphInputs<'_>,
        positions: &FxHashMap<ValueId, Vec<(Instr, ShapeIndex)>>,
    ) {
        let Some(&start) = module.instr(done).operands.first() else {
            return;
        };
        let Some(&start_node) = self.index.get(&start) else {
            return;
        };
        let mut buffers: Vec<_> = inputs
            .dataflow
            .value_set(done, &[])
            .iter()
            .map(|&value| inputs.aliases.buffer_of(value))
            .collect();
        buffers.sort_unstable();
        buffers.dedup();
        for buffer in buffers {
            for &value in &inputs.aliases.buffer(buffer).values {
                if inputs.dataflow.value(value).instruction == done {
                    continue;
                }
                for (user, operand_number) in uses(module, value, neighbours, positions) {
                    let Some(&user_node) = self.index.get(&user) else {
                        continue;
                    };
                    if user == start || reaches(module, done, user, &self.index) {
                        continue;
                    }
                    let operand = module.instr(user).operands[operand_number];
                    if module.instr(operand).shape == module.shapes.token() {
                        continue;
                    }
                    if self.is_predecessor_transitively(user_node, start_node) {
                        continue;
                    }
                    self.add_edge(user_node, start_node, 1.0);
                }
            }
        }
    }

    /// A send-done whose control predecessor is a recv-done feeding a while
    /// loop stays before the earliest such loop.
    fn add_send_done_edges(&mut self, module: &Module, send_done: Instr, whiles: &[Instr]) {
        let Some(&recv_done) = module
            .instr(send_done)
            .control_predecessors()
            .iter()
            .find(|&&p| module.instr(p).opcode == Opcode::RecvDone)
        else {
            return;
        };
        let dependent = whiles
            .iter()
            .copied()
            .filter(|&loop_instr| reaches(module, recv_done, loop_instr, &self.index))
            .min_by_key(|loop_instr| self.index[loop_instr]);
        if let Some(loop_instr) = dependent {
            let (from, to) = (self.index[&send_done], self.index[&loop_instr]);
            self.add_edge(from, to, 1.0);
        }
    }

    /// Whether `possible_predecessor` is `node` or reaches it by edges.
    fn is_predecessor_transitively(&self, node: NodeId, possible_predecessor: NodeId) -> bool {
        let mut visited: FxHashSet<NodeId> = FxHashSet::default();
        let mut stack = vec![node];
        while let Some(current) = stack.pop() {
            if current == possible_predecessor {
                return true;
            }
            if !visited.insert(current) {
                continue;
            }
            stack.extend(self.nodes[current].predecessors.iter().map(|e| e.target));
        }
        false
    }

    /// Recounts how many neighbours scheduling `node` would make ready.
    pub fn update_ready_nodes_if_scheduled(&mut self, node: NodeId) {
        let count = if self.top_down {
            self.nodes[node]
                .successors
                .iter()
                .filter(|e| self.nodes[e.target].indegree == 1)
                .count()
        } else {
            self.nodes[node]
                .predecessors
                .iter()
                .filter(|e| self.nodes[e.target].outdegree == 1)
                .count()
        };
        self.nodes[node].ready_nodes_if_scheduled = count as i64;
    }

    /// Sets `node`'s unscheduled-predecessor count.
    pub fn set_indegree(&mut self, node: NodeId, degree: i64) {
        self.nodes[node].indegree = degree;
        if self.top_down && degree == 1 {
            for at in 0..self.nodes[node].predecessors.len() {
                let predecessor = self.nodes[node].predecessors[at].target;
                self.update_ready_nodes_if_scheduled(predecessor);
            }
        }
    }

    /// Sets `node`'s unscheduled-successor count.
    pub fn set_outdegree(&mut self, node: NodeId, degree: i64) {
        self.nodes[node].outdegree = degree;
        if !self.top_down && degree == 1 {
            for at in 0..self.nodes[node].successors.len() {
                let successor = self.nodes[node].successors[at].target;
                self.update_ready_nodes_if_scheduled(successor);
            }
        }
    }

    /// Depths and heights (see the module docs).
    pub fn analyse(&mut self) {
        let order = self.topological_order();
        for &node in &order {
            let mut async_depth: f64 = 0.0;
            let mut depth: f64 = 0.0;
            let mut graph_depth: i64 = 0;
            let is_done = self.nodes[node].is_supported_async_done;
            for edge in &self.nodes[node].predecessors {
                let predecessor = &self.nodes[edge.target];
                let through = if is_done { edge.latency } else { 0.0 };
                async_depth = async_depth.max(predecessor.async_depth + through);
                depth = depth.max(predecessor.depth + predecessor.cost + edge.latency);
                graph_depth = graph_depth.max(predecessor.graph_depth + 1);
            }
            let this = &mut self.nodes[node];
            this.async_depth = async_depth;
            this.depth = depth;
            this.graph_depth = graph_depth;
        }
        for &node in order.iter().rev() {
            let mut async_height: f64 = 0.0;
            let is_start = self.nodes[node].is_supported_async_start;
            for edge in &self.nodes[node].successors {
                let through = if is_start { edge.latency } else { 0.0 };
                async_height = async_height.max(self.nodes[edge.target].async_height + through);
            }
            self.nodes[node].async_height = async_height;
        }
    }

    fn topological_order(&self) -> Vec<NodeId> {
        let mut remaining: Vec<i64> = self.nodes.iter().map(|n| n.indegree).collect();
        let mut stack: Vec<NodeId> = (0..self.nodes.len())
            .filter(|&n| remaining[n] == 0)
            .collect();
        let mut order = Vec::with_capacity(self.nodes.len());
        while let Some(node) = stack.pop() {
            order.push(node);
            for edge in &self.nodes[node].successors {
                remaining[edge.target] -= 1;
                if remaining[edge.target] == 0 {
                    stack.push(edge.target);
                }
            }
        }
        order
    }

    /// Nodes nothing waits for (bottom-up roots), in original order.
    pub fn bottom_roots(&self) -> Vec<NodeId> {
        (0..self.nodes.len())
            .filter(|&n| self.nodes[n].outdegree == 0)
            .collect()
    }

    /// Nodes that wait for nothing (top-down roots), in original order.
    pub fn top_roots(&self) -> Vec<NodeId> {
        (0..self.nodes.len())
            .filter(|&n| self.nodes[n].indegree == 0)
            .collect()
    }

    /// Gives each annotated node its group.
    pub fn annotate(&mut self, module: &Module) {
        for node in &mut self.nodes {
            if let Ok(Some(group)) = scheduling_annotation::group(module.instr(node.instr)) {
                node.annotation = group;
            }
        }
    }
}

/// Where each value of `sequence`'s instructions appears; with
/// `copies_assumed`, only where it is the one value that can be there
/// (where others may arrive too, copy insertion would give it a copy).
fn positions_in(
    sequence: &[Instr],
    dataflow: &Dataflow,
    copies_assumed: bool,
) -> FxHashMap<ValueId, Vec<(Instr, ShapeIndex)>> {
    let mut positions: FxHashMap<ValueId, Vec<(Instr, ShapeIndex)>> = FxHashMap::default();
    for &instr in sequence {
        for position in dataflow.positions(instr) {
            if copies_assumed && position.values.len() > 1 {
                continue;
            }
            for &value in &position.values {
                positions
                    .entry(value)
                    .or_default()
                    .push((instr, position.index.clone()));
            }
        }
    }
    positions
}

/// The uses of `value` (XLA's `HloValue::GetUses`): every operand slot that
/// reads it, not counting instructions that only pass it on.
fn uses(
    module: &Module,
    value: ValueId,
    neighbours: &Neighbours,
    positions: &FxHashMap<ValueId, Vec<(Instr, ShapeIndex)>>,
) -> Vec<(Instr, usize)> {
    let Some(at) = positions.get(&value) else {
        return Vec::new();
    };
    let is_root = |instr: Instr| module.comp(module.parent(instr)).root() == Some(instr);
    let root_positions: Vec<Instr> = at
        .iter()
        .map(|(instr, _)| *instr)
        .filter(|&instr| is_root(instr))
        .collect();
    let mut found = Vec::new();
    for (instr, index) in at {
        for &user in neighbours.users(*instr) {
            let may_use = match module.instr(user).opcode {
                Opcode::GetTupleElement | Opcode::Copy => index.is_empty(),
                Opcode::Domain | Opcode::Tuple => false,
                _ => true,
            };
            let root_use = is_root(user) && root_positions.contains(&user);
            if !(may_use || root_use) {
                continue;
            }
            for (number, &operand) in module.instr(user).operands.iter().enumerate() {
                if operand == *instr && !found.contains(&(user, number)) {
                    found.push((user, number));
                }
            }
        }
    }
    found
}

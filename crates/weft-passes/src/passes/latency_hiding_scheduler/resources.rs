//! Which async ops the scheduler moves, and the resources they hold (XLA's
//! `AsyncTracker`).
//!
//! Every supported async op is seen in *canonical* form — an async start or
//! done wrapping an inner opcode — whether it is written first-class
//! (`all-gather-start`), as suffix sugar or as a generic `async-start`. A
//! start and its done hold one unit of their kind's resource between them;
//! the configuration's overlap limit says how many units there are. In the
//! direction the scheduler walks, the op met first *occupies* the unit and
//! the other *releases* it: bottom-up the done occupies, top-down the start.
//!
//! An instruction that calls computations (a while loop, a call) holds, for
//! the limit check, as many units as its callees keep in flight at most
//! ([`ResourceCounter::recursive`]); a while loop also lists the resources
//! its body uses.

use rustc_hash::FxHashMap;
use weft_ir::attrs::Attrs;
use weft_ir::{Comp, Instr, Module, Opcode};

use super::config::SchedulerConfig;

/// A resource kind, numbered as XLA numbers `ResourceType`.
pub type Resource = usize;

/// No resource.
pub const NO_RESOURCE: Resource = 0;
/// all-to-all.
pub const ALL_TO_ALL: Resource = 1;
/// all-gather.
pub const ALL_GATHER: Resource = 2;
/// all-reduce.
pub const ALL_REDUCE: Resource = 3;
/// collective-permute.
pub const COLLECTIVE_PERMUTE: Resource = 4;
/// copy-start/copy-done.
pub const COPY: Resource = 5;
/// reduce-scatter.
pub const REDUCE_SCATTER: Resource = 6;
/// Device send/recv.
pub const SEND_RECV: Resource = 7;
/// Host sends (and host receives when forced to share).
pub const SEND_HOST: Resource = 8;
/// Host receives.
pub const RECV_HOST: Resource = 9;
/// collective-broadcast.
pub const COLLECTIVE_BROADCAST: Resource = 10;
/// ragged-all-to-all (numbered after XLA's `kNumResources`).
pub const RAGGED_ALL_TO_ALL: Resource = 12;
/// One past the largest resource number.
pub const RESOURCE_COUNT: usize = 13;

/// A resource's name as XLA's scheduler prints it.
pub fn resource_name(resource: Resource) -> &'static str {
    match resource {
        NO_RESOURCE => "kNoResource",
        ALL_TO_ALL => "kAllToAll",
        ALL_GATHER => "kAllGather",
        ALL_REDUCE => "kAllReduce",
        COLLECTIVE_PERMUTE => "kCollectivePermute",
        COPY => "kCopy",
        REDUCE_SCATTER => "kReduceScatter",
        SEND_RECV => "kSendRecv",
        SEND_HOST => "kSendHost",
        RECV_HOST => "kRecvHost",
        COLLECTIVE_BROADCAST => "kCollectiveBroadcast",
        RAGGED_ALL_TO_ALL => "kRaggedAllToAll",
        _ => "Not a valid default resource",
    }
}

/// How an instruction uses a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Usage {
    /// Named but neither taken nor given back (an after-all's host token).
    None,
    /// Takes a unit.
    Occupy,
    /// Gives a unit back.
    Release,
}

/// An async op's canonical form: the outer opcode (async-start,
/// async-done or the instruction's own) and the opcode it wraps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CanonicalAsyncOp {
    /// `AsyncStart`, `AsyncDone`, or the instruction's own opcode.
    pub outer: Opcode,
    /// The wrapped opcode (the instruction's own when not async).
    pub inner: Opcode,
}

/// The opcode a generic async op wraps: its computation's root.
pub fn wrapped_opcode(module: &Module, instr: Instr) -> Option<Opcode> {
    let comp = weft_ir::async_chain::ChainTracer::new(module).wrapped_computation(instr)?;
    module
        .comp(comp)
        .root()
        .map(|root| module.instr(root).opcode)
}

/// XLA's `DefaultGetCanonicalAsyncOp`.
pub fn canonical(module: &Module, instr: Instr) -> CanonicalAsyncOp {
    let opcode = module.instr(instr).opcode;
    let pair = |outer, inner| CanonicalAsyncOp { outer, inner };
    match opcode {
        Opcode::AsyncStart | Opcode::AsyncDone => {
            pair(opcode, wrapped_opcode(module, instr).unwrap_or(opcode))
        }
        Opcode::AllReduceStart => pair(Opcode::AsyncStart, Opcode::AllReduce),
        Opcode::AllGatherStart => pair(Opcode::AsyncStart, Opcode::AllGather),
        Opcode::CollectivePermuteStart => pair(Opcode::AsyncStart, Opcode::CollectivePermute),
        Opcode::CopyStart => pair(Opcode::AsyncStart, Opcode::Copy),
        Opcode::CopyDone => pair(Opcode::AsyncDone, Opcode::Copy),
        Opcode::AllReduceDone => pair(Opcode::AsyncDone, Opcode::AllReduce),
        Opcode::AllGatherDone => pair(Opcode::AsyncDone, Opcode::AllGather),
        Opcode::CollectivePermuteDone => pair(Opcode::AsyncDone, Opcode::CollectivePermute),
        _ => pair(opcode, opcode),
    }
}

/// The resource kind of a (wrapped) opcode.
pub fn resource_of(opcode: Opcode) -> Resource {
    match opcode {
        Opcode::AllReduce => ALL_REDUCE,
        Opcode::AllGather => ALL_GATHER,
        Opcode::AllToAll => ALL_TO_ALL,
        Opcode::RaggedAllToAll => RAGGED_ALL_TO_ALL,
        Opcode::CollectiveBroadcast => COLLECTIVE_BROADCAST,
        Opcode::CollectivePermute => COLLECTIVE_PERMUTE,
        Opcode::Copy => COPY,
        Opcode::ReduceScatter => REDUCE_SCATTER,
        _ => NO_RESOURCE,
    }
}

fn is_schedulable_inner(inner: Opcode) -> bool {
    matches!(
        inner,
        Opcode::AllToAll
            | Opcode::RaggedAllToAll
            | Opcode::AllGather
            | Opcode::AllReduce
            | Opcode::CollectiveBroadcast
            | Opcode::CollectivePermute
            | Opcode::Copy
            | Opcode::ReduceScatter
    )
}

/// Whether a generic async op runs on another thread than its computation.
fn runs_on_other_thread(module: &Module, instr: Instr) -> bool {
    let thread = weft_ir::async_chain::ChainTracer::new(module).thread(instr);
    thread != module.comp(module.parent(instr)).thread()
}

fn is_host_transfer(module: &Module, instr: Instr) -> bool {
    matches!(
        module.instr(instr).attrs,
        Attrs::SendRecv {
            is_host_transfer: true,
            ..
        }
    )
}

/// Answers the tracker's questions about one module under one
/// configuration, remembering per-instruction answers.
pub struct ResourceCounter<'a> {
    config: &'a SchedulerConfig,
    resources: FxHashMap<Instr, Vec<(Resource, Usage)>>,
    in_computation: FxHashMap<Comp, FxHashMap<Resource, i64>>,
}

impl<'a> ResourceCounter<'a> {
    /// A tracker for `config`.
    pub fn new(config: &'a SchedulerConfig) -> ResourceCounter<'a> {
        ResourceCounter {
            config,
            resources: FxHashMap::default(),
            in_computation: FxHashMap::default(),
        }
    }

    /// Whether `instr` is an async done the scheduler moves.
    pub fn is_supported_async_done(&self, module: &Module, instr: Instr) -> bool {
        let op = canonical(module, instr);
        if matches!(op.outer, Opcode::SendDone | Opcode::RecvDone) {
            return self.config.schedule_send_recvs;
        }
        if op.outer == Opcode::AsyncDone {
            if module.instr(instr).opcode == Opcode::AsyncDone
                && runs_on_other_thread(module, instr)
            {
                return true;
            }
            return is_schedulable_inner(op.inner);
        }
        false
    }

    /// Whether `instr` is an async start the scheduler moves.
    pub fn is_supported_async_start(&self, module: &Module, instr: Instr) -> bool {
        let op = canonical(module, instr);
        if matches!(op.outer, Opcode::Send | Opcode::Recv) {
            return self.config.schedule_send_recvs;
        }
        if op.outer == Opcode::AsyncStart {
            if module.instr(instr).opcode == Opcode::AsyncStart
                && runs_on_other_thread(module, instr)
            {
                return true;
            }
            return is_schedulable_inner(op.inner);
        }
        false
    }

    /// The resources `instr` occupies or releases.
    pub fn resources(&mut self, module: &Module, instr: Instr) -> Vec<(Resource, Usage)> {
        if let Some(known) = self.resources.get(&instr) {
            return known.clone();
        }
        let found = self.compute_resources(module, instr);
        self.resources.insert(instr, found.clone());
        found
    }

    fn compute_resources(&self, module: &Module, instr: Instr) -> Vec<(Resource, Usage)> {
        let top_down = self.config.top_down_scheduling;
        // The op the walk meets first occupies.
        let (at_start, at_done) = if top_down {
            (Usage::Occupy, Usage::Release)
        } else {
            (Usage::Release, Usage::Occupy)
        };
        let op = canonical(module, instr);
        if matches!(op.outer, Opcode::AsyncStart | Opcode::AsyncDone) {
            let resource = resource_of(op.inner);
            if resource == NO_RESOURCE {
                return Vec::new();
            }
            let usage = if op.outer == Opcode::AsyncStart {
                at_start
            } else {
                at_done
            };
            return vec![(resource, usage)];
        }
        let data = module.instr(instr);
        let host_receive = if self.config.force_send_recv_to_use_same_resource {
            SEND_HOST
        } else {
            RECV_HOST
        };
        let operand_is_host = || {
            data.operands
                .first()
                .is_some_and(|&operand| is_host_transfer(module, operand))
        };
        match data.opcode {
            Opcode::AfterAll => vec![(SEND_HOST, Usage::None)],
            Opcode::Recv => {
                let resource = if is_host_transfer(module, instr) {
                    host_receive
                } else {
                    SEND_RECV
                };
                vec![(resource, at_start)]
            }
            Opcode::Send => {
                let resource = if is_host_transfer(module, instr) {
                    SEND_HOST
                } else {
                    SEND_RECV
                };
                vec![(resource, at_start)]
            }
            Opcode::RecvDone => {
                let resource = if operand_is_host() {
                    host_receive
                } else {
                    SEND_RECV
                };
                vec![(resource, at_done)]
            }
            Opcode::SendDone => {
                let resource = if operand_is_host() {
                    SEND_HOST
                } else {
                    SEND_RECV
                };
                vec![(resource, at_done)]
            }
            Opcode::While => {
                // Every resource the body uses, each usage once, in the
                // body's order.
                let mut result: Vec<(Resource, Usage)> = Vec::new();
                // A while's callees are its body, then its condition.
                if let Some(&body) = data.callees.first() {
                    for &inner in module.comp(body).body() {
                        for pair in self.compute_resources(module, inner) {
                            if !result.contains(&pair) {
                                result.push(pair);
                            }
                        }
                    }
                }
                result
            }
            opcode => {
                // A synchronous collective holds its resource for no time.
                let resource = resource_of(opcode);
                if self.config.track_sync_op_resource_usage && resource != NO_RESOURCE {
                    vec![(resource, Usage::Occupy), (resource, Usage::Release)]
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// How many units of each resource `instr` needs at once: its own
    /// occupations, or for an instruction that calls computations the most
    /// its callees keep in flight (XLA's `GetNumResourcesPerInstruction`).
    pub fn recursive(&mut self, module: &Module, instr: Instr) -> FxHashMap<Resource, i64> {
        let data = module.instr(instr);
        let mut counts: FxHashMap<Resource, i64> = FxHashMap::default();
        let is_async = matches!(data.opcode, Opcode::AsyncStart | Opcode::AsyncDone);
        if data.callees.is_empty() || is_async {
            for (resource, usage) in self.resources(module, instr) {
                if usage == Usage::Occupy {
                    *counts.entry(resource).or_insert(0) += 1;
                }
            }
        }
        let callees = data.callees.to_vec();
        for callee in callees {
            for (resource, count) in self.in_computation(module, callee) {
                let entry = counts.entry(resource).or_insert(0);
                *entry = (*entry).max(count);
            }
        }
        counts
    }

    /// The units of each resource `comp` keeps in flight at most: from its
    /// sequence when it is scheduled, else a count of its async dones.
    pub fn in_computation(&mut self, module: &Module, comp: Comp) -> FxHashMap<Resource, i64> {
        if let Some(known) = self.in_computation.get(&comp) {
            return known.clone();
        }
        let map = match module.schedule().sequence(comp) {
            Some(sequence) => {
                let sequence = sequence.to_vec();
                let mut map: FxHashMap<Resource, i64> = FxHashMap::default();
                let mut in_flight: FxHashMap<Resource, i64> = FxHashMap::default();
                for &instr in sequence.iter().rev() {
                    if self.is_supported_async_done(module, instr) {
                        for (resource, _) in self.resources(module, instr) {
                            let current = in_flight.entry(resource).or_insert(0);
                            *current += 1;
                            let peak = map.entry(resource).or_insert(0);
                            *peak = (*peak).max(*current);
                        }
                    } else if self.is_supported_async_start(module, instr) {
                        for (resource, _) in self.resources(module, instr) {
                            *in_flight.entry(resource).or_insert(0) -= 1;
                        }
                    }
                    if module.instr(instr).callees.is_empty() {
                        continue;
                    }
                    for (resource, count) in self.recursive(module, instr) {
                        let current = in_flight.get(&resource).copied().unwrap_or(0) + count;
                        let peak = map.entry(resource).or_insert(0);
                        *peak = (*peak).max(current);
                    }
                }
                map
            }
            None => {
                let body = module.comp(comp).body().to_vec();
                let mut map: FxHashMap<Resource, i64> = FxHashMap::default();
                let mut seen: Vec<Resource> = Vec::new();
                for instr in body {
                    if self.is_supported_async_done(module, instr) {
                        let mut seen_here = Vec::new();
                        for (resource, _) in self.resources(module, instr) {
                            if seen.contains(&resource) {
                                continue;
                            }
                            *map.entry(resource).or_insert(0) += 1;
                            seen_here.push(resource);
                        }
                        seen.extend(seen_here);
                    }
                    let callees = module.instr(instr).callees.to_vec();
                    for callee in callees {
                        for (resource, count) in self.in_computation(module, callee) {
                            if seen.contains(&resource) {
                                continue;
                            }
                            *map.entry(resource).or_insert(0) += count;
                            seen.push(resource);
                        }
                    }
                }
                map
            }
        };
        self.in_computation.insert(comp, map.clone());
        map
    }

    /// Forgets what was computed for `comp` (its schedule changed).
    pub fn invalidate(&mut self, comp: Comp) {
        self.in_computation.remove(&comp);
    }

    /// The overlap limit of every resource kind.
    pub fn limits(&self) -> [Option<i64>; RESOURCE_COUNT] {
        let c = self.config;
        let mut limits = [None; RESOURCE_COUNT];
        limits[COLLECTIVE_BROADCAST] = Some(c.collective_broadcast_overlap_limit);
        limits[COLLECTIVE_PERMUTE] = Some(c.collective_permute_overlap_limit);
        limits[COPY] = Some(c.copy_overlap_limit);
        limits[ALL_TO_ALL] = Some(c.all_to_all_overlap_limit);
        limits[RAGGED_ALL_TO_ALL] = Some(c.ragged_all_to_all_overlap_limit);
        limits[ALL_GATHER] = Some(c.all_gather_overlap_limit);
        limits[ALL_REDUCE] = Some(c.all_reduce_overlap_limit);
        limits[REDUCE_SCATTER] = Some(c.reduce_scatter_overlap_limit);
        limits[SEND_RECV] = Some(c.send_recv_overlap_limit);
        limits[SEND_HOST] = Some(c.send_recv_host_overlap_limit);
        limits[RECV_HOST] = Some(c.send_recv_host_overlap_limit);
        limits
    }
}

//! Latency estimators: how long a node runs and how long an edge waits.
//!
//! The scheduler reasons in one unit of time. A node's *cost* is how long
//! its instruction keeps the device busy; an edge's *latency* is how long
//! its target must wait after its source. Async start→done edges carry the
//! transfer's latency, which is what the scheduler hides by placing other
//! nodes' costs inside it.
//!
//! Three estimators:
//!
//! - `approximate` and `test`: XLA's abstract units (see
//!   [`EstimatorKind`]), to reproduce XLA's decisions;
//! - `analytic`: microseconds from weft's cost model. A node costs what the
//!   device profile says its work takes ([`weft_cost::Profile::time`] of
//!   [`weft_cost::work::of`]); a while loop its body's cost times its trip
//!   count, a call its callee's, a conditional its dearest branch. An
//!   async start→done edge waits as long as the collective takes on the
//!   topology under the chosen algorithm ([`weft_cost::Interconnect`]), the
//!   same model `weft run` charges; other edges wait nothing. A transfer
//!   in flight takes a share of the device's memory bandwidth (it writes
//!   what it receives, reads what it sends): memory-bound work beside it
//!   slows, compute-bound work does not ([`Estimator::contention`]).
//!
//! A `latency_metadata` frontend attribute (nanoseconds) on an instruction
//! overrides nothing here; XLA reads it only in backend estimators.

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use weft_cost::{Collective, Interconnect, Profile};
use weft_ir::attrs::{Attrs, FusionKind};
use weft_ir::{Comp, Instr, Module, Opcode};

use super::config::EstimatorKind;
use super::resources::canonical;
use crate::analysis::while_loop;

/// XLA's `ApproximateLatencyEstimator` constants.
const LOW_COST: f64 = 1.0;
const MEDIUM_COST: f64 = 1000.0;
const HIGH_COST: f64 = 5000.0;
const LOW_LATENCY: f64 = 1.0;
const HIGH_LATENCY: f64 = 5000.0;

/// The cost model behind the `analytic` estimator.
pub struct Analytic {
    /// The device.
    pub profile: Profile,
    /// The interconnect and collective algorithm.
    pub interconnect: Interconnect,
    /// Computation costs already summed.
    computations: RefCell<FxHashMap<Comp, f64>>,
    /// Each instruction's work, counted once (candidates and the yardstick
    /// ask for the same instructions many times).
    works: RefCell<FxHashMap<Instr, weft_cost::Work>>,
}

impl Analytic {
    /// A cost model of `profile` on `interconnect`.
    pub fn new(profile: Profile, interconnect: Interconnect) -> Analytic {
        Analytic {
            profile,
            interconnect,
            computations: RefCell::new(FxHashMap::default()),
            works: RefCell::new(FxHashMap::default()),
        }
    }

    fn microseconds(duration: std::time::Duration) -> f64 {
        duration.as_secs_f64() * 1e6
    }

    /// The time of one instruction, callees included.
    pub fn node_cost(&self, module: &Module, instr: Instr) -> f64 {
        self.node_cost_sharing(module, instr, 0.0)
    }

    fn work(&self, module: &Module, instr: Instr) -> weft_cost::Work {
        if let Some(&known) = self.works.borrow().get(&instr) {
            return known;
        }
        let work = weft_cost::work::of(module, instr);
        self.works.borrow_mut().insert(instr, work);
        work
    }

    fn computation_cost(&self, module: &Module, comp: Comp) -> f64 {
        if let Some(&known) = self.computations.borrow().get(&comp) {
            return known;
        }
        // Mark it first: a computation that (wrongly) calls itself costs
        // nothing more the second time round.
        self.computations.borrow_mut().insert(comp, 0.0);
        let total = module
            .comp(comp)
            .body()
            .iter()
            .map(|&instr| self.node_cost(module, instr))
            .sum();
        self.computations.borrow_mut().insert(comp, total);
        total
    }

    /// The time of one instruction while a share `share` of the memory
    /// bandwidth goes to a transfer (control flow is priced as without).
    pub fn node_cost_sharing(&self, module: &Module, instr: Instr, share: f64) -> f64 {
        let data = module.instr(instr);
        match data.opcode {
            Opcode::While => {
                let trips = while_loop::trip_count(module, instr).unwrap_or(1).max(0) as f64;
                let per_trip: f64 = data
                    .callees
                    .iter()
                    .map(|&comp| self.computation_cost(module, comp))
                    .sum();
                trips * per_trip
            }
            Opcode::Call => data
                .callees
                .iter()
                .map(|&comp| self.computation_cost(module, comp))
                .sum(),
            Opcode::Conditional => data
                .callees
                .iter()
                .map(|&comp| self.computation_cost(module, comp))
                .fold(0.0, f64::max),
            // The transfer is the edge's latency; the device is free.
            _ if canonical(module, instr).outer != data.opcode
                || matches!(
                    data.opcode,
                    Opcode::AsyncStart | Opcode::AsyncUpdate | Opcode::AsyncDone
                ) =>
            {
                0.0
            }
            _ => Self::microseconds(
                self.profile
                    .time_sharing_memory(&self.work(module, instr), share),
            ),
        }
    }

    /// The share of the device's memory bandwidth the transfer `start`
    /// begins takes while it lasts: it writes what the device receives and
    /// reads what it sends.
    pub fn transfer_share(&self, module: &Module, start: Instr) -> f64 {
        let Some((collective, bytes, group, _)) = describe_collective(module, start) else {
            return 0.0;
        };
        let kind = match collective {
            CollectiveShape::Permute => weft_cost::CollectiveKind::PointToPoint,
            CollectiveShape::Other(collective) => collective.kind(),
        };
        let received = kind.received_bytes(bytes, group.len());
        let latency = self.collective_latency(module, start);
        self.profile.memory_share(
            received + bytes,
            std::time::Duration::from_secs_f64(latency.max(0.0) * 1e-6),
        )
    }

    /// How long the collective `start` begins takes, in microseconds.
    pub fn collective_latency(&self, module: &Module, start: Instr) -> f64 {
        let Some((collective, bytes, group, pairs)) = describe_collective(module, start) else {
            return 0.0;
        };
        let time = match collective {
            CollectiveShape::Permute => {
                self.interconnect
                    .collective_time(Collective::Permute(&pairs), bytes, &group)
            }
            CollectiveShape::Other(collective) => {
                self.interconnect.collective_time(collective, bytes, &group)
            }
        };
        Self::microseconds(time)
    }
}

enum CollectiveShape {
    Permute,
    Other(Collective<'static>),
}

/// The instruction that carries a start's collective attributes: itself, or
/// the root of the computation a generic start wraps.
fn collective_of(module: &Module, start: Instr) -> Instr {
    if module.instr(start).opcode == Opcode::AsyncStart
        && let Some(&comp) = module.instr(start).callees.first()
        && let Some(root) = module.comp(comp).root()
    {
        return root;
    }
    start
}

/// What a collective moves: its kind, the bytes each member contributes,
/// one group of members (device ids) and, for a permute, its pairs.
#[allow(clippy::type_complexity)]
fn describe_collective(
    module: &Module,
    start: Instr,
) -> Option<(CollectiveShape, f64, Vec<usize>, Vec<(usize, usize)>)> {
    let collective = collective_of(module, start);
    let data = module.instr(collective);
    let bytes: f64 = data
        .operands
        .iter()
        .map(|&operand| weft_cost::work::shape_bytes(module, module.instr(operand).shape))
        .sum();
    let devices = |channel: bool| {
        let replicas = module.config.replica_count.unwrap_or(1).max(1) as usize;
        let partitions = module.config.num_partitions.unwrap_or(1).max(1) as usize;
        if channel {
            partitions.max(replicas)
        } else {
            replicas
        }
    };
    match &data.attrs {
        Attrs::CollectivePermute(permute) => {
            let pairs: Vec<(usize, usize)> = permute
                .source_target_pairs
                .iter()
                .map(|&(s, t)| (s.max(0) as usize, t.max(0) as usize))
                .collect();
            let mut group: Vec<usize> = pairs.iter().flat_map(|&(s, t)| [s, t]).collect();
            group.sort_unstable();
            group.dedup();
            Some((CollectiveShape::Permute, bytes, group, pairs))
        }
        Attrs::Collective(attrs) => {
            let kind = match data.opcode {
                Opcode::AllReduce | Opcode::AllReduceStart => Collective::AllReduce,
                Opcode::AllGather | Opcode::AllGatherStart => Collective::AllGather,
                Opcode::ReduceScatter => Collective::ReduceScatter,
                Opcode::AllToAll | Opcode::RaggedAllToAll => Collective::AllToAll,
                Opcode::CollectiveReduce => Collective::Reduce,
                _ => Collective::Broadcast,
            };
            let groups = attrs.replica_groups.groups().ok()?;
            let group: Vec<usize> = match groups.first() {
                Some(first) => first.iter().map(|&id| id.max(0) as usize).collect(),
                None => (0..devices(attrs.channel_id.is_some())).collect(),
            };
            Some((CollectiveShape::Other(kind), bytes, group, Vec::new()))
        }
        _ => None,
    }
}

/// Prices nodes and edges for one module.
pub struct Estimator {
    kind: EstimatorKind,
    analytic: Option<Analytic>,
}

fn fusion_kind(module: &Module, instr: Instr) -> Option<FusionKind> {
    match &module.instr(instr).attrs {
        Attrs::Fusion(fusion) if module.instr(instr).opcode == Opcode::Fusion => Some(fusion.kind),
        _ => None,
    }
}

fn elements(module: &Module, instr: Instr) -> f64 {
    module
        .shapes
        .as_array(module.instr(instr).shape)
        .and_then(|array| array.element_count())
        .unwrap_or(0) as f64
}

/// Whether `from`→`to` is an async start and its done (of the same kind).
pub fn is_async_pair(module: &Module, from: Instr, to: Instr) -> bool {
    let from_op = canonical(module, from);
    let to_op = canonical(module, to);
    from_op.outer == Opcode::AsyncStart
        && to_op.outer == Opcode::AsyncDone
        && from_op.inner == to_op.inner
}

impl Estimator {
    /// The estimator `kind` (`analytic` needs its cost model).
    pub fn new(kind: EstimatorKind, analytic: Option<Analytic>) -> Estimator {
        Estimator { kind, analytic }
    }

    /// The transfer time of a synchronous collective (analytic only; 0
    /// for anything else).
    pub fn collective_time(&self, module: &Module, instr: Instr) -> f64 {
        let data = module.instr(instr);
        let is_sync_collective = data.opcode.has(weft_ir::opcode::Flags::COLLECTIVE)
            && canonical(module, instr).outer == data.opcode
            && !matches!(data.opcode, Opcode::Send | Opcode::Recv);
        match &self.analytic {
            Some(model) if is_sync_collective => model.collective_latency(module, instr),
            _ => 0.0,
        }
    }

    /// How much longer `instr` runs beside a transfer that takes half the
    /// memory bandwidth than alone: 0 for compute-bound work (analytic
    /// only).
    pub fn contention(&self, module: &Module, instr: Instr) -> f64 {
        match &self.analytic {
            Some(model) => {
                model.node_cost_sharing(module, instr, 0.5) - model.node_cost(module, instr)
            }
            None => 0.0,
        }
    }

    /// The time of `instr` beside a transfer taking `share` of the memory
    /// bandwidth (the plain cost for the abstract estimators).
    pub fn node_cost_sharing(&self, module: &Module, instr: Instr, share: f64) -> f64 {
        match &self.analytic {
            Some(model) => model.node_cost_sharing(module, instr, share),
            None => self.node_cost(module, instr),
        }
    }

    /// The memory-bandwidth share of the transfer `start` begins (analytic
    /// only; 0 otherwise).
    pub fn transfer_share(&self, module: &Module, start: Instr) -> f64 {
        self.analytic
            .as_ref()
            .map_or(0.0, |model| model.transfer_share(module, start))
    }

    /// Whether times are microseconds of the cost model (else abstract
    /// units).
    pub fn is_analytic(&self) -> bool {
        self.kind == EstimatorKind::Analytic
    }

    /// How long `target` waits after `from`.
    pub fn latency_between(&self, module: &Module, from: Instr, target: Instr) -> f64 {
        match self.kind {
            EstimatorKind::Analytic => match &self.analytic {
                Some(model) if is_async_pair(module, from, target) => {
                    model.collective_latency(module, from)
                }
                _ => 0.0,
            },
            EstimatorKind::Approximate => {
                if is_async_pair(module, from, target) {
                    HIGH_LATENCY
                } else {
                    LOW_LATENCY
                }
            }
            EstimatorKind::Test => {
                if module.instr(from).opcode == Opcode::CollectivePermuteStart
                    && module.instr(target).opcode == Opcode::CollectivePermuteDone
                {
                    let operand = module.instr(from).operands[0];
                    LOW_LATENCY * elements(module, operand)
                } else {
                    LOW_LATENCY
                }
            }
        }
    }

    /// How long `instr` keeps the device busy.
    pub fn node_cost(&self, module: &Module, instr: Instr) -> f64 {
        let kind = fusion_kind(module, instr);
        let is_loop_fusion = kind == Some(FusionKind::Loop);
        let is_output_fusion = kind == Some(FusionKind::Output);
        let heavy = is_output_fusion || module.instr(instr).opcode == Opcode::Convolution;
        match self.kind {
            EstimatorKind::Analytic => self
                .analytic
                .as_ref()
                .map_or(0.0, |model| model.node_cost(module, instr)),
            EstimatorKind::Approximate => {
                if is_loop_fusion {
                    MEDIUM_COST
                } else if heavy {
                    HIGH_COST
                } else {
                    LOW_COST
                }
            }
            EstimatorKind::Test => {
                let is_tuple = module.shapes.is_tuple(module.instr(instr).shape);
                if is_loop_fusion {
                    if is_tuple {
                        MEDIUM_COST
                    } else {
                        LOW_COST * elements(module, instr)
                    }
                } else if heavy {
                    if is_tuple {
                        HIGH_COST
                    } else {
                        MEDIUM_COST * elements(module, instr)
                    }
                } else {
                    LOW_COST
                }
            }
        }
    }
}

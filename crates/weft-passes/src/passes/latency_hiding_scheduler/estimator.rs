//! Latency estimators: how long a node runs and how long an edge waits.
//!
//! The scheduler reasons in one unit of time. A node's *cost* is how long
//! its instruction keeps the device busy; an edge's *latency* is how long
//! its target must wait after its source. Async start→done edges carry the
//! transfer's latency, which is what the scheduler hides by placing other
//! nodes' costs inside it.
//!
//! A `latency_metadata` frontend attribute (nanoseconds) on an instruction
//! overrides nothing here; XLA reads it only in backend estimators.

use weft_ir::attrs::{Attrs, FusionKind};
use weft_ir::{Instr, Module, Opcode};

use super::config::EstimatorKind;
use super::resources::canonical;

/// XLA's `ApproximateLatencyEstimator` constants.
const LOW_COST: f64 = 1.0;
const MEDIUM_COST: f64 = 1000.0;
const HIGH_COST: f64 = 5000.0;
const LOW_LATENCY: f64 = 1.0;
const HIGH_LATENCY: f64 = 5000.0;

/// Prices nodes and edges for one module.
pub struct Estimator {
    kind: EstimatorKind,
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
    /// The estimator `kind`.
    pub fn new(kind: EstimatorKind) -> Estimator {
        Estimator { kind }
    }

    /// How long `target` waits after `from`.
    pub fn latency_between(&self, module: &Module, from: Instr, target: Instr) -> f64 {
        match self.kind {
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

//! A device's async stream: a thread that runs the device's asynchronous
//! operations in the order they start, while the device's compute thread
//! goes on. A start hands its work to the stream and returns an
//! [`InFlight`] result at once; the matching done waits for it.
//!
//! The stream has an evaluator of its own (for reducers and wrapped
//! computations). It counts collective instances itself: every device sends
//! its stream the same starts in the same order, so the counts agree across
//! devices and each instance still meets at its own rendezvous. Work started
//! from the stream itself (an async op inside a wrapped computation) runs
//! there synchronously.

use std::sync::mpsc::Receiver;

use weft_ir::{Comp, Instr, Module, Opcode};

use super::DeviceContext;
use crate::evaluate::{Evaluator, Limits};
use crate::tensor::{InFlight, Value};

/// Work for a stream.
pub(crate) enum Job {
    /// The collective of a first-class start (`all-reduce-start`, …).
    Collective {
        /// The start.
        instr: Instr,
        /// Its opcode.
        opcode: Opcode,
        /// Its operands.
        operands: Vec<Value>,
    },
    /// The computation a generic `async-start` wraps, on its bound operands.
    Call {
        /// The wrapped computation.
        comp: Comp,
        /// Its arguments.
        arguments: Vec<Value>,
    },
}

/// A job and where its result goes.
pub(crate) struct AsyncJob {
    pub(crate) job: Job,
    pub(crate) result: InFlight,
    /// The start's name, for the timeline.
    pub(crate) name: String,
    /// When the start handed the job over: the async span begins here.
    pub(crate) started: std::time::Instant,
}

/// Runs jobs until every sender is gone; returns the stream's timeline.
pub(crate) fn run_stream(
    module: &Module,
    limits: Limits,
    device: DeviceContext,
    jobs: Receiver<AsyncJob>,
) -> super::timeline::DeviceTimeline {
    let origin = device.origin;
    let mut evaluator = Evaluator::new(module, limits, Some(device));
    for AsyncJob {
        job,
        result,
        name,
        started,
    } in jobs
    {
        let picked_up = std::time::Instant::now();
        let communicated_before = evaluator
            .timeline
            .as_ref()
            .map(|timeline| timeline.communication);
        let outcome = match job {
            Job::Collective {
                instr,
                opcode,
                operands,
            } => evaluator.grid_collective(instr, opcode, operands),
            Job::Call { comp, arguments } => evaluator.call(comp, arguments),
        };
        // The async span runs from the start to the moment the result is
        // ready.
        if let Some(timeline) = evaluator.timeline.as_mut() {
            // A job that communicated counts its wait in the queue as
            // communication too: the device's done may wait through both.
            if communicated_before.is_some_and(|before| timeline.communication > before) {
                timeline.communication += picked_up.saturating_duration_since(started);
            }
            timeline.record(origin, name, super::timeline::Track::Async, started);
        }
        result.fulfil(outcome.map_err(|e| e.to_string()));
    }
    evaluator.timeline.take().unwrap_or_default()
}

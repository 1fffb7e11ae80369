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
    /// The start that began it.
    pub(crate) start: Instr,
    /// Its span's id on the device's timeline.
    pub(crate) span: u64,
    /// When the start handed the job over, on the compute stream's clock:
    /// the job begins then, or when the stream's previous job ends.
    pub(crate) started: std::time::Duration,
}

/// What a stream leaves when its queue closes: its timeline (spans,
/// events, collectives) and when its clock ended.
pub(crate) struct StreamEnd {
    pub(crate) timeline: super::timeline::DeviceTimeline,
    pub(crate) clock: std::time::Duration,
}

/// Runs jobs until every sender is gone.
pub(crate) fn run_stream(
    module: &Module,
    limits: Limits,
    device: DeviceContext,
    jobs: Receiver<AsyncJob>,
) -> StreamEnd {
    let index = device.grid.id(device.id);
    let (fabric, mailbox) = (device.fabric.clone(), device.channels.clone());
    let mut evaluator = Evaluator::new(module, limits, Some(device));
    for AsyncJob {
        job,
        result,
        start,
        span,
        started,
    } in jobs
    {
        evaluator.advance_clock_to(started);
        let began = evaluator.now();
        let outcome = crate::evaluate::panics::catch(module, || match job {
            Job::Collective {
                instr,
                opcode,
                operands,
            } => evaluator.grid_collective(instr, opcode, operands),
            Job::Call { comp, arguments } => evaluator.call(comp, arguments),
        });
        // A panic (a bug) stops the run at once: the device's compute
        // thread may be waiting somewhere other than this job's done.
        if let Err(error) = &outcome
            && error.message.starts_with(crate::evaluate::panics::PANICKED)
        {
            let reason = format!("device {index} failed: {error}");
            mailbox.abort(reason.clone());
            fabric.abort_everywhere(reason);
        }
        if let Some(clock) = evaluator.clock.as_mut() {
            clock.charge_cpu();
        }
        let ready = evaluator.now();
        if let Some(timeline) = evaluator.timeline.as_mut() {
            timeline.push_event(super::timeline::Event {
                instr: start,
                track: super::timeline::Track::Async,
                start: began,
                duration: ready.saturating_sub(began),
            });
            timeline.push_span(super::timeline::AsyncSpan {
                id: span,
                start,
                started,
                began,
                ready,
                done: None,
            });
        }
        result.fulfil(outcome.map_err(|e| e.to_string()), ready);
        fabric.progress().job_finished(index);
    }
    StreamEnd {
        clock: evaluator.now(),
        timeline: evaluator.timeline.take().unwrap_or_default(),
    }
}

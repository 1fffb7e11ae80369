//! Running a program on a grid of devices: each device is a thread running
//! the same module (SPMD) with its own replica and partition id, and
//! collectives meet on a shared [`Fabric`](fabric::Fabric).
//!
//! - [`groups`]: which devices a collective talks to;
//! - [`fabric`]: the rendezvous of each collective instance, with timeouts;
//! - [`collectives`]: what each collective computes from its group's data.
//!
//! A device that fails stops the others: its error aborts the fabric, and
//! the run reports the first failure (the root cause, not the devices that
//! merely stopped waiting for it).

pub mod collectives;
pub mod fabric;
pub mod groups;
pub(crate) mod stream;

use std::sync::Arc;
use std::time::Duration;

use weft_ir::Module;

pub use groups::{DeviceId, Grid};

use crate::evaluate::{Evaluation, Limits, RunError};
use crate::tensor::Value;

/// What a device knows about its place in the run.
#[derive(Clone)]
pub struct DeviceContext {
    /// This device.
    pub id: DeviceId,
    /// The whole grid.
    pub grid: Grid,
    /// Where collectives meet.
    pub fabric: Arc<fabric::Fabric>,
    /// This device's async stream, on its compute thread (the stream itself
    /// has none: what it starts, it runs).
    pub(crate) stream: Option<std::sync::mpsc::Sender<stream::AsyncJob>>,
}

/// How a multi-device run behaves.
#[derive(Clone, Copy, Debug)]
pub struct GridOptions {
    /// How long a device waits at a collective for the rest of its group.
    pub timeout: Duration,
    /// Resource limits of each device.
    pub limits: Limits,
}

impl Default for GridOptions {
    fn default() -> GridOptions {
        GridOptions {
            timeout: Duration::from_secs(5),
            limits: Limits::default(),
        }
    }
}

/// Runs `module` on every device of `grid`; `arguments[d]` are the entry
/// arguments of the device with flattened id `d`. Returns each device's
/// evaluation, in device order.
pub fn run_grid(
    module: &Module,
    grid: Grid,
    arguments: Vec<Vec<Value>>,
    options: GridOptions,
) -> Result<Vec<Evaluation>, RunError> {
    if arguments.len() != grid.len() {
        return Err(RunError {
            instruction: None,
            instr: None,
            message: format!(
                "{} devices but arguments for {}",
                grid.len(),
                arguments.len()
            ),
        });
    }
    let fabric = Arc::new(fabric::Fabric::new(options.timeout));
    let outcomes: Vec<Result<Evaluation, RunError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = arguments
            .into_iter()
            .enumerate()
            .map(|(index, device_arguments)| {
                let (jobs, stream_jobs) = std::sync::mpsc::channel();
                let stream_context = DeviceContext {
                    id: grid.device(index),
                    grid,
                    fabric: fabric.clone(),
                    stream: None,
                };
                std::thread::Builder::new()
                    .name(format!("device {index} async stream"))
                    .spawn_scoped(scope, move || {
                        stream::run_stream(module, options.limits, stream_context, stream_jobs)
                    })
                    .expect("a stream thread starts");
                let context = DeviceContext {
                    id: grid.device(index),
                    grid,
                    fabric: fabric.clone(),
                    stream: Some(jobs),
                };
                let fabric = fabric.clone();
                std::thread::Builder::new()
                    .name(format!("device {index}"))
                    .spawn_scoped(scope, move || {
                        let outcome = crate::evaluate::run_on_device(
                            module,
                            device_arguments,
                            options.limits,
                            context,
                        );
                        if let Err(error) = &outcome {
                            fabric.abort(format!("device {index} failed: {error}"));
                        }
                        outcome
                    })
                    .expect("a device thread starts")
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(RunError {
                        instruction: None,
                        instr: None,
                        message: "a device thread panicked".into(),
                    })
                })
            })
            .collect()
    });
    let mut evaluations = Vec::with_capacity(outcomes.len());
    let mut first_error: Option<RunError> = None;
    for (index, outcome) in outcomes.into_iter().enumerate() {
        match outcome {
            Ok(evaluation) => evaluations.push(evaluation),
            Err(mut error) => {
                let consequence = error.message.contains("stopped because");
                error.message = format!("device {index}: {}", error.message);
                if first_error
                    .as_ref()
                    .is_none_or(|e| e.message.contains("stopped because") && !consequence)
                {
                    first_error = Some(error);
                }
            }
        }
    }
    match first_error {
        Some(error) => Err(error),
        None => Ok(evaluations),
    }
}

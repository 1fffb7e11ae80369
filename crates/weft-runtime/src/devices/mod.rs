//! Running a program on a grid of devices: each device is a thread running
//! the same module (SPMD) with its own replica and partition id, and
//! collectives meet on a shared [`Fabric`](fabric::Fabric).
//!
//! - [`groups`]: which devices a collective talks to;
//! - [`fabric`]: the rendezvous of each collective instance;
//! - [`progress`]: what each device is doing, which decides when a wait is
//!   hopeless (every device blocked, nothing moving for the timeout) and
//!   feeds a progress display ([`progress::Watch`]);
//! - [`collectives`]: what each collective computes from its group's data;
//! - [`channels`]: the mailbox pairing each `send` with a `recv`;
//! - [`feeds`]: the values `infeed` takes;
//! - [`transport`], [`remote`], [`wire`]: one grid across several processes
//!   ("ranks"), each running a contiguous block of the devices
//!   ([`run_grid_on_ranks`]); results are bit-identical to one process.
//!
//! Usually every device runs the module's entry ([`run_grid`]); a grid may
//! also run a computation of its own on each device
//! ([`run_grid_programs`], as `interpreter.run_parallel` does).
//!
//! A device that fails stops the others: its error aborts the fabric, and
//! the run reports the first failure (the root cause, not the devices that
//! merely stopped waiting for it). A panic — a bug in weft — is such a
//! failure too: it is caught on the device's compute thread and on its
//! async stream and becomes an error at the instruction being evaluated
//! (`evaluate::panics`). A thread the machine refuses to start
//! ends the run before it begins (`start_line`).

pub mod channels;
pub mod clock;
mod collective_reduce;
pub mod collectives;
pub mod fabric;
pub mod feeds;
pub mod groups;
mod priority;
pub mod progress;
mod ragged;
pub mod remote;
pub mod sharding;
pub mod shared_fold;
mod start_line;
pub(crate) mod stream;
pub mod timeline;
pub mod trace;
pub mod transport;
pub mod wire;

use std::sync::Arc;
use std::time::Duration;

use weft_ir::{Comp, Module};

pub use groups::{DeviceId, Grid};

use crate::evaluate::{Evaluation, Limits, RunError};
use crate::tensor::Value;

/// Where a fabric timeout's report of every device's state begins.
pub(crate) const EVERY_DEVICE: &str = " Every device:";

/// How the error of a recv-done that waited out the timeout begins; the run's
/// report then lists what every device waits at, whichever gave up first.
pub(crate) const NO_MESSAGE: &str = "no message arrived";

/// How the error of a run whose collectives stalled begins.
const STALLED: &str = "the run stalled";

/// What a device knows about its place in the run.
#[derive(Clone)]
pub struct DeviceContext {
    /// This device.
    pub id: DeviceId,
    /// The whole grid.
    pub grid: Grid,
    /// Where collectives meet.
    pub fabric: Arc<fabric::Fabric>,
    /// Where sends leave data for recvs.
    pub channels: Arc<channels::Mailbox>,
    /// What infeeds take.
    pub(crate) infeed: Arc<feeds::Infeed>,
    /// This device's async stream, on its compute thread (the stream itself
    /// has none: what it starts, it runs).
    pub(crate) stream: Option<std::sync::mpsc::Sender<stream::AsyncJob>>,
    /// The start of the run, the zero of every device's timeline.
    pub origin: std::time::Instant,
    /// How transfers are paced.
    pub link: Link,
    /// How collectives are priced beyond the flat link, if at all.
    pub interconnect: Option<Arc<Interconnect>>,
    /// How the device's clock keeps time.
    pub timing: clock::Timing,
    /// How much its timeline keeps.
    pub detail: timeline::Detail,
}

/// The interconnect model ([`weft_cost::link`]): a transfer of `n` bytes
/// takes `latency + n / bandwidth`, each device charged the bytes it
/// receives under the collective's ring algorithm. The transfer runs from
/// the moment the whole group has arrived (a permute's or a send's from the
/// send); the collective's host work (reducing, concatenating, placing)
/// starts when it is over, as a receiver can only combine data it has
/// received. Under wall-clock timing the thread that runs the collective
/// sleeps through the transfer (the CPU is free for the compute stream, so
/// an async collective overlaps compute on a 2-core machine just as it
/// would on a real fabric); under virtual timing its clock jumps.
pub use weft_cost::Link;

/// A topology and collective algorithm ([`weft_cost::Interconnect`]).
pub use weft_cost::Interconnect;

impl DeviceContext {
    /// How long this device waits for the data of `collective` when each
    /// member of `group` (flattened device ids) contributes `bytes`: the
    /// one place the runtime asks the cost model about transfers. Without
    /// an interconnect, the flat link's time for the bytes a member
    /// receives under the ring algorithm.
    pub(crate) fn transfer_time(
        &self,
        collective: weft_cost::Collective<'_>,
        bytes: f64,
        group: &[usize],
    ) -> Duration {
        transfer_time(
            self.link,
            self.interconnect.as_deref(),
            collective,
            bytes,
            group,
        )
    }
}

/// How long a member of `group` (flattened device ids) waits for the data
/// of `collective` when each member contributes `bytes`: the interconnect's
/// time when there is one, else the flat link's time for the bytes a member
/// receives under the ring algorithm. The one place the runtime and the
/// simulator ask the cost model about transfers.
pub(crate) fn transfer_time(
    link: Link,
    interconnect: Option<&Interconnect>,
    collective: weft_cost::Collective<'_>,
    bytes: f64,
    group: &[usize],
) -> Duration {
    match interconnect {
        Some(interconnect) => interconnect.collective_time(collective, bytes, group),
        None => link.transfer_time(collective.kind().received_bytes(bytes, group.len())),
    }
}

/// How a multi-device run behaves.
#[derive(Clone, Debug)]
pub struct GridOptions {
    /// How long every unfinished device may wait, with nothing moving,
    /// before the run stops as a deadlock ([`progress`]). A device that
    /// computes keeps the others waiting as long as it computes.
    pub timeout: Duration,
    /// Resource limits of each device.
    pub limits: Limits,
    /// The interconnect model.
    pub link: Link,
    /// The topology and algorithm collectives are priced by
    /// ([`weft_cost::collective`]); `None` charges every transfer the flat
    /// `link` (which the flat topology under the ring algorithm equals).
    pub interconnect: Option<Arc<Interconnect>>,
    /// How devices keep time.
    pub timing: clock::Timing,
    /// How much of the run each device's timeline keeps beyond its sums.
    pub detail: timeline::Detail,
}

impl Default for GridOptions {
    /// A 5 s collective timeout, default limits and link, wall-clock time.
    fn default() -> GridOptions {
        GridOptions {
            timeout: Duration::from_secs(5),
            limits: Limits::default(),
            link: Link::default(),
            interconnect: None,
            timing: clock::Timing::Wall,
            detail: timeline::Detail::default(),
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
    run_grid_watched(module, grid, arguments, options, &progress::Watch::new())
}

/// [`run_grid`], with `watch` following the run's progress while it runs
/// (for a progress display on another thread).
pub fn run_grid_watched(
    module: &Module,
    grid: Grid,
    arguments: Vec<Vec<Value>>,
    options: GridOptions,
    watch: &progress::Watch,
) -> Result<Vec<Evaluation>, RunError> {
    let entry = entry_of(module)?;
    run_programs_here(
        module,
        grid,
        vec![entry; grid.len()],
        arguments,
        feeds::InfeedQueues::default(),
        options,
        watch,
    )
}

/// The module's entry computation, which every device of a plain grid run
/// runs.
fn entry_of(module: &Module) -> Result<Comp, RunError> {
    module.entry.ok_or_else(|| RunError {
        instruction: None,
        instr: None,
        message: "the module has no entry computation".into(),
    })
}

/// Runs computation `entries[d]` of `module` on the device with flattened
/// id `d` of `grid`, on `arguments[d]`, with `infeed` queued for the
/// devices' infeeds. Returns each device's evaluation, in device order.
pub fn run_grid_programs(
    module: &Module,
    grid: Grid,
    entries: Vec<Comp>,
    arguments: Vec<Vec<Value>>,
    infeed: feeds::InfeedQueues,
    options: GridOptions,
) -> Result<Vec<Evaluation>, RunError> {
    run_programs_here(
        module,
        grid,
        entries,
        arguments,
        infeed,
        options,
        &progress::Watch::new(),
    )
}

/// [`run_grid_programs`], followed by `watch`.
fn run_programs_here(
    module: &Module,
    grid: Grid,
    entries: Vec<Comp>,
    arguments: Vec<Vec<Value>>,
    infeed: feeds::InfeedQueues,
    options: GridOptions,
    watch: &progress::Watch,
) -> Result<Vec<Evaluation>, RunError> {
    check_counts(grid, &entries, &arguments)?;
    let fabric = Arc::new(fabric::Fabric::new(options.timeout, grid));
    let mailbox = Arc::new(channels::Mailbox::new(fabric.progress().clone()));
    watch.follow(fabric.progress().clone());
    let devices = RankDevices {
        local: 0..grid.len(),
        remote: None,
    };
    run_devices(
        module, grid, entries, arguments, infeed, options, &fabric, &mailbox, devices,
    )
}

/// [`run_grid`] as one rank of `cluster`: this process runs its block of
/// the devices ([`transport::Placement`]), the others theirs. `arguments`
/// holds every device's arguments (each rank reads only its own). Rank 0
/// gets every device's evaluation, in device order; the other ranks get
/// `None`. A failure on any rank fails the run on every rank, with the
/// root cause.
pub fn run_grid_on_ranks(
    module: &Module,
    grid: Grid,
    arguments: Vec<Vec<Value>>,
    options: GridOptions,
    cluster: &Arc<remote::Cluster>,
) -> Result<Option<Vec<Evaluation>>, RunError> {
    run_grid_on_ranks_watched(
        module,
        grid,
        arguments,
        options,
        cluster,
        &progress::Watch::new(),
    )
}

/// [`run_grid_on_ranks`], with `watch` following the progress of this
/// rank's devices while they run.
pub fn run_grid_on_ranks_watched(
    module: &Module,
    grid: Grid,
    arguments: Vec<Vec<Value>>,
    options: GridOptions,
    cluster: &Arc<remote::Cluster>,
    watch: &progress::Watch,
) -> Result<Option<Vec<Evaluation>>, RunError> {
    let entry = entry_of(module)?;
    run_programs_on_ranks(
        module,
        grid,
        vec![entry; grid.len()],
        arguments,
        feeds::InfeedQueues::default(),
        options,
        cluster,
        watch,
    )
}

/// [`run_grid_programs`] as one rank of `cluster` (see
/// [`run_grid_on_ranks`]). A shared infeed queue cannot be split among
/// ranks and is an error when there are several.
pub fn run_grid_programs_on_ranks(
    module: &Module,
    grid: Grid,
    entries: Vec<Comp>,
    arguments: Vec<Vec<Value>>,
    infeed: feeds::InfeedQueues,
    options: GridOptions,
    cluster: &Arc<remote::Cluster>,
) -> Result<Option<Vec<Evaluation>>, RunError> {
    run_programs_on_ranks(
        module,
        grid,
        entries,
        arguments,
        infeed,
        options,
        cluster,
        &progress::Watch::new(),
    )
}

/// [`run_grid_programs_on_ranks`], followed by `watch`.
#[allow(clippy::too_many_arguments)]
fn run_programs_on_ranks(
    module: &Module,
    grid: Grid,
    entries: Vec<Comp>,
    arguments: Vec<Vec<Value>>,
    infeed: feeds::InfeedQueues,
    options: GridOptions,
    cluster: &Arc<remote::Cluster>,
    watch: &progress::Watch,
) -> Result<Option<Vec<Evaluation>>, RunError> {
    let failure = |message: String| RunError {
        instruction: None,
        instr: None,
        message,
    };
    check_counts(grid, &entries, &arguments)?;
    let placement = transport::Placement::new(grid.len(), cluster.ranks()).map_err(failure)?;
    if cluster.ranks() == 1 {
        return run_programs_here(module, grid, entries, arguments, infeed, options, watch)
            .map(Some);
    }
    if infeed.has_shared() {
        return Err(failure(
            "a shared infeed queue cannot be split among ranks (each would feed every value); queue values per device".into(),
        ));
    }
    let remote = cluster.begin_run(placement);
    let run = remote.run;
    let timeout = options.timeout;
    let fabric = Arc::new(fabric::Fabric::spanning_ranks(
        options.timeout,
        grid,
        remote.clone(),
    ));
    let mailbox = Arc::new(channels::Mailbox::spanning_ranks(
        fabric.progress().clone(),
        remote.clone(),
    ));
    watch.follow(fabric.progress().clone());
    cluster.attach(run, fabric.clone(), mailbox.clone());
    // Generous: another rank may still be reading its inputs; a rank that
    // failed says so at once (it leaves), so this bounds only a hung one.
    let patience = options.timeout.max(Duration::from_secs(60));
    let local = match cluster.start_line(run, patience, options.timeout) {
        Ok(()) => run_devices(
            module,
            grid,
            entries,
            arguments,
            infeed,
            options,
            &fabric,
            &mailbox,
            RankDevices {
                local: placement.devices_of(cluster.rank()),
                remote: Some(remote),
            },
        ),
        Err(message) => Err(failure(message)),
    };
    cluster.detach(run);
    cluster.gather(run, placement, local, timeout)
}

/// When a device stopped at the run's deadline, one error saying where
/// every device was: computing (at which instruction, in which loop
/// iterations), waiting at a collective for its group, finished, or failed.
/// A device whose wait the deadline ended reads `stopped because the run
/// passed its deadline …` ([`progress::deadline_stop`]): it was waiting.
fn deadline_report(outcomes: &[(usize, Result<Evaluation, RunError>)]) -> Option<RunError> {
    let computing = |e: &RunError| e.message.starts_with(crate::evaluate::DEADLINE_PASSED);
    let stop = format!("stopped because {}", crate::evaluate::DEADLINE_PASSED);
    let errors = || outcomes.iter().filter_map(|(_, o)| o.as_ref().err());
    let headline = match errors().find(|e| computing(e)) {
        Some(first) => first
            .message
            .split(" here")
            .next()
            .unwrap_or(&first.message),
        None => {
            let waiting = errors().find(|e| e.message.contains(&stop))?;
            let at = waiting.message.find(&stop)? + "stopped because ".len();
            &waiting.message[at..]
        }
    };
    let mut message = format!("{headline}; where each device was:");
    for (index, outcome) in outcomes {
        let line = match outcome {
            Ok(_) => "finished".to_string(),
            Err(e) => {
                let at = e.instruction.as_deref().unwrap_or("its entry computation");
                if computing(e) {
                    let within = e.message.split_once(" here").map_or("", |(_, rest)| rest);
                    let transfer = crate::evaluate::IN_TRANSFER.trim_start_matches(" here");
                    let done = crate::evaluate::AT_DONE.trim_start_matches(" here");
                    if within.starts_with(transfer) {
                        format!("in the link model's transfer at {at}")
                    } else if within.starts_with(done) {
                        format!("waiting at {at} for its async operation")
                    } else {
                        format!("computing at {at}{within}")
                    }
                } else if e.message.contains("stopped because") {
                    format!("waiting at {at}")
                } else {
                    format!("failed at {at}: {}", e.message)
                }
            }
        };
        message.push_str(&format!("\n  device {index}: {line}"));
    }
    Some(RunError {
        instruction: None,
        instr: None,
        message,
    })
}

/// The error of a run whose thread for device `index` of `grid` the
/// machine would not start.
fn cannot_start(index: usize, grid: Grid, error: &std::io::Error) -> RunError {
    RunError {
        instruction: None,
        instr: None,
        message: format!(
            "cannot start the threads of device {index} of {} ({error}): this machine cannot run that many devices at once (each is two threads); run fewer, or spread them over several processes",
            grid.len()
        ),
    }
}

/// Fails unless there are arguments and a program for every device.
fn check_counts(grid: Grid, entries: &[Comp], arguments: &[Vec<Value>]) -> Result<(), RunError> {
    for (what, count) in [("arguments", arguments.len()), ("programs", entries.len())] {
        if count != grid.len() {
            return Err(RunError {
                instruction: None,
                instr: None,
                message: format!("{} devices but {what} for {count}", grid.len()),
            });
        }
    }
    Ok(())
}

/// The devices this process runs, and how it reaches the others.
struct RankDevices {
    /// Flattened ids of the devices that run here.
    local: std::ops::Range<usize>,
    /// The other ranks, when there are any.
    remote: Option<Arc<remote::RunRemote>>,
}

/// Runs the local devices of `devices` on `fabric` and `mailbox`; returns
/// their evaluations in device order, or the run's root-cause error.
#[allow(clippy::too_many_arguments)]
fn run_devices(
    module: &Module,
    grid: Grid,
    entries: Vec<Comp>,
    arguments: Vec<Vec<Value>>,
    infeed: feeds::InfeedQueues,
    options: GridOptions,
    fabric: &Arc<fabric::Fabric>,
    mailbox: &Arc<channels::Mailbox>,
    devices: RankDevices,
) -> Result<Vec<Evaluation>, RunError> {
    let RankDevices { local, remote } = devices;
    let tracker = fabric.progress().clone();
    let infeed = Arc::new(feeds::Infeed::new(infeed));
    // Every thread (compute and stream) waits at the start line until all
    // exist ([`start_line`]).
    let start_line = Arc::new(start_line::StartLine::new(2 * local.len()));
    let placeholder_origin = std::time::Instant::now();
    let cores = std::thread::available_parallelism().map_or(1, |p| p.get());
    // A measured clock reads its own thread's CPU time: a GEMM spread over
    // helper threads would hide their share, so each device keeps to one.
    let cores_per_device = match options.timing {
        clock::Timing::Measured => 1,
        _ => (cores / local.len().max(1)).max(1),
    };
    crate::evaluate::set_cores_per_device(cores_per_device);
    let mut spawn_failure = None;
    let outcomes: Vec<(usize, Result<Evaluation, RunError>)> = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(local.len());
        let devices = arguments
            .into_iter()
            .zip(entries)
            .enumerate()
            .filter(|(index, _)| local.contains(index));
        for (index, (device_arguments, entry)) in devices {
            let (jobs, stream_jobs) = std::sync::mpsc::channel();
            let context_with = |stream| DeviceContext {
                id: grid.device(index),
                grid,
                fabric: fabric.clone(),
                channels: mailbox.clone(),
                infeed: infeed.clone(),
                stream,
                origin: placeholder_origin,
                link: options.link,
                interconnect: options.interconnect.clone(),
                timing: options.timing.clone(),
                detail: options.detail,
            };
            let mut stream_context = context_with(None);
            let mut context = context_with(Some(jobs));
            let stream_start = start_line.clone();
            let stream_handle = std::thread::Builder::new()
                .name(format!("device {index} async stream"))
                .spawn_scoped(scope, move || {
                    progress::enter_lane(index, progress::Lane::Stream);
                    stream_context.origin = stream_start.wait()?;
                    Some(stream::run_stream(
                        module,
                        options.limits,
                        stream_context,
                        stream_jobs,
                    ))
                });
            let stream_handle = match stream_handle {
                Ok(handle) => handle,
                Err(error) => {
                    spawn_failure = Some(cannot_start(index, grid, &error));
                    break;
                }
            };
            let fabric = fabric.clone();
            let mailbox = mailbox.clone();
            let remote = remote.clone();
            let tracker = tracker.clone();
            let device_start = start_line.clone();
            let thread = std::thread::Builder::new()
                .name(format!("device {index}"))
                .spawn_scoped(scope, move || {
                    priority::lower_for_compute();
                    progress::enter_lane(index, progress::Lane::Compute);
                    let Some(origin) = device_start.wait() else {
                        return Err(RunError {
                            instruction: None,
                            instr: None,
                            message: "stopped because the run could not start".into(),
                        });
                    };
                    tracker.start(origin, options.limits.deadline);
                    context.origin = origin;
                    // A panic (a bug) is this device's failure like any
                    // other: the run stops at once and names where.
                    let outcome = crate::evaluate::panics::catch(module, || {
                        crate::evaluate::run_on_device(
                            module,
                            entry,
                            device_arguments,
                            options.limits,
                            context,
                        )
                    });
                    if let Err(error) = &outcome {
                        let reason = format!("device {index} failed: {error}");
                        // The other ranks hear of a root cause, not of
                        // the devices it stopped (they stop anyway).
                        if let Some(remote) = &remote
                            && !error.message.contains("stopped because")
                        {
                            remote::Remote::abort(remote.as_ref(), &reason);
                        }
                        mailbox.abort(reason.clone());
                        fabric.abort(reason);
                    }
                    // The compute thread's end closes the stream's queue;
                    // the stream's timeline joins the device's.
                    let stream = stream_handle.join().ok().flatten();
                    fabric.finish(index, outcome.is_err());
                    outcome.map(|mut evaluation| {
                        let compute_end = evaluation.timeline.finished;
                        if let Some(stream) = stream {
                            evaluation.timeline.join_stream(
                                stream.timeline,
                                compute_end,
                                stream.clock,
                            );
                        }
                        evaluation
                    })
                });
            match thread {
                Ok(thread) => handles.push((index, thread)),
                Err(error) => {
                    spawn_failure = Some(cannot_start(index, grid, &error));
                    break;
                }
            }
        }
        if let Some(failure) = &spawn_failure {
            // Nothing runs: the threads already started leave the start
            // line at once, and nothing waits for the missing ones.
            start_line.cancel();
            let reason = failure.message.clone();
            if let Some(remote) = &remote {
                remote::Remote::abort(remote.as_ref(), &reason);
            }
            mailbox.abort(reason.clone());
            fabric.abort(reason);
        }
        handles
            .into_iter()
            .map(|(index, h)| {
                let outcome = h.join().unwrap_or_else(|_| {
                    Err(RunError {
                        instruction: None,
                        instr: None,
                        message: "a device thread panicked".into(),
                    })
                });
                (index, outcome)
            })
            .collect()
    });
    crate::evaluate::set_cores_per_device(0);
    if let Some(failure) = spawn_failure {
        return Err(failure);
    }
    if let Some(report) = deadline_report(&outcomes) {
        return Err(report);
    }
    let mut evaluations = Vec::with_capacity(outcomes.len());
    let mut first_error: Option<RunError> = None;
    for (index, outcome) in outcomes {
        match outcome {
            Ok(evaluation) => evaluations.push(evaluation),
            Err(mut error) => {
                let consequence = error.message.contains("stopped because");
                error.instruction = Some(match error.instruction.take() {
                    Some(at) => format!("device {index}: {at}"),
                    None => format!("device {index}"),
                });
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
        // A collective that never completed concerns every device: the
        // report lists them all, not the one that happened to give up first.
        Some(error) if error.message.contains(EVERY_DEVICE) => {
            let reported = error.message.split(EVERY_DEVICE).nth(1).unwrap_or_default();
            // Across ranks, the report in the message may be another rank's
            // (this rank only stopped because of it): this rank's own
            // devices' states are in its fabric, and rank 0 merges every
            // rank's.
            let states = match &remote {
                Some(_) => format!("\n{}", fabric.device_states()),
                None => reported.to_string(),
            };
            Err(RunError {
                instruction: None,
                instr: None,
                message: if error.message.starts_with(NO_MESSAGE) {
                    format!(
                        "{NO_MESSAGE}: {}; a deadlock, or a recv whose send never happens (missing, or on another channel or pair).{EVERY_DEVICE}{states}",
                        tracker.stall_words()
                    )
                } else {
                    format!(
                        "{STALLED}: {}; a deadlock, or collectives the devices do not agree on (kind, shape, group or order).{EVERY_DEVICE}{states}",
                        tracker.stall_words()
                    )
                },
            })
        }
        Some(error) => Err(error),
        None => Ok(evaluations),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::panics::PANICKED;

    /// Partition 1 panics (in `%boom`, on its compute thread or, with
    /// `asynchronously`, on its async stream) while partition 0 waits for it
    /// at an all-reduce.
    fn panicking(asynchronously: bool) -> Module {
        let boom = if asynchronously {
            "%start = ((f32[4]), f32[4], s32[]) async-start(%y), calls=%boom\n  ROOT %done = f32[4] async-done(%start), calls=%boom"
        } else {
            "ROOT %call = f32[4] call(%y), to_apply=%boom"
        };
        let text = format!(
            r#"HloModule panics, num_partitions=2

%sum (a: f32[], b: f32[]) -> f32[] {{
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(%a, %b)
}}

%boom (z: f32[4]) -> f32[4] {{
  %z = f32[4] parameter(0)
  ROOT %bug = f32[4] custom-call(%z), custom_call_target="weft.test.panic"
}}

%wait (x: f32[4]) -> f32[4] {{
  %x = f32[4] parameter(0)
  ROOT %total = f32[4] all-reduce(%x), channel_id=1, replica_groups={{{{0,1}}}}, use_global_device_ids=true, to_apply=%sum
}}

%fail (y: f32[4]) -> f32[4] {{
  %y = f32[4] parameter(0)
  {boom}
}}

ENTRY %main (p: f32[4]) -> f32[4] {{
  %p = f32[4] parameter(0)
  %partition = u32[] partition-id()
  %zero = u32[] constant(0)
  %first = pred[] compare(%partition, %zero), direction=EQ
  ROOT %result = f32[4] conditional(%first, %p, %p), true_computation=%wait, false_computation=%fail
}}
"#
        );
        weft_ir::text::parse(&text).unwrap_or_else(|d| panic!("{}", d.render("test", &text)))
    }

    fn run_two(module: &Module) -> (Result<Vec<Evaluation>, RunError>, Duration) {
        let grid = Grid {
            replicas: 1,
            partitions: 2,
        };
        let arguments = (0..2)
            .map(|_| {
                vec![Value::Tensor(crate::tensor::Tensor::zeros(
                    weft_ir::ElementType::F32,
                    &[4],
                ))]
            })
            .collect();
        let options = GridOptions {
            timeout: Duration::from_secs(60),
            link: Link::UNPACED,
            interconnect: None,
            ..GridOptions::default()
        };
        let started = std::time::Instant::now();
        let outcome = run_grid(module, grid, arguments, options);
        (outcome, started.elapsed())
    }

    #[test]
    fn a_panicking_device_stops_its_peers_at_once_and_says_where() {
        let (outcome, took) = run_two(&panicking(false));
        let error = outcome.expect_err("the run fails");
        assert!(took < Duration::from_secs(20), "took {took:?}");
        assert_eq!(error.instruction.as_deref(), Some("device 1: boom/%bug"));
        assert_eq!(
            error.message,
            format!("{PANICKED}: the test asked for a panic")
        );
    }

    #[test]
    fn a_panic_on_an_async_stream_stops_the_run_too() {
        let (outcome, took) = run_two(&panicking(true));
        let error = outcome.expect_err("the run fails");
        assert!(took < Duration::from_secs(20), "took {took:?}");
        assert!(
            error.to_string().contains("boom/%bug: weft panicked here"),
            "{error}"
        );
        assert!(error.to_string().contains("device 1"), "{error}");
    }
}

//! Whether a run is still moving, for the one rule that decides a wait is
//! hopeless: a device gives up waiting only when *every* unfinished device
//! is blocked, so that none can move until another does. On one process
//! that is certain at once and the run stops at once; across processes
//! ("ranks") it must also have lasted the run's timeout with no rank
//! reporting a move. A device that computes keeps every waiter patient,
//! however long it computes, so a correct but unbalanced program is never
//! called a deadlock.
//!
//! A device is two threads, its compute thread and its async stream, and
//! each is in one activity:
//! - busy: running instructions, sleeping out a transfer, starting up, or
//!   (a stream) idle between jobs;
//! - waiting at a collective's rendezvous, for a permute's data or for a
//!   recv's message, and what it waits for has not come;
//! - at a done, waiting for its async stream's result (compute thread
//!   only);
//! - finished: the device's run is over (compute thread only).
//!
//! The tracker also counts the jobs a device has handed to its stream and
//! the stream has not finished. A device is *blocked* when it cannot move
//! until another device does: its compute thread waits while its stream
//! waits too or has no job, or its compute thread sits at a done while
//! its stream waits. A *move* is any change of activity, a message or
//! contribution delivered, a job handed over or finished, or a device
//! finishing. Waiters ask `Progress::patience` each time they wake; its
//! answer is to wait on, that the run stalled, or that the run's deadline
//! (`--deadline`) passed, which ends every wait too.
//!
//! Blocked is exact, not a guess, because of two rules its callers keep:
//! a thread is marked waiting only under the lock that guards what it
//! waits for, after seeing that it has not come; and whoever delivers it
//! marks the waiter busy again under that same lock (`Progress::woken`),
//! before the waiter has even woken up. So a waiting thread's wait is
//! never already satisfied, and "every device blocked" on one process is a
//! certain deadlock — a cycle through recvs and collectives alike.
//!
//! Which thread waits is known without asking the caller: the grid's
//! runner tells each thread its device and lane once, when it starts it
//! (`enter_lane`). A thread it did not start (a unit test's) counts as
//! its device's compute thread.
//!
//! Invariants:
//! - lock order: the fabric's or the mailbox's lock, then the tracker's;
//!   the tracker never calls out while it holds its own;
//! - every change of a device's activity is a move;
//! - the counters only grow during a run (but the stream's job count);
//! - the devices' activities freeze when the run stalls, passes its
//!   deadline or is aborted (`Progress::freeze`): every report made after
//!   that, on any thread or rank, shows the devices where the run stopped,
//!   not the errors they stopped with.
//!
//! Across ranks ([`super::remote`]) a rank sees only its own devices, and a
//! message from another rank may be on its way, so "every device here
//! blocked" is not yet a deadlock. Every heartbeat period each rank tells
//! the others how many moves it has seen and whether one of its devices is
//! busy (`PeerReport`); a report that shows a new move, or a busy device,
//! counts as a move here. So a device computing on another rank keeps this
//! rank's waiters patient, and a deadlock spanning ranks is found once
//! every rank's devices are blocked and no report has shown a move for the
//! timeout. Reports only say what the rank saw itself (a report never
//! counts as a move of the rank that receives it), so two ranks cannot keep
//! each other patient by echoing. Reports arrive once per heartbeat period,
//! so across ranks the timeout is at least
//! [`SHORTEST_TIMEOUT_ACROSS_RANKS`]. A rank that died sends no reports:
//! its silence counts as no move.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::evaluate::DEADLINE_PASSED;

/// The shortest timeout of a run spanning ranks: three heartbeat periods,
/// so a busy rank's reports reach the others at least twice per timeout
/// even when one is late.
pub const SHORTEST_TIMEOUT_ACROSS_RANKS: Duration =
    Duration::from_millis(3 * super::remote::HEARTBEAT_PERIOD.as_millis() as u64);

/// Which of a device's threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lane {
    /// The thread that runs the device's program.
    Compute,
    /// The thread that runs the device's asynchronous operations.
    Stream,
}

thread_local! {
    /// The device and lane this thread runs, once the grid's runner has
    /// said so.
    static LANE: Cell<Option<(usize, Lane)>> = const { Cell::new(None) };
}

/// Tells the tracker that the current thread is `lane` of `device` (a
/// flattened id). Called once by the thread itself when it starts.
pub(crate) fn enter_lane(device: usize, lane: Lane) {
    LANE.set(Some((device, lane)));
}

/// The lane of `device` the current thread is.
pub(crate) fn current_lane(device: usize) -> Lane {
    match LANE.get() {
        Some((known, lane)) if known == device => lane,
        _ => Lane::Compute,
    }
}

/// What one thread of a device is doing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Activity {
    /// Running (or starting, or idle between async jobs).
    #[default]
    Busy,
    /// Blocked at what the string names.
    Waiting(String),
    /// At the done the string names, for the async stream's result.
    AtDone(String),
    /// The device's run is over; `failed` when it ended in an error.
    Finished { failed: bool },
}

/// Both threads of one device.
#[derive(Clone, Debug, Default)]
struct Device {
    compute: Activity,
    stream: Activity,
    /// Jobs handed to the stream and not yet finished by it.
    queued: usize,
}

impl Device {
    fn finished(&self) -> bool {
        matches!(self.compute, Activity::Finished { .. })
    }

    /// Whether the device cannot move until another one does: its stream
    /// can wake its compute thread only by finishing a job, and can only
    /// finish one it has and is not waiting in.
    fn blocked(&self) -> bool {
        let stream_stuck = matches!(self.stream, Activity::Waiting(_));
        match self.compute {
            Activity::Waiting(_) => stream_stuck || self.queued == 0,
            Activity::AtDone(_) => stream_stuck,
            _ => false,
        }
    }

    /// The device's state in words, as a report lists it.
    fn describe(&self) -> String {
        match (&self.compute, &self.stream) {
            (Activity::Finished { failed: false }, _) => "finished".into(),
            (Activity::Finished { failed: true }, _) => "stopped with an error".into(),
            (Activity::Waiting(at), _) if self.stream_busy() => {
                format!("waits at {at} (its async stream computes)")
            }
            (Activity::Waiting(at), _) => format!("waits at {at}"),
            (Activity::AtDone(done), Activity::Waiting(at)) => {
                format!("waits at {done} for its async stream, which waits at {at}")
            }
            (Activity::AtDone(done), _) => {
                format!("waits at {done} for its async stream, which computes")
            }
            (Activity::Busy, Activity::Waiting(at)) => {
                format!("computes (its async stream waits at {at})")
            }
            (Activity::Busy, _) => "computes".into(),
        }
    }

    /// What the stream does, when it keeps a waiting device from being
    /// blocked.
    fn stream_busy(&self) -> bool {
        !matches!(self.stream, Activity::Waiting(_)) && self.queued > 0
    }
}

/// What ended a wait, for the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waited {
    /// A collective's rendezvous completed, or a permute's data came.
    Collective,
    /// A recv's message came.
    Message,
}

/// What a waiter should do, by `Progress::patience`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Patience {
    /// Wait at most this long (or until woken), then ask again.
    Wait(Duration),
    /// Every unfinished device is blocked (and, across ranks, nothing
    /// moved for the timeout): give up, reporting a deadlock.
    Stalled,
    /// The run's deadline (this long after the start) passed: give up.
    DeadlinePassed(Duration),
}

/// What a rank tells the others about its devices, every heartbeat period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PeerReport {
    /// How many moves the rank has seen in this run.
    pub(crate) moves: u64,
    /// Whether one of its unfinished devices is not blocked.
    pub(crate) busy: bool,
}

/// A run's progress at one moment, for a progress display.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Time since the devices started (zero before they have).
    pub elapsed: Duration,
    /// This process's devices.
    pub devices: usize,
    /// Those whose run is over.
    pub finished: usize,
    /// Those blocked, waiting for another device.
    pub blocked: usize,
    /// Collective rendezvous (and permute receipts) completed, summed over
    /// devices.
    pub collectives: u64,
    /// Recv messages received, summed over devices.
    pub messages: u64,
}

struct State {
    /// Each device of the grid by flattened id; `None` for a device on
    /// another rank.
    devices: Vec<Option<Device>>,
    /// When anything last moved (here, or in a peer's report).
    last_move: Instant,
    /// Moves seen on this rank.
    moves: u64,
    collectives: u64,
    messages: u64,
    /// Each other rank's move count in its last report.
    peers: BTreeMap<usize, u64>,
    /// When the devices started.
    started: Option<Instant>,
    /// When the run's deadline passes, and the deadline itself.
    deadline: Option<(Instant, Duration)>,
    /// The run stopped: activities no longer change.
    frozen: bool,
    /// Every device of the grid runs here: no message can come from
    /// elsewhere, so every device blocked is a deadlock at once.
    alone: bool,
}

impl State {
    fn local(&self) -> impl Iterator<Item = &Device> {
        self.devices.iter().flatten()
    }

    fn all_blocked(&self) -> bool {
        self.local().all(|d| d.finished() || d.blocked())
    }

    fn moved(&mut self) {
        self.moves += 1;
        self.last_move = Instant::now();
    }

    /// Sets `lane` of `device` to `activity`: a move.
    fn set(&mut self, device: usize, lane: Lane, activity: Activity) {
        if self.frozen {
            return;
        }
        if let Some(Some(state)) = self.devices.get_mut(device) {
            match lane {
                Lane::Compute => state.compute = activity,
                Lane::Stream => state.stream = activity,
            }
            self.moved();
        }
    }
}

/// The progress of one run's devices on this process, shared by its
/// fabric, its mailbox and its device threads.
pub struct Progress {
    state: Mutex<State>,
    timeout: Duration,
}

impl Progress {
    /// A tracker for a grid of `devices` devices, of which `is_local` run
    /// here; a wait gives up once every local device is blocked and nothing
    /// moved for `timeout`.
    pub fn new(devices: usize, is_local: impl Fn(usize) -> bool, timeout: Duration) -> Progress {
        let devices: Vec<Option<Device>> = (0..devices)
            .map(|id| is_local(id).then(Device::default))
            .collect();
        Progress {
            state: Mutex::new(State {
                alone: devices.iter().all(Option::is_some),
                devices,
                last_move: Instant::now(),
                moves: 0,
                collectives: 0,
                messages: 0,
                peers: BTreeMap::new(),
                started: None,
                deadline: None,
                frozen: false,
            }),
            timeout,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock means a device thread panicked mid-update; the
        // state is still the best there is, and the run reports the panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How long nothing may move, with every device blocked, before a wait
    /// gives up.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The devices started at `origin`; the run stops `deadline` after it.
    /// The first call counts (every device calls it as it starts).
    pub(crate) fn start(&self, origin: Instant, deadline: Option<Duration>) {
        let mut state = self.lock();
        if state.started.is_none() {
            state.started = Some(origin);
            state.deadline = deadline.and_then(|d| Some((origin.checked_add(d)?, d)));
            state.last_move = Instant::now();
        }
    }

    /// The current thread of `device` begins to wait at `what`.
    pub(crate) fn wait_begins(&self, device: usize, what: String) {
        self.lock()
            .set(device, current_lane(device), Activity::Waiting(what));
    }

    /// The current thread of `device` stops waiting: `waited` came.
    pub(crate) fn wait_ends(&self, device: usize, waited: Waited) {
        let mut state = self.lock();
        match waited {
            Waited::Collective => state.collectives += 1,
            Waited::Message => state.messages += 1,
        }
        state.set(device, current_lane(device), Activity::Busy);
    }

    /// Something arrived for a device here (a message, a contribution, a
    /// permute's data) without ending a wait yet.
    pub(crate) fn delivered(&self) {
        self.lock().moved();
    }

    /// What the thread `lane` of `device` waits for has come: it is busy
    /// from now on, though it has not woken up yet. Called by whoever
    /// delivered it, under the lock that guards what was delivered (see
    /// the module docs); does nothing to a thread that does not wait.
    pub(crate) fn woken(&self, device: usize, lane: Lane) {
        let mut state = self.lock();
        let waits = state
            .devices
            .get(device)
            .and_then(Option::as_ref)
            .is_some_and(|d| {
                matches!(
                    match lane {
                        Lane::Compute => &d.compute,
                        Lane::Stream => &d.stream,
                    },
                    Activity::Waiting(_)
                )
            });
        if waits {
            state.set(device, lane, Activity::Busy);
        }
    }

    /// `device`'s compute thread is about to hand its stream a job.
    pub(crate) fn job_queued(&self, device: usize) {
        let mut state = self.lock();
        if let Some(Some(d)) = state.devices.get_mut(device) {
            d.queued += 1;
            state.moved();
        }
    }

    /// `device`'s stream finished a job (its result is in).
    pub(crate) fn job_finished(&self, device: usize) {
        let mut state = self.lock();
        if let Some(Some(d)) = state.devices.get_mut(device) {
            d.queued = d.queued.saturating_sub(1);
            state.moved();
        }
    }

    /// Why a stalled run stopped, in words: every device blocked, and
    /// across ranks for how long.
    pub(crate) fn stall_words(&self) -> String {
        if self.lock().alone {
            "every unfinished device waits for another, so none can move".into()
        } else {
            format!(
                "every unfinished device waits and none has moved for {:.1} s",
                self.timeout.as_secs_f64()
            )
        }
    }

    /// `device`'s run is over (`failed`: with an error).
    pub(crate) fn finish(&self, device: usize, failed: bool) {
        self.lock()
            .set(device, Lane::Compute, Activity::Finished { failed });
    }

    /// Whether `device` finished its program without an error (a device
    /// on another rank never has, as far as this rank knows).
    pub(crate) fn finished_cleanly(&self, device: usize) -> bool {
        matches!(
            self.lock().devices.get(device),
            Some(Some(Device {
                compute: Activity::Finished { failed: false },
                ..
            }))
        )
    }

    /// The run stopped (a device failed, or the run is aborted): the
    /// devices' activities stay as they are now, for every report to come.
    pub(crate) fn freeze(&self) {
        self.lock().frozen = true;
    }

    /// What a waiter should do now (see the module docs). An answer to give
    /// up freezes the devices' activities.
    pub(crate) fn patience(&self) -> Patience {
        let now = Instant::now();
        let mut state = self.lock();
        if let Some((at, deadline)) = state.deadline
            && now >= at
        {
            state.frozen = true;
            return Patience::DeadlinePassed(deadline);
        }
        // A timeout too long for the clock means waiting an hour at a time.
        let after_timeout = |from: Instant| {
            from.checked_add(self.timeout)
                .unwrap_or(from + Duration::from_secs(3600))
        };
        if state.alone && state.local().any(|d| !d.finished()) && state.all_blocked() {
            state.frozen = true;
            return Patience::Stalled;
        }
        let quiet = now.saturating_duration_since(state.last_move);
        let wake = if quiet < self.timeout {
            after_timeout(state.last_move)
        } else if state.all_blocked() {
            state.frozen = true;
            return Patience::Stalled;
        } else {
            // A device is busy: its next move restarts the quiet time, and
            // that move comes before this wake-up.
            after_timeout(now)
        };
        let wake = match state.deadline {
            Some((at, _)) => wake.min(at),
            None => wake,
        };
        Patience::Wait(
            wake.saturating_duration_since(now)
                .max(Duration::from_millis(1)),
        )
    }

    /// What `device` is doing, in words; `None` for a device on another
    /// rank.
    pub(crate) fn describe(&self, device: usize) -> Option<String> {
        self.lock()
            .devices
            .get(device)
            .and_then(Option::as_ref)
            .map(Device::describe)
    }

    /// This rank's report to the other ranks.
    pub(crate) fn peer_report(&self) -> PeerReport {
        let state = self.lock();
        PeerReport {
            moves: state.moves,
            busy: state.local().any(|d| !d.finished() && !d.blocked()),
        }
    }

    /// Rank `rank` reported `report`: a move if it shows one, or a busy
    /// device.
    pub(crate) fn peer_reported(&self, rank: usize, report: PeerReport) {
        let mut state = self.lock();
        let previous = state.peers.insert(rank, report.moves);
        if report.busy || previous != Some(report.moves) {
            // Not counted in `moves`: a report is another rank's move, and
            // counting it here would echo it back.
            state.last_move = Instant::now();
        }
    }

    /// The run's progress now.
    pub fn snapshot(&self) -> Snapshot {
        let state = self.lock();
        Snapshot {
            elapsed: state.started.map_or(Duration::ZERO, |s| s.elapsed()),
            devices: state.local().count(),
            finished: state.local().filter(|d| d.finished()).count(),
            blocked: state
                .local()
                .filter(|d| !d.finished() && d.blocked())
                .count(),
            collectives: state.collectives,
            messages: state.messages,
        }
    }
}

/// The error of a wait ended by the run's deadline. It reads as a stop
/// (`stopped because …`), so the deadline's report lists the device as
/// waiting, not computing.
pub(crate) fn deadline_stop(deadline: Duration) -> String {
    format!(
        "stopped because {DEADLINE_PASSED} of {} s (--deadline)",
        deadline.as_secs_f64()
    )
}

/// While it lives, the compute thread of a device sits at a done waiting
/// for its async stream; dropping it marks the thread busy again.
pub(crate) struct AtDone {
    progress: Arc<Progress>,
    device: usize,
}

impl AtDone {
    /// Marks the current thread, the compute thread of `device`'s device on
    /// a grid, as at the done `what` names. `None` off a grid, or on a
    /// stream (which runs its async work itself and never waits at a
    /// done).
    pub(crate) fn enter(
        device: Option<&super::DeviceContext>,
        what: impl FnOnce() -> String,
    ) -> Option<AtDone> {
        let device = device?;
        let id = device.grid.id(device.id);
        if current_lane(id) != Lane::Compute {
            return None;
        }
        let progress = device.fabric.progress().clone();
        progress
            .lock()
            .set(id, Lane::Compute, Activity::AtDone(what()));
        Some(AtDone {
            progress,
            device: id,
        })
    }
}

impl Drop for AtDone {
    fn drop(&mut self) {
        self.progress
            .lock()
            .set(self.device, Lane::Compute, Activity::Busy);
    }
}

/// A window on the progress of the runs a caller starts, for a display
/// while they run: the runner points it at each run's tracker as the run
/// begins.
#[derive(Clone, Default)]
pub struct Watch(Arc<Mutex<Option<Arc<Progress>>>>);

impl Watch {
    /// A watch that follows no run yet.
    pub fn new() -> Watch {
        Watch::default()
    }

    /// Follows `progress` from now on.
    pub(crate) fn follow(&self, progress: Arc<Progress>) {
        if let Ok(mut followed) = self.0.lock() {
            *followed = Some(progress);
        }
    }

    /// The progress of the run followed now, if one has begun.
    pub fn snapshot(&self) -> Option<Snapshot> {
        let progress = self.0.lock().ok()?.clone()?;
        Some(progress.snapshot())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_devices(timeout: Duration) -> Progress {
        Progress::new(2, |_| true, timeout)
    }

    #[test]
    fn a_computing_device_keeps_a_waiter_patient() {
        let progress = two_devices(Duration::from_millis(20));
        progress.wait_begins(0, "main/%total".into());
        std::thread::sleep(Duration::from_millis(40));
        assert!(matches!(progress.patience(), Patience::Wait(_)));
        assert_eq!(progress.describe(1).as_deref(), Some("computes"));
    }

    /// Devices 0 and 1 here, device 2 on another rank.
    fn spanning_ranks(timeout: Duration) -> Progress {
        Progress::new(3, |id| id < 2, timeout)
    }

    #[test]
    fn on_one_process_every_device_blocked_is_a_stall_at_once() {
        let progress = two_devices(Duration::from_secs(60));
        progress.wait_begins(0, "main/%a".into());
        assert!(matches!(progress.patience(), Patience::Wait(_)));
        progress.wait_begins(1, "main/%b".into());
        assert_eq!(progress.patience(), Patience::Stalled);
        assert!(progress.stall_words().contains("none can move"));
    }

    #[test]
    fn a_stream_with_a_job_keeps_its_waiting_device_unblocked() {
        let progress = two_devices(Duration::from_secs(60));
        progress.job_queued(0);
        progress.wait_begins(0, "main/%a".into());
        progress.wait_begins(1, "main/%b".into());
        assert!(matches!(progress.patience(), Patience::Wait(_)));
        assert_eq!(
            progress.describe(0).as_deref(),
            Some("waits at main/%a (its async stream computes)")
        );
        progress.job_finished(0);
        assert_eq!(progress.patience(), Patience::Stalled);
    }

    #[test]
    fn a_woken_waiter_is_busy_before_it_runs() {
        let progress = two_devices(Duration::from_secs(60));
        progress.wait_begins(0, "main/%a".into());
        progress.woken(0, Lane::Compute);
        progress.wait_begins(1, "main/%b".into());
        assert!(matches!(progress.patience(), Patience::Wait(_)));
        assert_eq!(progress.describe(0).as_deref(), Some("computes"));
    }

    #[test]
    fn across_ranks_every_device_blocked_and_quiet_is_a_stall() {
        let progress = spanning_ranks(Duration::from_millis(20));
        progress.wait_begins(0, "main/%a".into());
        progress.wait_begins(1, "main/%b".into());
        // Just after the last move: wait out the rest of the timeout.
        match progress.patience() {
            Patience::Wait(wait) => assert!(wait <= Duration::from_millis(20)),
            other => panic!("{other:?}"),
        }
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(progress.patience(), Patience::Stalled);
        // Frozen where it stalled: a device that then fails still reads as
        // waiting.
        progress.finish(1, true);
        assert_eq!(progress.describe(1).as_deref(), Some("waits at main/%b"));
    }

    #[test]
    fn a_finished_device_does_not_keep_anyone_patient() {
        let progress = spanning_ranks(Duration::from_millis(10));
        progress.wait_begins(0, "main/%total".into());
        progress.finish(1, false);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(progress.patience(), Patience::Stalled);
        assert_eq!(progress.describe(1).as_deref(), Some("finished"));
        let snapshot = progress.snapshot();
        assert_eq!((snapshot.finished, snapshot.blocked), (1, 1));
    }

    #[test]
    fn a_move_restarts_the_quiet_time() {
        let progress = spanning_ranks(Duration::from_millis(50));
        progress.wait_begins(0, "a".into());
        progress.wait_begins(1, "b".into());
        std::thread::sleep(Duration::from_millis(30));
        progress.delivered();
        std::thread::sleep(Duration::from_millis(30));
        assert!(matches!(progress.patience(), Patience::Wait(_)));
    }

    #[test]
    fn a_done_waits_blocked_only_while_its_stream_waits() {
        let progress = Arc::new(Progress::new(1, |_| true, Duration::from_millis(10)));
        let stream = {
            let progress = progress.clone();
            std::thread::spawn(move || {
                enter_lane(0, Lane::Stream);
                progress.wait_begins(0, "main/%start (instance 0)".into());
            })
        };
        stream.join().unwrap();
        assert_eq!(
            progress.describe(0).as_deref(),
            Some("computes (its async stream waits at main/%start (instance 0))")
        );
        assert!(!progress.lock().all_blocked());
        progress
            .lock()
            .set(0, Lane::Compute, Activity::AtDone("main/%done".into()));
        assert!(progress.lock().all_blocked());
        assert_eq!(
            progress.describe(0).as_deref(),
            Some(
                "waits at main/%done for its async stream, which waits at main/%start (instance 0)"
            )
        );
    }

    #[test]
    fn the_deadline_ends_a_wait() {
        let progress = two_devices(Duration::from_secs(60));
        progress.start(Instant::now(), Some(Duration::from_millis(10)));
        progress.wait_begins(0, "a".into());
        match progress.patience() {
            Patience::Wait(wait) => assert!(wait <= Duration::from_millis(10)),
            other => panic!("{other:?}"),
        }
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            progress.patience(),
            Patience::DeadlinePassed(Duration::from_millis(10))
        );
    }

    #[test]
    fn peers_count_as_moves_only_when_they_report_one() {
        let progress = Progress::new(2, |id| id == 0, Duration::from_millis(20));
        progress.wait_begins(0, "a".into());
        assert_eq!(progress.describe(1), None, "device 1 is on another rank");
        let quiet = PeerReport {
            moves: 3,
            busy: false,
        };
        progress.peer_reported(1, quiet);
        std::thread::sleep(Duration::from_millis(30));
        // The same count again, nothing busy: no move.
        progress.peer_reported(1, quiet);
        assert_eq!(progress.patience(), Patience::Stalled);
        // A busy peer keeps this rank patient.
        progress.peer_reported(
            1,
            PeerReport {
                moves: 3,
                busy: true,
            },
        );
        assert!(matches!(progress.patience(), Patience::Wait(_)));
        // Reports are not this rank's moves: nothing to echo back.
        assert_eq!(
            progress.peer_report(),
            PeerReport {
                moves: 1,
                busy: false
            }
        );
    }
}

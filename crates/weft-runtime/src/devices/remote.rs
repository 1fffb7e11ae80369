//! One grid across several processes ("ranks"): the protocol that makes
//! each rank's [`Fabric`] and [`Mailbox`] span them all.
//!
//! Each rank runs a contiguous block of the grid's devices
//! ([`Placement`]) with its own fabric and mailbox. What a local device
//! leaves for a device on another rank travels as a message
//! ([`Transport`]); the rank's progress thread (the transport's) receives
//! it and leaves it in the local fabric or mailbox exactly as a local
//! device would have:
//! - a collective's contribution goes to every other rank hosting a member
//!   of its group, and is deposited there as that member's contribution, so
//!   each rank's rendezvous completes with the same contributions in the
//!   same group order, and every member computes the same bits as in one
//!   process;
//! - a collective-permute's data goes to its target's rank;
//! - a send on a source → target route goes to its target's rank;
//! - a device that fails aborts every rank's run.
//!
//! Around each run, ranks meet twice: at a start line (no rank's devices
//! start before every rank is ready, so their clocks start together) and
//! at the end, where every rank sends rank 0 its devices' evaluations (or
//! its error) and rank 0 answers with the run's verdict, so every rank
//! knows whether the whole run succeeded.
//!
//! Invariants:
//! - every message carries its run's number; a rank keeps messages of runs
//!   it has not begun yet and drops those of runs it has ended (a rank can
//!   be a run ahead of another under `--repeat`);
//! - between two ranks messages arrive in send order (the transport's
//!   promise), so a route's sends stay in order;
//! - a message that cannot be read, or a rank that leaves, ends the current
//!   run on this rank with an error saying so, never a hang;
//! - every rank says it is alive every [`HEARTBEAT_PERIOD`] until it
//!   leaves, so a rank that died (killed, crashed) is noticed where another
//!   waits for it — at the start line and at the end of a run — once it has
//!   been silent for the run's collective timeout, and the run fails naming
//!   it. (A device waiting for its contribution meanwhile stops once
//!   nothing has moved for the timeout, as at any collective that never
//!   completes.)
//! - a rank cannot see another rank's devices, so with each heartbeat during
//!   a run it also reports how many moves its devices made and whether one
//!   of them is busy ([`kind::PROGRESS`], see [`super::progress`]). The
//!   other ranks count a report showing a move or a busy device as a move:
//!   a device computing on one rank keeps every rank's waiters patient, and
//!   a wait gives up only when every rank's devices have been blocked, and
//!   no report has shown a move, for the timeout (at least
//!   [`super::progress::SHORTEST_TIMEOUT_ACROSS_RANKS`]).
//!
//! Limits: a whole-channel send/recv route (no source-target pairs) pairs
//! sends and receives in arrival order across the grid, which has no
//! meaning across ranks, so it is an error when the grid spans ranks; so is
//! a shared infeed queue (each rank would feed every value again).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use super::channels::{Mailbox, Route};
use super::fabric::{Fabric, Key, Signature};
use super::progress::PeerReport;
use super::transport::{Placement, Transport};
use super::wire::{Reader, WIRE_VERSION, Writer, check_version};
use crate::evaluate::{Evaluation, RunError};
use crate::tensor::Value;

/// What the fabric and mailbox of a run spanning ranks ask of the other
/// ranks. The fabric consults it for devices that are not local.
pub trait Remote: Send + Sync {
    /// Which rank hosts which device.
    fn placement(&self) -> Placement;

    /// This rank.
    fn rank(&self) -> usize;

    /// Whether device `device` (a flattened id) runs on this rank.
    fn is_local(&self, device: usize) -> bool {
        self.placement().rank_of(device) == self.rank()
    }

    /// Sends `contribution`, member `position`'s of the instance `key`'s
    /// group, arriving at `arrival` on its clock with `signature`, to every
    /// other rank hosting a member.
    fn contribute(
        &self,
        key: &Key,
        position: usize,
        contribution: &Value,
        arrival: Duration,
        signature: &Signature,
    ) -> Result<(), String>;

    /// Sends a collective-permute's data from `source`, sent at `clock` on
    /// its clock, to `target`'s rank.
    fn deliver(
        &self,
        key: &Key,
        source: usize,
        target: usize,
        value: &Value,
        clock: Duration,
    ) -> Result<(), String>;

    /// Sends a message on a source → target route, sent at `clock` on the
    /// source's clock, to the target's rank.
    fn mail(&self, route: Route, data: &Value, clock: Duration) -> Result<(), String>;

    /// Tells every other rank the run failed with `reason`.
    fn abort(&self, reason: &str);
}

/// The kinds of message, the second byte of each (after the version). The
/// MPI transport uses the kind as the message's tag.
pub mod kind {
    /// A rank is at the start line of a run.
    pub const READY: u8 = 1;
    /// A collective's contribution.
    pub const CONTRIBUTION: u8 = 2;
    /// A collective-permute's data.
    pub const PERMUTE: u8 = 3;
    /// A send on a source → target route.
    pub const MAIL: u8 = 4;
    /// A device failed: stop the run.
    pub const ABORT: u8 = 5;
    /// A rank's devices' evaluations (or its error), for rank 0.
    pub const OUTCOME: u8 = 6;
    /// Rank 0's verdict on a run.
    pub const VERDICT: u8 = 7;
    /// A rank left: it will take part in no further run.
    pub const DEPARTED: u8 = 8;
    /// A rank is alive (sent every [`super::HEARTBEAT_PERIOD`]).
    pub const ALIVE: u8 = 9;
    /// A rank's devices' progress in the run under way (sent with each
    /// heartbeat during a run).
    pub const PROGRESS: u8 = 10;
}

/// How often a rank tells the others it is alive.
pub const HEARTBEAT_PERIOD: Duration = Duration::from_millis(250);

/// The shortest silence after which a rank counts as gone: several
/// heartbeats, so a busy machine's scheduling delays do not count.
const SHORTEST_SILENCE: Duration = Duration::from_secs(1);

/// The words that say a rank died, which make its failure the root cause.
const NOT_HEARD_FROM: &str = "has not been heard from for";

/// A decoded message.
enum Message {
    Ready,
    Contribution {
        key: Key,
        position: usize,
        clock: Duration,
        signature: Signature,
        value: Value,
    },
    Permute {
        key: Key,
        source: usize,
        target: usize,
        clock: Duration,
        value: Value,
    },
    Mail {
        route: Route,
        clock: Duration,
        value: Value,
    },
    Abort {
        reason: String,
    },
    Outcome(Result<Vec<Evaluation>, RunError>),
    Verdict(Result<(), RunError>),
    Departed,
    Alive,
    Progress(PeerReport),
}

/// The header every message begins with: version, kind, run.
fn header(kind: u8, run: u64, capacity: usize) -> Writer {
    let mut writer = Writer::with_capacity(capacity + 10);
    writer.u8(WIRE_VERSION);
    writer.u8(kind);
    writer.u64(run);
    writer
}

fn write_key(writer: &mut Writer, key: &Key) {
    write_option_i64(writer, key.channel);
    writer.u8(u8::from(key.on_stream));
    writer.u32(key.members.len() as u32);
    for &member in &key.members {
        writer.usize(member);
    }
    writer.u64(key.occurrence);
}

fn read_key(reader: &mut Reader<'_>, message_bytes: usize) -> Result<Key, String> {
    let channel = read_option_i64(reader, "an instance's channel")?;
    let on_stream = reader.u8("an instance's thread")? != 0;
    let members = reader.u32("the group size")? as usize;
    if members > message_bytes {
        return Err(format!("a group of {members} in a shorter message"));
    }
    let members = (0..members)
        .map(|_| reader.usize("a group member"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Key {
        channel,
        on_stream,
        members,
        occurrence: reader.u64("an instance's occurrence")?,
    })
}

fn write_option_i64(writer: &mut Writer, value: Option<i64>) {
    writer.u8(u8::from(value.is_some()));
    writer.i64(value.unwrap_or(0));
}

fn read_option_i64(reader: &mut Reader<'_>, what: &str) -> Result<Option<i64>, String> {
    let present = reader.u8(what)? != 0;
    let value = reader.i64(what)?;
    Ok(present.then_some(value))
}

fn write_signature(writer: &mut Writer, signature: &Signature) {
    writer.string(&signature.kind);
    writer.u8(u8::from(signature.reducer.is_some()));
    writer.string(signature.reducer.as_deref().unwrap_or_default());
    write_option_i64(writer, signature.dimension);
    writer.string(&signature.at);
}

fn read_signature(reader: &mut Reader<'_>) -> Result<Signature, String> {
    let kind = reader.string("a collective's kind")?;
    let has_reducer = reader.u8("a collective's reducer")? != 0;
    let reducer = reader.string("a collective's reducer")?;
    Ok(Signature {
        kind,
        reducer: has_reducer.then_some(reducer),
        dimension: read_option_i64(reader, "a collective's dimension")?,
        at: reader.string("a collective's place")?,
    })
}

/// The [`kind::PROGRESS`] message of `run`: what `fabric`'s tracker has
/// seen of this rank's devices.
fn progress_message(run: u64, fabric: &Fabric) -> Vec<u8> {
    let report = fabric.progress().peer_report();
    let mut writer = header(kind::PROGRESS, run, 9);
    writer.u64(report.moves);
    writer.u8(u8::from(report.busy));
    writer.finish()
}

/// A rough size of `value`'s encoding, to allocate a message once.
fn encoded_size(value: &Value) -> usize {
    match value {
        Value::Tensor(tensor) => tensor.bytes.len() + 32 + 8 * tensor.dims.len(),
        Value::Tuple(elements) => 8 + elements.iter().map(encoded_size).sum::<usize>(),
        _ => 1,
    }
}

/// The run and message of `bytes`.
fn decode(bytes: &[u8]) -> Result<(u64, Message), String> {
    let mut reader = Reader::new(bytes);
    check_version(&mut reader)?;
    let kind = reader.u8("the message kind")?;
    let run = reader.u64("the run")?;
    let message = match kind {
        kind::READY => Message::Ready,
        kind::CONTRIBUTION => {
            let key = read_key(&mut reader, bytes.len())?;
            let position = reader.usize("a position")?;
            if position >= key.members.len() {
                return Err(format!(
                    "position {position} in a group of {}",
                    key.members.len()
                ));
            }
            Message::Contribution {
                key,
                position,
                clock: reader.duration("an arrival time")?,
                signature: read_signature(&mut reader)?,
                value: reader.value()?,
            }
        }
        kind::PERMUTE => Message::Permute {
            key: read_key(&mut reader, bytes.len())?,
            source: reader.usize("a source device")?,
            target: reader.usize("a target device")?,
            clock: reader.duration("a send time")?,
            value: reader.value()?,
        },
        kind::MAIL => Message::Mail {
            route: Route::Pair {
                channel: reader.i64("a channel")?,
                source: reader.usize("a source device")?,
                target: reader.usize("a target device")?,
            },
            clock: reader.duration("a send time")?,
            value: reader.value()?,
        },
        kind::ABORT => Message::Abort {
            reason: reader.string("the reason")?,
        },
        kind::OUTCOME => Message::Outcome(match reader.u8("an outcome")? {
            0 => {
                let count = reader.u32("the evaluation count")? as usize;
                if count > bytes.len() {
                    return Err(format!("{count} evaluations in a shorter message"));
                }
                Ok((0..count)
                    .map(|_| reader.evaluation())
                    .collect::<Result<Vec<_>, _>>()?)
            }
            1 => Err(reader.run_error()?),
            other => return Err(format!("outcome byte {other}")),
        }),
        kind::VERDICT => Message::Verdict(match reader.u8("a verdict")? {
            0 => Ok(()),
            1 => Err(reader.run_error()?),
            other => return Err(format!("verdict byte {other}")),
        }),
        kind::DEPARTED => Message::Departed,
        kind::ALIVE => Message::Alive,
        kind::PROGRESS => Message::Progress(PeerReport {
            moves: reader.u64("a move count")?,
            busy: reader.u8("a busy flag")? != 0,
        }),
        other => return Err(format!("unknown message kind {other}")),
    };
    reader.finish()?;
    Ok((run, message))
}

/// Where the messages of the run under way on this rank go.
struct Endpoint {
    run: u64,
    fabric: Arc<Fabric>,
    mailbox: Arc<Mailbox>,
}

impl Endpoint {
    /// Stops this rank's run with `reason`.
    fn abort(&self, reason: String) {
        self.mailbox.abort(reason.clone());
        self.fabric.abort(reason);
    }

    /// Leaves what `from` sent where a local device would have left it.
    fn apply(&self, from: usize, message: Message) {
        let outcome = match message {
            Message::Contribution {
                key,
                position,
                clock,
                signature,
                value,
            } => self
                .fabric
                .deposit_remote(key, position, value, clock, signature)
                .map_err(|e| format!("rank {from} sent a contribution this rank refuses: {e}")),
            Message::Permute {
                key,
                source,
                target,
                clock,
                value,
            } => {
                self.fabric
                    .leave_for_target(key, source, target, Arc::new(value), clock);
                Ok(())
            }
            Message::Mail {
                route,
                clock,
                value,
            } => self.mailbox.arrived(route, value, clock),
            Message::Abort { reason } => {
                self.abort(reason);
                Ok(())
            }
            // Handled by the cluster itself.
            Message::Ready
            | Message::Outcome(_)
            | Message::Verdict(_)
            | Message::Departed
            | Message::Alive
            | Message::Progress(_) => Ok(()),
        };
        if let Err(reason) = outcome {
            self.abort(reason);
        }
    }
}

/// What a rank knows of the other ranks between and during runs.
#[derive(Default)]
struct ClusterState {
    /// The run under way here, and where its messages go.
    current: Option<Endpoint>,
    /// The last run that ended here: messages of it or older are dropped.
    ended: Option<u64>,
    /// Messages of runs that have not begun here yet, by run, in arrival
    /// order.
    early: BTreeMap<u64, Vec<(usize, Message)>>,
    /// The ranks at the start line of each run.
    ready: HashMap<u64, BTreeSet<usize>>,
    /// Each rank's outcome of each run (on rank 0).
    outcomes: HashMap<u64, BTreeMap<usize, Result<Vec<Evaluation>, RunError>>>,
    /// Rank 0's verdict on each run.
    verdicts: HashMap<u64, Result<(), RunError>>,
    /// Ranks that left.
    departed: BTreeSet<usize>,
    /// A message that could not be read: the ranks can no longer agree.
    broken: Option<String>,
    /// When each rank was last heard from (any message counts).
    last_heard: Vec<Instant>,
    /// This rank has left: it sends no more heartbeats.
    left: bool,
}

/// This process's view of the ranks sharing a grid: the transport, and the
/// protocol state of the runs across them. Every rank makes one and runs
/// the same sequence of runs on it.
pub struct Cluster {
    transport: Arc<dyn Transport>,
    /// The number of the next run (every rank counts its runs alike).
    next_run: AtomicU64,
    state: Mutex<ClusterState>,
    changed: Condvar,
}

impl Cluster {
    /// A cluster over `transport`; it receives every message the transport
    /// delivers from now on.
    pub fn new(transport: Arc<dyn Transport>) -> Arc<Cluster> {
        let cluster = Arc::new(Cluster {
            transport: transport.clone(),
            next_run: AtomicU64::new(0),
            state: Mutex::new(ClusterState {
                last_heard: vec![Instant::now(); transport.ranks()],
                ..ClusterState::default()
            }),
            changed: Condvar::new(),
        });
        // Weak: the transport's handler must not keep the cluster (and so
        // the transport itself) alive.
        let weak: Weak<Cluster> = Arc::downgrade(&cluster);
        transport.deliver_to(Arc::new(move |from, bytes| {
            if let Some(cluster) = weak.upgrade() {
                cluster.receive(from, &bytes);
            }
        }));
        let heartbeat: Weak<Cluster> = Arc::downgrade(&cluster);
        // Without a heartbeat a dead rank is only ever noticed by a timeout
        // of the transport, which MPI does not have.
        let _ = std::thread::Builder::new()
            .name("rank heartbeat".into())
            .spawn(move || {
                let alive = header(kind::ALIVE, 0, 0).finish();
                loop {
                    std::thread::sleep(HEARTBEAT_PERIOD);
                    let Some(cluster) = heartbeat.upgrade() else {
                        return;
                    };
                    let progress = {
                        let state = cluster.lock();
                        if state.left {
                            return;
                        }
                        state
                            .current
                            .as_ref()
                            .map(|current| progress_message(current.run, &current.fabric))
                    };
                    cluster.broadcast(&alive);
                    if let Some(progress) = progress {
                        cluster.broadcast(&progress);
                    }
                }
            });
        cluster
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.transport.rank()
    }

    /// How many ranks.
    pub fn ranks(&self) -> usize {
        self.transport.ranks()
    }

    fn lock(&self) -> MutexGuard<'_, ClusterState> {
        // A poisoned lock means a handler panicked; the state is still the
        // best there is.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Tells the other ranks this one takes part in no further run, then
    /// shuts the transport down (waiting for the others to finish too).
    pub fn leave(&self) -> Result<(), String> {
        self.lock().left = true;
        let message = header(kind::DEPARTED, 0, 0).finish();
        self.broadcast(&message);
        self.transport.shut_down()
    }

    /// Sends `message` to every other rank, ignoring failures (a rank that
    /// is gone is reported where it is waited for).
    fn broadcast(&self, message: &[u8]) {
        for rank in (0..self.ranks()).filter(|&r| r != self.rank()) {
            let _ = self.transport.send(rank, message.to_vec());
        }
    }

    /// The progress thread's part: decodes a message and routes it.
    fn receive(&self, from: usize, bytes: &[u8]) {
        let decoded = decode(bytes);
        let mut state = self.lock();
        if let Some(heard) = state.last_heard.get_mut(from) {
            *heard = Instant::now();
        }
        let (run, message) = match decoded {
            Ok(decoded) => decoded,
            Err(error) => {
                let reason = format!("rank {from} sent a message this rank cannot read: {error}");
                if let Some(current) = &state.current {
                    current.abort(reason.clone());
                }
                state.broken.get_or_insert(reason);
                self.changed.notify_all();
                return;
            }
        };
        match message {
            Message::Ready => {
                state.ready.entry(run).or_default().insert(from);
            }
            Message::Outcome(outcome) => {
                state.outcomes.entry(run).or_default().insert(from, outcome);
            }
            Message::Verdict(verdict) => {
                state.verdicts.insert(run, verdict);
            }
            Message::Alive => {}
            // Only the run under way cares; a report of another run is
            // stale or early, and the next one comes a heartbeat later.
            Message::Progress(report) => {
                if let Some(current) = state.current.as_ref().filter(|c| c.run == run) {
                    current.fabric.progress().peer_reported(from, report);
                }
            }
            Message::Departed => {
                state.departed.insert(from);
                if let Some(current) = &state.current {
                    current.abort(format!("rank {from} left the run"));
                }
            }
            data => match &state.current {
                Some(current) if current.run == run => current.apply(from, data),
                _ if state.ended.is_some_and(|ended| run <= ended) => {}
                _ => state.early.entry(run).or_default().push((from, data)),
            },
        }
        self.changed.notify_all();
    }

    /// Begins this rank's part of a new run over `placement`: returns the
    /// remote the run's fabric and mailbox consult.
    pub(crate) fn begin_run(self: &Arc<Self>, placement: Placement) -> Arc<RunRemote> {
        let run = self.next_run.fetch_add(1, Ordering::SeqCst);
        Arc::new(RunRemote {
            transport: self.transport.clone(),
            run,
            placement,
        })
    }

    /// Routes the messages of `run` to `fabric` and `mailbox` from now on,
    /// the early ones first.
    pub(crate) fn attach(&self, run: u64, fabric: Arc<Fabric>, mailbox: Arc<Mailbox>) {
        let mut state = self.lock();
        let endpoint = Endpoint {
            run,
            fabric,
            mailbox,
        };
        // Earlier runs' leftovers can no longer matter.
        state.early.retain(|&early_run, _| early_run >= run);
        if let Some(early) = state.early.remove(&run) {
            for (from, message) in early {
                endpoint.apply(from, message);
            }
        }
        if let Some(reason) = state.broken.clone() {
            endpoint.abort(reason);
        }
        if let Some(&rank) = state.departed.iter().next() {
            endpoint.abort(format!("rank {rank} left the run"));
        }
        state.current = Some(endpoint);
    }

    /// Ends `run` here: its late messages are dropped from now on.
    pub(crate) fn detach(&self, run: u64) {
        let mut state = self.lock();
        if state.current.as_ref().is_some_and(|c| c.run == run) {
            state.current = None;
        }
        state.ended = Some(state.ended.map_or(run, |ended| ended.max(run)));
        state.ready.remove(&run);
    }

    /// Why waiting for other ranks is pointless, if it is: a message no
    /// rank can read, a rank waited for that left, or one that has been
    /// silent for longer than `silence` (it died, or its process hangs).
    fn hopeless(
        state: &ClusterState,
        silence: Duration,
        waiting_for: impl Fn(usize) -> bool,
    ) -> Option<String> {
        if let Some(reason) = &state.broken {
            return Some(reason.clone());
        }
        if let Some(rank) = state.departed.iter().find(|&&rank| waiting_for(rank)) {
            return Some(format!(
                "rank {rank} left (it stopped with an error of its own, which it reported)"
            ));
        }
        let silence = silence.max(SHORTEST_SILENCE);
        state
            .last_heard
            .iter()
            .enumerate()
            .filter(|&(rank, _)| waiting_for(rank))
            .map(|(rank, heard)| (rank, heard.elapsed()))
            .find(|&(_, quiet)| quiet > silence)
            .map(|(rank, quiet)| {
                format!(
                    "rank {rank} {NOT_HEARD_FROM} {:.1} s: its process died, or hangs",
                    quiet.as_secs_f64()
                )
            })
    }

    /// Waits until every rank is at the start line of `run`, at most
    /// `patience`.
    /// A rank silent for longer than `silence` is gone.
    pub(crate) fn start_line(
        &self,
        run: u64,
        patience: Duration,
        silence: Duration,
    ) -> Result<(), String> {
        let message = header(kind::READY, run, 0).finish();
        self.broadcast(&message);
        let others = self.ranks() - 1;
        let deadline = Instant::now() + patience;
        let mut state = self.lock();
        loop {
            let arrived = state.ready.get(&run).map_or(0, BTreeSet::len);
            if arrived == others {
                return Ok(());
            }
            let present = state.ready.get(&run).cloned().unwrap_or_default();
            let me = self.rank();
            if let Some(reason) = Self::hopeless(&state, silence, |rank| {
                rank != me && !present.contains(&rank)
            }) {
                return Err(format!("run {run} could not start: {reason}"));
            }
            let now = Instant::now();
            if now >= deadline {
                let missing: Vec<String> = (0..self.ranks())
                    .filter(|&r| r != me && !present.contains(&r))
                    .map(|r| r.to_string())
                    .collect();
                return Err(format!(
                    "rank(s) {} did not reach the start of run {run} within {:.1} s",
                    missing.join(", "),
                    patience.as_secs_f64()
                ));
            }
            state = self
                .changed
                .wait_timeout(state, (deadline - now).min(HEARTBEAT_PERIOD))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// The end of `run`: every rank's outcome goes to rank 0, which answers
    /// with the verdict. Rank 0 gets every device's evaluation in device
    /// order; the others get `None`. Any rank's failure fails the run on
    /// every rank, with the root cause (a device's own error rather than
    /// the stops it caused elsewhere). A rank silent for longer than
    /// `silence` is gone, and the run fails naming it.
    pub(crate) fn gather(
        &self,
        run: u64,
        placement: Placement,
        local: Result<Vec<Evaluation>, RunError>,
        silence: Duration,
    ) -> Result<Option<Vec<Evaluation>>, RunError> {
        let failure = |message: String| RunError {
            instruction: None,
            instr: None,
            message,
        };
        if self.rank() != 0 {
            let mut writer = header(kind::OUTCOME, run, 0);
            let written = match &local {
                Ok(evaluations) => {
                    writer.u8(0);
                    writer.u32(evaluations.len() as u32);
                    evaluations
                        .iter()
                        .try_for_each(|evaluation| writer.evaluation(evaluation))
                }
                Err(error) => {
                    writer.u8(1);
                    writer.run_error(error);
                    Ok(())
                }
            };
            let message = match written {
                Ok(()) => writer.finish(),
                Err(why) => {
                    let mut writer = header(kind::OUTCOME, run, 0);
                    writer.u8(1);
                    writer.run_error(&failure(format!(
                        "rank {} could not send its results: {why}",
                        self.rank()
                    )));
                    writer.finish()
                }
            };
            self.transport
                .send(0, message)
                .map_err(|e| failure(format!("rank {} cannot reach rank 0: {e}", self.rank())))?;
            let mut state = self.lock();
            loop {
                if let Some(verdict) = state.verdicts.remove(&run) {
                    return verdict.map(|()| None);
                }
                if let Some(reason) = Self::hopeless(&state, silence, |rank| rank == 0) {
                    return Err(failure(format!("no verdict on the run: {reason}")));
                }
                state = self.wait_a_heartbeat(state);
            }
        }
        let mut outcomes = {
            let mut state = self.lock();
            loop {
                let arrived = state.outcomes.get(&run).map_or(0, BTreeMap::len);
                if arrived == self.ranks() - 1 {
                    break state.outcomes.remove(&run).unwrap_or_default();
                }
                let reported: BTreeSet<usize> = state
                    .outcomes
                    .get(&run)
                    .map(|outcomes| outcomes.keys().copied().collect())
                    .unwrap_or_default();
                if let Some(reason) = Self::hopeless(&state, silence, |rank| {
                    rank != 0 && !reported.contains(&rank)
                }) {
                    let mut outcomes = state.outcomes.remove(&run).unwrap_or_default();
                    for rank in 1..self.ranks() {
                        outcomes.entry(rank).or_insert_with(|| {
                            Err(failure(format!("rank {rank} did not report: {reason}")))
                        });
                    }
                    break outcomes;
                }
                state = self.wait_a_heartbeat(state);
            }
        };
        outcomes.insert(0, local);
        let verdict = combine(placement, outcomes);
        let mut writer = header(kind::VERDICT, run, 0);
        match &verdict {
            Ok(_) => writer.u8(0),
            Err(error) => {
                writer.u8(1);
                writer.run_error(error);
            }
        }
        self.broadcast(&writer.finish());
        verdict.map(Some)
    }
}

impl Cluster {
    /// Waits for a change of `state`, or one heartbeat period, whichever
    /// comes first (so a rank's silence is noticed).
    fn wait_a_heartbeat<'s>(
        &self,
        state: MutexGuard<'s, ClusterState>,
    ) -> MutexGuard<'s, ClusterState> {
        self.changed
            .wait_timeout(state, HEARTBEAT_PERIOD)
            .unwrap_or_else(|e| e.into_inner())
            .0
    }
}

/// Every rank's outcome as the run's: every device's evaluation in device
/// order, or the root cause of the failure.
fn combine(
    placement: Placement,
    outcomes: BTreeMap<usize, Result<Vec<Evaluation>, RunError>>,
) -> Result<Vec<Evaluation>, RunError> {
    let mut evaluations = Vec::with_capacity(placement.devices());
    let mut errors: Vec<RunError> = Vec::new();
    for (rank, outcome) in outcomes {
        match outcome {
            Ok(block) if block.len() == placement.devices_of(rank).len() => {
                evaluations.extend(block);
            }
            Ok(block) => errors.push(RunError {
                instruction: None,
                instr: None,
                message: format!(
                    "rank {rank} reported {} device(s), it runs {}",
                    block.len(),
                    placement.devices_of(rank).len()
                ),
            }),
            Err(error) => errors.push(error),
        }
    }
    if errors.is_empty() {
        return Ok(evaluations);
    }
    // A rank that died is the root cause of whatever its peers saw; else a
    // device's own failure, not a device that stopped because of it.
    let root = errors
        .iter()
        .position(|e| e.message.contains(NOT_HEARD_FROM))
        .or_else(|| {
            errors
                .iter()
                .position(|e| !e.message.contains("stopped because"))
        })
        .unwrap_or(0);
    let mut error = errors.swap_remove(root);
    error.message = merge_device_reports(&error.message, &errors);
    Err(error)
}

/// A deadlock report lists each device's state only on its own rank, and
/// says "is on rank R" for the others: fill those lines from the other
/// ranks' reports, where they have them.
fn merge_device_reports(message: &str, others: &[RunError]) -> String {
    if !message.contains(super::EVERY_DEVICE) {
        return message.to_string();
    }
    let own_state = |device: &str| -> Option<String> {
        others.iter().find_map(|error| {
            let (_, report) = error.message.split_once(super::EVERY_DEVICE)?;
            report
                .lines()
                .find(|line| {
                    line.trim_start().starts_with(device) && !line.contains(ON_ANOTHER_RANK)
                })
                .map(str::to_string)
        })
    };
    message
        .lines()
        .map(|line| {
            if !line.contains(ON_ANOTHER_RANK) {
                return line.to_string();
            }
            // "  device 3 (replica 0, partition 3) is on rank 1…"
            let device: String = line
                .trim_start()
                .split(" (")
                .next()
                .unwrap_or("")
                .to_string();
            own_state(&format!("{device} ")).unwrap_or_else(|| line.to_string())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How a fabric's report names a device another rank runs.
pub(crate) const ON_ANOTHER_RANK: &str = "is on rank";

/// The [`Remote`] of one run: sends over the cluster's transport, every
/// message stamped with the run.
pub(crate) struct RunRemote {
    transport: Arc<dyn Transport>,
    pub(crate) run: u64,
    placement: Placement,
}

impl RunRemote {
    /// Sends `message` to each rank of `ranks` (the last one gets the
    /// buffer itself, the others copies).
    fn send_to(&self, ranks: BTreeSet<usize>, message: Vec<u8>) -> Result<(), String> {
        let mut ranks = ranks.into_iter().peekable();
        while let Some(rank) = ranks.next() {
            let copy = if ranks.peek().is_some() {
                message.clone()
            } else {
                return self.transport.send(rank, message);
            };
            self.transport.send(rank, copy)?;
        }
        Ok(())
    }
}

impl Remote for RunRemote {
    fn placement(&self) -> Placement {
        self.placement
    }

    fn rank(&self) -> usize {
        self.transport.rank()
    }

    fn contribute(
        &self,
        key: &Key,
        position: usize,
        contribution: &Value,
        arrival: Duration,
        signature: &Signature,
    ) -> Result<(), String> {
        let me = self.rank();
        let ranks: BTreeSet<usize> = key
            .members
            .iter()
            .map(|&device| self.placement.rank_of(device))
            .filter(|&rank| rank != me)
            .collect();
        if ranks.is_empty() {
            return Ok(());
        }
        let mut writer = header(
            kind::CONTRIBUTION,
            self.run,
            encoded_size(contribution) + 8 * key.members.len() + 120,
        );
        write_key(&mut writer, key);
        writer.usize(position);
        writer.duration(arrival);
        write_signature(&mut writer, signature);
        writer.value(contribution)?;
        self.send_to(ranks, writer.finish())
    }

    fn deliver(
        &self,
        key: &Key,
        source: usize,
        target: usize,
        value: &Value,
        clock: Duration,
    ) -> Result<(), String> {
        let mut writer = header(kind::PERMUTE, self.run, encoded_size(value) + 48);
        write_key(&mut writer, key);
        writer.usize(source);
        writer.usize(target);
        writer.duration(clock);
        writer.value(value)?;
        self.transport
            .send(self.placement.rank_of(target), writer.finish())
    }

    fn mail(&self, route: Route, data: &Value, clock: Duration) -> Result<(), String> {
        let Route::Pair {
            channel,
            source,
            target,
        } = route
        else {
            return Err(WHOLE_CHANNEL_ACROSS_RANKS.into());
        };
        let mut writer = header(kind::MAIL, self.run, encoded_size(data) + 32);
        writer.i64(channel);
        writer.usize(source);
        writer.usize(target);
        writer.duration(clock);
        writer.value(data)?;
        self.transport
            .send(self.placement.rank_of(target), writer.finish())
    }

    fn abort(&self, reason: &str) {
        let mut writer = header(kind::ABORT, self.run, reason.len() + 4);
        writer.string(reason);
        let message = writer.finish();
        for rank in (0..self.placement.ranks()).filter(|&r| r != self.rank()) {
            let _ = self.transport.send(rank, message.clone());
        }
    }
}

/// Why a whole-channel route cannot cross ranks.
pub(crate) const WHOLE_CHANNEL_ACROSS_RANKS: &str = "a send or recv without source-target pairs pairs sends and receives in arrival order across the whole grid, which has no meaning when the grid spans ranks: give it _xla_send_recv_source_target_pairs";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let key = Key {
            channel: Some(3),
            on_stream: true,
            members: vec![1, 2],
            occurrence: 2,
        };
        let signature = Signature {
            kind: "all-reduce".into(),
            reducer: Some("add".into()),
            dimension: None,
            at: "main/%sum".into(),
        };
        let value = Value::Tuple(vec![Value::Token]);
        let mut writer = header(kind::CONTRIBUTION, 7, 0);
        write_key(&mut writer, &key);
        writer.usize(1);
        writer.duration(Duration::from_nanos(42));
        write_signature(&mut writer, &signature);
        writer.value(&value).unwrap();
        let (run, message) = decode(&writer.finish()).unwrap();
        assert_eq!(run, 7);
        let Message::Contribution {
            key: back,
            position,
            clock,
            signature: back_signature,
            value: back_value,
        } = message
        else {
            panic!("a contribution");
        };
        assert_eq!(
            (back, position, clock, back_signature, back_value),
            (key, 1, Duration::from_nanos(42), signature, value)
        );
        // A position outside its group, and an unknown kind, are errors.
        let mut writer = header(kind::CONTRIBUTION, 7, 0);
        write_key(
            &mut writer,
            &Key {
                channel: None,
                on_stream: false,
                members: vec![0],
                occurrence: 0,
            },
        );
        writer.usize(5);
        assert!(
            decode(&writer.finish())
                .err()
                .expect("an error")
                .contains("position 5")
        );
        assert!(
            decode(&header(99, 0, 0).finish())
                .err()
                .expect("an error")
                .contains("kind 99")
        );
    }

    #[test]
    fn a_progress_report_round_trips() {
        let fabric = Fabric::new(
            Duration::from_secs(1),
            super::super::Grid {
                replicas: 1,
                partitions: 2,
            },
        );
        fabric.progress().finish(1, false);
        let (run, message) = decode(&progress_message(4, &fabric)).unwrap();
        assert_eq!(run, 4);
        let Message::Progress(report) = message else {
            panic!("a progress report");
        };
        // Device 0 has not started waiting: it is busy.
        assert_eq!(
            report,
            PeerReport {
                moves: 1,
                busy: true
            }
        );
    }

    #[test]
    fn a_deadlock_report_takes_each_device_line_from_its_rank() {
        let here = format!(
            "the run stalled.{}\n  device 0 (replica 0, partition 0) waits at x\n  device 1 (replica 0, partition 1) {ON_ANOTHER_RANK} 1",
            super::super::EVERY_DEVICE
        );
        let there = RunError {
            instruction: None,
            instr: None,
            message: format!(
                "waited.{}\n  device 0 (replica 0, partition 0) {ON_ANOTHER_RANK} 0\n  device 1 (replica 0, partition 1) finished",
                super::super::EVERY_DEVICE
            ),
        };
        let merged = merge_device_reports(&here, &[there]);
        assert!(merged.contains("device 0 (replica 0, partition 0) waits at x"));
        assert!(merged.contains("device 1 (replica 0, partition 1) finished"));
        assert!(!merged.contains(ON_ANOTHER_RANK), "{merged}");
    }
}

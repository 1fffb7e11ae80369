//! The in-process interconnect: devices are threads, and a collective is a
//! rendezvous where every member of a group deposits its contribution and
//! reads everyone's.
//!
//! Collectives are matched as XLA:CPU matches them: by channel, not by
//! instruction. XLA:CPU keys each rendezvous by the run, the participating
//! devices and an op id, which is the collective's `channel_id` (one id
//! shared by every collective without a channel); two different
//! instructions with the same channel and the same devices are the same
//! collective to it. Here each collective *instance* has its own rendezvous,
//! its [`Key`]: the channel, the group's members in group order, whether the
//! members run it on their async streams or on their compute threads, and
//! how many instances of that channel and group the device ran before (a
//! collective in a loop body is a new instance each iteration). The count
//! tells instances apart where XLA relies on them never overlapping (JAX
//! gives many collectives `channel_id=1`), and it is kept per thread, so an
//! async collective on the stream and a synchronous one on the compute
//! thread never take each other's place.
//!
//! Members that meet must agree on what they meet for: each brings a
//! [`Signature`] (the collective's kind, reducer and dimension, and where it
//! is in the program) and its operands' shapes, and the first member's are
//! compared with every later arrival's, so a mismatch stops the run at the
//! rendezvous with both sides named. XLA compares nothing and would read
//! the wrong bytes. A member that cannot come is found as soon as it is
//! known: a device that finished its program without reaching the
//! collective, or a cycle of waits — this thread waits for a device whose
//! thread of the same kind waits, at another collective or for a permute's
//! data, for a device that … waits for this one. Every wait needs all it
//! waits for, so a cycle is a certain deadlock; it is how devices that
//! disagree about the groups or the order of their collectives meet, and
//! the thread that closes it names every wait on it. A deadlock through
//! waits the fabric does not see (a recv) is still found at once, by the
//! tracker, as every device blocked ([`super::progress`]); one through a
//! device on another rank, by the timeout.
//!
//! A collective-permute does not meet its whole group: each source leaves
//! its data in a mailbox for its target ([`Fabric::deliver`]) and each
//! target waits only for its own source ([`Fabric::collect`]), so a ring of
//! permutes couples neighbours, not every device, as on a real fabric.
//!
//! Faults are outcomes: when every unfinished device is blocked (across
//! ranks: and nothing has moved for the timeout, [`super::progress`]), the
//! wait ends with an error
//! naming the instance, the devices still missing and what every device is
//! doing; and a device that fails aborts the fabric so no other device waits
//! for it. A device that computes keeps the others waiting as long as it
//! computes (the run's deadline still ends the wait). The fabric owns the
//! run's [`Progress`] tracker and tells it of every arrival, departure and
//! delivery.
//!
//! A grid may span several processes ("ranks", [`super::remote`]): then each
//! rank has a fabric of its own for its block of devices, and the fabric
//! consults its [`Remote`] for the others. A contribution is also sent to
//! every other rank hosting a member of its group, where it arrives as that
//! member's contribution ([`Fabric::deposit_remote`]); a permute's data for
//! a device on another rank goes there. Only this rank's members read a
//! slot, so only they are counted as its readers, and only they share an
//! all-reduce's fold.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::progress::{Lane, Patience, Progress, Waited, deadline_stop};
use super::remote::{ON_ANOTHER_RANK, Remote};
use crate::tensor::Value;

/// One collective instance (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The collective's channel (XLA's op id); `None` for every collective
    /// without one, which XLA matches as one op too.
    pub channel: Option<i64>,
    /// Whether the members run it on their async streams (an async start's
    /// collective) rather than on their compute threads.
    pub on_stream: bool,
    /// The members, flattened ids in group order; empty for a
    /// collective-permute, whose messages name their pair.
    pub members: Vec<usize>,
    /// How many instances of this channel, thread and group each member ran
    /// before.
    pub occurrence: u64,
}

impl Key {
    /// The instance in words: `channel 1, instance 0`.
    pub fn describe(&self) -> String {
        match self.channel {
            Some(channel) => format!("channel {channel}, instance {}", self.occurrence),
            None => format!("no channel, instance {}", self.occurrence),
        }
    }
}

/// What a member says about the collective it comes to; the first member's
/// is compared with every later one's (with their operands' shapes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The collective's kind: `all-reduce` (a start counts as its
    /// collective).
    pub kind: String,
    /// Its reducer's operation (`add`), when it is one operation of its
    /// parameters; compared only when both sides know theirs.
    pub reducer: Option<String>,
    /// The dimension it gathers, scatters or splits along.
    pub dimension: Option<i64>,
    /// Where it is in the program (`comp/%name`), for messages; not
    /// compared.
    pub at: String,
}

impl Signature {
    /// Whether two members agree (all but where they are).
    fn agrees(&self, other: &Signature) -> bool {
        let reducers = match (&self.reducer, &other.reducer) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        self.kind == other.kind && self.dimension == other.dimension && reducers
    }

    /// `all-reduce of f32[16] (add)` for a member whose operands are
    /// `operands`.
    fn describe(&self, operands: &Value) -> String {
        let shapes = match operands {
            Value::Tuple(elements) => elements
                .iter()
                .map(Value::describe)
                .collect::<Vec<_>>()
                .join(", "),
            other => other.describe(),
        };
        let mut words = format!("{} of {shapes}", self.kind);
        if let Some(reducer) = &self.reducer {
            words.push_str(&format!(" ({reducer})"));
        }
        if let Some(dimension) = self.dimension {
            words.push_str(&format!(" along dimension {dimension}"));
        }
        words
    }
}

/// What a collective computes once for its whole group (an all-reduce's
/// sum, an all-gather's concatenation): the first member to need it computes
/// it, the others wait for it and share its buffers. Why: every member
/// computing the same result would multiply the host work by the group size
/// on a machine with fewer cores than devices.
pub type GroupResult = Arc<std::sync::OnceLock<Result<Vec<crate::tensor::Tensor>, String>>>;

/// The outcome of a rendezvous: every member's contribution in group order,
/// and the group's shared result.
pub struct Exchanged {
    /// Each member's contribution, in group order.
    pub contributions: Vec<Arc<Value>>,
    /// When each member arrived, on its clock, in group order.
    pub arrivals: Vec<Duration>,
    /// The result the group computes once and shares.
    pub group_result: GroupResult,
    /// The output the group's members fold together (an all-reduce whose
    /// reducer has a native kernel).
    pub shared_fold: SharedFoldSlot,
    /// This member's share of the shared fold: its place among the group's
    /// members on this rank (its position in the group, in one process).
    pub fold_member: usize,
    /// How many members share the fold: the group's members on this rank.
    pub fold_members: usize,
}

/// Where the members of an all-reduce find their [`SharedFold`], made by
/// the first to need it.
///
/// [`SharedFold`]: super::shared_fold::SharedFold
pub type SharedFoldSlot = Arc<std::sync::OnceLock<super::shared_fold::SharedFold>>;

struct Slot {
    /// The first member to arrive, and what it said.
    first: Option<(usize, Signature)>,
    /// Why the instance can never complete, once a member found out: its
    /// members fail with these words.
    trouble: Option<String>,
    contributions: Vec<Option<Arc<Value>>>,
    arrivals: Vec<Duration>,
    group_result: GroupResult,
    shared_fold: SharedFoldSlot,
    /// Local members that have not read the result yet.
    readers_left: usize,
}

impl Slot {
    /// An empty slot for `members` members, `local_members` of them on this
    /// rank.
    fn new(members: usize, local_members: usize) -> Slot {
        Slot {
            first: None,
            trouble: None,
            contributions: vec![None; members],
            arrivals: vec![Duration::ZERO; members],
            group_result: GroupResult::default(),
            shared_fold: SharedFoldSlot::default(),
            readers_left: local_members,
        }
    }
}

/// What a thread waits for, in the fabric.
enum Wait {
    /// The rest of the group of the instance `key`.
    Group {
        /// The instance.
        key: Key,
        /// Where the waiting thread is (`comp/%name`).
        at: String,
    },
    /// A collective-permute's data from `source`.
    Data {
        /// The instance.
        key: Key,
        /// The sender.
        source: usize,
        /// Where the waiting thread is (`comp/%name`).
        at: String,
    },
}

impl Wait {
    /// `comp/%name (channel 1, instance 0, group {0,1})`.
    fn describe(&self) -> String {
        match self {
            Wait::Group { key, at } => format!(
                "{at} ({}, group {})",
                key.describe(),
                group_words(&key.members)
            ),
            Wait::Data { key, at, .. } => format!("{at} ({})", key.describe()),
        }
    }
}

/// One message of a collective-permute instance.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Mail {
    /// The instance.
    key: Key,
    /// The sending device (flattened id).
    source: usize,
    /// The receiving device (flattened id).
    target: usize,
}

/// A delivered message: the data and when it was sent (the link model
/// counts its transfer time from then).
pub struct Delivered {
    /// The sender's operands.
    pub value: Arc<Value>,
    /// When it reached this process's fabric.
    pub sent: Instant,
    /// When the sender sent it, on the sender's clock.
    pub clock: Duration,
}

struct State {
    slots: HashMap<Key, Slot>,
    mailboxes: HashMap<Mail, Delivered>,
    /// What each thread of this rank's devices waits for, by device and
    /// thread (`true`: its async stream).
    waiting: HashMap<(usize, bool), Wait>,
    /// Why a waiting thread can never move, once a wait that closed a
    /// cycle through it found out (by device and thread).
    stuck: HashMap<(usize, bool), String>,
    /// How many devices have finished: a waiter looks again at whom it
    /// waits for when this changes.
    finished: u64,
    /// Why the run stopped, once a device has failed.
    aborted: Option<String>,
}

/// The rendezvous point of every collective of a run.
pub struct Fabric {
    state: Mutex<State>,
    changed: Condvar,
    timeout: Duration,
    grid: super::groups::Grid,
    /// The other ranks, when the grid spans several.
    remote: Option<Arc<dyn Remote>>,
    /// What each of this rank's devices is doing, and when anything last
    /// moved: it decides when a wait gives up.
    progress: Arc<Progress>,
}

impl Fabric {
    /// A fabric for `grid` whose rendezvous give up once every device has
    /// been blocked, with nothing moving, for `timeout`.
    pub fn new(timeout: Duration, grid: super::groups::Grid) -> Fabric {
        Fabric::with_remote(timeout, grid, None)
    }

    /// A fabric for this rank's devices of `grid`, which reaches the other
    /// ranks' devices through `remote`. Its timeout is at least
    /// [`SHORTEST_TIMEOUT_ACROSS_RANKS`](super::progress::SHORTEST_TIMEOUT_ACROSS_RANKS).
    pub fn spanning_ranks(
        timeout: Duration,
        grid: super::groups::Grid,
        remote: Arc<dyn Remote>,
    ) -> Fabric {
        Fabric::with_remote(timeout, grid, Some(remote))
    }

    fn with_remote(
        timeout: Duration,
        grid: super::groups::Grid,
        remote: Option<Arc<dyn Remote>>,
    ) -> Fabric {
        let progress = match &remote {
            None => Progress::new(grid.len(), |_| true, timeout),
            Some(remote) => Progress::new(
                grid.len(),
                |id| remote.is_local(id),
                timeout.max(super::progress::SHORTEST_TIMEOUT_ACROSS_RANKS),
            ),
        };
        Fabric {
            state: Mutex::new(State {
                slots: HashMap::new(),
                mailboxes: HashMap::new(),
                waiting: HashMap::new(),
                stuck: HashMap::new(),
                finished: 0,
                aborted: None,
            }),
            changed: Condvar::new(),
            timeout,
            grid,
            remote,
            progress: Arc::new(progress),
        }
    }

    /// The run's progress tracker, which the mailbox and the device threads
    /// share.
    pub fn progress(&self) -> &Arc<Progress> {
        &self.progress
    }

    /// Whether device `device` (a flattened id) runs on this rank.
    fn is_local(&self, device: usize) -> bool {
        self.remote
            .as_ref()
            .is_none_or(|remote| remote.is_local(device))
    }

    /// The run's timeout as given: how long nothing may move, with every
    /// device blocked, before a wait gives up (across ranks the tracker's
    /// may be longer, [`Progress::timeout`]).
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Every device's state: computing, where it waits, or finished; for a
    /// device on another rank, which rank.
    fn report(&self) -> String {
        (0..self.grid.len())
            .map(|id| {
                let device = self.grid.device(id);
                let doing = match (&self.remote, self.progress.describe(id)) {
                    (Some(remote), _) if !remote.is_local(id) => format!(
                        "{ON_ANOTHER_RANK} {} (its state is in that rank's report)",
                        remote.placement().rank_of(id)
                    ),
                    (_, Some(doing)) => doing,
                    (_, None) => "is not known to this process".to_string(),
                };
                format!(
                    "  device {id} (replica {}, partition {}) {doing}",
                    device.replica, device.partition
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every device's state now, as a timeout reports it.
    pub(crate) fn device_states(&self) -> String {
        self.report()
    }

    /// The words of a stalled wait: how long nothing moved.
    fn stalled(&self) -> String {
        self.progress.stall_words()
    }

    /// Deposits `contribution` as member `position` of the instance `key`'s
    /// group, arriving at `arrival` on its clock with `signature`, and
    /// returns every member's contribution and arrival in group order, once
    /// all have arrived, with the group's shared result slot.
    pub fn exchange(
        &self,
        key: Key,
        position: usize,
        contribution: Value,
        arrival: Duration,
        signature: Signature,
    ) -> Result<Exchanged, String> {
        let members = key.members.len();
        let me = key.members[position];
        // Members on this rank: they alone read the slot and share its fold.
        let (fold_member, fold_members) = match &self.remote {
            None => (position, members),
            Some(remote) => {
                let ids = &key.members;
                if ids.iter().any(|&id| !remote.is_local(id)) {
                    // Sent before taking the lock: encoding a large
                    // contribution must not hold up the other devices.
                    remote.contribute(&key, position, &contribution, arrival, &signature)?;
                }
                let local = |id: &&usize| remote.is_local(**id);
                (
                    ids[..position].iter().filter(local).count(),
                    ids.iter().filter(local).count(),
                )
            }
        };
        let mut state = self
            .state
            .lock()
            .map_err(|_| "the fabric's lock was poisoned".to_string())?;
        let slot = state
            .slots
            .entry(key.clone())
            .or_insert_with(|| Slot::new(members, fold_members));
        if slot.contributions.len() != members || slot.contributions[position].is_some() {
            return Err(format!(
                "devices disagree about this collective ({}): group sizes or positions differ",
                key.describe()
            ));
        }
        if let Err(trouble) = check_agreement(slot, me, &signature, &contribution, &key) {
            // The members already here fail with the same words.
            slot.trouble = Some(trouble.clone());
            self.wake_group(&state, &key);
            self.changed.notify_all();
            return Err(trouble);
        }
        slot.contributions[position] = Some(Arc::new(contribution));
        slot.arrivals[position] = arrival;
        if slot.contributions.iter().all(Option::is_some) {
            self.wake_group(&state, &key);
        }
        let lane = (me, key.on_stream);
        state.waiting.insert(
            lane,
            Wait::Group {
                key: key.clone(),
                at: signature.at.clone(),
            },
        );
        let what = format!("{} ({})", signature.at, key.describe());
        self.find_deadlock(&mut state, lane);
        self.changed.notify_all();
        let mut finished_seen = None;
        let mut marked_waiting = false;
        loop {
            let slot = state
                .slots
                .get(&key)
                .expect("the slot lives until every member read it");
            // Why this instance cannot complete comes before the stop it
            // causes: every member says it, and the run reports the root
            // cause the same way whichever member found it.
            if let Some(trouble) = slot.trouble.as_ref().or(state.stuck.get(&lane)) {
                return Err(trouble.clone());
            }
            // A member that finished will never come (looked at again only
            // when another device finishes).
            if finished_seen != Some(state.finished) {
                finished_seen = Some(state.finished);
                if let Some(&gone) = missing_members(slot, &key)
                    .iter()
                    .find(|&&id| self.is_local(id) && self.progress.finished_cleanly(id))
                {
                    return Err(format!(
                        "device {gone} finished its program without reaching this collective ({}); the devices disagree about which collectives run",
                        key.describe()
                    ));
                }
            }
            if let Some(reason) = &state.aborted {
                return Err(format!("stopped because {reason}"));
            }
            let slot = state
                .slots
                .get_mut(&key)
                .expect("the slot lives until every member read it");
            if slot.contributions.iter().all(Option::is_some) {
                let exchanged = Exchanged {
                    contributions: slot
                        .contributions
                        .iter()
                        .map(|c| c.clone().expect("present"))
                        .collect(),
                    arrivals: slot.arrivals.clone(),
                    group_result: slot.group_result.clone(),
                    shared_fold: slot.shared_fold.clone(),
                    fold_member,
                    fold_members,
                };
                slot.readers_left -= 1;
                if slot.readers_left == 0 {
                    state.slots.remove(&key);
                }
                state.waiting.remove(&lane);
                self.progress.wait_ends(me, Waited::Collective);
                return Ok(exchanged);
            }
            // Marked only now, under the lock, having seen the group is
            // not all here: a waiting thread's wait is never satisfied
            // (see `progress`).
            if !marked_waiting {
                self.progress.wait_begins(me, what.clone());
                marked_waiting = true;
            }
            let wait = match self.progress.patience() {
                Patience::Wait(wait) => wait,
                Patience::DeadlinePassed(deadline) => return Err(deadline_stop(deadline)),
                Patience::Stalled => {
                    let missing: Vec<String> = missing_members(slot, &key)
                        .iter()
                        .map(usize::to_string)
                        .collect();
                    // The device stays waiting in the tracker: every report
                    // of this deadlock shows the same state, whichever
                    // device gives up first.
                    return Err(format!(
                        "{}, and device(s) {} of its group never came ({}); a deadlock or a collective the devices do not agree on.{}\n{}",
                        self.stalled(),
                        missing.join(", "),
                        key.describe(),
                        super::EVERY_DEVICE,
                        self.report()
                    ));
                }
            };
            state = self
                .changed
                .wait_timeout(state, wait)
                .map_err(|_| "the fabric's lock was poisoned".to_string())?
                .0;
        }
    }

    /// The devices the thread `lane` (device, stream or not) of a device
    /// here still waits for: the missing members of its group, or the
    /// sender of its permute's data until the data is in (the thread may
    /// not have woken up to take it yet).
    fn awaited(state: &State, lane: (usize, bool)) -> Vec<usize> {
        match state.waiting.get(&lane) {
            Some(Wait::Group { key, .. }) => state
                .slots
                .get(key)
                .map(|slot| missing_members(slot, key))
                .unwrap_or_default(),
            Some(Wait::Data { key, source, .. }) => {
                let mail = Mail {
                    key: key.clone(),
                    source: *source,
                    target: lane.0,
                };
                if state.mailboxes.contains_key(&mail) {
                    Vec::new()
                } else {
                    vec![*source]
                }
            }
            None => Vec::new(),
        }
    }

    /// Looks for a cycle of waits through the thread `lane`, which has just
    /// begun to wait: each thread on it waits for the next device's thread
    /// of the same kind, which waits in turn and can only move once its own
    /// wait ends. Such a cycle is a certain deadlock (every wait needs all
    /// it waits for), and every thread on it is told so in the same words.
    /// Only this rank's threads are seen, and only waits in the fabric: a
    /// cycle through a recv is found by the tracker (every device blocked),
    /// one through another rank by the timeout.
    fn find_deadlock(&self, state: &mut State, lane: (usize, bool)) {
        // Only one wait at one place cannot close a cycle: the common case
        // costs nothing.
        if state.slots.len() < 2
            && !state
                .waiting
                .values()
                .any(|wait| matches!(wait, Wait::Data { .. }))
        {
            return;
        }
        let (me, stream) = lane;
        let mut path = vec![me];
        let mut choices = vec![Fabric::awaited(state, lane)];
        let mut seen = std::collections::HashSet::from([me]);
        let cycle = loop {
            let Some(options) = choices.last_mut() else {
                return;
            };
            match options.pop() {
                None => {
                    choices.pop();
                    path.pop();
                }
                Some(next) if next == me => break path,
                Some(next) if seen.insert(next) => {
                    path.push(next);
                    choices.push(Fabric::awaited(state, (next, stream)));
                }
                Some(_) => {}
            }
        };
        // From the smallest device, so the words do not depend on which
        // thread closed the cycle.
        let start = (0..cycle.len())
            .min_by_key(|&i| cycle[i])
            .unwrap_or_default();
        let steps: Vec<String> = (0..cycle.len())
            .map(|i| {
                let device = cycle[(start + i) % cycle.len()];
                let next = cycle[(start + i + 1) % cycle.len()];
                let at = state
                    .waiting
                    .get(&(device, stream))
                    .map(Wait::describe)
                    .unwrap_or_default();
                format!("device {device} waits at {at} for device {next}")
            })
            .collect();
        let (last, rest) = steps.split_last().expect("a cycle has a step");
        let trouble = format!(
            "a deadlock: {}, and {last}; the devices disagree about the groups or the order of their collectives",
            rest.join(", ")
        );
        for device in cycle {
            state.stuck.insert((device, stream), trouble.clone());
            // It will move now, to fail.
            self.progress.woken(device, lane_of((device, stream)));
        }
    }

    /// Marks every thread here waiting at the instance `key` busy: its
    /// group is complete, or it can never be.
    fn wake_group(&self, state: &State, key: &Key) {
        for (&lane, wait) in &state.waiting {
            if matches!(wait, Wait::Group { key: waited, .. } if waited == key) {
                self.progress.woken(lane.0, lane_of(lane));
            }
        }
    }

    /// Deposits `contribution`, sent by another rank, as member `position`
    /// of the instance `key`'s group, arriving at `arrival` on its clock
    /// with `signature`: the local members' rendezvous completes once it
    /// and theirs are in.
    pub fn deposit_remote(
        &self,
        key: Key,
        position: usize,
        contribution: Value,
        arrival: Duration,
        signature: Signature,
    ) -> Result<(), String> {
        let members = key.members.len();
        let local_members = key.members.iter().filter(|&&id| self.is_local(id)).count();
        let mut state = self
            .state
            .lock()
            .map_err(|_| "the fabric's lock was poisoned".to_string())?;
        if state.aborted.is_some() {
            return Ok(());
        }
        let slot = state
            .slots
            .entry(key.clone())
            .or_insert_with(|| Slot::new(members, local_members));
        let source = key.members.get(position).copied().unwrap_or(usize::MAX);
        if slot.contributions.len() != members
            || slot.contributions.get(position).is_none_or(Option::is_some)
        {
            return Err(format!(
                "device {source} and this rank's devices disagree about a collective ({}): group sizes or positions differ",
                key.describe()
            ));
        }
        if let Err(trouble) = check_agreement(slot, source, &signature, &contribution, &key) {
            slot.trouble = Some(trouble.clone());
            self.wake_group(&state, &key);
            self.changed.notify_all();
            return Err(trouble);
        }
        slot.contributions[position] = Some(Arc::new(contribution));
        slot.arrivals[position] = arrival;
        if slot.contributions.iter().all(Option::is_some) {
            self.wake_group(&state, &key);
        }
        self.progress.delivered();
        self.changed.notify_all();
        Ok(())
    }

    /// Leaves `value` for device `target` as the message of `source` in the
    /// instance `key`, sent at `clock` on the source's clock (sending it to
    /// the target's rank when that is another one); does not wait.
    pub fn deliver(
        &self,
        key: Key,
        source: usize,
        target: usize,
        value: Arc<Value>,
        clock: Duration,
    ) -> Result<(), String> {
        match &self.remote {
            Some(remote) if !remote.is_local(target) => {
                remote.deliver(&key, source, target, &value, clock)
            }
            _ => {
                self.leave_for_target(key, source, target, value, clock);
                Ok(())
            }
        }
    }

    /// Leaves `value` in this rank's mailbox of `target` (a local device)
    /// as the message of `source` in the instance `key`, sent at `clock` on
    /// the source's clock.
    pub fn leave_for_target(
        &self,
        key: Key,
        source: usize,
        target: usize,
        value: Arc<Value>,
        clock: Duration,
    ) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let mail = Mail {
            key,
            source,
            target,
        };
        let lane = (target, mail.key.on_stream);
        if matches!(state.waiting.get(&lane), Some(Wait::Data { key, source: from, .. }) if *key == mail.key && *from == source)
        {
            self.progress.woken(target, lane_of(lane));
        }
        state.mailboxes.insert(
            mail,
            Delivered {
                value,
                sent: Instant::now(),
                clock,
            },
        );
        self.progress.delivered();
        self.changed.notify_all();
    }

    /// Waits for the message of device `source` to device `target` in the
    /// instance `key`, and takes it. `what` names the instruction in errors.
    pub fn collect(
        &self,
        key: Key,
        source: usize,
        target: usize,
        what: &str,
    ) -> Result<Delivered, String> {
        let mut state = self
            .state
            .lock()
            .map_err(|_| "the fabric's lock was poisoned".to_string())?;
        let waiting_for = format!(
            "{what} ({}) for the data of device {source}",
            key.describe()
        );
        let lane = (target, key.on_stream);
        let mail = Mail {
            key,
            source,
            target,
        };
        if !state.mailboxes.contains_key(&mail) {
            // Marked under the lock, having seen the data is not in.
            self.progress.wait_begins(target, waiting_for);
            state.waiting.insert(
                lane,
                Wait::Data {
                    key: mail.key.clone(),
                    source,
                    at: what.to_string(),
                },
            );
            self.find_deadlock(&mut state, lane);
        }
        let mut finished_seen = None;
        loop {
            if let Some(trouble) = state.stuck.get(&lane) {
                return Err(trouble.clone());
            }
            if let Some(reason) = &state.aborted {
                return Err(format!("stopped because {reason}"));
            }
            if let Some(delivered) = state.mailboxes.remove(&mail) {
                state.waiting.remove(&lane);
                self.progress.wait_ends(target, Waited::Collective);
                return Ok(delivered);
            }
            if finished_seen != Some(state.finished) {
                finished_seen = Some(state.finished);
                if self.is_local(source) && self.progress.finished_cleanly(source) {
                    return Err(format!(
                        "device {source} finished its program without sending its data to this collective-permute ({}); the devices disagree about which collectives run",
                        mail.key.describe()
                    ));
                }
            }
            let wait = match self.progress.patience() {
                Patience::Wait(wait) => wait,
                Patience::DeadlinePassed(deadline) => return Err(deadline_stop(deadline)),
                Patience::Stalled => {
                    return Err(format!(
                        "{}, and the data of device {source} never came ({}); a deadlock or a collective the devices do not agree on.{}\n{}",
                        self.stalled(),
                        mail.key.describe(),
                        super::EVERY_DEVICE,
                        self.report()
                    ));
                }
            };
            state = self
                .changed
                .wait_timeout(state, wait)
                .map_err(|_| "the fabric's lock was poisoned".to_string())?
                .0;
        }
    }

    /// Whether the run was stopped (a device failed).
    pub fn is_stopped(&self) -> bool {
        self.state
            .lock()
            .map_or(true, |state| state.aborted.is_some())
    }

    /// Device `device` (of this rank) is done: its program ended (`failed`:
    /// with an error). Wakes every waiter, for whom a member that finished
    /// is a member that will never come.
    pub(crate) fn finish(&self, device: usize, failed: bool) {
        // Counted under the lock, so no waiter misses it between looking at
        // the tracker and going to sleep. The waiters it strands are woken
        // (to fail) before the device counts as finished, so the tracker
        // never sees every device blocked on its account and the waiters
        // give the precise reason.
        if let Ok(mut state) = self.state.lock() {
            state.finished += 1;
            if !failed {
                let stranded: Vec<(usize, bool)> = state
                    .waiting
                    .keys()
                    .copied()
                    .filter(|&lane| Fabric::awaited(&state, lane).contains(&device))
                    .collect();
                for lane in stranded {
                    self.progress.woken(lane.0, lane_of(lane));
                }
            }
            self.progress.finish(device, failed);
        } else {
            self.progress.finish(device, failed);
        }
        self.changed.notify_all();
    }

    /// Stops the run here and on every other rank: a device here failed
    /// with `reason`.
    pub(crate) fn abort_everywhere(&self, reason: String) {
        if let Some(remote) = &self.remote {
            remote.abort(&reason);
        }
        self.abort(reason);
    }

    /// Stops every rendezvous: a device failed with `reason`.
    pub fn abort(&self, reason: String) {
        self.progress.freeze();
        if let Ok(mut state) = self.state.lock() {
            state.aborted.get_or_insert(reason);
        }
        self.changed.notify_all();
    }
}

/// The members of `key`'s group whose contribution to `slot` is missing.
/// The tracker's lane of a fabric's (device, on its stream) waiter.
fn lane_of((_, on_stream): (usize, bool)) -> Lane {
    if on_stream {
        Lane::Stream
    } else {
        Lane::Compute
    }
}

fn missing_members(slot: &Slot, key: &Key) -> Vec<usize> {
    slot.contributions
        .iter()
        .zip(&key.members)
        .filter(|(c, _)| c.is_none())
        .map(|(_, &id)| id)
        .collect()
}

/// Fails unless device `device`, coming to `slot` with `signature` and
/// `contribution`, agrees with the first member to come; else makes it the
/// first.
fn check_agreement(
    slot: &mut Slot,
    device: usize,
    signature: &Signature,
    contribution: &Value,
    key: &Key,
) -> Result<(), String> {
    let Some((first, theirs)) = &slot.first else {
        slot.first = Some((device, signature.clone()));
        return Ok(());
    };
    let empty = Value::Tuple(Vec::new());
    let their_operands = key
        .members
        .iter()
        .position(|&m| m == *first)
        .and_then(|p| slot.contributions[p].as_deref())
        .unwrap_or(&empty);
    if theirs.agrees(signature) && their_operands.describe() == contribution.describe() {
        return Ok(());
    }
    // Each side in device order, so the words do not depend on who came
    // first.
    let mut sides = [
        (*first, &theirs.at, theirs.describe(their_operands)),
        (device, &signature.at, signature.describe(contribution)),
    ];
    sides.sort_by_key(|side| side.0);
    let [(a, a_at, a_what), (b, b_at, b_what)] = sides;
    Err(format!(
        "the devices disagree about this collective ({}): device {a} came to {a_at} with {a_what}, device {b} to {b_at} with {b_what}",
        key.describe(),
    ))
}

/// A group in words: `{0,1,2}`.
fn group_words(members: &[usize]) -> String {
    let ids: Vec<String> = members.iter().map(usize::to_string).collect();
    format!("{{{}}}", ids.join(","))
}

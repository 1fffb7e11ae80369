//! The in-process interconnect: devices are threads, and a collective is a
//! rendezvous where every member of a group deposits its contribution and
//! reads everyone's.
//!
//! Each collective *instance* has its own rendezvous: the key is the
//! instruction, how many times this device has run it before (a collective
//! in a loop body is a new instance each iteration), and the group. JAX gives
//! every collective `channel_id=1`, so channels cannot tell instances apart;
//! two collectives in flight at once never share a slot.
//!
//! A collective-permute does not meet its whole group: each source leaves
//! its data in a mailbox for its target ([`Fabric::deliver`]) and each
//! target waits only for its own source ([`Fabric::collect`]), so a ring of
//! permutes couples neighbours, not every device, as on a real fabric.
//!
//! Faults are outcomes: when every unfinished device waits and nothing has
//! moved for the timeout ([`super::progress`]), the wait ends with an error
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

use super::groups::DeviceId;
use super::progress::{Patience, Progress, Waited, deadline_stop};
use super::remote::{ON_ANOTHER_RANK, Remote};
use crate::tensor::Value;

/// One collective instance.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The instruction (its index in the module).
    pub instr: usize,
    /// How many times each member has run it before.
    pub occurrence: u64,
    /// Which group of the instruction (its index in the group list).
    pub group: usize,
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
            contributions: vec![None; members],
            arrivals: vec![Duration::ZERO; members],
            group_result: GroupResult::default(),
            shared_fold: SharedFoldSlot::default(),
            readers_left: local_members,
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

    /// Records that `device` waits at `what` outside a rendezvous (a
    /// recv-done), so the tracker counts it blocked and a report shows it.
    pub(crate) fn note_waiting(&self, device: usize, what: String) {
        self.progress.wait_begins(device, what);
    }

    /// `device` received what it waited for (see [`Fabric::note_waiting`]).
    pub(crate) fn done_waiting(&self, device: usize) {
        self.progress.wait_ends(device, Waited::Message);
    }

    /// Every device's state now, as a timeout reports it.
    pub(crate) fn device_states(&self) -> String {
        self.report()
    }

    /// The words of a stalled wait: how long nothing moved.
    fn stalled(&self) -> String {
        format!(
            "every unfinished device waits and none has moved for {:.1} s",
            self.progress.timeout().as_secs_f64()
        )
    }

    /// Deposits `contribution` as member `position` of `group` in the
    /// instance `key`, arriving at `arrival` on its clock, and returns every
    /// member's contribution and arrival in group order, once all have
    /// arrived, with the group's shared result slot. `what` names the
    /// instruction in errors.
    pub fn exchange(
        &self,
        key: Key,
        group: &[DeviceId],
        position: usize,
        contribution: Value,
        arrival: Duration,
        what: &str,
    ) -> Result<Exchanged, String> {
        let me = self.grid.id(group[position]);
        // Members on this rank: they alone read the slot and share its fold.
        let (fold_member, fold_members) = match &self.remote {
            None => (position, group.len()),
            Some(remote) => {
                let ids: Vec<usize> = group.iter().map(|&d| self.grid.id(d)).collect();
                if ids.iter().any(|&id| !remote.is_local(id)) {
                    // Sent before taking the lock: encoding a large
                    // contribution must not hold up the other devices.
                    remote.contribute(&key, &ids, position, &contribution, arrival)?;
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
        self.progress
            .wait_begins(me, format!("{what} (instance {})", key.occurrence));
        let slot = state
            .slots
            .entry(key.clone())
            .or_insert_with(|| Slot::new(group.len(), fold_members));
        if slot.contributions.len() != group.len() || slot.contributions[position].is_some() {
            return Err(format!(
                "devices disagree about instance {} of this collective (group sizes or positions differ)",
                key.occurrence
            ));
        }
        slot.contributions[position] = Some(Arc::new(contribution));
        slot.arrivals[position] = arrival;
        self.changed.notify_all();
        loop {
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
                self.progress.wait_ends(me, Waited::Collective);
                return Ok(exchanged);
            }
            let wait = match self.progress.patience() {
                Patience::Wait(wait) => wait,
                Patience::DeadlinePassed(deadline) => return Err(deadline_stop(deadline)),
                Patience::Stalled => {
                    let missing: Vec<String> = slot
                        .contributions
                        .iter()
                        .zip(group)
                        .filter(|(c, _)| c.is_none())
                        .map(|(_, d)| self.grid.id(*d).to_string())
                        .collect();
                    // The device stays waiting in the tracker: every report
                    // of this deadlock shows the same state, whichever
                    // device gives up first.
                    return Err(format!(
                        "{}, and device(s) {} of its group never came (instance {}); a deadlock or a collective the devices do not agree on.{}\n{}",
                        self.stalled(),
                        missing.join(", "),
                        key.occurrence,
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

    /// Deposits `contribution`, sent by another rank, as member `position`
    /// of `group` (flattened ids) in the instance `key`, arriving at
    /// `arrival` on its clock: the local members' rendezvous completes once
    /// it and theirs are in.
    pub fn deposit_remote(
        &self,
        key: Key,
        group: &[usize],
        position: usize,
        contribution: Value,
        arrival: Duration,
    ) -> Result<(), String> {
        let local_members = group.iter().filter(|&&id| self.is_local(id)).count();
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
            .or_insert_with(|| Slot::new(group.len(), local_members));
        let source = group.get(position).copied().unwrap_or(usize::MAX);
        if slot.contributions.len() != group.len()
            || slot.contributions.get(position).is_none_or(Option::is_some)
        {
            return Err(format!(
                "device {source} and this rank's devices disagree about instance {} of instruction {} (group sizes or positions differ)",
                key.occurrence, key.instr
            ));
        }
        slot.contributions[position] = Some(Arc::new(contribution));
        slot.arrivals[position] = arrival;
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
        self.progress.wait_begins(
            target,
            format!(
                "{what} (instance {}) for the data of device {source}",
                key.occurrence
            ),
        );
        let mail = Mail {
            key,
            source,
            target,
        };
        loop {
            if let Some(reason) = &state.aborted {
                return Err(format!("stopped because {reason}"));
            }
            if let Some(delivered) = state.mailboxes.remove(&mail) {
                self.progress.wait_ends(target, Waited::Collective);
                return Ok(delivered);
            }
            let wait = match self.progress.patience() {
                Patience::Wait(wait) => wait,
                Patience::DeadlinePassed(deadline) => return Err(deadline_stop(deadline)),
                Patience::Stalled => {
                    return Err(format!(
                        "{}, and the data of device {source} never came (instance {}); a deadlock or a collective the devices do not agree on.{}\n{}",
                        self.stalled(),
                        mail.key.occurrence,
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

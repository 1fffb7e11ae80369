//! Point-to-point transfers between the devices of a grid: the mailbox that
//! pairs each HLO `send` with a `recv`.
//!
//! Data travels on a [`Route`]: a whole channel, where any device's recv
//! takes the channel's next send whoever sent it (the StableHLO
//! interpreter's channels, `interpreter.run_parallel`), or one source →
//! target pair of a channel (XLA's `_xla_send_recv_source_target_pairs`, as
//! its SPMD pipelines write them).
//!
//! Invariants:
//! - Per route, messages are received in the order they were sent: the k-th
//!   receive *posted* on a route takes the k-th send on it, whichever device
//!   posts it and whenever it redeems it.
//! - A send never waits: it deposits its data and goes on (the mailbox has
//!   room for everything sent), so no order of sends and recvs deadlocks on
//!   the mailbox itself. Only redeeming a receive waits: until its message
//!   comes, or until the run's [`Progress`] tracker says the wait is
//!   hopeless (every device blocked and nothing moving for the timeout, or
//!   the deadline passed), when it fails naming its route and message. The
//!   recv-done that redeems it tells the tracker it waits; every message
//!   that arrives is a move.
//! - A receive is posted by `recv` and redeemed by `recv-done`; the
//!   [`Ticket`] between them travels in the recv's `u32[]` context element,
//!   so the pair may sit in different computations (a pipelined loop), as
//!   XLA's do.
//! - An aborted run wakes every waiting receive with `stopped because …`,
//!   the fabric's wording, so the run reports the root cause.
//! - When the grid spans ranks ([`super::remote`]), a send on a pair route
//!   whose target runs on another rank goes to that rank's mailbox, where it
//!   arrives ([`Mailbox::arrived`]) in the order it was sent; a
//!   whole-channel route is an error there, as its pairing of sends and
//!   receives has no meaning across processes.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::progress::{Lane, Patience, Progress, Waited, current_lane, deadline_stop};
use super::remote::{Remote, WHOLE_CHANNEL_ACROSS_RANKS};
use crate::tensor::Value;

/// Where a message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Route {
    /// Every send on the channel, to whichever device receives on it.
    Channel(i64),
    /// From one device to another on a channel (flattened device ids).
    Pair {
        /// The channel.
        channel: i64,
        /// The sending device.
        source: usize,
        /// The receiving device.
        target: usize,
    },
}

impl std::fmt::Display for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Route::Channel(channel) => write!(f, "channel {channel}"),
            Route::Pair {
                channel,
                source,
                target,
            } => write!(
                f,
                "channel {channel} from device {source} to device {target}"
            ),
        }
    }
}

/// A posted receive: which message of which route it takes. Its number is
/// what a recv's `u32[]` context holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket(pub u32);

/// The messages of one route.
#[derive(Default)]
struct Queue {
    /// How many messages were sent on the route: the next send's index.
    sent: u64,
    /// How many receives were posted on the route: the next one's index.
    posted: u64,
    /// Messages sent and not received yet, by index.
    waiting: BTreeMap<u64, Message>,
}

/// A message on a route, with when it was sent (the link model counts its
/// transfer from then).
#[derive(Debug)]
pub struct Message {
    /// What was sent.
    pub data: Value,
    /// When it reached this process's mailbox.
    pub sent: Instant,
    /// When the sender sent it, on the sender's clock.
    pub clock: Duration,
}

struct State {
    queues: HashMap<Route, Queue>,
    /// Each posted, unredeemed receive: its route and message index.
    tickets: HashMap<Ticket, (Route, u64)>,
    next_ticket: u32,
    /// Each message a thread here waits for (route, index): the thread's
    /// device and lane, to mark busy when the message comes.
    receivers: HashMap<(Route, u64), (usize, Lane)>,
    /// Why the run stopped, once a device has failed.
    aborted: Option<String>,
}

/// The mailbox of a run's sends and recvs.
pub struct Mailbox {
    state: Mutex<State>,
    arrived: Condvar,
    /// The run's tracker (the fabric's): it decides when a receive gives
    /// up.
    progress: Arc<Progress>,
    /// The other ranks, when the grid spans several.
    remote: Option<Arc<dyn Remote>>,
}

impl Mailbox {
    /// A mailbox whose receives give up when `progress` says so.
    pub fn new(progress: Arc<Progress>) -> Mailbox {
        Mailbox::with_remote(progress, None)
    }

    /// A mailbox for this rank's devices, which sends to the other ranks'
    /// devices through `remote`.
    pub fn spanning_ranks(progress: Arc<Progress>, remote: Arc<dyn Remote>) -> Mailbox {
        Mailbox::with_remote(progress, Some(remote))
    }

    fn with_remote(progress: Arc<Progress>, remote: Option<Arc<dyn Remote>>) -> Mailbox {
        Mailbox {
            state: Mutex::new(State {
                queues: HashMap::new(),
                tickets: HashMap::new(),
                next_ticket: 0,
                receivers: HashMap::new(),
                aborted: None,
            }),
            arrived: Condvar::new(),
            progress,
            remote,
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, State>, String> {
        self.state
            .lock()
            .map_err(|_| "the mailbox's lock was poisoned".to_string())
    }

    /// Deposits `data`, sent at `clock` on the sender's clock, as the next
    /// message on `route` (on the target's rank when that is another one).
    pub fn send(&self, route: Route, data: Value, clock: Duration) -> Result<(), String> {
        if let Some(remote) = &self.remote {
            match route {
                Route::Channel(_) => return Err(WHOLE_CHANNEL_ACROSS_RANKS.into()),
                Route::Pair { target, .. } if !remote.is_local(target) => {
                    return remote.mail(route, &data, clock);
                }
                Route::Pair { .. } => {}
            }
        }
        self.arrived(route, data, clock)
    }

    /// Deposits `data`, sent on `route` by this rank or another at `clock`
    /// on the sender's clock, as the route's next message here.
    pub fn arrived(&self, route: Route, data: Value, clock: Duration) -> Result<(), String> {
        let mut state = self.lock()?;
        let queue = state.queues.entry(route).or_default();
        let index = queue.sent;
        queue.sent += 1;
        if let Some((device, lane)) = state.receivers.remove(&(route, index)) {
            self.progress.woken(device, lane);
        }
        let queue = state.queues.entry(route).or_default();
        queue.waiting.insert(
            index,
            Message {
                data,
                sent: Instant::now(),
                clock,
            },
        );
        self.progress.delivered();
        self.arrived.notify_all();
        Ok(())
    }

    /// Posts a receive of the next message on `route` not yet claimed.
    pub fn post_receive(&self, route: Route) -> Result<Ticket, String> {
        if self.remote.is_some() && matches!(route, Route::Channel(_)) {
            return Err(WHOLE_CHANNEL_ACROSS_RANKS.into());
        }
        let mut state = self.lock()?;
        let queue = state.queues.entry(route).or_default();
        let index = queue.posted;
        queue.posted += 1;
        let ticket = Ticket(state.next_ticket);
        // Wrapping would need four billion receives in flight at once.
        state.next_ticket = state.next_ticket.wrapping_add(1);
        state.tickets.insert(ticket, (route, index));
        Ok(ticket)
    }

    /// The device that sends what `ticket` waits for, when its route names
    /// one.
    pub fn source_of(&self, ticket: Ticket) -> Option<usize> {
        let state = self.lock().ok()?;
        match state.tickets.get(&ticket)? {
            (Route::Pair { source, .. }, _) => Some(*source),
            _ => None,
        }
    }

    /// The message `ticket` claims, once it has been sent, for device
    /// `device` (a flattened id) waiting at `what`.
    pub fn receive(&self, ticket: Ticket, device: usize, what: &str) -> Result<Message, String> {
        let mut state = self.lock()?;
        let mut marked_waiting = false;
        let Some(&(route, index)) = state.tickets.get(&ticket) else {
            return Err(format!(
                "receive {} was never posted or was already redeemed (each recv's context is redeemed by one recv-done)",
                ticket.0
            ));
        };
        loop {
            if let Some(reason) = &state.aborted {
                return Err(format!("stopped because {reason}"));
            }
            let queue = state.queues.entry(route).or_default();
            if let Some(data) = queue.waiting.remove(&index) {
                state.tickets.remove(&ticket);
                self.progress.wait_ends(device, Waited::Message);
                return Ok(data);
            }
            let sent = queue.sent;
            // Marked only now, under the lock, having seen the message is
            // not in: a waiting thread's wait is never satisfied (see
            // `progress`).
            if !marked_waiting {
                let what = format!("{what} for message {} on {route}", index + 1);
                self.progress.wait_begins(device, what);
                state
                    .receivers
                    .insert((route, index), (device, current_lane(device)));
                marked_waiting = true;
            }
            let wait = match self.progress.patience() {
                Patience::Wait(wait) => wait,
                Patience::DeadlinePassed(deadline) => return Err(deadline_stop(deadline)),
                Patience::Stalled => {
                    return Err(format!(
                        "{}, and message {} on {route} never came ({sent} had been sent there): no device sent it (a missing send, a send on another channel or pair, or a deadlock)",
                        self.progress.stall_words(),
                        index + 1,
                    ));
                }
            };
            state = self
                .arrived
                .wait_timeout(state, wait)
                .map_err(|_| "the mailbox's lock was poisoned".to_string())?
                .0;
        }
    }

    /// Wakes every waiting receive: a device failed with `reason`.
    pub fn abort(&self, reason: String) {
        if let Ok(mut state) = self.state.lock() {
            state.aborted.get_or_insert(reason);
        }
        self.arrived.notify_all();
    }
}

/// `{{0,1},{1,2}}` — the pairs of `_xla_send_recv_source_target_pairs`.
pub fn parse_source_target_pairs(text: &str) -> Option<Vec<(i64, i64)>> {
    let inner = text.trim().strip_prefix('{')?.strip_suffix('}')?.trim();
    let mut pairs = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let open = rest.strip_prefix('{')?;
        let close = open.find('}')?;
        let mut numbers = open[..close].split(',').map(|n| n.trim().parse::<i64>());
        let (Some(Ok(source)), Some(Ok(target)), None) =
            (numbers.next(), numbers.next(), numbers.next())
        else {
            return None;
        };
        pairs.push((source, target));
        rest = open[close + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    Some(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Tensor;
    use std::time::Duration;

    fn scalar(value: u8) -> Value {
        Value::Tensor(Tensor::new(
            weft_ir::ElementType::U8,
            Vec::new(),
            vec![value],
        ))
    }

    fn byte(value: &Value) -> u8 {
        value.as_tensor().expect("an array").bytes[0]
    }

    /// A mailbox for device 0, which receives, and device 1, which
    /// computes (and may send) until it finishes.
    fn mailbox_of_two() -> (Mailbox, Arc<Progress>) {
        let progress = Arc::new(Progress::new(2, |_| true, Duration::from_secs(30)));
        (Mailbox::new(progress.clone()), progress)
    }

    fn waiting_mailbox() -> Mailbox {
        mailbox_of_two().0
    }

    #[test]
    fn a_route_delivers_in_send_order_to_receives_in_post_order() {
        let mailbox = waiting_mailbox();
        let route = Route::Channel(1);
        let first = mailbox.post_receive(route).unwrap();
        let second = mailbox.post_receive(route).unwrap();
        mailbox.send(route, scalar(10), Duration::ZERO).unwrap();
        mailbox.send(route, scalar(20), Duration::ZERO).unwrap();
        // Redeemed out of order, each still takes its own message.
        assert_eq!(byte(&mailbox.receive(second, 0, "r").unwrap().data), 20);
        assert_eq!(byte(&mailbox.receive(first, 0, "r").unwrap().data), 10);
        assert!(
            mailbox.receive(first, 0, "r").is_err(),
            "a ticket is redeemed once"
        );
    }

    #[test]
    fn routes_are_apart() {
        let (mailbox, progress) = mailbox_of_two();
        let to_one = Route::Pair {
            channel: 1,
            source: 0,
            target: 1,
        };
        let to_two = Route::Pair {
            channel: 1,
            source: 0,
            target: 2,
        };
        mailbox.send(to_two, scalar(2), Duration::ZERO).unwrap();
        let ticket = mailbox.post_receive(to_two).unwrap();
        assert_eq!(byte(&mailbox.receive(ticket, 0, "r").unwrap().data), 2);
        // With the only other device finished, a receive whose message is
        // not in can never end: it fails at once, without a timeout.
        progress.finish(1, false);
        let ticket = mailbox.post_receive(to_one).unwrap();
        let error = mailbox.receive(ticket, 0, "main/%recv-done").unwrap_err();
        assert!(
            error.contains("none can move")
                && error.contains("message 1 on channel 1 from device 0 to device 1"),
            "{error}"
        );
        assert_eq!(
            progress.describe(0).as_deref(),
            Some("waits at main/%recv-done for message 1 on channel 1 from device 0 to device 1")
        );
    }

    #[test]
    fn a_message_marks_its_receiver_busy_before_it_wakes() {
        let (mailbox, progress) = mailbox_of_two();
        let route = Route::Channel(5);
        let ticket = mailbox.post_receive(route).unwrap();
        let receiver = {
            let mailbox = Arc::new(mailbox);
            let waiting = mailbox.clone();
            let handle = std::thread::spawn(move || waiting.receive(ticket, 0, "r"));
            while progress.snapshot().blocked == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            mailbox.send(route, scalar(9), Duration::ZERO).unwrap();
            // Busy at once, whether or not the receiver has woken yet.
            assert_eq!(progress.snapshot().blocked, 0);
            handle
        };
        assert_eq!(byte(&receiver.join().unwrap().unwrap().data), 9);
    }

    #[test]
    fn a_receive_waits_for_a_send_from_another_thread() {
        let mailbox = Arc::new(waiting_mailbox());
        let ticket = mailbox.post_receive(Route::Channel(3)).unwrap();
        let sender = {
            let mailbox = mailbox.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                mailbox
                    .send(Route::Channel(3), scalar(7), Duration::ZERO)
                    .unwrap();
            })
        };
        assert_eq!(byte(&mailbox.receive(ticket, 0, "r").unwrap().data), 7);
        sender.join().unwrap();
    }

    #[test]
    fn an_abort_wakes_a_waiting_receive() {
        let mailbox = Arc::new(waiting_mailbox());
        let ticket = mailbox.post_receive(Route::Channel(1)).unwrap();
        let aborter = {
            let mailbox = mailbox.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                mailbox.abort("device 0 failed".into());
            })
        };
        let error = mailbox.receive(ticket, 0, "r").unwrap_err();
        assert_eq!(error, "stopped because device 0 failed");
        aborter.join().unwrap();
    }

    #[test]
    fn pairs_parse_as_xla_writes_them() {
        assert_eq!(
            parse_source_target_pairs("{{0,1},{1,2}, {3, 0}}"),
            Some(vec![(0, 1), (1, 2), (3, 0)])
        );
        assert_eq!(parse_source_target_pairs("{}"), Some(Vec::new()));
        assert_eq!(parse_source_target_pairs("{{0,1,2}}"), None);
        assert_eq!(parse_source_target_pairs("0,1"), None);
    }
}

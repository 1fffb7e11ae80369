//! Moving opaque byte messages between the processes ("ranks") that share
//! one grid, and which rank hosts which device.
//!
//! A [`Transport`] knows its own rank and how many there are, sends a
//! message to a rank, and hands every message it receives to one
//! [`Handler`]. What the bytes mean is [`super::remote`]'s business.
//!
//! Invariants every transport keeps:
//! - messages from one rank to another arrive in the order they were sent
//!   (the mailbox's per-route order and the protocol rely on it);
//! - [`Transport::send`] never waits for the receiver: it queues the
//!   message and returns, so a device thread is never blocked by another
//!   rank's progress;
//! - the handler runs on the transport's own progress thread, one message
//!   at a time, in arrival order; messages that arrive before a handler is
//!   installed are kept and handed over, in order, when it is.
//!
//! Transports here: [`LoopbackTransport`] (ranks that are threads of one
//! process, connected by channels: the tests' stand-in for separate
//! processes) and, with the `mpi` cargo feature, `mpi::MpiTransport`.

use std::ops::Range;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

#[cfg(feature = "mpi")]
pub mod mpi;

/// What receives a rank's incoming messages: the sender's rank and the
/// bytes.
pub type Handler = Arc<dyn Fn(usize, Vec<u8>) + Send + Sync>;

/// Moves byte messages between ranks.
pub trait Transport: Send + Sync {
    /// This process's rank, `0..ranks()`.
    fn rank(&self) -> usize;

    /// How many ranks share the grid.
    fn ranks(&self) -> usize;

    /// Queues `message` for rank `to_rank` and returns without waiting for
    /// it to arrive.
    fn send(&self, to_rank: usize, message: Vec<u8>) -> Result<(), String>;

    /// Hands every incoming message to `handler` from now on (and those
    /// that arrived before, first).
    fn deliver_to(&self, handler: Handler);

    /// Ends this rank's part in the transport: tells the other ranks it is
    /// finished and waits until all of them are, so no message is lost or
    /// left half sent. Nothing may be sent after it.
    fn shut_down(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Which rank hosts which device: `devices` devices in contiguous blocks of
/// `devices / ranks`, rank 0 the first block. Deterministic, so every rank
/// computes the same placement without talking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    devices: usize,
    ranks: usize,
}

impl Placement {
    /// The placement of `devices` devices on `ranks` ranks; `ranks` must
    /// divide `devices`, so every rank runs the same number of devices.
    pub fn new(devices: usize, ranks: usize) -> Result<Placement, String> {
        if ranks == 0 {
            return Err("a grid needs at least one rank".into());
        }
        if devices == 0 || !devices.is_multiple_of(ranks) {
            return Err(format!(
                "{ranks} ranks cannot share {devices} device(s) evenly: the number of ranks must divide the number of devices (each rank runs a contiguous block of devices)"
            ));
        }
        Ok(Placement { devices, ranks })
    }

    /// How many devices.
    pub fn devices(&self) -> usize {
        self.devices
    }

    /// How many ranks.
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// The rank hosting device `device` (a flattened id).
    pub fn rank_of(&self, device: usize) -> usize {
        device / (self.devices / self.ranks)
    }

    /// The devices rank `rank` hosts.
    pub fn devices_of(&self, rank: usize) -> Range<usize> {
        let block = self.devices / self.ranks;
        rank * block..(rank + 1) * block
    }
}

/// The handler of a transport, or the messages that arrived before it was
/// installed. Shared by the transports here.
#[derive(Default)]
pub struct Delivery {
    state: Mutex<DeliveryState>,
}

#[derive(Default)]
enum DeliveryState {
    /// No handler yet: messages wait, in arrival order.
    #[default]
    Unclaimed,
    /// Messages that arrived before the handler.
    Waiting(Vec<(usize, Vec<u8>)>),
    /// The handler.
    Handler(Handler),
}

impl Delivery {
    /// Installs `handler` and hands it the messages that were waiting.
    pub fn install(&self, handler: Handler) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        // The lock is held while the waiting messages are handed over, so
        // a message arriving meanwhile cannot overtake them.
        if let DeliveryState::Waiting(waiting) = std::mem::take(&mut *state) {
            for (from, message) in waiting {
                handler(from, message);
            }
        }
        *state = DeliveryState::Handler(handler);
    }

    /// Hands `message` from rank `from` to the handler, or keeps it until
    /// there is one.
    pub fn deliver(&self, from: usize, message: Vec<u8>) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        match &mut *state {
            DeliveryState::Handler(handler) => handler(from, message),
            DeliveryState::Waiting(waiting) => waiting.push((from, message)),
            unclaimed @ DeliveryState::Unclaimed => {
                *unclaimed = DeliveryState::Waiting(vec![(from, message)]);
            }
        }
    }
}

/// Ranks that are threads of one process, joined by channels: each rank
/// has an inbox and a progress thread that hands what arrives to its
/// handler. Channels keep each sender's order, as the trait requires.
pub struct LoopbackTransport {
    rank: usize,
    inboxes: Vec<Sender<(usize, Vec<u8>)>>,
    delivery: Arc<Delivery>,
}

impl LoopbackTransport {
    /// `ranks` connected transports, rank `r` at index `r`. Each rank's
    /// progress thread ends when every transport is dropped.
    pub fn network(ranks: usize) -> Vec<Arc<LoopbackTransport>> {
        let (inboxes, receivers): (Vec<_>, Vec<_>) =
            (0..ranks).map(|_| std::sync::mpsc::channel()).unzip();
        receivers
            .into_iter()
            .enumerate()
            .map(|(rank, receiver)| {
                let delivery = Arc::new(Delivery::default());
                let progress = delivery.clone();
                std::thread::Builder::new()
                    .name(format!("rank {rank} progress"))
                    .spawn(move || hand_over(receiver, &progress))
                    .expect("a progress thread starts");
                Arc::new(LoopbackTransport {
                    rank,
                    inboxes: inboxes.clone(),
                    delivery,
                })
            })
            .collect()
    }
}

/// A loopback rank's progress: every message, in arrival order, to the
/// handler, until every sender is gone.
fn hand_over(inbox: Receiver<(usize, Vec<u8>)>, delivery: &Delivery) {
    for (from, message) in inbox {
        delivery.deliver(from, message);
    }
}

impl Transport for LoopbackTransport {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.inboxes.len()
    }

    fn send(&self, to_rank: usize, message: Vec<u8>) -> Result<(), String> {
        self.inboxes
            .get(to_rank)
            .ok_or_else(|| format!("no rank {to_rank} among {}", self.inboxes.len()))?
            .send((self.rank, message))
            .map_err(|_| format!("rank {to_rank} is gone"))
    }

    fn deliver_to(&self, handler: Handler) {
        self.delivery.install(handler);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_is_contiguous_blocks() {
        let placement = Placement::new(8, 4).unwrap();
        assert_eq!(placement.devices_of(1), 2..4);
        assert_eq!(
            (0..8).map(|d| placement.rank_of(d)).collect::<Vec<_>>(),
            vec![0, 0, 1, 1, 2, 2, 3, 3]
        );
        let error = Placement::new(6, 4).unwrap_err();
        assert!(
            error.contains("4 ranks cannot share 6 device(s)"),
            "{error}"
        );
        assert!(Placement::new(1, 2).is_err());
        assert!(Placement::new(4, 0).is_err());
    }

    #[test]
    fn loopback_keeps_order_and_holds_early_messages() {
        let network = LoopbackTransport::network(2);
        // Sent before rank 1 has a handler: kept, then handed over in order.
        for n in 0..100u8 {
            network[0].send(1, vec![n]).unwrap();
        }
        let (seen, arrivals) = std::sync::mpsc::channel();
        let seen = Mutex::new(seen);
        network[1].deliver_to(Arc::new(move |from, message| {
            let _ = seen.lock().unwrap().send((from, message[0]));
        }));
        for n in 100..200u8 {
            network[0].send(1, vec![n]).unwrap();
        }
        let received: Vec<(usize, u8)> = (0..200)
            .map(|_| {
                arrivals
                    .recv_timeout(std::time::Duration::from_secs(5))
                    .unwrap()
            })
            .collect();
        assert_eq!(
            received,
            (0..200u8).map(|n| (0, n)).collect::<Vec<_>>(),
            "in send order"
        );
        assert!(network[0].send(2, Vec::new()).is_err());
    }
}

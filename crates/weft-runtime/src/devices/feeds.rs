//! The host's side of `infeed` on a grid: the values waiting to be fed.
//!
//! Each device has a queue of its own, and the grid has one shared queue:
//! an infeed takes the front of its device's queue, or, when that is empty,
//! the front of the shared queue. The shared queue is the StableHLO
//! interpreter's (`interpreter.run_parallel`'s `infeed` functions feed every
//! process from one queue); per-device queues are a host feeding each
//! device. Every value is taken once. (Outfeed needs no shared state: each
//! device's evaluator keeps what it fed out, in order.)

use std::collections::VecDeque;
use std::sync::Mutex;

use crate::tensor::Value;

/// Values to feed, before a run.
#[derive(Clone, Debug, Default)]
pub struct InfeedQueues {
    shared: VecDeque<Value>,
    per_device: Vec<VecDeque<Value>>,
}

impl InfeedQueues {
    /// One queue every device takes from, in order.
    pub fn shared(values: Vec<Value>) -> InfeedQueues {
        InfeedQueues {
            shared: values.into(),
            per_device: Vec::new(),
        }
    }

    /// Whether values wait in the queue every device shares.
    pub fn has_shared(&self) -> bool {
        !self.shared.is_empty()
    }

    /// `values[d]` for the device with flattened id `d`.
    pub fn per_device(values: Vec<Vec<Value>>) -> InfeedQueues {
        InfeedQueues {
            shared: VecDeque::new(),
            per_device: values.into_iter().map(VecDeque::from).collect(),
        }
    }
}

/// The infeed queues during a run.
pub(crate) struct Infeed {
    queues: Mutex<InfeedQueues>,
}

impl Infeed {
    pub(crate) fn new(queues: InfeedQueues) -> Infeed {
        Infeed {
            queues: Mutex::new(queues),
        }
    }

    /// The next value for `device` (a flattened id), if any is left.
    pub(crate) fn take(&self, device: usize) -> Option<Value> {
        let mut queues = self.queues.lock().ok()?;
        if let Some(value) = queues
            .per_device
            .get_mut(device)
            .and_then(VecDeque::pop_front)
        {
            return Some(value);
        }
        queues.shared.pop_front()
    }

    /// The next value for `device` if `accept` takes it; otherwise it stays
    /// queued.
    pub(crate) fn take_if(&self, device: usize, accept: impl Fn(&Value) -> bool) -> Option<Value> {
        let mut queues = self.queues.lock().ok()?;
        let own = queues.per_device.get_mut(device).filter(|q| !q.is_empty());
        let queue = match own {
            Some(queue) => queue,
            None => &mut queues.shared,
        };
        if queue.front().is_some_and(&accept) {
            queue.pop_front()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token_count(infeed: &Infeed, device: usize) -> usize {
        std::iter::from_fn(|| infeed.take(device)).count()
    }

    #[test]
    fn a_device_takes_its_own_queue_first_then_the_shared_one() {
        let mut queues = InfeedQueues::per_device(vec![vec![Value::Token], Vec::new()]);
        queues.shared.push_back(Value::Tuple(Vec::new()));
        let infeed = Infeed::new(queues);
        assert_eq!(infeed.take(0), Some(Value::Token));
        assert_eq!(infeed.take(1), Some(Value::Tuple(Vec::new())));
        assert_eq!(infeed.take(0), None);
    }

    #[test]
    fn take_if_leaves_a_refused_value_queued() {
        let infeed = Infeed::new(InfeedQueues::shared(vec![Value::Token, Value::Token]));
        assert_eq!(infeed.take_if(0, |v| *v != Value::Token), None);
        assert_eq!(token_count(&infeed, 3), 2);
    }
}

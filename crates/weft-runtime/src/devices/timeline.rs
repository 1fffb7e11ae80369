//! What happened when on each device of a run: the data behind the run's
//! summary, its per-collective report and its trace.
//!
//! Times are durations from the start of the run on the run's clock
//! ([`super::clock`]): modelled (virtual or measured timing) or the wall
//! clock. A device has two streams: its **compute** stream, where every
//! instruction it runs is an [`Event`] (a loop or call spans the
//! instructions it runs), and its **async** stream, which runs the
//! asynchronous operations its starts hand over, each an [`AsyncSpan`] from
//! its start to the moment its result is ready. Every collective instance
//! the device took part in is a [`CollectiveRecord`].
//!
//! The figures of a device, in the summary's terms:
//!
//! - **transfer**: the link model's time for the bytes the device received;
//! - **wait**: time spent at a collective waiting for the rest of its
//!   group to arrive (skew between devices);
//! - **host**: the collectives' reduction work once the data arrived;
//! - **communication** = transfer + wait + host: the time collectives took,
//!   on whichever stream they ran;
//! - **exposed**: time the compute stream stood still for communication —
//!   all of a synchronous collective, and the part of an async one its done
//!   had to wait for;
//! - **compute** = busy − exposed: time the compute stream spent running
//!   instructions;
//! - **overlap** = 1 − exposed / communication: the share of communication
//!   hidden behind compute (100% when there was none).

use std::time::Duration;

use weft_ir::Instr;

/// Which stream of a device an event belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Track {
    /// The device's compute stream.
    Compute,
    /// The device's async stream.
    Async,
}

/// One instruction's execution on a stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// What ran.
    pub instr: Instr,
    /// Where.
    pub track: Track,
    /// From the start of the run.
    pub start: Duration,
    /// How long.
    pub duration: Duration,
}

/// One asynchronous operation: handed to the async stream by a start,
/// waited for by a done.
#[derive(Clone, Debug, PartialEq)]
pub struct AsyncSpan {
    /// Unique among the device's async operations, in start order.
    pub id: u64,
    /// The start that began it.
    pub start: Instr,
    /// When the start ran (on the compute stream's clock).
    pub started: Duration,
    /// When the async stream took it up.
    pub began: Duration,
    /// When its result was ready.
    pub ready: Duration,
    /// The done that waited for it and when that done began, once it ran.
    pub done: Option<(Instr, Duration)>,
}

/// One collective instance, as one member saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveRecord {
    /// The collective (or its start).
    pub instr: Instr,
    /// Which execution of the instruction on this device.
    pub occurrence: u64,
    /// Which of its groups this device was in.
    pub group: usize,
    /// The devices of that group (flattened ids; a permute's: its source
    /// and this device).
    pub peers: Vec<usize>,
    /// The bytes this device received, as the link model counts them.
    pub bytes: f64,
    /// When this device arrived.
    pub arrived: Duration,
    /// When the whole group had arrived (a permute's or recv's: when its
    /// data was sent, if later).
    pub met: Duration,
    /// The link model's time for `bytes`.
    pub transfer: Duration,
    /// The reduction work after the data arrived.
    pub host: Duration,
    /// When the result was ready.
    pub ready: Duration,
    /// Whether it ran on the async stream (a start's).
    pub asynchronous: bool,
}

impl CollectiveRecord {
    /// Time waiting for the group.
    pub fn wait(&self) -> Duration {
        self.met.saturating_sub(self.arrived)
    }

    /// From arrival to result.
    pub fn communication(&self) -> Duration {
        self.ready.saturating_sub(self.arrived)
    }
}

/// A device's events and time accounts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceTimeline {
    /// Every instruction that ran on either stream, in the order they
    /// ended.
    pub events: Vec<Event>,
    /// Every asynchronous operation, in start order.
    pub async_spans: Vec<AsyncSpan>,
    /// Every collective instance, in the order they completed.
    pub collectives: Vec<CollectiveRecord>,
    /// Time the compute stream spent in the entry computation's
    /// instructions.
    pub busy: Duration,
    /// Time the compute stream waited for communication.
    pub exposed: Duration,
    /// When the device finished (its compute and its async stream).
    pub finished: Duration,
    /// The dones that waited for async operations, by span id, with when
    /// each began: merged into `async_spans` when the device finishes.
    pub(crate) async_dones: Vec<(u64, Instr, Duration)>,
}

/// A device's summary figures (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    /// Busy − exposed.
    pub compute: Duration,
    /// Modelled transfer.
    pub transfer: Duration,
    /// Waiting for peers.
    pub wait: Duration,
    /// Reduction work.
    pub host: Duration,
    /// Transfer + wait + host.
    pub communication: Duration,
    /// Communication the compute stream waited for.
    pub exposed: Duration,
    /// When the device finished.
    pub finished: Duration,
}

impl Figures {
    /// The share of communication hidden behind compute, in percent.
    pub fn overlap_percent(&self) -> f64 {
        let communication = self.communication.as_secs_f64();
        if communication == 0.0 {
            return 100.0;
        }
        100.0 * (1.0 - (self.exposed.as_secs_f64() / communication).min(1.0))
    }

    /// The element-wise median of several runs' figures (the upper middle
    /// of an even count).
    pub fn median(runs: &[Figures]) -> Figures {
        let pick = |field: fn(&Figures) -> Duration| {
            let mut values: Vec<Duration> = runs.iter().map(field).collect();
            values.sort();
            values.get(values.len() / 2).copied().unwrap_or_default()
        };
        Figures {
            compute: pick(|f| f.compute),
            transfer: pick(|f| f.transfer),
            wait: pick(|f| f.wait),
            host: pick(|f| f.host),
            communication: pick(|f| f.communication),
            exposed: pick(|f| f.exposed),
            finished: pick(|f| f.finished),
        }
    }
}

impl DeviceTimeline {
    /// Joins the async stream's timeline (`stream`, which ended at
    /// `stream_end`) to this, the compute stream's, whose clock ended at
    /// `compute_end`: events, spans (each with the done that waited for
    /// it), collectives, and the device's finish.
    pub(crate) fn join_stream(
        &mut self,
        stream: DeviceTimeline,
        compute_end: Duration,
        stream_end: Duration,
    ) {
        self.events.extend(stream.events);
        self.collectives.extend(stream.collectives);
        let mut spans = stream.async_spans;
        for (span, done, at) in self.async_dones.drain(..) {
            if let Some(span) = spans.iter_mut().find(|s| s.id == span) {
                span.done = Some((done, at));
            }
        }
        self.async_spans.extend(spans);
        self.async_spans.sort_by_key(|span| span.id);
        self.finished = compute_end.max(stream_end);
    }

    /// The step time of a run: when its last device finished.
    pub fn step_time(devices: &[DeviceTimeline]) -> Duration {
        devices.iter().map(|d| d.finished).max().unwrap_or_default()
    }

    /// This device's summary figures.
    pub fn figures(&self) -> Figures {
        let mut figures = Figures {
            compute: self.busy.saturating_sub(self.exposed),
            exposed: self.exposed,
            finished: self.finished,
            ..Figures::default()
        };
        for record in &self.collectives {
            figures.transfer += record.transfer;
            figures.wait += record.wait();
            figures.host += record.host;
            figures.communication += record.communication();
        }
        figures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(arrived: u64, met: u64, transfer: u64, host: u64) -> CollectiveRecord {
        CollectiveRecord {
            instr: <Instr as weft_ir::entity::EntityRef>::new(0),
            occurrence: 0,
            group: 0,
            peers: vec![0, 1],
            bytes: 8.0,
            arrived: Duration::from_millis(arrived),
            met: Duration::from_millis(met),
            transfer: Duration::from_millis(transfer),
            host: Duration::from_millis(host),
            ready: Duration::from_millis(met + transfer + host),
            asynchronous: false,
        }
    }

    #[test]
    fn communication_splits_into_wait_transfer_and_host() {
        let timeline = DeviceTimeline {
            collectives: vec![record(1, 3, 1, 0), record(10, 10, 2, 1)],
            busy: Duration::from_millis(20),
            exposed: Duration::from_millis(3),
            finished: Duration::from_millis(25),
            ..DeviceTimeline::default()
        };
        let figures = timeline.figures();
        assert_eq!(figures.wait, Duration::from_millis(2));
        assert_eq!(figures.transfer, Duration::from_millis(3));
        assert_eq!(figures.host, Duration::from_millis(1));
        assert_eq!(figures.communication, Duration::from_millis(6));
        assert_eq!(figures.compute, Duration::from_millis(17));
        assert!((figures.overlap_percent() - 50.0).abs() < 1e-9);
    }

    #[test]
    fn medians_are_taken_field_by_field() {
        let at = |ms: u64| Figures {
            compute: Duration::from_millis(ms),
            exposed: Duration::from_millis(10 - ms),
            ..Figures::default()
        };
        let median = Figures::median(&[at(1), at(9), at(5)]);
        assert_eq!(median.compute, Duration::from_millis(5));
        assert_eq!(median.exposed, Duration::from_millis(5));
    }
}

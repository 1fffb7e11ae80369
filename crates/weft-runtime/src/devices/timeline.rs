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
//!
//! Memory stays bounded however long a run is: the figures and the
//! per-collective totals ([`CollectiveTotals`], one per collective
//! instruction) are sums, and the detail a trace draws — events, async
//! spans, collective records — is kept only up to [`Detail::max_events`]
//! of each kind per device, the first ones; what is left out is counted
//! ([`DeviceTimeline::dropped`]).

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

/// How much of a run a timeline keeps beyond its sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detail {
    /// How many events, async spans and collective records each device
    /// keeps (the first ones); 0 keeps sums only.
    pub max_events: usize,
}

impl Detail {
    /// Sums only: what a run without a trace needs.
    pub const TOTALS_ONLY: Detail = Detail { max_events: 0 };
}

impl Default for Detail {
    /// The first 100 000 of each kind: a trace of a short run, a few
    /// megabytes per device.
    fn default() -> Detail {
        Detail {
            max_events: 100_000,
        }
    }
}

/// One collective instruction's instances on a device, added up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollectiveTotals {
    /// How many instances ran.
    pub count: u64,
    /// The largest group it met.
    pub peers: usize,
    /// Whether it ran on the async stream.
    pub asynchronous: bool,
    /// Bytes received, summed.
    pub bytes: f64,
    /// Transfer, summed.
    pub transfer: Duration,
    /// Waiting for the group, summed.
    pub wait: Duration,
    /// The longest wait.
    pub max_wait: Duration,
    /// Reduction work, summed.
    pub host: Duration,
    /// From arrival to result, summed.
    pub communication: Duration,
}

impl CollectiveTotals {
    /// Adds an instance.
    fn add(&mut self, record: &CollectiveRecord) {
        self.count += 1;
        self.peers = self.peers.max(record.peers.len());
        self.asynchronous |= record.asynchronous;
        self.bytes += record.bytes;
        self.transfer += record.transfer;
        self.wait += record.wait();
        self.max_wait = self.max_wait.max(record.wait());
        self.host += record.host;
        self.communication += record.communication();
    }

    /// Adds another device's or stream's totals of the same instruction.
    fn merge(&mut self, other: &CollectiveTotals) {
        self.count += other.count;
        self.peers = self.peers.max(other.peers);
        self.asynchronous |= other.asynchronous;
        self.bytes += other.bytes;
        self.transfer += other.transfer;
        self.wait += other.wait;
        self.max_wait = self.max_wait.max(other.max_wait);
        self.host += other.host;
        self.communication += other.communication;
    }
}

/// A device's events and time accounts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceTimeline {
    /// How much detail it keeps.
    pub detail: Detail,
    /// The instructions that ran on either stream, in the order they
    /// ended (the first [`Detail::max_events`]).
    pub events: Vec<Event>,
    /// The asynchronous operations, in start order (the first
    /// [`Detail::max_events`]).
    pub async_spans: Vec<AsyncSpan>,
    /// The collective instances, in the order they completed (the first
    /// [`Detail::max_events`]).
    pub collectives: Vec<CollectiveRecord>,
    /// Every collective instruction's instances added up, by instruction.
    pub collective_totals: std::collections::BTreeMap<Instr, CollectiveTotals>,
    /// Events, spans and records left out past [`Detail::max_events`].
    pub dropped: u64,
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
    /// An empty timeline keeping `detail`.
    pub fn new(detail: Detail) -> DeviceTimeline {
        DeviceTimeline {
            detail,
            ..DeviceTimeline::default()
        }
    }

    /// Keeps `event`, while there is room.
    pub fn push_event(&mut self, event: Event) {
        if self.events.len() < self.detail.max_events {
            self.events.push(event);
        } else {
            self.dropped += 1;
        }
    }

    /// Keeps `span`, while there is room.
    pub fn push_span(&mut self, span: AsyncSpan) {
        if self.async_spans.len() < self.detail.max_events {
            self.async_spans.push(span);
        } else {
            self.dropped += 1;
        }
    }

    /// Notes that the done `done`, begun at `at`, waited for span `span`
    /// (when spans are kept at all).
    pub(crate) fn push_done(&mut self, span: u64, done: Instr, at: Duration) {
        if self.async_dones.len() < self.detail.max_events {
            self.async_dones.push((span, done, at));
        }
    }

    /// Adds a collective instance to its instruction's totals, and keeps
    /// its record while there is room.
    pub fn add_collective(&mut self, record: CollectiveRecord) {
        self.collective_totals
            .entry(record.instr)
            .or_default()
            .add(&record);
        if self.collectives.len() < self.detail.max_events {
            self.collectives.push(record);
        } else {
            self.dropped += 1;
        }
    }

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
        self.dropped += stream.dropped;
        for (instr, totals) in &stream.collective_totals {
            self.collective_totals
                .entry(*instr)
                .or_default()
                .merge(totals);
        }
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
        for totals in self.collective_totals.values() {
            figures.transfer += totals.transfer;
            figures.wait += totals.wait;
            figures.host += totals.host;
            figures.communication += totals.communication;
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
        let mut timeline = DeviceTimeline {
            busy: Duration::from_millis(20),
            exposed: Duration::from_millis(3),
            finished: Duration::from_millis(25),
            ..DeviceTimeline::new(Detail::TOTALS_ONLY)
        };
        timeline.add_collective(record(1, 3, 1, 0));
        timeline.add_collective(record(10, 10, 2, 1));
        assert!(timeline.collectives.is_empty(), "sums only");
        assert_eq!(timeline.collective_totals.len(), 1);
        assert_eq!(timeline.dropped, 2);
        let figures = timeline.figures();
        assert_eq!(figures.wait, Duration::from_millis(2));
        assert_eq!(figures.transfer, Duration::from_millis(3));
        assert_eq!(figures.host, Duration::from_millis(1));
        assert_eq!(figures.communication, Duration::from_millis(6));
        assert_eq!(figures.compute, Duration::from_millis(17));
        assert!((figures.overlap_percent() - 50.0).abs() < 1e-9);
    }

    #[test]
    fn detail_stops_at_its_limit() {
        let mut timeline = DeviceTimeline::new(Detail { max_events: 1 });
        timeline.add_collective(record(0, 0, 1, 0));
        timeline.add_collective(record(5, 6, 1, 0));
        assert_eq!(timeline.collectives.len(), 1);
        assert_eq!(timeline.dropped, 1);
        let totals = &timeline.collective_totals[&record(0, 0, 0, 0).instr];
        assert_eq!(totals.count, 2);
        assert_eq!(totals.max_wait, Duration::from_millis(1));
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

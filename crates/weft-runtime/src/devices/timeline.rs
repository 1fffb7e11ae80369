//! What happened when, per device and stream: the data behind the run
//! summary and the Chrome trace (`--trace`), which Perfetto opens.
//!
//! Each device has two tracks: its compute stream, where every instruction
//! is an event (a loop or call spans the instructions it runs), and its async
//! stream, where each asynchronous operation spans from its start to the
//! moment its result is ready. Times are microseconds from the start of the
//! run, shared by every device.
//!
//! Statistics per device:
//! - **compute**: time the compute stream spent running instructions, minus
//!   the time it waited for communication;
//! - **communication**: time collectives took, wherever they ran (a
//!   synchronous collective on the compute stream, an async one on the
//!   async stream);
//! - **exposed communication**: time the compute stream waited for
//!   communication (in a synchronous collective, or in a done whose result
//!   was not ready);
//! - **overlap**: the share of communication that was hidden, `1 − exposed /
//!   communication`.

use std::time::{Duration, Instant};

/// Which stream of a device an event belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Track {
    /// The device's compute stream.
    Compute,
    /// The device's async stream.
    Async,
}

/// One span on a track.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// What ran: the instruction's name (and opcode).
    pub name: String,
    /// Where.
    pub track: Track,
    /// Microseconds from the start of the run.
    pub start: f64,
    /// Microseconds.
    pub duration: f64,
}

/// A device's events and time accounts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceTimeline {
    /// Every span, in the order they ended.
    pub events: Vec<Event>,
    /// Time the compute stream spent in top-level instructions.
    pub busy: Duration,
    /// Time collectives took.
    pub communication: Duration,
    /// Time the compute stream waited for communication.
    pub exposed: Duration,
    /// When the device finished (its compute and its async stream), from
    /// the start of the run.
    pub finished: Duration,
}

impl DeviceTimeline {
    /// Records a span from `start` to now.
    pub fn record(&mut self, origin: Instant, name: String, track: Track, start: Instant) {
        let end = Instant::now();
        self.events.push(Event {
            name,
            track,
            start: start.saturating_duration_since(origin).as_secs_f64() * 1e6,
            duration: end.saturating_duration_since(start).as_secs_f64() * 1e6,
        });
    }

    /// The step time of a run: when its last device finished.
    pub fn step_time(devices: &[DeviceTimeline]) -> Duration {
        devices.iter().map(|d| d.finished).max().unwrap_or_default()
    }

    /// Compute time: busy time that was not spent waiting.
    pub fn compute(&self) -> Duration {
        self.busy.saturating_sub(self.exposed)
    }

    /// The share of communication hidden behind compute, in percent.
    pub fn overlap_percent(&self) -> f64 {
        let communication = self.communication.as_secs_f64();
        if communication == 0.0 {
            return 100.0;
        }
        100.0 * (1.0 - (self.exposed.as_secs_f64() / communication).min(1.0))
    }
}

/// The Chrome trace JSON (`traceEvents`) of every device's timeline: one
/// process per device, threads `compute` and `async stream`.
pub fn chrome_trace(devices: &[DeviceTimeline]) -> String {
    let mut out = String::from("{\"traceEvents\":[\n");
    let mut first = true;
    let mut push = |line: String, out: &mut String| {
        if !first {
            out.push_str(",\n");
        }
        first = false;
        out.push_str(&line);
    };
    for (device, timeline) in devices.iter().enumerate() {
        push(
            format!(
                "{{\"ph\":\"M\",\"pid\":{device},\"name\":\"process_name\",\"args\":{{\"name\":\"device {device}\"}}}}"
            ),
            &mut out,
        );
        push(
            format!(
                "{{\"ph\":\"M\",\"pid\":{device},\"tid\":0,\"name\":\"thread_name\",\"args\":{{\"name\":\"compute\"}}}}"
            ),
            &mut out,
        );
        push(
            format!(
                "{{\"ph\":\"M\",\"pid\":{device},\"tid\":1,\"name\":\"thread_name\",\"args\":{{\"name\":\"async stream\"}}}}"
            ),
            &mut out,
        );
        for event in &timeline.events {
            let tid = match event.track {
                Track::Compute => 0,
                Track::Async => 1,
            };
            push(
                format!(
                    "{{\"ph\":\"X\",\"pid\":{device},\"tid\":{tid},\"name\":{},\"ts\":{:.3},\"dur\":{:.3}}}",
                    serde_json::Value::from(event.name.as_str()),
                    event.start,
                    event.duration
                ),
                &mut out,
            );
        }
    }
    out.push_str("\n]}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_is_the_hidden_share_of_communication() {
        let timeline = DeviceTimeline {
            events: Vec::new(),
            busy: Duration::from_millis(10),
            communication: Duration::from_millis(4),
            exposed: Duration::from_millis(1),
            finished: Duration::from_millis(12),
        };
        assert_eq!(timeline.compute(), Duration::from_millis(9));
        assert_eq!(
            DeviceTimeline::step_time(&[DeviceTimeline::default(), timeline.clone()]),
            Duration::from_millis(12)
        );
        assert!((timeline.overlap_percent() - 75.0).abs() < 1e-9);
    }

    #[test]
    fn the_trace_is_chrome_json() {
        let mut timeline = DeviceTimeline::default();
        let origin = Instant::now();
        timeline.record(origin, "a \"quoted\" op".into(), Track::Async, origin);
        let trace = chrome_trace(&[timeline]);
        assert!(trace.starts_with("{\"traceEvents\":["));
        assert!(trace.contains("\"name\":\"a \\\"quoted\\\" op\""));
        assert!(trace.contains("\"tid\":1"));
    }
}

//! A small self-describing binary encoding of runtime values, for moving
//! them between processes ([`super::remote`]).
//!
//! Layout (every integer little-endian):
//! - a value: one tag byte, then
//!   - `0` (tensor): the element type's name (`u8` length, UTF-8 bytes, as
//!     HLO writes it: `f32`, `bf16`, …), the rank (`u32`), each dimension
//!     (`i64`), the byte count (`u64`) and the bytes themselves, in the
//!     tensor's own encoding ([`crate::tensor`]);
//!   - `1` (tuple): the element count (`u32`), then each element;
//!   - `2` (token): nothing more.
//! - a string: its byte count (`u32`) and UTF-8 bytes.
//!
//! Whole messages begin with [`WIRE_VERSION`]; a reader refuses any other
//! version, so two builds that disagree fail loudly instead of misreading.
//!
//! Invariants:
//! - decoding never panics and never trusts a length before checking it
//!   against the bytes left: truncated, oversized or malformed input is an
//!   error naming what was wrong;
//! - a decoded tensor satisfies [`crate::tensor`]'s invariant (its byte
//!   count is its element count times its element size), else it is an
//!   error;
//! - an in-flight value (an async result still being computed) has no
//!   encoding: only finished data crosses processes.

use weft_ir::ElementType;
use weft_ir::literal::storage_bytes;

use super::timeline::{
    AsyncSpan, CollectiveRecord, CollectiveTotals, Detail, DeviceTimeline, Event, Track,
};
use crate::evaluate::{Evaluation, RunError};
use crate::tensor::{Tensor, Value, element_count};

/// The version byte every message starts with. Bump it with any change to
/// the layout.
pub const WIRE_VERSION: u8 = 3;

/// How deep tuples may nest: far beyond any program's, and a bound on the
/// decoder's recursion for input that is not.
const MAX_NESTING: usize = 64;

const TENSOR: u8 = 0;
const TUPLE: u8 = 1;
const TOKEN: u8 = 2;

/// Builds a message.
#[derive(Default)]
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    /// An empty message.
    pub fn new() -> Writer {
        Writer::default()
    }

    /// A message with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Writer {
        Writer {
            bytes: Vec::with_capacity(capacity),
        }
    }

    /// The message so far.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }

    /// One byte.
    pub fn u8(&mut self, value: u8) {
        self.bytes.push(value);
    }

    /// A `u32`.
    pub fn u32(&mut self, value: u32) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    /// A `u64`.
    pub fn u64(&mut self, value: u64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    /// An `i64`.
    pub fn i64(&mut self, value: i64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    /// A `usize`, as a `u64`.
    pub fn usize(&mut self, value: usize) {
        self.u64(value as u64);
    }

    /// An `f64`, by its bits.
    pub fn f64(&mut self, value: f64) {
        self.u64(value.to_bits());
    }

    /// A duration, in nanoseconds (saturating at about 584 years).
    pub fn duration(&mut self, value: std::time::Duration) {
        self.u64(u64::try_from(value.as_nanos()).unwrap_or(u64::MAX));
    }

    /// A length-prefixed string.
    pub fn string(&mut self, text: &str) {
        self.length(text.len());
        self.bytes.extend_from_slice(text.as_bytes());
    }

    /// An optional string: a presence byte, then the string.
    pub fn optional_string(&mut self, text: Option<&str>) {
        match text {
            Some(text) => {
                self.u8(1);
                self.string(text);
            }
            None => self.u8(0),
        }
    }

    /// A count or length, as a `u32`. Counts beyond `u32::MAX` saturate and
    /// are caught on the other side (the bytes that follow will not
    /// match), which is acceptable for lengths no real message reaches.
    fn length(&mut self, count: usize) {
        self.u32(u32::try_from(count).unwrap_or(u32::MAX));
    }

    /// A value. An in-flight value is an error: it has no data yet.
    pub fn value(&mut self, value: &Value) -> Result<(), String> {
        match value {
            Value::Tensor(tensor) => {
                self.u8(TENSOR);
                let name = tensor.elem.name();
                self.u8(name.len() as u8);
                self.bytes.extend_from_slice(name.as_bytes());
                self.length(tensor.dims.len());
                for &dim in &tensor.dims {
                    self.i64(dim);
                }
                self.u64(tensor.bytes.len() as u64);
                self.bytes.extend_from_slice(&tensor.bytes);
            }
            Value::Tuple(elements) => {
                self.u8(TUPLE);
                self.length(elements.len());
                for element in elements {
                    self.value(element)?;
                }
            }
            Value::Token => self.u8(TOKEN),
            Value::InFlight(_) => {
                return Err("an asynchronous result still in flight cannot be sent".into());
            }
        }
        Ok(())
    }

    /// A run error.
    pub fn run_error(&mut self, error: &RunError) {
        self.optional_string(error.instruction.as_deref());
        match error.instr {
            Some(instr) => {
                self.u8(1);
                self.usize(weft_ir::Module::instr_index(instr));
            }
            None => self.u8(0),
        }
        self.string(&error.message);
    }

    /// An instruction handle.
    fn instr(&mut self, instr: weft_ir::Instr) {
        self.usize(weft_ir::Module::instr_index(instr));
    }

    /// A device's timeline.
    pub fn timeline(&mut self, timeline: &DeviceTimeline) {
        self.length(timeline.events.len());
        for event in &timeline.events {
            self.instr(event.instr);
            self.u8(match event.track {
                Track::Compute => 0,
                Track::Async => 1,
            });
            self.duration(event.start);
            self.duration(event.duration);
        }
        self.length(timeline.async_spans.len());
        for span in &timeline.async_spans {
            self.u64(span.id);
            self.instr(span.start);
            self.duration(span.started);
            self.duration(span.began);
            self.duration(span.ready);
            match span.done {
                Some((done, at)) => {
                    self.u8(1);
                    self.instr(done);
                    self.duration(at);
                }
                None => self.u8(0),
            }
        }
        self.length(timeline.collectives.len());
        for record in &timeline.collectives {
            self.instr(record.instr);
            self.u64(record.occurrence);
            self.usize(record.group);
            self.length(record.peers.len());
            for &peer in &record.peers {
                self.usize(peer);
            }
            self.f64(record.bytes);
            self.duration(record.arrived);
            self.duration(record.met);
            self.duration(record.transfer);
            self.duration(record.host);
            self.duration(record.ready);
            self.u8(u8::from(record.asynchronous));
        }
        self.length(timeline.collective_totals.len());
        for (&instr, totals) in &timeline.collective_totals {
            self.instr(instr);
            self.u64(totals.count);
            self.usize(totals.peers);
            self.u8(u8::from(totals.asynchronous));
            self.f64(totals.bytes);
            self.duration(totals.transfer);
            self.duration(totals.wait);
            self.duration(totals.max_wait);
            self.duration(totals.host);
            self.duration(totals.communication);
        }
        self.usize(timeline.detail.max_events);
        self.u64(timeline.dropped);
        self.duration(timeline.busy);
        self.duration(timeline.exposed);
        self.duration(timeline.finished);
    }

    /// A device's evaluation: its result, checks, prints, outfeed and
    /// timeline.
    pub fn evaluation(&mut self, evaluation: &Evaluation) -> Result<(), String> {
        self.value(&evaluation.result)?;
        self.strings(&evaluation.check_failures);
        self.strings(&evaluation.printed);
        self.length(evaluation.outfeed.len());
        for value in &evaluation.outfeed {
            self.value(value)?;
        }
        self.timeline(&evaluation.timeline);
        Ok(())
    }

    fn strings(&mut self, texts: &[String]) {
        self.length(texts.len());
        for text in texts {
            self.string(text);
        }
    }
}

/// Reads a message, checking every length against what is left.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// Whether every byte was read.
    pub fn is_finished(&self) -> bool {
        self.at == self.bytes.len()
    }

    /// Fails unless every byte was read: trailing bytes mean the writer and
    /// the reader disagree about the layout.
    pub fn finish(&self) -> Result<(), String> {
        if self.is_finished() {
            Ok(())
        } else {
            Err(format!(
                "{} unread byte(s) at the end of a message",
                self.bytes.len() - self.at
            ))
        }
    }

    fn take(&mut self, count: usize, what: &str) -> Result<&'a [u8], String> {
        let left = self.bytes.len() - self.at;
        if count > left {
            return Err(format!(
                "a truncated message: {what} needs {count} byte(s), {left} left"
            ));
        }
        let taken = &self.bytes[self.at..self.at + count];
        self.at += count;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    /// One byte.
    pub fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.array::<1>(what)?[0])
    }

    /// A `u32`.
    pub fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// A `u64`.
    pub fn u64(&mut self, what: &str) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// An `i64`.
    pub fn i64(&mut self, what: &str) -> Result<i64, String> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    /// A `usize` written as a `u64`.
    pub fn usize(&mut self, what: &str) -> Result<usize, String> {
        let value = self.u64(what)?;
        usize::try_from(value).map_err(|_| format!("{what} {value} does not fit this machine"))
    }

    /// An `f64`.
    pub fn f64(&mut self, what: &str) -> Result<f64, String> {
        Ok(f64::from_bits(self.u64(what)?))
    }

    /// A duration written in nanoseconds.
    pub fn duration(&mut self, what: &str) -> Result<std::time::Duration, String> {
        Ok(std::time::Duration::from_nanos(self.u64(what)?))
    }

    /// A length-prefixed string.
    pub fn string(&mut self, what: &str) -> Result<String, String> {
        let length = self.u32(what)? as usize;
        let bytes = self.take(length, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
    }

    /// An optional string.
    pub fn optional_string(&mut self, what: &str) -> Result<Option<String>, String> {
        match self.u8(what)? {
            0 => Ok(None),
            1 => self.string(what).map(Some),
            other => Err(format!("{what}: presence byte {other} is neither 0 nor 1")),
        }
    }

    /// A count of items that each take at least `smallest_item` bytes:
    /// refused when the bytes left cannot hold that many, so a corrupt
    /// count cannot make the reader reserve memory it will never fill.
    fn count(&mut self, what: &str, smallest_item: usize) -> Result<usize, String> {
        let count = self.u32(what)? as usize;
        let left = self.bytes.len() - self.at;
        if count.saturating_mul(smallest_item.max(1)) > left {
            return Err(format!(
                "a truncated message: {count} {what} cannot fit in the {left} byte(s) left"
            ));
        }
        Ok(count)
    }

    /// A value.
    pub fn value(&mut self) -> Result<Value, String> {
        self.value_at_depth(0)
    }

    fn value_at_depth(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_NESTING {
            return Err(format!("tuples nested deeper than {MAX_NESTING}"));
        }
        match self.u8("a value's tag")? {
            TENSOR => self.tensor().map(Value::Tensor),
            TUPLE => {
                let count = self.count("tuple elements", 1)?;
                (0..count)
                    .map(|_| self.value_at_depth(depth + 1))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Tuple)
            }
            TOKEN => Ok(Value::Token),
            other => Err(format!("unknown value tag {other}")),
        }
    }

    fn tensor(&mut self) -> Result<Tensor, String> {
        let name_length = self.u8("an element type")? as usize;
        let name = self.take(name_length, "an element type")?;
        let name = std::str::from_utf8(name).map_err(|_| "an element type is not UTF-8")?;
        let elem =
            ElementType::from_name(name).ok_or_else(|| format!("unknown element type `{name}`"))?;
        let rank = self.count("dimensions", 8)?;
        let dims = (0..rank)
            .map(|_| self.i64("a dimension"))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(negative) = dims.iter().find(|&&d| d < 0) {
            return Err(format!("a negative dimension {negative}"));
        }
        let byte_count = self.usize("a tensor's byte count")?;
        let expected = dims.iter().try_fold(storage_bytes(elem), |bytes, &d| {
            bytes.checked_mul(d as usize)
        });
        if expected != Some(byte_count) {
            return Err(format!(
                "a {name} tensor of dimensions {dims:?} ({} elements) with {byte_count} bytes",
                element_count(&dims)
            ));
        }
        let bytes = self.take(byte_count, "a tensor's bytes")?;
        Ok(Tensor {
            elem,
            dims,
            bytes: bytes.to_vec().into(),
        })
    }

    /// A run error.
    pub fn run_error(&mut self) -> Result<RunError, String> {
        let instruction = self.optional_string("an error's instruction")?;
        let instr = match self.u8("an error's instruction index")? {
            0 => None,
            1 => {
                let index = self.usize("an error's instruction index")?;
                if index >= u32::MAX as usize {
                    return Err(format!("instruction index {index} is out of range"));
                }
                Some(<weft_ir::Instr as weft_ir::entity::EntityRef>::new(index))
            }
            other => return Err(format!("instruction presence byte {other}")),
        };
        let message = self.string("an error's message")?;
        Ok(RunError {
            instruction,
            instr,
            message,
        })
    }

    /// An instruction handle.
    fn instr(&mut self, what: &str) -> Result<weft_ir::Instr, String> {
        let index = self.usize(what)?;
        if index >= u32::MAX as usize {
            return Err(format!("{what} {index} is not an instruction"));
        }
        Ok(<weft_ir::Instr as weft_ir::entity::EntityRef>::new(index))
    }

    /// A device's timeline.
    pub fn timeline(&mut self) -> Result<DeviceTimeline, String> {
        // Each event holds an instruction, a track and two durations.
        let count = self.count("timeline events", 25)?;
        let mut events = Vec::with_capacity(count);
        for _ in 0..count {
            let instr = self.instr("an event's instruction")?;
            let track = match self.u8("an event's track")? {
                0 => Track::Compute,
                1 => Track::Async,
                other => return Err(format!("unknown track {other}")),
            };
            events.push(Event {
                instr,
                track,
                start: self.duration("an event's start")?,
                duration: self.duration("an event's duration")?,
            });
        }
        let count = self.count("async spans", 42)?;
        let mut async_spans = Vec::with_capacity(count);
        for _ in 0..count {
            async_spans.push(AsyncSpan {
                id: self.u64("a span's id")?,
                start: self.instr("a span's start")?,
                started: self.duration("a span's start time")?,
                began: self.duration("a span's beginning")?,
                ready: self.duration("a span's end")?,
                done: match self.u8("whether a span was waited for")? {
                    0 => None,
                    1 => Some((
                        self.instr("a span's done")?,
                        self.duration("a span's done time")?,
                    )),
                    other => return Err(format!("span done byte {other}")),
                },
            });
        }
        let count = self.count("collective records", 77)?;
        let mut collectives = Vec::with_capacity(count);
        for _ in 0..count {
            let instr = self.instr("a collective's instruction")?;
            let occurrence = self.u64("a collective's occurrence")?;
            let group = self.usize("a collective's group")?;
            let peer_count = self.count("a collective's peers", 8)?;
            let peers = (0..peer_count)
                .map(|_| self.usize("a peer"))
                .collect::<Result<Vec<_>, _>>()?;
            collectives.push(CollectiveRecord {
                instr,
                occurrence,
                group,
                peers,
                bytes: self.f64("a collective's bytes")?,
                arrived: self.duration("an arrival")?,
                met: self.duration("a meeting")?,
                transfer: self.duration("a transfer")?,
                host: self.duration("host work")?,
                ready: self.duration("a result time")?,
                asynchronous: self.u8("whether a collective was asynchronous")? != 0,
            });
        }
        let count = self.count("collective totals", 58)?;
        let mut collective_totals = std::collections::BTreeMap::new();
        for _ in 0..count {
            let instr = self.instr("a collective's instruction")?;
            collective_totals.insert(
                instr,
                CollectiveTotals {
                    count: self.u64("a collective's count")?,
                    peers: self.usize("a collective's peers")?,
                    asynchronous: self.u8("whether a collective was asynchronous")? != 0,
                    bytes: self.f64("a collective's bytes")?,
                    transfer: self.duration("a collective's transfer")?,
                    wait: self.duration("a collective's wait")?,
                    max_wait: self.duration("a collective's longest wait")?,
                    host: self.duration("a collective's host work")?,
                    communication: self.duration("a collective's communication")?,
                },
            );
        }
        Ok(DeviceTimeline {
            events,
            async_spans,
            collectives,
            collective_totals,
            detail: Detail {
                max_events: self.usize("the kept detail")?,
            },
            dropped: self.u64("the detail left out")?,
            busy: self.duration("busy time")?,
            exposed: self.duration("exposed time")?,
            finished: self.duration("finish time")?,
            async_dones: Vec::new(),
        })
    }

    /// A device's evaluation.
    pub fn evaluation(&mut self) -> Result<Evaluation, String> {
        let result = self.value()?;
        let check_failures = self.strings("check failures")?;
        let printed = self.strings("printed lines")?;
        let outfeed_count = self.count("outfed values", 1)?;
        let outfeed = (0..outfeed_count)
            .map(|_| self.value())
            .collect::<Result<Vec<_>, _>>()?;
        let timeline = self.timeline()?;
        Ok(Evaluation {
            result,
            check_failures,
            printed,
            outfeed,
            timeline,
        })
    }

    fn strings(&mut self, what: &str) -> Result<Vec<String>, String> {
        let count = self.count(what, 4)?;
        (0..count).map(|_| self.string(what)).collect()
    }
}

/// `value` as a whole message: the version byte, then the value.
pub fn encode_value(value: &Value) -> Result<Vec<u8>, String> {
    let mut writer = Writer::new();
    writer.u8(WIRE_VERSION);
    writer.value(value)?;
    Ok(writer.finish())
}

/// The value of a message [`encode_value`] wrote.
pub fn decode_value(bytes: &[u8]) -> Result<Value, String> {
    let mut reader = Reader::new(bytes);
    check_version(&mut reader)?;
    let value = reader.value()?;
    reader.finish()?;
    Ok(value)
}

/// Reads a message's version byte; any version but [`WIRE_VERSION`] is an
/// error.
pub fn check_version(reader: &mut Reader<'_>) -> Result<(), String> {
    let version = reader.u8("the version byte")?;
    if version != WIRE_VERSION {
        return Err(format!(
            "a message of wire version {version}, but this build reads version {WIRE_VERSION} (every rank must run the same weft)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(elem: ElementType, dims: &[i64], bytes: Vec<u8>) -> Value {
        Value::Tensor(Tensor::new(elem, dims.to_vec(), bytes))
    }

    #[test]
    fn values_round_trip_bit_for_bit() {
        let nan_bits = f32::from_bits(0x7fc0_1234);
        let values = [
            tensor(
                ElementType::F32,
                &[2, 2],
                crate::tensor::f32_bytes(&[1.5, -0.0, nan_bits, f32::INFINITY]),
            ),
            tensor(ElementType::Bf16, &[3], vec![1, 2, 3, 4, 5, 6]),
            tensor(ElementType::S32, &[], vec![7, 0, 0, 0]),
            tensor(ElementType::Pred, &[0, 4], Vec::new()),
            tensor(ElementType::C64, &[1], vec![9; 8]),
            Value::Token,
            Value::Tuple(Vec::new()),
            Value::Tuple(vec![
                tensor(ElementType::U8, &[2], vec![1, 2]),
                Value::Tuple(vec![Value::Token, tensor(ElementType::S4, &[1], vec![15])]),
            ]),
        ];
        for value in values {
            let bytes = encode_value(&value).unwrap();
            assert_eq!(bytes[0], WIRE_VERSION);
            assert_eq!(decode_value(&bytes).unwrap(), value, "{}", value.describe());
        }
    }

    #[test]
    fn an_in_flight_value_is_refused() {
        let error = encode_value(&Value::InFlight(crate::tensor::InFlight::new())).unwrap_err();
        assert!(error.contains("in flight"), "{error}");
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let good = encode_value(&tensor(ElementType::F32, &[2], vec![0; 8])).unwrap();
        // Every truncation fails cleanly.
        for length in 0..good.len() {
            assert!(decode_value(&good[..length]).is_err(), "length {length}");
        }
        // Trailing bytes, another version, an unknown tag or type.
        let mut longer = good.clone();
        longer.push(0);
        assert!(decode_value(&longer).unwrap_err().contains("unread"));
        let mut other_version = good.clone();
        other_version[0] = WIRE_VERSION + 1;
        assert!(
            decode_value(&other_version)
                .unwrap_err()
                .contains("version")
        );
        assert!(
            decode_value(&[WIRE_VERSION, 9])
                .unwrap_err()
                .contains("tag")
        );
        let mut unknown_type = good.clone();
        unknown_type[3] = b'x';
        assert!(
            decode_value(&unknown_type)
                .unwrap_err()
                .contains("element type")
        );
        // A byte count that disagrees with the dimensions.
        let mut wrong_count = good.clone();
        let count_at = good.len() - 8 - 8;
        wrong_count[count_at] = 4;
        assert!(decode_value(&wrong_count).unwrap_err().contains("bytes"));
        // A huge tuple count does not allocate; deep nesting is bounded.
        assert!(decode_value(&[WIRE_VERSION, TUPLE, 0xff, 0xff, 0xff, 0xff]).is_err());
        let mut deep = vec![WIRE_VERSION];
        for _ in 0..1000 {
            deep.extend_from_slice(&[TUPLE, 1, 0, 0, 0]);
        }
        deep.push(TOKEN);
        assert!(decode_value(&deep).unwrap_err().contains("nested"));
    }

    #[test]
    fn evaluations_and_errors_round_trip() {
        let mut evaluation = Evaluation {
            result: Value::Tuple(vec![tensor(ElementType::S8, &[2], vec![1, 255])]),
            check_failures: vec!["check 1".into()],
            printed: vec!["printed".into(), String::new()],
            outfeed: vec![Value::Token],
            timeline: DeviceTimeline {
                events: vec![Event {
                    instr: <weft_ir::Instr as weft_ir::entity::EntityRef>::new(4),
                    track: Track::Async,
                    start: std::time::Duration::from_nanos(12_500),
                    duration: std::time::Duration::from_nanos(3_250),
                }],
                async_spans: vec![AsyncSpan {
                    id: 0,
                    start: <weft_ir::Instr as weft_ir::entity::EntityRef>::new(4),
                    started: std::time::Duration::from_nanos(10),
                    began: std::time::Duration::from_nanos(11),
                    ready: std::time::Duration::from_nanos(12),
                    done: Some((
                        <weft_ir::Instr as weft_ir::entity::EntityRef>::new(6),
                        std::time::Duration::from_nanos(13),
                    )),
                }],
                collectives: vec![CollectiveRecord {
                    instr: <weft_ir::Instr as weft_ir::entity::EntityRef>::new(4),
                    occurrence: 2,
                    group: 1,
                    peers: vec![0, 3],
                    bytes: 64.0,
                    arrived: std::time::Duration::from_nanos(11),
                    met: std::time::Duration::from_nanos(11),
                    transfer: std::time::Duration::from_nanos(1),
                    host: std::time::Duration::ZERO,
                    ready: std::time::Duration::from_nanos(12),
                    asynchronous: true,
                }],
                busy: std::time::Duration::from_micros(40),
                exposed: std::time::Duration::ZERO,
                finished: std::time::Duration::from_millis(3),
                ..DeviceTimeline::default()
            },
        };
        let record = evaluation.timeline.collectives[0].clone();
        evaluation.timeline.add_collective(record);
        evaluation.timeline.dropped = 3;
        let mut writer = Writer::new();
        writer.evaluation(&evaluation).unwrap();
        let error = RunError {
            instruction: Some("device 3: main/%add".into()),
            instr: Some(<weft_ir::Instr as weft_ir::entity::EntityRef>::new(5)),
            message: "überlauf".into(),
        };
        writer.run_error(&error);
        let bytes = writer.finish();
        let mut reader = Reader::new(&bytes);
        let back = reader.evaluation().unwrap();
        assert_eq!(back.result, evaluation.result);
        assert_eq!(back.check_failures, evaluation.check_failures);
        assert_eq!(back.printed, evaluation.printed);
        assert_eq!(back.outfeed, evaluation.outfeed);
        assert_eq!(back.timeline, evaluation.timeline);
        let error_back = reader.run_error().unwrap();
        assert_eq!(error_back.instruction, error.instruction);
        assert_eq!(error_back.instr, error.instr);
        assert_eq!(error_back.message, error.message);
        reader.finish().unwrap();
    }
}

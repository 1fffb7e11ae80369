//! A run's timelines as a Chrome trace (JSON `traceEvents`), which Perfetto
//! and `chrome://tracing` open.
//!
//! Layout: one process per device, with two threads — `compute` (every
//! instruction the compute stream ran) and `async stream` (what the async
//! stream ran: each job, and the instructions of a wrapped computation) —
//! plus one async track per asynchronous operation in flight, from its
//! start to the moment its result was ready. Arrows (flow events) go from
//! each start to the done that waited for it, and from member to member of
//! every collective instance, so a collective's coupling of devices is
//! visible.
//!
//! Invariants the format requires, and [`check_nesting`] verifies:
//! - on one thread, complete (`X`) slices nest — a slice that begins inside
//!   another ends inside it — because a thread's events are instructions
//!   and the loops and calls that ran them; slices are written parents
//!   first (by start, longest first) so a reader that sorts by time keeps
//!   them nested;
//! - two async operations in flight at once are never slices of one
//!   thread: each is a `b`/`e` pair with an id of its own, which viewers
//!   draw on a track of its own;
//! - every flow arrow (`bind_id` on a slice, version 2 of the format's
//!   flows) starts at exactly one slice and enters at least one (a slice
//!   it enters and leaves is a step of a chain).
//!
//! Each slice carries `args`: the opcode, the result's shape and bytes,
//! JAX's `op_name` and the source location from the instruction's
//! metadata; a collective also its peers, the bytes it received and its
//! wait, transfer and host times. Categories (`cat`): `compute`,
//! `collective`, `control`, `async`, `trivial`; `trivial` slices
//! (parameters, constants, tuples, get-tuple-element, bitcasts) can be left
//! out ([`TraceOptions::hide_trivial`]).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Duration;

use serde_json::{Map, Value as Json, json};
use weft_ir::{Instr, Module, Opcode};

use super::timeline::{CollectiveRecord, DeviceTimeline, Event, Track};

/// What a trace shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceOptions {
    /// Leave out parameters, constants, tuples, get-tuple-element and
    /// bitcasts.
    pub hide_trivial: bool,
}

/// Microseconds, the format's unit, exact to the nanosecond.
fn micros(duration: Duration) -> Json {
    let nanos = duration.as_nanos();
    let text = format!("{}.{:03}", nanos / 1000, nanos % 1000);
    Json::Number(text.parse().unwrap_or_else(|_| serde_json::Number::from(0)))
}

/// Whether `opcode` only names or regroups values.
fn is_trivial(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::Parameter
            | Opcode::Constant
            | Opcode::Tuple
            | Opcode::GetTupleElement
            | Opcode::Bitcast
            | Opcode::AfterAll
    )
}

/// The category of an instruction's slice.
fn category(module: &Module, instr: Instr) -> &'static str {
    let opcode = module.instr(instr).opcode;
    if is_trivial(opcode) {
        "trivial"
    } else if opcode.has(weft_ir::opcode::Flags::COLLECTIVE)
        || opcode.has(weft_ir::opcode::Flags::FIRST_CLASS_START)
        || opcode.has(weft_ir::opcode::Flags::FIRST_CLASS_DONE)
    {
        "collective"
    } else if opcode.is_generic_async() {
        "async"
    } else if matches!(opcode, Opcode::While | Opcode::Call | Opcode::Conditional) {
        "control"
    } else {
        "compute"
    }
}

/// The `args` every slice of `instr` carries.
fn instruction_args(module: &Module, instr: Instr) -> Map<String, Json> {
    let data = module.instr(instr);
    let mut args = Map::new();
    args.insert("opcode".into(), json!(data.opcode.name()));
    let mut shape = String::new();
    weft_ir::text::print_shape_without_layout(&module.shapes, &mut shape, data.shape);
    args.insert("shape".into(), json!(shape));
    args.insert(
        "bytes".into(),
        json!(weft_cost::work::shape_bytes(module, data.shape)),
    );
    if let Some(metadata) = data.metadata.as_deref() {
        if !metadata.op_name.is_empty() {
            args.insert("op_name".into(), json!(&*metadata.op_name));
        }
        if let Some(file) = &metadata.source_file {
            args.insert(
                "source".into(),
                json!(format!("{file}:{}", metadata.source_line)),
            );
        }
    }
    args
}

/// The figures of a collective instance, added to its slice's `args`.
fn collective_args(args: &mut Map<String, Json>, record: &CollectiveRecord) {
    args.insert("peers".into(), json!(record.peers));
    args.insert("bytes_received".into(), json!(record.bytes));
    args.insert("instance".into(), json!(record.occurrence));
    args.insert("wait_us".into(), micros(record.wait()));
    args.insert("transfer_us".into(), micros(record.transfer));
    args.insert("host_us".into(), micros(record.host));
}

/// An arrow a slice takes part in (version 2 of the format's flows).
#[derive(Clone, Debug)]
struct Flow {
    id: String,
    into: bool,
    out: bool,
}

/// One slice to write: the event, the collective instance it ran (if it
/// is one) and its arrow from a start to a done (if it has one).
struct Slice<'t> {
    event: &'t Event,
    record: Option<&'t CollectiveRecord>,
    flow: Option<Flow>,
}

/// A device's slices in the order they are written (parents before
/// children: by track, start, then the longest first), each matched with
/// its collective record and its start→done arrow. The same timeline gives
/// the same sequence every time, so the writer can walk it twice.
fn slices<'t>(
    module: &Module,
    device: usize,
    timeline: &'t DeviceTimeline,
    options: TraceOptions,
) -> Vec<Slice<'t>> {
    // The records of each instruction, in the order they ran, by the
    // stream that ran them (a start's slice on the compute stream is not
    // its collective's).
    let mut records: HashMap<(Instr, bool), VecDeque<&CollectiveRecord>> = HashMap::new();
    let mut sorted: Vec<&CollectiveRecord> = timeline.collectives.iter().collect();
    sorted.sort_by_key(|r| (Module::instr_index(r.instr), r.occurrence));
    for record in sorted {
        records
            .entry((record.instr, record.asynchronous))
            .or_default()
            .push_back(record);
    }
    // Which span each start's and done's slice belongs to: the k-th slice
    // of an instruction is its k-th span's.
    let mut spans_of_start: HashMap<Instr, VecDeque<u64>> = HashMap::new();
    let mut spans_of_done: HashMap<Instr, VecDeque<u64>> = HashMap::new();
    let mut by_start: Vec<_> = timeline.async_spans.iter().collect();
    by_start.sort_by_key(|span| (span.started, span.id));
    for span in &by_start {
        spans_of_start
            .entry(span.start)
            .or_default()
            .push_back(span.id);
    }
    let mut by_done: Vec<_> = timeline
        .async_spans
        .iter()
        .filter_map(|span| span.done.map(|(done, at)| (at, span.id, done)))
        .collect();
    by_done.sort();
    for (_, id, done) in by_done {
        spans_of_done.entry(done).or_default().push_back(id);
    }
    let mut ordered: Vec<&Event> = timeline
        .events
        .iter()
        .filter(|e| !(options.hide_trivial && is_trivial(module.instr(e.instr).opcode)))
        .collect();
    ordered.sort_by(|a, b| {
        (a.track == Track::Async)
            .cmp(&(b.track == Track::Async))
            .then(a.start.cmp(&b.start))
            .then(b.duration.cmp(&a.duration))
    });
    ordered
        .into_iter()
        .map(|event| {
            let on_stream = event.track == Track::Async;
            let record = records
                .get_mut(&(event.instr, on_stream))
                .and_then(VecDeque::pop_front);
            let pop = |map: &mut HashMap<Instr, VecDeque<u64>>| {
                map.get_mut(&event.instr).and_then(VecDeque::pop_front)
            };
            let flow = if on_stream {
                None
            } else if let Some(span) = pop(&mut spans_of_start) {
                Some(Flow {
                    id: format!("d{device}.a{span}"),
                    into: false,
                    out: true,
                })
            } else {
                pop(&mut spans_of_done).map(|span| Flow {
                    id: format!("d{device}.a{span}"),
                    into: true,
                    out: false,
                })
            };
            Slice {
                event,
                record,
                flow,
            }
        })
        .collect()
}

/// The arrows between the members of each collective instance, chained in
/// device order, by (device, slice position): only slices with no arrow of
/// their own (a start's arrow to its done wins).
fn member_flows(
    module: &Module,
    devices: &[DeviceTimeline],
    options: TraceOptions,
) -> HashMap<(usize, usize), Flow> {
    let mut members: BTreeMap<(usize, u64, usize), Vec<(usize, usize)>> = BTreeMap::new();
    for (device, timeline) in devices.iter().enumerate() {
        for (position, slice) in slices(module, device, timeline, options).iter().enumerate() {
            if let (Some(record), None) = (slice.record, &slice.flow) {
                let key = (
                    Module::instr_index(record.instr),
                    record.occurrence,
                    record.group,
                );
                members.entry(key).or_default().push((device, position));
            }
        }
    }
    let mut flows = HashMap::new();
    for ((instr, occurrence, group), slices) in members {
        if slices.len() < 2 {
            continue;
        }
        let last = slices.len() - 1;
        for (place, at) in slices.into_iter().enumerate() {
            flows.insert(
                at,
                Flow {
                    id: format!("c{instr}.{occurrence}.{group}"),
                    into: place > 0,
                    out: place < last,
                },
            );
        }
    }
    flows
}

/// The Chrome trace of every device's timeline, as a string.
pub fn chrome_trace(module: &Module, devices: &[DeviceTimeline], options: TraceOptions) -> String {
    let mut out = Vec::new();
    write_chrome_trace(module, devices, options, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// Writes the Chrome trace of every device's timeline to `out`, one event
/// at a time (a long run's trace is never held in memory whole).
pub fn write_chrome_trace(
    module: &Module,
    devices: &[DeviceTimeline],
    options: TraceOptions,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let names: Vec<String> = (0..devices.len()).map(|d| format!("device {d}")).collect();
    write_named_chrome_trace(module, devices, &names, options, out)
}

/// [`write_chrome_trace`] with each timeline's process named by `names`
/// (a simulation's timelines are classes of devices, named by them).
pub fn write_named_chrome_trace(
    module: &Module,
    devices: &[DeviceTimeline],
    names: &[String],
    options: TraceOptions,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let members = member_flows(module, devices, options);
    out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
    let mut first = true;
    let mut write = |event: &Json, out: &mut dyn std::io::Write| -> std::io::Result<()> {
        if !first {
            out.write_all(b",\n")?;
        }
        first = false;
        serde_json::to_writer(&mut *out, event).map_err(std::io::Error::other)
    };
    for (device, timeline) in devices.iter().enumerate() {
        for (name, tid, args) in [
            (
                "process_name",
                None,
                json!({"name": names.get(device).cloned().unwrap_or_else(|| format!("device {device}"))}),
            ),
            ("process_sort_index", None, json!({"sort_index": device})),
            ("thread_name", Some(0), json!({"name": "compute"})),
            ("thread_name", Some(1), json!({"name": "async stream"})),
        ] {
            let mut event = json!({"ph": "M", "pid": device, "name": name, "args": args});
            if let Some(tid) = tid {
                event["tid"] = json!(tid);
            }
            write(&event, out)?;
        }
        for (position, slice) in slices(module, device, timeline, options)
            .into_iter()
            .enumerate()
        {
            let event = slice.event;
            let mut args = instruction_args(module, event.instr);
            if let Some(record) = slice.record {
                collective_args(&mut args, record);
            }
            let mut object = Map::new();
            if let Some(flow) = slice
                .flow
                .or_else(|| members.get(&(device, position)).cloned())
            {
                object.insert("bind_id".into(), json!(flow.id));
                if flow.into {
                    object.insert("flow_in".into(), json!(true));
                }
                if flow.out {
                    object.insert("flow_out".into(), json!(true));
                }
            }
            object.insert("ph".into(), json!("X"));
            object.insert("pid".into(), json!(device));
            object.insert(
                "tid".into(),
                json!(match event.track {
                    Track::Compute => 0,
                    Track::Async => 1,
                }),
            );
            object.insert("name".into(), json!(&*module.instr(event.instr).name));
            object.insert("cat".into(), json!(category(module, event.instr)));
            object.insert("ts".into(), micros(event.start));
            object.insert("dur".into(), micros(event.duration));
            object.insert("args".into(), Json::Object(args));
            write(&Json::Object(object), out)?;
        }
        for span in &timeline.async_spans {
            let name = &*module.instr(span.start).name;
            let id = format!("d{device}.a{}", span.id);
            let mut args = instruction_args(module, span.start);
            args.insert("in_flight_us".into(), micros(span.ready - span.started));
            args.insert("queued_us".into(), micros(span.began - span.started));
            if let Some((done, at)) = span.done {
                args.insert("done".into(), json!(&*module.instr(done).name));
                args.insert("exposed_us".into(), micros(span.ready.saturating_sub(at)));
            }
            write(
                &json!({"ph": "b", "pid": device, "tid": 1, "cat": "async",
                    "name": name, "id": id, "ts": micros(span.started), "args": args}),
                out,
            )?;
            write(
                &json!({"ph": "e", "pid": device, "tid": 1, "cat": "async",
                    "name": name, "id": id, "ts": micros(span.ready)}),
                out,
            )?;
        }
    }
    out.write_all(b"\n]}\n")
}

/// A slice while checking nesting: start and end in nanoseconds, name.
type CheckedSlice = (i128, i128, String);

/// Checks a Chrome trace against the format's rules (see the module docs):
/// slices on one thread nest, every async begin has one end with the same
/// id no earlier than it, every flow arrow leaves one slice and enters
/// another. Returns what breaks them.
pub fn check_nesting(trace: &str) -> Result<(), String> {
    let parsed: Json = serde_json::from_str(trace).map_err(|e| format!("not JSON: {e}"))?;
    let events = parsed["traceEvents"]
        .as_array()
        .ok_or("no traceEvents array")?;
    let nanos = |value: &Json| -> Result<i128, String> {
        let micros = value.as_f64().ok_or("a time that is not a number")?;
        Ok((micros * 1000.0).round() as i128)
    };
    let mut threads: BTreeMap<(u64, u64), Vec<CheckedSlice>> = BTreeMap::new();
    let mut asyncs: BTreeMap<(u64, String), (Vec<i128>, Vec<i128>)> = BTreeMap::new();
    let mut flows: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for event in events {
        let pid = event["pid"].as_u64().unwrap_or(0);
        match event["ph"].as_str() {
            Some("X") => {
                let start = nanos(&event["ts"])?;
                let end = start + nanos(&event["dur"])?;
                let tid = event["tid"].as_u64().unwrap_or(0);
                let name = event["name"].as_str().unwrap_or("").to_string();
                threads
                    .entry((pid, tid))
                    .or_default()
                    .push((start, end, name));
                if let Some(id) = event["bind_id"].as_str() {
                    let entry = flows.entry(id.to_string()).or_default();
                    let into = event["flow_in"] == json!(true);
                    // Where the arrow starts: out of a slice it does not
                    // enter (a slice it enters and leaves is a step).
                    if event["flow_out"] == json!(true) && !into {
                        entry.0 += 1;
                    }
                    if into {
                        entry.1 += 1;
                    }
                }
            }
            Some(phase @ ("b" | "e")) => {
                let id = event["id"]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| event["id"].as_u64().map(|n| n.to_string()))
                    .ok_or("an async event without an id")?;
                let entry = asyncs.entry((pid, id)).or_default();
                let at = nanos(&event["ts"])?;
                if phase == "b" {
                    entry.0.push(at);
                } else {
                    entry.1.push(at);
                }
            }
            _ => {}
        }
    }
    for ((pid, tid), mut slices) in threads {
        slices.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut open: Vec<CheckedSlice> = Vec::new();
        for slice in slices {
            // Slices that ended by the time this one starts are closed.
            while open.last().is_some_and(|top| top.1 <= slice.0) {
                open.pop();
            }
            if let Some(top) = open.last()
                && slice.1 > top.1
            {
                return Err(format!(
                    "process {pid} thread {tid}: {} ({}..{} ns) overlaps {} ({}..{} ns) without nesting in it",
                    slice.2, slice.0, slice.1, top.2, top.0, top.1
                ));
            }
            open.push(slice);
        }
    }
    for ((pid, id), (begins, ends)) in asyncs {
        if begins.len() != 1 || ends.len() != 1 || ends[0] < begins[0] {
            return Err(format!(
                "process {pid}: async id {id} has {} begin(s) and {} end(s)",
                begins.len(),
                ends.len()
            ));
        }
    }
    for (id, (out, into)) in flows {
        if out != 1 || into == 0 {
            return Err(format!(
                "flow {id} starts at {out} slice(s) and enters {into}: it must start at one and enter at least one"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_exact_microseconds() {
        assert_eq!(
            micros(Duration::from_nanos(1_234_567)).to_string(),
            "1234.567"
        );
        assert_eq!(micros(Duration::ZERO).to_string(), "0.0");
    }

    #[test]
    fn the_checker_catches_partial_overlap_and_dangling_flows() {
        let overlapping = r#"{"traceEvents":[
            {"ph":"X","pid":0,"tid":0,"name":"a","ts":0,"dur":10},
            {"ph":"X","pid":0,"tid":0,"name":"b","ts":5,"dur":10}]}"#;
        assert!(check_nesting(overlapping).unwrap_err().contains("overlaps"));
        let touching = r#"{"traceEvents":[
            {"ph":"X","pid":0,"tid":0,"name":"a","ts":0,"dur":10},
            {"ph":"X","pid":0,"tid":0,"name":"b","ts":0,"dur":0},
            {"ph":"X","pid":0,"tid":0,"name":"c","ts":10,"dur":10}]}"#;
        assert_eq!(check_nesting(touching), Ok(()));
        let nested = r#"{"traceEvents":[
            {"ph":"X","pid":0,"tid":0,"name":"a","ts":0,"dur":10},
            {"ph":"X","pid":0,"tid":0,"name":"b","ts":0,"dur":0},
            {"ph":"X","pid":0,"tid":0,"name":"c","ts":5,"dur":5},
            {"ph":"X","pid":0,"tid":1,"name":"d","ts":5,"dur":10}]}"#;
        assert_eq!(check_nesting(nested), Ok(()));
        let dangling = r#"{"traceEvents":[
            {"ph":"X","pid":0,"tid":0,"name":"a","ts":0,"dur":1,"bind_id":"f","flow_out":true}]}"#;
        assert!(check_nesting(dangling).unwrap_err().contains("flow f"));
        let unended = r#"{"traceEvents":[{"ph":"b","pid":0,"id":"x","ts":0}]}"#;
        assert!(check_nesting(unended).unwrap_err().contains("async id x"));
    }
}

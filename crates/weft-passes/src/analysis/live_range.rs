//! Live ranges under a schedule (XLA's `HloLiveRange`), and peak memory.
//!
//! **Order.** The program is flattened into one sequence of steps: the
//! entry's schedule (or, for an unscheduled module, XLA's post-order), with
//! each control-flow callee flattened just before the instruction that calls
//! it — a while's condition and body, a conditional's branches, a call's
//! callee, and an async-start's wrapped computation. A computation is
//! flattened once, at its first call site; embedded computations (fusion
//! bodies, reducers) are part of their instruction and take no steps. The
//! step of an instruction is its time.
//!
//! **Live ranges.** A value is live from its definition to the last time an
//! instruction reads a position holding it (the entry's parameters, which
//! the caller owns, and constants, which are part of the program, for the
//! whole program):
//! a `get-tuple-element` reads only the element it takes, any other user
//! reads every position of its operand. A value in the entry's result lives
//! to the end. A value of a loop's state (a position of the loop, or of its
//! body's or condition's parameter) lives through the whole loop. Because an
//! async-start holds its operands (`{0,i}`) and its done reads the start, an
//! operand of a start stays live until its done — the buffer is in flight.
//! A buffer is live from its values' first start to their last end.
//!
//! **Memory.** The bytes live at each step are the sizes of the buffers live
//! then; the peak is the largest, with the buffers live at it.
//!
//! Invariants: times are dense from 0; every buffer with a value defined at
//! a step has a range inside the program's span.

use std::fmt::Write as _;

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::{Comp, Instr, Module, Opcode};

use super::alias::{Aliases, BufferId};
use super::call_graph::{CallContext, CallGraph, call_context};
use super::dataflow::{Dataflow, ValueId};

/// A buffer's live range, in steps (both ends included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveRange {
    /// The first step it is live.
    pub start: usize,
    /// The last step it is live.
    pub end: usize,
}

/// The program's order and every buffer's live range.
pub struct LiveRanges {
    /// The flattened program, one instruction per step.
    pub order: Vec<Instr>,
    time: FxHashMap<Instr, usize>,
    ranges: FxHashMap<BufferId, LiveRange>,
}

/// The bytes live over the program, and the peak.
pub struct MemoryProfile {
    /// Bytes live at each step.
    pub live_bytes: Vec<u64>,
    /// The largest.
    pub peak_bytes: u64,
    /// The first step where it is reached.
    pub peak_step: usize,
    /// The buffers live at the peak, largest first.
    pub live_at_peak: Vec<BufferId>,
}

impl LiveRanges {
    /// The live ranges of `module`'s buffers.
    pub fn of(module: &Module, flow: &Dataflow, aliases: &Aliases) -> LiveRanges {
        let graph = CallGraph::of(module);
        let mut order = Vec::new();
        let mut spans: FxHashMap<Comp, (usize, usize)> = FxHashMap::default();
        if let Some(entry) = module.entry {
            let mut flattened = FxHashSet::default();
            flatten(module, entry, &mut order, &mut flattened, &mut spans);
        }
        let time: FxHashMap<Instr, usize> =
            order.iter().enumerate().map(|(t, &i)| (i, t)).collect();
        let last = order.len().saturating_sub(1);
        let mut value_ranges: FxHashMap<ValueId, LiveRange> = FxHashMap::default();
        let extend = |value: ValueId, at: usize, ranges: &mut FxHashMap<ValueId, LiveRange>| {
            let range = ranges
                .entry(value)
                .or_insert(LiveRange { start: at, end: at });
            range.start = range.start.min(at);
            range.end = range.end.max(at);
        };
        // Definitions.
        for (id, value) in flow.values().iter().enumerate() {
            let Some(&defined) = time.get(&value.instruction) else {
                continue;
            };
            let opcode = module.instr(value.instruction).opcode;
            let is_entry_parameter = opcode == Opcode::Parameter
                && Some(module.parent(value.instruction)) == module.entry;
            // The caller owns the entry's parameters, and constants are part
            // of the program itself: both are live for the whole program,
            // as XLA's buffer assignment gives them allocations of their own.
            if is_entry_parameter || opcode == Opcode::Constant {
                extend(ValueId(id as u32), 0, &mut value_ranges);
                extend(ValueId(id as u32), last, &mut value_ranges);
            } else {
                extend(ValueId(id as u32), defined, &mut value_ranges);
            }
        }
        // Uses, the result, loop state.
        let mut users: FxHashMap<Instr, Vec<Instr>> = FxHashMap::default();
        for &instr in &order {
            for &operand in module.instr(instr).operands.iter() {
                users.entry(operand).or_default().push(instr);
            }
        }
        let entry_root = module.entry.and_then(|e| module.comp(e).root());
        for &instr in &order {
            let loop_span = loop_span_of(module, &graph, &spans, &time, instr);
            for position in flow.positions(instr) {
                let mut ends = Vec::new();
                for &user in users.get(&instr).into_iter().flatten() {
                    let reads = match module.instr(user).opcode {
                        Opcode::GetTupleElement => match &module.instr(user).attrs {
                            weft_ir::attrs::Attrs::GetTupleElement { index } => {
                                position.index.first() == Some(index)
                            }
                            _ => true,
                        },
                        _ => true,
                    };
                    if reads && let Some(&at) = time.get(&user) {
                        ends.push(at);
                    }
                }
                if Some(instr) == entry_root {
                    ends.push(last);
                }
                if let Some((from, to)) = loop_span {
                    ends.push(from);
                    ends.push(to);
                }
                for &value in &position.values {
                    if !value_ranges.contains_key(&value) {
                        continue;
                    }
                    for &at in &ends {
                        extend(value, at, &mut value_ranges);
                    }
                }
            }
        }
        // In flight: whatever a start reads stays live until its done (the
        // transfer reads it all along), even when no position of the start
        // holds it (an all-reduce-start's result is a new buffer).
        for &instr in &order {
            if !is_async_start(module.instr(instr).opcode) {
                continue;
            }
            let Some(done) = chain_end(module, &users, &time, instr) else {
                continue;
            };
            for &operand in module.instr(instr).operands.iter() {
                for position in flow.positions(operand) {
                    for &value in &position.values {
                        if value_ranges.contains_key(&value) {
                            extend(value, done, &mut value_ranges);
                        }
                    }
                }
            }
        }
        let mut ranges: FxHashMap<BufferId, LiveRange> = FxHashMap::default();
        for (value, range) in value_ranges {
            let buffer = aliases.buffer_of(value);
            let merged = ranges.entry(buffer).or_insert(range);
            merged.start = merged.start.min(range.start);
            merged.end = merged.end.max(range.end);
        }
        LiveRanges {
            order,
            time,
            ranges,
        }
    }

    /// The step of `instr`, when it takes one.
    pub fn time(&self, instr: Instr) -> Option<usize> {
        self.time.get(&instr).copied()
    }

    /// The range of `buffer`, when it is live at all.
    pub fn range(&self, buffer: BufferId) -> Option<LiveRange> {
        self.ranges.get(&buffer).copied()
    }

    /// Every live buffer with its range, by buffer id.
    pub fn ranges(&self) -> Vec<(BufferId, LiveRange)> {
        let mut all: Vec<(BufferId, LiveRange)> =
            self.ranges.iter().map(|(&b, &r)| (b, r)).collect();
        all.sort_by_key(|&(b, _)| b);
        all
    }

    /// Bytes live at each step, and the peak.
    pub fn memory(&self, aliases: &Aliases) -> MemoryProfile {
        let steps = self.order.len();
        let mut delta = vec![0i128; steps + 1];
        for (buffer, range) in self.ranges() {
            let bytes = aliases.buffer(buffer).bytes as i128;
            delta[range.start] += bytes;
            delta[range.end + 1] -= bytes;
        }
        let mut live_bytes = Vec::with_capacity(steps);
        let mut running = 0i128;
        for change in delta.iter().take(steps) {
            running += change;
            live_bytes.push(running.max(0) as u64);
        }
        let (peak_step, peak_bytes) = live_bytes
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
            .map_or((0, 0), |(step, &bytes)| (step, bytes));
        let mut live_at_peak: Vec<BufferId> = self
            .ranges()
            .into_iter()
            .filter(|(_, r)| r.start <= peak_step && peak_step <= r.end)
            .map(|(b, _)| b)
            .filter(|&b| aliases.buffer(b).bytes > 0)
            .collect();
        live_at_peak.sort_by_key(|&b| std::cmp::Reverse(aliases.buffer(b).bytes));
        MemoryProfile {
            live_bytes,
            peak_bytes,
            peak_step,
            live_at_peak,
        }
    }

    /// The ranges as text: each buffer's size, first value and range.
    pub fn dump(&self, module: &Module, flow: &Dataflow, aliases: &Aliases) -> String {
        let mut out = String::new();
        for (buffer, range) in self.ranges() {
            let data = aliases.buffer(buffer);
            let first = flow.describe(module, data.values[0]);
            let _ = writeln!(
                out,
                "buffer {} {first} ({} B): [{}, {}]",
                buffer.0, data.bytes, range.start, range.end
            );
        }
        out
    }
}

/// Whether `opcode` begins an asynchronous operation.
fn is_async_start(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::AsyncStart
            | Opcode::AllReduceStart
            | Opcode::AllGatherStart
            | Opcode::CollectivePermuteStart
            | Opcode::CopyStart
            | Opcode::Send
            | Opcode::Recv
    )
}

/// The step of the last element of `start`'s chain: its done, reached
/// through async-updates (and tuples or get-tuple-elements that carry the
/// chain's value).
fn chain_end(
    module: &Module,
    users: &FxHashMap<Instr, Vec<Instr>>,
    time: &FxHashMap<Instr, usize>,
    start: Instr,
) -> Option<usize> {
    let mut latest = None;
    let mut pending = vec![start];
    let mut seen = FxHashSet::default();
    while let Some(current) = pending.pop() {
        for &user in users.get(&current).into_iter().flatten() {
            if !seen.insert(user) {
                continue;
            }
            let opcode = module.instr(user).opcode;
            if opcode.has(weft_ir::opcode::Flags::FIRST_CLASS_DONE) || opcode == Opcode::AsyncDone {
                latest = latest.max(time.get(&user).copied());
            } else if matches!(
                opcode,
                Opcode::AsyncUpdate | Opcode::Tuple | Opcode::GetTupleElement
            ) {
                pending.push(user);
            }
        }
    }
    latest
}

/// Appends `comp`'s instructions to `order`, each control-flow callee
/// before its caller, and records the span each computation takes.
fn flatten(
    module: &Module,
    comp: Comp,
    order: &mut Vec<Instr>,
    flattened: &mut FxHashSet<Comp>,
    spans: &mut FxHashMap<Comp, (usize, usize)>,
) {
    // Iterative: call chains may be deep.
    enum Step {
        Enter(Comp),
        Place(Instr),
        Close(Comp, usize),
    }
    let mut pending = vec![Step::Enter(comp)];
    while let Some(step) = pending.pop() {
        match step {
            Step::Enter(comp) => {
                if !flattened.insert(comp) {
                    continue;
                }
                let sequence: Vec<Instr> = match module.schedule().sequence(comp) {
                    Some(sequence) => sequence.to_vec(),
                    None => weft_ir::order::post_order(module, comp),
                };
                pending.push(Step::Close(comp, order.len()));
                for &instr in sequence.iter().rev() {
                    pending.push(Step::Place(instr));
                    let data = module.instr(instr);
                    if call_context(data.opcode) == CallContext::ControlFlow
                        && data.opcode != Opcode::AsyncDone
                        && data.opcode != Opcode::AsyncUpdate
                    {
                        for &callee in data.callees.iter().rev() {
                            pending.push(Step::Enter(callee));
                        }
                    }
                }
            }
            Step::Place(instr) => order.push(instr),
            Step::Close(comp, start) => {
                spans.insert(comp, (start, order.len().saturating_sub(1)));
            }
        }
    }
}

/// For a position of a loop's state — the while itself, or a parameter of
/// its condition or body — the steps the loop spans: from its first
/// callee's first step to the while's own.
fn loop_span_of(
    module: &Module,
    graph: &CallGraph,
    spans: &FxHashMap<Comp, (usize, usize)>,
    time: &FxHashMap<Instr, usize>,
    instr: Instr,
) -> Option<(usize, usize)> {
    let data = module.instr(instr);
    let while_instr = match data.opcode {
        Opcode::While => instr,
        Opcode::Parameter => {
            graph
                .callers_of(module.parent(instr))
                .iter()
                .find(|site| module.instr(site.instr).opcode == Opcode::While)?
                .instr
        }
        _ => return None,
    };
    let end = *time.get(&while_instr)?;
    let start = module
        .instr(while_instr)
        .callees
        .iter()
        .filter_map(|callee| spans.get(callee).map(|s| s.0))
        .min()
        .unwrap_or(end);
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::find;

    fn analyse(text: &str) -> (Module, Dataflow, Aliases) {
        let module = weft_ir::text::parse(text).expect("parses");
        let flow = Dataflow::of(&module);
        let aliases = Aliases::of(&module, &flow);
        (module, flow, aliases)
    }

    #[test]
    fn an_operand_of_an_async_start_lives_until_its_done() {
        let (module, flow, aliases) = analyse(
            "HloModule m, is_scheduled=true\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\nENTRY %main (p: f32[256]) -> f32[256] {\n  %p = f32[256] parameter(0)\n  %a = f32[256] negate(%p)\n  %start = f32[256] all-reduce-start(%a), replica_groups={{0,1}}, to_apply=%add\n  %busy = f32[256] exponential(%p)\n  %more = f32[256] sqrt(%busy)\n  %done = f32[256] all-reduce-done(%start)\n  ROOT %out = f32[256] add(%done, %more)\n}\n",
        );
        let ranges = LiveRanges::of(&module, &flow, &aliases);
        let a = aliases.buffer_of(flow.value_set(find(&module, "a"), &[])[0]);
        let done_at = ranges.time(find(&module, "done")).unwrap();
        assert_eq!(ranges.range(a).unwrap().end, done_at);
        let memory = ranges.memory(&aliases);
        // At %more: %p (an entry parameter, live throughout), %a (in
        // flight), the start's result, %busy and %more: 5 × 1 KiB.
        assert_eq!(memory.peak_bytes, 5 * 1024);
        assert_eq!(
            memory.peak_step,
            ranges.time(find(&module, "more")).unwrap()
        );
    }

    #[test]
    fn loop_state_lives_through_the_loop() {
        let (module, flow, aliases) = analyse(
            "HloModule m\n\n%cond (c: s32[]) -> pred[] {\n  %c = s32[] parameter(0)\n  %ten = s32[] constant(10)\n  ROOT %lt = pred[] compare(%c, %ten), direction=LT\n}\n\n%body (b: s32[]) -> s32[] {\n  %b = s32[] parameter(0)\n  %one = s32[] constant(1)\n  ROOT %next = s32[] add(%b, %one)\n}\n\nENTRY %main () -> s32[] {\n  %zero = s32[] constant(0)\n  ROOT %loop = s32[] while(%zero), condition=%cond, body=%body\n}\n",
        );
        let ranges = LiveRanges::of(&module, &flow, &aliases);
        let state = aliases.buffer_of(flow.value_set(find(&module, "loop"), &[])[0]);
        let range = ranges.range(state).unwrap();
        assert_eq!(range.end, ranges.order.len() - 1);
        assert!(range.start <= ranges.time(find(&module, "c")).unwrap());
    }
}

//! Parsing the largest computation body on several threads.
//!
//! Real modules keep nearly all of their instructions in one computation (the
//! entry of a training step runs to hundreds of thousands of lines), so the parser
//! splits the largest body into chunks at line starts. The main parser reads the
//! text up to the first chunk while worker threads parse the chunks: each worker
//! takes a run of consecutive chunks, one after another, and runs the ordinary
//! parser over each into a private module, a [`Fragment`], which it hands over as
//! soon as it is done. When the main parser's instruction loop reaches a chunk's
//! first byte exactly, it merges the fragment instruction by instruction instead
//! of parsing those lines again; so the main parser merges one chunk while the
//! worker parses the next, and waits at the end only for the last, small one.
//!
//! Invariants:
//! - the module, the source map and every diagnostic are exactly those of the
//!   sequential parse. A worker knows nothing of the text before its chunk, so
//!   what it cannot decide alone is settled at merge, in text order:
//!   - an operand named before the chunk is an *outside* placeholder, resolved by
//!     name in the main parser's scope when the merge first meets it;
//!   - a computation is referred to by name and resolved as the sequential parser
//!     resolves it at that point;
//!   - a declared operand shape (`f32[8]{0} %x` in long-form text) is taken as an
//!     *assumption* about an outside operand and checked against its real shape;
//!   - an instruction whose parse read anything else from outside (an outside
//!     operand's shape with no declared shape, an inferred result shape, a
//!     parameter, an async chain traced back out of the chunk or through a
//!     loop, an async op that changes its computation, a nested or generated
//!     name, a new computation) is a *hole*: the main parser parses its line
//!     itself when the merge reaches it, and the worker treats the hole's result
//!     like an outside operand;
//!   - the start each merged async op's chain began with is recorded as the
//!     main parser records it;
//! - the merge stops before the first instruction that does not fit (an unknown
//!   name, a duplicate, a failed assumption, a second `ROOT`) and the main parser
//!   carries on sequentially from that instruction's first byte, so a diagnostic
//!   always comes from the sequential parser;
//! - a line the worker fails to parse is a hole too, and the worker goes on at
//!   the next line; the merge checks that the main parser's parse of the hole
//!   ends exactly where the next item starts, and otherwise carries on
//!   sequentially from there.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::attrs::{Attrs, PlainAttrs};
use crate::entity::EntityRef;
use crate::module::{Comp, Instr, InstrData, Module};
use crate::opcode::Opcode;
use crate::shape::{Shape, ShapeData, ShapeTable};
use crate::text::lexer::Tok;
use crate::text::parser::{PResult, Parser, Scope};
use crate::text::source_map::SourceMap;

/// The smallest body worth splitting. Below this a second thread saves
/// nothing: modules of about 4 MB (the mixtral and gemma benchmarks, or a
/// generated module of 30k lines) parsed no faster, and often 10–15% slower,
/// in a fresh process with a worker than without, while 17 MB parsed 10%
/// faster and 50 MB 15%.
const MIN_SPLIT_BODY_BYTES: usize = 4 << 20;

/// The smallest chunk a worker is given.
const MIN_CHUNK_BYTES: usize = 128 << 10;

/// How many chunks a worker's share of the body is cut into: the main parser
/// merges one while the worker parses the next, so it waits at the end only for
/// the merge of the last. More chunks leave less to wait for but cost more
/// lookups of names defined in an earlier chunk.
const CHUNKS_PER_WORKER: usize = 16;

/// The most worker threads one parse starts.
const MAX_WORKERS: usize = 7;

/// One chunk a worker parses: lines from `start` (the first byte of an
/// instruction) to `stop` (the next chunk's start) or the end of the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub start: u32,
    /// Where the next chunk starts; `u32::MAX` for the last chunk of the body.
    pub stop: u32,
}

/// A computation body written at the start of a line (`name … {` at column 0
/// up to `}` at column 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Body {
    /// The `{` opening it.
    pub open: usize,
    /// Its first byte (after the header's newline) and the `}` closing it.
    pub start: usize,
    pub end: usize,
    /// How many lines come before its first line, and how many it has.
    pub lines_before: usize,
    pub lines: usize,
}

/// What the lines of a text look like, from one pass over its bytes.
pub(crate) struct LineSurvey {
    /// The number of `\n` bytes.
    pub newlines: usize,
    /// The largest top-level body.
    pub largest_body: Option<Body>,
    /// Every top-level body big enough to split, in text order.
    pub splittable_bodies: Vec<Body>,
}

/// Counts lines and finds the top-level computation bodies worth splitting.
pub(crate) fn survey_lines(src: &str) -> LineSurvey {
    let bytes = src.as_bytes();
    let mut survey = LineSurvey {
        newlines: 0,
        largest_body: None,
        splittable_bodies: Vec::new(),
    };
    // The open body: its `{`, its first byte and the line count there.
    let mut open: Option<(usize, usize, usize)> = None;
    let mut line_start = 0;
    let mut visit_line = |survey: &mut LineSurvey, line_start: usize, line_end: usize| {
        let line = &bytes[line_start..line_end];
        match line.first() {
            Some(b'}') => {
                let Some((brace, start, header_line)) = open.take() else {
                    return;
                };
                let body = Body {
                    open: brace,
                    start,
                    end: line_start,
                    lines_before: header_line + 1,
                    lines: survey.newlines - header_line - 1,
                };
                if body.end - body.start >= MIN_SPLIT_BODY_BYTES {
                    survey.splittable_bodies.push(body);
                }
                if survey
                    .largest_body
                    .is_none_or(|largest| largest.end - largest.start < body.end - body.start)
                {
                    survey.largest_body = Some(body);
                }
            }
            Some(b' ' | b'\t' | b'\r') | None => {}
            Some(_) => {
                let trimmed = line.trim_ascii_end();
                if trimmed.ends_with(b"{") {
                    open = Some((
                        line_start + trimmed.len() - 1,
                        line_end + 1,
                        survey.newlines,
                    ));
                }
            }
        }
    };
    for newline in memchr::memchr_iter(b'\n', bytes) {
        visit_line(&mut survey, line_start, newline);
        survey.newlines += 1;
        line_start = newline + 1;
    }
    if line_start < bytes.len() {
        visit_line(&mut survey, line_start, bytes.len());
    }
    survey
}

/// Merging a worker's instructions costs about this share of parsing them (the
/// main parser moves each one over, resolves its operands and names it).
const MERGE_COST: f64 = 0.31;

/// The main parser reads text about this much slower than a worker: its name
/// table holds the whole body, where a worker's holds one chunk's names, so
/// more of its lookups miss the cache.
const MAIN_PARSE_COST: f64 = 1.15;

/// Parsing a line costs about as much as parsing this many more of its bytes
/// (measured on the generated million-line module: about 1.15 µs a line and
/// 6 ns a byte). Lines of small computations are short, so text full of them
/// takes longer per byte than the long lines of a big body.
const LINE_COST_IN_BYTES: f64 = 180.0;

/// The chunks each worker parses, in text order, or none when splitting would
/// not pay.
///
/// Costs count bytes and lines (see [`LINE_COST_IN_BYTES`]; lines are taken as
/// evenly spread over a body). The main parser reads at `MAIN_PARSE_COST` a
/// unit and merges a worker's text at `MERGE_COST`; `w` workers parse the tail
/// of a body in equal shares, one unit a unit each, going on from body to body.
/// Going through the bodies in text order, the tail of cost `x` that the
/// workers take from a body of cost `B` is the one with which the main parser
/// and the workers finish the body together:
/// `arrival + MAIN_PARSE_COST·(B - x) + MERGE_COST·x = workers_free + x / w`,
/// where `arrival` is when the main parser reaches the body and `workers_free`
/// when the workers are done with the bodies before (a body the workers reach
/// late is left to the main parser, one they reach early goes to them whole).
/// For a single body that is the share
/// `(1/w - MERGE_COST) / (MAIN_PARSE_COST - MERGE_COST + 1/w)`
/// of the text up to its end for the main parser.
pub(crate) fn plan_chunks(src: &str, bodies: &[Body], threads: usize) -> Vec<Vec<Chunk>> {
    if threads < 2 || u32::try_from(src.len()).is_err() {
        return Vec::new();
    }
    let most_workers = (threads - 1).min(MAX_WORKERS);
    // Times in cost units: when the main parser is done with the text up to
    // cost `main_at`, and when the workers are free.
    let (mut main_time, mut main_at, mut workers_free) = (0.0f64, 0.0f64, 0.0f64);
    // (first byte of the workers' tail, end of the body, workers).
    let mut tails: Vec<(usize, usize, usize)> = Vec::new();
    for body in bodies {
        let bytes = body.end - body.start;
        let workers = most_workers.min(bytes / MIN_CHUNK_BYTES).max(1);
        let per_worker = 1.0 / workers as f64;
        let cost_before = body.start as f64 + LINE_COST_IN_BYTES * body.lines_before as f64;
        let cost_per_byte = 1.0 + LINE_COST_IN_BYTES * body.lines as f64 / bytes as f64;
        let cost = cost_per_byte * bytes as f64;
        let arrival = main_time + MAIN_PARSE_COST * (cost_before - main_at);
        let tail = ((arrival + MAIN_PARSE_COST * cost - workers_free)
            / (per_worker + MAIN_PARSE_COST - MERGE_COST))
            .clamp(0.0, cost);
        let first = body.end - ((tail / cost_per_byte) as usize).min(bytes);
        main_at = cost_before + cost;
        if body.end - first < MIN_CHUNK_BYTES {
            main_time = arrival + MAIN_PARSE_COST * cost;
            continue;
        }
        workers_free += tail * per_worker;
        main_time =
            (arrival + MAIN_PARSE_COST * (cost - tail) + MERGE_COST * tail).max(workers_free);
        tails.push((first, body.end, workers));
    }
    // What one thread would take for the same text, against the plan.
    let saving = MAIN_PARSE_COST * main_at - main_time;
    if tails.is_empty() || saving < MIN_CHUNK_BYTES as f64 {
        return Vec::new();
    }
    let bytes = src.as_bytes();
    // (worker, first byte of the chunk), in text order.
    let mut starts: Vec<(usize, usize)> = Vec::new();
    for (first, body_end, workers) in tails {
        let line_start_after = |at: usize| -> Option<usize> {
            let newline = at + memchr::memchr(b'\n', bytes.get(at..body_end)?)?;
            let mut first = newline + 1;
            while first < body_end && matches!(bytes[first], b' ' | b'\t') {
                first += 1;
            }
            (first < body_end).then_some(first)
        };
        let share = (body_end - first) / workers;
        let chunks_per_worker = (share / MIN_CHUNK_BYTES).clamp(1, CHUNKS_PER_WORKER);
        let chunk_len = share / chunks_per_worker;
        for worker in 0..workers {
            for k in 0..chunks_per_worker {
                // The line after the cut point (the body's first line when the
                // cut is its first byte, since the cut then follows the
                // header's newline).
                let at = (first + worker * share + k * chunk_len).saturating_sub(1);
                let Some(start) = line_start_after(at) else {
                    continue;
                };
                if starts.last().is_none_or(|&(_, last)| start > last) {
                    starts.push((worker, start));
                }
            }
        }
    }
    chunks_for_workers(&starts)
}

/// The chunks of each worker from `(worker, first byte)` pairs in increasing
/// byte order: each chunk runs up to the next one, the last to the end of its
/// body.
pub(crate) fn chunks_for_workers(starts: &[(usize, usize)]) -> Vec<Vec<Chunk>> {
    let mut workers: Vec<Vec<Chunk>> = Vec::new();
    for (k, &(worker, start)) in starts.iter().enumerate() {
        if workers.len() <= worker {
            workers.resize_with(worker + 1, Vec::new);
        }
        workers[worker].push(Chunk {
            start: start as u32,
            stop: starts.get(k + 1).map_or(u32::MAX, |&(_, next)| next as u32),
        });
    }
    workers.retain(|chunks| !chunks.is_empty());
    workers
}

/// Parses the module with one body split over up to `threads` threads when that
/// pays; the result is the sequential parse's.
pub(crate) fn parse_module<'s>(
    parser: &mut Parser<'s>,
    survey: &LineSurvey,
    threads: usize,
) -> PResult<()> {
    if let Some(body) = survey.largest_body {
        parser.largest_body = Some((body.open as u32, body.lines));
    }
    let workers = plan_chunks(parser.src, &survey.splittable_bodies, threads);
    parse_module_in_chunks(parser, &workers)
}

/// Parses the module with each worker thread parsing its chunks (text order
/// across and within workers), or sequentially when there are none.
pub(crate) fn parse_module_in_chunks<'s>(
    parser: &mut Parser<'s>,
    workers: &[Vec<Chunk>],
) -> PResult<()> {
    if workers.is_empty() {
        return parser.module();
    }
    let src = parser.src;
    let record_spans = parser.record_spans;
    let cancel = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for chunks in workers {
            let (give_back, given_back) = mpsc::channel::<Fragment<'_>>();
            let (senders, pending): (Vec<_>, Vec<_>) = chunks
                .iter()
                .map(|chunk| {
                    let (sender, receiver) = mpsc::channel();
                    let pending = PendingFragment {
                        start: chunk.start,
                        receiver,
                        give_back: give_back.clone(),
                    };
                    (sender, pending)
                })
                .unzip();
            // Only the pending fragments hold senders now, so the worker's wait
            // for given-back fragments ends once the main parser has dropped them.
            drop(give_back);
            let cancel = &cancel;
            let worker = std::thread::Builder::new()
                .name("weft-parse".to_string())
                .spawn_scoped(scope, move || {
                    for (&chunk, sender) in chunks.iter().zip(senders) {
                        if cancel.load(Ordering::Relaxed) {
                            break;
                        }
                        // The main parser may have passed this chunk without
                        // merging it; the next may still be merged.
                        let _ = sender.send(parse_chunk(src, chunk, record_spans, cancel));
                    }
                    // Frees the merged fragments here rather than on the main
                    // parser's time.
                    for fragment in given_back {
                        drop(fragment);
                    }
                });
            // Without a thread (the system refused one), the main parser simply
            // parses those chunks itself.
            if worker.is_ok() {
                parser.fragments.extend(pending);
            }
        }
        let result = parser.module();
        // Workers whose chunk the main parser never reached stop early.
        cancel.store(true, Ordering::Relaxed);
        parser.fragments.clear();
        result
    })
}

/// A fragment a worker is still parsing.
pub(crate) struct PendingFragment<'s> {
    /// The first byte of the worker's chunk.
    pub start: u32,
    receiver: mpsc::Receiver<Fragment<'s>>,
    /// Takes the fragment back to its worker once merged, to be freed there
    /// (once the worker has parsed all its chunks) rather than on the main
    /// parser's time.
    give_back: mpsc::Sender<Fragment<'s>>,
}

/// What a worker knows that the main parser must settle: see the module docs.
#[derive(Default)]
pub(crate) struct ChunkState<'s> {
    /// Names used before their definition in the chunk → outside placeholder.
    outside: FxHashMap<&'s str, Instr>,
    /// Outside placeholders and holes: instructions whose data is not known here.
    untrusted: FxHashSet<Instr>,
    /// Shapes declared for untrusted instructions where they were used.
    assumed: FxHashMap<Instr, Shape>,
    /// Computation names → placeholder computations.
    comp_refs: FxHashMap<&'s str, Comp>,
    /// Whether the instruction being parsed read something from outside.
    depended: Cell<bool>,
    /// The name of the instruction just registered.
    pub last_name: Option<&'s str>,
}

/// One instruction of a fragment.
struct Item<'s> {
    /// The worker's instruction; `None` for a line the worker could not parse.
    instr: Option<Instr>,
    /// The instruction's first byte (`ROOT` or its name).
    start: u32,
    name: Option<&'s str>,
    /// Whether the main parser parses this line itself.
    hole: bool,
}

/// A chunk as a worker parsed it.
pub(crate) struct Fragment<'s> {
    module: Module,
    spans: SourceMap,
    name_keys: Vec<Option<crate::names::NameKey>>,
    items: Vec<Item<'s>>,
    outside: FxHashMap<Instr, &'s str>,
    comp_refs: FxHashMap<Comp, &'s str>,
    assumed: FxHashMap<Instr, Shape>,
    /// The start of each async op's chain, as the worker recorded it.
    chain_starts: FxHashMap<Instr, Instr>,
    root: Option<Instr>,
    /// Where the main parser continues after the fragment: the first byte of
    /// the instruction the worker stopped before (or of the body's `}`).
    end: u32,
}

/// A worker: parses the instructions of `chunk` into a fragment.
fn parse_chunk<'s>(
    src: &'s str,
    chunk: Chunk,
    record_spans: bool,
    cancel: &AtomicBool,
) -> Fragment<'s> {
    let stop = chunk.stop as usize;
    let estimated_lines = (stop.min(src.len()) - chunk.start as usize) / 64 + 16;
    let mut p = Parser::with_capacity(src, estimated_lines);
    p.record_spans = record_spans;
    p.seek(chunk.start as usize);
    p.chunk = Some(Box::default());
    let body = p.m.add_comp("");
    let mut names = crate::text::parser::ScopeNames::default();
    names.reserve(estimated_lines, &p.m.instrs);
    p.scopes.push(Scope {
        comp: body,
        names,
        synthetic: Default::default(),
        root: None,
    });
    let mut items = Vec::with_capacity(estimated_lines);
    let end = loop {
        let start = p.tok.start;
        if start as usize >= stop || p.at(Tok::RBrace) || p.at(Tok::Eof) {
            break start;
        }
        if items.len() % 1024 == 0 && cancel.load(Ordering::Relaxed) {
            break start;
        }
        let instrs_before = p.m.instrs.len();
        let comps_before = p.m.comps.len();
        let state = p.chunk.as_deref_mut().expect("a worker");
        let refs_before = state.comp_refs.len();
        let outside_before = state.outside.len();
        state.depended.set(false);
        state.last_name = None;
        let Ok(instr) = p.instruction() else {
            // The main parser parses this line (and reports its error, if the
            // error is real); the worker goes on at the next line.
            items.push(Item {
                instr: None,
                start,
                name: None,
                hole: true,
            });
            match next_line_start(src, start as usize) {
                Some(next) if next < stop => p.seek(next),
                Some(next) => break next as u32,
                None => break src.len() as u32,
            }
            continue;
        };
        let state = p.chunk.as_deref().expect("a worker");
        let data = &p.m.instrs[instr];
        let hole = state.depended.get()
            // Nested instructions and compact get-tuple-elements (outside
            // placeholders are instructions too).
            || p.m.instrs.len() - instrs_before != 1 + state.outside.len() - outside_before
            // Computations made by the instruction (async wrappers, inline bodies).
            || p.m.comps.len() - comps_before != state.comp_refs.len() - refs_before
            // Sugared async ops change the computation their chain wraps.
            || data.attrs.as_async().is_some_and(|a| a.sugar_opcode.is_some())
            || data.opcode == Opcode::Parameter
            // Names that the parser's `<opcode>.anon` counter must see in order.
            || data.name.contains(".anon");
        let name = state.last_name;
        if hole {
            p.chunk
                .as_deref_mut()
                .expect("a worker")
                .untrusted
                .insert(instr);
        }
        items.push(Item {
            instr: Some(instr),
            start,
            name,
            hole,
        });
    };
    let scope = p.scopes.pop().expect("pushed above");
    let state = p.chunk.take().expect("a worker");
    Fragment {
        items,
        outside: state.outside.into_iter().map(|(n, i)| (i, n)).collect(),
        comp_refs: state.comp_refs.into_iter().map(|(n, c)| (c, n)).collect(),
        assumed: state.assumed,
        chain_starts: std::mem::take(&mut p.chain_starts),
        root: scope.root,
        end,
        spans: std::mem::take(&mut p.spans),
        name_keys: std::mem::take(&mut p.name_keys),
        module: std::mem::replace(&mut p.m, Module::new("")),
    }
}

/// The first non-blank byte of the line after the one containing `at`.
fn next_line_start(src: &str, at: usize) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut next = at + memchr::memchr(b'\n', bytes.get(at..)?)? + 1;
    while next < bytes.len() && matches!(bytes[next], b' ' | b'\t') {
        next += 1;
    }
    (next < bytes.len()).then_some(next)
}

/// The worker side: how the parser treats what lies outside its chunk.
impl<'s> Parser<'s> {
    /// An operand's shape, for a check that reads it. On a worker, reading an
    /// untrusted operand's shape with no assumption about it makes the
    /// instruction a hole.
    pub(crate) fn operand_shape(&self, operand: Instr) -> Shape {
        if let Some(chunk) = &self.chunk
            && chunk.untrusted.contains(&operand)
            && !chunk.assumed.contains_key(&operand)
        {
            chunk.depended.set(true);
        }
        self.m.shape_of(operand)
    }

    /// The shape of an operand written with a `declared` shape. On a worker, the
    /// first declared shape of an untrusted operand becomes the assumption the
    /// merge checks.
    pub(crate) fn declared_operand_shape(&mut self, operand: Instr, declared: Shape) -> Shape {
        if let Some(chunk) = self.chunk.as_deref_mut()
            && chunk.untrusted.contains(&operand)
            && !chunk.assumed.contains_key(&operand)
        {
            chunk.assumed.insert(operand, declared);
            self.m.instrs[operand].shape = declared;
        }
        self.m.shape_of(operand)
    }

    /// The async-start or async-update whose value reaches `first` (an update's
    /// or done's operand). On a worker, a walk that reads an untrusted
    /// instruction, a parameter or a while loop (whose callers and body are
    /// outside the chunk) makes the instruction a hole.
    pub(crate) fn async_producer(&self, first: Instr) -> Option<Instr> {
        let mut tracer = crate::async_chain::ChainTracer::new(&self.m);
        let Some(chunk) = &self.chunk else {
            return tracer.producer(first, &[]);
        };
        tracer.producer_visiting(first, &[], |instr| {
            if chunk.untrusted.contains(&instr)
                || matches!(
                    self.m.instrs[instr].opcode,
                    Opcode::Parameter | Opcode::While
                )
            {
                chunk.depended.set(true);
            }
        })
    }

    /// Notes that the instruction being parsed depends on more than its chunk.
    pub(crate) fn note_outside_dependency(&self) {
        if let Some(chunk) = &self.chunk {
            chunk.depended.set(true);
        }
    }

    /// Looks an operand up; a worker makes an outside placeholder for a name its
    /// chunk has not defined.
    pub(crate) fn lookup_operand(&mut self, name: &'s str) -> Option<Instr> {
        let found = self.lookup(name);
        if found.is_some() || self.chunk.is_none() {
            return found;
        }
        let parent = self.current_comp();
        let token = self.m.shapes.token();
        let chunk = self.chunk.as_deref_mut()?;
        if let Some(&placeholder) = chunk.outside.get(name) {
            return Some(placeholder);
        }
        // Not in the computation's body: the merge maps it to the real operand.
        let placeholder = self.m.instrs.push(InstrData {
            name: name.to_string(),
            opcode: Opcode::Parameter,
            shape: token,
            operands: Vec::new(),
            callees: Vec::new(),
            attrs: Attrs::Plain(PlainAttrs::default()),
            common: None,
            metadata: None,
            parent,
        });
        chunk.outside.insert(name, placeholder);
        chunk.untrusted.insert(placeholder);
        Some(placeholder)
    }

    /// A worker's computation reference: a placeholder per name.
    pub(crate) fn chunk_computation_ref(&mut self, name: &'s str) -> Comp {
        if let Some(&comp) = self.chunk.as_deref().and_then(|c| c.comp_refs.get(name)) {
            return comp;
        }
        let comp = self.m.add_comp(name);
        if let Some(chunk) = self.chunk.as_deref_mut() {
            chunk.comp_refs.insert(name, comp);
        }
        comp
    }
}

/// Fragment handles → the main module's, filled as the merge goes.
struct HandleMap {
    instrs: Vec<Option<Instr>>,
    comps: Vec<Option<Comp>>,
    shapes: Vec<Option<Shape>>,
}

/// The main side: merging fragments.
impl<'s> Parser<'s> {
    /// Whether the instruction loop is at the first byte of a worker's chunk;
    /// drops fragments the main parser has passed without landing on them.
    pub(crate) fn at_fragment(&mut self) -> bool {
        while let Some(next) = self.fragments.front() {
            if self.tok.start < next.start {
                return false;
            }
            if self.tok.start == next.start && self.scopes.len() == 1 {
                return true;
            }
            self.fragments.pop_front();
        }
        false
    }

    /// Merges the fragment starting here (see the module docs), then leaves the
    /// parser where the sequential parse must continue.
    pub(crate) fn merge_fragment(&mut self) -> PResult<()> {
        let Some(pending) = self.fragments.pop_front() else {
            return Ok(());
        };
        let Ok(mut fragment) = pending.receiver.recv() else {
            return Ok(());
        };
        let mut map = HandleMap {
            instrs: vec![None; fragment.module.instrs.len()],
            comps: vec![None; fragment.module.comps.len()],
            shapes: vec![None; fragment.module.shapes.len()],
        };
        let items = std::mem::take(&mut fragment.items);
        let mut resume = fragment.end;
        for (k, item) in items.iter().enumerate() {
            if item.hole {
                self.seek(item.start as usize);
                let instr = self.instruction()?;
                let next = items.get(k + 1).map_or(fragment.end, |next| next.start);
                let assumption_holds = item.instr.is_none_or(|hole| {
                    map.instrs[hole.index()] = Some(instr);
                    fragment.assumed.get(&hole).is_none_or(|&assumed| {
                        self.remap_shape(&fragment.module.shapes, &mut map, assumed)
                            == self.m.shape_of(instr)
                    })
                });
                if !assumption_holds || self.tok.start != next {
                    resume = self.tok.start;
                    break;
                }
                continue;
            }
            if self.merge_instr(&mut fragment, &mut map, item).is_none() {
                resume = item.start;
                break;
            }
        }
        self.seek(resume as usize);
        // Its worker frees what is left of it (if the worker is gone, it is
        // freed here).
        fragment.items = items;
        let _ = pending.give_back.send(fragment);
        Ok(())
    }

    /// Adds one instruction of the fragment, or returns `None` (changing
    /// nothing) when it does not fit what the main parser has built.
    fn merge_instr(
        &mut self,
        fragment: &mut Fragment<'s>,
        map: &mut HandleMap,
        item: &Item<'s>,
    ) -> Option<()> {
        let worker_instr = item.instr?;
        // Resolve every handle first (which only fills `map`), so that nothing
        // changes when the instruction does not fit.
        let data = &fragment.module.instrs[worker_instr];
        for &operand in data.operands.iter().chain(data.control_predecessors()) {
            self.resolve(fragment, map, operand)?;
        }
        for &callee in &data.callees {
            self.resolve_comp(fragment, map, callee)?;
        }

        let is_root = fragment.root == Some(worker_instr);
        let scope = self.scopes.last_mut()?;
        if is_root && scope.root.is_some() {
            return None;
        }
        let instr = self.m.instrs.next_key();
        // A chain's start is the op itself or precedes it, so it is merged
        // already.
        let chain_start = match fragment.chain_starts.get(&worker_instr) {
            Some(&start) if start == worker_instr => Some(instr),
            Some(start) => Some(map.instrs[start.index()]?),
            None => None,
        };
        // The last check: once the name is recorded, the instruction is added.
        if let Some(name) = item.name
            && scope.names.insert(&self.m.instrs, name, instr).is_err()
        {
            return None;
        }
        if is_root {
            scope.root = Some(instr);
        }
        // Everything fits: move the instruction over.
        let comp = scope.comp;
        let mapped = |handle: Instr| map.instrs[handle.index()].expect("resolved above");
        let data = &mut fragment.module.instrs[worker_instr];
        for operand in &mut data.operands {
            *operand = mapped(*operand);
        }
        if let Some(common) = data.common.as_deref_mut() {
            for predecessor in &mut common.control_predecessors {
                *predecessor = mapped(*predecessor);
            }
        }
        for callee in &mut data.callees {
            *callee = map.comps[callee.index()].expect("resolved above");
        }
        let mut data = InstrData {
            name: std::mem::take(&mut data.name),
            opcode: data.opcode,
            shape: data.shape,
            operands: std::mem::take(&mut data.operands),
            callees: std::mem::take(&mut data.callees),
            attrs: std::mem::replace(&mut data.attrs, Attrs::Plain(PlainAttrs::default())),
            common: data.common.take(),
            metadata: data.metadata.take(),
            parent: comp,
        };
        let shapes = &fragment.module.shapes;
        data.shape = self.remap_shape(shapes, map, data.shape);
        match &mut data.attrs {
            Attrs::Outfeed {
                outfeed_shape: Some(shape),
                ..
            } => *shape = self.remap_shape(shapes, map, *shape),
            Attrs::CustomCall(call) => {
                if let Some(constraints) = &mut call.operand_layout_constraints {
                    for shape in constraints {
                        *shape = self.remap_shape(shapes, map, *shape);
                    }
                }
            }
            _ => {}
        }
        let added = self.m.add_instr(data);
        debug_assert_eq!(added, instr);
        if let Some(start) = chain_start {
            self.chain_starts.insert(instr, start);
        }
        map.instrs[worker_instr.index()] = Some(instr);
        if self.record_spans {
            self.spans.copy_instr(&fragment.spans, worker_instr, instr);
        }
        let key = fragment
            .name_keys
            .get(worker_instr.index())
            .copied()
            .flatten();
        self.set_name_key(instr, key);
        Some(())
    }

    /// The main module's instruction for a fragment operand: merged already, or
    /// an outside placeholder looked up by name (and checked against any shape
    /// the worker assumed for it).
    fn resolve(
        &mut self,
        fragment: &Fragment<'s>,
        map: &mut HandleMap,
        operand: Instr,
    ) -> Option<Instr> {
        if let Some(instr) = map.instrs[operand.index()] {
            return Some(instr);
        }
        let name = fragment.outside.get(&operand)?;
        let instr = self.lookup(name)?;
        if let Some(&assumed) = fragment.assumed.get(&operand)
            && self.remap_shape(&fragment.module.shapes, map, assumed) != self.m.shape_of(instr)
        {
            return None;
        }
        map.instrs[operand.index()] = Some(instr);
        Some(instr)
    }

    /// The main module's computation for a fragment's placeholder, resolved as
    /// [`computation_ref`](Self::computation_ref) resolves a name.
    fn resolve_comp(
        &mut self,
        fragment: &Fragment<'s>,
        map: &mut HandleMap,
        callee: Comp,
    ) -> Option<Comp> {
        if let Some(comp) = map.comps[callee.index()] {
            return Some(comp);
        }
        let name = fragment.comp_refs.get(&callee)?;
        let comp = *self.comp_names.get(*name)?;
        if self.scopes.iter().any(|s| s.comp == comp) {
            return None;
        }
        map.comps[callee.index()] = Some(comp);
        Some(comp)
    }

    /// A fragment shape interned in the main module's table.
    fn remap_shape(&mut self, from: &ShapeTable, map: &mut HandleMap, shape: Shape) -> Shape {
        if let Some(mapped) = map.shapes[shape.index()] {
            return mapped;
        }
        let data = match from.get(shape) {
            ShapeData::Tuple(elements) => ShapeData::Tuple(
                elements
                    .iter()
                    .map(|&e| self.remap_shape(from, map, e))
                    .collect(),
            ),
            ShapeData::Buffer(inner) => ShapeData::Buffer(self.remap_shape(from, map, *inner)),
            ShapeData::Array(array) => {
                let mut array = array.clone();
                if let Some(layout) = array.layout.as_deref_mut()
                    && let Some(physical) = layout.physical_shape
                {
                    layout.physical_shape = Some(self.remap_shape(from, map, physical));
                }
                ShapeData::Array(array)
            }
            other => other.clone(),
        };
        let mapped = self.m.shapes.intern(data);
        map.shapes[shape.index()] = Some(mapped);
        mapped
    }
}

#[cfg(test)]
mod tests {
    use super::{CHUNKS_PER_WORKER, Chunk, MIN_SPLIT_BODY_BYTES, plan_chunks, survey_lines};

    fn module(body_lines: usize) -> String {
        let mut text = String::from(
            "HloModule m\n\n%small (a: f32[]) -> f32[] {\n  ROOT %a = f32[] parameter(0)\n}\n\nENTRY %main () -> f32[] {\n",
        );
        for i in 0..body_lines {
            text.push_str(&format!("  %c{i} = f32[] constant({i})\n"));
        }
        text.push_str("  ROOT %r = f32[] constant(0)\n}\n");
        text
    }

    #[test]
    fn the_survey_finds_the_largest_body() {
        let text = module(3);
        let survey = survey_lines(&text);
        assert_eq!(survey.newlines, text.matches('\n').count());
        let body = survey.largest_body.expect("a body");
        assert!(text[body.start..].starts_with("  %c0 = "));
        assert!(text[body.end..].starts_with("}\n") && body.end == text.len() - 2);
        assert_eq!(&text[body.open..=body.open], "{");
        assert!(text[..body.open].ends_with("ENTRY %main () -> f32[] "));
        assert_eq!(body.lines, 4);
        assert_eq!(body.lines_before, 7);
        assert_eq!(text[..body.start].matches('\n').count(), body.lines_before);
    }

    /// Every chunk starts at an instruction line of the body, the chunks are in
    /// text order across workers, and each runs up to the next.
    fn check_chunks(text: &str, workers: &[Vec<Chunk>]) -> Vec<Chunk> {
        let chunks: Vec<Chunk> = workers.iter().flatten().copied().collect();
        for (k, chunk) in chunks.iter().enumerate() {
            let start = chunk.start as usize;
            assert!(
                text[start..].starts_with("%c"),
                "{:?}",
                &text[start..start + 10]
            );
            assert!(text[..start].ends_with("\n  "));
            let next = chunks.get(k + 1).map_or(u32::MAX, |c| c.start);
            assert!(chunk.start < next);
            assert_eq!(chunk.stop, next);
        }
        chunks
    }

    #[test]
    fn chunks_start_at_instruction_lines_of_the_body() {
        let text = module(150_000);
        let body = survey_lines(&text).largest_body.expect("a body");
        assert!(body.end - body.start >= MIN_SPLIT_BODY_BYTES);
        assert!(plan_chunks(&text, &[body], 1).is_empty());

        // One worker: the main parser reads about (1 - m) / (k + 1 - m) of the
        // text (m, the merge cost, is 0.31; k, its cost of reading, 1.15) and
        // merges the rest as it comes.
        let workers = plan_chunks(&text, &[body], 2);
        assert_eq!(workers.len(), 1);
        let chunks = check_chunks(&text, &workers);
        assert!(chunks.len() > 1 && chunks.len() <= CHUNKS_PER_WORKER);
        let first = chunks[0].start as usize;
        let expected = text.len() as f64 * 0.69 / 1.84;
        assert!(
            (first as f64 - expected).abs() < expected / 10.0,
            "{first} vs {expected}"
        );
        // The chunks are about equal.
        let lengths: Vec<usize> = chunks
            .iter()
            .map(|c| (c.stop as usize).min(body.end) - c.start as usize)
            .collect();
        let (shortest, longest) = (lengths.iter().min(), lengths.iter().max());
        assert!(longest.unwrap() - shortest.unwrap() < 100, "{lengths:?}");

        // Four workers parse faster than the main parser could merge a share
        // of its own, so they take the whole body, in equal shares.
        let workers = plan_chunks(&text, &[body], 5);
        assert_eq!(workers.len(), 4);
        let chunks = check_chunks(&text, &workers);
        assert_eq!(chunks[0].start as usize, body.start + 2);
        let share = (body.end - body.start) / 4;
        for (k, worker) in workers.iter().enumerate() {
            let from = worker[0].start as usize;
            let to = workers
                .get(k + 1)
                .map_or(body.end, |next| next[0].start as usize);
            assert!(
                (to - from).abs_diff(share) < share / 10,
                "{k}: {from}..{to}"
            );
        }

        // A body after a long text is cut at its first line: the main parser
        // reaches it only after reading that text (whose 240k lines cost more
        // than the body's 150k), so the worker gets it all.
        let tail =
            "%small2 (a: f32[]) -> f32[] {\n  ROOT %a = f32[] parameter(0)\n}\n\n".repeat(60_000);
        let late = module(150_000).replacen("ENTRY", &format!("{tail}ENTRY"), 1);
        let late_body = *survey_lines(&late)
            .splittable_bodies
            .last()
            .expect("a body");
        assert!(late_body.lines_before > late_body.lines);
        let workers = plan_chunks(&late, &[late_body], 2);
        assert_eq!(
            check_chunks(&late, &workers)[0].start as usize,
            late_body.start + 2
        );

        let small = module(10);
        let small_body = survey_lines(&small).largest_body.expect("a body");
        assert!(plan_chunks(&small, &[small_body], 8).is_empty());
    }

    /// With two big bodies, the worker takes the tail of each, as much as it can
    /// parse while the main parser reads and merges the rest.
    #[test]
    fn the_worker_takes_the_tail_of_each_big_body() {
        let mut big = String::from("%big (p: f32[]) -> f32[] {\n");
        for i in 0..150_000 {
            big.push_str(&format!("  %b{i} = f32[] constant({i})\n"));
        }
        big.push_str("  ROOT %r = f32[] constant(0)\n}\n\n");
        let text = module(150_000).replacen("ENTRY", &format!("{big}ENTRY"), 1);
        let bodies = survey_lines(&text).splittable_bodies;
        assert_eq!(bodies.len(), 2);
        let workers = plan_chunks(&text, &bodies, 2);
        assert_eq!(workers.len(), 1);
        let starts: Vec<usize> = workers[0].iter().map(|c| c.start as usize).collect();
        for body in &bodies {
            let first = *starts
                .iter()
                .find(|&&s| body.start <= s && s < body.end)
                .expect("a chunk in each body");
            assert!(text[first..].starts_with("%b") || text[first..].starts_with("%c"));
            // Both the main parser and the worker reach the body with the same
            // time behind them, so each takes the share of one body alone.
            let into_body = (first - body.start) as f64 / (body.end - body.start) as f64;
            let expected = 1.0 - 1.15 / 1.84;
            assert!(
                (into_body - expected).abs() < 0.05,
                "{into_body} vs {expected}"
            );
        }
    }
}

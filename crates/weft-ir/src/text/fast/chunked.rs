//! Parsing a module's computation bodies on several threads.
//!
//! Some modules keep nearly all of their instructions in one computation (the
//! entry of a training step runs to hundreds of thousands of lines); others are
//! hundreds of computations of a few dozen lines. The parser cuts the text into
//! chunks at instruction lines: the tail of each big body ([`plan_chunks`]), or
//! the tail of the whole text when no body is big ([`plan_text`]), where a chunk
//! runs on from body to body. The main parser reads the text up to the first
//! chunk while worker threads parse the chunks: each worker takes a run of
//! consecutive chunks, last chunk first, and runs the ordinary parser over
//! each into a private module, a [`Fragment`], which it hands over as soon as
//! it is done. A fragment holds one *segment* per body the chunk reaches into:
//! the worker parses instruction lines up to the body's `}`, then goes on at
//! the first instruction of the next body; the text between (the `}` and the
//! next computation's header) is left to the main parser. When the main
//! parser's instruction loop reaches a segment's first byte exactly, it merges
//! the segment instruction by instruction instead of parsing those lines again.
//! The grammar knows neither side: a worker's parser reaches what its chunk
//! does not know as its [`OutsideText`] ([`ChunkState`]), and the main parser
//! reaches the workers' fragments as its [`ParsedAhead`] ([`Merger`]).
//! A chunk the worker has not started on when the main parser gets there is
//! the main parser's to read itself: whoever claims it first parses it. Since
//! a worker goes from its last chunk back, the main parser reads the chunks at
//! the front of a run until it meets the worker, waits at most for the chunk
//! the worker is in the middle of, and merges the rest: the meeting point
//! follows from how fast each really runs (a worker may run slower than
//! planned, or wait for a core on a busy machine), not from the estimate.
//!
//! Invariants:
//! - the module, the source map and every diagnostic are exactly those of the
//!   sequential parse. A worker knows nothing of the text before its chunk, so
//!   what it cannot decide alone is settled at merge, in text order:
//!   - an operand named before the segment is an *outside* placeholder, resolved
//!     by name in the main parser's scope when the merge first meets it; each
//!     segment has placeholders of its own, since names do not carry over from
//!     one computation to the next;
//!   - a computation is referred to by name and resolved as the sequential parser
//!     resolves it at that point;
//!   - a declared operand shape (`f32[8]{0} %x` in long-form text) is taken as an
//!     *assumption* about an outside operand and checked against its real shape;
//!   - a parameter is merged only if its computation has no parameter of that
//!     number yet;
//!   - an instruction whose parse read anything else from outside (an outside
//!     operand's shape with no declared shape, an inferred result shape, an
//!     async chain traced back out of the chunk or through a
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

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::mpsc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::attrs::{Attrs, PlainAttrs};
use crate::entity::EntityRef;
use crate::module::{Callees, Comp, Instr, InstrData, Module, Operands};
use crate::opcode::Opcode;
use crate::shape::{Shape, ShapeData, ShapeTable};
use crate::text::fast::byte_scan::TextKey;
use crate::text::lexer::Tok;
use crate::text::parser::{PResult, Parser, Scope};
use crate::text::partial::{OutsideText, ParsedAhead};
use crate::text::source_map::SourceMap;

/// The smallest body worth splitting. A body is the best case for a worker
/// (one parser per chunk, nothing left between bodies to the main parser):
/// measured in fresh processes on a machine whose two cores share one, the
/// single body of a generated module parsed 19% faster with a worker at 5 MB,
/// 25% at 10 MB and 30% at 20 MB. (With a parser three times slower per line,
/// 4 MB had parsed no faster, 17 MB 10% faster.)
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

impl Body {
    /// The cost (bytes and lines, see [`LINE_COST_IN_BYTES`]) of the text
    /// before the body.
    fn cost_before(&self) -> f64 {
        self.start as f64 + LINE_COST_IN_BYTES * self.lines_before as f64
    }

    /// The cost of each of its bytes, its lines taken as evenly spread.
    fn cost_per_byte(&self) -> f64 {
        1.0 + LINE_COST_IN_BYTES * self.lines as f64 / (self.end - self.start).max(1) as f64
    }

    /// The cost of the text up to its end.
    fn cost_to_end(&self) -> f64 {
        self.cost_before() + self.cost_per_byte() * (self.end - self.start) as f64
    }
}

/// The first byte from `at` on, before `end`, that is not a space or a tab.
fn skip_blanks(bytes: &[u8], mut at: usize, end: usize) -> usize {
    while at < end && matches!(bytes[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// What the lines of a text look like, from one pass over its bytes.
pub(crate) struct LineSurvey {
    /// The number of `\n` bytes.
    pub newlines: usize,
    /// Every top-level body, in text order.
    pub bodies: Vec<Body>,
}

impl LineSurvey {
    /// The largest top-level body (the first of the largest).
    #[cfg(test)]
    pub fn largest_body(&self) -> Option<Body> {
        self.bodies.iter().copied().reduce(|largest, body| {
            if body.end - body.start > largest.end - largest.start {
                body
            } else {
                largest
            }
        })
    }

    /// Every top-level body big enough to split, in text order.
    pub fn splittable_bodies(&self) -> Vec<Body> {
        self.bodies
            .iter()
            .copied()
            .filter(|body| body.end - body.start >= MIN_SPLIT_BODY_BYTES)
            .collect()
    }
}

/// Counts lines and finds the top-level computation bodies.
pub(crate) fn survey_lines(src: &str) -> LineSurvey {
    let bytes = src.as_bytes();
    let mut survey = LineSurvey {
        newlines: 0,
        bodies: Vec::new(),
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
                survey.bodies.push(Body {
                    open: brace,
                    start,
                    end: line_start,
                    lines_before: header_line + 1,
                    lines: survey.newlines - header_line - 1,
                });
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
    // 64 bytes at a time, as a mask of their newlines: most lines are a
    // few dozen bytes, too short for a `memchr` call per line to pay (which
    // cost three times the instructions).
    let mut visit_newline = |survey: &mut LineSurvey, newline: usize| {
        visit_line(survey, line_start, newline);
        survey.newlines += 1;
        line_start = newline + 1;
    };
    let (blocks, tail) = bytes.as_chunks::<64>();
    let tail_start = bytes.len() - tail.len();
    for (block_index, block) in blocks.iter().enumerate() {
        let mut newlines = crate::text::fast::byte_scan::newline_mask(block);
        while newlines != 0 {
            let newline = block_index * 64 + newlines.trailing_zeros() as usize;
            newlines &= newlines - 1;
            visit_newline(&mut survey, newline);
        }
    }
    for newline in memchr::memchr_iter(b'\n', &bytes[tail_start..]) {
        visit_newline(&mut survey, tail_start + newline);
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
        let cost_before = body.cost_before();
        let cost_per_byte = body.cost_per_byte();
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
            let first = skip_blanks(bytes, newline + 1, body_end);
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

/// The smallest text worth sharing out with workers when no body is big
/// enough to split alone. A worker has fixed costs (it starts running 1.5–3 ms
/// after it is spawned, each chunk starts a parser of its own, and a merged
/// instruction costs the main parser about half of parsing its line), so the
/// faster the parse, the larger the text a worker needs to pay. Measured in
/// fresh processes (as `weft fmt` parses), alternating one and two threads, on a
/// machine whose two cores share one physical core: of eight corpus modules of
/// 1.7–4 MB, seven parsed 10–44% slower with a worker and one 15% faster;
/// modules of many computations made of two to five copies of them (6–21 MB)
/// 7–13% faster, but one of 7 MB 14% slower. (With a parser three times slower
/// per line, on another machine, 4 MB had parsed 10–20% faster.)
const MIN_SHARED_TEXT_BYTES: usize = 8 << 20;

/// A worker parses a module of many computations this much slower per line
/// than the main parser: each chunk starts a parser of its own, and an operand
/// named before the chunk is looked up again at the merge (measured on torax:
/// the worker spent 1.2–1.3× the main parser's time per line).
const WORKER_TEXT_COST: f64 = 1.2;

/// How much more text than the cost estimate gives them the workers of
/// [`plan_text`] are handed. The main parser reads the chunks a worker has not
/// reached, so a worker that runs slower than estimated costs nothing, and one
/// that runs faster (or a main parser slowed down) finds more to do: measured
/// per chunk, a worker's speed on the same text varies by 1.3–1.7× with the
/// module (a chunk starts with empty shape and name tables and fresh memory).
const TAIL_MARGIN: f64 = 1.25;

/// The chunks each worker parses for a module none of whose bodies is big
/// enough to split alone (see [`plan_chunks`]): the workers take the tail of
/// the whole text, cut at line starts of bodies into chunks that each run on
/// through as many bodies as they reach. The main parser reads the text before
/// the tail, and merges the workers' segments as it reaches them. With `w`
/// workers and the text's cost `T` (bytes and lines), the tail's cost `x` is
/// the one with which both finish together:
/// `(T - x) + MERGE_COST·x = WORKER_TEXT_COST·x / w`; the workers are given
/// [`TAIL_MARGIN`] times that. Each worker parses its chunks last first, so the
/// main parser, reading on in text order, takes whatever chunks a worker has
/// not reached: where they meet follows from their real speeds, not the
/// estimate.
pub(crate) fn plan_text(src: &str, bodies: &[Body], threads: usize) -> Vec<Vec<Chunk>> {
    if threads < 2 || src.len() < MIN_SHARED_TEXT_BYTES || u32::try_from(src.len()).is_err() {
        return Vec::new();
    }
    let Some(last) = bodies.last() else {
        return Vec::new();
    };
    let workers = (threads - 1).min(MAX_WORKERS);
    let total = last.cost_to_end();
    let tail =
        (TAIL_MARGIN * total / (1.0 - MERGE_COST + WORKER_TEXT_COST / workers as f64)).min(total);
    let chunk_cost = (tail / (workers * CHUNKS_PER_WORKER) as f64).max(MIN_CHUNK_BYTES as f64);
    let bytes = src.as_bytes();
    // The first instruction line at or after the point of cost `cost`.
    let line_at = |cost: f64| -> Option<usize> {
        let from = bodies.partition_point(|body| body.cost_to_end() <= cost);
        for body in &bodies[from..] {
            let into = ((cost - body.cost_before()) / body.cost_per_byte()).max(0.0) as usize;
            let mut at = body.start + into.min(body.end - body.start);
            if at > body.start {
                // The line after the one the point falls in.
                at += memchr::memchr(b'\n', &bytes[at..body.end]).map_or(body.end - at, |n| n + 1);
            }
            let at = skip_blanks(bytes, at, body.end);
            if at < body.end {
                return Some(at);
            }
        }
        None
    };
    let cuts = (tail / chunk_cost).ceil() as usize;
    let per_worker = cuts.div_ceil(workers);
    let mut starts: Vec<(usize, usize)> = Vec::new();
    for k in 0..cuts {
        let Some(start) = line_at(total - tail + k as f64 * chunk_cost) else {
            break;
        };
        if starts.last().is_none_or(|&(_, last)| start > last) {
            starts.push((k / per_worker, start));
        }
    }
    chunks_for_workers(&starts)
}

/// The first byte of each body's first line that is not blank, in text order:
/// where the main parser's first token in the body is when the line holds an
/// instruction.
pub(crate) fn body_starts(src: &str, bodies: &[Body]) -> Vec<u32> {
    let bytes = src.as_bytes();
    bodies
        .iter()
        .filter_map(|body| {
            let first = skip_blanks(bytes, body.start, body.end);
            (first < body.end).then_some(first as u32)
        })
        .collect()
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

/// Sizes the parser's tables for the module the survey found: each body's
/// instruction list and name table at its line count, and the computation
/// tables at the number of bodies.
pub(crate) fn size_tables(parser: &mut Parser<'_>, survey: &LineSurvey) {
    parser.body_lines = survey
        .bodies
        .iter()
        .map(|body| (body.open as u32, body.lines as u32))
        .collect();
    // Modules of thousands of small computations would otherwise grow these
    // tables a dozen times over.
    let computations = survey.bodies.len();
    parser.m.comps.reserve(computations);
    parser.comp_names.reserve(computations);
    parser.comp_uniquer = crate::names::NameUniquer::with_capacity(computations);
}

/// The chunks each worker parses when the module is parsed on up to `threads`
/// threads: the tails of its big bodies, or else the tail of the whole text;
/// none when splitting would not pay.
pub(crate) fn plan(src: &str, survey: &LineSurvey, threads: usize) -> Vec<Vec<Chunk>> {
    let workers = plan_chunks(src, &survey.splittable_bodies(), threads);
    if workers.is_empty() {
        plan_text(src, &survey.bodies, threads)
    } else {
        workers
    }
}

/// Parses the module with each worker thread parsing its chunks (text order
/// across and within workers), or sequentially when there are none.
pub(crate) fn parse_module_in_chunks<'s>(
    parser: &mut Parser<'s>,
    workers: &[Vec<Chunk>],
    body_starts: &[u32],
    stealing: Stealing,
) -> PResult<()> {
    if workers.is_empty() {
        return parser.module();
    }
    let src = parser.src;
    let record_spans = parser.record_spans;
    let cancel = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let mut merger = Merger {
            fragments: VecDeque::new(),
            open: None,
        };
        for chunks in workers {
            let (give_back, given_back) = mpsc::channel::<Fragment<'_>>();
            let (senders, pending): (Vec<_>, Vec<_>) = chunks
                .iter()
                .enumerate()
                .map(|(k, chunk)| {
                    // One fragment goes through each: a one-slot channel
                    // allocates one slot, where an unbounded one allocates
                    // (and zeroes) room for 31 fragments.
                    let (sender, receiver) = mpsc::sync_channel(1);
                    let claim = Arc::new(AtomicU8::new(stealing.first_claim(k)));
                    let pending = PendingFragment {
                        start: chunk.start,
                        receiver,
                        give_back: give_back.clone(),
                        claim: claim.clone(),
                    };
                    ((sender, claim), pending)
                })
                .unzip();
            // Only the pending fragments hold senders now, so the worker's wait
            // for given-back fragments ends once the main parser has dropped them.
            drop(give_back);
            let cancel = &cancel;
            let worker = std::thread::Builder::new()
                .name("weft-parse".to_string())
                .spawn_scoped(scope, move || {
                    // Last chunk first: the main parser, reading on in text
                    // order, takes the first chunks the worker has not
                    // started, so the two meet wherever their real speeds
                    // put them, and the main parser waits at most for the
                    // one chunk the worker is in the middle of.
                    for (&chunk, (sender, claim)) in chunks.iter().zip(senders).rev() {
                        if cancel.load(Ordering::Relaxed) {
                            break;
                        }
                        if claim
                            .compare_exchange(
                                UNCLAIMED,
                                CLAIMED_BY_WORKER,
                                Ordering::AcqRel,
                                Ordering::Acquire,
                            )
                            .is_err_and(|owner| owner == CLAIMED_BY_MAIN)
                        {
                            // The main parser got there first and reads the
                            // chunk itself.
                            continue;
                        }
                        // The main parser may pass this chunk without merging
                        // it (a merge that stopped early parses on itself).
                        let _ =
                            sender.send(parse_chunk(src, chunk, body_starts, record_spans, cancel));
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
                merger.fragments.extend(pending);
            }
        }
        parser.parsed_ahead = Some(Box::new(merger));
        // A worker waits to free its fragments until every sender of its
        // give-back channel is gone, and the scope waits for the workers: the
        // fragments the main parser holds are let go of even if it panics,
        // or a bug would hang the process instead of reporting itself.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parser.module()));
        // Workers whose chunk the main parser never reached stop early.
        cancel.store(true, Ordering::Relaxed);
        parser.parsed_ahead = None;
        result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Whether the main parser may parse a chunk itself when it gets there before
/// the worker has started on it: a busy machine may keep a worker from running
/// for a while, and the main parser had better read on than wait. The
/// differential tests forbid it, so that every chunk they choose is merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stealing {
    Allowed,
    Forbidden,
    /// Each worker's first, third, … chunk is the main parser's from the
    /// start: the worker skips it and the main parser reads it.
    #[cfg(test)]
    MainTakesEveryOther,
}

impl Stealing {
    /// Who has a worker's `index`th chunk before anyone starts.
    #[cfg_attr(not(test), allow(unused_variables))]
    fn first_claim(self, index: usize) -> u8 {
        match self {
            Stealing::Allowed => UNCLAIMED,
            Stealing::Forbidden => CLAIMED_BY_WORKER,
            #[cfg(test)]
            Stealing::MainTakesEveryOther if index.is_multiple_of(2) => CLAIMED_BY_MAIN,
            #[cfg(test)]
            Stealing::MainTakesEveryOther => CLAIMED_BY_WORKER,
        }
    }
}

/// Who parses a chunk: nobody yet, its worker, or the main parser.
const UNCLAIMED: u8 = 0;
const CLAIMED_BY_WORKER: u8 = 1;
const CLAIMED_BY_MAIN: u8 = 2;

/// A fragment a worker is still parsing.
struct PendingFragment<'s> {
    /// The first byte of the worker's chunk.
    pub start: u32,
    /// Who parses the chunk: the worker takes it when it starts on it, the
    /// main parser when it gets there first.
    claim: Arc<AtomicU8>,
    receiver: mpsc::Receiver<Fragment<'s>>,
    /// Takes the fragment back to its worker once merged, to be freed there
    /// (once the worker has parsed all its chunks) rather than on the main
    /// parser's time.
    give_back: mpsc::Sender<Fragment<'s>>,
}

/// What a worker knows that the main parser must settle: see the module docs.
/// The worker's parser reaches it as its [`OutsideText`]; the worker reads it
/// between instructions.
#[derive(Default)]
struct ChunkState<'s> {
    /// Names used before their definition in the chunk → outside placeholder.
    outside: RefCell<FxHashMap<TextKey<'s>, Instr>>,
    /// Outside placeholders and holes: instructions whose data is not known here.
    untrusted: RefCell<FxHashSet<Instr>>,
    /// Shapes declared for untrusted instructions where they were used.
    assumed: RefCell<FxHashMap<Instr, Shape>>,
    /// Computation names → placeholder computations.
    comp_refs: RefCell<FxHashMap<TextKey<'s>, Comp>>,
    /// Whether the instruction being parsed read something from outside.
    depended: Cell<bool>,
    /// The name of the instruction just registered, with its
    /// [`name_hash`](crate::names::name_hash) (which the merge reuses).
    last_name: Cell<Option<(&'s str, u64)>>,
}

/// One instruction of a fragment.
struct Item<'s> {
    /// The worker's instruction; `None` for a line the worker could not parse.
    instr: Option<Instr>,
    /// The instruction's first byte (`ROOT` or its name).
    start: u32,
    /// Its name and the name's hash.
    name: Option<(&'s str, u64)>,
    /// Whether the main parser parses this line itself.
    hole: bool,
}

/// A chunk as a worker parsed it.
struct Fragment<'s> {
    module: Module,
    spans: SourceMap,
    name_keys: Vec<Option<crate::names::NameKey>>,
    /// The instructions of every segment, in text order.
    items: Vec<Item<'s>>,
    /// The part of each body the chunk covers, in text order.
    segments: Vec<Segment>,
    outside: FxHashMap<Instr, &'s str>,
    comp_refs: FxHashMap<Comp, &'s str>,
    assumed: FxHashMap<Instr, Shape>,
    /// The start of each async op's chain, as the worker recorded it.
    chain_starts: FxHashMap<Instr, Instr>,
}

/// The instructions of one body that a chunk covers. Segments share nothing:
/// each has its own outside placeholders and computation placeholders.
#[derive(Clone)]
struct Segment {
    /// Its first byte: the chunk's start, or the first instruction of a body.
    start: u32,
    /// Its instructions in the fragment's items.
    items: std::ops::Range<usize>,
    root: Option<Instr>,
    /// Where the main parser continues after the segment: the first byte of
    /// the instruction the worker stopped before (or of the body's `}`).
    end: u32,
}

/// A worker: parses the instructions of `chunk` into a fragment, one segment
/// per body the chunk reaches into. At the `}` closing a body, the worker goes
/// on at the first instruction of the next body (`body_starts`) if that is
/// still before the chunk's stop; the main parser parses the text in between
/// (the `}` and the next computation's header) itself.
fn parse_chunk<'s>(
    src: &'s str,
    chunk: Chunk,
    body_starts: &[u32],
    record_spans: bool,
    cancel: &AtomicBool,
) -> Fragment<'s> {
    let stop = chunk.stop as usize;
    let estimated_lines = (stop.min(src.len()) - chunk.start as usize) / 64 + 16;
    let mut p = Parser::with_capacity(src, estimated_lines, record_spans);
    p.seek(chunk.start as usize);
    let state: Rc<ChunkState<'s>> = Rc::default();
    p.outside = Some(state.clone());
    let mut names = crate::text::parser::ScopeNames::default();
    names.reserve(estimated_lines, &p.m.instrs);
    let mut items = Vec::with_capacity(estimated_lines);
    let mut segments = Vec::new();
    let mut outside = FxHashMap::default();
    let mut comp_refs = FxHashMap::default();
    let mut segment_start = chunk.start;
    loop {
        let body = p.m.add_comp("");
        p.scopes.push(Scope {
            comp: body,
            names,
            synthetic: Default::default(),
            root: None,
        });
        let first_item = items.len();
        let end = parse_segment(&mut p, &state, src, stop, &mut items, cancel);
        let mut scope = p.scopes.pop().expect("pushed above");
        segments.push(Segment {
            start: segment_start,
            items: first_item..items.len(),
            root: scope.root,
            end,
        });
        // Names outside one body are not those outside the next.
        outside.extend((state.outside.borrow_mut().drain()).map(|(name, instr)| (instr, name.0)));
        comp_refs.extend((state.comp_refs.borrow_mut().drain()).map(|(name, comp)| (comp, name.0)));
        let next_body = body_starts
            .get(body_starts.partition_point(|&start| start <= end))
            .copied();
        match next_body {
            Some(next)
                if p.at(Tok::RBrace)
                    && (next as usize) < stop
                    && !cancel.load(Ordering::Relaxed) =>
            {
                p.seek(next as usize);
                segment_start = next;
                scope.names.clear();
                names = scope.names;
            }
            _ => break,
        }
    }
    p.outside = None;
    Fragment {
        items,
        segments,
        outside,
        comp_refs,
        assumed: state.assumed.take(),
        chain_starts: std::mem::take(&mut p.chain_starts),
        spans: std::mem::take(&mut p.spans),
        name_keys: std::mem::take(&mut p.name_keys),
        module: std::mem::replace(&mut p.m, Module::new("")),
    }
}

/// Parses the instruction lines of one body from the parser's position up to
/// `stop`, the body's `}` or the end of the text; returns where it stopped.
fn parse_segment<'s>(
    p: &mut Parser<'s>,
    state: &ChunkState<'s>,
    src: &'s str,
    stop: usize,
    items: &mut Vec<Item<'s>>,
    cancel: &AtomicBool,
) -> u32 {
    loop {
        let start = p.tok.start;
        if start as usize >= stop || p.at(Tok::RBrace) || p.at(Tok::Eof) {
            return start;
        }
        if items.len().is_multiple_of(1024) && cancel.load(Ordering::Relaxed) {
            return start;
        }
        let instrs_before = p.m.instrs.len();
        let comps_before = p.m.comps.len();
        let refs_before = state.comp_refs.borrow().len();
        let outside_before = state.outside.borrow().len();
        state.depended.set(false);
        state.last_name.set(None);
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
                Some(next) => return next as u32,
                None => return src.len() as u32,
            }
            continue;
        };
        let data = &p.m.instrs[instr];
        let hole = state.depended.get()
            // Nested instructions and compact get-tuple-elements (outside
            // placeholders are instructions too).
            || p.m.instrs.len() - instrs_before != 1 + state.outside.borrow().len() - outside_before
            // Computations made by the instruction (async wrappers, inline bodies).
            || p.m.comps.len() - comps_before != state.comp_refs.borrow().len() - refs_before
            // Sugared async ops change the computation their chain wraps.
            || data.attrs.as_async().is_some_and(|a| a.sugar_opcode.is_some())
            // Names that the parser's `<opcode>.anon` counter must see in order.
            || data.name.contains(".anon");
        let name = state.last_name.get();
        if hole {
            state.untrusted.borrow_mut().insert(instr);
        }
        items.push(Item {
            instr: Some(instr),
            start,
            name,
            hole,
        });
    }
}

/// The first non-blank byte of the line after the one containing `at`.
fn next_line_start(src: &str, at: usize) -> Option<usize> {
    let bytes = src.as_bytes();
    let newline = at + memchr::memchr(b'\n', bytes.get(at..)?)?;
    let next = skip_blanks(bytes, newline + 1, bytes.len());
    (next < bytes.len()).then_some(next)
}

/// The worker side: how the parser treats what lies outside its chunk.
impl<'s> OutsideText<'s> for ChunkState<'s> {
    /// Reading an untrusted operand's shape with no assumption about it makes
    /// the instruction a hole.
    fn read_shape(&self, operand: Instr) {
        if self.untrusted.borrow().contains(&operand)
            && !self.assumed.borrow().contains_key(&operand)
        {
            self.depended.set(true);
        }
    }

    /// The first declared shape of an untrusted operand becomes the assumption
    /// the merge checks.
    fn assume_shape(&self, operand: Instr, declared: Shape) -> bool {
        if self.untrusted.borrow().contains(&operand)
            && !self.assumed.borrow().contains_key(&operand)
        {
            self.assumed.borrow_mut().insert(operand, declared);
            return true;
        }
        false
    }

    /// A walk that reads an untrusted instruction, a parameter or a while loop
    /// (whose callers and body are outside the chunk) makes the instruction a
    /// hole.
    fn read_chain_link(&self, m: &Module, instr: Instr) {
        if self.untrusted.borrow().contains(&instr)
            || matches!(m.instrs[instr].opcode, Opcode::Parameter | Opcode::While)
        {
            self.depended.set(true);
        }
    }

    fn depend(&self) {
        self.depended.set(true);
    }

    /// An outside placeholder per name: the merge maps it to the real operand.
    fn outside_operand(&self, m: &mut Module, parent: Comp, name: &'s str) -> Instr {
        if let Some(&placeholder) = self.outside.borrow().get(&TextKey(name)) {
            return placeholder;
        }
        // Not in the computation's body.
        let token = m.shapes.token();
        let placeholder = m.add_instr_outside_body(
            parent,
            InstrData {
                name: name.into(),
                opcode: Opcode::Parameter,
                shape: token,
                operands: Operands::new(),
                callees: Callees::new(),
                attrs: Attrs::Plain(PlainAttrs::default()),
                common: None,
                metadata: None,
            },
        );
        self.outside.borrow_mut().insert(TextKey(name), placeholder);
        self.untrusted.borrow_mut().insert(placeholder);
        placeholder
    }

    /// A placeholder computation per name.
    fn outside_computation(&self, m: &mut Module, name: &'s str) -> Comp {
        if let Some(&comp) = self.comp_refs.borrow().get(&TextKey(name)) {
            return comp;
        }
        let comp = m.add_comp(name);
        self.comp_refs.borrow_mut().insert(TextKey(name), comp);
        comp
    }

    fn named(&self, name: Option<(&'s str, u64)>) {
        self.last_name.set(name);
    }
}

/// Fragment handles → the main module's, filled as the merge goes.
struct HandleMap {
    instrs: Vec<Option<Instr>>,
    comps: Vec<Option<Comp>>,
    shapes: Vec<Option<Shape>>,
}

/// A fragment the main parser has received and whose segments it merges as it
/// reaches them.
struct OpenFragment<'s> {
    fragment: Fragment<'s>,
    /// The next segment to merge.
    next: usize,
    /// Fragment handles → the main module's; the segments' handles are
    /// disjoint, so one map serves them all.
    map: HandleMap,
    give_back: mpsc::Sender<Fragment<'s>>,
}

impl OpenFragment<'_> {
    /// Hands the fragment back to its worker to be freed there (if the worker
    /// is gone, it is freed here).
    fn close(self) {
        let _ = self.give_back.send(self.fragment);
    }
}

/// The main parser's side of the workers: the fragments they are parsing, in
/// text order, and the one whose segments the main parser is merging. Dropped
/// when the parse ends (or panics), which hands a merged fragment back to its
/// worker and lets the workers' wait for fragments to free end.
struct Merger<'s> {
    fragments: VecDeque<PendingFragment<'s>>,
    open: Option<OpenFragment<'s>>,
}

impl Drop for Merger<'_> {
    fn drop(&mut self) {
        self.fragments.clear();
        if let Some(open) = self.open.take() {
            open.close();
        }
    }
}

impl<'s> ParsedAhead<'s> for Merger<'s> {
    fn take_in(&mut self, parser: &mut Parser<'s>) -> PResult<bool> {
        if (self.fragments.is_empty() && self.open.is_none()) || !self.at_fragment(parser) {
            return Ok(false);
        }
        self.merge_fragment(parser)?;
        Ok(true)
    }
}

/// The main side: merging fragments.
impl<'s> Merger<'s> {
    /// Whether the instruction loop is at the first byte of a segment a worker
    /// parsed; drops segments and fragments the main parser has passed without
    /// landing on them.
    fn at_fragment(&mut self, parser: &Parser<'s>) -> bool {
        loop {
            if let Some(open) = &mut self.open {
                match open.fragment.segments.get(open.next) {
                    Some(segment) if parser.tok.start < segment.start => return false,
                    Some(segment) if parser.tok.start == segment.start => {
                        if parser.scopes.len() == 1 {
                            return true;
                        }
                        open.next += 1;
                    }
                    Some(_) => open.next += 1,
                    None => {
                        if let Some(open) = self.open.take() {
                            open.close();
                        }
                    }
                }
                continue;
            }
            let Some(next) = self.fragments.front() else {
                return false;
            };
            if parser.tok.start < next.start {
                return false;
            }
            let landed = parser.tok.start == next.start && parser.scopes.len() == 1;
            let pending = self.fragments.pop_front().expect("looked at above");
            let worker_has_it = pending
                .claim
                .compare_exchange(
                    UNCLAIMED,
                    CLAIMED_BY_MAIN,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                )
                .is_err();
            if !landed || !worker_has_it {
                continue;
            }
            // A worker that is gone leaves the text to the main parser.
            let Ok(fragment) = pending.receiver.recv() else {
                return false;
            };
            self.open = Some(OpenFragment {
                map: HandleMap {
                    instrs: vec![None; fragment.module.instrs.len()],
                    comps: vec![None; fragment.module.comps.len()],
                    shapes: vec![None; fragment.module.shapes.len()],
                },
                fragment,
                next: 0,
                give_back: pending.give_back,
            });
        }
    }

    /// Merges the segment starting here (see the module docs), then leaves the
    /// parser where the sequential parse must continue.
    fn merge_fragment(&mut self, parser: &mut Parser<'s>) -> PResult<()> {
        let Some(mut open) = self.open.take() else {
            return Ok(());
        };
        let Some(segment) = open.fragment.segments.get(open.next).cloned() else {
            open.close();
            return Ok(());
        };
        open.next += 1;
        let items = std::mem::take(&mut open.fragment.items);
        let result = parser.merge_segment(&mut open, &items[segment.items.clone()], &segment);
        open.fragment.items = items;
        self.open = Some(open);
        result
    }
}

/// Merging a segment into the main parser's module.
impl<'s> Parser<'s> {
    fn merge_segment(
        &mut self,
        open: &mut OpenFragment<'s>,
        items: &[Item<'s>],
        segment: &Segment,
    ) -> PResult<()> {
        let (fragment, map) = (&mut open.fragment, &mut open.map);
        let mut resume = segment.end;
        for (k, item) in items.iter().enumerate() {
            #[cfg(test)]
            if tests::PANIC_AT.get() == Some(item.start) {
                panic!("injected by a test");
            }
            if item.hole {
                self.seek(item.start as usize);
                let instr = self.instruction()?;
                let next = items.get(k + 1).map_or(segment.end, |next| next.start);
                let assumption_holds = item.instr.is_none_or(|hole| {
                    map.instrs[hole.index()] = Some(instr);
                    fragment.assumed.get(&hole).is_none_or(|&assumed| {
                        self.remap_shape(&fragment.module.shapes, map, assumed)
                            == self.m.shape_of(instr)
                    })
                });
                if !assumption_holds || self.tok.start != next {
                    resume = self.tok.start;
                    break;
                }
                continue;
            }
            if self.merge_instr(fragment, map, segment, item).is_none() {
                resume = item.start;
                break;
            }
        }
        self.seek(resume as usize);
        Ok(())
    }

    /// Adds one instruction of the fragment, or returns `None` (changing
    /// nothing) when it does not fit what the main parser has built.
    fn merge_instr(
        &mut self,
        fragment: &mut Fragment<'s>,
        map: &mut HandleMap,
        segment: &Segment,
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

        // A parameter number the computation has already is the sequential
        // parser's error to report.
        if let Attrs::Parameter(parameter) = &data.attrs
            && self.scope_has_param(parameter.number)
        {
            return None;
        }
        let is_root = segment.root == Some(worker_instr);
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
        if let Some((name, hash)) = item.name
            && scope
                .names
                .insert_hashed(&self.m.instrs, name, hash, instr)
                .is_err()
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
        };
        let shapes = &fragment.module.shapes;
        data.shape = self.remap_shape(shapes, map, data.shape);
        match &mut data.attrs {
            Attrs::Outfeed(outfeed) => {
                if let Some(shape) = &mut outfeed.outfeed_shape {
                    *shape = self.remap_shape(shapes, map, *shape);
                }
            }
            Attrs::CustomCall(call) => {
                if let Some(constraints) = &mut call.operand_layout_constraints {
                    for shape in constraints {
                        *shape = self.remap_shape(shapes, map, *shape);
                    }
                }
            }
            _ => {}
        }
        let added = self.m.add_instr(comp, data);
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
        let comp = *self.comp_names.get(&TextKey(name))?;
        if self.scopes.iter().any(|s| s.comp == comp) {
            return None;
        }
        map.comps[callee.index()] = Some(comp);
        Some(comp)
    }

    /// A fragment shape interned in the main module's table. Nearly every
    /// shape of a fragment is met again and again, so the lookup in the map is
    /// inlined and only a first meeting interns.
    #[inline]
    fn remap_shape(&mut self, from: &ShapeTable, map: &mut HandleMap, shape: Shape) -> Shape {
        match map.shapes[shape.index()] {
            Some(mapped) => mapped,
            None => self.intern_fragment_shape(from, map, shape),
        }
    }

    #[inline(never)]
    fn intern_fragment_shape(
        &mut self,
        from: &ShapeTable,
        map: &mut HandleMap,
        shape: Shape,
    ) -> Shape {
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
    std::thread_local! {
        /// The main parser panics when its merge reaches this byte, standing in
        /// for a bug.
        pub(super) static PANIC_AT: std::cell::Cell<Option<u32>> = const { std::cell::Cell::new(None) };
    }

    use super::{
        Body, CHUNKS_PER_WORKER, Chunk, MIN_SHARED_TEXT_BYTES, MIN_SPLIT_BODY_BYTES, TAIL_MARGIN,
        body_starts, plan_chunks, plan_text, survey_lines,
    };

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
        let body = survey.largest_body().expect("a body");
        assert!(text[body.start..].starts_with("  %c0 = "));
        assert!(text[body.end..].starts_with("}\n") && body.end == text.len() - 2);
        assert_eq!(&text[body.open..=body.open], "{");
        assert!(text[..body.open].ends_with("ENTRY %main () -> f32[] "));
        assert_eq!(body.lines, 4);
        assert_eq!(body.lines_before, 7);
        assert_eq!(text[..body.start].matches('\n').count(), body.lines_before);
    }

    /// The survey read line by line, as plainly as possible.
    fn survey_by_lines(text: &str) -> (usize, Vec<Body>) {
        let mut bodies = Vec::new();
        let mut open = None;
        let mut line_start = 0;
        for (index, line) in text.split('\n').enumerate() {
            match line.bytes().next() {
                Some(b'}') => {
                    if let Some((brace, start, header)) = open.take() {
                        bodies.push(Body {
                            open: brace,
                            start,
                            end: line_start,
                            lines_before: header + 1,
                            lines: index - header - 1,
                        });
                    }
                }
                Some(b' ' | b'\t' | b'\r') | None => {}
                Some(_) => {
                    let trimmed = line.trim_ascii_end();
                    if trimmed.ends_with('{') {
                        open = Some((
                            line_start + trimmed.len() - 1,
                            line_start + line.len() + 1,
                            index,
                        ));
                    }
                }
            }
            line_start += line.len() + 1;
        }
        (text.matches('\n').count(), bodies)
    }

    #[test]
    fn the_survey_finds_every_newline_wherever_it_falls_in_a_block() {
        // Lines of every length from 0 to 130 bytes put newlines at every
        // position of the survey's 64-byte blocks, and in the bytes after the
        // last whole block.
        for shift in 0..70 {
            let mut text = "x".repeat(shift);
            text.push_str(" {\n");
            for length in 0..131 {
                text.push_str(&" ".repeat(length.min(2)));
                text.push_str(&"y".repeat(length.saturating_sub(2)));
                text.push('\n');
                if length % 37 == 0 {
                    text.push_str("}\nc {\n");
                }
            }
            text.push('}');
            for end in [text.len(), text.len() - 1, text.len() - 40] {
                let text = &text[..end];
                let survey = survey_lines(text);
                assert_eq!(
                    (survey.newlines, survey.bodies),
                    survey_by_lines(text),
                    "{shift} {end}"
                );
            }
        }
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
        let body = survey_lines(&text).largest_body().expect("a body");
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
            .splittable_bodies()
            .last()
            .expect("a body");
        assert!(late_body.lines_before > late_body.lines);
        let workers = plan_chunks(&late, &[late_body], 2);
        assert_eq!(
            check_chunks(&late, &workers)[0].start as usize,
            late_body.start + 2
        );

        let small = module(10);
        let small_body = survey_lines(&small).largest_body().expect("a body");
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
        let bodies = survey_lines(&text).splittable_bodies();
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

    /// A module of `count` small computations, each calling the one before.
    fn many_computations(count: usize) -> String {
        let mut text = String::from("HloModule many\n\n");
        for i in 0..count {
            text.push_str(&format!(
                "%c{i} (a: f32[]) -> f32[] {{\n  %a{i} = f32[] parameter(0)\n  %n{i} = f32[] negate(%a{i})\n  ROOT %r{i} = f32[] add(%n{i}, %a{i})\n}}\n\n"
            ));
        }
        text.push_str("ENTRY %main (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n  ROOT %c = f32[] call(%p), to_apply=%c0\n}\n");
        text
    }

    /// The workers take the tail of a text of many small computations: chunks
    /// start at instruction lines, in text order, each running to the next;
    /// with one worker the first is where the main parser's reading of the text
    /// before it and merging of the rest take as long as the worker's parse.
    #[test]
    fn the_workers_take_the_tail_of_a_text_of_small_computations() {
        let text = many_computations(64_000);
        assert!(text.len() >= MIN_SHARED_TEXT_BYTES);
        let survey = survey_lines(&text);
        assert!(survey.splittable_bodies().is_empty());
        assert_eq!(survey.bodies.len(), 64_001);
        let starts = body_starts(&text, &survey.bodies);
        assert!(
            starts
                .iter()
                .all(|&s| text[..s as usize].ends_with(" {\n  "))
        );
        assert!(plan_text(&text, &survey.bodies, 1).is_empty());

        let check = |workers: &[Vec<Chunk>]| -> Vec<Chunk> {
            let chunks: Vec<Chunk> = workers.iter().flatten().copied().collect();
            for (k, chunk) in chunks.iter().enumerate() {
                let start = chunk.start as usize;
                assert!(text[..start].ends_with("\n  "), "{start}");
                assert!(text[start..].starts_with('%') || text[start..].starts_with("ROOT"));
                assert_eq!(chunk.stop, chunks.get(k + 1).map_or(u32::MAX, |c| c.start));
                assert!(chunk.start < chunk.stop);
            }
            chunks
        };
        let workers = plan_text(&text, &survey.bodies, 2);
        assert_eq!(workers.len(), 1);
        let chunks = check(&workers);
        assert!(chunks.len() > 1 && chunks.len() <= CHUNKS_PER_WORKER);
        // The cost is spread evenly, so the main parser reads the share
        // 1 - TAIL_MARGIN / (1 - 0.31 + 1.2) of the text.
        let expected = text.len() as f64 * (1.0 - TAIL_MARGIN / 1.89);
        let first = chunks[0].start as f64;
        assert!(
            (first - expected).abs() < expected / 20.0,
            "{first} vs {expected}"
        );

        // Three workers share a longer tail, each a run of chunks in text order.
        let workers = plan_text(&text, &survey.bodies, 4);
        assert_eq!(workers.len(), 3);
        check(&workers);
        let firsts: Vec<usize> = workers.iter().map(|w| w[0].start as usize).collect();
        assert!(firsts.windows(2).all(|pair| pair[0] < pair[1]));
        // Their estimated share, 1 / (1 - 0.31 + 0.4), with the margin is
        // more than the whole text: they take it all, and the main parser
        // reads what they have not reached when it gets there.
        const { assert!(TAIL_MARGIN / (1.0 - 0.31 + 0.4) > 1.0) };
        assert!(firsts[0] < text.len() / 50, "{}", firsts[0]);
        let share = (text.len() - firsts[0]) / 3;
        for pair in firsts.windows(2) {
            assert!(
                (pair[1] - pair[0]).abs_diff(share) < share / 10,
                "{firsts:?}"
            );
        }

        // A small text is parsed on one thread.
        let small = many_computations(100);
        assert!(plan_text(&small, &survey_lines(&small).bodies, 8).is_empty());
    }

    /// Chunks the main parser claimed are skipped by their worker and read by
    /// the main parser, and the worker's other chunks are still merged: the
    /// parse is the sequential one.
    #[test]
    fn chunks_the_main_parser_claims_are_read_by_it() {
        use super::{Stealing, parse_module_in_chunks};
        use crate::text::parser::Parser;
        let text = many_computations(2_000);
        let survey = survey_lines(&text);
        let starts = body_starts(&text, &survey.bodies);
        let parse = |workers: &[Vec<Chunk>], stealing| {
            let mut parser = Parser::with_capacity(&text, survey.newlines, true);
            parse_module_in_chunks(&mut parser, workers, &starts, stealing).expect("parses");
            let (module, _) = parser.into_parts();
            crate::text::print(&module, &crate::text::PrintOptions::long())
        };
        let sequential = parse(&[], Stealing::Forbidden);
        // Two workers, each with four chunks of many bodies.
        let cuts: Vec<(usize, usize)> = (0..8)
            .map(|k| (k / 4, starts[200 + 200 * k] as usize))
            .collect();
        let workers = super::chunks_for_workers(&cuts);
        assert_eq!(workers.len(), 2);
        assert_eq!(parse(&workers, Stealing::MainTakesEveryOther), sequential);
        assert_eq!(parse(&workers, Stealing::Forbidden), sequential);
        assert_eq!(parse(&workers, Stealing::Allowed), sequential);
    }

    #[test]
    fn a_panic_of_the_main_parser_is_reported_not_waited_on() {
        use super::{Stealing, parse_module_in_chunks};
        use crate::text::parser::Parser;
        let text = many_computations(400);
        let survey = survey_lines(&text);
        let starts = body_starts(&text, &survey.bodies);
        // The main parser panics in the middle of merging the first worker's
        // fragments, while the worker holds more.
        let cuts: Vec<(usize, usize)> =
            (0..4).map(|k| (0, starts[100 + 50 * k] as usize)).collect();
        let workers = super::chunks_for_workers(&cuts);
        let panic_at = starts[120];
        let (done, outcome) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let result = std::panic::catch_unwind(|| {
                let mut parser = Parser::with_capacity(&text, survey.newlines, true);
                PANIC_AT.set(Some(panic_at));
                let _ = parse_module_in_chunks(&mut parser, &workers, &starts, Stealing::Forbidden);
            });
            let _ = done.send(result.is_err());
        });
        let panicked = outcome
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the parse ends instead of waiting for its worker forever");
        assert!(panicked, "the injected panic reaches the caller");
    }
}

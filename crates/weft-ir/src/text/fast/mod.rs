//! What makes the parse fast without changing what it reads: the parallel
//! parse of large modules ([`chunked`]), the classification and comparison of
//! text bytes in blocks ([`byte_scan`]), and values remembered by the exact text
//! they were parsed from ([`text_cache`]).
//!
//! The grammar (`parser.rs`, `module_parser.rs`, `instr.rs`, …) parses a text
//! on one thread and knows nothing of workers or chunks. The one seam between
//! the two is:
//!
//! - [`parse_planned`], the only way into a module parse: it decides from one
//!   pass over the text whether workers pay, and when they do not (a small
//!   text, or one thread) runs the grammar's own module parse and nothing else;
//! - the two traits of `text/partial.rs`, through which the grammar lets a
//!   parse of part of a text ([`OutsideText`](crate::text::partial::OutsideText),
//!   what a worker's chunk does not know) and lines parsed ahead of it
//!   ([`ParsedAhead`](crate::text::partial::ParsedAhead), the main parser's
//!   merge) be plugged in. [`chunked`] implements both.
//!
//! [`byte_scan`] and [`text_cache`] are leaf helpers that the grammar calls
//! directly; they know nothing of the grammar.
//!
//! Invariant: the module, the source map and every diagnostic are exactly
//! those of the one-thread parse, whatever the number of threads.

pub(crate) mod byte_scan;
mod chunked;
pub(crate) mod text_cache;

use crate::text::parser::{PResult, Parser};

/// Parses the module in `src` on at most `threads` threads, keeping source
/// positions when `record_spans` and reading XLA's own printing from the bytes
/// when `byte_readers`, and returns the parser holding it.
pub(crate) fn parse_planned(
    src: &str,
    threads: usize,
    record_spans: bool,
    byte_readers: bool,
) -> PResult<Parser<'_>> {
    // One pass over the bytes, which also gives the grammar the sizes of its
    // tables.
    let survey = chunked::survey_lines(src);
    let mut parser = Parser::with_capacity(src, survey.newlines, record_spans);
    parser.byte_readers = byte_readers;
    chunked::size_tables(&mut parser, &survey);
    let workers = chunked::plan(src, &survey, threads);
    if workers.is_empty() {
        // A small text, or one thread: the grammar's own parse, nothing else.
        parser.module()?;
        return Ok(parser);
    }
    let body_starts = chunked::body_starts(src, &survey.bodies);
    chunked::parse_module_in_chunks(
        &mut parser,
        &workers,
        &body_starts,
        chunked::Stealing::Allowed,
    )?;
    Ok(parser)
}

/// Parses the module in `src` with a chunk starting at each of `chunk_starts`
/// (see [`crate::text::parse_split_at`]), keeping source positions.
pub(crate) fn parse_split_at<'s>(src: &'s str, chunk_starts: &[usize]) -> PResult<Parser<'s>> {
    let mut starts: Vec<usize> = chunk_starts
        .iter()
        .copied()
        .filter(|&start| {
            start < src.len() && u32::try_from(start).is_ok() && src.is_char_boundary(start)
        })
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let by_worker: Vec<(usize, usize)> = starts
        .iter()
        .enumerate()
        .map(|(k, &start)| (k / 2, start))
        .collect();
    let workers = chunked::chunks_for_workers(&by_worker);
    let survey = chunked::survey_lines(src);
    let mut parser = Parser::with_capacity(src, survey.newlines, true);
    let body_starts = chunked::body_starts(src, &survey.bodies);
    chunked::parse_module_in_chunks(
        &mut parser,
        &workers,
        &body_starts,
        chunked::Stealing::Forbidden,
    )?;
    Ok(parser)
}

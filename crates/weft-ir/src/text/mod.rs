//! HLO text: the IR's own format. A hand-written lexer and recursive-descent
//! parser that read every module XLA's parser reads (long and short print styles,
//! header-less modules, nested instructions, async sugar, late binding), and a
//! printer that writes XLA's long or short form.
//!
//! Invariants, tested on every corpus module: printing a parsed canonical module
//! gives back the same text; parse∘print∘parse∘print is a fixed point; no input
//! makes the parser panic.
//!
//! The grammar is in this module's files, the printer in [`printer`]. Each
//! structured attribute value has its parse and print side by side in
//! [`attrs`]; shapes have theirs in `shape.rs`. What makes the parse fast
//! without changing what it reads, the parse on several threads among it, is in
//! `fast/`, which the grammar reaches through one entry point and two traits
//! (`partial.rs`).

mod async_parser;
pub(crate) mod attr_bag;
pub mod attrs;
mod family;
pub(crate) mod fast;
pub mod float;
mod instr;
pub(crate) mod integers;
pub mod lexer;
mod literal;
mod module_parser;
mod omitted_shape;
pub(crate) mod parser;
mod partial;
pub mod printer;
pub(crate) mod shape;
mod source_map;

pub use literal::print_literal;
pub use printer::{PrintOptions, Style, print_module, write_module};
pub use shape::{
    is_tuple, print_shape, print_shape_without_default_layouts, print_shape_without_layout,
    shape_to_string,
};
pub use source_map::SourceMap;

use crate::diagnostic::Diagnostic;
use crate::module::Module;

/// Parses HLO text into a module, using every core the machine has for a large
/// module.
pub fn parse(source: &str) -> Result<Module, Diagnostic> {
    parse_with_threads(source, all_cores())
}

/// Parses HLO text into a module and the source positions of its entities,
/// using every core the machine has for a large module.
pub fn parse_with_source_map(source: &str) -> Result<(Module, SourceMap), Diagnostic> {
    parse_on(source, all_cores(), true, true)
}

/// Parses HLO text on at most `threads` threads (1 parses sequentially). A large
/// module's big computation bodies, or the tail of a large module of many small
/// computations, are cut into chunks parsed by worker threads; the module and
/// any diagnostic are the same whatever `threads` is.
pub fn parse_with_threads(source: &str, threads: usize) -> Result<Module, Diagnostic> {
    // No source map is kept, which saves memory and time. A diagnostic may
    // point at an earlier definition through it, so a failed parse is repeated
    // with it, to give the diagnostic `parse_with_source_map` gives.
    match parse_on(source, threads, false, true) {
        Ok((module, _)) => Ok(module),
        Err(_) => parse_on(source, threads, true, true).map(|(module, _)| module),
    }
}

fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Parses on at most `threads` threads, keeping source positions when
/// `record_spans` and reading XLA's own printing from the bytes when
/// `byte_readers` (see [`parser::Parser`]'s fields of those names).
fn parse_on(
    source: &str,
    threads: usize,
    record_spans: bool,
    byte_readers: bool,
) -> Result<(Module, SourceMap), Diagnostic> {
    let parser = fast::parse_planned(source, threads, record_spans, byte_readers)?;
    Ok(parser.into_parts())
}

/// Parses HLO text with the token parser alone, none of the readers that take
/// text in XLA's own printing straight from the bytes: the same module, source
/// map and diagnostic as [`parse_with_source_map`], only slower. For
/// differential tests and fuzzing of those readers.
pub fn parse_by_tokens(source: &str) -> Result<(Module, SourceMap), Diagnostic> {
    parse_on(source, 1, true, false)
}

/// Parses HLO text with a chunk starting at each of `chunk_starts` (byte
/// offsets, in any order), each pair of consecutive chunks parsed by one worker
/// thread in turn: the same module, source map and diagnostics as
/// [`parse_with_source_map`], which picks the chunks itself. For differential
/// tests and benchmarks of the chunked parse; an offset that is not the first
/// byte of an instruction line simply goes unused.
pub fn parse_split_at(
    source: &str,
    chunk_starts: &[usize],
) -> Result<(Module, SourceMap), Diagnostic> {
    Ok(fast::parse_split_at(source, chunk_starts)?.into_parts())
}

/// Parses one shape written in HLO text (`f32[16,32]{0,1}`), interning it in
/// `shapes`. Arrays written without a layout get the default one.
pub fn parse_shape(
    source: &str,
    shapes: &mut crate::shape::ShapeTable,
) -> Result<crate::Shape, Diagnostic> {
    let mut parser = parser::Parser::new(source);
    std::mem::swap(&mut parser.m.shapes, shapes);
    let result = parser.shape().and_then(|shape| {
        parser
            .expect(lexer::Tok::Eof, "the end of the shape")
            .map(|_| shape)
    });
    std::mem::swap(&mut parser.m.shapes, shapes);
    Ok(result?)
}

/// Parses one sharding written in HLO text (`{devices=[8,1]<=[8]}`,
/// `{replicated}`, `{manual}`, a tuple sharding, …).
pub fn parse_sharding(source: &str) -> Result<crate::attrs::Sharding, Diagnostic> {
    let mut parser = parser::Parser::new(source);
    let sharding = parser.sharding()?;
    parser.expect(lexer::Tok::Eof, "the end of the sharding")?;
    Ok(sharding)
}

/// Prints a module in the given form.
pub fn print(module: &Module, options: &PrintOptions) -> String {
    print_module(module, options)
}

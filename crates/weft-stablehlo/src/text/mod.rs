//! StableHLO MLIR text: a hand-written reader and writer.
//!
//! [`parse`] reads a file (ops in the generic form and in the custom forms of
//! `text::syntax`) into a [`Body`](crate::ir::Body); [`print`](fn@print) writes one back
//! the way MLIR's printer does. Printing a parsed file and parsing the result
//! again gives the same text (the corpus tests check it on every file).

pub mod attributes;
pub(crate) mod cursor;
pub mod driver;
pub mod float;
pub mod location;
mod names;
mod parser;
mod printer;
pub mod split;
pub(crate) mod syntax;
pub mod types;

pub use cursor::MAX_DEPTH;
pub use parser::{parse, parse_attribute};
pub use printer::{PrintOptions, print};

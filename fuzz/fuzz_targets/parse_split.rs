//! Fuzzes the chunked parse against the sequential one.
//!
//! The first two bytes of the input choose where worker chunks start (as
//! fractions of the text, so they land on line starts, mid-line, inside strings
//! and comments); the rest is the HLO text. Parsing with those chunks gives the
//! same printed module (long and short form) and the same diagnostic as parsing
//! without them.

#![no_main]

use libfuzzer_sys::fuzz_target;
use weft_ir::text::{PrintOptions, parse_split_at, print};

fn outcome(text: &str, starts: &[usize]) -> String {
    match parse_split_at(text, starts) {
        Ok((module, _)) => {
            print(&module, &PrintOptions::long()) + &print(&module, &PrintOptions::short())
        }
        Err(d) => format!("{d:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let [first, second, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let at = |byte: u8| text.len() * usize::from(byte) / 256;
    let expected = outcome(text, &[]);
    for starts in [vec![at(*first)], vec![at(*first), at(*second)]] {
        let got = outcome(text, &starts);
        assert!(
            got == expected,
            "chunks at {starts:?} differ from the sequential parse\n--- sequential ---\n{expected}\n--- chunked ---\n{got}"
        );
    }
});

//! Fuzzes the HLO text parser and printer.
//!
//! For every UTF-8 input:
//! - `parse` never panics; a rejected input gets a diagnostic whose span lies in
//!   the source and that renders (long and short) without panicking;
//! - an accepted input prints in long form, that text parses again, and printing
//!   the re-parsed module gives the same text (parse∘print is a fixed point);
//! - the same holds for the short form.

#![no_main]

#[path = "rejected.rs"]
mod rejected;

use libfuzzer_sys::fuzz_target;
use weft_ir::text::{PrintOptions, parse, print};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let module = match parse(text) {
        Ok(module) => module,
        Err(d) => {
            rejected::check_diagnostic(&d, "fuzz.hlo", text);
            return;
        }
    };
    for options in [PrintOptions::long(), PrintOptions::short()] {
        let once = print(&module, &options);
        let reparsed = match parse(&once) {
            Ok(m) => m,
            Err(d) => panic!(
                "{:?} print does not parse again:\n{}\n--- printed ---\n{once}",
                options.style,
                d.render("printed.hlo", &once)
            ),
        };
        let again = print(&reparsed, &options);
        assert!(
            once == again,
            "{:?} print is not a fixed point:\n--- first ---\n{once}\n--- second ---\n{again}",
            options.style
        );
    }
});

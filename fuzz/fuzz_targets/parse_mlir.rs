//! Fuzzes the StableHLO MLIR text parser, printer and verifier.
//!
//! For every UTF-8 input:
//! - `parse` never panics; a rejected input gets a diagnostic whose span lies in
//!   the source and that renders (long and short) without panicking;
//! - the verifier never panics on an accepted input (it may report errors);
//! - an accepted input prints (default `PrintOptions`, pretty forms), that text
//!   parses again, and printing the re-parsed body gives the same text
//!   (print∘parse is a fixed point);
//! - the same holds for the generic form (`PrintOptions { generic: true, .. }`).

#![no_main]

#[path = "rejected.rs"]
mod rejected;

use libfuzzer_sys::fuzz_target;
use weft_stablehlo::text::{PrintOptions, parse, print};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let body = match parse(text) {
        Ok(body) => body,
        Err(d) => {
            rejected::check_diagnostic(&d, "fuzz.mlir", text);
            return;
        }
    };
    let _ = weft_stablehlo::verify::verify(&body);
    let generic = PrintOptions {
        generic: true,
        ..PrintOptions::default()
    };
    for (form, options) in [("pretty", PrintOptions::default()), ("generic", generic)] {
        let once = print(&body, &options);
        let reparsed = match parse(&once) {
            Ok(b) => b,
            Err(d) => panic!(
                "{form} print does not parse again:\n{}\n--- printed ---\n{once}",
                d.render("printed.mlir", &once)
            ),
        };
        let again = print(&reparsed, &options);
        assert!(
            once == again,
            "{form} print is not a fixed point:\n--- first ---\n{once}\n--- second ---\n{again}"
        );
    }
});

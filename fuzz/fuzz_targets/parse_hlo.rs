//! Fuzzes the HLO text parser and printer.
//!
//! For every UTF-8 input:
//! - `parse` never panics; a rejected input gets a diagnostic whose span lies in
//!   the source and that renders (long and short) without panicking;
//! - the token parser alone (none of the byte-level readers) gives the same
//!   module, or the same diagnostic;
//! - an accepted input prints in long form, that text parses again, and printing
//!   the re-parsed module gives the same text (parse∘print is a fixed point);
//! - the same holds for the short form.

#![no_main]

#[path = "rejected.rs"]
mod rejected;

use libfuzzer_sys::fuzz_target;
use weft_ir::text::{PrintOptions, parse, parse_by_tokens, print};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse(text);
    match (&parsed, parse_by_tokens(text)) {
        (Ok(module), Ok((by_tokens, _))) => {
            for options in [PrintOptions::long(), PrintOptions::short()] {
                let with_readers = print(module, &options);
                let by_tokens = print(&by_tokens, &options);
                assert!(
                    with_readers == by_tokens,
                    "the byte-level readers change the module:\n--- with them ---\n{with_readers}\n--- tokens only ---\n{by_tokens}"
                );
            }
        }
        (Err(with_readers), Err(by_tokens)) => assert_eq!(
            format!("{with_readers:?}"),
            format!("{by_tokens:?}"),
            "the byte-level readers change the diagnostic"
        ),
        (with_readers, by_tokens) => panic!(
            "the byte-level readers change whether the text parses: {:?} against {:?}",
            with_readers.as_ref().err(),
            by_tokens.err()
        ),
    }
    let module = match parsed {
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

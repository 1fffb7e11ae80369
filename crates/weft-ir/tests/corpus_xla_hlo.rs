//! Conformance against XLA's own HLO text corpus (`../shared/corpus/xla-hlo`):
//! every module of XLA's parser tests and every `.hlo` file of the XLA repository.
//!
//! - `parser_long` / `parser_short` rows print back byte for byte in their form;
//! - `parser_nonroundtrip_in` rows print (short) as their paired `_out` row;
//! - `expect=error, stage=parse` rows are rejected with a located error;
//! - at least 99.5% of all other modules parse, and every parsed module's
//!   parse→print→parse→print is a fixed point in both forms.
//!
//! The corpus is read at run time; the test skips with a message when it is absent.

use weft_ir::text::{PrintOptions, print};

mod corpus;

use corpus::{corpus_dir, guarded_parse, read, rows};

fn first_difference(a: &str, b: &str) -> String {
    for (n, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  got:      {x}\n  expected: {y}", n + 1);
        }
    }
    format!(
        "lengths differ ({} vs {} lines)",
        a.lines().count(),
        b.lines().count()
    )
}

fn round_trip(origin: &str, options: PrintOptions) {
    let dir = skip_without_corpus!();
    let mut failures = Vec::new();
    let mut total = 0;
    for row in rows(&dir).iter().filter(|r| r.origin == origin) {
        total += 1;
        let text = read(row);
        match guarded_parse(&text) {
            Ok(Ok(m)) => {
                let printed = print(&m, &options);
                if printed != text {
                    failures.push(format!(
                        "{} {}: {}",
                        row.id,
                        row.name,
                        first_difference(&printed, &text)
                    ));
                }
            }
            Ok(Err(e)) => failures.push(format!("{} {}: parse error: {e}", row.id, row.name)),
            Err(p) => failures.push(format!("{} {}: PANIC {p}", row.id, row.name)),
        }
    }
    println!(
        "{origin}: {}/{total} print back byte-identical",
        total - failures.len()
    );
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} {origin} cases differ",
        failures.len()
    );
}

#[test]
fn parser_long_cases_round_trip_in_long_form() {
    round_trip("parser_long", PrintOptions::long());
}

#[test]
fn parser_short_cases_round_trip_in_short_form() {
    round_trip("parser_short", PrintOptions::short());
}

#[test]
fn non_round_trip_inputs_print_as_their_expected_output() {
    let dir = skip_without_corpus!();
    let all = rows(&dir);
    let mut failures = Vec::new();
    let mut total = 0;
    for (i, row) in all.iter().enumerate() {
        if row.origin != "parser_nonroundtrip_in" {
            continue;
        }
        total += 1;
        let expected = all
            .get(i + 1)
            .filter(|r| r.origin == "parser_nonroundtrip_out")
            .map(read)
            .expect("paired expected output row");
        match guarded_parse(&read(row)) {
            Ok(Ok(m)) => {
                let printed = print(&m, &PrintOptions::short());
                if printed.trim() != expected.trim() {
                    failures.push(format!(
                        "{} {}: {}",
                        row.id,
                        row.name,
                        first_difference(printed.trim(), expected.trim())
                    ));
                }
            }
            Ok(Err(e)) => failures.push(format!("{} {}: parse error: {e}", row.id, row.name)),
            Err(p) => failures.push(format!("{} {}: PANIC {p}", row.id, row.name)),
        }
    }
    println!(
        "parser_nonroundtrip: {}/{total} print as expected",
        total - failures.len()
    );
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(failures.is_empty());
}

#[test]
fn parse_errors_are_rejected_with_a_location() {
    let dir = skip_without_corpus!();
    let mut failures = Vec::new();
    let mut total = 0;
    for row in rows(&dir)
        .iter()
        .filter(|r| r.expect == "error" && r.stage == "parse" && !r.templated)
    {
        total += 1;
        let text = read(row);
        match guarded_parse(&text) {
            Ok(Ok(_)) => failures.push(format!("{} {}: accepted", row.id, row.name)),
            Ok(Err(e)) => {
                // The short form is `m:line:col: message`.
                let located = e
                    .split(':')
                    .nth(1)
                    .is_some_and(|l| l.parse::<usize>().is_ok());
                if !located {
                    failures.push(format!(
                        "{} {}: error without location: {e}",
                        row.id, row.name
                    ));
                }
            }
            Err(p) => failures.push(format!("{} {}: PANIC {p}", row.id, row.name)),
        }
    }
    println!(
        "expect=error stage=parse: {}/{total} rejected with a location",
        total - failures.len()
    );
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(failures.is_empty());
}

#[test]
fn other_modules_parse_and_print_to_a_fixed_point() {
    let dir = skip_without_corpus!();
    let mut total = 0;
    let mut parsed = 0;
    let mut parse_failures = Vec::new();
    let mut fixed_point_failures = Vec::new();
    for row in rows(&dir).iter().filter(|r| {
        !r.templated
            && r.expect != "error"
            && !matches!(
                r.origin.as_str(),
                "parser_long"
                    | "parser_short"
                    | "parser_nonroundtrip_in"
                    | "parser_nonroundtrip_out"
            )
    }) {
        total += 1;
        let text = read(row);
        let m = match guarded_parse(&text) {
            Ok(Ok(m)) => m,
            Ok(Err(e)) => {
                parse_failures.push(format!("{} {}: {e}", row.id, row.name));
                continue;
            }
            Err(p) => {
                parse_failures.push(format!("{} {}: PANIC {p}", row.id, row.name));
                continue;
            }
        };
        parsed += 1;
        for options in [PrintOptions::long(), PrintOptions::short()] {
            let once = print(&m, &options);
            let again = match guarded_parse(&once) {
                Ok(Ok(m2)) => print(&m2, &options),
                Ok(Err(e)) => {
                    fixed_point_failures.push(format!(
                        "{} {} ({:?}): reparse failed: {e}",
                        row.id, row.name, options.style
                    ));
                    continue;
                }
                Err(p) => {
                    fixed_point_failures.push(format!(
                        "{} {} ({:?}): reparse PANIC {p}",
                        row.id, row.name, options.style
                    ));
                    continue;
                }
            };
            if once != again {
                fixed_point_failures.push(format!(
                    "{} {} ({:?}): {}",
                    row.id,
                    row.name,
                    options.style,
                    first_difference(&again, &once)
                ));
            }
        }
    }
    let rate = parsed as f64 / total as f64 * 100.0;
    println!("other modules: {parsed}/{total} parse ({rate:.2}%)");
    for f in &parse_failures {
        println!("  PARSE FAIL {f}");
    }
    println!(
        "fixed point: {}/{parsed} parsed modules",
        parsed - fixed_point_failures.len() / 2
    );
    for f in &fixed_point_failures {
        println!("  FIXED POINT FAIL {f}");
    }
    assert!(rate >= 99.5, "only {rate:.2}% of modules parse");
    assert!(fixed_point_failures.is_empty());
}

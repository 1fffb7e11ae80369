//! The verifier against XLA's HLO corpus (`../shared/corpus/xla-hlo`):
//!
//! - every round-trip case (`parser_long`, `parser_short`,
//!   `parser_nonroundtrip_in`, all verified by XLA's tests) and every
//!   `expect=ok, stage=verify` case verifies clean;
//! - every `expect=error, stage=verify` case is rejected (by the parser or the
//!   verifier);
//! - at least 97% of the `.hlo` file modules that parse verify clean; the test
//!   prints every one that does not, with its errors.
//!
//! The corpus is read at run time; the test skips with a message when it is absent.

mod corpus;

use std::panic::{AssertUnwindSafe, catch_unwind};

use corpus::{Row, corpus_dir, guarded_parse, read, rows};

/// What verifying one corpus module gave.
enum Outcome {
    Clean,
    ParseError(String),
    VerifyErrors(Vec<String>),
    Panic(String),
}

fn verify_row(row: &Row) -> Outcome {
    let text = read(row);
    let module = match guarded_parse(&text) {
        Ok(Ok(m)) => m,
        Ok(Err(e)) => return Outcome::ParseError(e),
        Err(p) => return Outcome::Panic(format!("parser: {p}")),
    };
    match catch_unwind(AssertUnwindSafe(|| weft_ir::verify(&module))) {
        Ok(Ok(())) => Outcome::Clean,
        Ok(Err(errors)) => Outcome::VerifyErrors(
            errors
                .iter()
                .map(|e| format!("[{}] {}", e.rule.code(), e.message))
                .collect(),
        ),
        Err(p) => Outcome::Panic(format!(
            "verifier: {}",
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        )),
    }
}

fn describe(row: &Row, outcome: &Outcome) -> String {
    let what = match outcome {
        Outcome::Clean => "clean".to_string(),
        Outcome::ParseError(e) => format!("parse error: {e}"),
        Outcome::VerifyErrors(errors) => errors.join("\n      "),
        Outcome::Panic(p) => format!("PANIC {p}"),
    };
    format!("{} {}: {what}", row.id, row.name)
}

#[test]
fn modules_xla_verifies_are_clean() {
    let dir = skip_without_corpus!();
    let verified_by_xla = |r: &Row| {
        matches!(
            r.origin.as_str(),
            "parser_long" | "parser_short" | "parser_nonroundtrip_in"
        ) || (r.expect == "ok" && r.stage == "verify")
    };
    let mut failures = Vec::new();
    let mut total = 0;
    for row in rows(&dir)
        .iter()
        .filter(|r| !r.templated && verified_by_xla(r))
    {
        total += 1;
        let outcome = verify_row(row);
        if !matches!(outcome, Outcome::Clean) {
            failures.push(describe(row, &outcome));
        }
    }
    println!(
        "modules XLA verifies: {}/{total} verify clean",
        total - failures.len()
    );
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(failures.is_empty(), "{} modules fail", failures.len());
}

#[test]
fn modules_xla_rejects_at_verification_are_rejected() {
    let dir = skip_without_corpus!();
    let mut failures = Vec::new();
    let mut total = 0;
    for row in rows(&dir)
        .iter()
        .filter(|r| !r.templated && r.expect == "error" && r.stage == "verify")
    {
        total += 1;
        let outcome = verify_row(row);
        println!("  {}", describe(row, &outcome));
        if matches!(outcome, Outcome::Clean | Outcome::Panic(_)) {
            failures.push(describe(row, &outcome));
        }
    }
    println!(
        "modules XLA rejects: {}/{total} rejected",
        total - failures.len()
    );
    assert!(failures.is_empty(), "{} modules accepted", failures.len());
}

#[test]
fn at_least_97_percent_of_hlo_files_verify_clean() {
    let dir = skip_without_corpus!();
    let mut clean = 0;
    let mut not_clean = Vec::new();
    let mut panics = Vec::new();
    let mut unparsed = 0;
    for row in rows(&dir)
        .iter()
        .filter(|r| !r.templated && r.origin == "hlo_file")
    {
        match verify_row(row) {
            Outcome::Clean => clean += 1,
            Outcome::ParseError(_) => unparsed += 1,
            outcome @ Outcome::Panic(_) => panics.push(describe(row, &outcome)),
            outcome => not_clean.push(describe(row, &outcome)),
        }
    }
    let total = clean + not_clean.len() + panics.len();
    println!(
        ".hlo file modules: {clean}/{total} parsed modules verify clean ({unparsed} do not parse)"
    );
    for f in not_clean.iter().chain(&panics) {
        println!("  NOT CLEAN {f}");
    }
    assert!(panics.is_empty(), "the verifier panicked: {panics:?}");
    assert!(
        clean * 100 >= total * 97,
        "only {clean}/{total} verify clean (need 97%)"
    );
}

//! Conformance of `weft interpret` on the StableHLO interpreter suite of the
//! shared corpus (`stablehlo-interpret/files/*.mlir`): every file is run as
//! its RUN line runs it (with its `--args`), and at least 97% of the
//! single-device cases must pass. Cases driven by `interpreter.run_parallel`
//! need several processes and are counted apart. Every failing case is
//! printed.
//!
//! The corpus is read at run time from `../shared/corpus/`; without it the
//! test is skipped with a message.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The share of single-device cases that must pass.
const REQUIRED_PASS_RATE: f64 = 0.97;

fn suite_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/stablehlo-interpret/files");
    dir.is_dir().then_some(dir)
}

/// The `--args="…"` of a file's first RUN line, if it has one.
fn run_line_arguments(text: &str) -> Option<String> {
    let line = text
        .lines()
        .find(|l| l.starts_with("// RUN:") && l.contains("--interpret"))?;
    let start = line.find("--args=\"")? + "--args=\"".len();
    let end = line[start..].find('"')? + start;
    Some(line[start..end].to_string())
}

/// Every `.mlir` file under `dir` (the suite keeps `chlo` tests in a
/// subdirectory).
fn collect_mlir(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            collect_mlir(&path, out);
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
}

#[test]
fn interpreter_suite() {
    let Some(dir) = suite_dir() else {
        eprintln!("interpret_suite: ../shared/corpus/stablehlo-interpret not found; skipping");
        return;
    };
    let mut files = Vec::new();
    collect_mlir(&dir, &mut files);
    files.sort();
    let (mut passed, mut failed, mut not_run) = (0u32, 0u32, 0u32);
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable test file");
        let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
        command.arg("interpret").arg(file);
        if let Some(arguments) = run_line_arguments(&text) {
            command.arg("--args").arg(arguments);
        }
        let output = command.output().expect("weft runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let summary = stdout.lines().last().unwrap_or_default();
        let numbers: Vec<u32> = summary
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        match numbers[..] {
            [p, f] => (passed, failed) = (passed + p, failed + f),
            [p, f, n] => (passed, failed, not_run) = (passed + p, failed + f, not_run + n),
            _ => {
                failed += 1;
                failures.push(format!(
                    "{}: no summary; stderr: {}",
                    file.display(),
                    String::from_utf8_lossy(&output.stderr)
                ));
                continue;
            }
        }
        failures.extend(
            stdout
                .lines()
                .filter(|l| l.contains(" FAILED: "))
                .map(str::to_string),
        );
    }
    let rate = f64::from(passed) / f64::from((passed + failed).max(1));
    eprintln!(
        "stablehlo-interpret: {passed} passed, {failed} failed ({:.1}% of single-device cases), {not_run} need interpreter.run_parallel",
        rate * 100.0
    );
    for failure in &failures {
        eprintln!("  {failure}");
    }
    assert!(
        rate >= REQUIRED_PASS_RATE,
        "{:.1}% of the single-device cases pass; at least {:.0}% must",
        rate * 100.0,
        REQUIRED_PASS_RATE * 100.0
    );
}

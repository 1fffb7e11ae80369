//! Conformance of `weft interpret` on the StableHLO interpreter suite of the
//! shared corpus (`stablehlo-interpret/files/*.mlir`): every file is run as
//! its RUN line runs it (`weft interpret` reads its `--args`), at least 99% of all cases must
//! pass, and every case driven by `interpreter.run_parallel` (a process
//! grid) must pass. Every failing case is printed.
//!
//! The corpus is read at run time from `../shared/corpus/`; without it the
//! test is skipped with a message.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The share of all cases that must pass.
const REQUIRED_PASS_RATE: f64 = 0.99;

/// The cases of `text` (split as `weft interpret` splits it) that use
/// `interpreter.run_parallel`, by index.
fn process_grid_cases(text: &str) -> Vec<usize> {
    weft_stablehlo::text::split::split_input_file(text)
        .iter()
        .enumerate()
        .filter(|(_, case)| {
            case.text.contains("func.func") && case.text.contains("interpreter.run_parallel")
        })
        .map(|(index, _)| index)
        .collect()
}

fn suite_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/stablehlo-interpret/files");
    dir.is_dir().then_some(dir)
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
    let (mut passed, mut failed) = (0u32, 0u32);
    let mut failures = Vec::new();
    let (mut grid_cases, mut grid_failures) = (0usize, Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable test file");
        // No --args: `weft interpret` reads them from the file's RUN line.
        let output = Command::new(env!("CARGO_BIN_EXE_weft"))
            .arg("interpret")
            .arg(file)
            .output()
            .expect("weft runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let summary = stdout.lines().last().unwrap_or_default();
        let numbers: Vec<u32> = summary
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        let grid = process_grid_cases(&text);
        grid_cases += grid.len();
        match numbers[..] {
            [p, f] => (passed, failed) = (passed + p, failed + f),
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
        for line in stdout.lines().filter(|l| l.contains(" FAILED: ")) {
            failures.push(line.to_string());
            // `FILE:LINE: case INDEX FAILED: …`
            let index = line
                .split(" case ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .and_then(|index| index.parse::<usize>().ok());
            if index.is_some_and(|index| grid.contains(&index)) {
                grid_failures.push(line.to_string());
            }
        }
    }
    let rate = f64::from(passed) / f64::from((passed + failed).max(1));
    eprintln!(
        "stablehlo-interpret: {passed} passed, {failed} failed ({:.1}%); {} of {grid_cases} interpreter.run_parallel cases pass",
        rate * 100.0,
        grid_cases - grid_failures.len()
    );
    for failure in &failures {
        eprintln!("  {failure}");
    }
    assert!(
        rate >= REQUIRED_PASS_RATE,
        "{:.1}% of the cases pass; at least {:.0}% must",
        rate * 100.0,
        REQUIRED_PASS_RATE * 100.0
    );
    assert!(
        grid_failures.is_empty(),
        "interpreter.run_parallel cases fail:\n{}",
        grid_failures.join("\n")
    );
}

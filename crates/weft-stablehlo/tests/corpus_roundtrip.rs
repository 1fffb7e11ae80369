//! Conformance: every StableHLO file of the shared corpus — the StableHLO
//! interpreter suite (split on `// -----` as the suite's RUN lines do) and
//! JAX's programs, plain and async — parses, and printing is a fixed point:
//! print(parse(print(parse(text)))) == print(parse(text)).
//!
//! Files JAX printed through MLIR are already canonical, so for them the
//! printed text must also equal the input exactly.
//!
//! The corpus is read at run time from `../shared/corpus/`; without it every
//! trial is skipped with a message.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use weft_stablehlo::text::split::split_input_file;
use weft_stablehlo::text::{PrintOptions, parse, print};

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    dir.join("stablehlo-interpret").exists().then_some(dir)
}

fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            mlir_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
}

/// Parses and prints twice; `exact` also demands print(parse(text)) == text.
fn round_trip(text: &str, exact: bool) -> Result<(), String> {
    let options = PrintOptions::default();
    let first = parse(text).map_err(|d| d.render("input", text))?;
    let printed = print(&first, &options);
    let second = parse(&printed).map_err(|d| {
        format!(
            "the printed text does not parse:\n{}\n--- printed ---\n{printed}",
            d.render("printed", &printed)
        )
    })?;
    let reprinted = print(&second, &options);
    if reprinted != printed {
        return Err(format!(
            "printing is not a fixed point\n{}",
            first_difference(&printed, &reprinted)
        ));
    }
    // How many newlines end a file is up to whatever wrote it, not MLIR.
    if exact && printed.trim_end() != text.trim_end() {
        return Err(format!(
            "the printed text differs from the (canonical) input\n{}",
            first_difference(text, &printed)
        ));
    }
    Ok(())
}

fn first_difference(expected: &str, actual: &str) -> String {
    for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            return format!("line {}:\n  expected: {e}\n  actual:   {a}", i + 1);
        }
    }
    format!(
        "lengths differ: expected {} lines, got {}",
        expected.lines().count(),
        actual.lines().count()
    )
}

fn guarded(f: impl FnOnce() -> Result<(), String>) -> Result<(), Failed> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(message)) => Err(message.into()),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panicked: {message}").into())
        }
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    match corpus_dir() {
        None => {
            eprintln!(
                "SKIPPED: ../shared/corpus not found next to the workspace; the StableHLO corpus tests need it"
            );
            trials.push(Trial::test("corpus absent", || Ok(())).with_ignored_flag(true));
        }
        Some(dir) => {
            let mut interpret = Vec::new();
            mlir_files(&dir.join("stablehlo-interpret/files"), &mut interpret);
            for path in interpret {
                let name = path
                    .strip_prefix(&dir)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                trials.push(Trial::test(name, move || {
                    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
                    guarded(|| {
                        for (i, chunk) in split_input_file(&text).iter().enumerate() {
                            if chunk.text.trim().is_empty() {
                                continue;
                            }
                            round_trip(chunk.text, false).map_err(|e| format!("case {i}: {e}"))?;
                        }
                        Ok(())
                    })
                }));
            }
            let mut jax = Vec::new();
            mlir_files(&dir.join("jax"), &mut jax);
            for path in jax {
                let name = path
                    .strip_prefix(&dir)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                trials.push(Trial::test(name, move || {
                    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
                    guarded(|| round_trip(&text, true))
                }));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

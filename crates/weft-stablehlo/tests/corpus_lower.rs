//! Conformance of the lowering on JAX's programs in the shared corpus: every
//! `NAME.stablehlo.mlir` and `async/NAME.async.stablehlo.mlir` lowers to an HLO
//! module that passes weft's HLO verifier, and the per-device module has the
//! same collectives, with the same device groups, as XLA's own per-device
//! module (`NAME.spmd.hlo.txt`, or `async/NAME.async.hlo.txt` whose
//! collectives are start/done pairs). Every case of the StableHLO interpreter
//! suite lowers too, but for the documented refusals.
//!
//! The corpus is read at run time from `../shared/corpus/`; without it every
//! trial is skipped with a message.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
mod common;

use common::collectives;
use weft_ir::Module;

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/jax");
    dir.join("manifest.json").exists().then_some(dir)
}

fn lower_file(path: &Path) -> Result<Module, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let body = weft_stablehlo::text::parse(&text).map_err(|d| d.render("input", &text))?;
    weft_stablehlo::verify(&body).map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_diagnostic(&body).render("input", &text))
            .collect::<String>()
    })?;
    let module = weft_stablehlo::lower::lower(&body).map_err(|d| d.render("input", &text))?;
    weft_ir::verify(&module).map_err(|errors| {
        let printed = weft_ir::text::print(&module, &Default::default());
        let list: Vec<String> = errors
            .iter()
            .map(|e| {
                let at = e
                    .instr
                    .map(|i| module.instr(i).name.clone())
                    .unwrap_or_default();
                format!("{at}: {}", e.message)
            })
            .collect();
        format!(
            "the lowered module does not verify:\n{}\n{printed}",
            list.join("\n")
        )
    })?;
    Ok(module)
}

fn check(path: &Path, reference: Option<&Path>) -> Result<(), Failed> {
    let module = lower_file(path)?;
    let Some(reference) = reference else {
        return Ok(());
    };
    let text = std::fs::read_to_string(reference).map_err(|e| e.to_string())?;
    let expected = weft_ir::text::parse(&text).map_err(|d| d.render("reference", &text))?;
    let ours = collectives(&module);
    let theirs = collectives(&expected);
    if ours != theirs {
        return Err(format!(
            "collectives differ from {}\nours:\n  {}\nXLA's:\n  {}",
            reference.display(),
            ours.join("\n  "),
            theirs.join("\n  ")
        )
        .into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let Some(dir) = corpus_dir() else {
        eprintln!("corpus_lower: ../shared/corpus/jax not found; skipping");
        let trial = Trial::test("corpus_lower (corpus absent)", || Ok(())).with_ignored_flag(true);
        libtest_mimic::run(&args, vec![trial]).exit();
    };
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap_or_default();
    let mut trials = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    for path in entries {
        let Some(name) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".stablehlo.mlir"))
            .map(str::to_string)
        else {
            continue;
        };
        // Multi-device programs are compared with XLA's per-device module.
        let multi_device = manifest
            .split("\"name\": \"")
            .find(|entry| entry.starts_with(&format!("{name}\"")))
            .is_some_and(|entry| !entry.contains("\"num_devices\": 1,"));
        // A lower-only program (no XLA module to compare) is still lowered
        // and verified.
        let reference = Some(dir.join(format!("{name}.spmd.hlo.txt")))
            .filter(|path| multi_device && path.exists());
        trials.push(Trial::test(format!("lower::{name}"), move || {
            check(&path, reference.as_deref())
        }));
        let async_path = dir
            .join("async")
            .join(format!("{name}.async.stablehlo.mlir"));
        if async_path.exists() {
            let reference = dir.join("async").join(format!("{name}.async.hlo.txt"));
            trials.push(Trial::test(format!("lower::async::{name}"), move || {
                check(&async_path, Some(&reference))
            }));
        }
    }
    trials.push(Trial::test("lower::stablehlo_interpret_suite", move || {
        interpret_suite(&dir)
    }));
    libtest_mimic::run(&args, trials).exit();
}

/// Every case of the StableHLO interpreter suite lowers to a module that
/// verifies (a case driving a process grid with `interpreter.run_parallel`
/// too), except the refusals the lowering documents: dot algorithms, and
/// `i1` bitcasts.
fn interpret_suite(jax_dir: &Path) -> Result<(), Failed> {
    const REFUSALS: [&str; 2] = ["dot algorithms are not lowered", "a bitcast between i1"];
    let root = jax_dir.join("../stablehlo-interpret/files");
    let mut files = Vec::new();
    collect_mlir(&root, &mut files);
    let (mut lowered, mut refused, mut failures) = (0, 0, Vec::new());
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
        for (index, case) in weft_stablehlo::text::split::split_input_file(&text)
            .iter()
            .enumerate()
        {
            if !case.text.contains("func.func") {
                continue;
            }
            let body = match weft_stablehlo::text::parse(case.text) {
                Ok(body) => body,
                Err(d) => {
                    failures.push(format!("{}#{index}: {}", file.display(), d.message));
                    continue;
                }
            };
            match weft_stablehlo::lower::lower(&body) {
                Ok(module) => match weft_ir::verify(&module) {
                    Ok(()) => lowered += 1,
                    Err(errors) => failures.push(format!(
                        "{}#{index}: does not verify: {}",
                        file.display(),
                        errors[0].message
                    )),
                },
                Err(d) if REFUSALS.iter().any(|r| d.message.contains(r)) => refused += 1,
                Err(d) => failures.push(format!("{}#{index}: {}", file.display(), d.message)),
            }
        }
    }
    eprintln!(
        "stablehlo-interpret: {lowered} cases lowered and verified, {refused} refused as documented"
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}

fn collect_mlir(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_mlir(&path, out);
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
}

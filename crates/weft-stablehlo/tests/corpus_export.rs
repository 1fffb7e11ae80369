//! Conformance of the export on the HLO modules of the shared corpus: every
//! JAX program's HLO (`NAME.hlo.txt`, XLA's per-device `NAME.spmd.hlo.txt`
//! and optimized `NAME.opt.plain.hlo.txt`, and the async programs of
//! `async/`) exports to StableHLO that prints as a fixed point and passes
//! weft's StableHLO verifier, and lowering that back gives an HLO module that
//! passes the HLO verifier with the same collectives, talking to the same
//! devices, as the original. Async collectives must come out as
//! `stablehlo.async_start`/`async_done`, one pair per HLO start.
//!
//! The corpus is read at run time from `../shared/corpus/`; without it every
//! trial is skipped with a message.

mod common;

use std::path::{Path, PathBuf};

use common::collectives;
use libtest_mimic::{Arguments, Failed, Trial};
use weft_ir::Opcode;

/// What the export refuses, on purpose, with the reason in its message.
const REFUSALS: &[&str] = &[
    // XLA's optimized modules split an all-to-all into one operand per peer;
    // StableHLO's all_to_all has no such form.
    "the tuple form of all-to-all",
];

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/jax");
    dir.join("manifest.json").exists().then_some(dir)
}

fn check(path: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let module = weft_ir::text::parse(&text).map_err(|d| d.render("input", &text))?;
    let exported = match weft_stablehlo::export::export(&module) {
        Ok(exported) => exported,
        Err(message) if REFUSALS.iter().any(|r| message.message.contains(r)) => {
            eprintln!("{}: refused as documented: {message}", path.display());
            return Ok(());
        }
        Err(message) => return Err(format!("cannot export: {message}").into()),
    };
    let printed = weft_stablehlo::text::print(&exported.body, &Default::default());
    let body = weft_stablehlo::text::parse(&printed).map_err(|d| d.render("exported", &printed))?;
    let reprinted = weft_stablehlo::text::print(&body, &Default::default());
    if reprinted != printed {
        return Err("the exported text is not a fixed point of print∘parse".into());
    }
    weft_stablehlo::verify(&body).map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_diagnostic(&body).render("exported", &printed))
            .collect::<String>()
    })?;
    let starts = module
        .all_instrs()
        .filter(|&i| {
            matches!(
                module.instr(i).opcode,
                Opcode::AllReduceStart | Opcode::AllGatherStart | Opcode::CollectivePermuteStart
            )
        })
        .count();
    let async_starts = printed.matches("\"stablehlo.async_start\"").count();
    if async_starts < starts {
        return Err(format!(
            "{starts} first-class start(s) in the module but {async_starts} async_start(s) exported"
        )
        .into());
    }
    let lowered =
        weft_stablehlo::lower::lower(&body).map_err(|d| d.render("exported", &printed))?;
    weft_ir::verify(&lowered).map_err(|errors| {
        let list: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
        format!(
            "lowered back, the module does not verify:\n{}",
            list.join("\n")
        )
    })?;
    let (before, after) = (collectives(&module), collectives(&lowered));
    if before != after {
        return Err(format!(
            "collectives differ after export and lowering\nbefore:\n  {}\nafter:\n  {}",
            before.join("\n  "),
            after.join("\n  ")
        )
        .into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let Some(dir) = corpus_dir() else {
        eprintln!("corpus_export: ../shared/corpus/jax not found; skipping");
        let trial = Trial::test("corpus_export (corpus absent)", || Ok(())).with_ignored_flag(true);
        libtest_mimic::run(&args, vec![trial]).exit();
    };
    let mut files = Vec::new();
    for sub in [dir.clone(), dir.join("async")] {
        if let Ok(entries) = std::fs::read_dir(&sub) {
            files.extend(
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.to_str().is_some_and(|s| s.ends_with(".hlo.txt"))),
            );
        }
    }
    files.sort();
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            Trial::test(format!("export::{name}"), move || check(&path))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

//! What weft prints, weft reads: for every file of `tests/filetests` and of
//! the shared corpus (`../shared/corpus`, read at run time) that `weft fmt`
//! accepts, whatever its header asks,
//!
//! - the printed text parses again and prints identically, in every form
//!   `fmt` or `opt` writes (HLO: long, short, and long without operand shapes;
//!   StableHLO: pretty and generic). The
//!   short form leaves out control predecessors, as XLA's does, so the order
//!   they held may change once: its text need only parse, and print as a
//!   fixed point from its second print on;
//! - what `weft convert` writes for it — the lowered HLO of a StableHLO file
//!   that lowers and verifies, the StableHLO of an HLO module that verifies
//!   and exports — parses again and prints identically too.
//!
//! A file `fmt` refuses, or that `convert` refuses, is no counterexample:
//! the property is about what weft writes. Each file is one trial; without
//! the corpus, only `tests/filetests` is read, with a message.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use weft_ir::text::{PrintOptions, Style};
use weft_stablehlo::text as mlir;

fn main() {
    let args = Arguments::from_args();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![("filetests", manifest.join("../../tests/filetests"))];
    let corpus = manifest.join("../../../shared/corpus");
    if corpus.is_dir() {
        roots.push(("corpus", corpus));
    } else {
        eprintln!(
            "note: {} is absent: only tests/filetests is checked",
            corpus.display()
        );
    }
    let mut trials = Vec::new();
    for (label, root) in roots {
        let mut files = Vec::new();
        collect(&root, &mut files);
        files.sort();
        for path in files {
            let name = format!(
                "{label}/{}",
                path.strip_prefix(&root).unwrap_or(&path).display()
            );
            trials.push(Trial::test(name, move || check_file(&path)));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The program files under `dir`: `.mlir` is StableHLO; `.hlo` and `.txt`
/// are HLO.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "mlir" || e == "hlo" || e == "txt")
        {
            out.push(path);
        }
    }
}

fn check_file(path: &Path) -> Result<(), Failed> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(());
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if path.extension().is_some_and(|e| e == "mlir") {
            check_mlir(&text)
        } else {
            check_hlo(&text)
        }
    }));
    match outcome {
        Ok(result) => result.map_err(Failed::from),
        Err(_) => Err("weft panicked on this file".into()),
    }
}

/// The forms `weft fmt` writes HLO in (its default, and `--short`), and the
/// one `weft opt --no-operand-shapes` adds.
fn hlo_forms() -> [PrintOptions; 3] {
    let long = PrintOptions {
        style: Style::Long,
        sugar: true,
        large_constants: true,
    };
    let short = PrintOptions {
        style: Style::Short,
        ..long
    };
    let default = PrintOptions {
        style: Style::Default,
        ..long
    };
    [long, short, default]
}

fn check_hlo(text: &str) -> Result<(), String> {
    let Ok(module) = weft_ir::text::parse(text) else {
        return Ok(());
    };
    let [long, short, default] = hlo_forms();
    hlo_fixed_point(&weft_ir::text::print(&module, &long), &long, "fmt")?;
    hlo_fixed_point(
        &weft_ir::text::print(&module, &default),
        &default,
        "opt --no-operand-shapes",
    )?;
    let printed = weft_ir::text::print(&module, &short);
    let again = weft_ir::text::parse(&printed).map_err(|d| {
        format!(
            "what `fmt --short` writes does not parse:\n{}",
            d.render("<printed>", &printed)
        )
    })?;
    hlo_fixed_point(&weft_ir::text::print(&again, &short), &short, "fmt --short")?;
    // `convert --to stablehlo` exports a module that verifies.
    if weft_ir::verify(&module).is_err() {
        return Ok(());
    }
    let Ok(exported) = weft_stablehlo::export::export(&module) else {
        return Ok(());
    };
    let printed = mlir::print(&exported.body, &mlir::PrintOptions::default());
    mlir_fixed_point(&printed, false, "convert --to stablehlo")
}

fn check_mlir(text: &str) -> Result<(), String> {
    let Ok(body) = mlir::parse(text) else {
        return Ok(());
    };
    for generic in [false, true] {
        let options = mlir::PrintOptions {
            generic,
            ..Default::default()
        };
        mlir_fixed_point(&mlir::print(&body, &options), generic, "fmt")?;
    }
    // `convert --to hlo` writes a lowering that verifies.
    let Ok(module) = weft_stablehlo::load::load(text, None) else {
        return Ok(());
    };
    let [long, _, _] = hlo_forms();
    hlo_fixed_point(
        &weft_ir::text::print(&module, &long),
        &long,
        "convert --to hlo",
    )
}

/// `printed` (what `command` wrote) parses and prints as itself.
fn hlo_fixed_point(printed: &str, options: &PrintOptions, command: &str) -> Result<(), String> {
    let again = weft_ir::text::parse(printed).map_err(|d| {
        format!(
            "what `{command}` writes does not parse:\n{}",
            d.render("<printed>", printed)
        )
    })?;
    let reprinted = weft_ir::text::print(&again, options);
    same(printed, &reprinted, command)
}

/// `printed` (what `command` wrote, generic or not) parses and prints as
/// itself.
fn mlir_fixed_point(printed: &str, generic: bool, command: &str) -> Result<(), String> {
    let again = mlir::parse(printed).map_err(|d| {
        format!(
            "what `{command}` writes does not parse:\n{}",
            d.render("<printed>", printed)
        )
    })?;
    let options = mlir::PrintOptions {
        generic,
        ..Default::default()
    };
    same(printed, &mlir::print(&again, &options), command)
}

fn same(first: &str, second: &str, command: &str) -> Result<(), String> {
    if first == second {
        return Ok(());
    }
    let line = first
        .lines()
        .zip(second.lines())
        .position(|(a, b)| a != b)
        .map_or_else(
            || "their lengths differ".to_string(),
            |n| {
                format!(
                    "line {}:\n  first:  {}\n  second: {}",
                    n + 1,
                    first.lines().nth(n).unwrap_or_default(),
                    second.lines().nth(n).unwrap_or_default()
                )
            },
        );
    Err(format!(
        "what `{command}` writes does not print as itself once read: {line}"
    ))
}

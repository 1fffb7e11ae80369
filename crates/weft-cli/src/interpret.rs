//! `weft interpret`: run a StableHLO test file the way
//! `stablehlo-translate --interpret -split-input-file` does — every case
//! lowered and run, its `check.*` ops enforced — and report each case. A
//! case driving a process grid with `interpreter.run_parallel` runs its
//! programs on a grid of device threads; what they print and feed out is
//! reported with `--verbose`, device by device.

use std::path::PathBuf;
use std::process::ExitCode;

use weft_ir::diagnostic::line_col;
use weft_ir::literal::ArrayLiteral;
use weft_stablehlo::text::driver;
use weft_stablehlo::text::split::split_input_file;

use crate::input;

#[derive(clap::Args)]
pub struct InterpretArgs {
    /// The StableHLO test file; cases are separated by `// -----` lines.
    file: PathBuf,
    /// Print the value of each case's result, what `interpreter.print`
    /// printed and what `outfeed` fed out.
    #[arg(long)]
    verbose: bool,
    /// Arguments of each case's entry function, as `stablehlo-translate
    /// --interpret --args` takes them: `[dense<1> : tensor<2xi32>, …]`.
    /// Without it, the `--args` of the file's RUN line are used.
    #[arg(long, value_name = "ATTRIBUTES")]
    args: Option<String>,
}

/// How one case ended.
enum Outcome {
    Passed,
    Failed(String),
}

pub fn run(args: &InterpretArgs) -> ExitCode {
    let source = match input::read(Some(&args.file)) {
        Ok(source) => source,
        Err(e) => {
            tell!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Without --args, the file's own RUN line says what the driver is given.
    let (argument_text, origin) = match args.args.as_deref() {
        Some(text) => (Some(text), "--args".to_string()),
        None => (
            driver::run_line_arguments(&source.text),
            format!("{}: the --args of its RUN line", source.name),
        ),
    };
    let arguments = match argument_text.map(driver::parse_arguments).transpose() {
        Ok(literals) => literals.unwrap_or_default(),
        Err(message) => {
            tell!("error: {origin}: {message}");
            return ExitCode::FAILURE;
        }
    };
    let (mut passed, mut failed) = (0, 0);
    for (index, chunk) in split_input_file(&source.text).iter().enumerate() {
        if !chunk.text.contains("func.func") {
            continue;
        }
        let line = line_col(&source.text, chunk.offset).line;
        match run_case(chunk.text, &arguments, args.verbose) {
            Outcome::Passed => passed += 1,
            Outcome::Failed(message) => {
                failed += 1;
                say!("{}:{line}: case {index} FAILED: {message}", source.name);
            }
        }
    }
    say!("{passed} passed, {failed} failed");
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn run_case(text: &str, arguments: &[ArrayLiteral], verbose: bool) -> Outcome {
    // The arguments fix the shapes the program leaves to run time.
    let module = match weft_stablehlo::load::load(text, Some(arguments)) {
        Ok(module) => module,
        Err(error) => return Outcome::Failed(case_failure(&error)),
    };
    let values = arguments
        .iter()
        .map(|literal| weft_runtime::Value::Tensor(weft_runtime::Tensor::from_literal(literal)))
        .collect();
    match weft_runtime::run(&module, values) {
        Err(e) => Outcome::Failed(e.to_string()),
        Ok(evaluation) => {
            if verbose {
                for line in &evaluation.printed {
                    say!("  print: {line}");
                }
                for value in &evaluation.outfeed {
                    say!("  outfeed: {}", describe_value(value));
                }
                say!("  result: {}", evaluation.result.describe());
            }
            match evaluation.check_failures.first() {
                None => Outcome::Passed,
                Some(first) => Outcome::Failed(if evaluation.check_failures.len() > 1 {
                    format!(
                        "{first} (and {} more failed checks)",
                        evaluation.check_failures.len() - 1
                    )
                } else {
                    first.clone()
                }),
            }
        }
    }
}

/// Why a case could not be loaded, on one line: the stage and the first
/// diagnostic (with a count of the others).
fn case_failure(error: &weft_stablehlo::load::LoadError) -> String {
    use weft_stablehlo::load::Stage;
    let more = match error.diagnostics.len() {
        0 | 1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    match error.stage {
        Stage::Parse => format!("does not parse: {}", error.message()),
        Stage::Verify => format!("does not verify: {}{more}", error.message()),
        Stage::Lower | Stage::HloVerify => error.message().to_string(),
    }
}

/// `s64[2,2] [1, 2, 3, 4]`: a value's shape and its first elements.
fn describe_value(value: &weft_runtime::Value) -> String {
    use weft_runtime::numbers::{Numbers, decode};
    const SHOWN: usize = 16;
    let weft_runtime::Value::Tensor(tensor) = value else {
        return match value {
            weft_runtime::Value::Tuple(elements) => {
                let parts: Vec<String> = elements.iter().map(describe_value).collect();
                format!("({})", parts.join(", "))
            }
            other => other.describe(),
        };
    };
    let items: Vec<String> = match decode(tensor) {
        Numbers::Pred(v) => v.iter().take(SHOWN).map(bool::to_string).collect(),
        Numbers::Signed(v) => v.iter().take(SHOWN).map(i64::to_string).collect(),
        Numbers::Unsigned(v) => v.iter().take(SHOWN).map(u64::to_string).collect(),
        Numbers::Float(v) => v.iter().take(SHOWN).map(f64::to_string).collect(),
        Numbers::Complex(v) => v
            .iter()
            .take(SHOWN)
            .map(|(re, im)| format!("({re}, {im})"))
            .collect(),
    };
    let more = if tensor.len() > SHOWN { ", …" } else { "" };
    format!("{} [{}{more}]", value.describe(), items.join(", "))
}

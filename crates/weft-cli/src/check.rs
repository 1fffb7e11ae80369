//! `weft check`: parse and verify HLO and StableHLO files, reporting every
//! error.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;
use weft_ir::diagnostic::Diagnostic;
use weft_ir::verify::VerifyOptions;

use crate::input;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style diagnostics with the source line and a caret.
    Human,
    /// One JSON object per error and per file summary, one per line.
    Json,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// The files to check: HLO, or StableHLO when the name ends in `.mlir`;
    /// `-` reads standard input.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The files' format, when their names do not say (standard input is
    /// HLO unless this says otherwise).
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<crate::fmt::InputFormat>,
    /// How to print errors.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Compare layouts as well as shapes (XLA's layout-sensitive verifier).
    #[arg(long)]
    layout_sensitive: bool,
}

/// One error of one file, ready to print.
struct Reported {
    rule: &'static str,
    diagnostic: Diagnostic,
}

pub fn run(args: &CheckArgs) -> ExitCode {
    let options = VerifyOptions {
        layout_sensitive: args.layout_sensitive,
        ..VerifyOptions::default()
    };
    let mut all_clean = true;
    for path in &args.files {
        let source = match input::read(Some(path)) {
            Ok(s) => s,
            Err(e) => {
                all_clean = false;
                match args.format {
                    Format::Human => tell!("error: {e}"),
                    Format::Json => say!(
                        "{}",
                        json!({"file": path.display().to_string(), "rule": "io", "message": e})
                    ),
                }
                continue;
            }
        };
        let (errors, count, unit) = if crate::fmt::InputFormat::of(Some(path), args.input_format)
            == crate::fmt::InputFormat::Mlir
        {
            let (errors, ops) = check_mlir(&source.text);
            (errors, ops, "ops")
        } else {
            let (errors, instructions) = check_text(&source.text, &options);
            (errors, instructions, "instructions")
        };
        all_clean &= errors.is_empty();
        for error in &errors {
            match args.format {
                Format::Human => {
                    tell_text!("{}", error.diagnostic.render(&source.name, &source.text))
                }
                Format::Json => say!("{}", json_error(&source.name, &source.text, error)),
            }
        }
        match args.format {
            Format::Human => {
                if errors.is_empty() {
                    tell!("{}: ok ({count} {unit})", source.name);
                } else {
                    let plural = if errors.len() == 1 { "" } else { "s" };
                    tell!("{}: {} error{plural}", source.name, errors.len());
                }
            }
            Format::Json => {
                let mut summary =
                    json!({"file": source.name, "summary": true, "errors": errors.len()});
                summary[unit] = json!(count);
                say!("{summary}")
            }
        }
    }
    if all_clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Parses and verifies `text`: the errors, and the number of instructions.
fn check_text(text: &str, options: &VerifyOptions) -> (Vec<Reported>, usize) {
    let (module, map) = match weft_ir::text::parse_with_source_map(text) {
        Ok(parsed) => parsed,
        Err(diagnostic) => {
            return (
                vec![Reported {
                    rule: "parse",
                    diagnostic,
                }],
                0,
            );
        }
    };
    let instructions = module.instr_count();
    let errors = match weft_ir::verify::verify_with(&module, options) {
        Ok(()) => Vec::new(),
        Err(errors) => errors
            .iter()
            .map(|e| Reported {
                rule: e.rule.code(),
                diagnostic: e.to_diagnostic(&module, text, &map),
            })
            .collect(),
    };
    (errors, instructions)
}

/// Parses and verifies StableHLO `text`: the errors, and the number of ops.
fn check_mlir(text: &str) -> (Vec<Reported>, usize) {
    let body = match weft_stablehlo::text::parse(text) {
        Ok(body) => body,
        Err(diagnostic) => {
            return (
                vec![Reported {
                    rule: "parse",
                    diagnostic: *diagnostic,
                }],
                0,
            );
        }
    };
    let mut ops = 0usize;
    body.walk(body.module, &mut |_| ops += 1);
    let errors = match weft_stablehlo::verify(&body) {
        Ok(()) => hlo_form_errors(&body),
        Err(errors) => errors
            .iter()
            .map(|e| Reported {
                rule: "stablehlo",
                diagnostic: e.to_diagnostic(&body),
            })
            .collect(),
    };
    (errors, ops.saturating_sub(1))
}

/// What `weft run` and `weft convert` would refuse in a program the
/// StableHLO verifier accepts: an op whose HLO form breaks a rule (its types
/// disagree, say), found by lowering it. A program weft cannot lower (yet, or
/// without its inputs' shapes) is not invalid, so that failure is no error.
fn hlo_form_errors(body: &weft_stablehlo::ir::Body) -> Vec<Reported> {
    use weft_stablehlo::load;
    match load::lower(body, None) {
        Err(error) if error.stage == load::Stage::HloVerify => error
            .diagnostics
            .into_iter()
            .map(|diagnostic| Reported {
                rule: "stablehlo",
                diagnostic,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn json_error(file: &str, text: &str, error: &Reported) -> String {
    let at = error.diagnostic.line_col(text);
    let mut object = json!({
        "file": file,
        "line": at.line,
        "col": at.col,
        "rule": error.rule,
        "message": error.diagnostic.message,
    });
    if let Some(hint) = &error.diagnostic.hint {
        object["hint"] = json!(hint);
    }
    object.to_string()
}

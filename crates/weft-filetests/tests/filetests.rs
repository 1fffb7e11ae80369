//! File-based tests: every `*.hlo` (HLO) and `*.mlir` (StableHLO) file under the
//! workspace's `tests/filetests/` directory, one trial per (file, command).
//!
//! # File format
//!
//! A filetest is an HLO module or a StableHLO MLIR file whose first lines are `//`
//! comments (the header).
//! By convention the first one says what the file checks; every header line of the
//! form `// test: <command>` adds a command. The header ends at the first line that
//! is not a `//` comment; `// test:` lines after it are not read.
//!
//! Commands:
//!
//! - `fmt`, `fmt --short`, `fmt --no-sugar`, `fmt --short --no-sugar` (flags in any
//!   order): parse the file and print it in the long or short form, with or
//!   without async sugar. The output must equal `<file>.<variant>.expected` next to
//!   the file, byte for byte, where the variant is `long`, `short`, `long-nosugar`
//!   or `short-nosugar`. The output must also be a fixed point: parsing it and
//!   printing again with the same options gives the same text. Without sugar,
//!   the output must also be the same module as the sugared one (the spec's
//!   "both spellings parse to one representation"): parsing it and printing
//!   with sugar gives the file's sugared print.
//! - `fmt` and `fmt --generic` on a `.mlir` file: parse it and print it in MLIR's
//!   custom (pretty) op forms, or with every op in the generic form. The output
//!   must equal `<file>.pretty.expected` or `<file>.generic.expected` and be a
//!   fixed point; the generic text must also be the same program as the pretty
//!   one (parsing it and printing pretty gives the file's pretty print).
//! - `fmt --async-style=region` and `fmt --async-style=pairs` on a `.mlir`
//!   file: rewrite its async collectives into that style
//!   ([`weft_stablehlo::async_style`]) and print. The output must equal
//!   `<file>.region.expected` or `<file>.pairs.expected`, be a fixed point,
//!   verify clean, and survive the round trip: rewritten into the other style
//!   and back it prints the same. Every op must convert (a warning fails).
//! - `convert --to hlo` on a `.mlir` file: verify it, lower it
//!   ([`weft_stablehlo::lower`]) and print the HLO module in the long form with
//!   sugar; it must equal `<file>.hlo.expected` and pass the HLO verifier. The
//!   file rewritten into either async style (as far as that style can say it)
//!   must lower to the same module.
//! - `convert --to stablehlo` on an HLO file: export it
//!   ([`weft_stablehlo::export`]) and print the StableHLO, each export warning
//!   first as a `// warning: …` line; it must equal
//!   `<file>.stablehlo.expected`, verify clean, print as a fixed point, and
//!   lower back to an HLO module that verifies.
//! - `run` on an HLO file: run the module on its devices (the module's
//!   `replica_count` × `num_partitions`, one device by default) with seeded
//!   inputs, the link model off, and the collective timeout of a `// timeout:
//!   SECONDS` header line (default 2). With `// error: <text>` comments the
//!   run must fail and its message contain each text; the message goes to
//!   `<file>.run.expected`. Without them it must succeed, and the outputs'
//!   shapes and values go there.
//! - `interpret` on a `.mlir` file: every `// -----` case is lowered and run
//!   as `weft interpret` runs it, on one device, with the entry arguments of
//!   an `// args: [dense<…> : tensor<…>, …]` header line (which also fix the
//!   shapes a shape-polymorphic program leaves to run time, as
//!   [`weft_stablehlo::lower::lower_for_arguments`] does). Every case must
//!   pass its `check.*` ops, unless its text holds `// expect-failure` (then
//!   it must fail). Each case's result, or its failure, goes to
//!   `<file>.interpret.expected`.
//! - `check` on a `.mlir` file works as on an HLO file (below), with the
//!   StableHLO verifier ([`weft_stablehlo::verify`]) and its MLIR-style
//!   messages; a file it accepts is lowered, as `weft check` does, and an op
//!   whose HLO form does not verify is an error at the op.
//! - `error`: parsing must fail. The file holds exactly one `// error: <text>`
//!   comment. The diagnostic must start on the *target line* and its message or
//!   hint must contain `<text>`. The target line is the comment's own line when
//!   code precedes the comment on that line; when the comment stands on a line by
//!   itself, it is the next line that is neither blank nor a `//` comment line.
//!   The full rendered diagnostic (rustc style, named by the file's path relative
//!   to `tests/filetests/`) must equal `<file>.error.expected`.
//!
//! - `check`: parsing must succeed and then [`weft_ir::verify`] decides. Each
//!   `// error: <text>` comment (any number, each with the target line defined
//!   above) expects one verifier error on its target line whose message (which
//!   starts with the rule's code, as in `[R4] …`) or hint contains `<text>`.
//!   Every error must be expected by exactly one comment; with no comments the
//!   module must verify clean. When there are errors, their rendered
//!   diagnostics must equal `<file>.check.expected`.
//!
//! A file without a `// test:` line fails, as does an `.expected` file that no
//! command of its source file produces (so renamed tests leave nothing behind).
//!
//! # Blessing
//!
//! `WEFT_BLESS=1 cargo test -p weft-filetests` writes every
//! `.expected` file from the current output instead of comparing, and deletes
//! stale ones. The other checks (located error, fixed point, no panic) still
//! apply. A blessed change is a reviewed diff: read it before committing.
//! Blessing also overwrites expected files written by hand to record what
//! XLA prints while weft still prints something else (a known bug), so bless
//! only a filtered set of trials (`-- <filter>`) when such tests exist.
//!
//! No trial can take the harness down: parsing and printing run under
//! `catch_unwind`, and a panic is reported as that trial's failure.

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use weft_ir::text::{PrintOptions, Style, parse, print};
use weft_ir::{Diagnostic, Module};
use weft_stablehlo::async_style::{AsyncStyle, set_async_style};
use weft_stablehlo::text as mlir;

/// The directive that adds a command to a file's header.
const TEST_DIRECTIVE: &str = "// test:";
/// The directive of an `error` test's expected diagnostic.
const ERROR_DIRECTIVE: &str = "// error:";
/// The environment variable that turns comparisons into rewrites.
const BLESS_VAR: &str = "WEFT_BLESS";

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests");
    let mut files = Vec::new();
    if let Err(e) = collect_test_files(&root, &mut files) {
        eprintln!("error: cannot read {}: {e}", root.display());
        std::process::exit(1);
    }
    files.sort();
    let mut trials = Vec::new();
    let mut produced = Vec::new();
    for path in files {
        let rel = relative_name(&root, &path);
        match read_header(&path) {
            Ok(commands) => {
                for command in commands {
                    produced.push(command.expected_path(&path));
                    trials.push(trial(path.clone(), rel.clone(), command));
                }
            }
            Err(message) => {
                // Until the header is fixed its commands are unknown: keep every
                // expected file it may have, so blessing does not delete them.
                produced.extend(Command::ALL.iter().map(|c| c.expected_path(&path)));
                trials.push(Trial::test(format!("{rel} [header]"), move || {
                    Err(message.into())
                }));
            }
        }
    }
    trials.push(Trial::test("stale expected files", move || {
        check_stale(&root, &produced)
    }));
    libtest_mimic::run(&args, trials).exit();
}

/// One `// test:` command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Command {
    Fmt {
        short: bool,
        sugar: bool,
    },
    MlirFmt {
        generic: bool,
    },
    AsyncStyle {
        pairs: bool,
    },
    ConvertToHlo,
    ConvertToStablehlo,
    Run,
    Interpret,
    Error,
    Check,
    /// `pass PIPELINE`: the passes run on the module (the pipeline's text is
    /// read again from the header when the trial runs; a file has one).
    Pass,
}

/// Which text format a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Hlo,
    Mlir,
}

impl Format {
    fn of(path: &Path) -> Format {
        if path.extension().is_some_and(|e| e == "mlir") {
            Format::Mlir
        } else {
            Format::Hlo
        }
    }
}

impl Command {
    const ALL: [Command; 15] = [
        Command::Run,
        Command::Interpret,
        Command::ConvertToStablehlo,
        Command::MlirFmt { generic: false },
        Command::MlirFmt { generic: true },
        Command::AsyncStyle { pairs: false },
        Command::AsyncStyle { pairs: true },
        Command::ConvertToHlo,
        Command::Fmt {
            short: false,
            sugar: true,
        },
        Command::Fmt {
            short: true,
            sugar: true,
        },
        Command::Fmt {
            short: false,
            sugar: false,
        },
        Command::Fmt {
            short: true,
            sugar: false,
        },
        Command::Error,
        Command::Check,
        Command::Pass,
    ];

    fn parse(text: &str, format: Format) -> Result<Command, String> {
        let mut words = text.split_whitespace();
        if format == Format::Mlir {
            return match (words.next(), words.next(), words.next()) {
                (Some("error"), None, _) => Ok(Command::Error),
                (Some("check"), None, _) => Ok(Command::Check),
                (Some("fmt"), None, _) => Ok(Command::MlirFmt { generic: false }),
                (Some("fmt"), Some("--generic"), None) => Ok(Command::MlirFmt { generic: true }),
                (Some("fmt"), Some("--async-style=region"), None) => {
                    Ok(Command::AsyncStyle { pairs: false })
                }
                (Some("fmt"), Some("--async-style=pairs"), None) => {
                    Ok(Command::AsyncStyle { pairs: true })
                }
                (Some("convert"), Some("--to"), Some("hlo")) if words.next().is_none() => {
                    Ok(Command::ConvertToHlo)
                }
                (Some("interpret"), None, _) => Ok(Command::Interpret),
                _ => Err(format!(
                    "unknown command `{}` for a .mlir file (expected `fmt [--generic | --async-style=region|pairs]`, `convert --to hlo`, `interpret`, `error` or `check`)",
                    text.trim()
                )),
            };
        }
        match words.next() {
            Some("error") => match words.next() {
                None => Ok(Command::Error),
                Some(w) => Err(format!("`error` takes no arguments, got `{w}`")),
            },
            Some("run") => match words.next() {
                None => Ok(Command::Run),
                Some(w) => Err(format!("`run` takes no arguments, got `{w}`")),
            },
            Some("convert") => match (words.next(), words.next(), words.next()) {
                (Some("--to"), Some("stablehlo"), None) => Ok(Command::ConvertToStablehlo),
                _ => Err("expected `convert --to stablehlo` for an HLO file".to_string()),
            },
            Some("check") => match words.next() {
                None => Ok(Command::Check),
                Some(w) => Err(format!("`check` takes no arguments, got `{w}`")),
            },
            Some("pass") => {
                let pipeline = text.trim().strip_prefix("pass").unwrap_or_default().trim();
                if pipeline.is_empty() {
                    return Err(
                        "`pass` needs the passes to run: `pass NAME{key=value},NAME2`".into(),
                    );
                }
                weft_passes::registry::build(pipeline)
                    .map_err(|e| format!("`pass {pipeline}`, column {}: {}", e.column, e.error))?;
                Ok(Command::Pass)
            }
            Some("fmt") => {
                let (mut short, mut sugar) = (false, true);
                for word in words {
                    match word {
                        "--short" if !short => short = true,
                        "--no-sugar" if sugar => sugar = false,
                        _ => return Err(format!("unexpected `{word}` in `fmt` command")),
                    }
                }
                Ok(Command::Fmt { short, sugar })
            }
            Some(other) => Err(format!(
                "unknown command `{other}` (expected `fmt [--short] [--no-sugar]`, `convert --to stablehlo`, `error`, `check` or `pass PASSES`)"
            )),
            None => Err("empty `// test:` line".to_string()),
        }
    }

    /// How the command is written in a trial name.
    fn label(self) -> String {
        match self {
            Command::Error => "error".to_string(),
            Command::Check => "check".to_string(),
            Command::Pass => "pass".to_string(),
            Command::MlirFmt { generic: false } => "fmt".to_string(),
            Command::MlirFmt { generic: true } => "fmt --generic".to_string(),
            Command::AsyncStyle { pairs: false } => "fmt --async-style=region".to_string(),
            Command::AsyncStyle { pairs: true } => "fmt --async-style=pairs".to_string(),
            Command::ConvertToHlo => "convert --to hlo".to_string(),
            Command::ConvertToStablehlo => "convert --to stablehlo".to_string(),
            Command::Run => "run".to_string(),
            Command::Interpret => "interpret".to_string(),
            Command::Fmt { short, sugar } => {
                let mut label = String::from("fmt");
                if short {
                    label.push_str(" --short");
                }
                if !sugar {
                    label.push_str(" --no-sugar");
                }
                label
            }
        }
    }

    /// `<file>.<variant>.expected`.
    fn expected_path(self, file: &Path) -> PathBuf {
        let variant = match self {
            Command::Error => "error",
            Command::Check => "check",
            Command::Pass => "pass",
            Command::MlirFmt { generic: false } => "pretty",
            Command::MlirFmt { generic: true } => "generic",
            Command::AsyncStyle { pairs: false } => "region",
            Command::AsyncStyle { pairs: true } => "pairs",
            Command::ConvertToHlo => "hlo",
            Command::ConvertToStablehlo => "stablehlo",
            Command::Run => "run",
            Command::Interpret => "interpret",
            Command::Fmt {
                short: false,
                sugar: true,
            } => "long",
            Command::Fmt {
                short: true,
                sugar: true,
            } => "short",
            Command::Fmt {
                short: false,
                sugar: false,
            } => "long-nosugar",
            Command::Fmt {
                short: true,
                sugar: false,
            } => "short-nosugar",
        };
        let mut name = file.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".{variant}.expected"));
        file.with_file_name(name)
    }
}

fn trial(path: PathBuf, rel: String, command: Command) -> Trial {
    Trial::test(format!("{rel} [{}]", command.label()), move || {
        let source = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let expected = command.expected_path(&path);
        match command {
            Command::Fmt { short, sugar } => {
                let options = PrintOptions {
                    style: if short { Style::Short } else { Style::Long },
                    sugar,
                    ..PrintOptions::long()
                };
                run_fmt(&rel, &source, &options, &expected)
            }
            Command::MlirFmt { generic } => run_mlir_fmt(&rel, &source, generic, &expected),
            Command::AsyncStyle { pairs } => run_async_style(&rel, &source, pairs, &expected),
            Command::ConvertToHlo => run_convert_to_hlo(&rel, &source, &expected),
            Command::ConvertToStablehlo => run_convert_to_stablehlo(&rel, &source, &expected),
            Command::Run => run_program(&rel, &source, &expected),
            Command::Interpret => run_interpret(&source, &expected),
            Command::Check if Format::of(&path) == Format::Mlir => {
                run_mlir_check(&rel, &source, &expected)
            }
            Command::Error if Format::of(&path) == Format::Mlir => {
                run_error(&rel, &source, &expected, |text| {
                    mlir::parse(text).map(drop).map_err(|d| *d)
                })
            }
            Command::Error => run_error(&rel, &source, &expected, |text| parse(text).map(drop)),
            Command::Check => run_check(&rel, &source, &expected),
            Command::Pass => run_passes(&rel, &source, &expected),
        }
    })
}

/// Runs the header's `pass` pipeline on the module, verifying after every
/// pass, and compares the printed result (long form), or the error that
/// stopped it, with the expected file.
fn run_passes(rel: &str, source: &str, expected: &Path) -> Result<(), Failed> {
    let pipeline = source
        .lines()
        .map_while(|line| line.trim().strip_prefix("//"))
        .find_map(|line| line.trim().strip_prefix("test: pass"))
        .ok_or("no `// test: pass` line")?
        .trim();
    let passes = weft_passes::registry::build(pipeline).map_err(|e| e.error.to_string())?;
    let mut module = match guarded_parse(source)? {
        Ok(module) => module,
        Err(d) => return Err(format!("does not parse:\n{}", d.render(rel, source)).into()),
    };
    if let Err(errors) = weft_ir::verify(&module) {
        let first = errors
            .first()
            .map(|e| e.describe(&module))
            .unwrap_or_default();
        return Err(format!("the input does not verify: {first}").into());
    }
    let options = weft_passes::PipelineOptions {
        verify_each: true,
        ..Default::default()
    };
    let actual = match weft_passes::Pipeline::new(passes).run(&mut module, &options) {
        Ok(_) => guarded_print(&module, &PrintOptions::long())?,
        Err(error) => format!("error: {}\n", error.describe(&module)),
    };
    compare_or_bless(&actual, expected).map_err(Into::into)
}

fn collect_test_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_test_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "hlo" || e == "mlir") {
            out.push(path);
        }
    }
    Ok(())
}

/// `path` relative to `root`, with `/` separators on every platform so trial
/// names and rendered diagnostics do not depend on the OS.
fn relative_name(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The commands of a file's header.
fn read_header(path: &Path) -> Result<Vec<Command>, String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut commands = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let line = line.trim();
        if !line.starts_with("//") {
            break;
        }
        if let Some(text) = line.strip_prefix(TEST_DIRECTIVE) {
            let command = Command::parse(text, Format::of(path))
                .map_err(|e| format!("line {}: {e}", n + 1))?;
            if commands.contains(&command) {
                return Err(format!("line {}: duplicate command", n + 1));
            }
            commands.push(command);
        }
    }
    if commands.is_empty() {
        return Err(format!(
            "no `{TEST_DIRECTIVE} <command>` line in the header (the leading `//` lines)"
        ));
    }
    Ok(commands)
}

fn bless() -> bool {
    std::env::var_os(BLESS_VAR).is_some_and(|v| v == "1")
}

/// The text of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(non-string payload)".to_string())
}

/// Parses without letting a panic escape; a panic becomes the trial's failure.
fn guarded_parse(source: &str) -> Result<Result<Module, Diagnostic>, String> {
    catch_unwind(AssertUnwindSafe(|| parse(source)))
        .map_err(|p| format!("the parser panicked: {}", panic_message(&*p)))
}

fn guarded_print(module: &Module, options: &PrintOptions) -> Result<String, String> {
    catch_unwind(AssertUnwindSafe(|| print(module, options)))
        .map_err(|p| format!("the printer panicked: {}", panic_message(&*p)))
}

fn run_fmt(rel: &str, source: &str, options: &PrintOptions, expected: &Path) -> Result<(), Failed> {
    let module = guarded_parse(source)?.map_err(|d| d.render(rel, source))?;
    let printed = guarded_print(&module, options)?;
    let mut failures = Vec::new();
    if let Err(e) = compare_or_bless(&printed, expected) {
        failures.push(e);
    }
    // The printed text must read back as the same module: print∘parse is the
    // identity on printed text, in every form.
    match guarded_parse(&printed)? {
        Err(d) => failures.push(format!(
            "the printed text does not parse:\n{}",
            d.render("<printed>", &printed)
        )),
        Ok(again) => {
            let reprinted = guarded_print(&again, options)?;
            if reprinted != printed {
                failures.push(format!(
                    "printing is not a fixed point (-first print +second print):\n{}",
                    diff(&printed, &reprinted)
                ));
            }
        }
    }
    if !options.sugar {
        // The spec says the sugared and generic spellings parse to one
        // representation, so the generic text, printed with sugar, must read
        // exactly like the file printed with sugar.
        let sugared = PrintOptions {
            sugar: true,
            ..*options
        };
        let direct = guarded_print(&module, &sugared)?;
        if let Ok(generic) = guarded_parse(&printed)? {
            let via_generic = guarded_print(&generic, &sugared)?;
            if via_generic != direct {
                failures.push(format!(
                    "the generic text is not the same module as the sugared one \
                     (-sugared print of the file +sugared print of the --no-sugar output):\n{}",
                    diff(&direct, &via_generic)
                ));
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

fn run_mlir_fmt(rel: &str, source: &str, generic: bool, expected: &Path) -> Result<(), Failed> {
    let parse_guarded = |text: &str| {
        catch_unwind(AssertUnwindSafe(|| mlir::parse(text)))
            .map_err(|p| format!("the parser panicked: {}", panic_message(&*p)))
    };
    let print_guarded = |body: &weft_stablehlo::ir::Body, generic: bool| {
        let options = mlir::PrintOptions {
            generic,
            ..mlir::PrintOptions::default()
        };
        catch_unwind(AssertUnwindSafe(|| mlir::print(body, &options)))
            .map_err(|p| format!("the printer panicked: {}", panic_message(&*p)))
    };
    let body = parse_guarded(source)?.map_err(|d| d.render(rel, source))?;
    let printed = print_guarded(&body, generic)?;
    let mut failures = Vec::new();
    if let Err(e) = compare_or_bless(&printed, expected) {
        failures.push(e);
    }
    match parse_guarded(&printed)? {
        Err(d) => failures.push(format!(
            "the printed text does not parse:\n{}",
            d.render("<printed>", &printed)
        )),
        Ok(again) => {
            let reprinted = print_guarded(&again, generic)?;
            if reprinted != printed {
                failures.push(format!(
                    "printing is not a fixed point (-first print +second print):\n{}",
                    diff(&printed, &reprinted)
                ));
            }
            if generic {
                // One program, two spellings: the generic text printed pretty
                // must be the file printed pretty.
                let direct = print_guarded(&body, false)?;
                let via_generic = print_guarded(&again, false)?;
                if via_generic != direct {
                    failures.push(format!(
                        "the generic text is not the same program as the file \
                         (-pretty print of the file +pretty print of the generic output):\n{}",
                        diff(&direct, &via_generic)
                    ));
                }
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

/// `source` rewritten into one async style and printed, or why it could not be.
fn restyle(rel: &str, source: &str, pairs: bool) -> Result<String, String> {
    restyle_with(rel, source, pairs, true)
}

/// [`restyle`]; unless `strict`, ops the other style cannot say stay as they
/// are without failing.
fn restyle_with(rel: &str, source: &str, pairs: bool, strict: bool) -> Result<String, String> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut body = mlir::parse(source).map_err(|d| d.render(rel, source))?;
        let style = if pairs {
            AsyncStyle::Pairs
        } else {
            AsyncStyle::Region
        };
        let unconverted = set_async_style(&mut body, style);
        if strict && !unconverted.is_empty() {
            return Err(unconverted
                .iter()
                .map(|u| {
                    format!(
                        "'{}' kept as it is: {}",
                        body.ops[u.op].name.as_str(),
                        u.reason
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"));
        }
        Ok(mlir::print(&body, &mlir::PrintOptions::default()))
    }))
    .map_err(|p| format!("the async-style rewrite panicked: {}", panic_message(&*p)))?
}

fn run_async_style(rel: &str, source: &str, pairs: bool, expected: &Path) -> Result<(), Failed> {
    let printed = restyle(rel, source, pairs)?;
    let mut failures = Vec::new();
    if let Err(e) = compare_or_bless(&printed, expected) {
        failures.push(e);
    }
    let again = restyle("<printed>", &printed, pairs)?;
    if again != printed {
        failures.push(format!(
            "the rewrite is not a fixed point (-first +second):\n{}",
            diff(&printed, &again)
        ));
    }
    let other = restyle("<printed>", &printed, !pairs)?;
    let back = restyle("<other style>", &other, pairs)?;
    if back != printed {
        failures.push(format!(
            "the round trip through the other style changes the program (-before +after):\n{}",
            diff(&printed, &back)
        ));
    }
    let body = mlir::parse(&printed).map_err(|d| d.render("<printed>", &printed))?;
    if let Err(errors) = weft_stablehlo::verify(&body) {
        failures.push(format!(
            "the rewritten program does not verify:\n{}",
            errors
                .iter()
                .map(|e| e.to_diagnostic(&body).render("<printed>", &printed))
                .collect::<String>()
        ));
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

/// `source` verified, lowered to HLO and printed in the long form with sugar.
fn lower_to_hlo(rel: &str, source: &str) -> Result<String, String> {
    catch_unwind(AssertUnwindSafe(|| {
        let module = weft_stablehlo::load::load(source, None).map_err(|e| e.render(rel, source))?;
        weft_ir::verify(&module).map_err(|errors| {
            format!(
                "the lowered module does not verify:\n{}",
                errors
                    .iter()
                    .map(|e| e.message.clone())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        })?;
        Ok(weft_ir::text::print(&module, &PrintOptions::long()))
    }))
    .map_err(|p| format!("the lowering panicked: {}", panic_message(&*p)))?
}

fn run_convert_to_hlo(rel: &str, source: &str, expected: &Path) -> Result<(), Failed> {
    let printed = lower_to_hlo(rel, source)?;
    let mut failures = Vec::new();
    if let Err(e) = compare_or_bless(&printed, expected) {
        failures.push(e);
    }
    for pairs in [false, true] {
        let restyled = restyle_with(rel, source, pairs, false)?;
        let lowered = lower_to_hlo("<restyled>", &restyled)?;
        if lowered != printed {
            failures.push(format!(
                "in {} style the program lowers differently (-file +restyled):\n{}",
                if pairs { "pairs" } else { "region" },
                diff(&printed, &lowered)
            ));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

fn run_convert_to_stablehlo(rel: &str, source: &str, expected: &Path) -> Result<(), Failed> {
    let (printed, warnings) = catch_unwind(AssertUnwindSafe(|| {
        let module = parse(source).map_err(|d| d.render(rel, source))?;
        let exported = weft_stablehlo::export::export(&module)
            .map_err(|message| format!("cannot export: {message}"))?;
        let printed = mlir::print(&exported.body, &mlir::PrintOptions::default());
        Ok::<_, String>((printed, exported.warnings))
    }))
    .map_err(|p| format!("the export panicked: {}", panic_message(&*p)))??;
    let mut output: String = warnings
        .iter()
        .map(|w| format!("// warning: {w}\n"))
        .collect();
    output.push_str(&printed);
    let mut failures = Vec::new();
    if let Err(e) = compare_or_bless(&output, expected) {
        failures.push(e);
    }
    match mlir::parse(&printed) {
        Err(d) => failures.push(format!(
            "the exported text does not parse:\n{}",
            d.render("<exported>", &printed)
        )),
        Ok(body) => {
            let reprinted = mlir::print(&body, &mlir::PrintOptions::default());
            if reprinted != printed {
                failures.push(format!(
                    "printing is not a fixed point (-first +second):\n{}",
                    diff(&printed, &reprinted)
                ));
            }
            if let Err(e) = lower_to_hlo("<exported>", &printed) {
                failures.push(format!("the exported program does not lower back: {e}"));
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

/// The `// timeout: SECONDS` header value.
fn timeout_directive(source: &str) -> f64 {
    source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix("// timeout:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(2.0)
}

fn run_program(rel: &str, source: &str, expected: &Path) -> Result<(), Failed> {
    use weft_runtime::devices::{Grid, GridOptions, Link, run_grid};
    let (module, map) =
        weft_ir::text::parse_with_source_map(source).map_err(|d| d.render(rel, source))?;
    // As `weft run` does: a program that does not verify is not run, and
    // its verifier errors are the outcome.
    let verified = weft_ir::verify(&module).map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_diagnostic(&module, source, &map).render(rel, source))
            .collect::<String>()
    });
    let grid = Grid {
        replicas: module.config.replicas().max(1) as usize,
        partitions: module.config.num_partitions.unwrap_or(1).max(1) as usize,
    };
    let entry = module.entry.ok_or("no entry computation")?;
    let mut arguments = Vec::new();
    for device in 0..grid.len() {
        let mut random = weft_runtime::random::SplitMix64::new(device as u64);
        let mut values = Vec::new();
        for &param in module.comp(entry).params() {
            let array = module
                .shapes
                .as_array(module.shape_of(param))
                .ok_or("run filetests take array parameters")?;
            values.push(weft_runtime::Value::Tensor(weft_runtime::random::tensor(
                &mut random,
                array.elem,
                &array.dims,
            )));
        }
        arguments.push(values);
    }
    let options = GridOptions {
        timeout: std::time::Duration::from_secs_f64(timeout_directive(source)),
        link: Link::UNPACED,
        interconnect: None,
        ..GridOptions::default()
    };
    let outcome = match verified {
        Ok(()) => catch_unwind(AssertUnwindSafe(|| {
            run_grid(&module, grid, arguments, options)
        }))
        .map_err(|p| format!("the runtime panicked: {}", panic_message(&*p)))?
        .map_err(|error| error.to_string()),
        Err(report) => Err(report),
    };
    let wanted: Vec<String> = source
        .lines()
        .filter_map(|l| {
            l.find(ERROR_DIRECTIVE)
                .map(|at| l[at + ERROR_DIRECTIVE.len()..].trim().to_string())
        })
        .collect();
    let output = match (&outcome, wanted.is_empty()) {
        (Ok(evaluations), true) => {
            let mut text = String::from("ok\n");
            for (device, evaluation) in evaluations.iter().enumerate() {
                text.push_str(&format!(
                    "device {device}: {}\n",
                    describe_values(&evaluation.result)
                ));
            }
            text
        }
        (Ok(_), false) => {
            return Err(format!(
                "the run succeeded, but it should fail with: {}",
                wanted.join("; ")
            )
            .into());
        }
        (Err(error), true) => return Err(format!("the run failed: {error}").into()),
        (Err(error), false) => {
            let message = error.trim_end().to_string();
            if let Some(missing) = wanted.iter().find(|w| !message.contains(w.as_str())) {
                return Err(format!("the error does not mention `{missing}`:\n{message}").into());
            }
            format!("{message}\n")
        }
    };
    compare_or_bless(&output, expected).map_err(Into::into)
}

/// `interpret` on a `.mlir` file: every `// -----` case is lowered and run
/// as `weft interpret` runs it, with the entry arguments of an `// args:
/// [dense<…> : tensor<…>, …]` header line. The outcome of each case (its
/// result, or why it failed) goes to `<file>.interpret.expected`; a case whose
/// `check.*` ops fail is a failure unless the case's text holds
/// `// expect-failure`, so a test of an error message states that it wants
/// one.
fn run_interpret(source: &str, expected: &Path) -> Result<(), Failed> {
    let arguments = match source.lines().find_map(|l| l.strip_prefix("// args:")) {
        Some(text) => {
            mlir::driver::parse_arguments(text.trim()).map_err(|e| format!("// args: {e}"))?
        }
        None => Vec::new(),
    };
    let mut output = String::new();
    for (index, chunk) in mlir::split::split_input_file(source).iter().enumerate() {
        if !chunk.text.contains("func.func") {
            continue;
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| interpret_case(chunk.text, &arguments)))
            .map_err(|p| format!("case {index}: weft panicked: {}", panic_message(&*p)))?;
        let wants_failure = chunk.text.contains("// expect-failure");
        match (outcome, wants_failure) {
            (Ok(result), false) => output.push_str(&format!("case {index}: {result}\n")),
            (Err(message), true) => output.push_str(&format!("case {index}: FAILED: {message}\n")),
            (Ok(result), true) => {
                return Err(format!(
                    "case {index} passed ({result}), but it is marked // expect-failure"
                )
                .into());
            }
            (Err(message), false) => return Err(format!("case {index} failed: {message}").into()),
        }
    }
    compare_or_bless(&output, expected).map_err(Into::into)
}

/// Lowers and runs one case; its result, or the first failure.
fn interpret_case(
    text: &str,
    arguments: &[weft_ir::literal::ArrayLiteral],
) -> Result<String, String> {
    use weft_stablehlo::load::{Stage, load};
    let module = load(text, Some(arguments)).map_err(|e| match e.stage {
        Stage::Parse => format!("does not parse: {}", e.message()),
        Stage::Verify => format!("does not verify: {}", e.message()),
        Stage::Lower | Stage::HloVerify => e.message().to_string(),
    })?;
    let values = arguments
        .iter()
        .map(|l| weft_runtime::Value::Tensor(weft_runtime::Tensor::from_literal(l)))
        .collect();
    let evaluation = weft_runtime::run(&module, values).map_err(|e| e.to_string())?;
    match evaluation.check_failures.first() {
        Some(first) => Err(first.clone()),
        None => Ok(describe_values(&evaluation.result)),
    }
}

/// A value's shape and elements, for run expectations.
fn describe_values(value: &weft_runtime::Value) -> String {
    use weft_runtime::numbers::{Numbers, decode};
    match value {
        weft_runtime::Value::Tensor(tensor) => {
            let numbers = match decode(tensor) {
                Numbers::Float(v) => v.iter().map(|x| format!("{x}")).collect::<Vec<_>>(),
                Numbers::Signed(v) => v.iter().map(i64::to_string).collect(),
                Numbers::Unsigned(v) => v.iter().map(u64::to_string).collect(),
                Numbers::Pred(v) => v.iter().map(bool::to_string).collect(),
                Numbers::Complex(v) => v.iter().map(|c| format!("{c:?}")).collect(),
            };
            format!("{} {{{}}}", value.describe(), numbers.join(", "))
        }
        weft_runtime::Value::Tuple(elements) => {
            let parts: Vec<String> = elements.iter().map(describe_values).collect();
            format!("({})", parts.join(", "))
        }
        other => other.describe(),
    }
}

fn run_error(
    rel: &str,
    source: &str,
    expected: &Path,
    parse_text: impl Fn(&str) -> Result<(), Diagnostic>,
) -> Result<(), Failed> {
    let (line, want) = error_directive(source)?;
    let parsed = catch_unwind(AssertUnwindSafe(|| parse_text(source)))
        .map_err(|p| format!("the parser panicked: {}", panic_message(&*p)))?;
    let diagnostic = match parsed {
        Ok(()) => return Err(format!("parsed, but line {line} expects an error: {want}").into()),
        Err(d) => d,
    };
    let rendered = diagnostic.render(rel, source);
    let mut failures = Vec::new();
    let got_line = diagnostic.line_col(source).line;
    if got_line != line {
        failures.push(format!(
            "the error is on line {got_line}, expected on line {line}"
        ));
    }
    let hint = diagnostic.hint.as_deref().unwrap_or("");
    if !diagnostic.message.contains(want) && !hint.contains(want) {
        failures.push(format!(
            "neither the message nor the hint contains `{want}`"
        ));
    }
    if !failures.is_empty() {
        failures.push(format!("the diagnostic:\n{rendered}"));
    }
    if let Err(e) = compare_or_bless(&rendered, expected) {
        failures.push(e);
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

fn run_check(rel: &str, source: &str, expected: &Path) -> Result<(), Failed> {
    let (module, map) = match catch_unwind(AssertUnwindSafe(|| {
        weft_ir::text::parse_with_source_map(source)
    })) {
        Err(p) => return Err(format!("the parser panicked: {}", panic_message(&*p)).into()),
        Ok(Err(d)) => return Err(format!("does not parse:\n{}", d.render(rel, source)).into()),
        Ok(Ok(parsed)) => parsed,
    };
    let errors = match catch_unwind(AssertUnwindSafe(|| weft_ir::verify(&module))) {
        Err(p) => return Err(format!("the verifier panicked: {}", panic_message(&*p)).into()),
        Ok(Ok(())) => Vec::new(),
        Ok(Err(errors)) => errors,
    };
    let diagnostics: Vec<Diagnostic> = errors
        .iter()
        .map(|e| e.to_diagnostic(&module, source, &map))
        .collect();
    compare_verifier_errors(rel, source, expected, diagnostics)
}

fn run_mlir_check(rel: &str, source: &str, expected: &Path) -> Result<(), Failed> {
    let body = match catch_unwind(AssertUnwindSafe(|| mlir::parse(source))) {
        Err(p) => return Err(format!("the parser panicked: {}", panic_message(&*p)).into()),
        Ok(Err(d)) => return Err(format!("does not parse:\n{}", d.render(rel, source)).into()),
        Ok(Ok(body)) => body,
    };
    let diagnostics = match catch_unwind(AssertUnwindSafe(|| weft_stablehlo::verify(&body))) {
        Err(p) => return Err(format!("the verifier panicked: {}", panic_message(&*p)).into()),
        Ok(Ok(())) => hlo_form_errors(&body)?,
        Ok(Err(errors)) => errors.iter().map(|e| e.to_diagnostic(&body)).collect(),
    };
    compare_verifier_errors(rel, source, expected, diagnostics)
}

/// The errors of `weft check`'s second look at a program the StableHLO
/// verifier accepts: ops whose HLO form does not verify (a program that does
/// not lower is no error).
fn hlo_form_errors(body: &weft_stablehlo::ir::Body) -> Result<Vec<Diagnostic>, Failed> {
    use weft_stablehlo::load::{Stage, lower};
    match catch_unwind(AssertUnwindSafe(|| lower(body, None))) {
        Err(p) => Err(format!("the lowering panicked: {}", panic_message(&*p)).into()),
        Ok(Err(error)) if error.stage == Stage::HloVerify => Ok(error.diagnostics),
        Ok(_) => Ok(Vec::new()),
    }
}

/// Every `// error:` directive must match one diagnostic on its line and
/// every diagnostic one directive; the rendered diagnostics must equal the
/// expected file.
fn compare_verifier_errors(
    rel: &str,
    source: &str,
    expected: &Path,
    diagnostics: Vec<Diagnostic>,
) -> Result<(), Failed> {
    let directives = error_directives(source)?;
    let rendered: String = diagnostics.iter().map(|d| d.render(rel, source)).collect();
    let mut failures = Vec::new();
    let mut matched = vec![false; diagnostics.len()];
    for (line, want) in &directives {
        let found = diagnostics.iter().enumerate().position(|(i, d)| {
            !matched[i]
                && d.line_col(source).line == *line
                && (d.message.contains(want) || d.hint.as_deref().unwrap_or("").contains(want))
        });
        match found {
            Some(i) => matched[i] = true,
            None => failures.push(format!(
                "line {line} expects a verifier error containing `{want}`, but none was reported there"
            )),
        }
    }
    for (i, d) in diagnostics.iter().enumerate() {
        if !matched[i] {
            failures.push(format!(
                "unexpected verifier error on line {}: {}",
                d.line_col(source).line,
                d.message
            ));
        }
    }
    if !failures.is_empty() && !rendered.is_empty() {
        failures.push(format!("the diagnostics:\n{rendered}"));
    }
    if !diagnostics.is_empty() {
        if let Err(e) = compare_or_bless(&rendered, expected) {
            failures.push(e);
        }
    } else if expected.exists() {
        // A clean check has nothing to compare: an expected file left from
        // when it had errors is stale.
        if bless() {
            std::fs::remove_file(expected)
                .map_err(|e| format!("cannot delete {}: {e}", expected.display()))?;
        } else {
            failures.push(format!(
                "the module verifies clean, so {} is stale; delete it (or run with {BLESS_VAR}=1)",
                expected.file_name().unwrap_or_default().to_string_lossy()
            ));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

/// The target line (1-based) and text of the file's one `// error:` comment.
fn error_directive(source: &str) -> Result<(usize, &str), String> {
    let found = error_directives(source)?;
    let [(line, want)] = found[..] else {
        return Err(format!(
            "an `error` test needs exactly one `{ERROR_DIRECTIVE}` comment, found {}",
            found.len()
        ));
    };
    Ok((line, want))
}

/// The target line (1-based) and text of every `// error:` comment.
fn error_directives(source: &str) -> Result<Vec<(usize, &str)>, String> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(at) = line.find(ERROR_DIRECTIVE) {
            let want = line[at + ERROR_DIRECTIVE.len()..].trim();
            found.push(directive_target(&lines, i, at, want)?);
        }
    }
    Ok(found)
}

/// Where the `// error:` comment at byte `at` of line `i` points.
fn directive_target<'s>(
    lines: &[&'s str],
    i: usize,
    at: usize,
    want: &'s str,
) -> Result<(usize, &'s str), String> {
    if want.is_empty() {
        return Err(format!(
            "line {}: `{ERROR_DIRECTIVE}` needs the text to look for",
            i + 1
        ));
    }
    if !lines[i][..at].trim().is_empty() {
        return Ok((i + 1, want));
    }
    let is_code = |l: &&str| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with("//")
    };
    match lines[i + 1..].iter().position(is_code) {
        Some(offset) => Ok((i + 1 + offset + 1, want)),
        None => Err(format!(
            "line {}: no code line after the `{ERROR_DIRECTIVE}` comment",
            i + 1
        )),
    }
}

/// Compares `actual` with the expected file, or rewrites the file when blessing.
fn compare_or_bless(actual: &str, expected_path: &Path) -> Result<(), String> {
    let name = expected_path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy();
    if bless() {
        let current = std::fs::read_to_string(expected_path).ok();
        if current.as_deref() != Some(actual) {
            std::fs::write(expected_path, actual)
                .map_err(|e| format!("cannot write {}: {e}", expected_path.display()))?;
        }
        return Ok(());
    }
    let Ok(expected) = std::fs::read_to_string(expected_path) else {
        return Err(format!(
            "{name} is missing; run with {BLESS_VAR}=1 to create it. The output:\n{actual}"
        ));
    };
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "the output differs from {name} (-expected +actual):\n{}\nrun with {BLESS_VAR}=1 to accept the new output",
        diff(&expected, actual)
    ))
}

/// `.expected` files that no command produces.
fn check_stale(root: &Path, produced: &[PathBuf]) -> Result<(), Failed> {
    let mut all = Vec::new();
    collect_expected(root, &mut all).map_err(|e| format!("cannot read {}: {e}", root.display()))?;
    all.sort();
    let stale: Vec<&PathBuf> = all.iter().filter(|p| !produced.contains(p)).collect();
    if stale.is_empty() {
        return Ok(());
    }
    if bless() {
        for path in stale {
            std::fs::remove_file(path)
                .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
        }
        return Ok(());
    }
    let list: Vec<String> = stale.iter().map(|p| relative_name(root, p)).collect();
    Err(format!(
        "no command produces these files (run with {BLESS_VAR}=1 to delete them):\n  {}",
        list.join("\n  ")
    )
    .into())
}

fn collect_expected(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_expected(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "expected") {
            out.push(path);
        }
    }
    Ok(())
}

/// A line diff of `old` and `new` in unified style: hunks with two lines of
/// context, `-` for lines only in `old`, `+` for lines only in `new`; at most
/// [`DIFF_LIMIT`] lines, so a wholly different output stays readable.
fn diff(old: &str, new: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let ops = line_ops(&a, &b);
    const CONTEXT: usize = 2;
    let mut out = String::new();
    let mut lines = 0;
    let mut i = 0;
    while i < ops.len() {
        if matches!(ops[i], Op::Same(..)) {
            i += 1;
            continue;
        }
        // A hunk: the changes from `i` on, merged while fewer than 2×CONTEXT
        // unchanged lines separate them.
        let start = i.saturating_sub(CONTEXT);
        let mut end = i;
        let mut same_run = 0;
        while end < ops.len() && same_run <= 2 * CONTEXT {
            same_run = if matches!(ops[end], Op::Same(..)) {
                same_run + 1
            } else {
                0
            };
            end += 1;
        }
        let end = end - same_run.saturating_sub(CONTEXT);
        let (old_line, new_line) = ops[start].lines();
        let _ = writeln!(out, "@@ -{} +{} @@", old_line + 1, new_line + 1);
        for op in &ops[start..end] {
            if lines == DIFF_LIMIT {
                out.push_str("... (diff truncated)\n");
                return out;
            }
            let _ = match *op {
                Op::Same(x, _) => writeln!(out, " {}", a[x]),
                Op::Delete(x, _) => writeln!(out, "-{}", a[x]),
                Op::Insert(_, y) => writeln!(out, "+{}", b[y]),
            };
            lines += 1;
        }
        i = end;
    }
    if out.is_empty() {
        // Equal lines but different text: only line endings differ.
        out.push_str("(the texts differ only in line endings or a final newline)\n");
    }
    out
}

const DIFF_LIMIT: usize = 60;

/// An edit step; both fields are the positions in `old` and `new` at that step.
#[derive(Clone, Copy)]
enum Op {
    Same(usize, usize),
    Delete(usize, usize),
    Insert(usize, usize),
}

impl Op {
    fn lines(self) -> (usize, usize) {
        match self {
            Op::Same(x, y) | Op::Delete(x, y) | Op::Insert(x, y) => (x, y),
        }
    }
}

/// The edit script of a longest common subsequence of lines. Expected outputs
/// are small, so the quadratic table is fine; past a size limit the common
/// prefix and suffix are kept and the middle is shown as replaced.
fn line_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops: Vec<Op> = (0..prefix).map(|k| Op::Same(k, k)).collect();
    if ma.len() * mb.len() > 4_000_000 {
        ops.extend((0..ma.len()).map(|k| Op::Delete(prefix + k, prefix)));
        ops.extend((0..mb.len()).map(|k| Op::Insert(prefix + ma.len(), prefix + k)));
    } else {
        // lcs[i][j]: the LCS length of ma[i..] and mb[j..].
        let width = mb.len() + 1;
        let mut lcs = vec![0u32; (ma.len() + 1) * width];
        for i in (0..ma.len()).rev() {
            for j in (0..mb.len()).rev() {
                lcs[i * width + j] = if ma[i] == mb[j] {
                    lcs[(i + 1) * width + j + 1] + 1
                } else {
                    lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < ma.len() || j < mb.len() {
            let (x, y) = (prefix + i, prefix + j);
            if i < ma.len() && j < mb.len() && ma[i] == mb[j] {
                ops.push(Op::Same(x, y));
                i += 1;
                j += 1;
            } else if i < ma.len()
                && (j == mb.len() || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])
            {
                // Deletions first, so a replaced line reads `-old` then `+new`.
                ops.push(Op::Delete(x, y));
                i += 1;
            } else {
                ops.push(Op::Insert(x, y));
                j += 1;
            }
        }
    }
    let (da, db) = (a.len() - suffix, b.len() - suffix);
    ops.extend((0..suffix).map(|k| Op::Same(da + k, db + k)));
    ops
}

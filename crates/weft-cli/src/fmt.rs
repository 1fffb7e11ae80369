//! `weft fmt`: parse an HLO module or a StableHLO (MLIR) file and print its
//! canonical text.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use weft_ir::text::{PrintOptions, Style};

use crate::input;

/// The text format of an input.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// XLA HLO text.
    Hlo,
    /// StableHLO in MLIR text.
    Mlir,
}

impl InputFormat {
    /// The format a file's name says (`.mlir` is MLIR, anything else HLO),
    /// unless `chosen` overrides it.
    pub fn of(path: Option<&std::path::Path>, chosen: Option<InputFormat>) -> InputFormat {
        chosen.unwrap_or_else(|| {
            if path.is_some_and(|p| p.extension().is_some_and(|e| e == "mlir")) {
                InputFormat::Mlir
            } else {
                InputFormat::Hlo
            }
        })
    }
}

/// The StableHLO async styles `--async-style` chooses from.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AsyncStyleArg {
    /// `stablehlo.async_start` with the collective in its region.
    Region,
    /// `stablehlo.<collective>_start` / `_done`.
    Pairs,
}

#[derive(clap::Args)]
pub struct FmtArgs {
    /// The file to format (HLO, or StableHLO when it ends in `.mlir`); `-` or
    /// nothing reads standard input.
    file: Option<PathBuf>,
    /// The input's format, when its name does not say (standard input is HLO
    /// unless this says otherwise).
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
    /// MLIR: print every op in the generic form (`"stablehlo.add"(%a, %b) :
    /// (…) -> …`), as `--mlir-print-op-generic` does.
    #[arg(long)]
    generic: bool,
    /// MLIR: write async collectives in this style: `region` (`async_start`
    /// with the collective in its region, and `async_done`) or `pairs`
    /// (`<collective>_start` and `<collective>_done`). What the other style
    /// cannot say is kept as it is, with a warning. Without this flag each op
    /// keeps the form it was written in.
    #[arg(long, value_enum, value_name = "STYLE")]
    async_style: Option<AsyncStyleArg>,
    /// MLIR: leave out locations (`loc(…)`) and location aliases.
    #[arg(long)]
    strip_locations: bool,
    /// Print XLA's short form: no `%`, no operand shapes, no computation
    /// signatures, no metadata or control predecessors.
    #[arg(long)]
    short: bool,
    /// Print async operations in the generic form (`async-start(...),
    /// calls=%wrapped` with the wrapped computation printed) instead of
    /// `<op>-start/-update/-done` sugar.
    #[arg(long)]
    no_sugar: bool,
    /// Write the output to OUT instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Print the time each phase took (read, parse, print) to standard error,
    /// one line each.
    #[arg(long)]
    timings: bool,
    /// Parse HLO on at most N threads (default: every core). A large module's
    /// biggest computation is parsed in chunks on several threads; the output
    /// is the same for any N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

/// The thread count for a parse: `requested`, or every core.
pub fn parse_threads(requested: Option<u16>) -> usize {
    requested.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    )
}

fn millis(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

pub fn run(args: &FmtArgs) -> ExitCode {
    let start = Instant::now();
    let source = match input::read(args.file.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            tell!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let read = millis(start);
    if InputFormat::of(args.file.as_deref(), args.input_format) == InputFormat::Mlir {
        return run_mlir(args, &source, read);
    }
    if args.generic || args.strip_locations || args.async_style.is_some() {
        tell!(
            "error: --generic, --strip-locations and --async-style apply to StableHLO (.mlir) input"
        );
        return ExitCode::FAILURE;
    }
    let start = Instant::now();
    let module = match weft_ir::text::parse_with_threads(&source.text, parse_threads(args.threads))
    {
        Ok(m) => m,
        Err(diagnostic) => {
            tell_text!("{}", diagnostic.render(&source.name, &source.text));
            return ExitCode::FAILURE;
        }
    };
    let parse = millis(start);
    // The text is not needed once parsed; free it before printing.
    drop(source);
    let start = Instant::now();
    let options = PrintOptions {
        style: if args.short {
            Style::Short
        } else {
            Style::Long
        },
        sugar: !args.no_sugar,
        large_constants: true,
    };
    if let Err(e) = input::write_with(args.output.as_deref(), |w| {
        weft_ir::text::write_module(&module, &options, w)
    }) {
        tell!("error: {e}");
        return ExitCode::FAILURE;
    }
    // Exiting frees everything at once; tearing a large module down piece by
    // piece first would only cost time.
    std::mem::forget(module);
    if args.timings {
        tell!("read: {read:.1} ms");
        tell!("parse: {parse:.1} ms");
        tell!("print: {:.1} ms", millis(start));
    }
    ExitCode::SUCCESS
}

fn run_mlir(args: &FmtArgs, source: &input::Source, read: f64) -> ExitCode {
    if args.short || args.no_sugar {
        tell!("error: --short and --no-sugar apply to HLO input; StableHLO has --generic");
        return ExitCode::FAILURE;
    }
    let start = Instant::now();
    let mut body = match weft_stablehlo::text::parse(&source.text) {
        Ok(body) => body,
        Err(diagnostic) => {
            tell_text!("{}", diagnostic.render(&source.name, &source.text));
            return ExitCode::FAILURE;
        }
    };
    let parse = millis(start);
    if let Some(style) = args.async_style {
        let style = match style {
            AsyncStyleArg::Region => weft_stablehlo::async_style::AsyncStyle::Region,
            AsyncStyleArg::Pairs => weft_stablehlo::async_style::AsyncStyle::Pairs,
        };
        for skipped in weft_stablehlo::async_style::set_async_style(&mut body, style) {
            let span = body.span(skipped.op).unwrap_or_default();
            let message = format!(
                "'{}' kept as it is: {}",
                body.ops[skipped.op].name.as_str(),
                skipped.reason
            );
            tell_text!(
                "{}",
                weft_ir::diagnostic::Diagnostic::warning(span, message)
                    .render(&source.name, &source.text)
            );
        }
    }
    let start = Instant::now();
    let options = weft_stablehlo::text::PrintOptions {
        generic: args.generic,
        strip_locations: args.strip_locations,
    };
    let text = weft_stablehlo::text::print(&body, &options);
    if let Err(e) = input::write_with(args.output.as_deref(), |w| w.write_all(text.as_bytes())) {
        tell!("error: {e}");
        return ExitCode::FAILURE;
    }
    if args.timings {
        tell!("read: {read:.1} ms");
        tell!("parse: {parse:.1} ms");
        tell!("print: {:.1} ms", millis(start));
    }
    ExitCode::SUCCESS
}

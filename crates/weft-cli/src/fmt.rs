//! `weft fmt`: parse an HLO module and print its canonical text.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use weft_ir::text::{PrintOptions, Style};

use crate::input;

#[derive(clap::Args)]
pub struct FmtArgs {
    /// The HLO file to format; `-` or nothing reads standard input.
    file: Option<PathBuf>,
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
}

fn millis(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

pub fn run(args: &FmtArgs) -> ExitCode {
    let start = Instant::now();
    let source = match input::read(args.file.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let read = millis(start);
    let start = Instant::now();
    let module = match weft_ir::text::parse(&source.text) {
        Ok(m) => m,
        Err(diagnostic) => {
            eprint!("{}", diagnostic.render(&source.name, &source.text));
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
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    // Exiting frees everything at once; tearing a large module down piece by
    // piece first would only cost time.
    std::mem::forget(module);
    if args.timings {
        eprintln!("read: {read:.1} ms");
        eprintln!("parse: {parse:.1} ms");
        eprintln!("print: {:.1} ms", millis(start));
    }
    ExitCode::SUCCESS
}

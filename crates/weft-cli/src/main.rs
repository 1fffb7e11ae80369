//! `weft`: the command-line tool for XLA HLO and StableHLO programs with
//! asynchronous operations.

/// mimalloc, without transparent huge pages (the `no_thp` feature): see
/// `docs/hlo-text.md`, "What a parse costs".
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `println!` that stops printing, quietly, once standard output is closed
/// (see [`input::say`]).
macro_rules! say {
    ($($arguments:tt)*) => {
        $crate::input::say(format_args!($($arguments)*))
    };
}

/// `eprintln!` that never panics: a closed or full standard error loses
/// the line, not the command's exit status (see [`input::tell`]).
macro_rules! tell {
    ($($arguments:tt)*) => {
        $crate::input::tell(format_args!("{}\n", format_args!($($arguments)*)))
    };
}

/// `eprint!` that never panics (see [`input::tell`]): for text that ends
/// its own lines, as a rendered diagnostic does.
macro_rules! tell_text {
    ($($arguments:tt)*) => {
        $crate::input::tell(format_args!($($arguments)*))
    };
}

mod analyze;
mod bench;
mod calibrate;
mod check;
mod convert;
mod flags;
mod fmt;
mod input;
mod interconnect;
mod interpret;
mod opt;
mod ranks;
mod run;
mod simulate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// weft reads, writes, verifies and converts XLA HLO and StableHLO programs whose
/// operations run asynchronously, and runs them on one device or many, with
/// asynchronous collectives that overlap compute.
///
/// The async forms: HLO's async-start/update/done, first-class start/done pairs
/// and `<op>-start` sugar; StableHLO's futures, async_start/async_done and
/// start/done pairs.
#[derive(Parser)]
#[command(name = "weft", version, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the canonical text of an HLO module or a StableHLO file.
    ///
    /// Reads FILE (or standard input when FILE is `-` or absent), parses it, and
    /// prints its canonical text. For StableHLO (`.mlir`) that is what MLIR's
    /// printer writes (custom op forms, MLIR's value names; --generic for the
    /// generic form). For HLO it is XLA's canonical text: the long form by default (as XLA's
    /// `HloModule::ToString`, with `%` names, operand shapes, computation
    /// signatures and metadata), or the short form with --short (XLA's
    /// ShortParsable). Async operations print with `<op>-start/-update/-done`
    /// sugar wherever XLA prints it. Exit status 0 on success, 1 on a parse error
    /// (reported as file:line:col with the offending text).
    Fmt(fmt::FmtArgs),
    /// Parse and verify HLO and StableHLO files.
    ///
    /// A `.mlir` FILE is checked by weft's StableHLO verifier (op structure,
    /// functions and calls, async_start/async_done and futures, explicit start/done
    /// pairs, JAX's async custom calls, collective attributes) with the dialect's
    /// messages. Any other FILE is HLO, checked the way XLA's HloVerifier does: shapes of every opcode
    /// family, callee signatures, the async rules (start/update/done shapes and
    /// operands, chains, threads, first-class pairs) and the schedule. Every
    /// error is reported with file:line:col, the source line and a hint, followed
    /// by a one-line summary per file. Exit status 0 when every file is clean, 1
    /// otherwise. `weft fmt` never verifies.
    Check(check::CheckArgs),
    /// Convert between StableHLO and HLO.
    ///
    /// `--to hlo` lowers a StableHLO (`.mlir`) file as XLA's translation does,
    /// to the program each device runs: regions become computations, the async
    /// encodings (async_start/async_done, *_start/*_done pairs, JAX's
    /// @…-start/@…-done custom calls) become HLO async chains, and the body of
    /// an sdy.manual_computation runs on per-device shapes. `--to stablehlo`
    /// exports an HLO module, async chains becoming stablehlo.async_start with
    /// the collective in its region. The result is verified. Exit status 0 on
    /// success, 1 with a located error otherwise.
    Convert(convert::ConvertArgs),
    /// Run compiler passes over a module, as mlir-opt and XLA's hlo-opt do.
    ///
    /// Reads an HLO module (or a StableHLO `.mlir` file, lowered to HLO
    /// first), verifies it, runs the passes --passes names in order
    /// (`name{key=value key=v1,v2},name2`, options by the field names of
    /// XLA's config for the pass), and writes the result as HLO or, with
    /// --emit stablehlo, as StableHLO. --list-passes lists every pass and its
    /// options. Exit status 0 on success; 1 when the input is invalid or a
    /// pass fails or breaks the module (the pass is named); 2 for a bad
    /// --passes text, pass name or option (the valid ones are listed).
    Opt(opt::OptArgs),
    /// Analyse a module's buffers: aliasing, live ranges, peak memory.
    ///
    /// Reads an HLO module (or a StableHLO `.mlir` file, lowered first),
    /// verifies it, and reports the buffers several values share (loop
    /// state, in-place updates, aliased inputs and outputs), every buffer's
    /// live range under the module's schedule (or XLA's post-order when it
    /// has none) with a chart of live bytes, the peak and what is live at
    /// it, and what each async operation holds from its start to its done.
    /// With no section flag, every section. --format json writes one object.
    Analyze(analyze::AnalyzeArgs),
    /// Run a program on one device or many.
    ///
    /// Reads an HLO file (or a StableHLO `.mlir` file, lowered first) and runs
    /// its entry computation on the module's devices (`replica_count` ×
    /// `num_partitions`, or --devices N): each device is a thread with an
    /// async stream beside it, collectives meet across devices, and transfers
    /// are paced by a link model. Inputs come from `.npy` files (--inputs, one
    /// per parameter: global values cut by the parameters' shardings, or
    /// per-device values in `*.shards.npy`) or seeded random values (--seed).
    /// Prints one summary line per output and, with --out DIR, writes
    /// DIR/outN.npy (reassembled by the results' shardings, see
    /// --out-sharding) or DIR/outN.shards.npy. Exit status 1 with the failing
    /// instruction named on any error.
    Run(Box<run::RunArgs>),
    /// Simulate a program on many devices under the cost model, without
    /// computing values.
    ///
    /// Runs the (scheduled) per-device program of an HLO file (or a
    /// StableHLO `.mlir` file, lowered first) on every device's compute and
    /// async streams under virtual timing — collectives synchronising their
    /// groups, loops by their known trip count, conditionals by their
    /// slowest branch — and prints the summary of `weft run --timing
    /// virtual` (step time; per device compute, transfer, wait, host,
    /// exposed communication, overlap). Devices that must have the same
    /// timeline are simulated once per equivalence class, so thousands take
    /// seconds. Exit status 1 with a located error when the program cannot
    /// be simulated.
    Simulate(Box<simulate::SimulateArgs>),
    /// Run a StableHLO test file as `stablehlo-translate --interpret
    /// -split-input-file` does.
    ///
    /// Every case (cases are separated by `// -----`) is lowered and run on
    /// one device with its `check.*` ops enforced. Each failing case is
    /// reported with its line; the last line is `N passed, M failed`. Exit
    /// status 1 when any case failed or could not be run.
    Interpret(interpret::InterpretArgs),
    /// Measure this machine's weft kernels and cache the device profile
    /// virtual timing uses.
    ///
    /// Times small programs on every core at once, as a run of more devices
    /// than cores uses a core — scalar chains (per-instruction overhead),
    /// negations from 128 KiB to 64 MiB (memory bandwidth and a cache
    /// level), data movement, elementwise chains (vector rates per number
    /// class), transcendentals, thin and square dots (matrix rates and the
    /// half-peak size n½) — and writes the rates as a TOML profile named
    /// `cpu-local`
    /// to the cache ($WEFT_CACHE_DIR, else $XDG_CACHE_HOME/weft, else
    /// ~/.cache/weft), where `weft run` finds it, or to --output. Run it
    /// once per machine; `weft run --profile FILE` uses any other.
    Calibrate(calibrate::CalibrateArgs),
    /// Measure how fast HLO files parse and print.
    ///
    /// Reads each file once, parses and prints it --repeat times, and reports the
    /// median time of each phase, throughput (lines/s, MB/s) and the process's peak
    /// resident memory. `benches/compare_xla.py` runs this next to XLA's own parser
    /// and printer on the same files.
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let status = match cli.command {
        Command::Fmt(args) => fmt::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Opt(args) => opt::run(&args),
        Command::Analyze(args) => analyze::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Simulate(args) => simulate::run(&args),
        Command::Interpret(args) => interpret::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Calibrate(args) => calibrate::run(&args),
    };
    // Output lost to a failing standard output (not a reader that closed
    // it) is a failure, whatever the command thought.
    if input::stdout_failed() {
        ExitCode::FAILURE
    } else {
        status
    }
}

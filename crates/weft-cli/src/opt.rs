//! `weft opt`: runs passes over a module, in the manner of `mlir-opt` and
//! XLA's `hlo-opt`.

use std::path::PathBuf;
use std::process::ExitCode;

use weft_ir::text::{PrintOptions, SourceMap, Style};
use weft_passes::pipeline::{DumpAfter, Pipeline, PipelineOptions};
use weft_passes::registry;

use crate::fmt::InputFormat;
use crate::input;

/// The named pipelines of `--pipeline`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NamedPipeline {
    /// Every collective asynchronous, scheduled to overlap compute.
    Async,
}

/// The passes of `pipeline` for a module that is (or is not yet)
/// `scheduled`, with the scheduler options the flags give.
fn named_pipeline(pipeline: NamedPipeline, scheduled: bool, args: &OptArgs) -> String {
    match pipeline {
        NamedPipeline::Async => {
            let mut passes = vec![
                "async-collective-creator{convert=all-reduce,all-gather,reduce-scatter,all-to-all,collective-permute,collective-broadcast,ragged-all-to-all}".to_string(),
            ];
            if !scheduled {
                passes.push("hlo-memory-scheduler".into());
            }
            passes.push("legalize-scheduling-annotations".into());
            let mut options = vec!["sync_unhidden_collectives=true".to_string()];
            if let Some(profile) = &args.profile {
                options.push(format!("profile={profile}"));
            }
            if let Some(topology) = &args.topology {
                options.push(format!("topology={topology}"));
            }
            passes.push(format!("latency-hiding-scheduler{{{}}}", options.join(" ")));
            // What the scheduler left with nothing to overlap goes back to
            // a synchronous collective.
            passes.push("convert-async-collectives-to-sync".into());
            passes.join(",")
        }
    }
}

/// The format `weft opt` writes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// XLA HLO text.
    Hlo,
    /// StableHLO in MLIR text.
    Stablehlo,
}

#[derive(clap::Args)]
pub struct OptArgs {
    /// The module (HLO; StableHLO when it ends in `.mlir`, lowered to HLO
    /// first); `-` or nothing reads standard input.
    file: Option<PathBuf>,
    /// The passes, in order: `name{key=value key=v1,v2},name2`. Options use
    /// the field names of XLA's config for the pass (see --list-passes).
    #[arg(long, value_name = "PASSES", default_value = "")]
    passes: String,
    /// A named pipeline instead of --passes: `async` makes every collective
    /// asynchronous and schedules it to overlap compute
    /// (async-collective-creator, hlo-memory-scheduler when the input has no
    /// schedule, legalize-scheduling-annotations, latency-hiding-scheduler,
    /// then convert-async-collectives-to-sync for what it left with nothing
    /// to overlap).
    #[arg(long, value_name = "NAME", conflicts_with = "passes")]
    pipeline: Option<NamedPipeline>,
    /// With --pipeline: the device profile the scheduler's cost model uses
    /// (a built-in name, cpu-local, or a .toml file).
    #[arg(long, value_name = "NAME", requires = "pipeline")]
    profile: Option<String>,
    /// With --pipeline: the topology the scheduler's cost model uses, as
    /// `weft run --topology` takes it.
    #[arg(long, value_name = "SPEC", requires = "pipeline")]
    topology: Option<String>,
    /// Print why each pass did what it did to standard error (the
    /// latency-hiding scheduler: where each async op went, and the rule
    /// that put it there).
    #[arg(long)]
    explain: bool,
    /// Write the result to OUT instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// The format to write (default: the input's).
    #[arg(long, value_enum)]
    emit: Option<Emit>,
    /// StableHLO output: async collectives as `<collective>_start`/`_done`
    /// pairs instead of async_start with a region.
    #[arg(long, value_enum, value_name = "STYLE")]
    async_style: Option<crate::fmt::AsyncStyleArg>,
    /// HLO output: XLA's short form.
    #[arg(long)]
    short: bool,
    /// HLO output: the long form without operand shapes, as XLA's
    /// `HloModule::ToString()` prints today (what XLA's FileCheck tests match).
    #[arg(long, conflicts_with = "short")]
    no_operand_shapes: bool,
    /// Verify the module after every pass (debug builds always do), naming
    /// the pass that broke it.
    #[arg(long)]
    verify_each: bool,
    /// Write the module after PASS (a pass name, or `all`) to --dump-dir;
    /// may be given several times.
    #[arg(long, value_name = "PASS")]
    dump_after: Vec<String>,
    /// Where --dump-after writes: `NN.<pass>.hlo`, `00.input.hlo` first.
    #[arg(long, value_name = "DIR")]
    dump_dir: Option<PathBuf>,
    /// Print each pass's time (and whether it changed the module) to
    /// standard error.
    #[arg(long)]
    timings: bool,
    /// The module's replica count (`replica_count=`), for passes that need
    /// it.
    #[arg(long, value_name = "N")]
    replica_count: Option<i64>,
    /// The module's partition count (`num_partitions=`).
    #[arg(long, value_name = "P")]
    num_partitions: Option<i64>,
    /// The input's format, when its name does not say.
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
    /// List every pass with its options, and exit.
    #[arg(long)]
    list_passes: bool,
    /// HLO input: parse the biggest computation in chunks on N threads
    /// (default: every core), as `weft fmt` does.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

pub fn run(args: &OptArgs) -> ExitCode {
    if args.list_passes {
        list_passes();
        return ExitCode::SUCCESS;
    }
    // The pipeline first: a mistake in it is found before any input is read.
    let text = match args.pipeline {
        Some(named) => named_pipeline(named, false, args),
        None => args.passes.clone(),
    };
    let mut passes = match registry::build(&text) {
        Ok(passes) => passes,
        Err(error) => {
            tell!(
                "error: --passes, column {}: {}",
                error.column,
                error.error.message
            );
            if let Some(hint) = &error.error.hint {
                tell!("  = hint: {hint}");
            }
            return ExitCode::from(2);
        }
    };
    let dump_after = match args.dump_after.as_slice() {
        [] => DumpAfter::Nothing,
        names if names.iter().any(|name| name == "all") => DumpAfter::All,
        names => {
            if let Some(unknown) = names.iter().find(|name| registry::find(name).is_none()) {
                tell!(
                    "error: --dump-after {unknown}: there is no such pass (give a pass name, or `all`)"
                );
                return ExitCode::from(2);
            }
            DumpAfter::Passes(names.to_vec())
        }
    };
    if dump_after != DumpAfter::Nothing && args.dump_dir.is_none() {
        tell!("error: --dump-after needs --dump-dir DIR, where the dumps go");
        return ExitCode::from(2);
    }
    for (flag, value) in [
        ("--replica-count", args.replica_count),
        ("--num-partitions", args.num_partitions),
    ] {
        if value.is_some_and(|n| n < 1) {
            tell!("error: {flag} must be at least 1");
            return ExitCode::from(2);
        }
    }
    let source = match input::read(args.file.as_deref()) {
        Ok(source) => source,
        Err(error) => {
            tell!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let format = InputFormat::of(args.file.as_deref(), args.input_format);
    // The input is verified before any pass runs on it: a pass may assume a
    // valid module. With no passes nothing runs, and `weft opt` costs what
    // `weft fmt` does (`weft check` verifies).
    let verify_input = !pipeline_is_empty(&text) || args.verify_each;
    let (mut module, verify_options) = match load(&source, format, verify_input, args.threads) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    if let Some(replicas) = args.replica_count {
        module.config.replica_count = Some(replicas);
    }
    if let Some(partitions) = args.num_partitions {
        module.config.num_partitions = Some(partitions);
    }
    if let Some(named) = args.pipeline
        && module.is_scheduled()
    {
        // A scheduled input keeps its schedule as the scheduler's start.
        passes = registry::build(&named_pipeline(named, true, args))
            .expect("the named pipeline was checked above");
    }
    let pipeline = Pipeline::new(passes);
    let options = PipelineOptions {
        verify_each: args.verify_each,
        verify: verify_options,
        explain: args.explain,
        dump_after,
        dump_dir: args.dump_dir.clone(),
    };
    let report = match pipeline.run(&mut module, &options) {
        Ok(report) => report,
        Err(error) => {
            tell!("error: {}: {}", source.name, error.describe(&module));
            return ExitCode::FAILURE;
        }
    };
    if args.timings {
        print_timings(&report);
    }
    if args.explain {
        for run in &report.runs {
            if run.remarks.is_empty() {
                continue;
            }
            tell!("{}:", run.name);
            for remark in &run.remarks {
                tell!("  {remark}");
            }
        }
    }
    let emit = args.emit.unwrap_or(match format {
        InputFormat::Mlir => Emit::Stablehlo,
        InputFormat::Hlo => Emit::Hlo,
    });
    let written = match emit {
        Emit::Hlo => {
            // As `weft fmt`: the text is not needed any more, and the module
            // is written as it prints, never held whole as a string.
            drop(source);
            let options = PrintOptions {
                style: if args.short {
                    Style::Short
                } else if args.no_operand_shapes {
                    Style::Default
                } else {
                    Style::Long
                },
                sugar: true,
                large_constants: true,
            };
            input::write_with(args.output.as_deref(), |w| {
                weft_ir::text::write_module(&module, &options, w)
            })
        }
        Emit::Stablehlo => {
            let style = args.async_style.map(|style| match style {
                crate::fmt::AsyncStyleArg::Region => {
                    weft_stablehlo::async_style::AsyncStyle::Region
                }
                crate::fmt::AsyncStyleArg::Pairs => weft_stablehlo::async_style::AsyncStyle::Pairs,
            });
            // Where the input's instructions are in its text, to locate an
            // export error (made only now: most runs never need it).
            let source_map = match format {
                InputFormat::Hlo => weft_ir::text::parse_with_source_map(&source.text)
                    .map(|(_, map)| map)
                    .unwrap_or_default(),
                InputFormat::Mlir => SourceMap::default(),
            };
            let text = match crate::convert::export_stablehlo(
                &module,
                &source_map,
                &source,
                style,
                false,
                true,
            ) {
                Ok(text) => text,
                Err(code) => return code,
            };
            input::write_with(args.output.as_deref(), |w| w.write_all(text.as_bytes()))
        }
    };
    if let Err(error) = written {
        tell!("error: {error}");
        return ExitCode::FAILURE;
    }
    // Exiting frees everything at once; tearing a large module down piece by
    // piece first would only cost time.
    std::mem::forget(module);
    ExitCode::SUCCESS
}

/// Whether `passes` names no pass.
fn pipeline_is_empty(passes: &str) -> bool {
    passes.trim().is_empty()
}

/// Reads the input — HLO as it is, StableHLO lowered to the HLO each device
/// runs — and verifies it when `verify`. HLO is parsed as `weft fmt` parses
/// it (on `threads` threads); only a module that fails to verify is read
/// again with its source map, to locate the errors.
///
/// A module whose only fault is that its devices' collectives could
/// deadlock (R14) is well formed: passes may still transform it, as XLA's
/// would. It is reported as a warning, and the pipeline then verifies
/// without that rule (the verify options returned say so).
fn load(
    source: &input::Source,
    format: InputFormat,
    verify: bool,
    threads: Option<u16>,
) -> Result<(weft_ir::Module, weft_ir::verify::VerifyOptions), ExitCode> {
    let mut options = weft_ir::verify::VerifyOptions::default();
    match format {
        InputFormat::Hlo => {
            let threads = crate::fmt::parse_threads(threads);
            let module = weft_ir::text::parse_with_threads(&source.text, threads).map_err(|d| {
                tell_text!("{}", d.render(&source.name, &source.text));
                ExitCode::FAILURE
            })?;
            if !verify {
                return Ok((module, options));
            }
            if let Err(errors) = weft_ir::verify(&module) {
                let only_deadlocks = errors
                    .iter()
                    .all(|error| error.rule == weft_ir::verify::Rule::AsyncDeadlock);
                if let Err(error) = weft_ir::load::load(&source.text, &options) {
                    let rendered = error.render(&source.name, &source.text);
                    if only_deadlocks {
                        tell_text!("{}", rendered.replacen("error", "warning", 1));
                    } else {
                        tell_text!("{}", rendered);
                    }
                }
                if !only_deadlocks {
                    tell!(
                        "error: {}: the module does not verify; no pass ran",
                        source.name
                    );
                    return Err(ExitCode::FAILURE);
                }
                tell!(
                    "warning: {}: the devices' collectives could deadlock (R14); the passes run, and their results are not checked for deadlocks",
                    source.name
                );
                options.collective_deadlocks = false;
            }
            Ok((module, options))
        }
        InputFormat::Mlir => weft_stablehlo::load::load(&source.text, None)
            .map(|module| (module, options))
            .map_err(|error| {
                tell_text!("{}", error.render(&source.name, &source.text));
                ExitCode::FAILURE
            }),
    }
}

fn list_passes() {
    for info in registry::passes() {
        say!("{}", info.name);
        say!("    {}", info.summary);
        for option in info.options {
            let default = if option.default.is_empty() {
                String::new()
            } else {
                format!(" (default {})", option.default)
            };
            say!(
                "    {}={}{default}: {}",
                option.name,
                option.kind.placeholder(),
                option.doc
            );
        }
    }
}

fn print_timings(report: &weft_passes::PipelineReport) {
    tell!(
        "{:<4} {:<40} {:>8} {:>12} {:>12}",
        "#",
        "pass",
        "changed",
        "time (ms)",
        "verify (ms)"
    );
    let mut total = std::time::Duration::ZERO;
    for (index, run) in report.runs.iter().enumerate() {
        total += run.duration;
        let verify = run
            .verification
            .map_or("-".to_string(), |d| format!("{:.3}", d.as_secs_f64() * 1e3));
        tell!(
            "{:<4} {:<40} {:>8} {:>12.3} {:>12}",
            index + 1,
            run.name,
            if run.changed { "yes" } else { "no" },
            run.duration.as_secs_f64() * 1e3,
            verify
        );
    }
    tell!(
        "{:<4} {:<40} {:>8} {:>12.3}",
        "",
        "total",
        "",
        total.as_secs_f64() * 1e3
    );
}

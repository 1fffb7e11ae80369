//! `weft simulate`: a program's step time on a grid of devices under the
//! cost model, without computing values ([`weft_runtime::simulate`]), with
//! the summary, JSON and trace of `weft run --timing virtual`.
//!
//! The flags are `weft run`'s that concern time (the grid, the profile, the
//! link and topology, the trace, the report) and share its code; there are
//! no inputs or outputs, since nothing is computed. Loops take their known
//! trip count (`backend_config`, else weft-passes' analysis of the loop,
//! else `--trip-count`), conditionals their slowest branch.

use std::path::PathBuf;
use std::process::ExitCode;

use weft_runtime::devices::timeline::{Detail, DeviceTimeline};

use crate::fmt::InputFormat;
use crate::input;
use crate::run::report;
use crate::run::{LinkMode, ReportFormat};

#[derive(clap::Args)]
#[command(after_long_help = report::COLUMNS)]
pub struct SimulateArgs {
    /// The program: HLO, or StableHLO when the name ends in `.mlir` (lowered
    /// first); `-` reads standard input.
    file: PathBuf,
    /// The input's format, when its name does not say.
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
    /// Simulate this many devices. Without it, the module's `replica_count`
    /// × `num_partitions`. A module with partitions, or whose entry records
    /// shardings, gets N partitions, any other N replicas.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::flags::simulated_device_count)]
    devices: Option<usize>,
    /// The number of replicas (with --partitions, instead of --devices).
    #[arg(long, value_name = "R", allow_negative_numbers = true, value_parser = crate::flags::simulated_device_count)]
    replicas: Option<usize>,
    /// The number of partitions (with --replicas, instead of --devices).
    #[arg(long, value_name = "P", allow_negative_numbers = true, value_parser = crate::flags::simulated_device_count)]
    partitions: Option<usize>,
    /// The device profile every instruction is charged on: `cpu-local`
    /// (this machine, measured by `weft calibrate`; the default once
    /// cached), `cpu-reference` (built in; the default before), a public
    /// device (`h100-sxm`, `tpu-v5e`), or a .toml file.
    #[arg(long, value_name = "NAME|FILE")]
    profile: Option<String>,
    #[command(flatten)]
    interconnect: crate::interconnect::InterconnectArgs,
    /// The trip count of every `while` loop whose count neither its
    /// backend_config (known_trip_count) nor its condition (a counted loop)
    /// gives.
    #[arg(long, value_name = "N")]
    trip_count: Option<u64>,
    /// Write a Chrome trace (Perfetto opens it): one process per
    /// equivalence class of devices (named by its devices), with its
    /// compute and async streams.
    #[arg(long, value_name = "JSON")]
    trace: Option<PathBuf>,
    /// Leave parameters, constants, tuples, get-tuple-element and bitcasts
    /// out of the trace.
    #[arg(long)]
    trace_hide_trivial: bool,
    /// The most events (instructions, async operations and collective
    /// instances, each) the trace keeps over all classes: the first ones,
    /// shared equally.
    #[arg(long, value_name = "N", default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    trace_max_events: u64,
    /// `json` writes the whole summary (step time, every device's figures,
    /// the classes, totals, collectives) as one JSON object on standard
    /// output.
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    format: ReportFormat,
    /// Add a report per collective: how often it ran, its peers, bytes,
    /// modelled transfer, wait for peers and reduction time.
    #[arg(long)]
    collectives: bool,
}

pub fn run(args: &SimulateArgs) -> ExitCode {
    match execute(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tell_text!("{}", message.trim_end());
            tell!("");
            ExitCode::FAILURE
        }
    }
}

fn execute(args: &SimulateArgs) -> Result<(), String> {
    if let Some(path) = &args.trace {
        crate::run::prepare_destinations(None, Some(path))?;
    }
    let source = input::read(Some(&args.file)).map_err(|e| format!("error: {e}"))?;
    let (module, map) = crate::run::load_program(
        &args.file,
        args.input_format,
        &[],
        &source,
        crate::run::default_budget,
    )?;
    let grid = crate::run::grid_from(
        args.devices,
        args.replicas,
        args.partitions,
        &module,
        crate::flags::MOST_SIMULATED_DEVICES,
    )?;
    let link = crate::run::link_of(
        args.interconnect.link,
        args.interconnect.link_bandwidth,
        args.interconnect.link_latency,
    );
    if args.interconnect.link != Some(LinkMode::Unpaced) {
        for warning in crate::flags::absurd_link(
            args.interconnect.link_bandwidth,
            args.interconnect.link_latency,
        ) {
            tell!("warning: {warning}");
        }
    }
    let (timing, mut note) = crate::run::virtual_timing(args.profile.as_deref(), None)?;
    let weft_runtime::devices::clock::Timing::Virtual(profile) = &timing else {
        return Err("error: a simulation keeps virtual time (a bug: another timing)".into());
    };
    let interconnect = crate::run::interconnect_from(
        args.interconnect.topology.as_deref(),
        args.interconnect.collective_algorithm,
        link,
        &timing,
        grid.len(),
    )?;
    let detail = match &args.trace {
        None => Detail::TOTALS_ONLY,
        // Shared among the classes, which are all the trace draws.
        Some(_) => Detail {
            max_events: args.trace_max_events.max(1) as usize,
        },
    };
    let analysis = |module: &weft_ir::Module, instr: weft_ir::Instr| {
        weft_passes::analysis::while_loop::trip_count(module, instr)
    };
    let options = weft_runtime::simulate::SimulateOptions {
        grid,
        profile: profile.clone(),
        link,
        interconnect: interconnect.clone(),
        detail,
        trip_count: Some(&analysis),
        fallback_trip_count: args.trip_count,
    };
    let simulation = weft_runtime::simulate::simulate(&module, &options)
        .map_err(|e| crate::run::located(&e, &module, &source, map.as_ref()))?;
    let classes = simulation.classes.len();
    note.reason = Some(format!(
        "simulated without values: {} device{} in {classes} equivalence class{}",
        grid.len(),
        if grid.len() == 1 { "" } else { "s" },
        if classes == 1 { "" } else { "es" },
    ));
    for &(conditional, branch) in &simulation.branches {
        tell!(
            "note: {}: no values, so the conditional takes its slowest branch (branch {branch}) on every device",
            weft_runtime::simulate::describe_place(&module, conditional)
        );
    }
    if let Some(path) = &args.trace {
        write_trace(args, &module, &simulation, path)?;
    }
    let last: Vec<DeviceTimeline> = (0..grid.len())
        .map(|device| simulation.device_timeline(device).clone())
        .collect();
    let figures = last.iter().map(DeviceTimeline::figures).collect();
    let summary = report::Summary {
        module: &module,
        grid,
        ranks: None,
        link,
        interconnect,
        timing: note,
        steps: vec![simulation.step_time()],
        runs: vec![figures],
        last,
        classes: Some(&simulation.classes),
    };
    match args.format {
        ReportFormat::Json => {
            let mut json = summary.json(serde_json::json!([]));
            if let Some(object) = json.as_object_mut() {
                object.remove("outputs");
            }
            say!("{json:#}");
        }
        ReportFormat::Text => {
            for line in summary.text(args.collectives) {
                say!("{line}");
            }
        }
    }
    Ok(())
}

/// Writes the trace: one process per class, named by its devices.
fn write_trace(
    args: &SimulateArgs,
    module: &weft_ir::Module,
    simulation: &weft_runtime::simulate::Simulation,
    path: &std::path::Path,
) -> Result<(), String> {
    let file = std::fs::File::create(path)
        .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    let mut writer = std::io::BufWriter::new(file);
    let names: Vec<String> = (0..simulation.classes.len())
        .map(|class| {
            let count = simulation.classes.devices[class].len();
            format!(
                "class {class}: device{} {}",
                if count == 1 { "" } else { "s" },
                simulation.classes.describe(class)
            )
        })
        .collect();
    weft_runtime::devices::trace::write_named_chrome_trace(
        module,
        &simulation.timelines,
        &names,
        weft_runtime::devices::trace::TraceOptions {
            hide_trivial: args.trace_hide_trivial,
        },
        &mut writer,
    )
    .and_then(|()| std::io::Write::flush(&mut writer))
    .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    let dropped: u64 = simulation.timelines.iter().map(|t| t.dropped).sum();
    if dropped > 0 {
        tell!(
            "warning: the trace keeps the first {} events of each class; {dropped} later ones were left out (--trace-max-events)",
            args.trace_max_events
        );
    }
    Ok(())
}

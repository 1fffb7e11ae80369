//! `weft run`: execute a program's entry computation on one device, or on
//! a grid of devices (threads of this process, or spread over the ranks of
//! an `mpirun` job with the `mpi` feature, see [`crate::ranks`]).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use weft_ir::Module;
use weft_runtime::Value;
use weft_runtime::devices::remote::Cluster;
use weft_runtime::random::SplitMix64;

use crate::fmt::InputFormat;
use crate::input;

mod inputs;
mod outputs;
mod progress_line;
pub(crate) mod report;
mod unpartitioned;

use inputs::{
    InputBudget, global_to_devices, parameter_label, random_global_dims, random_value, read_global,
    read_input, read_shards,
};
pub(crate) use outputs::prepare_destinations;
use outputs::{
    OutputForm, Reassembly, flatten, output_form, reassembly, records_entry_shardings, summary,
    write_forms,
};

/// The link model's modes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LinkMode {
    /// Pace transfers by --link-bandwidth and --link-latency (the default).
    Paced,
    /// Transfers take no modelled time.
    Unpaced,
}

/// How devices keep time.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TimingMode {
    /// Modelled: every instruction costs its work on a device profile
    /// (--profile), transfers the link model; the same figures on any host.
    Virtual,
    /// Every instruction costs the CPU time its thread spent on it.
    Measured,
    /// The wall clock (honest only when every device has a core).
    Wall,
}

/// How the summary is written.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// A table.
    Text,
    /// One JSON object on standard output: summary, per-device figures,
    /// collectives and outputs.
    Json,
}

#[derive(clap::Args)]
#[command(after_long_help = report::COLUMNS)]
pub struct RunArgs {
    /// The program: HLO, or StableHLO when the name ends in `.mlir` (lowered
    /// first); `-` reads standard input.
    file: PathBuf,
    /// One `.npy` file per entry parameter, in order. Without it every
    /// parameter gets seeded random values (see --seed). bf16 and f8 files
    /// hold their bit patterns (NumPy's uint16/uint8); the parameter's type
    /// says how to read them.
    ///
    /// On several devices, a file named `*.shards.npy` holds one value per
    /// device stacked on axis 0. Any other file holds the global value: a
    /// parameter with a sharding (a lowered sharded StableHLO program's, or
    /// HLO's `sharding=`) gets each device's tile of it, and the file must
    /// have the global shape; a parameter without one gets the whole value
    /// on every device. Random inputs of a program that records shardings
    /// are global values too, else per device.
    #[arg(long, num_args = 1.., value_name = "NPY")]
    inputs: Vec<PathBuf>,
    /// The seed of the random inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write output N to DIR/outN.npy, counting from 0 (a tuple result is
    /// flattened in order).
    ///
    /// On several devices: global inputs give global outputs, DIR/outN.npy
    /// reassembled by the entry's result sharding; per-device inputs (any
    /// `*.shards.npy`, or random inputs of a program without shardings)
    /// give DIR/outN.shards.npy, every device's value stacked on axis 0.
    /// An output whose sharding the program does not record is written per
    /// device too.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The sharding of the entry's results, in HLO's syntax
    /// (`{devices=[8,1]<=[8]}`, `{replicated}`), by which a run on several
    /// devices reassembles them into global outputs: once per output in
    /// order, or one tuple sharding for all (a single non-tuple sharding
    /// applies to every output, as on a ROOT). It replaces the ROOT's
    /// `sharding=`, which XLA's compiled HLO leaves out; given, the outputs
    /// are global even when the inputs are per device.
    #[arg(long, value_name = "SHARDING", value_parser = outputs::parse_sharding)]
    out_sharding: Vec<weft_ir::attrs::Sharding>,
    /// The input's format, when its name does not say.
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
    /// Run the program N times: on one device the median run time goes to
    /// standard error (`run: 3.41 ms median of 20`); on several, the step
    /// time line gives the median and the fastest. Outputs and the table
    /// come from the last run.
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true, value_parser = crate::flags::repeat)]
    repeat: usize,
    /// Run on this many devices (threads). Without it, the module's
    /// `replica_count` × `num_partitions`. A module with partitions, or
    /// whose entry records shardings (they name partitions), gets N
    /// partitions, any other N replicas.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::flags::device_count)]
    devices: Option<usize>,
    /// The number of replicas (with --partitions, instead of --devices).
    #[arg(long, value_name = "R", allow_negative_numbers = true, value_parser = crate::flags::device_count)]
    replicas: Option<usize>,
    /// The number of partitions (with --replicas, instead of --devices).
    #[arg(long, value_name = "P", allow_negative_numbers = true, value_parser = crate::flags::device_count)]
    partitions: Option<usize>,
    #[command(flatten)]
    interconnect: crate::interconnect::InterconnectArgs,
    /// Write a Chrome trace (Perfetto opens it) of every device's compute and
    /// async streams to this file: a track per in-flight async operation,
    /// arrows from each start to its done and between the members of each
    /// collective, and args with shapes, bytes, peers, JAX's op_name and the
    /// timing breakdown. Works on one device too.
    #[arg(long, value_name = "JSON")]
    trace: Option<PathBuf>,
    /// Leave parameters, constants, tuples, get-tuple-element and bitcasts
    /// out of the trace.
    #[arg(long)]
    trace_hide_trivial: bool,
    /// The most events (instructions, async operations and collective
    /// instances, each) the trace keeps over all devices: the first ones,
    /// shared equally; a longer run's summary still counts everything.
    #[arg(long, value_name = "N", default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    trace_max_events: u64,
    /// How devices keep time: `virtual` (each instruction costs its modelled
    /// work on --profile's device, each transfer the link model: the same
    /// step time and overlap on any host, to the nanosecond; the default
    /// when devices outnumber this machine's cores), `measured` (each
    /// instruction costs its thread's CPU time) or `wall` (the wall clock;
    /// the default otherwise).
    #[arg(long, value_enum, value_name = "MODE")]
    timing: Option<TimingMode>,
    /// The device profile of virtual timing: `cpu-local` (this machine,
    /// measured by `weft calibrate`; the default once cached),
    /// `cpu-reference` (built in; the default before), or a .toml file.
    #[arg(long, value_name = "NAME|FILE")]
    profile: Option<String>,
    /// `json` writes the whole summary (step time, every device's figures,
    /// totals, collectives, outputs) as one JSON object on standard output.
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    format: ReportFormat,
    /// Add a report per collective: how often it ran, its peers, bytes,
    /// modelled transfer, wait for peers and reduction time.
    #[arg(long)]
    collectives: bool,
    /// Across MPI ranks: how long every unfinished device may wait (at a
    /// collective, a recv or a done) with none moving before the run stops
    /// as a deadlock, with an error naming what every device does, in
    /// seconds. On one process every device blocked stops the run at once.
    /// A device that computes keeps the others waiting as long as it
    /// computes.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, allow_negative_numbers = true, value_parser = crate::flags::timeout_seconds)]
    timeout: f64,
    /// The largest value one instruction may produce, in GiB; a larger one
    /// stops the run with an error naming the instruction.
    #[arg(long, value_name = "GIB", default_value_t = 8.0, allow_negative_numbers = true, value_parser = crate::flags::max_value_gib)]
    max_value_gib: f64,
    /// The most all inputs together may take, in GiB: files read and random
    /// values drawn, checked before they are (default: twice
    /// --max-value-gib, which bounds each one).
    #[arg(long, value_name = "GIB", allow_negative_numbers = true, value_parser = crate::flags::max_value_gib)]
    max_input_gib: Option<f64>,
    /// Stop the run with an error naming the `while` and its location when
    /// one execution of a loop runs more than N iterations. Off by default,
    /// as in XLA: a loop may run for ever.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::flags::max_iterations)]
    max_iterations: Option<u64>,
    /// Stop any run after SECONDS (from the moment each device starts) with
    /// a report of where each device is: computing at which instruction and
    /// loop iteration, or waiting at which collective.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = crate::flags::deadline_seconds)]
    deadline: Option<f64>,
}

/// The error of a rank other than 0 whose run failed: rank 0 reports it
/// (with the device named), so this rank prints nothing.
const REPORTED_BY_RANK_ZERO: &str = "";

pub fn run(args: &RunArgs) -> ExitCode {
    let cluster = match crate::ranks::join() {
        Ok(cluster) => cluster,
        Err(message) => {
            tell!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let mut outcome = execute(args, cluster.as_ref());
    let rank = cluster.as_ref().map_or(0, |cluster| cluster.rank());
    if let Some(cluster) = &cluster
        && let Err(message) = cluster.leave()
    {
        outcome = outcome.and(Err(format!("error: leaving the MPI job: {message}")));
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // An error found before the run (reading inputs, say) is
            // found by every rank alike; ranks other than 0 name
            // themselves, in case theirs is the only one.
            if message != REPORTED_BY_RANK_ZERO {
                if rank == 0 {
                    tell!("{message}");
                } else {
                    tell!("rank {rank}: {message}");
                }
            }
            ExitCode::FAILURE
        }
    }
}

fn execute(args: &RunArgs, cluster: Option<&Arc<Cluster>>) -> Result<(), String> {
    if let Some(cluster) = cluster
        && args.file.as_os_str() == "-"
    {
        // mpirun hands standard input to rank 0 alone.
        return Err(match cluster.rank() {
            0 => {
                "error: under mpirun the program must be a file: standard input reaches rank 0 only"
                    .into()
            }
            _ => REPORTED_BY_RANK_ZERO.into(),
        });
    }
    // Rank 0 writes the files; checked now, not after a long run.
    if cluster.is_none_or(|cluster| cluster.rank() == 0) {
        prepare_destinations(args.out.as_deref(), args.trace.as_deref())?;
    }
    let source = input::read(Some(&args.file)).map_err(|e| format!("error: {e}"))?;
    let (module, map) = load(args, &source)?;
    let entry = module
        .entry
        .ok_or("error: the module has no entry computation")?;
    let params = module.comp(entry).params().to_vec();
    let grid = grid_of(args, &module)?;
    if let Some(cluster) = cluster
        && let Err(error) =
            weft_runtime::devices::transport::Placement::new(grid.len(), cluster.ranks())
    {
        // Every rank finds the same: rank 0 says it once.
        return Err(match cluster.rank() {
            0 => format!("error: {error}"),
            _ => REPORTED_BY_RANK_ZERO.into(),
        });
    }
    if grid.len() == 1 && !args.out_sharding.is_empty() {
        return Err("error: --out-sharding reassembles the outputs of several devices, and this run has one (--devices N)".into());
    }
    if grid.len() > 1 {
        unpartitioned::refuse(&module, grid.len(), &source, map.as_ref())?;
    }
    if grid.len() > 1 || wants_timeline(args) {
        return execute_grid(args, &module, &source, map.as_ref(), grid, &params, cluster);
    }
    if !args.inputs.is_empty() && args.inputs.len() != params.len() {
        return Err(format!(
            "error: the entry computation takes {} parameter(s) but {} input file(s) were given",
            params.len(),
            args.inputs.len()
        ));
    }
    let mut random = SplitMix64::new(args.seed);
    let mut budget = input_budget(args);
    let mut arguments = Vec::new();
    for (number, &param) in params.iter().enumerate() {
        let shape = module.shape_of(param);
        let argument = match args.inputs.get(number) {
            Some(path) => read_input(&module, param, path, number, &mut budget)?,
            None => random_value(
                &module,
                shape,
                &mut random,
                &mut budget,
                &parameter_label(&module, param, number),
            )?,
        };
        arguments.push(argument);
    }
    let repeat = args.repeat.max(1);
    let mut times = Vec::with_capacity(repeat);
    let mut evaluation = None;
    for _ in 0..repeat {
        let start = std::time::Instant::now();
        let limits = limits(args);
        evaluation = Some(
            weft_runtime::run_with(&module, arguments.clone(), limits)
                .map_err(|e| located(&e, &module, &source, map.as_ref()))?,
        );
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    if repeat > 1 {
        times.sort_by(f64::total_cmp);
        tell!("run: {:.3} ms median of {repeat}", times[repeat / 2]);
    }
    let evaluation = evaluation.expect("at least one run");
    let mut outputs = Vec::new();
    flatten(evaluation.result, &mut outputs);
    // The files first: a reader that closes standard output early must not
    // cost them. Failed checks fail the run after the outputs are written,
    // as on a grid: they are what to look at.
    if let Some(dir) = &args.out {
        let forms: Vec<OutputForm> = outputs
            .iter()
            .map(|output| match output {
                Value::Tensor(tensor) => OutputForm::Global(tensor.clone()),
                _ => OutputForm::NotAnArray,
            })
            .collect();
        write_forms(dir, &forms)?;
    }
    for line in &evaluation.printed {
        say!("print: {line}");
    }
    for value in &evaluation.outfeed {
        say!("outfeed: {}", summary(value));
    }
    for failure in &evaluation.check_failures {
        tell!("check failed: {failure}");
    }
    for (index, output) in outputs.iter().enumerate() {
        say!("out{index}: {}", summary(output));
    }
    if !evaluation.check_failures.is_empty() {
        return Err(format!(
            "error: {} check(s) failed",
            evaluation.check_failures.len()
        ));
    }
    Ok(())
}

/// Whether a one-device run should report like a grid's: a trace, a
/// timing, a JSON summary or the collectives were asked for.
fn wants_timeline(args: &RunArgs) -> bool {
    args.trace.is_some()
        || args.timing.is_some()
        || args.format == ReportFormat::Json
        || args.collectives
}

/// The runtime's timing from the flags, and why, for the summary: virtual
/// when devices outnumber the cores of this process unless asked
/// otherwise.
fn timing_of(
    args: &RunArgs,
    local_devices: usize,
) -> Result<(weft_runtime::devices::clock::Timing, report::TimingNote), String> {
    use weft_runtime::devices::clock::Timing;
    let cores = std::thread::available_parallelism().map_or(1, |p| p.get());
    let (mode, reason) = match args.timing {
        Some(mode) => (mode, None),
        None if local_devices > cores => (
            TimingMode::Virtual,
            Some(format!(
                "{local_devices} devices share {cores} core(s), so time is modelled; --timing wall measures it"
            )),
        ),
        None => (TimingMode::Wall, None),
    };
    Ok(match mode {
        TimingMode::Virtual => virtual_timing(args.profile.as_deref(), reason)?,
        TimingMode::Measured => (
            Timing::Measured,
            report::TimingNote {
                mode: "measured",
                reason,
                profile: None,
            },
        ),
        TimingMode::Wall => (
            Timing::Wall,
            report::TimingNote {
                mode: "wall",
                reason,
                profile: None,
            },
        ),
    })
}

/// Virtual timing on the profile `--profile` names (`None`: the default),
/// with the summary's note saying which and where it came from.
pub(crate) fn virtual_timing(
    profile: Option<&str>,
    reason: Option<String>,
) -> Result<(weft_runtime::devices::clock::Timing, report::TimingNote), String> {
    use weft_runtime::devices::clock::Timing;
    let (resolved, origin) =
        weft_cost::Profile::resolve(profile).map_err(|e| format!("error: --profile: {e}"))?;
    let origin = match origin {
        weft_cost::profile::Origin::BuiltIn if profile.is_none() => {
            "built in; `weft calibrate` measures this machine".to_string()
        }
        weft_cost::profile::Origin::BuiltIn => "built in".to_string(),
        weft_cost::profile::Origin::Cached(path) => {
            format!("calibrated, {}", path.display())
        }
        weft_cost::profile::Origin::File(path) => path.display().to_string(),
    };
    let note = report::TimingNote {
        mode: "virtual",
        reason,
        profile: Some((resolved.name.clone(), origin)),
    };
    Ok((Timing::Virtual(Arc::new(resolved)), note))
}

/// The interconnect `--topology` and `--collective-algorithm` describe
/// (`None` without `--topology`: the flat link), its links defaulting to
/// `link`; a grid topology must hold every device.
fn interconnect_of(
    args: &RunArgs,
    link: weft_runtime::devices::Link,
    timing: &weft_runtime::devices::clock::Timing,
    devices: usize,
) -> Result<Option<Arc<weft_cost::Interconnect>>, String> {
    interconnect_from(
        args.interconnect.topology.as_deref(),
        args.interconnect.collective_algorithm,
        link,
        timing,
        devices,
    )
}

/// [`interconnect_of`] from the flags' values (`weft simulate` has the
/// same flags).
pub(crate) fn interconnect_from(
    topology: Option<&str>,
    algorithm: weft_cost::Selection,
    link: weft_runtime::devices::Link,
    timing: &weft_runtime::devices::clock::Timing,
    devices: usize,
) -> Result<Option<Arc<weft_cost::Interconnect>>, String> {
    let Some(text) = topology else {
        return Ok(None);
    };
    let topology = if text == "profile" {
        let weft_runtime::devices::clock::Timing::Virtual(profile) = timing else {
            return Err("error: --topology profile: only virtual timing has a profile\n  hint: add --timing virtual".into());
        };
        profile.topology().ok_or_else(|| {
            format!(
                "error: --topology profile: the profile {} has no [interconnect]\n  hint: --profile h100-sxm or tpu-v5e have one, or give the topology",
                profile.name
            )
        })?
    } else {
        weft_cost::Topology::parse(text, link).map_err(|e| format!("error: --topology: {e}"))?
    };
    if let Some(capacity) = topology.capacity()
        && capacity < devices
    {
        return Err(format!(
            "error: --topology {topology} holds {capacity} devices, fewer than the run's {devices}\n  hint: a grid as large as the run, such as ring:{devices}"
        ));
    }
    Ok(Some(Arc::new(weft_cost::Interconnect {
        topology,
        selection: algorithm,
    })))
}

/// The input budget of a run given no limits: what a program whose shapes
/// need no inputs never draws on.
pub(crate) fn default_budget() -> InputBudget {
    let per_value = weft_runtime::evaluate::DEFAULT_MAX_VALUE_BYTES;
    InputBudget::new(per_value, per_value.saturating_mul(2))
}

/// What the inputs may take: each at most a value's limit, all together at
/// most `--max-input-gib` (twice a value's limit unless given).
fn input_budget(args: &RunArgs) -> InputBudget {
    let per_value = limits(args).max_value_bytes;
    let total = match args.max_input_gib {
        Some(gib) => (gib.max(0.0) * f64::from(1u32 << 30)) as u64,
        None => per_value.saturating_mul(2),
    };
    InputBudget::new(per_value, total)
}

/// The runtime's limits from the flags.
fn limits(args: &RunArgs) -> weft_runtime::Limits {
    weft_runtime::Limits {
        max_value_bytes: (args.max_value_gib.max(0.0) * f64::from(1u32 << 30)) as u64,
        max_loop_iterations: args.max_iterations,
        deadline: args.deadline.map(std::time::Duration::from_secs_f64),
    }
}

/// The device grid: from the flags, else from the module.
fn grid_of(args: &RunArgs, module: &Module) -> Result<weft_runtime::devices::Grid, String> {
    grid_from(
        args.devices,
        args.replicas,
        args.partitions,
        module,
        crate::flags::MOST_DEVICES,
    )
}

/// [`grid_of`] from the flags' values (`weft simulate` has the same
/// flags).
pub(crate) fn grid_from(
    devices: Option<usize>,
    replicas: Option<usize>,
    partitions: Option<usize>,
    module: &Module,
    most: u64,
) -> Result<weft_runtime::devices::Grid, String> {
    let module_replicas = module.config.replicas().max(1) as usize;
    let module_partitions = module.config.num_partitions.unwrap_or(1).max(1) as usize;
    let grid = match (devices, replicas, partitions) {
        (None, None, None) => weft_runtime::devices::Grid {
            replicas: module_replicas,
            partitions: module_partitions,
        },
        (Some(n), None, None) if module_partitions > 1 || records_entry_shardings(module) => {
            weft_runtime::devices::Grid {
                replicas: 1,
                partitions: n,
            }
        }
        (Some(n), None, None) => weft_runtime::devices::Grid {
            replicas: n,
            partitions: 1,
        },
        (devices, replicas, partitions) => {
            let grid = weft_runtime::devices::Grid {
                replicas: replicas.unwrap_or(1),
                partitions: partitions.unwrap_or(1),
            };
            if devices.is_some_and(|n| n != grid.len()) {
                return Err(format!(
                    "error: --devices {} disagrees with --replicas × --partitions = {}",
                    devices.unwrap_or(0),
                    grid.len()
                ));
            }
            grid
        }
    };
    if grid.is_empty() {
        return Err("error: a grid needs at least one device".into());
    }
    let devices = grid.replicas.checked_mul(grid.partitions);
    if devices.is_none_or(|n| n as u64 > most) {
        return Err(format!(
            "error: {} replica(s) × {} partition(s) is more devices than weft runs in one process ({most}{}); give --devices, or --replicas and --partitions",
            grid.replicas,
            grid.partitions,
            if most == crate::flags::MOST_DEVICES {
                ", each two threads"
            } else {
                ""
            }
        ));
    }
    Ok(grid)
}

/// The link model of `--link`, `--link-bandwidth` (GB/s) and
/// `--link-latency` (µs).
pub(crate) fn link_of(
    mode: Option<LinkMode>,
    bandwidth: f64,
    latency: f64,
) -> weft_runtime::devices::Link {
    match mode {
        Some(LinkMode::Unpaced) => weft_runtime::devices::Link::UNPACED,
        _ => weft_runtime::devices::Link {
            bandwidth: Some(bandwidth.max(1e-9) * 1e9),
            latency: std::time::Duration::from_secs_f64(latency.max(0.0) * 1e-6),
        },
    }
}

/// Runs on every device of `grid`.
///
/// Inputs: a `*.shards.npy` file holds one value per device stacked on axis
/// 0. Any other file holds the parameter's global value: a parameter with a
/// sharding gets each device's tile of it (the file must have the global
/// shape the sharding and the per-device shape imply), one without gets the
/// whole value on every device. Without `--inputs`, a program that records
/// shardings gets seeded random global values, sliced the same way; one that
/// records none gets seeded random values per device.
///
/// Outputs ([`OutputForm`]): global values when no input was per device and
/// the program records its result shardings, else per-device values stacked
/// on axis 0.
fn execute_grid(
    args: &RunArgs,
    module: &Module,
    source: &input::Source,
    map: Option<&weft_ir::text::SourceMap>,
    grid: weft_runtime::devices::Grid,
    params: &[weft_ir::Instr],
    cluster: Option<&Arc<Cluster>>,
) -> Result<(), String> {
    if !args.inputs.is_empty() && args.inputs.len() != params.len() {
        return Err(format!(
            "error: the entry computation takes {} parameter(s) but {} input file(s) were given",
            params.len(),
            args.inputs.len()
        ));
    }
    let devices = grid.len();
    let records_shardings = records_entry_shardings(module);
    let mut per_device: Vec<Vec<Value>> = vec![Vec::new(); devices];
    let mut any_per_device_input = false;
    let mut single_device_random = SplitMix64::new(args.seed);
    let mut budget = input_budget(args);
    for (number, &param) in params.iter().enumerate() {
        let shape = module.shape_of(param);
        let label = parameter_label(module, param, number);
        match args.inputs.get(number) {
            Some(path) if path.to_string_lossy().ends_with(".shards.npy") => {
                any_per_device_input = true;
                let shards = read_shards(module, param, path, number, devices, &mut budget)?;
                for (device, shard) in shards.into_iter().enumerate() {
                    per_device[device].push(Value::Tensor(shard));
                }
            }
            Some(path) => {
                let tiles = read_global(module, param, path, number, grid, &mut budget)?;
                for (device, tile) in tiles.into_iter().enumerate() {
                    per_device[device].push(Value::Tensor(tile));
                }
            }
            // One device draws its inputs as a plain run does, so a run
            // gives the same values with or without a timeline.
            None if devices == 1 => {
                let value = random_value(
                    module,
                    shape,
                    &mut single_device_random,
                    &mut budget,
                    &label,
                )?;
                per_device[0].push(value);
            }
            None if records_shardings
                && let Some(global_dims) = random_global_dims(module, param, grid) =>
            {
                let mut random = SplitMix64::new(args.seed.wrapping_add(number as u64));
                let elem = module.shapes.as_array(shape).expect("an array").elem;
                budget.reserve(&label, elem, &global_dims)?;
                let global = weft_runtime::random::tensor(&mut random, elem, &global_dims);
                // The tiles are copies: as many bytes again.
                budget.reserve_bytes(&label, global.bytes.len() as u64)?;
                let tiles = global_to_devices(module, param, number, &global, grid, None)?;
                for (device, tile) in tiles.into_iter().enumerate() {
                    per_device[device].push(Value::Tensor(tile));
                }
            }
            None => {
                any_per_device_input = true;
                for (device, arguments) in per_device.iter_mut().enumerate() {
                    let mut random = SplitMix64::new(args.seed.wrapping_add(device as u64));
                    arguments.push(random_value(
                        module,
                        shape,
                        &mut random,
                        &mut budget,
                        &label,
                    )?);
                }
            }
        }
    }
    let link = link_of(
        args.interconnect.link,
        args.interconnect.link_bandwidth,
        args.interconnect.link_latency,
    );
    if args.interconnect.link != Some(LinkMode::Unpaced) && cluster.is_none_or(|c| c.rank() == 0) {
        for warning in crate::flags::absurd_link(
            args.interconnect.link_bandwidth,
            args.interconnect.link_latency,
        ) {
            tell!("warning: {warning}");
        }
    }
    let local_devices = cluster.map_or(devices, |cluster| devices / cluster.ranks().max(1));
    let (timing, timing_note) = timing_of(args, local_devices)?;
    // Without a trace, a run keeps only sums: its memory does not grow
    // with its length.
    let detail = match &args.trace {
        None => weft_runtime::devices::timeline::Detail::TOTALS_ONLY,
        Some(_) => weft_runtime::devices::timeline::Detail {
            max_events: (args.trace_max_events / devices as u64).max(1) as usize,
        },
    };
    let interconnect = interconnect_of(args, link, &timing, devices)?;
    let options = weft_runtime::devices::GridOptions {
        timeout: std::time::Duration::from_secs_f64(args.timeout.max(0.001)),
        limits: limits(args),
        link,
        interconnect: interconnect.clone(),
        timing,
        detail,
    };
    // The step time runs from the moment every device thread is ready to
    // the moment the last device (and its async stream) finished.
    let repeat = args.repeat.max(1);
    let mut steps = Vec::with_capacity(repeat);
    let mut runs = Vec::with_capacity(repeat);
    let mut last = None;
    let watch = weft_runtime::devices::progress::Watch::new();
    let progress_line = match cluster {
        Some(cluster) if cluster.rank() != 0 => None,
        _ => progress_line::ProgressLine::show(&watch),
    };
    for _ in 0..repeat {
        let evaluations = match cluster {
            None => weft_runtime::devices::run_grid_watched(
                module,
                grid,
                per_device.clone(),
                options.clone(),
                &watch,
            )
            .map_err(|e| located(&e, module, source, map))?,
            // Every rank runs its block; rank 0 gets every device's
            // evaluation and reports, the others print nothing.
            Some(cluster) => match weft_runtime::devices::run_grid_on_ranks_watched(
                module,
                grid,
                per_device.clone(),
                options.clone(),
                cluster,
                &watch,
            ) {
                Ok(Some(evaluations)) => evaluations,
                Ok(None) => continue,
                Err(_) if cluster.rank() != 0 => return Err(REPORTED_BY_RANK_ZERO.into()),
                Err(error) => return Err(located(&error, module, source, map)),
            },
        };
        let timelines: Vec<_> = evaluations.iter().map(|e| e.timeline.clone()).collect();
        steps.push(weft_runtime::devices::timeline::DeviceTimeline::step_time(
            &timelines,
        ));
        runs.push(timelines.iter().map(|t| t.figures()).collect());
        last = Some(evaluations);
    }
    drop(progress_line);
    let Some(evaluations) = last else {
        // A rank other than 0: rank 0 reports the run.
        return Ok(());
    };
    let timelines: Vec<_> = evaluations.iter().map(|e| e.timeline.clone()).collect();
    // Requested files first: whatever happens to standard output, they are
    // written before anything is printed.
    let mut trace_failure = None;
    if let Some(path) = &args.trace {
        let file = std::fs::File::create(path)
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
        let mut writer = std::io::BufWriter::new(file);
        let written = weft_runtime::devices::trace::write_chrome_trace(
            module,
            &timelines,
            weft_runtime::devices::trace::TraceOptions {
                hide_trivial: args.trace_hide_trivial,
            },
            &mut writer,
        )
        .and_then(|()| std::io::Write::flush(&mut writer));
        // A trace that cannot be written (a full disk) still leaves the
        // outputs to be written, then fails the run.
        trace_failure = written
            .err()
            .map(|e| format!("error: cannot write {}: {e}", path.display()));
        let dropped: u64 = timelines.iter().map(|t| t.dropped).sum();
        if dropped > 0 {
            tell!(
                "warning: the trace keeps the first {} events of each device; {dropped} later ones were left out (--trace-max-events)",
                detail.max_events
            );
        }
    }
    let mut outputs: Vec<Vec<Value>> = Vec::new();
    for evaluation in &evaluations {
        let mut flat = Vec::new();
        flatten(evaluation.result.clone(), &mut flat);
        outputs.push(flat);
    }
    let count = outputs[0].len();
    let reassembly = reassembly(module, &args.out_sharding, count, any_per_device_input)?;
    let mut forms = Vec::with_capacity(count);
    for index in 0..count {
        let form = match &reassembly {
            // One device's values are the program's.
            _ if grid.len() == 1 => match outputs[0][index].as_tensor() {
                Some(tensor) => OutputForm::Global(tensor.clone()),
                None => OutputForm::NotAnArray,
            },
            Reassembly::Global(shardings) => {
                output_form(&outputs, index, Some(&shardings[index]), grid)
            }
            Reassembly::PerDevice(note) => match output_form(&outputs, index, None, grid) {
                OutputForm::Stacked(tensor, _) => OutputForm::Stacked(tensor, note.clone()),
                other => other,
            },
        };
        forms.push(form);
    }
    if let Some(dir) = &args.out {
        write_forms(dir, &forms)?;
    }
    if let Some(failure) = trace_failure {
        return Err(failure);
    }
    let output_lines: Vec<String> = forms
        .iter()
        .enumerate()
        .map(|(index, form)| match form {
            OutputForm::Global(tensor) if grid.len() == 1 => {
                format!("out{index}: {}", summary(&Value::Tensor(tensor.clone())))
            }
            OutputForm::Global(tensor) => format!(
                "out{index}: {} (global)",
                summary(&Value::Tensor(tensor.clone()))
            ),
            OutputForm::Stacked(tensor, note) => format!(
                "out{index}: {} (stacked over devices{})",
                summary(&Value::Tensor(tensor.clone())),
                note.as_deref()
                    .map(|n| format!("; {n}"))
                    .unwrap_or_default()
            ),
            OutputForm::NotAnArray => format!("out{index}: {}", outputs[0][index].describe()),
        })
        .collect();
    let report = report::Summary {
        module,
        grid,
        ranks: cluster.map(|cluster| cluster.ranks()),
        link,
        interconnect,
        timing: timing_note,
        steps,
        runs,
        last: timelines,
        classes: None,
    };
    let mut failures = 0;
    for evaluation in &evaluations {
        for failure in &evaluation.check_failures {
            tell!("check failed: {failure}");
            failures += 1;
        }
    }
    match args.format {
        ReportFormat::Json => {
            let printed: Vec<serde_json::Value> = evaluations
                .iter()
                .enumerate()
                .flat_map(|(device, evaluation)| {
                    evaluation
                        .printed
                        .iter()
                        .map(move |line| serde_json::json!({"device": device, "line": line}))
                })
                .collect();
            let mut json = report.json(serde_json::json!(output_lines));
            json["printed"] = serde_json::json!(printed);
            say!("{json:#}");
        }
        ReportFormat::Text => {
            for line in report.text(args.collectives) {
                say!("{line}");
            }
            for (device, evaluation) in evaluations.iter().enumerate() {
                for line in &evaluation.printed {
                    say!("device {device} print: {line}");
                }
                for value in &evaluation.outfeed {
                    say!("device {device} outfeed: {}", summary(value));
                }
            }
            for line in &output_lines {
                say!("{line}");
            }
        }
    }
    if failures > 0 {
        return Err(format!("error: {failures} check(s) failed"));
    }
    Ok(())
}

/// The program of `source`, through the front end of its format; HLO text
/// keeps its source map so run-time errors can point into it.
fn load(
    args: &RunArgs,
    source: &input::Source,
) -> Result<(Module, Option<weft_ir::text::SourceMap>), String> {
    load_program(&args.file, args.input_format, &args.inputs, source, || {
        input_budget(args)
    })
}

/// [`load`] from the flags' values: the program `file` (of `format`, when
/// its name does not say) read as `source`; `inputs` fix the shapes a
/// StableHLO program leaves to run time, read within `budget`.
pub(crate) fn load_program(
    file: &std::path::Path,
    format: Option<InputFormat>,
    inputs: &[PathBuf],
    source: &input::Source,
    budget: impl FnOnce() -> InputBudget,
) -> Result<(Module, Option<weft_ir::text::SourceMap>), String> {
    if InputFormat::of(Some(file), format) == InputFormat::Mlir {
        use weft_stablehlo::load;
        let body =
            load::parse_verified(&source.text).map_err(|e| e.render(&source.name, &source.text))?;
        // Given inputs fix the shapes the program leaves to run time; only a
        // program that needs them pays for reading them twice.
        let lowered = match load::lower(&body, None) {
            Ok(module) => Ok(module),
            Err(error) if inputs.is_empty() => Err(error),
            Err(_) => {
                let mut budget = budget();
                let inputs = inputs
                    .iter()
                    .map(|path| {
                        inputs::read_any_array(path, &mut budget).map(|tensor| tensor.to_literal())
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                load::lower(&body, Some(&inputs))
            }
        };
        return lowered
            .map(|module| (module, None))
            .map_err(|e| e.render(&source.name, &source.text));
    }
    match weft_ir::load::load(&source.text, &weft_ir::verify::VerifyOptions::default()) {
        Ok(loaded) => Ok((loaded.module, Some(loaded.source_map))),
        Err(error) if error.stage == weft_ir::load::Stage::Verify => {
            // The same located diagnostics as `weft check`, then a count.
            let count = error.diagnostics.len();
            let plural = if count == 1 { "" } else { "s" };
            Err(format!(
                "{}error: {}: the module does not verify ({count} error{plural}); nothing was run",
                error.render(&source.name, &source.text),
                source.name
            ))
        }
        Err(error) => Err(error.render(&source.name, &source.text)),
    }
}

/// A run-time error, pointing at the instruction's line when the program is
/// HLO text (a lowered StableHLO program has no HLO text to point into);
/// every other instruction the message names gets its line too.
pub(crate) fn located(
    error: &weft_runtime::RunError,
    module: &Module,
    source: &input::Source,
    map: Option<&weft_ir::text::SourceMap>,
) -> String {
    let message = match map {
        Some(map) => with_lines(&error.message, module, source, map),
        None => error.message.clone(),
    };
    match (error.instr.and_then(|i| map?.instr(i)), &error.instruction) {
        (Some(span), Some(at)) => weft_ir::Diagnostic::error(span, format!("{at}: {message}"))
            .render(&source.name, &source.text),
        (_, Some(at)) => format!("error: {at}: {message}"),
        (_, None) => format!("error: {message}"),
    }
}

/// `message` with the line of each instruction it names as
/// `computation/%instruction`: `main/%sum (line 12)`, or `main/%sum (line
/// 12, channel 1)` where words in parentheses follow the name.
fn with_lines(
    message: &str,
    module: &Module,
    source: &input::Source,
    map: &weft_ir::text::SourceMap,
) -> String {
    let is_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    let line_of = |comp: &str, name: &str| {
        let instr = module.instr_by_name(module.comp_by_name(comp)?, name)?;
        let span = map.instr(instr)?;
        Some(weft_ir::diagnostic::line_col(&source.text, span.start as usize).line)
    };
    let mut out = String::with_capacity(message.len() + 64);
    let mut rest = message;
    while let Some(at) = rest.find("/%") {
        let comp_start = rest[..at].rfind(|c: char| !is_name(c)).map_or(0, |p| p + 1);
        let name_len = rest[at + 2..]
            .find(|c: char| !is_name(c))
            .unwrap_or(rest.len() - at - 2);
        // A sentence may end right after a name: `… at main/%x.`
        let mut name = &rest[at + 2..at + 2 + name_len];
        let mut line = line_of(&rest[comp_start..at], name);
        while line.is_none() && name.ends_with('.') {
            name = &name[..name.len() - 1];
            line = line_of(&rest[comp_start..at], name);
        }
        let mut end = at + 2 + name.len();
        out.push_str(&rest[..end]);
        if let Some(line) = line {
            if rest[end..].starts_with(" (") {
                out.push_str(&format!(" (line {line}, "));
                end += 2;
            } else {
                out.push_str(&format!(" (line {line})"));
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

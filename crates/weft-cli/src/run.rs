//! `weft run`: execute a program's entry computation on one device, or on
//! a grid of devices (threads of this process, or spread over the ranks of
//! an `mpirun` job with the `mpi` feature, see [`crate::ranks`]).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use weft_ir::{Module, Shape, ShapeData};
use weft_runtime::devices::remote::Cluster;
use weft_runtime::numbers::{Numbers, decode};
use weft_runtime::random::SplitMix64;
use weft_runtime::{Tensor, Value};

use crate::fmt::InputFormat;
use crate::input;

/// The link model's modes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LinkMode {
    /// Pace transfers by --link-bandwidth and --link-latency (the default).
    Paced,
    /// Transfers take no modelled time.
    Unpaced,
}

#[derive(clap::Args)]
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
    /// The input's format, when its name does not say.
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
    /// Run the program N times: on one device the median run time goes to
    /// standard error (`run: 3.41 ms median of 20`); on several, the step
    /// time line gives the median and the fastest. Outputs and the table
    /// come from the last run.
    #[arg(long, value_name = "N", default_value_t = 1)]
    repeat: usize,
    /// Run on this many devices (threads). Without it, the module's
    /// `replica_count` × `num_partitions`. A module with partitions, or
    /// whose entry records shardings (they name partitions), gets N
    /// partitions, any other N replicas.
    #[arg(long, value_name = "N")]
    devices: Option<usize>,
    /// The number of replicas (with --partitions, instead of --devices).
    #[arg(long, value_name = "R")]
    replicas: Option<usize>,
    /// The number of partitions (with --replicas, instead of --devices).
    #[arg(long, value_name = "P")]
    partitions: Option<usize>,
    /// Interconnect bandwidth per device for the link model, in GB/s.
    #[arg(long, value_name = "GB/S", default_value_t = 25.0)]
    link_bandwidth: f64,
    /// Per-transfer latency of the link model, in microseconds.
    #[arg(long, value_name = "US", default_value_t = 5.0)]
    link_latency: f64,
    /// `unpaced` turns the link model off (transfers take no time beyond
    /// the copies themselves).
    #[arg(long, value_name = "MODE")]
    link: Option<LinkMode>,
    /// Write a Chrome trace (Perfetto opens it) of every device's compute and
    /// async streams to this file.
    #[arg(long, value_name = "JSON")]
    trace: Option<PathBuf>,
    /// How long a device waits at a collective for the rest of its group
    /// before the run stops with an error naming every device, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    timeout: f64,
    /// The largest value one instruction may produce, in GiB; a larger one
    /// stops the run with an error naming the instruction.
    #[arg(long, value_name = "GIB", default_value_t = 8.0)]
    max_value_gib: f64,
    /// Stop the run with an error naming the `while` and its location when
    /// one execution of a loop runs more than N iterations. Off by default,
    /// as in XLA: a loop may run for ever.
    #[arg(long, value_name = "N")]
    max_iterations: Option<u64>,
    /// Stop any run after SECONDS (from the moment each device starts) with
    /// a report of where each device is: computing at which instruction and
    /// loop iteration, or waiting at which collective.
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    deadline: Option<f64>,
}

/// A finite, positive number of seconds that a `Duration` can hold.
fn positive_seconds(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if seconds.is_finite() && seconds > 0.0 && seconds < 1e9 {
        Ok(seconds)
    } else {
        Err(format!(
            "`{text}` must be a positive number of seconds below 1e9"
        ))
    }
}

/// The error of a rank other than 0 whose run failed: rank 0 reports it
/// (with the device named), so this rank prints nothing.
const REPORTED_BY_RANK_ZERO: &str = "";

pub fn run(args: &RunArgs) -> ExitCode {
    let cluster = match crate::ranks::join() {
        Ok(cluster) => cluster,
        Err(message) => {
            eprintln!("{message}");
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
                    eprintln!("{message}");
                } else {
                    eprintln!("rank {rank}: {message}");
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
    let source = input::read(Some(&args.file)).map_err(|e| format!("error: {e}"))?;
    let (module, map) = load(args, &source)?;
    let entry = module
        .entry
        .ok_or("error: the module has no entry computation")?;
    let params = module.comp(entry).params.clone();
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
    if grid.len() > 1 {
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
    let mut arguments = Vec::new();
    for (number, &param) in params.iter().enumerate() {
        let shape = module.shape_of(param);
        let argument = match args.inputs.get(number) {
            Some(path) => read_input(&module, shape, path, number)?,
            None => random_value(&module, shape, &mut random).ok_or_else(|| {
                format!("error: parameter {number} has a shape random inputs cannot fill")
            })?,
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
                .map_err(|e| located(&e, &source, map.as_ref()))?,
        );
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    if repeat > 1 {
        times.sort_by(f64::total_cmp);
        eprintln!("run: {:.3} ms median of {repeat}", times[repeat / 2]);
    }
    let evaluation = evaluation.expect("at least one run");
    for line in &evaluation.printed {
        say!("print: {line}");
    }
    for value in &evaluation.outfeed {
        say!("outfeed: {}", summary(value));
    }
    for failure in &evaluation.check_failures {
        eprintln!("check failed: {failure}");
    }
    let result = evaluation.result;
    let mut outputs = Vec::new();
    flatten(result, &mut outputs);
    for (index, output) in outputs.iter().enumerate() {
        say!("out{index}: {}", summary(output));
    }
    if !evaluation.check_failures.is_empty() {
        return Err(format!(
            "error: {} check(s) failed",
            evaluation.check_failures.len()
        ));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
        for (index, output) in outputs.iter().enumerate() {
            let Value::Tensor(tensor) = output else {
                continue;
            };
            let path = dir.join(format!("out{index}.npy"));
            std::fs::write(&path, weft_runtime::npy::write(tensor))
                .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(())
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
    let module_replicas = module.config.replicas().max(1) as usize;
    let module_partitions = module.config.num_partitions.unwrap_or(1).max(1) as usize;
    let grid = match (args.devices, args.replicas, args.partitions) {
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
    Ok(grid)
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
    for (number, &param) in params.iter().enumerate() {
        let shape = module.shape_of(param);
        match args.inputs.get(number) {
            Some(path) if path.to_string_lossy().ends_with(".shards.npy") => {
                any_per_device_input = true;
                let shards = read_shards(module, shape, path, number, devices)?;
                for (device, shard) in shards.into_iter().enumerate() {
                    per_device[device].push(Value::Tensor(shard));
                }
            }
            Some(path) => {
                let global = read_array(module, shape, path, number)?;
                let tiles = global_to_devices(module, param, number, &global, grid, Some(path))?;
                for (device, tile) in tiles.into_iter().enumerate() {
                    per_device[device].push(Value::Tensor(tile));
                }
            }
            None if records_shardings
                && let Some(global_dims) = random_global_dims(module, param, grid) =>
            {
                let mut random = SplitMix64::new(args.seed.wrapping_add(number as u64));
                let elem = module.shapes.as_array(shape).expect("an array").elem;
                let global = weft_runtime::random::tensor(&mut random, elem, &global_dims);
                let tiles = global_to_devices(module, param, number, &global, grid, None)?;
                for (device, tile) in tiles.into_iter().enumerate() {
                    per_device[device].push(Value::Tensor(tile));
                }
            }
            None => {
                any_per_device_input = true;
                for (device, arguments) in per_device.iter_mut().enumerate() {
                    let mut random = SplitMix64::new(args.seed.wrapping_add(device as u64));
                    arguments.push(random_value(module, shape, &mut random).ok_or_else(|| {
                        format!("error: parameter {number} has a shape random inputs cannot fill")
                    })?);
                }
            }
        }
    }
    let link = match args.link {
        Some(LinkMode::Unpaced) => weft_runtime::devices::Link::UNPACED,
        _ => weft_runtime::devices::Link {
            bandwidth: Some(args.link_bandwidth.max(1e-9) * 1e9),
            latency: std::time::Duration::from_secs_f64(args.link_latency.max(0.0) * 1e-6),
        },
    };
    let options = weft_runtime::devices::GridOptions {
        timeout: std::time::Duration::from_secs_f64(args.timeout.max(0.001)),
        limits: limits(args),
        link,
    };
    // The step time runs from the moment every device thread is ready to
    // the moment the last device (and its async stream) finished.
    let repeat = args.repeat.max(1);
    let mut steps = Vec::with_capacity(repeat);
    let mut last = None;
    for _ in 0..repeat {
        let evaluations = match cluster {
            None => weft_runtime::devices::run_grid(module, grid, per_device.clone(), options)
                .map_err(|e| located(&e, source, map))?,
            // Every rank runs its block; rank 0 gets every device's
            // evaluation and reports, the others print nothing.
            Some(cluster) => match weft_runtime::devices::run_grid_on_ranks(
                module,
                grid,
                per_device.clone(),
                options,
                cluster,
            ) {
                Ok(Some(evaluations)) => evaluations,
                Ok(None) => continue,
                Err(_) if cluster.rank() != 0 => return Err(REPORTED_BY_RANK_ZERO.into()),
                Err(error) => return Err(located(&error, source, map)),
            },
        };
        let timelines: Vec<_> = evaluations.iter().map(|e| e.timeline.clone()).collect();
        steps.push(weft_runtime::devices::timeline::DeviceTimeline::step_time(
            &timelines,
        ));
        last = Some(evaluations);
    }
    let Some(evaluations) = last else {
        // A rank other than 0: rank 0 reports the run.
        return Ok(());
    };
    if repeat > 1 {
        let mut sorted = steps.clone();
        sorted.sort();
        let median = sorted[repeat / 2].as_secs_f64() * 1e3;
        let fastest = sorted[0].as_secs_f64() * 1e3;
        say!(
            "step time: {median:.3} ms (median of {repeat} runs, fastest {fastest:.3} ms; the table is the last run's)"
        );
    } else {
        say!("step time: {:.3} ms", steps[0].as_secs_f64() * 1e3);
    }
    let over_ranks = match cluster {
        Some(cluster) => format!(" over {} MPI ranks", cluster.ranks()),
        None => String::new(),
    };
    say!(
        "  {devices} devices ({} replica(s) x {} partition(s)){over_ranks}, link {}",
        grid.replicas,
        grid.partitions,
        match link.bandwidth {
            Some(bandwidth) => format!(
                "{} GB/s + {} us",
                short_number(bandwidth / 1e9),
                short_number(link.latency.as_secs_f64() * 1e6)
            ),
            None => "unpaced".to_string(),
        }
    );
    // More devices than cores: each device's compute waits its turn for a
    // core, which the table's times include; say so rather than let them
    // read as the devices' speed.
    let cores = std::thread::available_parallelism().map_or(1, |p| p.get());
    let local_devices = cluster.map_or(devices, |cluster| devices / cluster.ranks().max(1));
    if local_devices > cores {
        say!(
            "  {local_devices} devices share {cores} core(s) per process: compute times include waiting for a core"
        );
    }
    say!("  device   compute ms   communication ms   exposed ms   overlap");
    for (device, evaluation) in evaluations.iter().enumerate() {
        let timeline = &evaluation.timeline;
        say!(
            "  {device:>6} {:>12.3} {:>18.3} {:>12.3} {:>8.1}%",
            timeline.compute().as_secs_f64() * 1e3,
            timeline.communication.as_secs_f64() * 1e3,
            timeline.exposed.as_secs_f64() * 1e3,
            timeline.overlap_percent()
        );
    }
    if let Some(path) = &args.trace {
        let timelines: Vec<_> = evaluations.iter().map(|e| e.timeline.clone()).collect();
        std::fs::write(
            path,
            weft_runtime::devices::timeline::chrome_trace(&timelines),
        )
        .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    }
    let mut outputs: Vec<Vec<Value>> = Vec::new();
    for (device, evaluation) in evaluations.iter().enumerate() {
        let mut flat = Vec::new();
        flatten(evaluation.result.clone(), &mut flat);
        outputs.push(flat);
        for line in &evaluation.printed {
            say!("device {device} print: {line}");
        }
        for value in &evaluation.outfeed {
            say!("device {device} outfeed: {}", summary(value));
        }
        for failure in &evaluation.check_failures {
            eprintln!("check failed: {failure}");
        }
    }
    let count = outputs[0].len();
    // Per-device inputs give per-device outputs; global ones, global outputs
    // where the program says how its results are sharded.
    let result_shardings = match root_sharding(module) {
        _ if any_per_device_input => Err(None),
        Some(sharding) => Ok(
            weft_runtime::devices::sharding::leaf_shardings(sharding, count)
                .map_err(|e| format!("error: the entry's result sharding: {e}"))?,
        ),
        None => Err(Some("the program records no result sharding".to_string())),
    };
    let mut forms = Vec::with_capacity(count);
    for index in 0..count {
        let form = match &result_shardings {
            Ok(shardings) => output_form(&outputs, index, Some(&shardings[index]), grid),
            Err(note) => match output_form(&outputs, index, None, grid) {
                OutputForm::Stacked(tensor, _) => OutputForm::Stacked(tensor, note.clone()),
                other => other,
            },
        };
        match &form {
            OutputForm::Global(tensor) => say!(
                "out{index}: {} (global)",
                summary(&Value::Tensor(tensor.clone()))
            ),
            OutputForm::Stacked(tensor, note) => say!(
                "out{index}: {} (stacked over devices{})",
                summary(&Value::Tensor(tensor.clone())),
                note.as_deref()
                    .map(|n| format!("; {n}"))
                    .unwrap_or_default()
            ),
            OutputForm::NotAnArray => say!("out{index}: {}", outputs[0][index].describe()),
        }
        forms.push(form);
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
        for (index, form) in forms.iter().enumerate() {
            let (tensor, name) = match form {
                OutputForm::Global(tensor) => (tensor, format!("out{index}.npy")),
                OutputForm::Stacked(tensor, _) => (tensor, format!("out{index}.shards.npy")),
                OutputForm::NotAnArray => continue,
            };
            let path = dir.join(name);
            std::fs::write(&path, weft_runtime::npy::write(tensor))
                .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
        }
    }
    if evaluations.iter().any(|e| !e.check_failures.is_empty()) {
        return Err("error: checks failed".into());
    }
    Ok(())
}

/// What a multi-device run gives for one output.
enum OutputForm {
    /// The global value, reassembled from the devices' tiles by the result's
    /// sharding (written as `outN.npy`).
    Global(Tensor),
    /// Every device's value stacked on a new axis 0 (written as
    /// `outN.shards.npy`), with why it is not global when it could have
    /// been.
    Stacked(Tensor, Option<String>),
    /// A token or other non-array value (not written).
    NotAnArray,
}

/// Output `index` of every device: global when its sharding is known (only
/// asked for when no input was per device) and it reassembles, else stacked.
fn output_form(
    outputs: &[Vec<Value>],
    index: usize,
    sharding: Option<&weft_ir::attrs::Sharding>,
    grid: weft_runtime::devices::Grid,
) -> OutputForm {
    let Some(stacked) = stack(outputs.iter().map(|device| &device[index])) else {
        return OutputForm::NotAnArray;
    };
    let Some(sharding) = sharding else {
        return OutputForm::Stacked(stacked, None);
    };
    let tiles: Vec<Tensor> = outputs
        .iter()
        .filter_map(|device| device[index].as_tensor().cloned())
        .collect();
    match weft_runtime::devices::sharding::assemble_over_grid(&tiles, sharding, grid) {
        Ok(global) => OutputForm::Global(global),
        Err(reason) => OutputForm::Stacked(stacked, Some(format!("no global value: {reason}"))),
    }
}

/// Whether the entry's parameters or root record shardings: the program is
/// SPMD, its shardings naming partitions.
fn records_entry_shardings(module: &Module) -> bool {
    let Some(entry) = module.entry else {
        return false;
    };
    root_sharding(module).is_some()
        || module
            .comp(entry)
            .params
            .iter()
            .any(|&p| module.instrs[p].common().sharding.is_some())
}

/// The sharding the entry's root records for its results, if any.
fn root_sharding(module: &Module) -> Option<&weft_ir::attrs::Sharding> {
    let root = module.comp(module.entry?).root?;
    module.instrs[root].common().sharding.as_ref()
}

/// The devices' tiles of parameter `number`'s global value `global` (read
/// from `path`, or drawn at random): sliced by the parameter's sharding, or
/// the whole value on every device when it has none.
fn global_to_devices(
    module: &Module,
    param: weft_ir::Instr,
    number: usize,
    global: &Tensor,
    grid: weft_runtime::devices::Grid,
    path: Option<&std::path::Path>,
) -> Result<Vec<Tensor>, String> {
    use weft_runtime::devices::sharding::{TileLayout, shard_over_grid, sharding_devices};
    let array = module
        .shapes
        .as_array(module.shape_of(param))
        .expect("the caller checked the parameter is an array");
    let parameter = format!("parameter {number} (%{})", module.instrs[param].name);
    let source = path.map_or_else(|| "random input".to_string(), |p| p.display().to_string());
    let stem = path
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().trim_end_matches(".npy").to_string())
        .unwrap_or_else(|| format!("in{number}"));
    let mut stacked = vec![grid.len() as i64];
    stacked.extend(array.dims.iter());
    let hint = format!(
        "hint: pass per-device values as {stem}.shards.npy, {} stacked on axis 0",
        shape_text(array.elem, &stacked)
    );
    let Some(sharding) = module.instrs[param].common().sharding.as_ref() else {
        if global.dims.as_slice() != &*array.dims {
            return Err(format!(
                "error: {source}: {parameter} has no sharding, so every device gets the whole value: expected {}, found {}\n  {hint}",
                shape_text(array.elem, &array.dims),
                shape_text(global.elem, &global.dims)
            ));
        }
        return Ok(vec![global.clone(); grid.len()]);
    };
    let mut printed = String::new();
    sharding.print(&mut printed, false);
    let layout = TileLayout::new(sharding, sharding_devices(grid).len(), array.dims.len())
        .map_err(|e| {
            format!(
                "error: {source}: {parameter} has sharding={printed}, which maps no global value to the devices: {e}\n  {hint}"
            )
        })?;
    let expected = layout
        .global_dims(&array.dims)
        .map_err(|e| format!("error: {parameter} sharding={printed}: {e}"))?;
    if global.dims != expected {
        return Err(format!(
            "error: {source}: {parameter} has sharding={printed} over {} devices, each holding {}: the global input must be {}, found {}\n  {hint}",
            layout.devices(),
            shape_text(array.elem, &array.dims),
            shape_text(array.elem, &expected),
            shape_text(global.elem, &global.dims)
        ));
    }
    shard_over_grid(global, sharding, grid).map_err(|e| format!("error: {source}: {e}"))
}

/// `f32[16,4]`, as HLO writes a shape.
fn shape_text(elem: weft_ir::ElementType, dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("{}[{}]", elem.name(), dims.join(","))
}

/// The global shape of a random value for parameter `param`: its
/// sharding's global shape, or its own without a sharding; `None` when it is
/// not an array or its sharding maps no global value (a manual one), so the
/// devices get values of their own.
fn random_global_dims(
    module: &Module,
    param: weft_ir::Instr,
    grid: weft_runtime::devices::Grid,
) -> Option<Vec<i64>> {
    use weft_runtime::devices::sharding::{TileLayout, sharding_devices};
    let array = module.shapes.as_array(module.shape_of(param))?;
    match module.instrs[param].common().sharding.as_ref() {
        Some(sharding) => TileLayout::new(sharding, sharding_devices(grid).len(), array.dims.len())
            .and_then(|layout| layout.global_dims(&array.dims))
            .ok(),
        None => Some(array.dims.to_vec()),
    }
}

/// The per-device values of a `*.shards.npy` file: `[devices, …shape]`.
fn read_shards(
    module: &Module,
    shape: Shape,
    path: &std::path::Path,
    number: usize,
    devices: usize,
) -> Result<Vec<Tensor>, String> {
    let tensor = read_array(module, shape, path, number)?;
    let array = module
        .shapes
        .as_array(shape)
        .ok_or_else(|| format!("error: parameter {number} is not an array"))?;
    let mut expected = vec![devices as i64];
    expected.extend(array.dims.iter());
    if tensor.dims != expected {
        return Err(format!(
            "error: {}: parameter {number} needs {} shards of {}{:?}, the file holds {:?}",
            path.display(),
            devices,
            array.elem.name(),
            array.dims,
            tensor.dims
        ));
    }
    let per_device = tensor.bytes.len() / devices.max(1);
    Ok((0..devices)
        .map(|d| {
            Tensor::new(
                tensor.elem,
                array.dims.to_vec(),
                tensor.bytes[d * per_device..(d + 1) * per_device].to_vec(),
            )
        })
        .collect())
}

/// `value` with at most three decimals and no trailing zeros (`25`, `0.35`).
fn short_number(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The devices' values of one output stacked on a new axis 0.
fn stack<'v>(values: impl Iterator<Item = &'v Value>) -> Option<Tensor> {
    let mut first: Option<&Tensor> = None;
    let mut count = 0i64;
    let mut bytes = Vec::new();
    for value in values {
        let Value::Tensor(tensor) = value else {
            return None;
        };
        first.get_or_insert(tensor);
        bytes.extend_from_slice(&tensor.bytes[..]);
        count += 1;
    }
    let first = first?;
    let mut dims = vec![count];
    dims.extend(&first.dims);
    Some(Tensor::new(first.elem, dims, bytes))
}

/// The program of `source`, through the front end of its format; HLO text
/// keeps its source map so run-time errors can point into it.
fn load(
    args: &RunArgs,
    source: &input::Source,
) -> Result<(Module, Option<weft_ir::text::SourceMap>), String> {
    if InputFormat::of(Some(&args.file), args.input_format) == InputFormat::Mlir {
        use weft_stablehlo::load;
        let body =
            load::parse_verified(&source.text).map_err(|e| e.render(&source.name, &source.text))?;
        // Given inputs fix the shapes the program leaves to run time; only a
        // program that needs them pays for reading them twice.
        let lowered = match load::lower(&body, None) {
            Ok(module) => Ok(module),
            Err(error) if args.inputs.is_empty() => Err(error),
            Err(_) => {
                let inputs = args
                    .inputs
                    .iter()
                    .map(|path| {
                        let bytes = std::fs::read(path)
                            .map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
                        weft_runtime::npy::read(&bytes, None)
                            .map(|tensor| tensor.to_literal())
                            .map_err(|e| format!("error: {}: {e}", path.display()))
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
/// HLO text (a lowered StableHLO program has no HLO text to point into).
fn located(
    error: &weft_runtime::RunError,
    source: &input::Source,
    map: Option<&weft_ir::text::SourceMap>,
) -> String {
    match (error.instr.and_then(|i| map?.instr(i)), &error.instruction) {
        (Some(span), Some(at)) => {
            weft_ir::Diagnostic::error(span, format!("{at}: {}", error.message))
                .render(&source.name, &source.text)
        }
        _ => format!("error: {error}"),
    }
}

fn read_input(
    module: &Module,
    shape: Shape,
    path: &std::path::Path,
    number: usize,
) -> Result<Value, String> {
    let tensor = read_array(module, shape, path, number)?;
    let array = module
        .shapes
        .as_array(shape)
        .expect("read_array checked the parameter is an array");
    if tensor.dims.as_slice() != &*array.dims {
        return Err(format!(
            "error: {}: parameter {number} is {}{:?}, the file holds {:?}",
            path.display(),
            array.elem.name(),
            array.dims,
            tensor.dims
        ));
    }
    Ok(Value::Tensor(tensor))
}

/// The array in `path`, read as parameter `number`'s element type (its
/// shape is the caller's to check).
fn read_array(
    module: &Module,
    shape: Shape,
    path: &std::path::Path,
    number: usize,
) -> Result<Tensor, String> {
    let Some(array) = module.shapes.as_array(shape) else {
        return Err(format!(
            "error: parameter {number} is not an array; it cannot be read from {}",
            path.display()
        ));
    };
    let bytes =
        std::fs::read(path).map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
    weft_runtime::npy::read(&bytes, Some(array.elem))
        .map_err(|e| format!("error: {}: {e}", path.display()))
}

fn random_value(module: &Module, shape: Shape, random: &mut SplitMix64) -> Option<Value> {
    match module.shapes.get(shape) {
        ShapeData::Array(array) => Some(Value::Tensor(weft_runtime::random::tensor(
            random,
            array.elem,
            &array.dims,
        ))),
        ShapeData::Tuple(elements) => elements
            .iter()
            .map(|&e| random_value(module, e, random))
            .collect::<Option<Vec<_>>>()
            .map(Value::Tuple),
        ShapeData::Token => Some(Value::Token),
        _ => None,
    }
}

fn flatten(value: Value, out: &mut Vec<Value>) {
    match value {
        Value::Tuple(elements) => elements.into_iter().for_each(|e| flatten(e, out)),
        other => out.push(other),
    }
}

/// `f32[4,6] min -1.25 max 3.5 mean 0.125` (and NaN/Inf counts when there are
/// any), or the values themselves for small integer and pred arrays.
fn summary(value: &Value) -> String {
    let Value::Tensor(tensor) = value else {
        return value.describe();
    };
    let head = value.describe();
    if tensor.is_empty() {
        return format!("{head} (empty)");
    }
    match decode(tensor) {
        Numbers::Float(values) => {
            let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
            let nan = values.iter().filter(|v| v.is_nan()).count();
            let infinite = values.len() - finite.len() - nan;
            let mut text = if finite.is_empty() {
                format!("{head} (no finite values)")
            } else {
                let min = finite.iter().copied().fold(f64::INFINITY, f64::min);
                let max = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let mean = finite.iter().sum::<f64>() / finite.len() as f64;
                format!("{head} min {min:.6} max {max:.6} mean {mean:.6}")
            };
            if nan > 0 {
                text.push_str(&format!(" nan {nan}"));
            }
            if infinite > 0 {
                text.push_str(&format!(" inf {infinite}"));
            }
            text
        }
        numbers => format!("{head} {}", small_values(tensor, &numbers)),
    }
}

fn small_values(tensor: &Tensor, numbers: &Numbers) -> String {
    const SHOWN: usize = 16;
    let items: Vec<String> = match numbers {
        Numbers::Pred(v) => v.iter().take(SHOWN).map(|b| b.to_string()).collect(),
        Numbers::Signed(v) => v.iter().take(SHOWN).map(i64::to_string).collect(),
        Numbers::Unsigned(v) => v.iter().take(SHOWN).map(u64::to_string).collect(),
        Numbers::Complex(v) => v
            .iter()
            .take(SHOWN)
            .map(|(re, im)| format!("({re}, {im})"))
            .collect(),
        Numbers::Float(_) => Vec::new(),
    };
    let more = if tensor.len() > SHOWN { ", …" } else { "" };
    format!("[{}{more}]", items.join(", "))
}

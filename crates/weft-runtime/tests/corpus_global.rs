//! Conformance of sharded StableHLO programs run from global values: each
//! multi-device JAX program of the shared corpus (`NAME.stablehlo.mlir`, and
//! `async/NAME.async.stablehlo.mlir`, its collectives as async start/done
//! pairs) is lowered to a per-device module, run on its devices with the
//! global inputs `NAME.in<i>.npy` sliced per device by the entry
//! parameters' shardings, and its per-device results reassembled by the
//! entry result shardings must give XLA's global outputs `NAME.out<i>.npy`
//! within the tolerance of their type (see `common::tolerance`).
//!
//! The async programs are XLA's StableHLO conversion of an HLO module that
//! was already per device: the conversion kept the parameters'
//! `mhlo.sharding` but dropped `num_partitions`, and the HLO records no
//! result sharding to convert. For those the manifest supplies what the
//! program does not say (the device count, and the result shardings as
//! JAX's `PartitionSpec` over the mesh), as a caller of the program would.
//!
//! The corpus is read at run time from `../shared/corpus/`; without it the
//! test is skipped with a message.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{compare, corpus_or_skip, dtypes, load, narrowest_float, programs, read_npy};
use libtest_mimic::{Arguments, Failed, Trial};
use weft_ir::Module;
use weft_ir::attrs::Sharding;
use weft_runtime::devices::sharding::{assemble_over_grid, leaf_shardings, shard_over_grid};
use weft_runtime::devices::{Grid, GridOptions, run_grid};
use weft_runtime::{Tensor, Value};

/// Whether `name` runs on several devices: the manifest says so, it has
/// per-device files, or its StableHLO declares several partitions or
/// replicas.
fn is_multi_device(dir: &Path, name: &str, program: &serde_json::Value) -> bool {
    let devices = program
        .get("num_devices")
        .and_then(|n| n.as_i64())
        .unwrap_or(1);
    let declares_devices = |text: &str| {
        ["mhlo.num_partitions = ", "mhlo.num_replicas = "]
            .iter()
            .any(|key| {
                text.split(key).skip(1).any(|rest| {
                    let count: String = rest.chars().take_while(char::is_ascii_digit).collect();
                    count.parse::<i64>().is_ok_and(|n| n > 1)
                })
            })
    };
    devices > 1
        || dir.join(format!("{name}.in0.shards.npy")).exists()
        || std::fs::read_to_string(dir.join(format!("{name}.stablehlo.mlir")))
            .is_ok_and(|text| declares_devices(&text))
}

/// The device grid: the module's, or — for a module that declares none
/// (see the module docs) — the manifest's device count as partitions.
fn grid_of(module: &Module, program: &serde_json::Value) -> Result<Grid, String> {
    let devices = program
        .get("num_devices")
        .and_then(|n| n.as_u64())
        .unwrap_or(1) as usize;
    let grid = Grid {
        replicas: module.config.replicas().max(1) as usize,
        partitions: module.config.num_partitions.unwrap_or(1).max(1) as usize,
    };
    if grid.len() == 1 && devices > 1 {
        return Ok(Grid {
            replicas: 1,
            partitions: devices,
        });
    }
    if grid.len() != devices {
        return Err(format!(
            "the module's grid has {} devices, the program {devices}",
            grid.len()
        ));
    }
    Ok(grid)
}

/// The named sharding of JAX's `PartitionSpec` text (`P('x',)`,
/// `P(None, 'x')`, `P(('x', 'y'),)`) over the manifest's mesh, for an array
/// of rank `rank`.
fn partition_spec_sharding(
    program: &serde_json::Value,
    spec: &str,
    rank: usize,
) -> Result<Sharding, String> {
    let mesh = program
        .get("mesh")
        .and_then(|m| m.as_object())
        .ok_or("the manifest has no mesh for this program")?;
    // The manifest's mesh is a JSON object, read here without its order.
    if mesh.len() != 1 {
        return Err(format!(
            "a mesh of {} axes: their order is not known",
            mesh.len()
        ));
    }
    let axes: Vec<String> = mesh
        .iter()
        .map(|(name, size)| format!("'{name}'={}", size.as_i64().unwrap_or(0)))
        .collect();
    let inner = spec
        .trim()
        .strip_prefix("P(")
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(|| format!("unreadable PartitionSpec {spec}"))?;
    // Top-level entries: None, 'x', or ('x', 'y').
    let mut entries = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in inner.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                entries.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    entries.push(current);
    let mut dims: Vec<String> = entries
        .iter()
        .map(|e| e.trim())
        .filter(|e| !e.is_empty())
        .map(|entry| {
            let names: Vec<&str> = entry
                .trim_matches(|c| c == '(' || c == ')')
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty() && *n != "None")
                .collect();
            format!("{{{}}}", names.join(", "))
        })
        .collect();
    if dims.len() > rank {
        return Err(format!("{spec} has more entries than rank {rank}"));
    }
    dims.resize(rank, "{}".to_string());
    let text = format!("{{mesh[{}], [{}]}}", axes.join(","), dims.join(", "));
    weft_ir::text::parse_sharding(&text).map_err(|d| format!("{text}: {}", d.message))
}

/// The entry result shardings, one per output: the ones the program
/// records on its root, else the manifest's.
fn result_shardings(
    module: &Module,
    program: &serde_json::Value,
    outputs: usize,
) -> Result<Vec<Sharding>, String> {
    let entry = module.entry.ok_or("the module has no entry")?;
    let root = module.comp(entry).root().ok_or("the entry has no root")?;
    if let Some(sharding) = &module.instrs[root].common().sharding {
        return leaf_shardings(sharding, outputs);
    }
    let declared = program
        .get("outputs")
        .and_then(|o| o.as_array())
        .ok_or("the manifest lists no outputs")?;
    declared
        .iter()
        .map(|output| {
            let spec = output
                .get("sharding")
                .and_then(|s| s.as_str())
                .ok_or("an output without a sharding in the manifest")?;
            let rank = output
                .get("shape")
                .and_then(|s| s.as_array())
                .map_or(0, Vec::len);
            partition_spec_sharding(program, spec, rank)
        })
        .collect()
}

fn check(dir: &Path, name: &str, program: &serde_json::Value, file: &Path) -> Result<(), Failed> {
    let module = load(file)?;
    let grid = grid_of(&module, program)?;
    let entry = module.entry.ok_or("the module has no entry")?;
    let params = module.comp(entry).params().to_vec();
    let inputs = dtypes(program, "inputs");
    if inputs.len() != params.len() {
        return Err(format!(
            "the entry takes {} parameters, the program has {} inputs",
            params.len(),
            inputs.len()
        )
        .into());
    }
    let mut arguments: Vec<Vec<Value>> = vec![Vec::new(); grid.len()];
    for (i, (&elem, &param)) in inputs.iter().zip(&params).enumerate() {
        let global = read_npy(&dir.join(format!("{name}.in{i}.npy")), elem)?;
        let local = module
            .shapes
            .as_array(module.shape_of(param))
            .ok_or(format!("parameter {i} is not an array"))?
            .dims
            .to_vec();
        let sharding = module.instrs[param]
            .common()
            .sharding
            .clone()
            .unwrap_or_else(Sharding::replicated);
        let tiles =
            shard_over_grid(&global, &sharding, grid).map_err(|e| format!("input {i}: {e}"))?;
        if tiles[0].dims != local {
            return Err(format!(
                "input {i} is {:?}; its tiles {:?} are not parameter {i}'s shape {local:?}",
                global.dims, tiles[0].dims
            )
            .into());
        }
        for (device, tile) in tiles.into_iter().enumerate() {
            arguments[device].push(Value::Tensor(tile));
        }
    }
    let options = GridOptions {
        timeout: Duration::from_secs(30),
        ..GridOptions::default()
    };
    let evaluations = run_grid(&module, grid, arguments, options).map_err(|e| e.to_string())?;
    let outputs = dtypes(program, "outputs");
    let shardings = result_shardings(&module, program, outputs.len())?;
    let precision = narrowest_float(&module);
    let per_device: Vec<Vec<Value>> = evaluations
        .iter()
        .map(|evaluation| match &evaluation.result {
            Value::Tuple(elements) => elements.clone(),
            single => vec![single.clone()],
        })
        .collect();
    for (i, (&elem, sharding)) in outputs.iter().zip(&shardings).enumerate() {
        let tiles: Vec<Tensor> = per_device
            .iter()
            .enumerate()
            .map(|(device, results)| {
                results
                    .get(i)
                    .and_then(Value::as_tensor)
                    .cloned()
                    .ok_or(format!("device {device} has no array output {i}"))
            })
            .collect::<Result<_, _>>()?;
        let ours =
            assemble_over_grid(&tiles, sharding, grid).map_err(|e| format!("out{i}: {e}"))?;
        let theirs = read_npy(&dir.join(format!("{name}.out{i}.npy")), elem)?;
        compare(&format!("out{i}"), &ours, &theirs, precision)?;
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let (dir, manifest) = corpus_or_skip("corpus_global", &args);
    let passed = std::sync::Arc::new(AtomicUsize::new(0));
    let failures = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let mut trials = Vec::new();
    for (name, program) in programs(&manifest) {
        if !is_multi_device(&dir, &name, &program) {
            continue;
        }
        let files: [PathBuf; 2] = [
            dir.join(format!("{name}.stablehlo.mlir")),
            dir.join("async")
                .join(format!("{name}.async.stablehlo.mlir")),
        ];
        for file in files {
            if !file.exists() {
                continue;
            }
            let label = file
                .strip_prefix(&dir)
                .unwrap_or(&file)
                .display()
                .to_string();
            let (dir, name, program) = (dir.clone(), name.clone(), program.clone());
            let (passed, failures) = (passed.clone(), failures.clone());
            trials.push(Trial::test(format!("global::{label}"), move || {
                let outcome = check(&dir, &name, &program, &file);
                match &outcome {
                    Ok(()) => {
                        passed.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(failed) => {
                        let message = failed.message().unwrap_or("failed");
                        if let Ok(mut failures) = failures.lock() {
                            failures.push(format!("{label}: {message}"));
                        }
                    }
                }
                outcome
            }));
        }
    }
    let total = trials.len();
    let conclusion = libtest_mimic::run(&args, trials);
    // The count covers the trials that ran (all of them without a filter).
    let ran = conclusion.num_passed + conclusion.num_failed;
    if ran == total as u64 {
        eprintln!(
            "corpus_global: {}/{total} programs give XLA's global outputs",
            passed.load(Ordering::Relaxed)
        );
        if let Ok(failures) = failures.lock() {
            for failure in failures.iter() {
                eprintln!("  FAILED {failure}");
            }
        }
    }
    conclusion.exit();
}

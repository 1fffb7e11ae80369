//! Conformance of the N-device runtime on the multi-device JAX programs of
//! the shared corpus: XLA's per-device module (`NAME.spmd.hlo.txt`) and the
//! async variants (`async/NAME.async.hlo.txt`, whose collectives are
//! start/done pairs) run on the program's devices with the recorded
//! per-device inputs (`NAME.in<i>.shards.npy`) and must give XLA's
//! per-device outputs (`NAME.out<i>.shards.npy`) within the tolerance of
//! their type (see `common::tolerance`).
//!
//! The corpus is read at run time from `../shared/corpus/`; without it every
//! trial is skipped with a message.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{compare, corpus_or_skip, dtypes, load, narrowest_float, programs, read_npy};
use libtest_mimic::{Arguments, Failed, Trial};
use weft_runtime::devices::{Grid, GridOptions, run_grid};
use weft_runtime::{Tensor, Value};

/// Device `d`'s slice of a `[devices, …]` array.
fn shard(tensor: &Tensor, device: usize, devices: usize) -> Tensor {
    let size = tensor.bytes.len() / devices;
    Tensor {
        elem: tensor.elem,
        dims: tensor.dims[1..].to_vec(),
        bytes: tensor.bytes[device * size..(device + 1) * size]
            .to_vec()
            .into(),
    }
}

fn check(dir: &Path, name: &str, program: &serde_json::Value, file: &Path) -> Result<(), Failed> {
    let module = load(file)?;
    let devices = program
        .get("num_devices")
        .and_then(|n| n.as_u64())
        .unwrap_or(1) as usize;
    let grid = Grid {
        replicas: module.config.replicas().max(1) as usize,
        partitions: module.config.num_partitions.unwrap_or(1).max(1) as usize,
    };
    if grid.len() != devices {
        return Err(format!(
            "the module's grid has {} devices, the program {devices}",
            grid.len()
        )
        .into());
    }
    let inputs = dtypes(program, "inputs");
    let outputs = dtypes(program, "outputs");
    let mut arguments: Vec<Vec<Value>> = vec![Vec::new(); devices];
    for (i, &elem) in inputs.iter().enumerate() {
        let stacked = read_npy(&dir.join(format!("{name}.in{i}.shards.npy")), elem)?;
        for (device, arguments) in arguments.iter_mut().enumerate() {
            arguments.push(Value::Tensor(shard(&stacked, device, devices)));
        }
    }
    let options = GridOptions {
        timeout: Duration::from_secs(30),
        ..GridOptions::default()
    };
    let evaluations = run_grid(&module, grid, arguments, options).map_err(|e| e.to_string())?;
    let precision = narrowest_float(&module);
    for (i, &elem) in outputs.iter().enumerate() {
        let theirs = read_npy(&dir.join(format!("{name}.out{i}.shards.npy")), elem)?;
        for (device, evaluation) in evaluations.iter().enumerate() {
            let results = match &evaluation.result {
                Value::Tuple(elements) => elements.clone(),
                single => vec![single.clone()],
            };
            let ours = results
                .get(i)
                .and_then(Value::as_tensor)
                .ok_or(format!("device {device} has no array output {i}"))?;
            compare(
                &format!("device {device} out{i}"),
                ours,
                &shard(&theirs, device, devices),
                precision,
            )?;
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let (dir, manifest) = corpus_or_skip("corpus_grid", &args);
    let mut trials = Vec::new();
    for (name, program) in programs(&manifest) {
        if program
            .get("num_devices")
            .and_then(|n| n.as_i64())
            .unwrap_or(1)
            <= 1
        {
            continue;
        }
        for file in [
            dir.join(format!("{name}.spmd.hlo.txt")),
            dir.join("async").join(format!("{name}.async.hlo.txt")),
        ] {
            if !file.exists() || !dir.join(format!("{name}.in0.shards.npy")).exists() {
                continue;
            }
            let label = file
                .strip_prefix(&dir)
                .unwrap_or(&file)
                .display()
                .to_string();
            let (dir, name, program) = (dir.clone(), name.clone(), program.clone());
            trials.push(Trial::test(format!("grid::{label}"), move || {
                check(&dir, &name, &program, &file)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

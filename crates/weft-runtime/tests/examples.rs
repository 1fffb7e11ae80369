//! The bundled overlap examples compute what they claim, in both IRs.
//!
//! - `collective_matmul`: every device's block of Y must be X · W for its
//!   column block of W and the whole X, though no device ever holds all of X
//!   (checked against a plain f64 matmul); the StableHLO program, run from
//!   the global X and W, must give the HLO program's blocks bit for bit.
//! - `dp_train_step`: every device must end with the same weights (the
//!   gradients are summed over all devices), and the StableHLO program, run
//!   from the global batch, must give the HLO program's weights and loss bit
//!   for bit.
//!
//! Runs are unpaced: the link model changes when data arrives, never what
//! it is.

use std::path::Path;

use weft_ir::{ElementType, Module};
use weft_runtime::devices::sharding::shard_over_grid;
use weft_runtime::devices::{Grid, GridOptions, Link, run_grid};
use weft_runtime::random::{SplitMix64, tensor};
use weft_runtime::{Tensor, Value};

const DEVICES: usize = 8;

fn grid() -> Grid {
    Grid {
        replicas: 1,
        partitions: DEVICES,
    }
}

fn load(name: &str) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the example exists");
    if name.ends_with(".mlir") {
        let body = weft_stablehlo::text::parse(&text).expect("the example parses");
        weft_stablehlo::verify(&body).expect("the example verifies");
        weft_stablehlo::lower::lower(&body).expect("the example lowers")
    } else {
        let module = weft_ir::text::parse(&text).expect("the example parses");
        weft_ir::verify(&module).expect("the example verifies");
        module
    }
}

/// Runs `module` on the grid; each device's outputs, flattened.
fn run(module: &Module, arguments: Vec<Vec<Tensor>>) -> Vec<Vec<Tensor>> {
    let options = GridOptions {
        link: Link::UNPACED,
        interconnect: None,
        ..GridOptions::default()
    };
    let arguments = arguments
        .into_iter()
        .map(|device| device.into_iter().map(Value::Tensor).collect())
        .collect();
    run_grid(module, grid(), arguments, options)
        .expect("the example runs")
        .into_iter()
        .map(|evaluation| match evaluation.result {
            Value::Tuple(elements) => elements
                .into_iter()
                .map(|e| e.as_tensor().expect("an array output").clone())
                .collect(),
            Value::Tensor(t) => vec![t],
            other => panic!("unexpected output {}", other.describe()),
        })
        .collect()
}

/// Every device's tiles of `globals` under the lowered module's parameter
/// shardings.
fn shard(module: &Module, globals: &[Tensor]) -> Vec<Vec<Tensor>> {
    let entry = module.entry.expect("an entry");
    let mut per_device = vec![Vec::new(); DEVICES];
    for (global, &param) in globals.iter().zip(module.comp(entry).params()) {
        let sharding = module.instrs[param]
            .common()
            .sharding
            .clone()
            .expect("the lowered parameter records its sharding");
        for (device, tile) in shard_over_grid(global, &sharding, grid())
            .expect("the value splits")
            .into_iter()
            .enumerate()
        {
            per_device[device].push(tile);
        }
    }
    per_device
}

/// `parts` joined along `dimension` (0 or 1) of 2-D f32 arrays.
fn join(parts: &[Tensor], dimension: usize) -> Tensor {
    let rows: i64 = if dimension == 0 {
        parts.iter().map(|p| p.dims[0]).sum()
    } else {
        parts[0].dims[0]
    };
    let columns: i64 = if dimension == 1 {
        parts.iter().map(|p| p.dims[1]).sum()
    } else {
        parts[0].dims[1]
    };
    let mut bytes = Vec::with_capacity((rows * columns * 4) as usize);
    if dimension == 0 {
        for part in parts {
            bytes.extend_from_slice(&part.bytes);
        }
    } else {
        for row in 0..rows as usize {
            for part in parts {
                let width = part.dims[1] as usize * 4;
                bytes.extend_from_slice(&part.bytes[row * width..(row + 1) * width]);
            }
        }
    }
    Tensor::new(ElementType::F32, vec![rows, columns], bytes)
}

fn values(t: &Tensor) -> Vec<f32> {
    weft_runtime::tensor::f32_values(&t.bytes)
}

#[test]
fn collective_matmul_multiplies_without_gathering() {
    let hlo = load("collective_matmul.hlo");
    let mut random = SplitMix64::new(7);
    let rows: Vec<Tensor> = (0..DEVICES)
        .map(|_| tensor(&mut random, ElementType::F32, &[128, 512]))
        .collect();
    let columns: Vec<Tensor> = (0..DEVICES)
        .map(|_| tensor(&mut random, ElementType::F32, &[512, 256]))
        .collect();
    let arguments = (0..DEVICES)
        .map(|d| vec![rows[d].clone(), columns[d].clone()])
        .collect();
    let blocks: Vec<Tensor> = run(&hlo, arguments)
        .into_iter()
        .map(|mut outputs| outputs.remove(0))
        .collect();

    let x = values(&join(&rows, 0));
    for (device, block) in blocks.iter().enumerate() {
        assert_eq!(block.dims, vec![1024, 256]);
        let w = values(&columns[device]);
        let y = values(block);
        for i in 0..1024 {
            for j in 0..256 {
                let expected: f64 = (0..512)
                    .map(|k| f64::from(x[i * 512 + k]) * f64::from(w[k * 256 + j]))
                    .sum();
                let got = f64::from(y[i * 256 + j]);
                assert!(
                    (got - expected).abs() <= 1e-3 * (1.0 + expected.abs()),
                    "device {device}: Y[{i},{j}] = {got}, expected {expected}"
                );
            }
        }
    }

    let stablehlo = load("collective_matmul.stablehlo.mlir");
    let global_x = join(&rows, 0);
    let global_w = join(&columns, 1);
    let outputs = run(&stablehlo, shard(&stablehlo, &[global_x, global_w]));
    for (device, mut outputs) in outputs.into_iter().enumerate() {
        assert_eq!(
            outputs.remove(0),
            blocks[device],
            "device {device}: the StableHLO program's block differs from the HLO program's"
        );
    }
}

#[test]
fn data_parallel_step_agrees_across_devices_and_irs() {
    let hlo = load("dp_train_step.hlo");
    let mut random = SplitMix64::new(11);
    let batches: Vec<Tensor> = (0..DEVICES)
        .map(|_| tensor(&mut random, ElementType::F32, &[128, 512]))
        .collect();
    let targets: Vec<Tensor> = (0..DEVICES)
        .map(|_| tensor(&mut random, ElementType::F32, &[128, 256]))
        .collect();
    let weights = [
        tensor(&mut random, ElementType::F32, &[512, 1024]),
        tensor(&mut random, ElementType::F32, &[1024, 1024]),
        tensor(&mut random, ElementType::F32, &[1024, 256]),
    ];
    let arguments = (0..DEVICES)
        .map(|d| {
            let mut device = vec![batches[d].clone(), targets[d].clone()];
            device.extend(weights.iter().cloned());
            device
        })
        .collect();
    let per_device = run(&hlo, arguments);
    for (device, outputs) in per_device.iter().enumerate().skip(1) {
        assert_eq!(
            outputs, &per_device[0],
            "device {device} ends the step with other weights or loss than device 0"
        );
    }
    // The step moved the weights.
    assert_ne!(per_device[0][2], weights[2]);

    let stablehlo = load("dp_train_step.stablehlo.mlir");
    let mut globals = vec![join(&batches, 0), join(&targets, 0)];
    globals.extend(weights.iter().cloned());
    let outputs = run(&stablehlo, shard(&stablehlo, &globals));
    for (device, outputs) in outputs.iter().enumerate() {
        assert_eq!(
            outputs, &per_device[0],
            "device {device}: the StableHLO step differs from the HLO step"
        );
    }
}

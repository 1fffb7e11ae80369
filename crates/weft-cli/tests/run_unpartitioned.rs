//! A program written before SPMD partitioning (global shapes, `sharding=`
//! requests for XLA's partitioner) is refused on several devices before any
//! input is read, with what gave it away and a pointer at the per-device HLO
//! XLA compiles; on one device it still runs, its global values being the
//! device's. The per-device programs XLA compiles are not refused. The
//! StableHLO lowering's refusal of automatic partitioning points at the same
//! route.

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::Scratch;

/// What JAX's `jax.jit(f).lower(x, w).as_text(dialect="hlo")` writes for
/// `tanh(x @ w)` with `x` and `w` split over 2 devices: global shapes, no
/// `num_partitions`, Shardy's meshes and its result-sharding custom call.
const SHARDY_BEFORE: &str = r#"HloModule jit_layer, entry_computation_layout={(f32[4,8]{1,0}, f32[8,2]{1,0})->f32[4,2]{1,0}}, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["i"=2]>}}

ENTRY main.1 {
  x.1 = f32[4,8]{1,0} parameter(0), sharding={devices=[1,2]<=[2]}, metadata={op_name="x"}
  w.1 = f32[8,2]{1,0} parameter(1), sharding={devices=[2,1]<=[2]}, metadata={op_name="w"}
  dot_general.1 = f32[4,2]{1,0} dot(x.1, w.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  tanh.2 = f32[4,2]{1,0} tanh(dot_general.1)
  tanh.3 = f32[4,2]{1,0} custom-call(tanh.2), custom_call_target="xla.sdy.FuncResultSharding", custom_call_has_side_effect=true
  tuple.1 = (f32[4,2]{1,0}) tuple(tanh.3)
  ROOT get-tuple-element.1 = f32[4,2]{1,0} get-tuple-element(tuple.1), index=0, sharding={devices=[2,1]<=[2]}
}
"#;

/// A GSPMD program with no custom call at all: only its split parameter and
/// the missing `num_partitions` say it is global.
const GSPMD_BEFORE: &str = r#"HloModule jit_negate

ENTRY main.1 {
  x.1 = f32[4,2]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}, metadata={op_name="x"}
  ROOT negate.1 = f32[4,2]{1,0} negate(x.1), sharding={devices=[2,1]<=[2]}
}
"#;

/// The same negation as XLA compiles it: per-device shapes, `num_partitions`.
const COMPILED: &str = r#"HloModule jit_negate, is_scheduled=true, entry_computation_layout={(f32[2,2]{1,0})->f32[2,2]{1,0}}, num_partitions=2

ENTRY %main.0_spmd (param: f32[2,2]) -> f32[2,2] {
  %param = f32[2,2]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}, metadata={op_name="x"}
  ROOT %negate = f32[2,2]{1,0} negate(%param)
}
"#;

/// A sharded StableHLO program that transposes a split value outside any
/// manual computation: only XLA's partitioner could say how.
const AUTOMATIC_MLIR: &str = r#"module @jit_t attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=2]>
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}) -> tensor<2x4xf32> {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x2xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
"#;

fn weft(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(arguments)
        .output()
        .expect("weft runs")
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

fn write(dir: &Scratch, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("writes the program");
    path
}

fn assert_stderr_has(output: &Output, expected: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    for text in expected {
        assert!(stderr.contains(text), "missing {text:?} in:\n{stderr}");
    }
}

/// What every refusal says about the route to a per-device program.
const ROUTE: &str = "`jax.jit(f).lower(…).compile().as_text()`";

#[test]
fn a_partitioner_annotation_is_refused_on_several_devices() {
    let dir = Scratch::new("run-unpartitioned", "shardy");
    let program = write(&dir, "layer.hlo", SHARDY_BEFORE);
    // Inputs are not even read: the file does not exist.
    let output = weft(&[
        "run",
        path_str(&program),
        "--devices",
        "2",
        "--inputs",
        "missing_x.npy",
        "missing_w.npy",
    ]);
    assert!(!output.status.success());
    assert_stderr_has(
        &output,
        &[
            "main.1/%tanh.3: custom-call target \"xla.sdy.FuncResultSharding\" is an annotation for XLA's SPMD partitioner",
            "would need automatic SPMD partitioning",
            "layer.hlo:8:3",
            ROUTE,
        ],
    );
}

#[test]
fn a_split_parameter_without_num_partitions_is_refused_by_name() {
    let dir = Scratch::new("run-unpartitioned", "gspmd");
    let program = write(&dir, "negate.hlo", GSPMD_BEFORE);
    let output = weft(&["run", path_str(&program), "--devices", "2"]);
    assert!(!output.status.success());
    assert_stderr_has(
        &output,
        &[
            "parameter 0 (x, %x.1) is f32[4,2] with sharding={devices=[2,1]<=[2]}, and the module declares no num_partitions",
            "negate.hlo:4:3",
            ROUTE,
            "declare its partitions on the HloModule line (`num_partitions=2`)",
        ],
    );
}

#[test]
fn on_one_device_the_global_program_runs() {
    let dir = Scratch::new("run-unpartitioned", "one_device");
    for (name, text) in [("layer.hlo", SHARDY_BEFORE), ("negate.hlo", GSPMD_BEFORE)] {
        let program = write(&dir, name, text);
        let output = weft(&["run", path_str(&program)]);
        assert!(
            output.status.success(),
            "{name}:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(String::from_utf8_lossy(&output.stdout).contains("out0: f32[4,2]"));
    }
}

#[test]
fn the_per_device_program_xla_compiles_runs() {
    let dir = Scratch::new("run-unpartitioned", "compiled");
    let program = write(&dir, "negate.compiled.hlo", COMPILED);
    let output = weft(&["run", path_str(&program), "--link", "unpaced"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Random global inputs, tiled over the two partitions.
    assert!(String::from_utf8_lossy(&output.stdout).contains("2 devices"));
}

#[test]
fn the_lowering_points_automatic_partitioning_at_the_compiled_hlo() {
    let dir = Scratch::new("run-unpartitioned", "mlir");
    let program = write(&dir, "transpose.mlir", AUTOMATIC_MLIR);
    let output = weft(&["convert", path_str(&program), "--to", "hlo"]);
    assert!(!output.status.success());
    assert_stderr_has(
        &output,
        &[
            "which would need automatic SPMD partitioning",
            "put the computation inside shard_map",
            ROUTE,
        ],
    );
}

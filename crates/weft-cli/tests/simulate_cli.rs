//! `weft simulate` agrees with `weft run --timing virtual`: the same step
//! time and the same figures per device, to the nanosecond, on the bundled
//! examples, on a scheduled program under a topology, on a program whose
//! devices fall into several equivalence classes, and on multi-device JAX
//! programs of the shared corpus (skipped with a message when it is
//! absent). It simulates 4096 devices as one class, and says clearly what
//! it cannot simulate.

mod common;

use common::{test_profile, weft_uncalibrated};

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

/// The JSON summary of `weft COMMAND FILE ARGS --format json`.
fn summary(command: &str, file: &Path, args: &[&str]) -> Json {
    let mut weft = weft_uncalibrated();
    weft.arg(command)
        .arg(file)
        .args(["--format", "json", "--profile", &test_profile()]);
    if command == "run" {
        weft.args(["--timing", "virtual"]);
    }
    let output = weft.args(args).output().expect("weft runs");
    assert!(
        output.status.success(),
        "weft {command} {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the summary is JSON")
}

/// `weft run --timing virtual` and `weft simulate` give the same step time,
/// the same figures on every device and the same per-collective report.
/// Returns the simulation's summary.
fn assert_agree(file: &Path, args: &[&str]) -> Json {
    let run = summary("run", file, args);
    let simulated = summary("simulate", file, args);
    let name = file.display();
    assert_eq!(
        run["step_time_ms"], simulated["step_time_ms"],
        "{name}: step time"
    );
    assert_eq!(
        run["per_device"], simulated["per_device"],
        "{name}: devices"
    );
    assert_eq!(run["total"], simulated["total"], "{name}: total");
    assert_eq!(
        run["collectives"], simulated["collectives"],
        "{name}: collectives"
    );
    assert_eq!(run["critical_device"], simulated["critical_device"]);
    simulated
}

#[test]
fn the_examples_agree_with_a_virtual_run() {
    for example in [
        "collective_matmul.hlo",
        "dp_train_step.hlo",
        "overlap_allreduce.async.hlo",
        "overlap_allreduce.sync.hlo",
    ] {
        let summary = assert_agree(&common::example(example), &[]);
        assert_eq!(summary["classes"].as_array().map(Vec::len), Some(1));
    }
}

#[test]
fn a_scheduled_program_agrees_under_a_topology() {
    let scratch = common::Scratch::new("simulate", "scheduled");
    let scheduled = scratch.join("scheduled.hlo");
    common::succeeded(
        weft_uncalibrated()
            .arg("opt")
            .arg(common::example("dp_train_step.hlo"))
            .args([
                "--passes",
                "async-collective-creator,hlo-memory-scheduler,latency-hiding-scheduler",
                "-o",
            ])
            .arg(&scheduled),
    );
    for args in [
        &["--topology", "nodes:4"][..],
        &["--topology", "ring:8", "--collective-algorithm", "best"],
        &["--link-bandwidth", "0.5", "--link-latency", "20"],
    ] {
        assert_agree(&scheduled, args);
    }
}

/// 16 devices in uneven groups on two nodes: the group that spans both
/// nodes is slower, and the devices that meet it afterwards inherit its
/// lateness, so the devices fall into several classes.
const UNEVEN: &str = r#"HloModule uneven, replica_count=16

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT sum = f32[] add(x, y)
}

ENTRY main {
  p = f32[4096] parameter(0)
  first = f32[4096] all-reduce(p), replica_groups={{0,1,2,3},{4,5,6,7,8,9,10,11},{12,13,14,15}}, to_apply=add
  scaled = f32[4096] multiply(first, first)
  second = f32[4096] all-reduce(scaled), replica_groups={{0,4},{1,5},{2,6},{3,7},{8,12},{9,13},{10,14},{11,15}}, to_apply=add
  shifted = f32[4096] collective-permute(second), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  ROOT out = f32[4096] add(shifted, second)
}
"#;

#[test]
fn devices_in_several_classes_agree_device_by_device() {
    let scratch = common::Scratch::new("simulate", "uneven");
    let file = scratch.join("uneven.hlo");
    std::fs::write(&file, UNEVEN).expect("written");
    let summary = assert_agree(&file, &["--topology", "nodes:8"]);
    let classes = summary["classes"].as_array().expect("classes").len();
    assert!(classes > 2, "{classes} classes");
    assert!(classes < 16, "{classes} classes");
    let waits: Vec<f64> = summary["per_device"]
        .as_array()
        .expect("devices")
        .iter()
        .map(|d| d["wait_ms"].as_f64().expect("a number"))
        .collect();
    assert!(waits.iter().any(|&w| w > 0.0), "someone waits: {waits:?}");
}

/// The multi-device JAX programs of the shared corpus, lowered to HLO.
#[test]
fn corpus_programs_agree_with_a_virtual_run() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/jax");
    if !corpus.is_dir() {
        eprintln!("skipped: the shared corpus is not at {}", corpus.display());
        return;
    }
    let scratch = common::Scratch::new("simulate", "corpus");
    let mut compared = 0;
    for name in [
        "collective_matmul_loop",
        "dp_grad_accum_scan",
        "ring_attention",
        "megatron_tp_mlp_fwd",
        "mlp_dp_train_step",
        "ppermute_ring_f32",
        "ppermute_pairs_partial_i32",
        "psum_scatter_f32",
        "all_to_all_f32",
    ] {
        let source = corpus.join(format!("{name}.stablehlo.mlir"));
        if !source.is_file() {
            eprintln!("skipped: {} is absent", source.display());
            continue;
        }
        let lowered = scratch.join(&format!("{name}.hlo"));
        let output = weft_uncalibrated()
            .arg("opt")
            .arg(&source)
            .args(["--emit", "hlo", "-o"])
            .arg(&lowered)
            .output()
            .expect("weft runs");
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_agree(&lowered, &[]);
        assert_agree(&lowered, &["--topology", "ring:8"]);
        compared += 1;
    }
    eprintln!("{compared} corpus programs agree");
}

#[test]
fn four_thousand_devices_are_one_class() {
    let example = common::example("simulate_4096.hlo");
    let started = std::time::Instant::now();
    let summary = summary("simulate", &example, &[]);
    eprintln!("4096 devices simulated in {:?}", started.elapsed());
    assert_eq!(summary["devices"], 4096);
    assert_eq!(summary["per_device"].as_array().map(Vec::len), Some(4096));
    let classes = summary["classes"].as_array().expect("classes");
    assert_eq!(classes.len(), 1, "{classes:?}");
    assert_eq!(classes[0]["devices"], "0-4095");
    let collectives = summary["collectives"].as_array().expect("collectives");
    let runs: Vec<&Json> = collectives.iter().map(|c| &c["runs"]).collect();
    assert_eq!(runs, [10, 10], "ten iterations of the loop");
    let peers: Vec<&Json> = collectives.iter().map(|c| &c["peers"]).collect();
    assert_eq!(peers, [512, 8], "data- then tensor-parallel groups");
    // The async data-parallel all-reduce hides behind the layer's compute.
    let device = &summary["per_device"][4095];
    assert!(device["exposed_ms"].as_f64() < device["communication_ms"].as_f64());

    let text = weft_uncalibrated()
        .arg("simulate")
        .arg(&example)
        .args(["--profile", &test_profile(), "--topology", "nodes:8"])
        .output()
        .expect("weft runs");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("4096 devices in 1 equivalence class"),
        "{text}"
    );
    assert!(text.contains("0-4095 (4096 devices)"), "{text}");
    assert!(text.lines().count() < 12, "a compact table: {text}");
}

#[test]
fn a_trace_has_a_process_per_class() {
    let scratch = common::Scratch::new("simulate", "trace");
    let file = scratch.join("uneven.hlo");
    std::fs::write(&file, UNEVEN).expect("written");
    let trace = scratch.join("trace.json");
    common::succeeded(
        weft_uncalibrated()
            .arg("simulate")
            .arg(&file)
            .args([
                "--profile",
                &test_profile(),
                "--topology",
                "nodes:8",
                "--trace",
            ])
            .arg(&trace),
    );
    let text = std::fs::read_to_string(&trace).expect("a trace");
    weft_runtime::devices::trace::check_nesting(&text).expect("a well-formed trace");
    assert!(text.contains("\"class 0: devices 0-3"), "{text}");
}

#[test]
fn a_loop_without_a_trip_count_is_an_error_with_a_hint() {
    let scratch = common::Scratch::new("simulate", "uncounted");
    let file = scratch.join("uncounted.hlo");
    std::fs::write(
        &file,
        r#"HloModule uncounted, replica_count=2

condition {
  x = f32[] parameter(0)
  limit = f32[] constant(100)
  ROOT more = pred[] compare(x, limit), direction=LT
}

body {
  x = f32[] parameter(0)
  ROOT doubled = f32[] add(x, x)
}

ENTRY main {
  p = f32[] parameter(0)
  ROOT loop = f32[] while(p), condition=condition, body=body
}
"#,
    )
    .expect("written");
    let output = weft_uncalibrated()
        .arg("simulate")
        .arg(&file)
        .output()
        .expect("weft runs");
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("uncounted.hlo:16:"), "{error}");
    assert!(error.contains("main/%loop"), "{error}");
    assert!(error.contains("--trip-count N"), "{error}");
    common::succeeded(weft_uncalibrated().arg("simulate").arg(&file).args([
        "--trip-count",
        "7",
        "--format",
        "json",
    ]));
}

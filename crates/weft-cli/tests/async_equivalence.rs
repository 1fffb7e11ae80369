//! Making collectives asynchronous changes when they run, never what they
//! compute: every multi-device JAX program of the shared corpus, lowered to
//! HLO, is run on its devices as it is and after `async-collective-creator`
//! (every kind converted), from the same seeded inputs, and every output
//! must be bit-identical. The async form must really be different: start/done
//! pairs where the program had collectives.
//!
//! `weft opt --pipeline async` keeps the bits too, and never makes a step
//! slower under the link model (the examples written synchronously are
//! checked even without the corpus).
//!
//! Skips, saying why, when the corpus is absent.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::Scratch;

const CONVERT_ALL: &str = "async-collective-creator{convert=all-reduce,all-gather,collective-permute,all-to-all,reduce-scatter,collective-broadcast,ragged-all-to-all}";

fn weft(args: &[&dyn AsRef<std::ffi::OsStr>]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
    for arg in args {
        command.arg(arg);
    }
    command.output().expect("weft runs")
}

fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read(e.path()).expect("readable"),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn async_collectives_compute_what_sync_ones_do() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/jax");
    let manifest = corpus.join("manifest.json");
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        eprintln!("skipped: {} is absent", manifest.display());
        return;
    };
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let scratch = Scratch::new("async_equivalence", "jax");
    let mut compared = 0;
    let mut converted = 0;
    for program in manifest["programs"].as_array().expect("programs") {
        let devices = program["num_devices"].as_u64().unwrap_or(1);
        let Some(mlir) = program["files"]["stablehlo.mlir"].as_str() else {
            continue;
        };
        if devices < 2 {
            continue;
        }
        let name = program["name"].as_str().expect("a name");
        let source: PathBuf = corpus.join(mlir);
        let sync_hlo = scratch.join(&format!("{name}.sync.hlo"));
        let async_hlo = scratch.join(&format!("{name}.async.hlo"));
        for (file, passes) in [(&sync_hlo, ""), (&async_hlo, CONVERT_ALL)] {
            let made = weft(&[
                &"opt",
                &source,
                &"--emit",
                &"hlo",
                &"--verify-each",
                &"--passes",
                &passes,
                &"-o",
                file,
            ]);
            assert!(
                made.status.success(),
                "{name}: weft opt --passes '{passes}': {}",
                String::from_utf8_lossy(&made.stderr)
            );
        }
        let async_text = std::fs::read_to_string(&async_hlo).expect("written");
        if async_text.contains("-start") {
            converted += 1;
        }
        let mut results = Vec::new();
        for (form, file) in [("sync", &sync_hlo), ("async", &async_hlo)] {
            let out = scratch.join(&format!("{name}.{form}.out"));
            let ran = weft(&[&"run", file, &"--seed", &"7", &"--out", &out]);
            assert!(
                ran.status.success(),
                "{name} ({form}): {}",
                String::from_utf8_lossy(&ran.stderr)
            );
            results.push(outputs(&out));
        }
        assert!(!results[0].is_empty(), "{name}: no outputs written");
        assert!(
            results[0] == results[1],
            "{name}: the async program's outputs differ from the synchronous program's"
        );
        compared += 1;
    }
    eprintln!("{compared} programs compared, {converted} with async collectives");
    assert!(compared > 0 && converted > 0, "nothing was compared");
}

/// The step time `weft run` reports for `file` (virtual timing, the default
/// link), with its outputs written to `out`.
fn step_time(file: &Path, out: &Path) -> f64 {
    let ran = weft(&[
        &"run",
        &file,
        &"--seed",
        &"7",
        &"--timing",
        &"virtual",
        &"--format",
        &"json",
        &"--out",
        &out,
    ]);
    assert!(
        ran.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&ran.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&ran.stdout).expect("a JSON report");
    report["step_time_ms"].as_f64().expect("a step time")
}

/// `weft opt --pipeline async` — every collective asynchronous, scheduled
/// to overlap — verifies, computes the same bits as the synchronous program
/// and is never slower under the link model: on every multi-device JAX
/// program of the corpus and on the examples written synchronously.
#[test]
fn the_async_pipeline_keeps_results_and_is_never_slower() {
    let scratch = Scratch::new("async_equivalence", "pipeline");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut programs: Vec<(String, PathBuf)> = [
        "dp_train_step.sync.hlo",
        "collective_matmul.sync.hlo",
        "overlap_allreduce.sync.hlo",
    ]
    .iter()
    .map(|name| (name.to_string(), examples.join(name)))
    .collect();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/jax");
    match std::fs::read_to_string(corpus.join("manifest.json")) {
        Ok(text) => {
            let manifest: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            for program in manifest["programs"].as_array().expect("programs") {
                let devices = program["num_devices"].as_u64().unwrap_or(1);
                let Some(mlir) = program["files"]["stablehlo.mlir"].as_str() else {
                    continue;
                };
                if devices >= 2 {
                    let name = program["name"].as_str().expect("a name").to_string();
                    programs.push((name, corpus.join(mlir)));
                }
            }
        }
        Err(_) => eprintln!(
            "the JAX corpus ({}) is absent: only the examples are checked",
            corpus.display()
        ),
    }
    let mut faster = 0;
    for (name, source) in &programs {
        let sync_hlo = scratch.join(&format!("{name}.sync.hlo"));
        let async_hlo = scratch.join(&format!("{name}.async.hlo"));
        for (file, pipeline) in [(&sync_hlo, None), (&async_hlo, Some("async"))] {
            let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![
                &"opt",
                source,
                &"--emit",
                &"hlo",
                &"--verify-each",
                &"-o",
                file,
            ];
            if let Some(pipeline) = &pipeline {
                args.push(&"--pipeline");
                args.push(pipeline);
            }
            let made = weft(&args);
            assert!(
                made.status.success(),
                "{name}: weft opt --pipeline {pipeline:?}: {}",
                String::from_utf8_lossy(&made.stderr)
            );
        }
        let sync_out = scratch.join(&format!("{name}.sync.out"));
        let async_out = scratch.join(&format!("{name}.async.out"));
        let sync_time = step_time(&sync_hlo, &sync_out);
        let async_time = step_time(&async_hlo, &async_out);
        assert!(!outputs(&sync_out).is_empty(), "{name}: no outputs written");
        assert!(
            outputs(&sync_out) == outputs(&async_out),
            "{name}: the async pipeline's outputs differ from the synchronous program's"
        );
        assert!(
            async_time <= sync_time * (1.0 + 1e-9),
            "{name}: the async pipeline made the step slower: {async_time} ms against {sync_time} ms"
        );
        if async_time < sync_time * 0.99 {
            faster += 1;
        }
        eprintln!(
            "{name}: {sync_time:.3} ms synchronous, {async_time:.3} ms after --pipeline async"
        );
    }
    eprintln!(
        "{} programs, {faster} faster after --pipeline async",
        programs.len()
    );
    assert!(faster >= 3, "the pipeline made too few programs faster");
}

/// At scale too: the 4096-device example, simulated on a public profile's
/// torus, is never slower after `--pipeline async` priced on that machine
/// (its tensor-parallel all-reduce, queued behind the data-parallel one on
/// the async stream, would be; the pipeline leaves it synchronous).
#[test]
fn the_async_pipeline_is_never_slower_at_4096_devices() {
    let scratch = Scratch::new("async_equivalence", "at_scale");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/simulate_4096.hlo");
    let scheduled = scratch.join("simulate_4096.async.hlo");
    let machine: [&dyn AsRef<std::ffi::OsStr>; 4] = [
        &"--profile",
        &"tpu-v5e",
        &"--topology",
        &"torus:64x64:link=50GB/s,1us",
    ];
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
        vec![&"opt", &example, &"--pipeline", &"async", &"-o", &scheduled];
    args.extend(machine);
    let made = weft(&args);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let simulated = |file: &PathBuf| {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
            vec![&"simulate", file, &"--format", &"json"];
        args.extend(machine);
        let ran = weft(&args);
        assert!(
            ran.status.success(),
            "{}",
            String::from_utf8_lossy(&ran.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&ran.stdout).expect("JSON");
        report["step_time_ms"].as_f64().expect("a step time")
    };
    let written = simulated(&example);
    let pipelined = simulated(&scheduled);
    eprintln!("4096 devices: {written:.3} ms as written, {pipelined:.3} ms after --pipeline async");
    assert!(pipelined <= written * (1.0 + 1e-9));
}

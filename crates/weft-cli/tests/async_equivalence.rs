//! Making collectives asynchronous changes when they run, never what they
//! compute: every multi-device JAX program of the shared corpus, lowered to
//! HLO, is run on its devices as it is and after `async-collective-creator`
//! (every kind converted), from the same seeded inputs, and every output
//! must be bit-identical. The async form must really be different: start/done
//! pairs where the program had collectives.
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

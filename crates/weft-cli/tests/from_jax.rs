//! The README's "From JAX" route, end to end: `examples/from_jax/export.py`
//! writes a shard_map program's StableHLO and a jit program's compiled HLO
//! with their inputs and JAX's results; `weft run` runs both, from global and
//! from per-device inputs, and `examples/from_jax/compare.py` finds weft's
//! outputs equal to JAX's.
//!
//! Opt-in: it needs a Python with jax (0.10), named by the environment
//! variable `WEFT_JAX_PYTHON`. Without one the test says why it skips, and
//! passes.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::Scratch;

/// The sharding of jit.hlo's result, rows split over the 8 devices (what
/// export.py prints).
const JIT_RESULT_SHARDING: &str = "{devices=[8,1]<=[8]}";

/// The Python with jax, or why the test skips.
fn jax_python() -> Result<OsString, String> {
    let python = std::env::var_os("WEFT_JAX_PYTHON")
        .ok_or("set WEFT_JAX_PYTHON to a Python with jax to run it")?;
    let probe = Command::new(&python)
        .args(["-c", "import jax"])
        .output()
        .map_err(|e| format!("{} does not start: {e}", python.to_string_lossy()))?;
    if !probe.status.success() {
        return Err(format!(
            "{} cannot import jax:\n{}",
            python.to_string_lossy(),
            String::from_utf8_lossy(&probe.stderr)
        ));
    }
    Ok(python)
}

fn example(name: &str) -> PathBuf {
    common::example("from_jax").join(name)
}

fn succeeded(what: &str, output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "{what} failed:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn weft_run(program: &Path, arguments: &[&Path], flags: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .arg(program)
        .arg("--inputs")
        .args(arguments)
        .args(flags)
        .output()
        .expect("weft runs")
}

#[test]
fn jax_programs_run_in_weft_and_agree_with_jax() {
    let python = match jax_python() {
        Ok(python) => python,
        Err(why) => {
            eprintln!("skipping the From JAX test: {why}");
            return;
        }
    };
    let dir = Scratch::new("from-jax", "readme");
    let out = dir.join("exported");
    let exported = Command::new(&python)
        .arg(example("export.py"))
        .arg(&out)
        .output()
        .expect("python runs");
    let printed = succeeded("export.py", &exported);
    assert!(printed.contains(JIT_RESULT_SHARDING), "{printed}");
    let file = |name: &str| out.join(name);
    let runs: [(&str, &str, [&str; 2], &[&str]); 3] = [
        ("shard_map", "shard_map.mlir", ["x.npy", "w.npy"], &[]),
        (
            "jit",
            "jit.hlo",
            ["x.npy", "w.npy"],
            &["--out-sharding", JIT_RESULT_SHARDING],
        ),
        (
            "jit",
            "jit.hlo",
            ["x.shards.npy", "w.shards.npy"],
            &["--out-sharding", JIT_RESULT_SHARDING],
        ),
    ];
    for (index, (program, source, inputs, flags)) in runs.into_iter().enumerate() {
        let results = dir.join(&format!("results{index}"));
        let mut flags = flags.to_vec();
        flags.extend(["--out", results.to_str().expect("a UTF-8 path")]);
        let inputs = [file(inputs[0]), file(inputs[1])];
        let output = weft_run(
            &file(source),
            &[inputs[0].as_path(), inputs[1].as_path()],
            &flags,
        );
        let stdout = succeeded(&format!("weft run {source}"), &output);
        assert!(
            stdout.contains("out0: f32[16,32]") && stdout.contains("(global)"),
            "{stdout}"
        );
        let compared = Command::new(&python)
            .arg(example("compare.py"))
            .arg(file(&format!("{program}.expected.npy")))
            .arg(results.join("out0.npy"))
            .output()
            .expect("python runs");
        let verdict = succeeded(&format!("compare.py on {source}'s output"), &compared);
        assert!(verdict.contains("agrees"), "{verdict}");
    }
    // XLA's compiled HLO names the parameters as JAX did; inputs out of
    // order are caught by those names.
    let output = weft_run(&file("jit.hlo"), &[&file("w.npy"), &file("x.npy")], &[]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("parameter 0 (x, %param)")
            && stderr.contains("wrong order? it matches parameter 1 (w, %param.1)"),
        "{stderr}"
    );
}

//! Conformance of the evaluator on the single-device JAX programs of the
//! shared corpus: each program's three forms — XLA's per-device module
//! (`NAME.spmd.hlo.txt`), its optimized module (`NAME.opt.plain.hlo.txt`) and
//! JAX's StableHLO (`NAME.stablehlo.mlir`, lowered by weft) — run on the
//! recorded inputs and must give XLA's recorded outputs: integers, `pred` and
//! data movement exactly, floats within the tolerance of their type
//! ([`tolerance`]).
//!
//! The corpus is read at run time from `../shared/corpus/`; without it every
//! trial is skipped with a message. The manifest is read with `serde_json`.

mod common;

use std::path::Path;

use common::{compare, corpus_or_skip, dtypes, load, narrowest_float, programs, read_npy};
use libtest_mimic::{Arguments, Failed, Trial};
use weft_runtime::Value;

fn check(dir: &Path, name: &str, program: &serde_json::Value, file: &Path) -> Result<(), Failed> {
    let module = load(file)?;
    let inputs = dtypes(program, "inputs");
    let outputs = dtypes(program, "outputs");
    let arguments = inputs
        .iter()
        .enumerate()
        .map(|(i, &elem)| read_npy(&dir.join(format!("{name}.in{i}.npy")), elem).map(Value::Tensor))
        .collect::<Result<Vec<_>, _>>()?;
    let result = weft_runtime::evaluate(&module, arguments).map_err(|e| e.to_string())?;
    let results = match result {
        Value::Tuple(elements) => elements,
        single => vec![single],
    };
    if results.len() != outputs.len() {
        return Err(format!("{} outputs, XLA recorded {}", results.len(), outputs.len()).into());
    }
    for (i, (ours, &elem)) in results.iter().zip(&outputs).enumerate() {
        let theirs = read_npy(&dir.join(format!("{name}.out{i}.npy")), elem)?;
        let ours = ours
            .as_tensor()
            .ok_or(format!("output {i} is not an array"))?;
        compare(&format!("out{i}"), ours, &theirs, narrowest_float(&module))?;
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let (dir, manifest) = corpus_or_skip("corpus_run", &args);
    let mut trials = Vec::new();
    for (name, program) in programs(&manifest) {
        if program.get("num_devices").and_then(|n| n.as_i64()) != Some(1) {
            continue;
        }
        for suffix in ["spmd.hlo.txt", "opt.plain.hlo.txt", "stablehlo.mlir"] {
            let file = dir.join(format!("{name}.{suffix}"));
            if !file.exists() {
                continue;
            }
            let (dir, name, program) = (dir.clone(), name.clone(), program.clone());
            trials.push(Trial::test(format!("run::{name}.{suffix}"), move || {
                check(&dir, &name, &program, &file)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

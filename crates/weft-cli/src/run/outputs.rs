//! What a run gives back: one summary line per output, and the values
//! reassembled globally or stacked over devices for `--out`.
//!
//! The files a run is asked for are checked before it starts
//! ([`prepare_destinations`]) and written before anything is printed, so
//! neither a long run's end nor a reader that closes standard output early
//! can cost them.

use std::path::Path;

use weft_ir::Module;
use weft_ir::attrs::Sharding;
use weft_runtime::numbers::{Numbers, decode};
use weft_runtime::{Tensor, Value};

/// What a multi-device run gives for one output.
pub(super) enum OutputForm {
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

/// How the outputs of a run on several devices come back.
pub(super) enum Reassembly {
    /// Global values, output N reassembled by the N-th sharding.
    Global(Vec<Sharding>),
    /// Every device's values stacked, with why when the inputs were global.
    PerDevice(Option<String>),
}

/// How `count` outputs come back: by the shardings `--out-sharding` gives,
/// else per device after per-device inputs, else by the ROOT's `sharding=`
/// when it has one.
pub(super) fn reassembly(
    module: &Module,
    given: &[Sharding],
    count: usize,
    per_device_inputs: bool,
) -> Result<Reassembly, String> {
    use weft_runtime::devices::sharding::leaf_shardings;
    let shardings = match given {
        [] if per_device_inputs => return Ok(Reassembly::PerDevice(None)),
        [] => match root_sharding(module) {
            Some(sharding) => leaf_shardings(sharding, count)
                .map_err(|e| format!("error: the entry's result sharding: {e}"))?,
            None => {
                return Ok(Reassembly::PerDevice(Some(
                    "the program records no result sharding; --out-sharding gives it".into(),
                )));
            }
        },
        [one] => leaf_shardings(one, count).map_err(|e| format!("error: --out-sharding: {e}"))?,
        several => {
            // Each one output's, or a tuple sharding some outputs'.
            let mut leaves = Vec::new();
            several
                .iter()
                .for_each(|sharding| flatten_sharding(sharding, &mut leaves));
            if leaves.len() != count {
                return Err(format!(
                    "error: --out-sharding gives {} sharding(s) for {count} output(s)",
                    leaves.len()
                ));
            }
            leaves
        }
    };
    Ok(Reassembly::Global(shardings))
}

/// The non-tuple shardings of `sharding`, in order.
fn flatten_sharding(sharding: &Sharding, out: &mut Vec<Sharding>) {
    match sharding {
        Sharding::Tuple(elements) => elements.iter().for_each(|e| flatten_sharding(e, out)),
        single => out.push(single.clone()),
    }
}

/// `--out-sharding`'s value: a sharding in HLO's syntax.
pub(super) fn parse_sharding(text: &str) -> Result<Sharding, String> {
    weft_ir::text::parse_sharding(text).map_err(|diagnostic| {
        let at = diagnostic.line_col(text);
        format!("{} (at column {} of `{text}`)", diagnostic.message, at.col)
    })
}

/// Makes sure the files a run is asked for can be written, before it runs:
/// the `--out` directory is created (when missing), and the `--trace` file
/// must be in a directory that exists and be writable there.
pub(crate) fn prepare_destinations(out: Option<&Path>, trace: Option<&Path>) -> Result<(), String> {
    if let Some(dir) = out {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("error: --out {}: cannot create it: {e}", dir.display()))?;
    }
    if let Some(file) = trace {
        let parent = match file.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            return Err(format!(
                "error: --trace {}: the directory {} does not exist",
                file.display(),
                parent.display()
            ));
        }
        if file.is_dir() {
            return Err(format!("error: --trace {}: is a directory", file.display()));
        }
        // Opened without truncating, and removed again when this made it:
        // an existing trace stays as it is until the run replaces it.
        let existed = file.exists();
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(file)
            .map_err(|e| format!("error: --trace {}: cannot write it: {e}", file.display()))?;
        if !existed {
            let _ = std::fs::remove_file(file);
        }
    }
    Ok(())
}

/// Writes every array of `forms` to `dir`: `outN.npy` for a global value,
/// `outN.shards.npy` for values stacked over devices.
pub(super) fn write_forms(dir: &Path, forms: &[OutputForm]) -> Result<(), String> {
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
    Ok(())
}

/// Output `index` of every device: global when its sharding is known (only
/// asked for when no input was per device) and it reassembles, else stacked.
pub(super) fn output_form(
    outputs: &[Vec<Value>],
    index: usize,
    sharding: Option<&Sharding>,
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
pub(super) fn records_entry_shardings(module: &Module) -> bool {
    let Some(entry) = module.entry else {
        return false;
    };
    root_sharding(module).is_some()
        || module
            .comp(entry)
            .params()
            .iter()
            .any(|&p| module.instrs[p].common().sharding.is_some())
}

/// The sharding the entry's root records for its results, if any.
pub(super) fn root_sharding(module: &Module) -> Option<&Sharding> {
    let root = module.comp(module.entry?).root()?;
    module.instrs[root].common().sharding.as_ref()
}

/// The devices' values of one output stacked on a new axis 0.
pub(super) fn stack<'v>(values: impl Iterator<Item = &'v Value>) -> Option<Tensor> {
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

pub(super) fn flatten(value: Value, out: &mut Vec<Value>) {
    match value {
        Value::Tuple(elements) => elements.into_iter().for_each(|e| flatten(e, out)),
        other => out.push(other),
    }
}

/// `f32[4,6] min -1.25 max 3.5 mean 0.125` (and NaN/Inf counts when there are
/// any), or the values themselves for small integer and pred arrays.
pub(super) fn summary(value: &Value) -> String {
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

pub(super) fn small_values(tensor: &Tensor, numbers: &Numbers) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory for one test.
    fn scratch(test: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("weft-outputs-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    }

    #[test]
    fn the_out_directory_is_made_before_the_run() {
        let dir = scratch("out");
        let out = dir.join("a").join("b");
        assert_eq!(prepare_destinations(Some(&out), None), Ok(()));
        assert!(out.is_dir());
        let file = dir.join("file");
        std::fs::write(&file, "").unwrap();
        let error = prepare_destinations(Some(&file), None).unwrap_err();
        assert!(error.starts_with("error: --out "), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_trace_needs_an_existing_directory_and_is_not_made_early() {
        let dir = scratch("trace");
        let trace = dir.join("trace.json");
        assert_eq!(prepare_destinations(None, Some(&trace)), Ok(()));
        assert!(!trace.exists(), "checked, not left behind");
        std::fs::write(&trace, "old").unwrap();
        assert_eq!(prepare_destinations(None, Some(&trace)), Ok(()));
        assert_eq!(std::fs::read_to_string(&trace).unwrap(), "old");
        let missing = dir.join("missing").join("trace.json");
        let error = prepare_destinations(None, Some(&missing)).unwrap_err();
        assert!(error.contains("does not exist"), "{error}");
        let error = prepare_destinations(None, Some(&dir)).unwrap_err();
        assert!(error.ends_with("is a directory"), "{error}");
        // A bare file name is in the current directory.
        assert_eq!(
            prepare_destinations(None, Some(Path::new("weft-outputs-probe.json"))),
            Ok(())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! What a run gives back: one summary line per output, and the values
//! reassembled globally or stacked over devices for `--out`.

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
            .params
            .iter()
            .any(|&p| module.instrs[p].common().sharding.is_some())
}

/// The sharding the entry's root records for its results, if any.
pub(super) fn root_sharding(module: &Module) -> Option<&Sharding> {
    let root = module.comp(module.entry?).root?;
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

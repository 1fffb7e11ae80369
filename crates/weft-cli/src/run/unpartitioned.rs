//! Refusing, before any input is read, to run a program written before SPMD
//! partitioning on several devices ([`weft_ir::partitioner`]).
//!
//! Such a program computes global values: its shapes are whole arrays, and
//! its `sharding=` attributes are requests to XLA's partitioner, which weft
//! does not implement. Run device by device, its parameters would be taken
//! for tiles of still larger arrays and its results would mean nothing; the
//! run would fail on input shapes, or not at all. The error says what gave
//! the program away and where the per-device program comes from.

use weft_ir::Module;
use weft_ir::partitioner::{Sign, before_partitioning};

use super::inputs::{parameter_label, shape_text};
use crate::input;

/// Where the per-device program comes from, for every refusal.
const ROUTES: &str = "run the per-device HLO XLA compiles for it, `jax.jit(f).lower(…).compile().as_text()` (weft's README, \"From JAX\"); a shard_map program also runs from its StableHLO, `jax.jit(f).lower(…).as_text()`";

/// An error when `module`, to run on `devices` devices, is written before
/// SPMD partitioning; located in its text when it is HLO text.
pub(super) fn refuse(
    module: &Module,
    devices: usize,
    source: &input::Source,
    map: Option<&weft_ir::text::SourceMap>,
) -> Result<(), String> {
    let Some(sign) = before_partitioning(module) else {
        return Ok(());
    };
    let unpartitioned = format!(
        "the program is written before SPMD partitioning (global shapes), and running it on {devices} devices would need automatic SPMD partitioning, which weft does not do; nothing was run"
    );
    let (instr, message, hint) = match sign {
        Sign::Marker(instr) => {
            let target = match &module.instr(instr).attrs {
                weft_ir::attrs::Attrs::CustomCall(call) => call.target.as_str(),
                _ => "",
            };
            (
                Some(instr),
                format!(
                    "{}: custom-call target \"{target}\" is an annotation for XLA's SPMD partitioner: {unpartitioned}",
                    place(module, instr)
                ),
                ROUTES.to_string(),
            )
        }
        Sign::ShardyMeshes => (
            None,
            format!(
                "{}: the module holds Shardy's meshes (frontend attribute xla.sdy.meshes): {unpartitioned}",
                source.name
            ),
            ROUTES.to_string(),
        ),
        Sign::SplitWithoutPartitions(instr) => {
            let data = module.instr(instr);
            let mut sharding = String::new();
            if let Some(s) = &data.common().sharding {
                s.print(&mut sharding, false);
            }
            let entry = module.comp(module.entry.expect("the sign is in the entry"));
            let what = match (
                entry.params().iter().position(|&p| p == instr),
                module.shapes.as_array(data.shape),
            ) {
                (Some(number), Some(array)) => format!(
                    "{} is {} with",
                    parameter_label(module, instr, number),
                    shape_text(array.elem, &array.dims)
                ),
                _ => format!("the entry's result (ROOT %{}) has", data.name),
            };
            (
                Some(instr),
                format!(
                    "{what} sharding={sharding}, and the module declares no num_partitions: {unpartitioned}"
                ),
                format!(
                    "{ROUTES}; if the module already is the per-device program, declare its partitions on the HloModule line (`num_partitions={devices}`)"
                ),
            )
        }
    };
    Err(match (instr.and_then(|i| map?.instr(i)), instr) {
        (Some(span), _) => weft_ir::Diagnostic::error(span, message)
            .with_hint(hint)
            .render(&source.name, &source.text),
        _ => format!("error: {message}\n  hint: {hint}"),
    })
}

/// `main.1/%tanh.3`: the computation and the instruction.
fn place(module: &Module, instr: weft_ir::Instr) -> String {
    format!(
        "{}/%{}",
        module.comp(module.parent(instr)).name,
        module.instr(instr).name
    )
}

//! What marks a module as written *before* XLA's SPMD partitioning.
//!
//! XLA compiles a sharded program in two forms. Before partitioning, the
//! module computes global values: every array has its whole shape, and
//! `sharding=` says how the partitioner is to split it over the partitions.
//! The partitioner then writes the per-device module each partition runs:
//! local shapes, the collectives that move data between partitions, and
//! `sharding=` left on the entry's parameters to say which tile of the global
//! value each partition holds. Only the second can be run device by device.
//!
//! Sure signs of the first form ([`Sign`]):
//! - a custom-call only the partitioner reads: GSPMD's `Sharding`,
//!   `SPMDFullToShardShape` and `SPMDShardToFullShape`, Shardy's `xla.sdy.*`
//!   (`GlobalToLocalShape`, `LocalToGlobalShape`, `FuncResultSharding`, …)
//!   and their older names `GlobalToLocalShape`/`LocalToGlobalShape`;
//! - Shardy's meshes among the module's frontend attributes
//!   (`xla.sdy.meshes`), which the partitioner consumes;
//! - a sharding that splits an entry parameter or result in a module that
//!   declares no `num_partitions`: XLA's per-device modules always declare
//!   it, while JAX's `.lower(…).as_text(dialect="hlo")` never does.
//!
//! A module with none of these may still be unpartitioned (an unoptimized
//! dump of a program with no sharding constraints declares `num_partitions`
//! and carries no marker); shapes alone cannot tell.

use crate::attrs::{Attrs, Sharding, ShardingKind, TileAssignment};
use crate::{Instr, Module, Opcode};

/// Why a module is taken to be one before SPMD partitioning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sign {
    /// A custom-call whose target only the partitioner reads.
    Marker(Instr),
    /// Shardy's meshes (`xla.sdy.meshes`) in the module's frontend attributes.
    ShardyMeshes,
    /// An entry parameter or the entry's root whose sharding splits it, in a
    /// module that declares no `num_partitions`.
    SplitWithoutPartitions(Instr),
}

/// Whether a custom-call to `target` is one of the annotations XLA's SPMD
/// partitioner reads and removes.
pub fn is_marker(target: &str) -> bool {
    target.starts_with("xla.sdy.")
        || matches!(
            target,
            "Sharding"
                | "SPMDFullToShardShape"
                | "SPMDShardToFullShape"
                | "LocalToGlobalShape"
                | "GlobalToLocalShape"
        )
}

/// The first sure sign that `module` is written before SPMD partitioning, if
/// it has one: a marker custom-call (in text order), then Shardy's meshes,
/// then a split entry parameter or root without `num_partitions`.
pub fn before_partitioning(module: &Module) -> Option<Sign> {
    let marker = module.computations().find_map(|comp| {
        module.comp(comp).body.iter().copied().find(|&instr| {
            let data = module.instr(instr);
            data.opcode == Opcode::CustomCall
                && matches!(&data.attrs, Attrs::CustomCall(call) if is_marker(&call.target))
        })
    });
    if let Some(instr) = marker {
        return Some(Sign::Marker(instr));
    }
    let frontend = module.config.frontend_attributes.as_ref();
    if frontend.is_some_and(|f| f.get("xla.sdy.meshes").is_some()) {
        return Some(Sign::ShardyMeshes);
    }
    if module.config.num_partitions.is_some() {
        return None;
    }
    let entry = module.comp(module.entry?);
    entry
        .params
        .iter()
        .chain(entry.root.iter())
        .copied()
        .find(|&instr| {
            module
                .instr(instr)
                .common()
                .sharding
                .as_ref()
                .is_some_and(splits)
        })
        .map(Sign::SplitWithoutPartitions)
}

/// Whether `sharding` cuts some array dimension into more than one tile.
pub fn splits(sharding: &Sharding) -> bool {
    match sharding {
        Sharding::Tuple(elements) => elements.iter().any(splits),
        Sharding::Single(single) => match &single.kind {
            ShardingKind::Tiled(assignment) => {
                let dims = match assignment {
                    TileAssignment::Explicit { dims, .. } => dims.as_slice(),
                    TileAssignment::Iota(iota) => iota.dims.as_slice(),
                };
                // Trailing assignment dimensions that replicate or mark
                // manual subgroups do not cut the array.
                let trailing =
                    usize::from(single.last_tile_dim_replicate) + single.last_tile_dims.len();
                let data = dims.len().saturating_sub(trailing);
                dims[..data].iter().product::<i64>() > 1
            }
            ShardingKind::Named(named) => named.dims.iter().any(|d| !d.axes.is_empty()),
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sign(text: &str) -> Option<Sign> {
        before_partitioning(&crate::text::parse(text).expect("parses"))
    }

    #[test]
    fn a_sharding_custom_call_is_a_marker() {
        let text = "HloModule m, num_partitions=2\n\nENTRY e {\n  p = f32[8] parameter(0), sharding={devices=[2]<=[2]}\n  ROOT s = f32[8] custom-call(p), custom_call_target=\"Sharding\", sharding={devices=[2]<=[2]}\n}\n";
        assert!(matches!(sign(text), Some(Sign::Marker(_))));
    }

    #[test]
    fn split_shardings_without_num_partitions_are_global() {
        let text = "HloModule m\n\nENTRY e {\n  p = f32[8,4] parameter(0), sharding={devices=[2,1]<=[2]}\n  ROOT n = f32[8,4] negate(p)\n}\n";
        assert!(matches!(sign(text), Some(Sign::SplitWithoutPartitions(_))));
    }

    #[test]
    fn per_device_modules_and_unsplit_shardings_are_not_flagged() {
        // XLA's compiled form: num_partitions and local shapes.
        let compiled = "HloModule m, num_partitions=2\n\nENTRY e {\n  p = f32[4,4] parameter(0), sharding={devices=[2,1]<=[2]}\n  ROOT n = f32[4,4] negate(p)\n}\n";
        assert_eq!(sign(compiled), None);
        // Replicated, or a replicating last tile dimension: nothing is cut.
        let replicated = "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0), sharding={replicated}\n  q = f32[4] parameter(1), sharding={devices=[1,2]<=[2] last_tile_dim_replicate}\n  ROOT a = f32[4] add(p, q)\n}\n";
        assert_eq!(sign(replicated), None);
    }

    #[test]
    fn shardy_meshes_are_a_sign() {
        let text = "HloModule m, num_partitions=8, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<[\"x\"=8]>}}\n\nENTRY e {\n  ROOT p = f32[8] parameter(0)\n}\n";
        assert_eq!(sign(text), Some(Sign::ShardyMeshes));
    }
}

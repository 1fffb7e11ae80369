//! Collective attributes, checked as StableHLO's verifiers do
//! (`verifyReplicaGroups`, the per-op dimension checks): for the synchronous
//! collectives and for their explicit `*_start` forms alike.

use crate::ir::attribute::NotNumbers;

/// The most bytes a splat of replica groups expands to.
const MAX_GROUP_BYTES: u64 = 8 * weft_ir::attrs::MAX_EXPANDED_DEVICES;
use crate::ir::{Attribute, Body, Op, Type};
use crate::ops::OpKind;
use crate::verify::Checker;

pub(super) fn check(cx: &mut Checker, ops: &[Op]) {
    for &op in ops {
        let Some(kind) = cx.body.ops[op].name.kind() else {
            continue;
        };
        let collective = match kind {
            OpKind::AllGatherStart => OpKind::AllGather,
            OpKind::AllReduceStart => OpKind::AllReduce,
            OpKind::AllToAllStart => OpKind::AllToAll,
            OpKind::CollectiveBroadcastStart => OpKind::CollectiveBroadcast,
            OpKind::CollectivePermuteStart => OpKind::CollectivePermute,
            OpKind::ReduceScatterStart => OpKind::ReduceScatter,
            other => other,
        };
        match collective {
            OpKind::AllGather => {
                check_replica_groups(cx, op, false);
                check_channel(cx, op);
                check_all_gather(cx, op);
            }
            OpKind::AllReduce | OpKind::CollectiveReduce => {
                check_replica_groups(cx, op, true);
                check_channel(cx, op);
            }
            OpKind::ReduceScatter => {
                check_replica_groups(cx, op, false);
                check_channel(cx, op);
                check_reduce_scatter(cx, op);
            }
            OpKind::AllToAll => {
                check_replica_groups(cx, op, false);
                check_all_to_all(cx, op);
            }
            OpKind::CollectiveBroadcast => check_broadcast_groups(cx, op),
            OpKind::CollectivePermute => check_source_target_pairs(cx, op),
            _ => {}
        }
    }
}

fn integer(body: &Body, op: Op, name: &str) -> Option<i64> {
    body.attribute(op, name)?
        .as_integer()
        .and_then(|v| i64::try_from(v).ok())
}

/// A rank-2 `dense<…>` integer attribute as rows, or why it is not one.
fn dense_rows(attribute: &Attribute) -> Result<Vec<Vec<i64>>, String> {
    let Attribute::DenseElements(dense) = attribute else {
        return Err("must be a dense integer tensor".to_string());
    };
    let Some(dims) = dense.ty.as_tensor().and_then(|t| t.static_dims()) else {
        return Err("must have a static shape".to_string());
    };
    // Replica groups name devices: a splat of more than a few million of
    // them is no list of devices, and is not expanded.
    let array = match dense.numbers(MAX_GROUP_BYTES) {
        Ok(array) => array,
        Err(NotNumbers::Strings) => return Err("must hold integers".to_string()),
        Err(other) => return Err(other.to_string()),
    };
    if dims.len() != 2 {
        return Err(format!(
            "should be a rank 2 tensor, but has rank {}",
            dims.len()
        ));
    }
    // Empty groups take no bytes: their number is bounded on its own.
    if dims[0] as u64 > weft_ir::attrs::MAX_EXPANDED_DEVICES {
        return Err(format!("names {} groups, too many to expand", dims[0]));
    }
    let width = dims[1] as usize;
    Ok((0..dims[0] as usize)
        .map(|row| {
            (0..width)
                .map(|col| array.get_int(row * width + col) as i64)
                .collect()
        })
        .collect())
}

/// `verifyReplicaGroups`: unique ids, exactly `0..n` (with `-1` padding only
/// where groups may differ in size), equal group sizes elsewhere.
fn check_replica_groups(cx: &mut Checker, op: Op, allow_uneven: bool) {
    let body = cx.body;
    let Some(attribute) = body.attribute(op, "replica_groups") else {
        return;
    };
    if let Attribute::Opaque(_) = attribute {
        // Mesh-axes groups (`#stablehlo.replica_group_mesh_axes<…>`) are
        // resolved against the mesh when lowering.
        return;
    }
    let groups = match dense_rows(attribute) {
        Ok(groups) => groups,
        Err(why) => {
            cx.report(op, format!("replica groups {why}"));
            return;
        }
    };
    let global = body.attribute(op, "use_global_device_ids").is_some();
    let count: usize = groups.iter().map(Vec::len).sum();
    if global && (groups.is_empty() || count == 0) {
        cx.report(
            op,
            "if `use_global_device_ids` is set, the replica groups cannot be empty",
        );
        return;
    }
    let mut seen = std::collections::BTreeSet::new();
    for &id in groups.iter().flatten() {
        if id == -1 && allow_uneven {
            continue;
        }
        if id < 0 {
            cx.report(op, format!("replica group id {id} is invalid"))
                .with_hint("only all_reduce pads uneven groups with -1");
            return;
        }
        if !seen.insert(id) {
            cx.report(op, format!("replica id #{id} seen more than once"));
            return;
        }
    }
    for expected in 0..seen.len() as i64 {
        if !seen.contains(&expected) {
            cx.report(
                op,
                format!("replica id #{expected} not seen in replica groups"),
            )
            .with_hint("the ids of all groups together must be 0, 1, …, n-1");
            return;
        }
    }
}

/// `channel_handle = #stablehlo.channel_handle<handle = H, type = T>`: H.
fn channel_id(body: &Body, op: Op) -> Option<i64> {
    let Some(Attribute::Opaque(text)) = body.attribute(op, "channel_handle") else {
        return None;
    };
    let after = text.split("handle = ").nth(1)?;
    after
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .next()?
        .parse()
        .ok()
}

fn check_channel(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let channel = channel_id(body, op);
    if channel.is_some_and(|c| c < 0) {
        cx.report(op, "channel_id cannot be negative");
    }
    let global = body.attribute(op, "use_global_device_ids").is_some();
    if global && channel.is_none_or(|c| c <= 0) {
        cx.report(op, "channel_id must be positive when useGlobalDeviceIds is set but got: 0")
            .with_hint("flattened device ids need a channel: add channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>");
    }
}

/// The number of processes in each group, when it is known statically: with
/// a channel and no `use_global_device_ids` (cross_replica_and_partition) a
/// group spans every partition, whose count the op does not say.
fn group_size(body: &Body, op: Op) -> Option<usize> {
    let channel =
        crate::ir::dialect_attr::channel_id(body.attribute(op, "channel_handle")).unwrap_or(0);
    if channel > 0 && body.attribute(op, "use_global_device_ids").is_none() {
        return None;
    }
    let groups = dense_rows(body.attribute(op, "replica_groups")?).ok()?;
    groups.first().map(Vec::len)
}

fn dims_of(ty: &Type) -> Option<Vec<i64>> {
    ty.as_tensor()?.static_dims()
}

/// For an explicit start, the synchronous result type is the future's.
fn result_type(body: &Body, op: Op, index: usize) -> Option<&Type> {
    let ty = body.ty(*body.ops[op].results.get(index)?);
    match ty {
        Type::Future(elements) => elements.first(),
        other => Some(other),
    }
}

fn check_all_gather(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let Some(dimension) = integer(body, op, "all_gather_dim") else {
        cx.report(op, "requires attribute 'all_gather_dim'");
        return;
    };
    for (i, &operand) in body.ops[op].operands.iter().enumerate() {
        let Some(operand_dims) = dims_of(body.ty(operand)) else {
            continue;
        };
        if dimension < 0 || dimension as usize >= operand_dims.len() {
            cx.report(op, "all_gather_dim must be a valid index of operand")
                .with_hint(format!("operand {i} has rank {}", operand_dims.len()));
            return;
        }
        let d = dimension as usize;
        if operand_dims[d] == 0 {
            cx.report(
                op,
                "dimension size of operand at 'all_gather_dim' cannot be zero",
            );
            return;
        }
        let Some(result_dims) = result_type(body, op, i).and_then(dims_of) else {
            continue;
        };
        if result_dims.len() == operand_dims.len() && result_dims[d] % operand_dims[d] != 0 {
            cx.report(op, format!(
                "result gather dimension has size {}, expected to be a multiple of operand gather dimension size {}",
                result_dims[d], operand_dims[d]
            ));
        }
        if let Some(size) = group_size(body, op)
            && result_dims.len() == operand_dims.len()
            && result_dims[d] != operand_dims[d] * size as i64
        {
            cx.report(op, format!(
                "result gather dimension has size {}, but {} devices per group gathering size {} give {}",
                result_dims[d],
                size,
                operand_dims[d],
                operand_dims[d] * size as i64
            ));
        }
    }
}

fn check_reduce_scatter(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let Some(dimension) = integer(body, op, "scatter_dimension") else {
        cx.report(op, "requires attribute 'scatter_dimension'");
        return;
    };
    let Some(&operand) = body.ops[op].operands.first() else {
        return;
    };
    let Some(operand_dims) = dims_of(body.ty(operand)) else {
        return;
    };
    if dimension < 0 || dimension as usize >= operand_dims.len() {
        cx.report(
            op,
            format!(
                "expects scatter_dimension >= 0 and < rank {}, but got {dimension}",
                operand_dims.len()
            ),
        );
        return;
    }
    let d = dimension as usize;
    if operand_dims[d] == 0 {
        cx.report(op, "operand scatter dimension cannot be zero");
        return;
    }
    if let Some(size) = group_size(body, op)
        && size > 0
        && let Some(result_dims) = result_type(body, op, 0).and_then(dims_of)
        && result_dims.len() == operand_dims.len()
        && result_dims[d] * size as i64 != operand_dims[d]
    {
        cx.report(op, format!(
            "operand scatter dimension has size {}, expected to be {} times the result scatter dimension size {}",
            operand_dims[d], size, result_dims[d]
        ));
    }
}

fn check_all_to_all(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let (Some(split), Some(concat), Some(count)) = (
        integer(body, op, "split_dimension"),
        integer(body, op, "concat_dimension"),
        integer(body, op, "split_count"),
    ) else {
        cx.report(
            op,
            "requires attributes 'split_dimension', 'concat_dimension' and 'split_count'",
        );
        return;
    };
    if count <= 0 {
        cx.report(op, format!("split_count must be > 0, got {count}"));
        return;
    }
    if let Some(size) = group_size(body, op)
        && size as i64 != count
    {
        cx.report(op, format!("group size of replica_groups must be {count}"));
    }
    for &operand in &body.ops[op].operands {
        let Some(dims) = dims_of(body.ty(operand)) else {
            continue;
        };
        let rank = dims.len() as i64;
        if !(0..rank).contains(&split) {
            cx.report(
                op,
                format!("AllToAll split_dimension {split} is out-of-bounds for input rank {rank}"),
            );
            return;
        }
        if !(0..rank).contains(&concat) {
            cx.report(
                op,
                format!(
                    "AllToAll concat_dimension {concat} is out-of-bounds for input rank {rank}"
                ),
            );
            return;
        }
        if dims[split as usize] % count != 0 {
            cx.report(
                op,
                format!(
                    "split dimension has size {}, expected to be a multiple of split_count {count}",
                    dims[split as usize]
                ),
            );
        }
    }
}

fn check_broadcast_groups(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let Some(attribute) = body.attribute(op, "replica_groups") else {
        return;
    };
    if let Attribute::Opaque(_) = attribute {
        return;
    }
    match dense_rows(attribute) {
        Err(why) => {
            cx.report(op, format!("replica groups {why}"));
        }
        Ok(groups) => {
            let mut seen = std::collections::BTreeSet::new();
            for &id in groups.iter().flatten() {
                if id < 0 {
                    cx.report(op, format!("replica group id {id} is invalid"));
                    return;
                }
                if !seen.insert(id) {
                    cx.report(op, format!("replica id #{id} seen more than once"));
                    return;
                }
            }
        }
    }
}

fn check_source_target_pairs(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let Some(attribute) = body.attribute(op, "source_target_pairs") else {
        cx.report(op, "requires attribute 'source_target_pairs'");
        return;
    };
    let pairs = match dense_rows(attribute) {
        Ok(pairs) => pairs,
        Err(why) => {
            cx.report(op, format!("source_target_pairs {why}"));
            return;
        }
    };
    if pairs.first().is_some_and(|p| p.len() != 2) {
        cx.report(
            op,
            format!(
                "expect source_target_pairs attribute of shape (N, 2), but got ({}, {})",
                pairs.len(),
                pairs[0].len()
            ),
        );
        return;
    }
    let mut sources = std::collections::BTreeSet::new();
    let mut targets = std::collections::BTreeSet::new();
    for pair in &pairs {
        if pair.iter().any(|&id| id < 0) {
            cx.report(op, "parameters of source_target_pairs must be >= 0");
            return;
        }
        if !sources.insert(pair[0]) {
            cx.report(
                op,
                format!(
                    "duplicate sources not allowed: source {} appears twice",
                    pair[0]
                ),
            );
            return;
        }
        if !targets.insert(pair[1]) {
            cx.report(
                op,
                format!(
                    "duplicate targets not allowed: target {} appears twice",
                    pair[1]
                ),
            );
            return;
        }
    }
}

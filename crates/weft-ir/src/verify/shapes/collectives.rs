//! Shape rules of collectives and host/peer transfers: all-reduce, all-gather,
//! reduce-scatter, all-to-all, ragged-all-to-all, collective-broadcast,
//! collective-reduce, collective-permute, their first-class start/done pairs,
//! send/recv and their dones, infeed and outfeed (XLA's `ShapeVerifier`
//! handlers and the `ShapeInference` functions they call).
//!
//! Invariants checked:
//! - replica groups name every id `0..n` once, with no empty group; `n` is the
//!   replica count, the partition count or their product, as the group mode
//!   (from `channel_id` and `use_global_device_ids`) says, unless the module
//!   leaves that count at 1; groups have one size except for all-reduce;
//! - all-gather multiplies, and reduce-scatter divides, the `dimensions={d}`
//!   dimension by the shard count, which must be the group size when the
//!   module's counts make it known;
//! - all-reduce, collective-broadcast and collective-permute return their
//!   operands (one array, or a tuple of them); an all-to-all with a split
//!   dimension returns its operand, which that dimension's size divides by the
//!   group size, and one without returns the tuple of its equally shaped operands;
//! - a collective-permute names each source and each target once, all in range;
//! - a start's shape is `(operands, result)` (all-gather) or the result
//!   (all-reduce) or `(operands, result, context…)` (collective-permute), and a
//!   done returns the result;
//! - send is `(data, u32[], token[])`, recv `(data, u32[], token[])`, send-done
//!   `token[]`, recv-done `(data, token[])`; infeed `(data, token[])` from a token;
//!   outfeed `token[]` with a token as operand 1.
//!
//! Layouts are ignored unless the verifier is layout-sensitive, and where XLA
//! compares only `minor_to_major` (send, recv, infeed) they are ignored always.
//!
//! The inferred shapes, and the checks inference makes, come from
//! [`crate::infer::collectives` and [`crate::infer::asynchronous`].

use crate::attrs::{Attrs, CollectiveAttrs, CollectivePermuteAttrs};
use crate::infer::{self, InferError, InferredShape};
use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, Shape, ShapeData, UNBOUNDED};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

use super::control::without_layout;

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    match (&data.attrs, data.opcode) {
        (Attrs::Collective(attrs), Opcode::AllGather | Opcode::AllGatherStart) => {
            check_all_gather(cx, instr, attrs)
        }
        (Attrs::Collective(attrs), Opcode::AllReduce | Opcode::AllReduceStart) => {
            check_all_reduce(cx, instr, attrs)
        }
        (Attrs::Collective(attrs), Opcode::ReduceScatter) => check_reduce_scatter(cx, instr, attrs),
        (Attrs::Collective(attrs), Opcode::AllToAll) => check_all_to_all(cx, instr, attrs),
        (Attrs::Collective(attrs), Opcode::RaggedAllToAll) => {
            check_ragged_all_to_all(cx, instr, attrs)
        }
        (Attrs::Collective(attrs), Opcode::CollectiveBroadcast | Opcode::CollectiveReduce) => {
            check_operands_forwarded(cx, instr, attrs.has_dynamic_root == Some(true))
        }
        (
            Attrs::CollectivePermute(attrs),
            Opcode::CollectivePermute | Opcode::CollectivePermuteStart,
        ) => check_collective_permute(cx, instr, attrs),
        (_, Opcode::AllReduceDone) => check_all_reduce_done(cx, instr),
        (_, Opcode::AllGatherDone | Opcode::CollectivePermuteDone) => {
            check_done_takes_element_one(cx, instr)
        }
        (_, Opcode::Send) => check_send(cx, instr),
        (_, Opcode::SendDone) => {
            cx.expect_shape(Rule::SendRecv, instr, &infer::collectives::token());
        }
        (_, Opcode::Recv) => check_recv(cx, instr),
        (_, Opcode::RecvDone) => check_recv_done(cx, instr),
        (_, Opcode::Infeed) => check_infeed(cx, instr),
        (_, Opcode::Outfeed) => check_outfeed(cx, instr),
        _ => {}
    }
}

// ----- replica groups -----

/// XLA's `CollectiveOpGroupMode`: how replica groups name devices.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GroupMode {
    CrossReplica,
    CrossPartition,
    CrossReplicaAndPartition,
    FlattenedId,
}

impl GroupMode {
    /// XLA's `GetCollectiveOpGroupMode`. `use_global_device_ids` is `None` for
    /// the opcodes without that attribute (all-to-all, collective-permute), whose
    /// channel makes them cross-partition.
    fn of(has_channel_id: bool, use_global_device_ids: Option<bool>) -> Option<GroupMode> {
        match (has_channel_id, use_global_device_ids) {
            (false, None | Some(false)) => Some(GroupMode::CrossReplica),
            (false, Some(true)) => None,
            (true, None) => Some(GroupMode::CrossPartition),
            (true, Some(false)) => Some(GroupMode::CrossReplicaAndPartition),
            (true, Some(true)) => Some(GroupMode::FlattenedId),
        }
    }

    /// The name XLA prints (`CollectiveOpGroupModeToString`).
    fn name(self) -> &'static str {
        match self {
            GroupMode::CrossReplica => "kCrossReplica",
            GroupMode::CrossPartition => "kCrossPartition",
            GroupMode::CrossReplicaAndPartition => "kCrossReplicaAndPartition",
            GroupMode::FlattenedId => "kFlattenedID",
        }
    }
}

/// The group mode of a collective with `use_global_device_ids`, reporting the
/// combination XLA rejects.
fn group_mode(
    cx: &mut Checker,
    instr: Instr,
    attrs: &CollectiveAttrs,
    has_global_ids: bool,
) -> Option<GroupMode> {
    let global = has_global_ids.then_some(attrs.use_global_device_ids);
    let mode = GroupMode::of(attrs.channel_id.is_some(), global);
    if mode.is_none() {
        cx.report(
            Rule::Collective,
            instr,
            "Invalid combination of has_channel_id and use_global_device_ids",
        )
        .with_hint("use_global_device_ids=true needs a channel_id")
        .at_attribute("use_global_device_ids");
    }
    mode
}

/// XLA's `CheckReplicaGroups`. Returns the explicit groups when they are valid.
fn check_replica_groups(
    cx: &mut Checker,
    instr: Instr,
    attrs: &CollectiveAttrs,
    mode: GroupMode,
    uniform: bool,
) -> Option<Vec<Vec<i64>>> {
    const ATTRIBUTE: &str = "replica_groups";
    let groups = match attrs.replica_groups.groups() {
        Ok(groups) => groups,
        Err(error) => {
            cx.report(
                Rule::Collective,
                instr,
                format!("Invalid replica groups: {error}"),
            )
            .with_hint("compare replica_count and num_partitions on the HloModule line")
            .at_attribute(ATTRIBUTE);
            return None;
        }
    };
    if groups.is_empty() {
        if mode == GroupMode::FlattenedId {
            cx.report(
                Rule::Collective,
                instr,
                "Replica groups must be specified in flattened-id mode",
            )
            .with_hint("use_global_device_ids=true names devices by flattened id, so list them")
            .at_attribute(ATTRIBUTE);
            return None;
        }
        return Some(groups);
    }
    let mut seen = std::collections::HashSet::new();
    for group in &groups {
        if group.is_empty() {
            cx.report(
                Rule::Collective,
                instr,
                "Instruction cannot have an empty replica group",
            )
            .at_attribute(ATTRIBUTE);
            return None;
        }
        for &id in group {
            if !seen.insert(id) {
                cx.report(
                    Rule::Collective,
                    instr,
                    format!("Replica {id} is repeated in instruction's replica-groups"),
                )
                .with_hint("each device belongs to one group")
                .at_attribute(ATTRIBUTE);
                return None;
            }
        }
    }
    let count = seen.len() as i64;
    if let Some(missing) = (0..count).find(|i| !seen.contains(i)) {
        cx.report(
            Rule::Collective,
            instr,
            format!("Replica {missing} is not named in instruction's replica-groups"),
        )
        .with_hint(format!("the groups must name every id in 0..{count}"))
        .at_attribute(ATTRIBUTE);
        return None;
    }
    let replicas = cx.m.config.replicas();
    let partitions = cx.m.config.partitions();
    let (expected, what) = match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => (replicas, "replicas"),
        GroupMode::CrossPartition => (partitions, "partitions"),
        GroupMode::FlattenedId => (replicas.saturating_mul(partitions), "flattened IDs"),
    };
    // A count left at its default of 1 says nothing, as in XLA.
    if expected != 1 && count != expected {
        cx.report(
            Rule::Collective,
            instr,
            format!(
                "In {} mode, replica groups should contain {expected} {what}, but found {count}",
                mode.name()
            ),
        )
        .with_hint("compare replica_count and num_partitions on the HloModule line")
        .at_attribute(ATTRIBUTE);
        return None;
    }
    if uniform && groups.iter().any(|g| g.len() != groups[0].len()) {
        cx.report(
            Rule::Collective,
            instr,
            "Replica groups expected to be of uniform size",
        )
        .at_attribute(ATTRIBUTE);
        return None;
    }
    Some(groups)
}

/// XLA's `GetSubgroupSize`: how many devices take part in each group.
fn subgroup_size(cx: &Checker, groups: &[Vec<i64>], mode: GroupMode) -> i64 {
    let first = groups.first().map(|g| g.len() as i64);
    let replicas = cx.m.config.replicas();
    let partitions = cx.m.config.partitions();
    match mode {
        GroupMode::CrossReplica => first.unwrap_or(replicas),
        GroupMode::CrossReplicaAndPartition => first.unwrap_or(replicas).saturating_mul(partitions),
        GroupMode::FlattenedId => first.unwrap_or(1),
        GroupMode::CrossPartition => first.unwrap_or(partitions),
    }
}

// ----- helpers -----

/// The array data of operand `index`, reporting XLA's `ExpectArray` error when
/// it is not an array.
fn expect_array_operand<'m>(
    cx: &mut Checker<'m>,
    instr: Instr,
    index: usize,
    what: &str,
) -> Option<&'m ArrayShape> {
    let operands = operand_shapes(cx, instr);
    if index >= operands.len() {
        return None;
    }
    match infer::collectives::array_operand(&cx.m.shapes, &operands, index, what) {
        Ok(array) => Some(array),
        Err(error) => {
            cx.report_inference(Rule::Collective, instr, error);
            None
        }
    }
}

/// The shapes of `instr`'s operands.
fn operand_shapes(cx: &Checker, instr: Instr) -> Vec<Shape> {
    cx.data(instr)
        .operands
        .iter()
        .map(|&o| cx.shape_of(o))
        .collect()
}

/// Compares the declared shape with the inferred one under
/// [`Rule::Collective`], or reports why inference failed.
fn expect_inferred(cx: &mut Checker, instr: Instr, inferred: Result<InferredShape, InferError>) {
    match inferred {
        Ok(inferred) => {
            cx.expect_shape(Rule::Collective, instr, &inferred);
        }
        Err(error) => cx.report_inference(Rule::Collective, instr, error),
    }
}

/// The `dimensions={d}` of a gather/scatter collective, checked against every
/// operand's rank.
fn collective_dimension(
    cx: &mut Checker,
    instr: Instr,
    attrs: &CollectiveAttrs,
    operands: &[&ArrayShape],
) -> Option<usize> {
    let opcode = cx.data(instr).opcode;
    match infer::collectives::collective_dimension(opcode, attrs.dimension, operands) {
        Ok(dimension) => Some(dimension),
        Err(error) => {
            cx.report_inference(Rule::Collective, instr, error);
            None
        }
    }
}

/// Reports a shard count that differs from a known group size (XLA's
/// `subgroup_size == 1 || shard_count == subgroup_size`).
fn check_shard_count(cx: &mut Checker, instr: Instr, shard_count: i64, group_size: i64) -> bool {
    if group_size == 1 || shard_count == group_size {
        return true;
    }
    let opcode = cx.data(instr).opcode;
    cx.report(
        Rule::Collective,
        instr,
        format!("shard_count = {shard_count}, subgroup_size = {group_size}"),
    )
    .with_hint(format!(
        "the {opcode} result's dimension is {shard_count}x the operand's, but each replica group has {group_size} devices"
    ))
    .at_attribute("replica_groups");
    false
}

// ----- the rules -----

fn check_all_gather(cx: &mut Checker, instr: Instr, attrs: &CollectiveAttrs) {
    let Some(mode) = group_mode(cx, instr, attrs, true) else {
        return;
    };
    let Some(groups) = check_replica_groups(cx, instr, attrs, mode, true) else {
        return;
    };
    let count = cx.data(instr).operands.len();
    let mut operands = Vec::with_capacity(count);
    for i in 0..count {
        let Some(array) = expect_array_operand(cx, instr, i, "operand of all-gather") else {
            return;
        };
        operands.push(array);
    }
    let Some(first) = operands.first().copied() else {
        return;
    };
    let Some(dimension) = collective_dimension(cx, instr, attrs, &operands) else {
        return;
    };
    let start = cx.data(instr).opcode == Opcode::AllGatherStart;
    // XLA reads the shard count off the declared result: the result's gathered
    // dimension over the operand's, rounded up.
    let declared = cx.shape_of(instr);
    let result = if start {
        cx.tuple(declared).and_then(|e| e.get(1).copied())
    } else {
        Some(declared)
    };
    let shapes = &cx.m.shapes;
    let first_result =
        result.and_then(|r| infer::collectives::first_result_array(shapes, r, count));
    let group_size = subgroup_size(cx, &groups, mode);
    let output_size = first_result.and_then(|a| a.dims.get(dimension).copied());
    let shard_count =
        infer::collectives::all_gather_shard_count(first.dims[dimension], output_size)
            .unwrap_or(group_size.max(1));
    if !check_shard_count(cx, instr, shard_count, group_size) {
        return;
    }
    let operands = operand_shapes(cx, instr);
    let gathered = infer::collectives::all_gather(shapes, &operands, attrs.dimension, shard_count);
    let inferred = if start {
        gathered.map(|result| infer::asynchronous::all_gather_start(&operands, result))
    } else {
        gathered
    };
    expect_inferred(cx, instr, inferred);
}

fn check_all_reduce(cx: &mut Checker, instr: Instr, attrs: &CollectiveAttrs) {
    if let Some(mode) = group_mode(cx, instr, attrs, true) {
        // All-reduce alone may have groups of different sizes.
        check_replica_groups(cx, instr, attrs, mode, false);
    }
    check_reduction_computation(cx, instr);
    let count = cx.data(instr).operands.len();
    let mut arrays = true;
    for i in 0..count {
        arrays &= expect_array_operand(cx, instr, i, "operand of cross replica sum").is_some();
    }
    if arrays && count > 0 {
        let operands = operand_shapes(cx, instr);
        let inferred = infer::collectives::all_reduce(&cx.m.shapes, &operands);
        expect_inferred(cx, instr, inferred);
    }
}

/// The `to_apply` of an all-reduce combines two scalars into one.
fn check_reduction_computation(cx: &mut Checker, instr: Instr) {
    let Some(&callee) = cx.data(instr).callees.first() else {
        return;
    };
    let params = cx.param_shapes(callee);
    let root = cx.root_shape(callee);
    let scalar = |cx: &Checker, s: Shape| cx.array(s).is_some_and(|a| a.rank() == 0);
    // XLA's verifier leaves the reducer alone, and importers write it returning
    // a one-element tuple, so a tuple of scalars is accepted as the result.
    let scalar_result = |cx: &Checker, r: Shape| {
        scalar(cx, r)
            || cx
                .tuple(r)
                .is_some_and(|e| e.iter().all(|&s| scalar(cx, s)))
    };
    let well_formed = params.len() == 2
        && params.iter().all(|&p| scalar(cx, p))
        && root.is_some_and(|r| scalar_result(cx, r));
    if !well_formed {
        let signature = params
            .iter()
            .map(|&p| cx.text(p))
            .collect::<Vec<_>>()
            .join(", ");
        let returns = root.map_or_else(|| "nothing".to_string(), |r| cx.text(r));
        let message = format!(
            "the reduction computation %{} of a {} must take two scalars and return a scalar; it takes ({signature}) and returns {returns}",
            cx.m.comps[callee].name,
            cx.data(instr).opcode
        );
        cx.report(Rule::CalleeSignature, instr, message)
            .with_hint("to_apply combines two elements, e.g. (f32[], f32[]) -> f32[]")
            .at_attribute("to_apply");
    }
}

fn check_all_reduce_done(cx: &mut Checker, instr: Instr) {
    if let Some(&operand) = cx.data(instr).operands.first() {
        let expected = infer::asynchronous::all_reduce_done(cx.shape_of(operand));
        cx.expect_shape(Rule::Collective, instr, &expected);
    }
}

/// all-gather-done and collective-permute-done return element 1 of the start.
fn check_done_takes_element_one(cx: &mut Checker, instr: Instr) {
    let Some(&operand) = cx.data(instr).operands.first() else {
        return;
    };
    let opcode = cx.data(instr).opcode;
    let inferred =
        infer::asynchronous::done_of_element_one(&cx.m.shapes, opcode, cx.shape_of(operand));
    expect_inferred(cx, instr, inferred);
}

fn check_reduce_scatter(cx: &mut Checker, instr: Instr, attrs: &CollectiveAttrs) {
    let Some(mode) = group_mode(cx, instr, attrs, true) else {
        return;
    };
    let Some(groups) = check_replica_groups(cx, instr, attrs, mode, true) else {
        return;
    };
    check_reduction_computation(cx, instr);
    let count = cx.data(instr).operands.len();
    let mut operands = Vec::with_capacity(count);
    for i in 0..count {
        let Some(array) = expect_array_operand(cx, instr, i, "operand of reduce-scatter") else {
            return;
        };
        operands.push(array);
    }
    let Some(first) = operands.first().copied() else {
        return;
    };
    let Some(dimension) = collective_dimension(cx, instr, attrs, &operands) else {
        return;
    };
    let declared = cx.shape_of(instr);
    let shapes = &cx.m.shapes;
    let first_result = infer::collectives::first_result_array(shapes, declared, count);
    let group_size = subgroup_size(cx, &groups, mode);
    let output_size = first_result.and_then(|a| a.dims.get(dimension).copied());
    let shard_count =
        infer::collectives::reduce_scatter_shard_count(first.dims[dimension], output_size)
            .unwrap_or(group_size.max(1));
    if !check_shard_count(cx, instr, shard_count, group_size) {
        return;
    }
    let operands = operand_shapes(cx, instr);
    let inferred =
        infer::collectives::reduce_scatter(shapes, &operands, attrs.dimension, shard_count);
    expect_inferred(cx, instr, inferred);
}

fn check_all_to_all(cx: &mut Checker, instr: Instr, attrs: &CollectiveAttrs) {
    let Some(mode) = group_mode(cx, instr, attrs, false) else {
        return;
    };
    let Some(groups) = check_replica_groups(cx, instr, attrs, mode, true) else {
        return;
    };
    let split_count = subgroup_size(cx, &groups, mode).max(1);
    let count = cx.data(instr).operands.len();
    if let Some(split_dimension) = attrs.dimension {
        if count != 1 {
            cx.report(
                Rule::Collective,
                instr,
                format!("an all-to-all with a split dimension takes one operand, has {count}"),
            )
            .with_hint("without dimensions={d}, all-to-all takes one operand per group member");
            return;
        }
        let Some(array) = expect_array_operand(cx, instr, 0, "operand of all-to-all") else {
            return;
        };
        let Some(d) = usize::try_from(split_dimension)
            .ok()
            .filter(|&d| d < array.rank())
        else {
            let message = format!(
                "AllToAll split_dimension {split_dimension} is out-of-bounds in shape {}.",
                cx.text(cx.shape_of(cx.data(instr).operands[0]))
            );
            cx.report(Rule::Collective, instr, message)
                .at_attribute("dimensions");
            return;
        };
        let size = array.dims[d];
        if size != UNBOUNDED && size % split_count != 0 {
            cx.report(
                Rule::Collective,
                instr,
                format!(
                    "AllToAll split dimension size {size} must be dividable by split_count {split_count}."
                ),
            )
            .with_hint("each group member receives an equal slice of the split dimension")
            .at_attribute("dimensions");
            return;
        }
        // Split and concatenated along the same dimension: the size is kept.
        let operands = operand_shapes(cx, instr);
        let expected = infer::collectives::all_to_all(&operands, attrs.dimension);
        cx.expect_shape(Rule::Collective, instr, &expected);
        return;
    }
    if count as i64 != split_count && !(groups.is_empty() && split_count == 1) {
        cx.report(
            Rule::Collective,
            instr,
            format!(
                "an all-to-all without a split dimension takes one operand per group member ({split_count}), has {count}"
            ),
        )
        .at_attribute("replica_groups");
        return;
    }
    let operands = cx.data(instr).operands.clone();
    let Some(&first) = operands.first() else {
        return;
    };
    for (i, &operand) in operands.iter().enumerate().skip(1) {
        if !cx.same(cx.shape_of(first), cx.shape_of(operand)) {
            let message = format!(
                "HLO all-to-all has operands with different shapes: the 0th operand shape {}, but the {i}th operand has shape {}.",
                cx.text(cx.shape_of(first)),
                cx.text(cx.shape_of(operand))
            );
            cx.report(Rule::Collective, instr, message).at_operand(i);
            return;
        }
    }
    let operands = operand_shapes(cx, instr);
    let expected = infer::collectives::all_to_all(&operands, attrs.dimension);
    cx.expect_shape(Rule::Collective, instr, &expected);
}

fn check_ragged_all_to_all(cx: &mut Checker, instr: Instr, attrs: &CollectiveAttrs) {
    if let Some(mode) = group_mode(cx, instr, attrs, false) {
        check_replica_groups(cx, instr, attrs, mode, true);
    }
    let operands = cx.data(instr).operands.clone();
    if operands.len() != 6 {
        return;
    }
    // Operands 2..6 are the input offsets, send sizes, output offsets and
    // receive sizes: one shape, of rank 1 or 2.
    for i in 2..6 {
        let shape = cx.shape_of(operands[i]);
        if !cx
            .array(shape)
            .is_some_and(|a| a.rank() == 1 || a.rank() == 2)
        {
            let message = format!(
                "RaggedAllToAll operand {i} must be rank 1 or 2, has shape {}",
                cx.text(shape)
            );
            cx.report(Rule::Collective, instr, message).at_operand(i);
            return;
        }
        if i > 2 && !cx.same(cx.shape_of(operands[i - 1]), shape) {
            let message = format!(
                "RaggedAllToAll operands have different shapes ({}, {i}): {} vs {}",
                i - 1,
                cx.text(cx.shape_of(operands[i - 1])),
                cx.text(shape)
            );
            cx.report(Rule::Collective, instr, message).at_operand(i);
            return;
        }
    }
    let operands = operand_shapes(cx, instr);
    let inferred = infer::collectives::ragged_all_to_all(&cx.m.shapes, &operands);
    expect_inferred(cx, instr, inferred);
}

/// collective-broadcast and collective-reduce: each operand comes back with
/// its own shape (one array, or a tuple of several). With a dynamic root the
/// last operand is not data but the roots (one group position per result).
fn check_operands_forwarded(cx: &mut Checker, instr: Instr, dynamic_root: bool) {
    let what = format!("operand of {}", cx.data(instr).opcode.name());
    let count = cx.data(instr).operands.len();
    let mut arrays = true;
    for i in 0..count {
        arrays &= expect_array_operand(cx, instr, i, &what).is_some();
    }
    if !arrays || count == 0 {
        return;
    }
    let opcode = cx.data(instr).opcode;
    let operands = operand_shapes(cx, instr);
    let inferred =
        infer::collectives::operands_forwarded(&cx.m.shapes, opcode, &operands, dynamic_root);
    expect_inferred(cx, instr, inferred);
}

fn check_collective_permute(cx: &mut Checker, instr: Instr, attrs: &CollectivePermuteAttrs) {
    let operands = cx.data(instr).operands.clone();
    let shapes = operand_shapes(cx, instr);
    // The in-place form writes slices of operand 1, at the offsets operands 2 and
    // 3 give, and carries slice_sizes.
    let in_place = attrs.slice_sizes.is_some();
    let opcode = cx.data(instr).opcode;
    if in_place && operands.len() != 4 {
        // Inference words the operand count; nothing else is checked then.
        if let Err(error) =
            infer::collectives::collective_permute_parts(&cx.m.shapes, opcode, &shapes, true)
        {
            cx.report_inference(Rule::Collective, instr, error);
        }
        return;
    }
    check_source_target_pairs(cx, instr, attrs, &operands);
    let start = opcode == Opcode::CollectivePermuteStart;
    if !in_place {
        let what = if start {
            "operand of collective-permute-start"
        } else {
            "operand of collective-permute"
        };
        let mut arrays = true;
        for i in 0..operands.len() {
            arrays &= expect_array_operand(cx, instr, i, what).is_some();
        }
        if !arrays || operands.is_empty() {
            return;
        }
    }
    let inferred = if start {
        // The start is (input, output, context…); the context is free-form.
        let declared = cx.shape_of(instr);
        let context = cx
            .tuple(declared)
            .map_or(&[][..], |e| e.get(2..).unwrap_or(&[]));
        infer::asynchronous::collective_permute_start(&cx.m.shapes, &shapes, in_place, context)
    } else {
        infer::collectives::collective_permute(&cx.m.shapes, &shapes, in_place)
    };
    expect_inferred(cx, instr, inferred);
}

/// XLA's `CheckDuplicatedSourceOrTarget`: ids in range and each named at most
/// once as a source and once as a target (in-place permutes, which move several
/// slices, once per slice).
fn check_source_target_pairs(
    cx: &mut Checker,
    instr: Instr,
    attrs: &CollectivePermuteAttrs,
    operands: &[Instr],
) {
    const ATTRIBUTE: &str = "source_target_pairs";
    let limit = if attrs.channel_id.is_some() {
        cx.m.config.partitions()
    } else {
        cx.m.config.replicas()
    };
    let allowed = if operands.len() == 4 {
        let offsets = cx.shape_of(operands[2]);
        let first_is_array = cx.array_of(operands[0]).is_some();
        let elements = if first_is_array {
            cx.tuple(offsets).map(<[Shape]>::len)
        } else {
            cx.tuple(offsets)
                .and_then(|e| e.first().copied())
                .and_then(|s| cx.tuple(s))
                .map(<[Shape]>::len)
        };
        elements.unwrap_or(1).max(1)
    } else {
        1
    };
    let mut sources = std::collections::HashMap::<i64, usize>::new();
    let mut targets = std::collections::HashMap::<i64, usize>::new();
    for &(source, target) in &attrs.source_target_pairs {
        for (role, id, seen) in [
            ("Source", source, &mut sources),
            ("Target", target, &mut targets),
        ] {
            if id < 0 || (limit != 1 && id >= limit) {
                let bound = if id < 0 {
                    ">= 0".to_string()
                } else {
                    format!("< {limit}")
                };
                cx.report(
                    Rule::Collective,
                    instr,
                    format!("{role} {id} in the instruction's source-target pair must be {bound}"),
                )
                .at_attribute(ATTRIBUTE);
                return;
            }
            let times = seen.entry(id).or_default();
            if *times == allowed {
                let message = if allowed == 1 {
                    format!(
                        "{role} {id} appears more than once in instruction's source-target pairs"
                    )
                } else {
                    format!(
                        "{role} {id} appears more than {allowed} times in instruction's source-target pairs"
                    )
                };
                cx.report(Rule::Collective, instr, message)
                    .with_hint("a device sends to, and receives from, at most one peer")
                    .at_attribute(ATTRIBUTE);
                return;
            }
            *times += 1;
        }
    }
}

// ----- send, recv, infeed, outfeed -----

/// Reports operand `index` of `instr` unless it is a token (XLA's
/// `CheckIsTokenOperand`).
fn expect_token_operand(cx: &mut Checker, instr: Instr, index: usize) {
    let Some(&operand) = cx.data(instr).operands.get(index) else {
        return;
    };
    let shape = cx.shape_of(operand);
    if !matches!(cx.shape(shape), ShapeData::Token) {
        let message = format!(
            "Expected operand {index} to be token-shaped, actual shape is {}",
            cx.text(shape)
        );
        cx.report(Rule::SendRecv, instr, message)
            .with_hint("thread a token from after-all or a previous side-effecting op")
            .at_operand(index);
    }
}

fn check_send(cx: &mut Checker, instr: Instr) {
    let Some(&data) = cx.data(instr).operands.first() else {
        return;
    };
    expect_token_operand(cx, instr, 1);
    let expected = without_layout(cx, &infer::collectives::send(cx.shape_of(data)));
    cx.expect_shape(Rule::SendRecv, instr, &expected);
}

/// The data element of a recv-like tuple shape, reporting when `shape` has none.
fn data_element(cx: &mut Checker, instr: Instr, shape: Shape, what: &str) -> Option<Shape> {
    match infer::collectives::data_element(&cx.m.shapes, shape, what) {
        Ok(data) => Some(data),
        Err(error) => {
            cx.report_inference(Rule::SendRecv, instr, error);
            None
        }
    }
}

fn check_recv(cx: &mut Checker, instr: Instr) {
    expect_token_operand(cx, instr, 0);
    let declared = cx.shape_of(instr);
    let Some(data) = data_element(cx, instr, declared, "the shape of recv") else {
        return;
    };
    let expected = without_layout(cx, &infer::collectives::recv(data));
    cx.expect_shape(Rule::SendRecv, instr, &expected);
}

fn check_recv_done(cx: &mut Checker, instr: Instr) {
    let Some(&operand) = cx.data(instr).operands.first() else {
        return;
    };
    let shape = cx.shape_of(operand);
    let Some(data) = data_element(cx, instr, shape, "the operand of recv-done") else {
        return;
    };
    let expected = infer::collectives::data_and_token(data);
    cx.expect_shape(Rule::SendRecv, instr, &expected);
}

fn check_infeed(cx: &mut Checker, instr: Instr) {
    expect_token_operand(cx, instr, 0);
    let declared = cx.shape_of(instr);
    let Some(data) = data_element(cx, instr, declared, "the shape of infeed") else {
        return;
    };
    let expected = without_layout(cx, &infer::collectives::data_and_token(data));
    cx.expect_shape(Rule::SendRecv, instr, &expected);
}

fn check_outfeed(cx: &mut Checker, instr: Instr) {
    expect_token_operand(cx, instr, 1);
    let data = cx.data(instr);
    if let (Some(&operand), Attrs::Outfeed(outfeed)) = (data.operands.first(), &data.attrs)
        && let Some(outfeed_shape) = &outfeed.outfeed_shape
    {
        let operand_shape = cx.shape_of(operand);
        if !cx.same(*outfeed_shape, operand_shape) {
            let message = format!(
                "Expected outfeed shape to be equal to operand's shape {}, actual shape is {}",
                cx.text(operand_shape),
                cx.text(*outfeed_shape)
            );
            cx.report(Rule::SendRecv, instr, message)
                .at_attribute("outfeed_shape");
        }
    }
    cx.expect_shape(Rule::SendRecv, instr, &infer::collectives::token());
}

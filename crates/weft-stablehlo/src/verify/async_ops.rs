//! Asynchronous ops in their three encodings:
//!
//! - `stablehlo.async_start` / `stablehlo.async_done` and `!stablehlo.future`,
//!   with the rules and messages of the dialect (`AsyncStartOp::inferReturnTypes`
//!   and the future type's verifier);
//! - the explicit `stablehlo.<collective>_start` / `_done` pairs of the RFC's
//!   alternative: a start returns `future<T>`, a done unwraps it, and a done
//!   must take the future of a start of its own kind;
//! - JAX's `stablehlo.custom_call @all-reduce-start` … `@all-reduce-done`:
//!   a done must take the result of a start of its own kind, and a start must
//!   carry its `async_collective_config`.

use crate::ir::attribute;
use crate::ir::{Attribute, Body, Op, Type};
use crate::ops::{ExplicitPair, OpKind};
use crate::verify::{Checker, type_text};

/// Ops an `async_start` region may hold.
const ASYNC_REGION_OPS: &[OpKind] = &[
    OpKind::AllGather,
    OpKind::AllReduce,
    OpKind::AllToAll,
    OpKind::CollectiveBroadcast,
    OpKind::CollectivePermute,
    OpKind::CollectiveReduce,
    OpKind::DynamicSlice,
    OpKind::DynamicUpdateSlice,
    OpKind::ReduceScatter,
    OpKind::Slice,
];

/// JAX's custom-call targets, start then done.
const CUSTOM_CALL_PAIRS: &[(&str, &str)] = &[
    ("all-gather-start", "all-gather-done"),
    ("all-reduce-start", "all-reduce-done"),
    ("all-to-all-start", "all-to-all-done"),
    ("collective-permute-start", "collective-permute-done"),
    ("reduce-scatter-start", "reduce-scatter-done"),
];

pub(super) fn check(cx: &mut Checker, ops: &[Op]) {
    for &op in ops {
        check_future_types(cx, op);
        match cx.body.ops[op].name.kind() {
            Some(OpKind::AsyncStart) => check_async_start(cx, op),
            Some(OpKind::AsyncDone) => check_async_done(cx, op),
            Some(OpKind::CustomCall) => check_custom_call(cx, op),
            Some(kind) => match ExplicitPair::of(kind) {
                Some(pair) if pair.start == kind => check_explicit_start(cx, op),
                Some(pair) if pair.done == kind => check_explicit_done(cx, op, pair.start),
                _ => {}
            },
            None => {}
        }
    }
}

/// Every future an op defines holds ranked tensors only.
fn check_future_types(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let mut values: Vec<_> = body.ops[op].results.clone();
    for &region in &body.ops[op].regions {
        for &block in &body.regions[region].blocks {
            values.extend(body.blocks[block].arguments.iter().copied());
        }
    }
    for value in values {
        if let Type::Future(elements) = body.ty(value) {
            for element in elements {
                let ranked = element.as_tensor().is_some_and(|t| t.dims.is_some());
                if !ranked {
                    cx.report(
                        op,
                        format!(
                            "future element type must be a ranked tensor, but got '{}'",
                            type_text(element)
                        ),
                    );
                }
            }
        }
    }
}

fn check_async_start(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let data = &body.ops[op];
    let region = match data.regions[..] {
        [] => {
            cx.report(op, "expected at least one region");
            return;
        }
        [region] => region,
        _ => {
            cx.report(op, "requires one region");
            return;
        }
    };
    let Some(&block) = body.regions[region].blocks.first() else {
        cx.report(op, "region must not be empty");
        return;
    };
    let inner_ops = &body.blocks[block].ops;
    if inner_ops.is_empty() {
        cx.report(op, "region must not be empty");
        return;
    }
    if inner_ops.len() != 2 {
        cx.report(op, "region must contain exactly one operation and a return")
            .with_hint("an async_start wraps exactly one collective or slice op; start several ops with several async_starts");
        return;
    }
    let (inner, terminator) = (inner_ops[0], inner_ops[1]);
    let allowed = body.ops[inner]
        .name
        .kind()
        .is_some_and(|k| ASYNC_REGION_OPS.contains(&k));
    if !allowed {
        cx.report(op, "region must contain a collective or slice operation")
            .with_hint("allowed: all_gather, all_reduce, all_to_all, collective_broadcast, collective_permute, collective_reduce, reduce_scatter, slice, dynamic_slice, dynamic_update_slice");
    }
    let arguments = &body.blocks[block].arguments;
    if data.operands.len() != arguments.len() {
        cx.report(
            op,
            format!(
                "number of operands ({}) must match number of region arguments ({})",
                data.operands.len(),
                arguments.len()
            ),
        );
    } else {
        for (i, (&operand, &argument)) in data.operands.iter().zip(arguments).enumerate() {
            if body.ty(operand) != body.ty(argument) {
                cx.report(
                    op,
                    format!(
                        "operand type {} at index {i} must match region argument type {}",
                        type_text(body.ty(operand)),
                        type_text(body.ty(argument))
                    ),
                );
            }
        }
    }
    let returned = &body.ops[terminator].operands;
    if returned.len() != 1 {
        cx.report(
            op,
            format!(
                "region must return exactly one value, but got {}",
                returned.len()
            ),
        );
        return;
    }
    let inferred = Type::Future(vec![body.ty(returned[0]).clone()]);
    if let [result] = data.results[..]
        && body.ty(result) != &inferred
    {
        cx.report(
            op,
            format!(
                "inferred type(s) '{}' are incompatible with return type(s) of operation '{}'",
                type_text(&inferred),
                type_text(body.ty(result))
            ),
        );
        cx.report(op, "failed to infer returned types");
    }
}

fn check_async_done(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let data = &body.ops[op];
    let [operand] = data.operands[..] else {
        return;
    };
    let Type::Future(elements) = body.ty(operand) else {
        cx.report(op, "operand must be a future type");
        return;
    };
    if elements.len() != 1 {
        cx.report(
            op,
            format!(
                "future must have exactly one type parameter, but got {}",
                elements.len()
            ),
        );
        return;
    }
    if let [result] = data.results[..]
        && body.ty(result) != &elements[0]
    {
        cx.report(
            op,
            format!(
                "inferred type(s) '{}' are incompatible with return type(s) of operation '{}'",
                type_text(&elements[0]),
                type_text(body.ty(result))
            ),
        );
    }
}

fn check_explicit_start(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let Some(&result) = body.ops[op].results.first() else {
        return;
    };
    match body.ty(result) {
        Type::Future(elements) if elements.len() == 1 => {}
        Type::Future(elements) => {
            cx.report(
                op,
                format!(
                    "must return a future of exactly one tensor, but got {}",
                    elements.len()
                ),
            );
        }
        other => {
            cx.report(op, format!("must return a future, but returns '{}'", type_text(other)))
                .with_hint("a start op returns !stablehlo.future<T>, where T is what the synchronous op returns");
        }
    }
}

fn check_explicit_done(cx: &mut Checker, op: Op, expected_start: OpKind) {
    let body = cx.body;
    let data = &body.ops[op];
    let [operand] = data.operands[..] else {
        return;
    };
    let Type::Future(elements) = body.ty(operand) else {
        cx.report(op, "operand must be a future type");
        return;
    };
    // The future may have travelled through loop state or a call; the start
    // it came from decides the kind.
    if let Some(producer) = cx.origins.source(operand) {
        let producer_name = body.ops[producer].name.as_str();
        if body.ops[producer].name.kind() != Some(expected_start) {
            let matching_done = body.ops[producer]
                .name
                .kind()
                .and_then(ExplicitPair::of)
                .filter(|pair| body.ops[producer].name.kind() == Some(pair.start))
                .map(|pair| format!("; '{producer_name}' is finished by '{}'", pair.done.name()))
                .unwrap_or_default();
            cx.report(
                op,
                format!(
                    "takes the future of '{producer_name}', but '{}' finishes only '{}'",
                    data.name.as_str(),
                    expected_start.name()
                ),
            )
            .with_hint(format!("start and done must match by kind{matching_done}"));
            return;
        }
    }
    if elements.len() == 1
        && let [result] = data.results[..]
        && body.ty(result) != &elements[0]
    {
        cx.report(
            op,
            format!(
                "result type '{}' must be the future's type '{}'",
                type_text(body.ty(result)),
                type_text(&elements[0])
            ),
        );
    }
}

fn call_target(body: &Body, op: Op) -> Option<&str> {
    attribute::find(&body.ops[op].properties, "call_target_name").and_then(Attribute::as_str)
}

fn check_custom_call(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let Some(target) = call_target(body, op) else {
        return;
    };
    if CUSTOM_CALL_PAIRS.iter().any(|&(start, _)| start == target) {
        let config = attribute::find(&body.ops[op].attributes, "mhlo.frontend_attributes")
            .and_then(Attribute::as_dictionary)
            .and_then(|d| attribute::find(d, "async_collective_config"));
        if config.and_then(Attribute::as_str).is_none() {
            cx.report(op, format!("@{target} needs its configuration: mhlo.frontend_attributes = {{async_collective_config = \"<json>\"}}"))
                .with_hint("JAX writes replica_groups, channel_id, use_global_device_ids and the collective's own fields as a JSON string");
        }
        return;
    }
    let Some(&(expected_start, _)) = CUSTOM_CALL_PAIRS.iter().find(|&&(_, done)| done == target)
    else {
        return;
    };
    let [operand] = body.ops[op].operands[..] else {
        cx.report(
            op,
            format!("@{target} takes exactly one operand, the result of @{expected_start}"),
        );
        return;
    };
    // The future may have travelled through loop state or a call; the start
    // it came from decides the kind.
    if let Some(producer) = cx.origins.source(operand) {
        let producer_target = (body.ops[producer].name.kind() == Some(OpKind::CustomCall))
            .then(|| call_target(body, producer))
            .flatten();
        if producer_target != Some(expected_start) {
            let what = match producer_target {
                Some(t) => format!("@{t}"),
                None => format!("'{}'", body.ops[producer].name.as_str()),
            };
            cx.report(
                op,
                format!(
                    "@{target} takes the result of {what}, but finishes only @{expected_start}"
                ),
            )
            .with_hint("start and done custom calls must match by kind");
        }
    }
}

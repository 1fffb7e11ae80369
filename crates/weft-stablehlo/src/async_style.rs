//! Rewriting a file between the two async styles of the StableHLO RFCs:
//!
//! - **region** (seed 002, the dialect's form): `stablehlo.async_start` whose
//!   region holds the synchronous collective, and `stablehlo.async_done`;
//! - **pairs** (seed 004, the RFC's alternative): `stablehlo.<collective>_start`
//!   carrying the collective's attributes and regions itself, and the matching
//!   `stablehlo.<collective>_done`.
//!
//! The two say the same thing for the six collectives that have a pair, so a
//! file converted one way and back prints as it started (up to where
//! discardable attributes sit: in region form they go on the collective).
//! What the other style cannot say is left as it is and reported as an
//! [`Unconverted`]:
//! - an `async_start` around a slice op or `collective_reduce` (no pair exists),
//!   or one whose region is not "the collective of the region arguments, in
//!   order, returned" (the pair form has no region to hold anything else);
//! - an `async_done` whose future cannot be traced to its start (a pair's done
//!   names its kind, so the start must be known);
//! - a `*_start` that returns a tensor rather than a future.
//!
//! Futures are traced through `while` loop state, `optimization_barrier`,
//! `if`/`case` results and `func.call` results, which is where real programs
//! carry them (a loop-carried future is how a collective overlaps the next
//! iteration, seed 003).
//!
//! JAX's custom-call encoding is a third style the rewrite leaves alone; the
//! lowering reads all three.

use crate::future_origin::FutureOrigins;
use crate::ir::attribute::NamedAttribute;
use crate::ir::{Body, Op, OpData, Type, Value};
use crate::ops::{ExplicitPair, OpKind, OpName};

/// Which async form to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncStyle {
    /// `stablehlo.async_start` with the collective in its region, and
    /// `stablehlo.async_done`.
    Region,
    /// `stablehlo.<collective>_start` and `stablehlo.<collective>_done`.
    Pairs,
}

/// An op the rewrite left in its old form, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unconverted {
    /// The op.
    pub op: Op,
    /// Why it was left alone, as a sentence fragment.
    pub reason: String,
}

/// Rewrites every async op of `body` into `style`; returns the ops that
/// could not be, in program order.
pub fn set_async_style(body: &mut Body, style: AsyncStyle) -> Vec<Unconverted> {
    let mut ops = Vec::new();
    body.walk(body.module, &mut |op| ops.push(op));
    match style {
        AsyncStyle::Pairs => to_pairs(body, &ops),
        AsyncStyle::Region => to_regions(body, &ops),
    }
}

fn to_pairs(body: &mut Body, ops: &[Op]) -> Vec<Unconverted> {
    let mut unconverted = Vec::new();
    for &op in ops {
        if body.ops[op].name.kind() == Some(OpKind::AsyncStart) {
            match wrapped_collective(body, op) {
                Ok((collective, pair)) => fold_into_start(body, op, collective, pair),
                Err(reason) => unconverted.push(Unconverted { op, reason }),
            }
        }
    }
    // Renaming a done changes no way a future travels, so every start is
    // found first.
    let origins = FutureOrigins::new(body);
    let dones: Vec<(Op, Option<Op>)> = ops
        .iter()
        .filter(|&&op| body.ops[op].name.kind() == Some(OpKind::AsyncDone))
        .filter_map(|&op| {
            let &future = body.ops[op].operands.first()?;
            Some((op, origins.source(future)))
        })
        .collect();
    drop(origins);
    for (op, source) in dones {
        match source {
            Some(start) => match body.ops[start].name.kind().and_then(ExplicitPair::of) {
                Some(pair) => body.ops[op].name = OpName::Known(pair.done),
                None => unconverted.push(Unconverted {
                    op,
                    reason: format!(
                        "its future comes from '{}', which stays in region form",
                        body.ops[start].name.as_str()
                    ),
                }),
            },
            None => unconverted.push(Unconverted {
                op,
                reason: "the start of its future cannot be found, so the kind of done to write is unknown".to_string(),
            }),
        }
    }
    unconverted
}

/// The collective an `async_start` wraps, if the pair form can say the same.
fn wrapped_collective(body: &Body, start: Op) -> Result<(Op, ExplicitPair), String> {
    let data = &body.ops[start];
    let block = match data.regions[..] {
        [region] => body
            .entry_block(region)
            .filter(|_| body.regions[region].blocks.len() == 1),
        _ => None,
    }
    .ok_or("its region is not a single block")?;
    let [inner, terminator] = body.blocks[block].ops[..] else {
        return Err("its region does not hold exactly one op and a return".to_string());
    };
    let inner_name = &body.ops[inner].name;
    let pair = inner_name
        .kind()
        .and_then(ExplicitPair::of)
        .filter(|pair| inner_name.kind() == Some(pair.collective))
        .ok_or_else(|| {
            format!(
                "'{}' has no *_start/*_done pair (only the six collectives of the RFC do)",
                inner_name.as_str()
            )
        })?;
    if body.ops[inner].operands != body.blocks[block].arguments {
        return Err(format!(
            "'{}' does not take the region's arguments in order",
            inner_name.as_str()
        ));
    }
    if body.ops[terminator].operands != body.ops[inner].results {
        return Err(format!(
            "the region does not return exactly what '{}' produces",
            inner_name.as_str()
        ));
    }
    Ok((inner, pair))
}

/// Turns `start` into `pair.start`, taking over the collective's attributes
/// and regions.
fn fold_into_start(body: &mut Body, start: Op, collective: Op, pair: ExplicitPair) {
    let wrapped = std::mem::replace(
        &mut body.ops[collective],
        OpData::new(OpName::Known(pair.collective)),
    );
    for &region in &wrapped.regions {
        body.regions[region].parent = Some(start);
    }
    let data = &mut body.ops[start];
    data.name = OpName::Known(pair.start);
    data.properties = wrapped.properties;
    data.attributes = merge_attributes(std::mem::take(&mut data.attributes), wrapped.attributes);
    data.regions = wrapped.regions;
    if data.location.is_none() {
        data.location = wrapped.location;
    }
}

/// `outer` and `inner` as one sorted dictionary; `inner` wins a name both have.
fn merge_attributes(outer: Vec<NamedAttribute>, inner: Vec<NamedAttribute>) -> Vec<NamedAttribute> {
    let mut merged: Vec<NamedAttribute> = outer
        .into_iter()
        .filter(|a| !inner.iter().any(|b| b.name == a.name))
        .collect();
    merged.extend(inner);
    merged.sort_by(|a, b| a.name.cmp(&b.name));
    merged
}

fn to_regions(body: &mut Body, ops: &[Op]) -> Vec<Unconverted> {
    let mut unconverted = Vec::new();
    for &op in ops {
        let Some(pair) = body.ops[op].name.kind().and_then(ExplicitPair::of) else {
            continue;
        };
        let kind = body.ops[op].name.kind();
        if kind == Some(pair.start) {
            let payload = match body.ops[op].results[..] {
                [result] => match body.ty(result) {
                    Type::Future(elements) => Some(elements.clone()),
                    _ => None,
                },
                _ => None,
            };
            match payload {
                Some(payload) => wrap_in_region(body, op, pair, payload),
                None => unconverted.push(Unconverted {
                    op,
                    reason: "it does not return one future, so there is no async_start to write"
                        .to_string(),
                }),
            }
        } else if kind == Some(pair.done) {
            body.ops[op].name = OpName::Known(OpKind::AsyncDone);
        }
    }
    unconverted
}

/// Turns the explicit start `op` into an `async_start` whose region holds
/// `pair.collective` with `op`'s attributes and regions.
fn wrap_in_region(body: &mut Body, op: Op, pair: ExplicitPair, payload: Vec<Type>) {
    let start = &mut body.ops[op];
    let mut collective = OpData::new(OpName::Known(pair.collective));
    collective.properties = std::mem::take(&mut start.properties);
    collective.attributes = std::mem::take(&mut start.attributes);
    collective.regions = std::mem::take(&mut start.regions);
    collective.location = start.location.clone();
    start.name = OpName::Known(OpKind::AsyncStart);
    let operand_types: Vec<Type> = start
        .operands
        .iter()
        .map(|&v| body.values[v].ty.clone())
        .collect();
    let region = body.add_region(op);
    let block = body.add_block(region);
    let arguments: Vec<Value> = operand_types
        .into_iter()
        .map(|ty| body.add_argument(block, ty, None))
        .collect();
    collective.operands = arguments;
    let inner_regions = collective.regions.clone();
    let inner = body.add_op(Some(block), collective, payload);
    for region in inner_regions {
        body.regions[region].parent = Some(inner);
    }
    let mut terminator = OpData::new(OpName::Known(OpKind::Return));
    terminator.operands = body.ops[inner].results.clone();
    body.add_op(Some(block), terminator, Vec::new());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{PrintOptions, parse, print};

    fn restyle(text: &str, style: AsyncStyle) -> (String, Vec<String>) {
        let mut body = parse(text).expect("parses");
        let kept = set_async_style(&mut body, style)
            .into_iter()
            .map(|u| format!("{}: {}", body.ops[u.op].name.as_str(), u.reason))
            .collect();
        (print(&body, &PrintOptions::default()), kept)
    }

    const SLICE_IN_REGION: &str = r#"
func.func @main(%x: tensor<8xf32>) -> tensor<4xf32> {
  %f = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<8xf32>):
    %s = "stablehlo.slice"(%a) <{start_indices = array<i64: 0>, limit_indices = array<i64: 4>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<8xf32>) -> !stablehlo.future<tensor<4xf32>>
  %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
"#;

    #[test]
    fn a_slice_has_no_pair_and_stays_in_region_form() {
        let (printed, kept) = restyle(SLICE_IN_REGION, AsyncStyle::Pairs);
        assert_eq!(
            kept,
            [
                "stablehlo.async_start: 'stablehlo.slice' has no *_start/*_done pair (only the six collectives of the RFC do)",
                "stablehlo.async_done: its future comes from 'stablehlo.async_start', which stays in region form",
            ]
        );
        let (unchanged, _) = restyle(SLICE_IN_REGION, AsyncStyle::Region);
        assert_eq!(printed, unchanged);
    }

    #[test]
    fn a_region_that_reorders_its_arguments_stays() {
        let text = r#"
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %f = "stablehlo.async_start"(%x, %y) ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = "stablehlo.collective_broadcast"(%b) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>, tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
  %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
"#;
        let (_, kept) = restyle(text, AsyncStyle::Pairs);
        assert_eq!(kept.len(), 2);
        assert!(kept[0].contains("does not take the region's arguments in order"));
    }

    #[test]
    fn a_future_returned_by_a_call_is_traced_to_its_start() {
        let text = r#"
func.func private @start(%x: tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>> {
  %f = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
  return %f : !stablehlo.future<tensor<4xf32>>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %f = call @start(%x) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
  %d = "stablehlo.collective_permute_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
"#;
        let (region, kept) = restyle(text, AsyncStyle::Region);
        assert!(kept.is_empty(), "{kept:?}");
        assert!(region.contains("\"stablehlo.async_done\""));
        let (pairs, kept) = restyle(&region, AsyncStyle::Pairs);
        assert!(kept.is_empty(), "{kept:?}");
        assert_eq!(pairs, restyle(text, AsyncStyle::Pairs).0);
        assert!(pairs.contains("\"stablehlo.collective_permute_done\""));
    }

    #[test]
    fn a_future_from_a_function_argument_cannot_be_named() {
        let text = r#"
func.func @main(%f: !stablehlo.future<tensor<4xf32>>) -> tensor<4xf32> {
  %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
"#;
        let (_, kept) = restyle(text, AsyncStyle::Pairs);
        assert_eq!(
            kept,
            [
                "stablehlo.async_done: the start of its future cannot be found, so the kind of done to write is unknown"
            ]
        );
    }
}

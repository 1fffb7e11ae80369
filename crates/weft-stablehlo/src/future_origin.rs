//! Where a future comes from.
//!
//! A `!stablehlo.future` is made by an `async_start` or an explicit
//! `*_start` (JAX's encoding makes a plain tensor with a
//! `stablehlo.custom_call @<collective>-start`, which stands for one) and may
//! travel before its done takes it: through `while` loop
//! state (a collective started in one iteration and finished in the next,
//! seed 003's ring), `optimization_barrier`, the results of `if`/`case`, and
//! the results of `func.call`. [`future_source`] follows it back; the
//! verifier uses it to match a done with its start, the async-style rewrite
//! to name a done's kind, and the lowering to finish the right HLO start.

use std::collections::HashSet;

use crate::ir::{Attribute, Body, Op, Value, ValueDef};
use crate::ops::{ExplicitPair, OpKind};

/// The op that started the future `value`, or `None` when it cannot be told
/// (a function argument, or branches that disagree are not followed further).
pub fn future_source(body: &Body, value: Value) -> Option<Op> {
    trace(body, value, &mut HashSet::new())
}

fn trace(body: &Body, value: Value, seen: &mut HashSet<Value>) -> Option<Op> {
    if !seen.insert(value) {
        return None;
    }
    match body.values[value].def {
        ValueDef::Result(op, index) => {
            let index = index as usize;
            let data = &body.ops[op];
            match data.name.kind()? {
                OpKind::AsyncStart => Some(op),
                OpKind::CustomCall if is_custom_call_start(body, op) => Some(op),
                kind if ExplicitPair::of(kind).is_some_and(|p| p.start == kind) => Some(op),
                OpKind::While | OpKind::OptimizationBarrier => {
                    trace(body, *data.operands.get(index)?, seen)
                }
                OpKind::If | OpKind::Case => data.regions.iter().find_map(|&region| {
                    let block = *body.regions[region].blocks.last()?;
                    let terminator = *body.blocks[block].ops.last()?;
                    trace(body, *body.ops[terminator].operands.get(index)?, seen)
                }),
                OpKind::Call => {
                    let callee = match body.attribute(op, "callee")? {
                        Attribute::SymbolRef(path) => path.last()?.clone(),
                        _ => return None,
                    };
                    let function = body
                        .functions()
                        .into_iter()
                        .find(|&f| body.symbol_name(f) == Some(callee.as_str()))?;
                    let region = *body.ops[function].regions.first()?;
                    body.regions[region].blocks.iter().find_map(|&block| {
                        let terminator = *body.blocks[block].ops.last()?;
                        (body.ops[terminator].name.kind() == Some(OpKind::FuncReturn))
                            .then_some(())?;
                        trace(body, *body.ops[terminator].operands.get(index)?, seen)
                    })
                }
                _ => None,
            }
        }
        ValueDef::Argument(block, index) => {
            let owner = body.parent_op(block)?;
            match body.ops[owner].name.kind()? {
                OpKind::While => trace(body, *body.ops[owner].operands.get(index as usize)?, seen),
                _ => None,
            }
        }
    }
}

/// JAX's custom-call targets that start an async collective.
pub const CUSTOM_CALL_STARTS: &[&str] = &[
    "all-gather-start",
    "all-reduce-start",
    "all-to-all-start",
    "collective-permute-start",
    "reduce-scatter-start",
];

fn is_custom_call_start(body: &Body, op: Op) -> bool {
    body.attribute(op, "call_target_name")
        .and_then(Attribute::as_str)
        .is_some_and(|target| CUSTOM_CALL_STARTS.contains(&target))
}

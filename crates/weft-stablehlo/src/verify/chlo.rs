//! CHLO's elementwise shape rules, by syntax family (the counts are checked
//! in `structure`):
//! - a unary op keeps its operand's shape (MLIR's `SameOperandsAndResultShape`),
//!   and `is_inf`, `is_pos_inf`, `is_neg_inf` give `i1`;
//! - a binary op without broadcasting (`next_after`, `polygamma`, `zeta`,
//!   `mulhi`) has operands and result of one shape;
//! - a `chlo.broadcast_*` op's operands broadcast to its result with NumPy's
//!   rule: trailing dimensions aligned, each operand dimension equal to the
//!   result's or 1.
//!
//! A dynamic dimension (`?`) is compatible with any size, and unranked
//! tensors are not checked: their shapes are known only at run time.

use crate::ir::{Dim, ElementKind, Op, Type};
use crate::ops::{OpKind, Syntax};
use crate::verify::{Checker, type_text};

pub(super) fn check(cx: &mut Checker, ops: &[Op]) {
    for &op in ops {
        let Some(kind) = cx.body.ops[op].name.kind() else {
            continue;
        };
        match kind.syntax() {
            Syntax::ChloUnary | Syntax::ChloBinary => check_same_shape(cx, op, kind),
            Syntax::ChloBroadcast => check_broadcast(cx, op),
            _ => {}
        }
    }
}

/// The dimensions of a ranked tensor (or a scalar element type).
fn dims_of(ty: &Type) -> Option<Vec<Dim>> {
    match ty {
        Type::Tensor(tensor) => tensor.dims.clone(),
        Type::Element(_) => Some(Vec::new()),
        _ => None,
    }
}

fn sizes_agree(a: Dim, b: Dim) -> bool {
    match (a, b) {
        (Dim::Static(x), Dim::Static(y)) => x == y,
        _ => true,
    }
}

fn check_same_shape(cx: &mut Checker, op: Op, kind: OpKind) {
    let data = &cx.body.ops[op];
    let types: Vec<Type> = data
        .operands
        .iter()
        .chain(&data.results)
        .map(|&v| cx.body.ty(v).clone())
        .collect();
    let ranked: Vec<Vec<Dim>> = types.iter().filter_map(dims_of).collect();
    let same = ranked.windows(2).all(|pair| {
        pair[0].len() == pair[1].len()
            && pair[0]
                .iter()
                .zip(&pair[1])
                .all(|(&a, &b)| sizes_agree(a, b))
    });
    if !same {
        cx.report(op, "requires the same shape for all operands and results");
        return;
    }
    let is_predicate = matches!(
        kind,
        OpKind::ChloIsInf | OpKind::ChloIsNegInf | OpKind::ChloIsPosInf
    );
    if let (true, Some(result)) = (is_predicate, data.results.first()) {
        let result_type = cx.body.ty(*result).clone();
        let element = result_type.as_tensor().map(|tensor| &tensor.element);
        if element.is_some_and(|element| *element != ElementKind::int(1)) {
            cx.report(
                op,
                format!(
                    "result #0 must be a tensor of i1 values, but got '{}'",
                    type_text(&result_type)
                ),
            );
        }
    }
}

fn check_broadcast(cx: &mut Checker, op: Op) {
    let data = &cx.body.ops[op];
    let Some(&result) = data.results.first() else {
        return;
    };
    let result_type = cx.body.ty(result).clone();
    let Some(target) = dims_of(&result_type) else {
        return;
    };
    for (index, &operand) in data.operands.clone().iter().enumerate() {
        let operand_type = cx.body.ty(operand).clone();
        let Some(dims) = dims_of(&operand_type) else {
            continue;
        };
        let fits = dims.len() <= target.len()
            && dims
                .iter()
                .zip(&target[target.len() - dims.len()..])
                .all(|(&size, &wanted)| size == Dim::Static(1) || sizes_agree(size, wanted));
        if !fits {
            cx.report(
                op,
                format!(
                    "operand #{index} of type '{}' does not broadcast to the result type '{}'",
                    type_text(&operand_type),
                    type_text(&result_type)
                ),
            )
            .with_hint(
                "a chlo.broadcast_* operand aligns with the result's trailing dimensions, each of the same size or 1",
            );
        }
    }
}

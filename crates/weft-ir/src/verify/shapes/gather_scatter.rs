//! Shape rules of gather and scatter (XLA's `InferGatherShape`,
//! `InferScatterShape` and their dimension-number validation).
//!
//! Indices are implicitly reshaped: when `index_vector_dim` equals the rank
//! of the indices, they gain a trailing dimension of size 1 (the "expanded"
//! indices below). Invariants the rules establish, as XLA does:
//! - gather: `offset_dims` are sorted, unique and in the output's range;
//!   `collapsed_slice_dims` and `operand_batching_dims` are sorted, unique,
//!   disjoint operand dimensions whose slice sizes are at most 1;
//!   `start_index_map` names distinct operand dimensions, one per index
//!   vector element; batching dimensions pair up with equal sizes; every
//!   operand dimension has a slice size within its bound. The output has the
//!   index batch dimensions with the slice's offset dimensions at
//!   `offset_dims`.
//! - scatter: `N` operands of one shape, indices, `N` updates of one shape;
//!   the window dimensions (`update_window_dims`, `inserted_window_dims`,
//!   `input_batching_dims`) cover the operand; update window bounds fit the
//!   operand, update scatter bounds equal the indices'; `to_apply` is a
//!   reduction over the operand element types. The result is the operand(s).
//!
//! The inferred shapes, and the checks inference makes, come from
//! [`crate::infer::gather_scatter`].

use crate::attrs::{Attrs, GatherAttrs, ScatterAttrs};
use crate::element_type::ElementType;
use crate::infer;
use crate::module::Instr;
use crate::shape::Shape;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

use super::reduce::{Init, check_reducer};

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    match &cx.data(instr).attrs {
        Attrs::Gather(gather) => check_gather(cx, instr, gather),
        Attrs::Scatter(scatter) => check_scatter(cx, instr, scatter),
        _ => {}
    }
}

// ----- gather -----

fn check_gather(cx: &mut Checker, instr: Instr, gather: &GatherAttrs) {
    let rule = Rule::Gather;
    let data = cx.data(instr);
    let (Some(&operand), Some(&indices)) = (data.operands.first(), data.operands.get(1)) else {
        return;
    };
    let (operand, indices) = (cx.shape_of(operand), cx.shape_of(indices));
    match infer::gather_scatter::gather(&cx.m.shapes, operand, indices, gather) {
        Ok(expected) => {
            cx.expect_shape(rule, instr, &expected);
        }
        Err(error) => cx.report_inference(rule, instr, error),
    }
}

// ----- scatter -----

fn check_scatter(cx: &mut Checker, instr: Instr, scatter: &ScatterAttrs) {
    let rule = Rule::Scatter;
    let data = cx.data(instr);
    let operands: Vec<Shape> = data.operands.iter().map(|&o| cx.shape_of(o)).collect();
    // Inference checks the operands and dimension numbers; the update
    // computation is checked only once those hold.
    let expected = match infer::gather_scatter::scatter(&cx.m.shapes, &operands, scatter) {
        Ok(expected) => expected,
        Err(error) => {
            cx.report_inference(rule, instr, error);
            return;
        }
    };
    let Some(&callee) = data.callees.first() else {
        return;
    };
    let count = operands.len() / 2;
    let (inputs, updates) = (&data.operands[..count], &data.operands[count + 1..]);
    // The update computation reduces operand elements with update elements.
    let operand_types: Vec<ElementType> = inputs
        .iter()
        .filter_map(|&i| cx.array_of(i).map(|a| a.elem))
        .collect();
    let update_types: Vec<ElementType> = updates
        .iter()
        .filter_map(|&u| cx.array_of(u).map(|a| a.elem))
        .collect();
    let inits: Vec<Init> = operand_types.iter().map(|&t| Init::Element(t)).collect();
    if !check_reducer(cx, instr, callee, &inits, &update_types, "to_apply") {
        return;
    }
    cx.expect_shape(rule, instr, &expected);
}

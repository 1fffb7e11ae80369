//! Shape rules of the remaining opcodes: rng, rng-bit-generator,
//! rng-get-and-update-state, custom-call, fft, triangular-solve, cholesky, the
//! batch norms, copy, copy-start/done, replica-id and partition-id (XLA's
//! `ShapeVerifier` handlers and the `ShapeInference` functions they call).
//!
//! Invariants checked:
//! - rng takes two scalars of the result's element type, which the distribution
//!   admits (uniform: float, integer or pred; normal: float);
//! - a tuple-shaped rng-bit-generator is `(state, data)` with the operand's state
//!   shape; rng-get-and-update-state is `u64[2]`;
//! - a custom-call's shape is free, but its `operand_layout_constraints` list one
//!   shape per operand, each compatible with that operand, and its aliasing names
//!   valid indices of compatible shapes;
//! - fft, triangular-solve, cholesky and the batch norms infer their results
//!   from the operands and attributes as XLA does;
//! - copy returns its operand; copy-start is `(operand, operand, u32[])` and
//!   copy-done returns element 0 of it, whose elements 0 and 1 agree;
//!   replica-id and partition-id are `u32[]`.
//!
//! `shuffle` has no shape rule: XLA's verifier gives it none to follow.
//!
//! The inferred shapes, and the checks inference makes, come from
//! [`crate::infer::misc`].

use crate::attrs::{Attrs, Distribution};
use crate::element_type::ElementType;
use crate::infer;
use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, Shape};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

use super::control::{check_output_to_operand_aliasing, without_layout};

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    match cx.data(instr).opcode {
        Opcode::Rng => check_rng(cx, instr),
        Opcode::RngBitGenerator => check_rng_bit_generator(cx, instr),
        Opcode::RngGetAndUpdateState => {
            cx.expect_shape(Rule::Rng, instr, &infer::misc::rng_get_and_update_state());
        }
        Opcode::CustomCall => check_custom_call(cx, instr),
        Opcode::Fft => check_fft(cx, instr),
        Opcode::TriangularSolve => check_triangular_solve(cx, instr),
        Opcode::Cholesky => check_cholesky(cx, instr),
        Opcode::BatchNormTraining | Opcode::BatchNormInference | Opcode::BatchNormGrad => {
            check_batch_norm(cx, instr)
        }
        Opcode::Copy => {
            if let Some(&operand) = cx.data(instr).operands.first() {
                let expected = infer::control::forwarded(cx.shape_of(operand));
                cx.expect_shape(Rule::Other, instr, &expected);
            }
        }
        Opcode::CopyStart => check_copy_start(cx, instr),
        Opcode::CopyDone => check_copy_done(cx, instr),
        Opcode::ReplicaId | Opcode::PartitionId => {
            cx.expect_shape(Rule::Other, instr, &infer::misc::device_id());
        }
        _ => {}
    }
}

/// The array data of operand `index` of `instr`.
fn operand_array<'m>(cx: &Checker<'m>, instr: Instr, index: usize) -> Option<&'m ArrayShape> {
    cx.data(instr)
        .operands
        .get(index)
        .and_then(|&o| cx.array_of(o))
}

fn check_rng(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let (&[low, high], Attrs::Rng { distribution }) = (data.operands.as_slice(), &data.attrs)
    else {
        return;
    };
    let (Some(low_array), Some(high_array)) = (
        cx.array_of(low).filter(|a| a.rank() == 0),
        cx.array_of(high).filter(|a| a.rank() == 0),
    ) else {
        cx.report(
            Rule::Rng,
            instr,
            "Expected scalar types for the two operands of Rng instruction",
        )
        .with_hint("rng's operands are the distribution's two parameters, e.g. f32[] bounds");
        return;
    };
    let result_elem = cx.array_of(instr).map(|a| a.elem);
    if low_array.elem != high_array.elem || result_elem != Some(low_array.elem) {
        cx.report(
            Rule::Rng,
            instr,
            "Expected compatible element types for the result and the two operands of Rng instruction",
        )
        .with_hint(format!(
            "the operands are {} and {}; the result must be an array of the same type",
            low_array.elem, high_array.elem
        ));
        return;
    }
    let elem = low_array.elem;
    match distribution {
        Distribution::Uniform => {
            if !(elem.is_float() || elem.is_integer() || elem == ElementType::Pred) {
                cx.report(
                    Rule::Rng,
                    instr,
                    "Element type not supported. Expected element to be of floating point type, integral type or predicate type for RngUniform",
                )
                .at_attribute("distribution");
            }
        }
        Distribution::Normal => {
            if !elem.is_float() {
                cx.report(
                    Rule::Rng,
                    instr,
                    "Element type not supported. Expected element to be FloatingPointType for RngNormal",
                )
                .at_attribute("distribution");
            }
        }
    }
}

fn check_rng_bit_generator(cx: &mut Checker, instr: Instr) {
    let Some(&state) = cx.data(instr).operands.first() else {
        return;
    };
    let declared = cx.shape_of(instr);
    // XLA accepts a bare data shape too (the form the builder no longer makes).
    let Some(elements) = cx.tuple(declared) else {
        return;
    };
    if elements.len() != 2 {
        let message = format!(
            "Expected tuple shape with 2 elements for RngBitGenerator. Got: {}",
            cx.text(declared)
        );
        cx.report(Rule::Rng, instr, message)
            .with_hint("rng-bit-generator returns (new state, random data)");
        return;
    }
    let state_shape = cx.shape_of(state);
    if !crate::shape_util::compatible(&cx.m.shapes, state_shape, elements[0]) {
        let message = format!(
            "Expected state shape to match between input and output for RngBitGenerator. Got {} vs. {}",
            cx.text(state_shape),
            cx.text(elements[0])
        );
        cx.report(Rule::Rng, instr, message)
            .with_hint("element 0 of the result is the new state, shaped like the operand");
    }
}

fn check_custom_call(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let Attrs::CustomCall(attrs) = &data.attrs else {
        return;
    };
    // The LayoutConstraint target uses the constraints for another purpose.
    if let Some(constraints) = &attrs.operand_layout_constraints
        && attrs.target != "LayoutConstraint"
    {
        const ATTRIBUTE: &str = "operand_layout_constraints";
        let operands = &data.operands;
        if constraints.len() != operands.len() {
            let message = format!(
                "custom-call has {} operands but operand_layout_constraints lists {} shapes",
                operands.len(),
                constraints.len()
            );
            cx.report(Rule::CustomCall, instr, message)
                .with_hint("a layout-constrained custom-call lists one shape per operand")
                .at_attribute(ATTRIBUTE);
        } else {
            for (i, (&operand, &constraint)) in operands.iter().zip(constraints).enumerate() {
                let operand_shape = cx.shape_of(operand);
                if !crate::shape_util::compatible(&cx.m.shapes, operand_shape, constraint) {
                    let message = format!(
                        "operand {i} has shape {} but its layout constraint is {}",
                        cx.text(operand_shape),
                        cx.text(constraint)
                    );
                    cx.report(Rule::CustomCall, instr, message)
                        .with_hint("a layout constraint may only choose the operand's layout")
                        .at_operand(i);
                }
            }
        }
    }
    check_output_to_operand_aliasing(
        cx,
        Rule::CustomCall,
        instr,
        &attrs.output_to_operand_aliasing,
    );
}

fn check_fft(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let Attrs::Fft {
        fft_type,
        fft_length,
    } = &data.attrs
    else {
        return;
    };
    let Some(input) = operand_array(cx, instr, 0) else {
        return;
    };
    match infer::misc::fft(input, *fft_type, fft_length) {
        Ok(expected) => {
            cx.expect_shape(Rule::Other, instr, &expected);
        }
        Err(error) => cx.report_inference(Rule::Other, instr, error),
    }
}

fn check_triangular_solve(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let (Some(_), Some(_), Attrs::TriangularSolve(options)) = (
        operand_array(cx, instr, 0),
        operand_array(cx, instr, 1),
        &data.attrs,
    ) else {
        return;
    };
    let (a, b) = (cx.shape_of(data.operands[0]), cx.shape_of(data.operands[1]));
    match infer::misc::triangular_solve(&cx.m.shapes, a, b, options) {
        Ok(expected) => {
            cx.expect_shape(Rule::Other, instr, &expected);
        }
        Err(error) => cx.report_inference(Rule::Other, instr, error),
    }
}

fn check_cholesky(cx: &mut Checker, instr: Instr) {
    if operand_array(cx, instr, 0).is_none() {
        return;
    }
    let operand = cx.data(instr).operands[0];
    match infer::misc::cholesky(&cx.m.shapes, cx.shape_of(operand)) {
        Ok(expected) => {
            cx.expect_shape(Rule::Other, instr, &expected);
        }
        Err(error) => cx.report_inference(Rule::Other, instr, error),
    }
}

/// The batch norms: operand 0 is the input, a floating-point array whose
/// `feature_index` dimension the other (rank-1) operands run along.
/// batch-norm-training and -grad return `(input shape, features, features)`;
/// batch-norm-inference returns the input shape.
fn check_batch_norm(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let Attrs::BatchNorm { feature_index, .. } = &data.attrs else {
        return;
    };
    if operand_array(cx, instr, 0).is_none() {
        return;
    }
    let operands: Vec<Shape> = data.operands.iter().map(|&o| cx.shape_of(o)).collect();
    match infer::misc::batch_norm(&cx.m.shapes, data.opcode, &operands, *feature_index) {
        Ok(expected) => {
            cx.expect_shape(Rule::Other, instr, &expected);
        }
        Err(error) => cx.report_inference(Rule::Other, instr, error),
    }
}

fn check_copy_start(cx: &mut Checker, instr: Instr) {
    let Some(&operand) = cx.data(instr).operands.first() else {
        return;
    };
    // XLA compares only minor_to_major here: the destination (element 0) may
    // live in another memory space.
    let expected = infer::asynchronous::copy_start(cx.shape_of(operand));
    let expected = without_layout(cx, &expected);
    cx.expect_shape(Rule::Other, instr, &expected);
}

fn check_copy_done(cx: &mut Checker, instr: Instr) {
    let Some(&operand) = cx.data(instr).operands.first() else {
        return;
    };
    let shape = cx.shape_of(operand);
    let destination = match infer::asynchronous::copy_done(&cx.m.shapes, shape) {
        Ok(destination) => destination,
        Err(error) => {
            cx.report_inference(Rule::Other, instr, error);
            return;
        }
    };
    let Some(&[destination_shape, source, ..]) = cx.tuple(shape) else {
        return;
    };
    // Memory spaces differ by design, so the buffers are compared without layouts.
    if !crate::shape_util::compatible(&cx.m.shapes, destination_shape, source) {
        let message = format!(
            "Source and destination buffers in CopyDone arguments need to be the same shape found {} and {}",
            cx.text(destination_shape),
            cx.text(source)
        );
        cx.report(Rule::Other, instr, message).at_operand(0);
        return;
    }
    let expected = without_layout(cx, &destination);
    cx.expect_shape(Rule::Other, instr, &expected);
}

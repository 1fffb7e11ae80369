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

use crate::attrs::{Attrs, Distribution, FftType, TriangularSolveAttrs};
use crate::element_type::ElementType;
use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::ArrayShape;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;
use crate::verify::expected::Expected;

use super::control::{check_output_to_operand_aliasing, without_layout};

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    match cx.data(instr).opcode {
        Opcode::Rng => check_rng(cx, instr),
        Opcode::RngBitGenerator => check_rng_bit_generator(cx, instr),
        Opcode::RngGetAndUpdateState => {
            let expected = Expected::array(ElementType::U64, vec![2]);
            cx.expect_shape(Rule::Rng, instr, &expected);
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
                cx.expect_shape(
                    Rule::Other,
                    instr,
                    &Expected::Existing(cx.shape_of(operand)),
                );
            }
        }
        Opcode::CopyStart => check_copy_start(cx, instr),
        Opcode::CopyDone => check_copy_done(cx, instr),
        Opcode::ReplicaId | Opcode::PartitionId => {
            let expected = Expected::array(ElementType::U32, Vec::new());
            cx.expect_shape(Rule::Other, instr, &expected);
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

/// An array's shape as an [`Expected`] with another element type.
fn with_element_type(array: &ArrayShape, elem: ElementType) -> Expected {
    Expected::dynamic_array(
        elem,
        array.dims.to_vec(),
        (0..array.rank()).map(|d| array.is_dynamic(d)).collect(),
    )
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
    let fft_rank = fft_length.len();
    if !(1..=3).contains(&fft_rank) {
        cx.report(
            Rule::Other,
            instr,
            format!("FFT only supports ranks 1-3; got {fft_rank}."),
        )
        .at_attribute("fft_length");
        return;
    }
    let rank = input.rank();
    let error = |cx: &mut Checker, message: String, attribute: &'static str| {
        cx.report(Rule::Other, instr, message)
            .at_attribute(attribute);
    };
    if rank < fft_rank {
        error(
            cx,
            format!(
                "FFT of rank {fft_rank} requires input of at least same rank; got input of rank {rank}"
            ),
            "fft_length",
        );
        return;
    }
    let inner = rank - fft_rank;
    let expected = match fft_type {
        FftType::Fft | FftType::Ifft => {
            if !input.elem.is_complex() {
                error(
                    cx,
                    format!(
                        "{fft_type} requires complex input type, found {}.",
                        input.elem
                    ),
                    "fft_type",
                );
                return;
            }
            with_element_type(input, input.elem)
        }
        FftType::Rfft => {
            let output_elem = match input.elem {
                ElementType::F32 => ElementType::C64,
                ElementType::F64 => ElementType::C128,
                other => {
                    error(
                        cx,
                        format!("RFFT requires F32 or F64 input type, found {other}."),
                        "fft_type",
                    );
                    return;
                }
            };
            for (i, &length) in fft_length.iter().enumerate() {
                let size = input.dims[inner + i];
                if size != length {
                    error(
                        cx,
                        format!(
                            "RFFT requires innermost dimensions match fft_length but dimension {} is {size} and should be {length}.",
                            inner + i
                        ),
                        "fft_length",
                    );
                    return;
                }
            }
            let mut result = input.clone();
            result.elem = output_elem;
            let last = fft_length[fft_rank - 1];
            // XLA keeps a zero-sized dimension as it is.
            if last != 0 {
                result.dims[rank - 1] = last / 2 + 1;
            }
            with_element_type(&result, output_elem)
        }
        FftType::Irfft => {
            let output_elem = match input.elem {
                ElementType::C64 => ElementType::F32,
                ElementType::C128 => ElementType::F64,
                other => {
                    error(
                        cx,
                        format!("IRFFT requires complex input type, found {other}."),
                        "fft_type",
                    );
                    return;
                }
            };
            for (i, &length) in fft_length.iter().enumerate().take(fft_rank - 1) {
                let size = input.dims[inner + i];
                if size != length {
                    error(
                        cx,
                        format!(
                            "IRFFT requires all but one innermost dimensions match fft_length, but dimension {} is {size} and should be {length}.",
                            inner + i
                        ),
                        "fft_length",
                    );
                    return;
                }
            }
            let last = fft_length[fft_rank - 1];
            let size = input.dims[rank - 1];
            if (size != 0 || last != 0) && size != last / 2 + 1 {
                error(
                    cx,
                    format!(
                        "IRFFT requires innermost dimension matches fft_length/2+1, but dimension {} is {size} and should be {}.",
                        rank - 1,
                        last / 2 + 1
                    ),
                    "fft_length",
                );
                return;
            }
            let mut result = input.clone();
            result.dims[rank - 1] = last;
            with_element_type(&result, output_elem)
        }
    };
    cx.expect_shape(Rule::Other, instr, &expected);
}

fn is_float_or_complex(elem: ElementType) -> bool {
    elem.is_float() || elem.is_complex()
}

fn check_triangular_solve(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let (Some(a), Some(b), Attrs::TriangularSolve(options)) = (
        operand_array(cx, instr, 0),
        operand_array(cx, instr, 1),
        &data.attrs,
    ) else {
        return;
    };
    if let Some(message) = triangular_solve_error(a, b, options) {
        cx.report(Rule::Other, instr, message);
        return;
    }
    let b_shape = cx.shape_of(data.operands[1]);
    cx.expect_shape(Rule::Other, instr, &Expected::Existing(b_shape));
}

/// What XLA's `InferTriangularSolveShape` rejects, if anything.
fn triangular_solve_error(
    a: &ArrayShape,
    b: &ArrayShape,
    options: &TriangularSolveAttrs,
) -> Option<String> {
    let shape_text = |array: &ArrayShape| {
        format!(
            "{}[{}]",
            array.elem,
            array
                .dims
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    if !is_float_or_complex(a.elem) || a.elem != b.elem {
        return Some(format!(
            "Expected element types in shape to be floating or complex and identical for TriangularSolve; got {} and {}.",
            a.elem, b.elem
        ));
    }
    let rank = a.rank();
    if rank < 2 {
        return Some(format!(
            "The 'a' argument to TriangularSolve must have rank >= 2, got shape {}",
            shape_text(a)
        ));
    }
    if b.rank() != rank {
        return Some(format!(
            "Arguments to triangular solve must have equal rank; got {} and {}.",
            shape_text(b),
            shape_text(a)
        ));
    }
    if a.dims[rank - 2] != a.dims[rank - 1] {
        return Some(format!(
            "The two minor dimensions of 'a' must have equal size, got {}.",
            shape_text(a)
        ));
    }
    let shared = if options.left_side {
        rank - 2
    } else {
        rank - 1
    };
    if a.dims[rank - 1] != b.dims[shared] {
        return Some(format!(
            "The shared dimension of 'a' and 'b' does not match, got shapes {} and {}",
            shape_text(a),
            shape_text(b)
        ));
    }
    if a.dims[..rank - 2] != b.dims[..rank - 2] {
        return Some(format!(
            "The leading batch dimensions of the arguments to triangular solve must be equal; got {} and {}.",
            shape_text(b),
            shape_text(a)
        ));
    }
    if !["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT", ""].contains(&&*options.transpose_a) {
        return Some(format!(
            "Invalid transpose option value for triangular solve ({}).",
            options.transpose_a
        ));
    }
    None
}

fn check_cholesky(cx: &mut Checker, instr: Instr) {
    let Some(a) = operand_array(cx, instr, 0) else {
        return;
    };
    let rank = a.rank();
    let message = if !is_float_or_complex(a.elem) {
        Some(format!(
            "Expected element type in shape to be floating or complex for Cholesky; got {}.",
            a.elem
        ))
    } else if rank < 2 {
        Some("The 'a' argument to Cholesky must have rank >= 2".to_string())
    } else if a.dims[rank - 2] != a.dims[rank - 1] {
        Some("The two minor dimensions of 'a' must have equal size".to_string())
    } else {
        None
    };
    if let Some(message) = message {
        cx.report(Rule::Other, instr, message).at_operand(0);
        return;
    }
    let operand = cx.data(instr).operands[0];
    cx.expect_shape(
        Rule::Other,
        instr,
        &Expected::Existing(cx.shape_of(operand)),
    );
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
    let opcode = data.opcode;
    let Some(input) = operand_array(cx, instr, 0) else {
        return;
    };
    let feature = match usize::try_from(*feature_index) {
        Ok(f) if f < input.rank() => f,
        _ => {
            let message = format!(
                "Expected feature_index of {opcode} to be smaller than the rank of operand_shape; got feature_index {feature_index}, and rank {}.",
                input.rank()
            );
            cx.report(Rule::Other, instr, message)
                .with_hint(format!("feature_index must be in 0..{}", input.rank()))
                .at_attribute("feature_index");
            return;
        }
    };
    if !input.elem.is_float() {
        let message = format!(
            "The operand to {opcode} must have a floating point element type, but the shape is {}.",
            cx.text(cx.shape_of(data.operands[0]))
        );
        cx.report(Rule::Other, instr, message).at_operand(0);
        return;
    }
    let features = input.dims[feature];
    // Which operands are per-feature vectors: all but the input, and for the
    // gradient also all but the output gradient (operand 4, input-shaped).
    let per_feature: &[usize] = match opcode {
        Opcode::BatchNormGrad => &[1, 2, 3],
        _ => &[1, 2, 3, 4],
    };
    for &i in per_feature {
        let Some(&operand) = data.operands.get(i) else {
            continue;
        };
        let shape = cx.shape_of(operand);
        let fits = cx
            .array(shape)
            .is_some_and(|a| a.elem == input.elem && a.rank() == 1 && a.dims[0] == features);
        if !fits {
            let message = format!(
                "operand {i} of {opcode} must be {}[{features}] (one value per feature), has shape {}",
                input.elem,
                cx.text(shape)
            );
            cx.report(Rule::Other, instr, message).at_operand(i);
            return;
        }
    }
    let input_shape = cx.shape_of(data.operands[0]);
    if opcode == Opcode::BatchNormGrad
        && let Some(&output_gradient) = data.operands.get(4)
        && !crate::shape_util::compatible(&cx.m.shapes, cx.shape_of(output_gradient), input_shape)
    {
        let message = format!(
            "the output gradient of batch-norm-grad must have the operand's shape {}, has {}",
            cx.text(input_shape),
            cx.text(cx.shape_of(output_gradient))
        );
        cx.report(Rule::Other, instr, message).at_operand(4);
        return;
    }
    let vector = || Expected::array(input.elem, vec![features]);
    let expected = match opcode {
        Opcode::BatchNormInference => Expected::Existing(input_shape),
        _ => Expected::Tuple(vec![Expected::Existing(input_shape), vector(), vector()]),
    };
    cx.expect_shape(Rule::Other, instr, &expected);
}

fn check_copy_start(cx: &mut Checker, instr: Instr) {
    let Some(&operand) = cx.data(instr).operands.first() else {
        return;
    };
    // XLA compares only minor_to_major here: the destination (element 0) may
    // live in another memory space.
    let operand = without_layout(cx, cx.shape_of(operand));
    let expected = Expected::Tuple(vec![
        operand.clone(),
        operand,
        Expected::array(ElementType::U32, Vec::new()),
    ]);
    cx.expect_shape(Rule::Other, instr, &expected);
}

fn check_copy_done(cx: &mut Checker, instr: Instr) {
    let Some(&operand) = cx.data(instr).operands.first() else {
        return;
    };
    let shape = cx.shape_of(operand);
    let Some(&[destination, source, ..]) = cx.tuple(shape) else {
        let message = format!(
            "the operand of copy-done must be a copy-start tuple (destination, source, context), has shape {}",
            cx.text(shape)
        );
        cx.report(Rule::Other, instr, message).at_operand(0);
        return;
    };
    // Memory spaces differ by design, so the buffers are compared without layouts.
    if !crate::shape_util::compatible(&cx.m.shapes, destination, source) {
        let message = format!(
            "Source and destination buffers in CopyDone arguments need to be the same shape found {} and {}",
            cx.text(destination),
            cx.text(source)
        );
        cx.report(Rule::Other, instr, message).at_operand(0);
        return;
    }
    let expected = without_layout(cx, destination);
    cx.expect_shape(Rule::Other, instr, &expected);
}

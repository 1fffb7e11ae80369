//! Inference for the remaining opcodes: fft, triangular-solve, cholesky, the
//! batch norms, rng-get-and-update-state, replica-id and partition-id (XLA's
//! `InferFftShape`, `InferTriangularSolveShape`, `InferCholeskyShape`,
//! `InferBatchNorm*Shape`).
//!
//! rng, rng-bit-generator and custom-call have no inferred shape: their
//! results are declared (XLA builds them from a given shape), and what the
//! verifier checks of them is not a shape computation.

use crate::attrs::{FftType, TriangularSolveAttrs};
use crate::element_type::ElementType;
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, Shape, ShapeTable};

use super::{InferError, InferredShape, shape_text_with_layout};

/// replica-id and partition-id: `u32[]`.
pub fn device_id() -> InferredShape {
    InferredShape::array(ElementType::U32, Vec::new())
}

/// rng-get-and-update-state: `u64[2]`.
pub fn rng_get_and_update_state() -> InferredShape {
    InferredShape::array(ElementType::U64, vec![2])
}

fn is_float_or_complex(elem: ElementType) -> bool {
    elem.is_float() || elem.is_complex()
}

/// fft: the operand with the element type and innermost dimensions
/// `fft_type` gives. `input` is the operand's array.
pub fn fft(
    input: &ArrayShape,
    fft_type: FftType,
    fft_length: &[i64],
) -> Result<InferredShape, InferError> {
    let error = |message: String, attribute: &'static str| {
        Err(InferError::new(message).at_attribute(attribute))
    };
    let fft_rank = fft_length.len();
    if !(1..=3).contains(&fft_rank) {
        return error(
            format!("FFT only supports ranks 1-3; got {fft_rank}."),
            "fft_length",
        );
    }
    let rank = input.rank();
    if rank < fft_rank {
        return error(
            format!(
                "FFT of rank {fft_rank} requires input of at least same rank; got input of rank {rank}"
            ),
            "fft_length",
        );
    }
    let inner = rank - fft_rank;
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            if !input.elem.is_complex() {
                return error(
                    format!(
                        "{fft_type} requires complex input type, found {}.",
                        input.elem
                    ),
                    "fft_type",
                );
            }
            Ok(InferredShape::like(input, input.elem))
        }
        FftType::Rfft => {
            let output_elem = match input.elem {
                ElementType::F32 => ElementType::C64,
                ElementType::F64 => ElementType::C128,
                other => {
                    return error(
                        format!("RFFT requires F32 or F64 input type, found {other}."),
                        "fft_type",
                    );
                }
            };
            for (i, &length) in fft_length.iter().enumerate() {
                let size = input.dims[inner + i];
                if size != length {
                    return error(
                        format!(
                            "RFFT requires innermost dimensions match fft_length but dimension {} is {size} and should be {length}.",
                            inner + i
                        ),
                        "fft_length",
                    );
                }
            }
            let mut result = input.clone();
            let last = fft_length[fft_rank - 1];
            // XLA keeps a zero-sized dimension as it is.
            if last != 0 {
                result.dims[rank - 1] = last / 2 + 1;
            }
            Ok(InferredShape::like(&result, output_elem))
        }
        FftType::Irfft => {
            let output_elem = match input.elem {
                ElementType::C64 => ElementType::F32,
                ElementType::C128 => ElementType::F64,
                other => {
                    return error(
                        format!("IRFFT requires complex input type, found {other}."),
                        "fft_type",
                    );
                }
            };
            for (i, &length) in fft_length.iter().enumerate().take(fft_rank - 1) {
                let size = input.dims[inner + i];
                if size != length {
                    return error(
                        format!(
                            "IRFFT requires all but one innermost dimensions match fft_length, but dimension {} is {size} and should be {length}.",
                            inner + i
                        ),
                        "fft_length",
                    );
                }
            }
            let last = fft_length[fft_rank - 1];
            let size = input.dims[rank - 1];
            if (size != 0 || last != 0) && size != last / 2 + 1 {
                return error(
                    format!(
                        "IRFFT requires innermost dimension matches fft_length/2+1, but dimension {} is {size} and should be {}.",
                        rank - 1,
                        last / 2 + 1
                    ),
                    "fft_length",
                );
            }
            let mut result = input.clone();
            result.dims[rank - 1] = last;
            Ok(InferredShape::like(&result, output_elem))
        }
    }
}

/// triangular-solve: `b`'s shape, once `a` and `b` fit together.
pub fn triangular_solve(
    shapes: &ShapeTable,
    a: Shape,
    b: Shape,
    options: &TriangularSolveAttrs,
) -> Result<InferredShape, InferError> {
    let (Some(a_array), Some(b_array)) = (shapes.as_array(a), shapes.as_array(b)) else {
        return Err(InferError::new(
            "the operands of triangular-solve must be arrays",
        ));
    };
    match triangular_solve_error(a_array, b_array, options) {
        Some(message) => Err(InferError::new(message)),
        None => Ok(InferredShape::Existing(b)),
    }
}

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

/// cholesky: the operand, a batch of square floating-point or complex
/// matrices.
pub fn cholesky(shapes: &ShapeTable, a: Shape) -> Result<InferredShape, InferError> {
    let Some(array) = shapes.as_array(a) else {
        return Err(InferError::new("The 'a' argument to Cholesky must be an array").at_operand(0));
    };
    let rank = array.rank();
    let message = if !is_float_or_complex(array.elem) {
        format!(
            "Expected element type in shape to be floating or complex for Cholesky; got {}.",
            array.elem
        )
    } else if rank < 2 {
        "The 'a' argument to Cholesky must have rank >= 2".to_string()
    } else if array.dims[rank - 2] != array.dims[rank - 1] {
        "The two minor dimensions of 'a' must have equal size".to_string()
    } else {
        return Ok(InferredShape::Existing(a));
    };
    Err(InferError::new(message).at_operand(0))
}

/// The batch norms: operand 0 is the input, a floating-point array whose
/// `feature_index` dimension the other (rank-1) operands run along.
/// batch-norm-training and -grad return `(input shape, features, features)`;
/// batch-norm-inference returns the input shape.
pub fn batch_norm(
    shapes: &ShapeTable,
    opcode: Opcode,
    operands: &[Shape],
    feature_index: i64,
) -> Result<InferredShape, InferError> {
    let Some(input_shape) = operands.first().copied() else {
        return Err(InferError::new(format!("{opcode} takes an input operand")));
    };
    let Some(input) = shapes.as_array(input_shape) else {
        return Err(InferError::new(format!(
            "The operand to {opcode} must have a floating point element type, but the shape is {}.",
            shape_text_with_layout(shapes, input_shape)
        ))
        .at_operand(0));
    };
    let feature = match usize::try_from(feature_index) {
        Ok(f) if f < input.rank() => f,
        _ => {
            return Err(InferError::new(format!(
                "Expected feature_index of {opcode} to be smaller than the rank of operand_shape; got feature_index {feature_index}, and rank {}.",
                input.rank()
            ))
            .with_hint(format!("feature_index must be in 0..{}", input.rank()))
            .at_attribute("feature_index"));
        }
    };
    if !input.elem.is_float() {
        return Err(InferError::new(format!(
            "The operand to {opcode} must have a floating point element type, but the shape is {}.",
            shape_text_with_layout(shapes, input_shape)
        ))
        .at_operand(0));
    }
    let features = input.dims[feature];
    // Which operands are per-feature vectors: all but the input, and for the
    // gradient also all but the output gradient (operand 4, input-shaped).
    let per_feature: &[usize] = match opcode {
        Opcode::BatchNormGrad => &[1, 2, 3],
        _ => &[1, 2, 3, 4],
    };
    for &i in per_feature {
        let Some(&shape) = operands.get(i) else {
            continue;
        };
        let fits = shapes
            .as_array(shape)
            .is_some_and(|a| a.elem == input.elem && a.rank() == 1 && a.dims[0] == features);
        if !fits {
            return Err(InferError::new(format!(
                "operand {i} of {opcode} must be {}[{features}] (one value per feature), has shape {}",
                input.elem,
                shape_text_with_layout(shapes, shape)
            ))
            .at_operand(i));
        }
    }
    if opcode == Opcode::BatchNormGrad
        && let Some(&output_gradient) = operands.get(4)
        && !crate::shape_util::compatible(shapes, output_gradient, input_shape)
    {
        return Err(InferError::new(format!(
            "the output gradient of batch-norm-grad must have the operand's shape {}, has {}",
            shape_text_with_layout(shapes, input_shape),
            shape_text_with_layout(shapes, output_gradient)
        ))
        .at_operand(4));
    }
    let vector = || InferredShape::array(input.elem, vec![features]);
    Ok(match opcode {
        Opcode::BatchNormInference => InferredShape::Existing(input_shape),
        _ => InferredShape::Tuple(vec![
            InferredShape::Existing(input_shape),
            vector(),
            vector(),
        ]),
    })
}

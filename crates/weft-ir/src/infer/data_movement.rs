//! Inference for the data-movement family: transpose, reverse, slice,
//! dynamic-slice, dynamic-update-slice, concatenate, pad, get-dimension-size
//! and set-dimension-size (XLA's `InferTransposeShape`, `InferReverseShape`,
//! `InferSliceShape`, `InferDynamicSliceShape`, `InferDynamicUpdateSliceShape`,
//! `InferConcatOpShape`, `InferPadShape`, `InferGetDimensionSizeShape`,
//! `InferSetDimensionSizeShape`).
//!
//! A dimension that moves through one of these ops keeps its dynamic flag (an
//! unbounded `?` one stays unbounded), and new sizes are computed with
//! checked arithmetic: a size that does not fit in `i64` is an error, never a
//! wrapped value. broadcast, reshape, dynamic-reshape and iota have no
//! inference here: their result is given, as in XLA, and the verifier checks
//! it against the operand.

use crate::attrs::{PaddingConfig, SliceRange};
use crate::element_type::ElementType;
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, Shape, ShapeTable, UNBOUNDED};

use super::elementwise::{array_operand, sizes_match};
use super::{InferError, InferredShape, shape_text};

/// `dimension` as an index into an array of `rank` dimensions, if in range.
pub fn dimension_index(dimension: i64, rank: usize) -> Option<usize> {
    usize::try_from(dimension).ok().filter(|&d| d < rank)
}

/// A list of numbers as `1,0,2`, for messages.
fn join(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn flags(array: &ArrayShape) -> Vec<bool> {
    (0..array.rank()).map(|d| array.is_dynamic(d)).collect()
}

/// transpose: result dimension `i` is operand dimension `permutation[i]`.
pub fn transpose(
    shapes: &ShapeTable,
    operand: Shape,
    permutation: &[i64],
) -> Result<InferredShape, InferError> {
    let input = array_operand(
        shapes,
        operand,
        Opcode::Transpose,
        0,
        "operand of transpose",
    )?;
    let mut seen = vec![false; input.rank()];
    let is_permutation = permutation.len() == input.rank()
        && permutation.iter().all(|&d| {
            dimension_index(d, input.rank()).is_some_and(|i| !std::mem::replace(&mut seen[i], true))
        });
    if !is_permutation {
        return Err(InferError::new(format!(
            "Transpose dimensions [{}] are not a permutation of the operand dimensions (operand shape is {}).",
            join(permutation),
            shape_text(shapes, operand)
        ))
        .with_hint(format!(
            "list each of 0 to {} once: result dimension i is operand dimension dimensions[i]",
            input.rank() as i64 - 1
        ))
        .at_attribute("dimensions"));
    }
    // Every entry was range-checked above.
    let source: Vec<usize> = permutation
        .iter()
        .filter_map(|&d| dimension_index(d, input.rank()))
        .collect();
    Ok(InferredShape::dynamic_array(
        input.elem,
        source.iter().map(|&d| input.dims[d]).collect(),
        source.iter().map(|&d| input.is_dynamic(d)).collect(),
    ))
}

/// reverse: the operand, once each reversed dimension exists and is named once.
pub fn reverse(
    shapes: &ShapeTable,
    operand: Shape,
    dimensions: &[i64],
) -> Result<InferredShape, InferError> {
    let input = array_operand(shapes, operand, Opcode::Reverse, 0, "operand of reverse")?;
    let mut seen = vec![false; input.rank()];
    for &dimension in dimensions {
        let Some(index) = dimension_index(dimension, input.rank()) else {
            return Err(InferError::new(format!(
                "One of the reverse dimensions ({dimension}) is out-of-bounds in shape {}.",
                shape_text(shapes, operand)
            ))
            .with_hint(format!(
                "the operand's dimensions are numbered 0 to {}",
                input.rank() as i64 - 1
            ))
            .at_attribute("dimensions"));
        };
        if std::mem::replace(&mut seen[index], true) {
            return Err(InferError::new(format!(
                "a dimension number is duplicated in reverse: {dimension}"
            ))
            .with_hint("list each reversed dimension once")
            .at_attribute("dimensions"));
        }
    }
    Ok(InferredShape::Existing(operand))
}

/// The size of `range` within a dimension of `size`, or why it is invalid.
fn slice_size(range: &SliceRange, size: i64) -> Result<i64, String> {
    let SliceRange {
        start,
        limit,
        stride,
    } = *range;
    if start < 0 {
        return Err(format!("Negative start index to slice: {start}."));
    }
    if size != UNBOUNDED && limit > size {
        return Err(format!(
            "limit index ({limit}) must be less than or equal to dimension size ({size})"
        ));
    }
    if start > limit {
        return Err(format!(
            "limit index ({limit}) must be greater or equal to start index ({start}) in slice with positive stride"
        ));
    }
    if stride <= 0 {
        return Err(format!("Stride ({stride}) must be positive."));
    }
    Ok(crate::size::slice_count(start, limit, stride).expect("a positive stride"))
}

/// slice: one `[start:limit:stride]` per operand dimension.
pub fn slice(
    shapes: &ShapeTable,
    operand: Shape,
    ranges: &[SliceRange],
) -> Result<InferredShape, InferError> {
    let input = array_operand(shapes, operand, Opcode::Slice, 0, "operand of slice")?;
    if ranges.len() != input.rank() {
        return Err(InferError::new(format!(
            "Slice index count does not match argument rank: {} vs {}.",
            ranges.len(),
            input.rank()
        ))
        .with_hint("slice takes one [start:limit:stride] per operand dimension")
        .at_attribute("slice"));
    }
    let mut dims = Vec::with_capacity(ranges.len());
    for (dimension, range) in ranges.iter().enumerate() {
        match slice_size(range, input.dims[dimension]) {
            Ok(size) => dims.push(size),
            Err(message) => {
                return Err(InferError::new(message)
                    .with_hint(format!(
                        "in dimension {dimension}: 0 <= start <= limit <= size ({}) and stride > 0",
                        input.dims[dimension]
                    ))
                    .at_attribute("slice"));
            }
        }
    }
    Ok(InferredShape::dynamic_array(input.elem, dims, flags(input)))
}

/// dynamic-slice: the operand with dimensions `sizes` (a slice of a dynamic
/// dimension stays dynamic). The start indices are the verifier's concern:
/// they do not change the shape.
pub fn dynamic_slice(
    shapes: &ShapeTable,
    operand: Shape,
    sizes: &[i64],
) -> Result<InferredShape, InferError> {
    let input = array_operand(
        shapes,
        operand,
        Opcode::DynamicSlice,
        0,
        "operand of dynamic slice",
    )?;
    if sizes.len() != input.rank() {
        return Err(InferError::new(format!(
            "Dynamic slice index count does not match argument rank: {} vs {}.",
            sizes.len(),
            input.rank()
        ))
        .with_hint("dynamic_slice_sizes has one size per operand dimension")
        .at_attribute("dynamic_slice_sizes"));
    }
    for (dimension, (&size, &input_size)) in sizes.iter().zip(input.dims.iter()).enumerate() {
        let message = if size < 0 {
            format!("Negative size index to dynamic slice: {size}.")
        } else if input_size != UNBOUNDED && size > input_size {
            format!("Slice dim size {size} greater than dynamic slice dimension: {input_size}.")
        } else {
            continue;
        };
        return Err(InferError::new(message)
            .with_hint(format!(
                "the slice size of dimension {dimension} must lie in 0..={input_size}"
            ))
            .at_attribute("dynamic_slice_sizes"));
    }
    Ok(InferredShape::dynamic_array(
        input.elem,
        sizes.to_vec(),
        flags(input),
    ))
}

/// dynamic-update-slice: the operand, into which the update fits.
pub fn dynamic_update_slice(
    shapes: &ShapeTable,
    operand: Shape,
    update: Shape,
) -> Result<InferredShape, InferError> {
    let opcode = Opcode::DynamicUpdateSlice;
    let input = array_operand(
        shapes,
        operand,
        opcode,
        0,
        "operand of dynamic update slice",
    )?;
    let update = array_operand(shapes, update, opcode, 1, "update of dynamic update slice")?;
    if update.rank() != input.rank() {
        return Err(InferError::new(format!(
            "Dynamic update slice update rank does not match argument rank: {} vs {}.",
            update.rank(),
            input.rank()
        ))
        .at_operand(1));
    }
    if update.elem != input.elem && !(update.elem.is_float() && input.elem.is_float()) {
        return Err(InferError::new(format!(
            "Dynamic update slice update element type does not match argument. operand.element_type: {} vs update.element_type: {}.",
            input.elem, update.elem
        ))
        .at_operand(1));
    }
    for (dimension, (&update_size, &input_size)) in
        update.dims.iter().zip(input.dims.iter()).enumerate()
    {
        if update_size != UNBOUNDED && input_size != UNBOUNDED && update_size > input_size {
            return Err(InferError::new(format!(
                "Update dim size {update_size} greater than dynamic update slice dimension: {input_size}."
            ))
            .with_hint(format!(
                "the update must fit in the operand: dimension {dimension} is {input_size} there"
            ))
            .at_operand(1));
        }
    }
    Ok(InferredShape::Existing(operand))
}

/// XLA's checks of concatenate's operands: at least one, all arrays of one
/// rank and element type (floating-point precision aside), agreeing in every
/// dimension but `dimension`, which exists. Returns that dimension.
pub fn concatenate_operands(
    shapes: &ShapeTable,
    operands: &[Shape],
    dimension: Option<i64>,
) -> Result<usize, InferError> {
    let Some(&first_shape) = operands.first() else {
        return Err(InferError::new("Concatenate expects at least one argument.").at_opcode());
    };
    let mut arrays = Vec::with_capacity(operands.len());
    for (index, &shape) in operands.iter().enumerate() {
        arrays.push(array_operand(
            shapes,
            shape,
            Opcode::Concatenate,
            index,
            "operand of concatenation",
        )?);
    }
    let first = arrays[0];
    let dimension = dimension.unwrap_or(-1);
    let Some(concatenated) = dimension_index(dimension, first.rank()) else {
        return Err(
            InferError::new(format!("Concatenate dimension out of bounds: {dimension}."))
                .with_hint(format!(
                    "the operands have rank {}, so the dimension lies in 0..{}",
                    first.rank(),
                    first.rank()
                ))
                .at_attribute("dimensions"),
        );
    };
    let first_text = shape_text(shapes, first_shape);
    for (index, array) in arrays.iter().enumerate().skip(1) {
        let text = shape_text(shapes, operands[index]);
        let message = if array.rank() != first.rank() {
            format!(
                "Cannot concatenate arrays with different ranks: {} ({first_text}) vs {} ({text}).",
                first.rank(),
                array.rank()
            )
        } else if array.elem != first.elem && !(array.elem.is_float() && first.elem.is_float()) {
            format!(
                "Cannot concatenate arrays with different element types: {} vs {}.",
                first.elem, array.elem
            )
        } else if let Some(d) = (0..first.rank())
            .find(|&d| d != concatenated && !sizes_match(first.dims[d], array.dims[d]))
        {
            format!(
                "Cannot concatenate arrays that differ in dimensions other than the one being concatenated. Dimension {d} in both shapes must be equal: {first_text} vs {text}."
            )
        } else {
            continue;
        };
        return Err(InferError::new(message)
            .with_hint(format!(
                "operands of a concatenate agree in everything but dimension {concatenated}"
            ))
            .at_operand(index));
    }
    Ok(concatenated)
}

/// concatenate along `dimension`: the sizes there add up (one unbounded
/// operand makes the sum unbounded; a sum that overflows is an error), and the
/// dimension is dynamic if it is in any operand. The other dimensions are the
/// first operand's (the operands agree on them up to unbounded sizes and
/// dynamic flags).
pub fn concatenate(
    shapes: &ShapeTable,
    operands: &[Shape],
    dimension: Option<i64>,
) -> Result<InferredShape, InferError> {
    let concatenated = concatenate_operands(shapes, operands, dimension)?;
    let arrays: Vec<&ArrayShape> = operands
        .iter()
        .filter_map(|&s| shapes.as_array(s))
        .collect();
    let first = arrays[0];
    let mut sum = 0i64;
    for array in &arrays {
        let size = array.dims[concatenated];
        if size == UNBOUNDED || sum == UNBOUNDED {
            sum = UNBOUNDED;
            continue;
        }
        sum = sum.checked_add(size).ok_or_else(|| {
            InferError::new(format!("the size of dimension {concatenated} overflows"))
                .with_hint("the concatenated sizes must add up to at most 2^63 - 1")
                .at_attribute("dimensions")
        })?;
    }
    let mut dims = first.dims.to_vec();
    let mut dynamic = flags(first);
    dims[concatenated] = sum;
    dynamic[concatenated] = arrays.iter().any(|a| a.is_dynamic(concatenated));
    Ok(InferredShape::dynamic_array(first.elem, dims, dynamic))
}

/// XLA's checks of pad's operands: an array, a scalar padding value of its
/// element type (floating-point precision aside), one padding entry per
/// dimension.
pub fn pad_operands(
    shapes: &ShapeTable,
    operand: Shape,
    value: Shape,
    config: &PaddingConfig,
) -> Result<(), InferError> {
    let Some(input) = shapes.as_array(operand) else {
        return Err(
            InferError::new("Pad operation does not support tuple-shape operands.").at_operand(0),
        );
    };
    let Some(value_array) = shapes.as_array(value).filter(|a| a.rank() == 0) else {
        return Err(
            InferError::new("Pad operation does not support non-scalar padding values.")
                .with_hint(format!(
                    "the padding value is {}; pad takes a scalar",
                    shape_text(shapes, value)
                ))
                .at_operand(1),
        );
    };
    if config.dims.len() != input.rank() {
        return Err(InferError::new(format!(
            "The rank of the operand and the padding configuration do not match: {} vs {} dimensions.",
            shape_text(shapes, operand),
            config.dims.len()
        ))
        .with_hint("padding has one low_high[_interior] entry per operand dimension")
        .at_attribute("padding"));
    }
    if value_array.elem != input.elem && !(value_array.elem.is_float() && input.elem.is_float()) {
        return Err(
            InferError::new("The element types of the operands to Pad do not match.")
                .with_hint(format!(
                    "the operand is {}, the padding value {}",
                    input.elem, value_array.elem
                ))
                .at_operand(1),
        );
    }
    Ok(())
}

/// pad: each dimension grows by its edge padding and, between elements, its
/// interior padding; a dynamic dimension stays dynamic (its bound padded).
pub fn pad(
    shapes: &ShapeTable,
    operand: Shape,
    value: Shape,
    config: &PaddingConfig,
) -> Result<InferredShape, InferError> {
    pad_operands(shapes, operand, value, config)?;
    let input = shapes.as_array(operand).expect("pad_operands checked it");
    if let Some(dimension) = config.dims.iter().position(|p| p.interior < 0) {
        let interior = config.dims[dimension].interior;
        return Err(
            InferError::new(format!("Interior padding cannot be negative: {interior}"))
                .with_hint("edge padding may be negative; interior padding may not")
                .at_attribute("padding"),
        );
    }
    let mut dims = Vec::with_capacity(config.dims.len());
    for (dimension, (&size, padding)) in input.dims.iter().zip(&config.dims).enumerate() {
        if size == UNBOUNDED {
            dims.push(UNBOUNDED);
            continue;
        }
        match padding.padded_size(size) {
            Some(padded) if padded >= 0 => dims.push(padded),
            _ => {
                return Err(InferError::new(format!(
                    "Padding result in negative size for dimension {dimension}"
                ))
                .with_hint(format!(
                    "low + high + size + (size - 1) * interior must be >= 0; size is {size}"
                ))
                .at_attribute("padding"));
            }
        }
    }
    Ok(InferredShape::dynamic_array(input.elem, dims, flags(input)))
}

/// The dimension a get/set-dimension-size reads or writes (`name` is the
/// opcode in XLA's words).
pub fn size_dimension(input: &ArrayShape, dimension: i64, name: &str) -> Result<usize, InferError> {
    dimension_index(dimension, input.rank()).ok_or_else(|| {
        InferError::new(format!("{name} dimension out of bounds: {dimension}."))
            .with_hint(format!("the operand has rank {}", input.rank()))
            .at_attribute("dimensions")
    })
}

/// get-dimension-size: `s32[]`.
pub fn get_dimension_size(
    shapes: &ShapeTable,
    operand: Shape,
    dimension: i64,
) -> Result<InferredShape, InferError> {
    let input = array_operand(
        shapes,
        operand,
        Opcode::GetDimensionSize,
        0,
        "operand of get-dimension-size",
    )?;
    size_dimension(input, dimension, "GetDimensionSize")?;
    Ok(InferredShape::array(ElementType::S32, Vec::new()))
}

/// set-dimension-size: the operand with that dimension made dynamic.
pub fn set_dimension_size(
    shapes: &ShapeTable,
    operand: Shape,
    value: Shape,
    dimension: i64,
) -> Result<InferredShape, InferError> {
    let input = array_operand(
        shapes,
        operand,
        Opcode::SetDimensionSize,
        0,
        "operand of set-dimension-size",
    )?;
    let dimension = size_dimension(input, dimension, "SetDimensionSize")?;
    let value_is_s32_scalar = shapes
        .as_array(value)
        .is_some_and(|a| a.rank() == 0 && a.elem == ElementType::S32);
    if !value_is_s32_scalar {
        return Err(
            InferError::new("SetDimensionSize's value has to be S32 scalar.")
                .with_hint(format!("the value is {}", shape_text(shapes, value)))
                .at_operand(1),
        );
    }
    let mut dynamic = flags(input);
    dynamic[dimension] = true;
    Ok(InferredShape::dynamic_array(
        input.elem,
        input.dims.to_vec(),
        dynamic,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_sizes_round_up_and_reject_bad_ranges() {
        let range = |start, limit, stride| SliceRange {
            start,
            limit,
            stride,
        };
        assert_eq!(slice_size(&range(0, 10, 3), 10), Ok(4));
        assert_eq!(slice_size(&range(2, 2, 1), 10), Ok(0));
        assert_eq!(slice_size(&range(0, i64::MAX, i64::MAX), UNBOUNDED), Ok(1));
        assert!(slice_size(&range(-1, 2, 1), 10).is_err());
        assert!(slice_size(&range(0, 11, 1), 10).is_err());
        assert!(slice_size(&range(3, 2, 1), 10).is_err());
        assert!(slice_size(&range(0, 2, 0), 10).is_err());
    }
}

//! Shape rules of the data-movement family: broadcast, reshape and
//! dynamic-reshape, transpose, reverse, slice, dynamic-slice and
//! dynamic-update-slice, concatenate, pad, iota, and get/set-dimension-size.
//! They follow XLA's `ShapeVerifier` handlers of the same names and the
//! `ShapeInference` functions those call.
//!
//! Invariants checked:
//! - broadcast keeps the element type and maps operand dimension `i` to result
//!   dimension `dimensions[i]` of the same size; the dimensions need not be
//!   sorted (XLA's verifier does not require it);
//! - reshape and dynamic-reshape keep the element type and the element count
//!   (bounds count for bounded dimensions); dynamic-reshape takes one `s32`
//!   size per result dimension;
//! - transpose's dimensions are a permutation and the result is the permuted
//!   operand; reverse's dimensions are distinct and in range;
//! - slice ranges lie within the operand, with positive strides; each result
//!   dimension is `ceil((limit - start) / stride)`;
//! - dynamic-slice and dynamic-update-slice take one integer scalar start index
//!   per operand dimension, all of one type (or XLA's legacy single index
//!   vector); slice and update sizes fit in the operand;
//! - concatenate's operands share rank, element type and every dimension but
//!   the concatenated one, which sums;
//! - pad's configuration has one entry per dimension with non-negative
//!   interior padding (edges may be negative); the padding value is a scalar of
//!   the operand's type; each result dimension is
//!   `low + high + size + max(size - 1, 0) * interior`, never negative;
//! - iota produces a non-scalar array of numbers and counts along a dimension
//!   in range;
//! - get-dimension-size reads a dimension in range and gives `s32[]`;
//!   set-dimension-size sets one from an `s32[]` value.
//!
//! Results are compared as XLA compares them (see
//! [`super::elementwise::expect_array`]): layouts and dynamic flags aside, with
//! unbounded dimensions matching any size. Attribute values come from text and
//! may be anything: every index is range-checked before use, and sizes are
//! computed with checked arithmetic.

use crate::attrs::{Attrs, SliceRange};
use crate::element_type::ElementType;
use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, UNBOUNDED};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;
use crate::verify::expected::Expected;

use super::elementwise::{
    check_mixed_precision, dynamic_flags, expect_array, human, is_scalar, operand, operand_array,
    result_array, sizes_match,
};

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    match cx.data(instr).opcode {
        Opcode::Broadcast => check_broadcast(cx, instr),
        Opcode::Reshape => check_reshape(cx, instr),
        Opcode::DynamicReshape => check_dynamic_reshape(cx, instr),
        Opcode::Transpose => check_transpose(cx, instr),
        Opcode::Reverse => check_reverse(cx, instr),
        Opcode::Slice => check_slice(cx, instr),
        Opcode::DynamicSlice => check_dynamic_slice(cx, instr),
        Opcode::DynamicUpdateSlice => check_dynamic_update_slice(cx, instr),
        Opcode::Concatenate => check_concatenate(cx, instr),
        Opcode::Pad => check_pad(cx, instr),
        Opcode::Iota => check_iota(cx, instr),
        Opcode::GetDimensionSize => check_get_dimension_size(cx, instr),
        Opcode::SetDimensionSize => check_set_dimension_size(cx, instr),
        _ => {}
    }
}

/// The `dimensions={…}` attribute of `instr` (empty when absent).
fn dimensions_attribute<'m>(cx: &Checker<'m>, instr: Instr) -> &'m [i64] {
    cx.data(instr).attrs.dimensions().unwrap_or(&[])
}

/// `dimension` as an index into an array of `rank` dimensions, if in range.
fn dimension_index(dimension: i64, rank: usize) -> Option<usize> {
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

/// The element count XLA's `ElementsIn` gives (bounds for bounded dynamic
/// dimensions); `None` with an unbounded dimension or on overflow.
fn elements_in(array: &ArrayShape) -> Option<i64> {
    array.element_count()
}

// ----- broadcast, reshape, transpose, reverse -----

fn check_broadcast(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Broadcast;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of broadcast") else {
        return;
    };
    let Some(output) = result_array(cx, rule, instr) else {
        return;
    };
    // HLO broadcast has no shape inference in XLA: the verifier checks the
    // declared result against the operand directly.
    if input.elem != output.elem {
        cx.report(
            rule,
            instr,
            format!(
                "Broadcast cannot change the element type: operand is {}, result is {}",
                input.elem, output.elem
            ),
        )
        .with_hint("convert before or after broadcasting");
        return;
    }
    let dimensions = dimensions_attribute(cx, instr);
    if dimensions.len() != input.rank() {
        cx.report(
            rule,
            instr,
            format!(
                "Broadcast has invalid number of dimensions: {} != {}",
                dimensions.len(),
                input.rank()
            ),
        )
        .with_hint(format!(
            "dimensions lists, for each of the operand's {} dimensions, the result dimension it becomes",
            input.rank()
        ))
        .at_attribute("dimensions");
        return;
    }
    for (operand_dimension, &output_dimension) in dimensions.iter().enumerate() {
        let Some(index) = dimension_index(output_dimension, output.rank()) else {
            cx.report(
                rule,
                instr,
                format!(
                    "Broadcast dimension {output_dimension} is out of bounds for a result of rank {}",
                    output.rank()
                ),
            )
            .with_hint(format!(
                "result dimensions are numbered 0 to {}",
                output.rank() as i64 - 1
            ))
            .at_attribute("dimensions");
            return;
        };
        let (operand_size, output_size) = (input.dims[operand_dimension], output.dims[index]);
        if !sizes_match(operand_size, output_size) {
            cx.report(
                rule,
                instr,
                format!(
                    "Broadcast operand dimension {operand_dimension} (size {operand_size}) maps to result dimension {output_dimension} of size {output_size}; the sizes must be equal"
                ),
            )
            .with_hint(
                "broadcast dimensions must map operand dims to equal output dims; reshape away size-1 dimensions first",
            )
            .at_attribute("dimensions");
            return;
        }
    }
}

/// The element type and count checks shared by reshape and dynamic-reshape.
fn check_reshape_elements(
    cx: &mut Checker,
    instr: Instr,
    input: &ArrayShape,
    output: &ArrayShape,
) -> bool {
    let rule = Rule::Reshape;
    let opcode = cx.data(instr).opcode;
    if input.elem != output.elem {
        cx.report(
            rule,
            instr,
            format!(
                "{opcode} cannot change the element type: operand is {}, result is {}",
                input.elem, output.elem
            ),
        )
        .with_hint("convert before or after reshaping");
        return false;
    }
    if let (Some(input_count), Some(output_count)) = (elements_in(input), elements_in(output))
        && input_count != output_count
    {
        let Some(input_instr) = operand(cx, instr, 0) else {
            return false;
        };
        let input_shape = human(cx, cx.shape_of(input_instr));
        let output_shape = human(cx, cx.shape_of(instr));
        cx.report(
            rule,
            instr,
            format!(
                "{opcode} must keep the element count: operand {input_shape} has {input_count} elements, result {output_shape} has {output_count}"
            ),
        )
        .with_hint("the product of the dimensions must not change");
        return false;
    }
    true
}

fn check_reshape(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Reshape;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of reshape") else {
        return;
    };
    let Some(output) = result_array(cx, rule, instr) else {
        return;
    };
    check_reshape_elements(cx, instr, input, output);
}

fn check_dynamic_reshape(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Reshape;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of dynamic-reshape") else {
        return;
    };
    let Some(output) = result_array(cx, rule, instr) else {
        return;
    };
    if !check_reshape_elements(cx, instr, input, output) {
        return;
    }
    let operand_count = cx.data(instr).operands.len();
    if operand_count != output.rank() + 1 {
        cx.report(
            rule,
            instr,
            format!(
                "dynamic-reshape takes the operand and one size per result dimension: expected {} operands, got {operand_count}",
                output.rank() + 1
            ),
        )
        .at_opcode();
        return;
    }
    for index in 1..operand_count {
        let Some(size) = operand_array(cx, rule, instr, index, "size of dynamic-reshape") else {
            return;
        };
        if size.elem != ElementType::S32 {
            cx.report(
                rule,
                instr,
                format!(
                    "dynamic-reshape sizes must be s32, but operand {index} is {}",
                    size.elem
                ),
            )
            .at_operand(index);
            return;
        }
    }
}

fn check_transpose(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Transpose;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of transpose") else {
        return;
    };
    let permutation = dimensions_attribute(cx, instr);
    let mut seen = vec![false; input.rank()];
    let is_permutation = permutation.len() == input.rank()
        && permutation.iter().all(|&d| {
            dimension_index(d, input.rank()).is_some_and(|i| !std::mem::replace(&mut seen[i], true))
        });
    if !is_permutation {
        let Some(input_instr) = operand(cx, instr, 0) else {
            return;
        };
        let input_shape = human(cx, cx.shape_of(input_instr));
        cx.report(
            rule,
            instr,
            format!(
                "Transpose dimensions [{}] are not a permutation of the operand dimensions (operand shape is {input_shape}).",
                join(permutation)
            ),
        )
        .with_hint(format!(
            "list each of 0 to {} once: result dimension i is operand dimension dimensions[i]",
            input.rank() as i64 - 1
        ))
        .at_attribute("dimensions");
        return;
    }
    // Result dimension i is operand dimension permutation[i]; every entry was
    // range-checked above.
    let source: Vec<usize> = permutation
        .iter()
        .filter_map(|&d| dimension_index(d, input.rank()))
        .collect();
    let dims = source.iter().map(|&d| input.dims[d]).collect();
    let dynamic = source.iter().map(|&d| input.is_dynamic(d)).collect();
    expect_array(cx, rule, instr, input.elem, dims, dynamic);
}

fn check_reverse(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Transpose;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of reverse") else {
        return;
    };
    let dimensions = dimensions_attribute(cx, instr);
    let mut seen = vec![false; input.rank()];
    for &dimension in dimensions {
        let Some(index) = dimension_index(dimension, input.rank()) else {
            let input_shape = match operand(cx, instr, 0) {
                Some(input_instr) => human(cx, cx.shape_of(input_instr)),
                None => return,
            };
            cx.report(
                rule,
                instr,
                format!(
                    "One of the reverse dimensions ({dimension}) is out-of-bounds in shape {input_shape}."
                ),
            )
            .with_hint(format!(
                "the operand's dimensions are numbered 0 to {}",
                input.rank() as i64 - 1
            ))
            .at_attribute("dimensions");
            return;
        };
        if std::mem::replace(&mut seen[index], true) {
            cx.report(
                rule,
                instr,
                format!("a dimension number is duplicated in reverse: {dimension}"),
            )
            .with_hint("list each reversed dimension once")
            .at_attribute("dimensions");
            return;
        }
    }
    expect_array(
        cx,
        rule,
        instr,
        input.elem,
        input.dims.to_vec(),
        dynamic_flags(input),
    );
}

// ----- slices -----

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

fn check_slice(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Slice;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of slice") else {
        return;
    };
    let Attrs::Slice(ranges) = &cx.data(instr).attrs else {
        return;
    };
    if ranges.len() != input.rank() {
        cx.report(
            rule,
            instr,
            format!(
                "Slice index count does not match argument rank: {} vs {}.",
                ranges.len(),
                input.rank()
            ),
        )
        .with_hint("slice takes one [start:limit:stride] per operand dimension")
        .at_attribute("slice");
        return;
    }
    let mut dims = Vec::with_capacity(ranges.len());
    for (dimension, range) in ranges.iter().enumerate() {
        match slice_size(range, input.dims[dimension]) {
            Ok(size) => dims.push(size),
            Err(message) => {
                cx.report(rule, instr, message)
                    .with_hint(format!(
                        "in dimension {dimension}: 0 <= start <= limit <= size ({}) and stride > 0",
                        input.dims[dimension]
                    ))
                    .at_attribute("slice");
                return;
            }
        }
    }
    expect_array(cx, rule, instr, input.elem, dims, dynamic_flags(input));
}

/// Whether `elem` may index a dynamic slice.
fn is_index_type(elem: ElementType) -> bool {
    elem.is_integer()
}

/// Checks the start indices of a dynamic-slice or dynamic-update-slice, which
/// begin at operand `first`: one integer scalar per dimension of `input`, all
/// of one type, or XLA's legacy form, a single integer vector of that length.
/// `what` names the opcode in XLA's words.
fn check_start_indices(
    cx: &mut Checker,
    instr: Instr,
    first: usize,
    input: &ArrayShape,
    what: &str,
) -> bool {
    let rule = Rule::DynamicSlice;
    let count = cx.data(instr).operands.len().saturating_sub(first);
    let mut index_shapes = Vec::with_capacity(count);
    for index in first..first + count {
        match operand_array(cx, rule, instr, index, &format!("start index of {what}")) {
            Some(array) => index_shapes.push(array),
            None => return false,
        }
    }
    if let [vector] = index_shapes.as_slice()
        && vector.rank() == 1
    {
        // The legacy form: one vector holding every start index.
        if !is_index_type(vector.elem) {
            cx.report(
                rule,
                instr,
                format!("{what} start indices must be of integral type."),
            )
            .at_operand(first);
            return false;
        }
        if !sizes_match(vector.dims[0], input.rank() as i64) {
            cx.report(
                rule,
                instr,
                format!(
                    "{what} start number of dimensions {} must match rank {} of slice input.",
                    vector.dims[0],
                    input.rank()
                ),
            )
            .at_operand(first);
            return false;
        }
        return true;
    }
    if count != input.rank() {
        let opcode = cx.data(instr).opcode;
        cx.report(
            rule,
            instr,
            format!(
                "{what} start number of dimensions {count} must match rank {} of slice input.",
                input.rank()
            ),
        )
        .with_hint(format!(
            "{opcode} takes one scalar start index per operand dimension"
        ))
        .at_opcode();
        return false;
    }
    let Some(first_shape) = index_shapes.first() else {
        return true;
    };
    for (offset, shape) in index_shapes.iter().enumerate() {
        let index = first + offset;
        let message = if !is_scalar(shape) {
            let text = match operand(cx, instr, index) {
                Some(o) => human(cx, cx.shape_of(o)),
                None => return false,
            };
            format!("{what} indices must be scalar, not {text}.")
        } else if !is_index_type(shape.elem) {
            format!("{what} start indices must be of integral type.")
        } else if shape.elem != first_shape.elem {
            format!(
                "{what} start indices must all have the same type, but got {} and {}.",
                first_shape.elem, shape.elem
            )
        } else {
            continue;
        };
        cx.report(rule, instr, message)
            .with_hint("start indices are integer scalars, all of one type")
            .at_operand(index);
        return false;
    }
    true
}

fn check_dynamic_slice(cx: &mut Checker, instr: Instr) {
    let rule = Rule::DynamicSlice;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of dynamic slice") else {
        return;
    };
    if !check_start_indices(cx, instr, 1, input, "Dynamic slice") {
        return;
    }
    let Attrs::DynamicSlice { sizes } = &cx.data(instr).attrs else {
        return;
    };
    if sizes.len() != input.rank() {
        cx.report(
            rule,
            instr,
            format!(
                "Dynamic slice index count does not match argument rank: {} vs {}.",
                sizes.len(),
                input.rank()
            ),
        )
        .with_hint("dynamic_slice_sizes has one size per operand dimension")
        .at_attribute("dynamic_slice_sizes");
        return;
    }
    for (dimension, (&size, &input_size)) in sizes.iter().zip(input.dims.iter()).enumerate() {
        let message = if size < 0 {
            format!("Negative size index to dynamic slice: {size}.")
        } else if input_size != UNBOUNDED && size > input_size {
            format!("Slice dim size {size} greater than dynamic slice dimension: {input_size}.")
        } else {
            continue;
        };
        cx.report(rule, instr, message)
            .with_hint(format!(
                "the slice size of dimension {dimension} must lie in 0..={input_size}"
            ))
            .at_attribute("dynamic_slice_sizes");
        return;
    }
    // A slice of a bounded dynamic dimension stays dynamic.
    expect_array(
        cx,
        rule,
        instr,
        input.elem,
        sizes.to_vec(),
        dynamic_flags(input),
    );
}

fn check_dynamic_update_slice(cx: &mut Checker, instr: Instr) {
    let rule = Rule::DynamicSlice;
    let input = operand_array(cx, rule, instr, 0, "operand of dynamic update slice");
    let update = operand_array(cx, rule, instr, 1, "update of dynamic update slice");
    let (Some(input), Some(update)) = (input, update) else {
        return;
    };
    if !check_start_indices(cx, instr, 2, input, "Dynamic update slice") {
        return;
    }
    if update.rank() != input.rank() {
        cx.report(
            rule,
            instr,
            format!(
                "Dynamic update slice update rank does not match argument rank: {} vs {}.",
                update.rank(),
                input.rank()
            ),
        )
        .at_operand(1);
        return;
    }
    if update.elem != input.elem && !(update.elem.is_float() && input.elem.is_float()) {
        cx.report(
            rule,
            instr,
            format!(
                "Dynamic update slice update element type does not match argument. operand.element_type: {} vs update.element_type: {}.",
                input.elem, update.elem
            ),
        )
        .at_operand(1);
        return;
    }
    for (dimension, (&update_size, &input_size)) in
        update.dims.iter().zip(input.dims.iter()).enumerate()
    {
        if update_size != UNBOUNDED && input_size != UNBOUNDED && update_size > input_size {
            cx.report(
                rule,
                instr,
                format!(
                    "Update dim size {update_size} greater than dynamic update slice dimension: {input_size}."
                ),
            )
            .with_hint(format!(
                "the update must fit in the operand: dimension {dimension} is {input_size} there"
            ))
            .at_operand(1);
            return;
        }
    }
    if !check_mixed_precision(cx, rule, instr) {
        return;
    }
    // dynamic-update-slice is one of the opcodes XLA compares exactly when
    // layout-sensitive: the result is the operand, layout included.
    if cx.options.layout_sensitive
        && let Some(input_instr) = operand(cx, instr, 0)
    {
        let expected = Expected::Existing(cx.shape_of(input_instr));
        cx.expect_shape(rule, instr, &expected);
        return;
    }
    expect_array(
        cx,
        rule,
        instr,
        input.elem,
        input.dims.to_vec(),
        dynamic_flags(input),
    );
}

// ----- concatenate and pad -----

fn check_concatenate(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Concatenate;
    let operand_count = cx.data(instr).operands.len();
    if operand_count == 0 {
        cx.report(rule, instr, "Concatenate expects at least one argument.")
            .at_opcode();
        return;
    }
    let mut arrays = Vec::with_capacity(operand_count);
    for index in 0..operand_count {
        match operand_array(cx, rule, instr, index, "operand of concatenation") {
            Some(array) => arrays.push(array),
            None => return,
        }
    }
    let first = arrays[0];
    let dimension = dimensions_attribute(cx, instr)
        .first()
        .copied()
        .unwrap_or(-1);
    let Some(concatenated) = dimension_index(dimension, first.rank()) else {
        cx.report(
            rule,
            instr,
            format!("Concatenate dimension out of bounds: {dimension}."),
        )
        .with_hint(format!(
            "the operands have rank {}, so the dimension lies in 0..{}",
            first.rank(),
            first.rank()
        ))
        .at_attribute("dimensions");
        return;
    };
    let first_shape = match operand(cx, instr, 0) {
        Some(o) => human(cx, cx.shape_of(o)),
        None => return,
    };
    for (index, array) in arrays.iter().enumerate().skip(1) {
        let shape = match operand(cx, instr, index) {
            Some(o) => human(cx, cx.shape_of(o)),
            None => return,
        };
        let message = if array.rank() != first.rank() {
            format!(
                "Cannot concatenate arrays with different ranks: {} ({first_shape}) vs {} ({shape}).",
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
                "Cannot concatenate arrays that differ in dimensions other than the one being concatenated. Dimension {d} in both shapes must be equal: {first_shape} vs {shape}."
            )
        } else {
            continue;
        };
        cx.report(rule, instr, message)
            .with_hint(format!(
                "operands of a concatenate agree in everything but dimension {concatenated}"
            ))
            .at_operand(index);
        return;
    }
    if !check_mixed_precision(cx, rule, instr) {
        return;
    }
    let mut dims = first.dims.to_vec();
    // The concatenated dimension sums; an unbounded operand makes it unbounded.
    dims[concatenated] = arrays
        .iter()
        .try_fold(0i64, |sum, array| {
            let size = array.dims[concatenated];
            if size == UNBOUNDED {
                None
            } else {
                sum.checked_add(size)
            }
        })
        .unwrap_or(UNBOUNDED);
    for (d, size) in dims.iter_mut().enumerate() {
        if *size == UNBOUNDED && d != concatenated {
            // Take a known size from another operand.
            if let Some(known) = arrays.iter().map(|a| a.dims[d]).find(|&s| s != UNBOUNDED) {
                *size = known;
            }
        }
    }
    let dynamic = (0..first.rank())
        .map(|d| arrays.iter().any(|a| a.is_dynamic(d)))
        .collect();
    expect_array(cx, rule, instr, first.elem, dims, dynamic);
}

fn check_pad(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Pad;
    let Some(input_instr) = operand(cx, instr, 0) else {
        return;
    };
    let Some(input) = cx.array_of(input_instr) else {
        cx.report(
            rule,
            instr,
            "Pad operation does not support tuple-shape operands.",
        )
        .at_operand(0);
        return;
    };
    let Some(value_instr) = operand(cx, instr, 1) else {
        return;
    };
    let Some(value) = cx.array_of(value_instr).filter(|a| is_scalar(a)) else {
        let value_shape = human(cx, cx.shape_of(value_instr));
        cx.report(
            rule,
            instr,
            "Pad operation does not support non-scalar padding values.",
        )
        .with_hint(format!(
            "the padding value is {value_shape}; pad takes a scalar"
        ))
        .at_operand(1);
        return;
    };
    let Attrs::Pad(config) = &cx.data(instr).attrs else {
        return;
    };
    let input_shape = human(cx, cx.shape_of(input_instr));
    if config.dims.len() != input.rank() {
        cx.report(
            rule,
            instr,
            format!(
                "The rank of the operand and the padding configuration do not match: {input_shape} vs {} dimensions.",
                config.dims.len()
            ),
        )
        .with_hint("padding has one low_high[_interior] entry per operand dimension")
        .at_attribute("padding");
        return;
    }
    if value.elem != input.elem && !(value.elem.is_float() && input.elem.is_float()) {
        cx.report(
            rule,
            instr,
            "The element types of the operands to Pad do not match.",
        )
        .with_hint(format!(
            "the operand is {}, the padding value {}",
            input.elem, value.elem
        ))
        .at_operand(1);
        return;
    }
    if let Some(dimension) = config.dims.iter().position(|p| p.interior < 0) {
        cx.report(
            rule,
            instr,
            format!(
                "Interior padding cannot be negative: {} in dimension {dimension}",
                config.dims[dimension].interior
            ),
        )
        .with_hint("edge padding may be negative; interior padding may not")
        .at_attribute("padding");
        return;
    }
    if !check_mixed_precision(cx, rule, instr) {
        return;
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
                cx.report(
                    rule,
                    instr,
                    format!("Padding result in negative size for dimension {dimension}"),
                )
                .with_hint(format!(
                    "low + high + size + (size - 1) * interior must be >= 0; size is {size}"
                ))
                .at_attribute("padding");
                return;
            }
        }
    }
    expect_array(cx, rule, instr, input.elem, dims, dynamic_flags(input));
}

// ----- iota and dimension sizes -----

fn check_iota(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Iota;
    let Some(output) = cx.array_of(instr) else {
        cx.report(rule, instr, "Iota does not support non-array result.");
        return;
    };
    if output.rank() == 0 {
        cx.report(rule, instr, "Iota does not support scalars.")
            .with_hint("iota counts along a dimension: give the result at least one");
        return;
    }
    if let Attrs::Iota { dimension } = cx.data(instr).attrs
        && dimension_index(dimension, output.rank()).is_none()
    {
        cx.report(
            rule,
            instr,
            "The iota dimension cannot go beyond the operation rank or be negative.",
        )
        .with_hint(format!(
            "iota_dimension is {dimension}; the result has rank {}",
            output.rank()
        ))
        .at_attribute("iota_dimension");
        return;
    }
    let elem = output.elem;
    if !(elem.is_integer() || elem.is_float() || elem.is_complex()) {
        cx.report(
            rule,
            instr,
            format!(
                "Only support iota of integral, floating point or complex primitive types, got {elem}"
            ),
        )
        .with_hint("iota counts with integers, floats or complex numbers");
    }
}

/// The dimension a get/set-dimension-size reads or writes, reported when out of
/// range (`name` is the opcode in XLA's words).
fn size_dimension(cx: &mut Checker, instr: Instr, input: &ArrayShape, name: &str) -> Option<usize> {
    let dimension = dimensions_attribute(cx, instr)
        .first()
        .copied()
        .unwrap_or(-1);
    let index = dimension_index(dimension, input.rank());
    if index.is_none() {
        cx.report(
            Rule::Other,
            instr,
            format!("{name} dimension out of bounds: {dimension}."),
        )
        .with_hint(format!("the operand has rank {}", input.rank()))
        .at_attribute("dimensions");
    }
    index
}

fn check_get_dimension_size(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Other;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of get-dimension-size") else {
        return;
    };
    if size_dimension(cx, instr, input, "GetDimensionSize").is_none() {
        return;
    }
    expect_array(cx, rule, instr, ElementType::S32, Vec::new(), Vec::new());
}

fn check_set_dimension_size(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Other;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of set-dimension-size") else {
        return;
    };
    let Some(dimension) = size_dimension(cx, instr, input, "SetDimensionSize") else {
        return;
    };
    let Some(value_instr) = operand(cx, instr, 1) else {
        return;
    };
    let value_is_s32_scalar = cx
        .array_of(value_instr)
        .is_some_and(|a| is_scalar(a) && a.elem == ElementType::S32);
    if !value_is_s32_scalar {
        let value_shape = human(cx, cx.shape_of(value_instr));
        cx.report(
            rule,
            instr,
            "SetDimensionSize's value has to be S32 scalar.",
        )
        .with_hint(format!("the value is {value_shape}"))
        .at_operand(1);
        return;
    }
    // The result is the operand with that dimension made dynamic.
    let mut dynamic = dynamic_flags(input);
    dynamic[dimension] = true;
    expect_array(cx, rule, instr, input.elem, input.dims.to_vec(), dynamic);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attrs::PaddingDim;
    use crate::verify::{VerifyError, verify};

    /// Parses `text`, gives instruction `name` the result `dims` (bypassing the
    /// parser, which rejects such shapes itself) and verifies.
    fn verify_with_result(text: &str, name: &str, dims: &[i64]) -> Vec<VerifyError> {
        let mut m = crate::text::parse(text).expect("parses");
        let instr = m
            .all_instrs()
            .find(|&i| m.instrs[i].name == name)
            .expect("instruction exists");
        let elem = m
            .shapes
            .as_array(m.instrs[instr].shape)
            .expect("array")
            .elem;
        let shape = m.shapes.array(elem, dims, None);
        m.instrs[instr].shape = shape;
        verify(&m).err().unwrap_or_default()
    }

    // The parser already rejects a reshape that changes the element count, so
    // only a module built (or rewritten) in memory can reach this rule.
    #[test]
    fn reshape_must_keep_the_element_count() {
        const TEXT: &str = "HloModule m\n\nENTRY %main (a: f32[2,3]) -> f32[2,3] {\n  %a = f32[2,3] parameter(0)\n  %r = f32[6] reshape(%a)\n  ROOT %n = f32[2,3] negate(%a)\n}\n";
        let errors = verify_with_result(TEXT, "r", &[5]);
        assert!(
            errors.iter().any(|e| e.rule == Rule::Reshape
                && e.message
                    .contains("operand f32[2,3] has 6 elements, result f32[5] has 5")),
            "{errors:?}"
        );
    }

    // Likewise the parser insists on one size operand per result dimension.
    #[test]
    fn dynamic_reshape_takes_one_size_per_result_dimension() {
        const TEXT: &str = "HloModule m\n\nENTRY %main (a: f32[<=6], n: s32[]) -> s32[] {\n  %a = f32[<=6] parameter(0)\n  %n = s32[] parameter(1)\n  %r = f32[<=6] dynamic-reshape(%a, %n)\n  ROOT %m = s32[] negate(%n)\n}\n";
        let errors = verify_with_result(TEXT, "r", &[2, 3]);
        assert!(
            errors.iter().any(
                |e| e.rule == Rule::Reshape && e.message.contains("expected 3 operands, got 2")
            ),
            "{errors:?}"
        );
    }

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

    #[test]
    fn padded_sizes_do_not_overflow() {
        let padding = |low, high, interior| PaddingDim {
            low,
            high,
            interior,
        };
        assert_eq!(padding(1, 2, 1).padded_size(3), Some(8));
        assert_eq!(padding(0, 0, 5).padded_size(0), Some(0));
        assert_eq!(padding(-2, -1, 0).padded_size(4), Some(1));
        assert_eq!(padding(1, 0, 0).padded_size(i64::MAX), None);
        assert_eq!(padding(0, 0, i64::MAX).padded_size(3), None);
    }
}

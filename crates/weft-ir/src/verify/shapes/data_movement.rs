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
//!
//! The inferred shapes, and the checks inference makes, come from
//! [`crate::infer::data_movement`].

use crate::attrs::Attrs;
use crate::element_type::ElementType;
use crate::infer::{self, InferError, InferredShape};
use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, Shape};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

use super::elementwise::{
    check_mixed_precision, expect_inferred_array, human, is_scalar, operand, operand_array,
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

use crate::infer::data_movement::dimension_index;

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
    if operand_array(cx, rule, instr, 0, "operand of transpose").is_none() {
        return;
    }
    let Some(input) = operand(cx, instr, 0) else {
        return;
    };
    let permutation = dimensions_attribute(cx, instr);
    let inferred = infer::data_movement::transpose(&cx.m.shapes, cx.shape_of(input), permutation);
    expect_inferred(cx, rule, instr, inferred);
}

fn check_reverse(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Transpose;
    if operand_array(cx, rule, instr, 0, "operand of reverse").is_none() {
        return;
    }
    let Some(input) = operand(cx, instr, 0) else {
        return;
    };
    let dimensions = dimensions_attribute(cx, instr);
    let inferred = infer::data_movement::reverse(&cx.m.shapes, cx.shape_of(input), dimensions);
    expect_inferred(cx, rule, instr, inferred);
}

/// Compares the declared shape with an inferred array (see
/// [`expect_inferred_array`]), or reports why inference failed.
fn expect_inferred(
    cx: &mut Checker,
    rule: Rule,
    instr: Instr,
    inferred: Result<InferredShape, InferError>,
) {
    match inferred {
        Ok(inferred) => {
            expect_inferred_array(cx, rule, instr, &inferred);
        }
        Err(error) => cx.report_inference(rule, instr, error),
    }
}

// ----- slices -----

fn check_slice(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Slice;
    if operand_array(cx, rule, instr, 0, "operand of slice").is_none() {
        return;
    }
    let (Some(input), Attrs::Slice(ranges)) = (operand(cx, instr, 0), &cx.data(instr).attrs) else {
        return;
    };
    let inferred = infer::data_movement::slice(&cx.m.shapes, cx.shape_of(input), ranges);
    expect_inferred(cx, rule, instr, inferred);
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
    let Some(input) = operand(cx, instr, 0) else {
        return;
    };
    let inferred = infer::data_movement::dynamic_slice(&cx.m.shapes, cx.shape_of(input), sizes);
    expect_inferred(cx, rule, instr, inferred);
}

fn check_dynamic_update_slice(cx: &mut Checker, instr: Instr) {
    let rule = Rule::DynamicSlice;
    let input = operand_array(cx, rule, instr, 0, "operand of dynamic update slice");
    let update = operand_array(cx, rule, instr, 1, "update of dynamic update slice");
    let (Some(input), Some(_)) = (input, update) else {
        return;
    };
    if !check_start_indices(cx, instr, 2, input, "Dynamic update slice") {
        return;
    }
    let (Some(input_instr), Some(update_instr)) = (operand(cx, instr, 0), operand(cx, instr, 1))
    else {
        return;
    };
    let inferred = match infer::data_movement::dynamic_update_slice(
        &cx.m.shapes,
        cx.shape_of(input_instr),
        cx.shape_of(update_instr),
    ) {
        Ok(inferred) => inferred,
        Err(error) => {
            cx.report_inference(rule, instr, error);
            return;
        }
    };
    if !check_mixed_precision(cx, rule, instr) {
        return;
    }
    // dynamic-update-slice is one of the opcodes XLA compares exactly when
    // layout-sensitive: the result is the operand, layout included.
    if cx.options.layout_sensitive {
        cx.expect_shape(rule, instr, &inferred);
        return;
    }
    expect_inferred_array(cx, rule, instr, &inferred);
}

// ----- concatenate and pad -----

fn check_concatenate(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Concatenate;
    let operands: Vec<Shape> = cx
        .data(instr)
        .operands
        .iter()
        .map(|&o| cx.shape_of(o))
        .collect();
    let dimension = dimensions_attribute(cx, instr).first().copied();
    let shapes = &cx.m.shapes;
    if let Err(error) = infer::data_movement::concatenate_operands(shapes, &operands, dimension) {
        cx.report_inference(rule, instr, error);
        return;
    }
    if !check_mixed_precision(cx, rule, instr) {
        return;
    }
    let inferred = infer::data_movement::concatenate(shapes, &operands, dimension);
    expect_inferred(cx, rule, instr, inferred);
}

fn check_pad(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Pad;
    let (Some(input), Some(value)) = (operand(cx, instr, 0), operand(cx, instr, 1)) else {
        return;
    };
    let Attrs::Pad(config) = &cx.data(instr).attrs else {
        return;
    };
    let (input, value) = (cx.shape_of(input), cx.shape_of(value));
    let shapes = &cx.m.shapes;
    if let Err(error) = infer::data_movement::pad_operands(shapes, input, value, config) {
        cx.report_inference(rule, instr, error);
        return;
    }
    // Worded with the dimension here; inference words it as XLA does.
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
    let inferred = infer::data_movement::pad(shapes, input, value, config);
    expect_inferred(cx, rule, instr, inferred);
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
fn check_get_dimension_size(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Other;
    if operand_array(cx, rule, instr, 0, "operand of get-dimension-size").is_none() {
        return;
    }
    let Some(input) = operand(cx, instr, 0) else {
        return;
    };
    let dimension = dimensions_attribute(cx, instr)
        .first()
        .copied()
        .unwrap_or(-1);
    let inferred =
        infer::data_movement::get_dimension_size(&cx.m.shapes, cx.shape_of(input), dimension);
    expect_inferred(cx, rule, instr, inferred);
}

fn check_set_dimension_size(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Other;
    if operand_array(cx, rule, instr, 0, "operand of set-dimension-size").is_none() {
        return;
    }
    let (Some(input), Some(value)) = (operand(cx, instr, 0), operand(cx, instr, 1)) else {
        return;
    };
    let dimension = dimensions_attribute(cx, instr)
        .first()
        .copied()
        .unwrap_or(-1);
    let inferred = infer::data_movement::set_dimension_size(
        &cx.m.shapes,
        cx.shape_of(input),
        cx.shape_of(value),
        dimension,
    );
    expect_inferred(cx, rule, instr, inferred);
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

//! Shape rules of the elementwise family: unary and binary arithmetic, compare,
//! select, clamp, and the conversions (convert, bitcast-convert,
//! stochastic-convert, reduce-precision, bitcast). They follow XLA's
//! `ShapeInference` (`InferUnaryOpShape`, `InferBinaryOpShape`,
//! `InferTernaryOpShape`, `InferConvertShape`, …) as `ShapeVerifier` applies
//! it, plus the `InstructionVerifier` checks on the same opcodes.
//!
//! Invariants checked:
//! - every operand is an array, of an element type the opcode accepts (floats
//!   for `exponential`, integers for `popcnt`, `pred` or integers for the
//!   logical ops, no `pred` for `subtract`, `divide`, shifts, …);
//! - HLO has no implicit broadcasting: the operands of a binary op, and the
//!   result, have the same dimensions; select's predicate is a `pred` scalar or
//!   shaped like the values; clamp's bounds are scalars or operand-shaped;
//! - operands do not mix floating-point precisions (XLA's verifier default);
//! - the result element type is the operand's, except `pred` for compare and
//!   is-finite, the component type for real, imag and abs of complex values,
//!   the complex type for complex, and the declared type for conversions;
//! - a compare's `type=` suits its operand type;
//! - bitcast-convert between widths adds (narrowing) or removes (widening) a
//!   minor dimension of size `wide / narrow`; complex and real types do not mix;
//! - bitcast is only checked when layout-sensitive, and then only that both
//!   sides hold the same number of bytes (XLA checks nothing else).
//!
//! Result shapes are compared as XLA's `ShapeUtil::Compatible` compares them:
//! layouts and dynamic flags aside, and an unbounded (`?`) dimension matches
//! any size. The inferred dynamic flags still appear in the hint.
//!
//! Operand counts are the handles stage's concern: a rule that finds too few
//! operands returns without guessing. The helpers marked `pub(super)` are
//! shared with the data-movement rules.
//!
//! The inferred shapes, and the checks inference makes, come from
//! [`crate::infer::elementwise`].

use crate::attrs::{Attrs, CompareType};
use crate::element_type::ElementType;
use crate::infer::{self, InferError, InferredShape};
use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, Shape};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    let opcode = cx.data(instr).opcode;
    match opcode {
        Opcode::Select => check_select(cx, instr),
        Opcode::Clamp => check_clamp(cx, instr),
        Opcode::Convert => check_convert(cx, instr),
        Opcode::BitcastConvert => check_bitcast_convert(cx, instr),
        Opcode::StochasticConvert => check_stochastic_convert(cx, instr),
        Opcode::ReducePrecision => check_reduce_precision(cx, instr),
        Opcode::Bitcast => check_bitcast(cx, instr),
        _ if infer::elementwise::is_unary(opcode) => check_unary(cx, instr),
        _ if infer::elementwise::is_binary(opcode) => check_binary(cx, instr),
        _ => {}
    }
}

// ----- helpers shared with the data-movement rules -----

pub(super) use crate::infer::elementwise::sizes_match;

/// Whether `array` is a scalar.
pub(super) fn is_scalar(array: &ArrayShape) -> bool {
    array.rank() == 0
}

/// `shape` as XLA's `HumanString` prints it: no layout.
pub(super) fn human(cx: &Checker, shape: Shape) -> String {
    let mut out = String::new();
    crate::text::shape::print_shape_without_layout(&cx.m.shapes, &mut out, shape);
    out
}

/// Operand `index` of `instr`, if it exists.
pub(super) fn operand(cx: &Checker, instr: Instr, index: usize) -> Option<Instr> {
    cx.data(instr).operands.get(index).copied()
}

/// The array shape of operand `index`; reports XLA's `ExpectArray` error
/// (naming the operand's `role`) when it is a tuple, token or buffer.
pub(super) fn operand_array<'m>(
    cx: &mut Checker<'m>,
    rule: Rule,
    instr: Instr,
    index: usize,
    role: &str,
) -> Option<&'m ArrayShape> {
    let operand_instr = operand(cx, instr, index)?;
    let module = cx.m;
    let opcode = module.instrs[instr].opcode;
    let shape = module.instrs[operand_instr].shape;
    match infer::elementwise::array_operand(&module.shapes, shape, opcode, index, role) {
        Ok(array) => Some(array),
        Err(error) => {
            cx.report_inference(rule, instr, error);
            None
        }
    }
}

/// The declared result of `instr` as an array; reports when it is not one.
pub(super) fn result_array<'m>(
    cx: &mut Checker<'m>,
    rule: Rule,
    instr: Instr,
) -> Option<&'m ArrayShape> {
    if let Some(array) = cx.array_of(instr) {
        return Some(array);
    }
    let opcode = cx.data(instr).opcode;
    let shape = human(cx, cx.shape_of(instr));
    cx.report(
        rule,
        instr,
        format!("{opcode} produces an array, but the declared shape is {shape}"),
    );
    None
}

/// Checks the declared shape of `instr` against an inferred array as XLA's
/// `CheckShape` does for these opcodes (`ShapeUtil::Compatible`): element type
/// and dimensions must agree, an unbounded dimension matches any size, and
/// layouts and dynamic flags are not compared. On a mismatch the error shows
/// the inferred shape, dynamic flags included.
pub(super) fn expect_array(
    cx: &mut Checker,
    rule: Rule,
    instr: Instr,
    elem: ElementType,
    dims: Vec<i64>,
    dynamic: Vec<bool>,
) -> bool {
    if let Some(declared) = cx.array_of(instr)
        && declared.elem == elem
        && declared.rank() == dims.len()
        && declared
            .dims
            .iter()
            .zip(&dims)
            .all(|(&a, &b)| sizes_match(a, b))
    {
        return true;
    }
    cx.expect_shape(
        rule,
        instr,
        &InferredShape::dynamic_array(elem, dims, dynamic),
    )
}

/// [`expect_array`] for an inferred array shape (an inferred tuple or token
/// is compared exactly).
pub(super) fn expect_inferred_array(
    cx: &mut Checker,
    rule: Rule,
    instr: Instr,
    inferred: &InferredShape,
) -> bool {
    match inferred.array_parts(&cx.m.shapes) {
        Some((elem, dims, dynamic)) => expect_array(cx, rule, instr, elem, dims, dynamic),
        None => cx.expect_shape(rule, instr, inferred),
    }
}

/// XLA's `CheckMixedPrecisionOperands` with mixed precision disallowed (the
/// verifier's default): the floating-point operands of `instr` all have one
/// type. Reports at the first operand that differs; returns whether none did.
pub(super) fn check_mixed_precision(cx: &mut Checker, rule: Rule, instr: Instr) -> bool {
    let operands = &cx.data(instr).operands;
    let mut first: Option<ElementType> = None;
    for (index, &operand_instr) in operands.iter().enumerate() {
        let Some(array) = cx.array_of(operand_instr) else {
            continue;
        };
        if !array.elem.is_float() {
            continue;
        }
        match first {
            None => first = Some(array.elem),
            Some(seen) if seen != array.elem => {
                let name = cx.name(instr);
                cx.report(
                    rule,
                    instr,
                    format!(
                        "Seen floating point types of different precisions in {name}, but mixed precision is disallowed."
                    ),
                )
                .with_hint(format!(
                    "this operand is {}, an earlier one is {seen}: convert one of them",
                    array.elem
                ))
                .at_operand(index);
                return false;
            }
            Some(_) => {}
        }
    }
    true
}

// ----- unary and binary ops -----

fn check_unary(cx: &mut Checker, instr: Instr) {
    let Some(input) = operand(cx, instr, 0) else {
        return;
    };
    let opcode = cx.data(instr).opcode;
    match infer::elementwise::unary(&cx.m.shapes, opcode, cx.shape_of(input)) {
        Ok(inferred) => {
            expect_inferred_array(cx, Rule::Elementwise, instr, &inferred);
        }
        Err(error) => cx.report_inference(Rule::Elementwise, instr, error),
    }
}

fn check_binary(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Elementwise;
    let opcode = cx.data(instr).opcode;
    // Each operand that is not an array is an error of its own.
    let lhs = operand_array(
        cx,
        rule,
        instr,
        0,
        &format!("lhs of binary operation {opcode}"),
    );
    let rhs = operand_array(
        cx,
        rule,
        instr,
        1,
        &format!("rhs of binary operation {opcode}"),
    );
    let (Some(_), Some(rhs)) = (lhs, rhs) else {
        return;
    };
    let (Some(lhs_instr), Some(rhs_instr)) = (operand(cx, instr, 0), operand(cx, instr, 1)) else {
        return;
    };
    let (lhs_shape, rhs_shape) = (cx.shape_of(lhs_instr), cx.shape_of(rhs_instr));
    let shapes = &cx.m.shapes;
    if let Err(error) = infer::elementwise::binary_operands(shapes, opcode, lhs_shape, rhs_shape) {
        cx.report_inference(rule, instr, error);
        return;
    }
    if !check_mixed_precision(cx, rule, instr) {
        return;
    }
    let inferred = match infer::elementwise::binary(shapes, opcode, lhs_shape, rhs_shape) {
        Ok(inferred) => inferred,
        Err(error) => {
            cx.report_inference(rule, instr, error);
            return;
        }
    };
    if opcode == Opcode::Compare {
        check_compare_type(cx, instr, rhs);
    }
    expect_inferred_array(cx, rule, instr, &inferred);
}

/// XLA's InstructionVerifier check of a compare's `type=`: floats compare as
/// `FLOAT` or `TOTALORDER`, everything else with its default type.
fn check_compare_type(cx: &mut Checker, instr: Instr, rhs: &ArrayShape) {
    let Attrs::Compare {
        compare_type: Some(compare_type),
        ..
    } = cx.data(instr).attrs
    else {
        return;
    };
    let elem = rhs.elem;
    let default = CompareType::default_for(elem);
    let allowed: &[CompareType] = if elem.is_float() {
        &[CompareType::Float, CompareType::TotalOrder]
    } else {
        std::slice::from_ref(&default)
    };
    if allowed.contains(&compare_type) {
        return;
    }
    let expected = allowed
        .iter()
        .map(|t| t.name())
        .collect::<Vec<_>>()
        .join(" or ");
    cx.report(
        Rule::Elementwise,
        instr,
        format!("Expected comparison type {expected}, actual: {compare_type}, operand: {elem}"),
    )
    .with_hint(format!("{elem} operands compare with type={expected}"))
    .at_attribute("type");
}

// ----- select and clamp -----

/// The shapes of operands `0..count`, once each is an array (each that is not
/// is reported on its own, with `roles[i]` naming it).
fn array_operands(cx: &mut Checker, instr: Instr, roles: &[&str]) -> Option<Vec<Shape>> {
    let mut all = true;
    for (index, role) in roles.iter().enumerate() {
        all &= operand_array(cx, Rule::Elementwise, instr, index, role).is_some();
    }
    if !all {
        return None;
    }
    (0..roles.len())
        .map(|i| operand(cx, instr, i).map(|o| cx.shape_of(o)))
        .collect()
}

fn check_select(cx: &mut Checker, instr: Instr) {
    let roles = ["select pred", "select on-true", "select on-false"];
    let Some(operands) = array_operands(cx, instr, &roles) else {
        return;
    };
    let rule = Rule::Elementwise;
    match infer::elementwise::select(&cx.m.shapes, operands[0], operands[1], operands[2]) {
        Ok(inferred) => {
            expect_inferred_array(cx, rule, instr, &inferred);
        }
        Err(error) => cx.report_inference(rule, instr, error),
    }
}

fn check_clamp(cx: &mut Checker, instr: Instr) {
    let roles = ["clamp min", "clamp operand", "clamp max"];
    let Some(operands) = array_operands(cx, instr, &roles) else {
        return;
    };
    let rule = Rule::Elementwise;
    let shapes = &cx.m.shapes;
    let (min, input, max) = (operands[0], operands[1], operands[2]);
    if let Err(error) = infer::elementwise::clamp_operands(shapes, min, input, max) {
        cx.report_inference(rule, instr, error);
        return;
    }
    if !check_mixed_precision(cx, rule, instr) {
        return;
    }
    match infer::elementwise::clamp(shapes, min, input, max) {
        Ok(inferred) => {
            expect_inferred_array(cx, rule, instr, &inferred);
        }
        Err(error) => cx.report_inference(rule, instr, error),
    }
}

// ----- conversions -----

/// The declared result element type of a conversion, which XLA takes as the
/// target type; reports when the result is not an array.
fn target_type(cx: &mut Checker, instr: Instr) -> Option<ElementType> {
    result_array(cx, Rule::Convert, instr).map(|array| array.elem)
}

/// Reports the outcome of inferring a conversion under [`Rule::Convert`].
fn expect_conversion(cx: &mut Checker, instr: Instr, inferred: Result<InferredShape, InferError>) {
    match inferred {
        Ok(inferred) => {
            expect_inferred_array(cx, Rule::Convert, instr, &inferred);
        }
        Err(error) => cx.report_inference(Rule::Convert, instr, error),
    }
}

fn check_convert(cx: &mut Checker, instr: Instr) {
    let Some(input) = operand(cx, instr, 0) else {
        return;
    };
    if operand_array(cx, Rule::Convert, instr, 0, "operand of convert").is_none() {
        return;
    }
    let Some(target) = target_type(cx, instr) else {
        return;
    };
    let inferred = infer::elementwise::convert(&cx.m.shapes, cx.shape_of(input), target);
    expect_conversion(cx, instr, inferred);
}

fn check_bitcast_convert(cx: &mut Checker, instr: Instr) {
    let Some(input) = operand(cx, instr, 0) else {
        return;
    };
    if operand_array(cx, Rule::Convert, instr, 0, "operand of bitcast-convert").is_none() {
        return;
    }
    let Some(target) = target_type(cx, instr) else {
        return;
    };
    let inferred = infer::elementwise::bitcast_convert(&cx.m.shapes, cx.shape_of(input), target);
    expect_conversion(cx, instr, inferred);
}

fn check_stochastic_convert(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Convert;
    let input = operand_array(cx, rule, instr, 0, "lhs of stochastic convert operation");
    let random = operand_array(cx, rule, instr, 1, "rhs of stochastic convert operation");
    let (Some(_), Some(_)) = (input, random) else {
        return;
    };
    let Some(target) = target_type(cx, instr) else {
        return;
    };
    let (Some(input), Some(random)) = (operand(cx, instr, 0), operand(cx, instr, 1)) else {
        return;
    };
    let inferred = infer::elementwise::stochastic_convert(
        &cx.m.shapes,
        cx.shape_of(input),
        cx.shape_of(random),
        target,
    );
    expect_conversion(cx, instr, inferred);
}

fn check_reduce_precision(cx: &mut Checker, instr: Instr) {
    let Some(input) = operand(cx, instr, 0) else {
        return;
    };
    let bits = match cx.data(instr).attrs {
        Attrs::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => Some((exponent_bits, mantissa_bits)),
        _ => None,
    };
    let inferred = infer::elementwise::reduce_precision(&cx.m.shapes, cx.shape_of(input), bits);
    expect_conversion(cx, instr, inferred);
}

/// The bytes an array occupies, as XLA's default shape-size function counts
/// them: whole bytes per element, or packed when the layout sets an element
/// size. `None` when unknowable here (dynamic or unbounded dimensions, tiled
/// layouts whose padding we do not model).
fn byte_size(array: &ArrayShape) -> Option<i64> {
    if (0..array.rank()).any(|d| array.is_dynamic(d)) {
        return None;
    }
    let elements = array.element_count()?;
    let packed_bits = match &array.layout {
        Some(layout) if !layout.tiles.is_empty() => return None,
        Some(layout) => layout.element_size_bits.filter(|&bits| bits > 0),
        None => None,
    };
    match packed_bits {
        Some(bits) => elements.checked_mul(bits)?.checked_add(7).map(|b| b / 8),
        None => elements.checked_mul(i64::from(array.elem.bit_width().div_ceil(8))),
    }
}

fn check_bitcast(cx: &mut Checker, instr: Instr) {
    // XLA checks a bitcast only when layouts are meaningful: without them any
    // reinterpretation is allowed.
    if !cx.options.layout_sensitive {
        return;
    }
    let Some(input_instr) = operand(cx, instr, 0) else {
        return;
    };
    let (Some(input), Some(output)) = (cx.array_of(input_instr), cx.array_of(instr)) else {
        return;
    };
    let (Some(input_bytes), Some(output_bytes)) = (byte_size(input), byte_size(output)) else {
        return;
    };
    if input_bytes != output_bytes {
        let (input_shape, output_shape) = (
            cx.text(cx.shape_of(input_instr)),
            cx.text(cx.shape_of(instr)),
        );
        cx.report(
            Rule::Convert,
            instr,
            format!(
                "Bitcast cannot have different shape sizes of output ({output_bytes}) and operand ({input_bytes}) ({output_shape}) ({input_shape})"
            ),
        )
        .with_hint("a bitcast reinterprets the operand's bytes: both sides hold the same number");
    }
}

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

use crate::attrs::{Attrs, CompareType};
use crate::element_type::{ElementClass, ElementType};
use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, Shape, UNBOUNDED};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;
use crate::verify::expected::Expected;

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
        _ => {
            if let Some(types) = unary_types(opcode) {
                check_unary(cx, instr, types);
            } else if let Some(types) = binary_types(opcode) {
                check_binary(cx, instr, types);
            }
        }
    }
}

// ----- helpers shared with the data-movement rules -----

/// Whether two dimension sizes agree: equal, or one is unbounded (`?`), which
/// XLA's `SameDimensions` lets match any size.
pub(super) fn sizes_match(a: i64, b: i64) -> bool {
    a == b || a == UNBOUNDED || b == UNBOUNDED
}

/// Whether two arrays have matching dimensions (see [`sizes_match`]),
/// element types and dynamic flags aside.
pub(super) fn same_dimensions(a: &ArrayShape, b: &ArrayShape) -> bool {
    a.rank() == b.rank()
        && a.dims
            .iter()
            .zip(b.dims.iter())
            .all(|(&x, &y)| sizes_match(x, y))
}

/// Whether `array` is a scalar.
pub(super) fn is_scalar(array: &ArrayShape) -> bool {
    array.rank() == 0
}

/// Per dimension, whether `array` is dynamic.
pub(super) fn dynamic_flags(array: &ArrayShape) -> Vec<bool> {
    (0..array.rank()).map(|d| array.is_dynamic(d)).collect()
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
    if let Some(array) = cx.array_of(operand_instr) {
        return Some(array);
    }
    let shape = human(cx, cx.shape_of(operand_instr));
    let opcode = cx.data(instr).opcode;
    cx.report(
        rule,
        instr,
        format!("Expected array argument for {role}, but got {shape}."),
    )
    .with_hint(format!("{opcode} takes arrays here"))
    .at_operand(index);
    None
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
    cx.expect_shape(rule, instr, &Expected::dynamic_array(elem, dims, dynamic))
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

// ----- unary ops -----

/// The element types a unary op accepts, and what its result holds.
#[derive(Clone, Copy)]
enum UnaryTypes {
    /// Floats only (floor, ceil, rounding, erf).
    Floating,
    /// Floats or complex numbers (the transcendental functions).
    FloatingOrComplex,
    /// real and imag: a complex operand gives its component type.
    ComplexPart,
    /// abs: signed integers, floats, or complex (giving the component type).
    Abs,
    /// Integers only (count-leading-zeros, popcnt).
    Integral,
    /// negate: any number.
    Numeric,
    /// sign: signed integers, floats or complex.
    SignedOrComplex,
    /// not: `pred` or integers.
    PredOrIntegral,
    /// is-finite: floats, giving `pred`.
    IsFinite,
}

fn unary_types(opcode: Opcode) -> Option<UnaryTypes> {
    use Opcode as O;
    Some(match opcode {
        O::Floor | O::Ceil | O::RoundNearestAfz | O::RoundNearestEven | O::Erf => {
            UnaryTypes::Floating
        }
        O::Cosine
        | O::Sine
        | O::Tan
        | O::Exponential
        | O::ExponentialMinusOne
        | O::Log
        | O::LogPlusOne
        | O::Logistic
        | O::Rsqrt
        | O::Sqrt
        | O::Cbrt
        | O::Tanh
        | O::Acos
        | O::Acosh
        | O::Asin
        | O::Asinh
        | O::Atan
        | O::Atanh
        | O::Cosh
        | O::Sinh => UnaryTypes::FloatingOrComplex,
        O::Real | O::Imag => UnaryTypes::ComplexPart,
        O::Abs => UnaryTypes::Abs,
        O::CountLeadingZeros | O::PopulationCount => UnaryTypes::Integral,
        O::Negate => UnaryTypes::Numeric,
        O::Sign => UnaryTypes::SignedOrComplex,
        O::Not => UnaryTypes::PredOrIntegral,
        O::IsFinite => UnaryTypes::IsFinite,
        _ => return None,
    })
}

/// The real type of a complex type's components.
fn component_type(elem: ElementType) -> ElementType {
    match elem {
        ElementType::C128 => ElementType::F64,
        _ => ElementType::F32,
    }
}

/// Whether `elem` is signed in XLA's sense (`ElementIsSigned`): signed
/// integers and floats.
fn is_signed(elem: ElementType) -> bool {
    elem.class() == ElementClass::Signed || elem.is_float()
}

/// The result element type of a unary op on `elem`, or what the op accepts.
fn unary_result(types: UnaryTypes, elem: ElementType) -> Result<ElementType, &'static str> {
    let accepted = |ok: bool, what: &'static str| if ok { Ok(elem) } else { Err(what) };
    match types {
        UnaryTypes::Floating => accepted(elem.is_float(), "floating"),
        UnaryTypes::FloatingOrComplex => {
            accepted(elem.is_float() || elem.is_complex(), "floating or complex")
        }
        UnaryTypes::ComplexPart if elem.is_complex() => Ok(component_type(elem)),
        UnaryTypes::ComplexPart => accepted(elem.is_float(), "floating or complex"),
        UnaryTypes::Abs if elem.is_complex() => Ok(component_type(elem)),
        UnaryTypes::Abs => accepted(is_signed(elem), "signed or complex"),
        UnaryTypes::Integral => accepted(elem.is_integer(), "integral"),
        UnaryTypes::Numeric => accepted(
            elem.is_integer() || elem.is_float() || elem.is_complex(),
            "integral, floating or complex",
        ),
        UnaryTypes::SignedOrComplex => {
            accepted(is_signed(elem) || elem.is_complex(), "signed or complex")
        }
        UnaryTypes::PredOrIntegral => accepted(
            elem == ElementType::Pred || elem.is_integer(),
            "pred or integral",
        ),
        UnaryTypes::IsFinite if elem.is_float() => Ok(ElementType::Pred),
        UnaryTypes::IsFinite => Err("floating point"),
    }
}

fn check_unary(cx: &mut Checker, instr: Instr, types: UnaryTypes) {
    let rule = Rule::Elementwise;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of unary operation") else {
        return;
    };
    let opcode = cx.data(instr).opcode;
    let elem = match unary_result(types, input.elem) {
        Ok(elem) => elem,
        Err(accepted) => {
            cx.report(
                rule,
                instr,
                format!(
                    "Expected element type in shape to be {accepted} for {opcode} operation; got {}.",
                    input.elem
                ),
            )
            .with_hint(format!("{opcode} takes {accepted} element types"))
            .at_operand(0);
            return;
        }
    };
    expect_array(
        cx,
        rule,
        instr,
        elem,
        input.dims.to_vec(),
        dynamic_flags(input),
    );
}

// ----- binary ops and compare -----

/// The element types a binary op accepts.
#[derive(Clone, Copy, PartialEq)]
enum BinaryTypes {
    /// add, multiply, maximum, minimum: anything.
    Any,
    /// subtract, divide, remainder, power, atan2, shifts, mulhi: no `pred`.
    Arithmetic,
    /// complex: two floats of one type, giving the complex type.
    Complex,
    /// and, or, xor: `pred` or integers.
    PredOrIntegral,
    /// compare: anything, giving `pred`.
    Compare,
}

fn binary_types(opcode: Opcode) -> Option<BinaryTypes> {
    use Opcode as O;
    Some(match opcode {
        O::Add | O::Multiply | O::Maximum | O::Minimum => BinaryTypes::Any,
        O::Subtract
        | O::Divide
        | O::Remainder
        | O::Power
        | O::Atan2
        | O::ShiftLeft
        | O::ShiftRightArithmetic
        | O::ShiftRightLogical
        | O::Mulhi => BinaryTypes::Arithmetic,
        O::Complex => BinaryTypes::Complex,
        O::And | O::Or | O::Xor => BinaryTypes::PredOrIntegral,
        O::Compare => BinaryTypes::Compare,
        _ => return None,
    })
}

fn check_binary(cx: &mut Checker, instr: Instr, types: BinaryTypes) {
    let rule = Rule::Elementwise;
    let opcode = cx.data(instr).opcode;
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
    let (Some(lhs), Some(rhs)) = (lhs, rhs) else {
        return;
    };
    let (lhs_shape, rhs_shape) = match (operand(cx, instr, 0), operand(cx, instr, 1)) {
        (Some(l), Some(r)) => (human(cx, cx.shape_of(l)), human(cx, cx.shape_of(r))),
        _ => return,
    };

    // Operand element types, in the order XLA checks them.
    let type_error = match types {
        BinaryTypes::Arithmetic => [(0, lhs.elem), (1, rhs.elem)]
            .into_iter()
            .find(|&(_, elem)| elem == ElementType::Pred)
            .map(|(index, _)| {
                (
                    index,
                    format!(
                        "Expected element type in shape to be arithmetic type for operation {opcode}; got PRED."
                    ),
                    format!("{opcode} does not take pred operands"),
                )
            }),
        BinaryTypes::Complex if !lhs.elem.is_float() => Some((
            0,
            format!(
                "Expected element type in shape to be floating for complex compose operation; got {}.",
                lhs.elem
            ),
            "complex composes a complex number from two floats".to_string(),
        )),
        BinaryTypes::PredOrIntegral
            if lhs.elem != ElementType::Pred && !lhs.elem.is_integer() =>
        {
            Some((
                0,
                format!(
                    "Expected pred or integral type in argument to and/or operation; got {}.",
                    lhs.elem
                ),
                format!("{opcode} takes pred or integer operands"),
            ))
        }
        _ => None,
    };
    if let Some((index, message, hint)) = type_error {
        cx.report(rule, instr, message)
            .with_hint(hint)
            .at_operand(index);
        return;
    }

    // XLA's SameElementTypeIgnoringFpPrecision; a precision difference is
    // caught by the mixed-precision check below.
    if lhs.elem != rhs.elem && !(lhs.elem.is_float() && rhs.elem.is_float()) {
        cx.report(
            rule,
            instr,
            format!(
                "Binary op {opcode} with different element types: {lhs_shape} and {rhs_shape}."
            ),
        )
        .with_hint("convert one operand so both have the same element type")
        .at_operand(1);
        return;
    }

    // HLO has no implicit broadcasting: XLA's shape inference would broadcast
    // a scalar or a size-1 dimension, and its InstructionVerifier then rejects
    // the instruction, so any difference in dimensions is an error.
    if !same_dimensions(lhs, rhs) {
        let message = if lhs.rank() != rhs.rank() && !is_scalar(lhs) && !is_scalar(rhs) {
            format!("Shapes must be equal rank, but are {lhs_shape} and {rhs_shape}")
        } else {
            format!("Binary op {opcode} with incompatible shapes: {lhs_shape} and {rhs_shape}.")
        };
        cx.report(rule, instr, message)
            .with_hint("HLO has no implicit broadcasting: broadcast the operand explicitly")
            .at_operand(1);
        return;
    }

    if !check_mixed_precision(cx, rule, instr) {
        return;
    }

    let elem = match types {
        BinaryTypes::Compare => ElementType::Pred,
        BinaryTypes::Complex => match (lhs.elem, rhs.elem) {
            (ElementType::F32, ElementType::F32) => ElementType::C64,
            (ElementType::F64, ElementType::F64) => ElementType::C128,
            _ => {
                cx.report(rule, instr, "Complex component type is not implemented.")
                    .with_hint(
                        "complex takes two f32 operands (giving c64) or two f64 (giving c128)",
                    )
                    .at_operand(0);
                return;
            }
        },
        _ => lhs.elem,
    };
    if types == BinaryTypes::Compare {
        check_compare_type(cx, instr, rhs);
    }

    // An unbounded dimension of one side takes the other side's size.
    let dims = lhs
        .dims
        .iter()
        .zip(rhs.dims.iter())
        .map(|(&l, &r)| if l == UNBOUNDED { r } else { l })
        .collect();
    let dynamic = (0..lhs.rank())
        .map(|d| lhs.is_dynamic(d) || rhs.is_dynamic(d))
        .collect();
    expect_array(cx, rule, instr, elem, dims, dynamic);
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

fn check_select(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Elementwise;
    let predicate = operand_array(cx, rule, instr, 0, "select pred");
    let on_true = operand_array(cx, rule, instr, 1, "select on-true");
    let on_false = operand_array(cx, rule, instr, 2, "select on-false");
    let (Some(predicate), Some(on_true), Some(on_false)) = (predicate, on_true, on_false) else {
        return;
    };
    let shapes: Vec<String> = (0..3)
        .filter_map(|i| operand(cx, instr, i))
        .map(|o| human(cx, cx.shape_of(o)))
        .collect();
    let [predicate_shape, true_shape, false_shape] = shapes.as_slice() else {
        return;
    };
    if on_true.elem != on_false.elem || !same_dimensions(on_true, on_false) {
        cx.report(
            rule,
            instr,
            format!(
                "Operands to select must be the same shape; got {true_shape} and {false_shape}."
            ),
        )
        .with_hint("both values of a select have one shape, element type included")
        .at_operand(2);
        return;
    }
    if predicate.elem != ElementType::Pred {
        cx.report(
            rule,
            instr,
            format!("Select's pred operand must have PRED element type; got {predicate_shape}."),
        )
        .with_hint("the first operand of select chooses between the others: make it pred")
        .at_operand(0);
        return;
    }
    if !is_scalar(predicate) && !same_dimensions(predicate, on_true) {
        cx.report(
            rule,
            instr,
            format!(
                "Operands to select and predicate must be the same shape; got {true_shape} and {false_shape} and {predicate_shape}."
            ),
        )
        .with_hint("the predicate is a pred scalar or has the values' dimensions")
        .at_operand(0);
        return;
    }
    let dims = on_true
        .dims
        .iter()
        .zip(on_false.dims.iter())
        .map(|(&t, &f)| if t == UNBOUNDED { f } else { t })
        .collect();
    let dynamic = (0..on_true.rank())
        .map(|d| {
            on_true.is_dynamic(d)
                || on_false.is_dynamic(d)
                || (!is_scalar(predicate) && predicate.is_dynamic(d))
        })
        .collect();
    expect_array(cx, rule, instr, on_true.elem, dims, dynamic);
}

fn check_clamp(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Elementwise;
    let min = operand_array(cx, rule, instr, 0, "clamp min");
    let input = operand_array(cx, rule, instr, 1, "clamp operand");
    let max = operand_array(cx, rule, instr, 2, "clamp max");
    let (Some(min), Some(input), Some(max)) = (min, input, max) else {
        return;
    };
    let shapes: Vec<String> = (0..3)
        .filter_map(|i| operand(cx, instr, i))
        .map(|o| human(cx, cx.shape_of(o)))
        .collect();
    let [min_shape, input_shape, max_shape] = shapes.as_slice() else {
        return;
    };
    let same_type = |a: &ArrayShape, b: &ArrayShape| {
        a.elem == b.elem || (a.elem.is_float() && b.elem.is_float())
    };
    if !same_type(min, input) || !same_type(max, input) {
        cx.report(
            rule,
            instr,
            format!("Clamp with different operand types: {min_shape}, {input_shape}, {max_shape}."),
        )
        .with_hint("min, operand and max of a clamp have one element type")
        .at_operand(if same_type(min, input) { 2 } else { 0 });
        return;
    }
    if !check_mixed_precision(cx, rule, instr) {
        return;
    }
    // The bounds are scalars or shaped like the operand; a scalar operand may
    // also be clamped between arrays, giving their shape (XLA allows both).
    let fits = |bound: &ArrayShape| is_scalar(bound) || same_dimensions(bound, input);
    let result = if fits(min) && fits(max) {
        Some(input)
    } else if is_scalar(input) {
        if same_dimensions(min, max) || is_scalar(max) {
            Some(min)
        } else if is_scalar(min) {
            Some(max)
        } else {
            None
        }
    } else {
        None
    };
    let Some(result) = result else {
        cx.report(
            rule,
            instr,
            format!(
                "Clamp with incompatible shapes: min {min_shape}, operand {input_shape}, max {max_shape}."
            ),
        )
        .with_hint("clamp's min and max are scalars or have the operand's dimensions")
        .at_operand(if fits(min) { 2 } else { 0 });
        return;
    };
    expect_array(
        cx,
        rule,
        instr,
        input.elem,
        result.dims.to_vec(),
        dynamic_flags(result),
    );
}

// ----- conversions -----

/// The declared result element type of a conversion, which XLA takes as the
/// target type; reports when the result is not an array.
fn target_type(cx: &mut Checker, instr: Instr) -> Option<ElementType> {
    result_array(cx, Rule::Convert, instr).map(|array| array.elem)
}

fn check_convert(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Convert;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of convert") else {
        return;
    };
    let Some(target) = target_type(cx, instr) else {
        return;
    };
    expect_array(
        cx,
        rule,
        instr,
        target,
        input.dims.to_vec(),
        dynamic_flags(input),
    );
}

fn check_bitcast_convert(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Convert;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of bitcast-convert") else {
        return;
    };
    let Some(target) = target_type(cx, instr) else {
        return;
    };
    let Some(input_instr) = operand(cx, instr, 0) else {
        return;
    };
    let input_shape = human(cx, cx.shape_of(input_instr));
    if input.elem.is_complex() != target.is_complex() {
        cx.report(
            rule,
            instr,
            format!("Conversion between complex and real type {input_shape} => {target}."),
        )
        .with_hint("bitcast-convert keeps complex values complex and real values real");
        return;
    }
    let (input_bits, output_bits) = (input.elem.bit_width(), target.bit_width());
    let (wide, narrow) = (input_bits.max(output_bits), input_bits.min(output_bits));
    if narrow == 0 || wide % narrow != 0 {
        cx.report(
            rule,
            instr,
            format!(
                "Cannot bitcast types with undivisible bit-widths: {} => {target}.",
                input.elem
            ),
        )
        .with_hint(format!(
            "{} is {input_bits} bits and {target} is {output_bits}: one width must divide the other",
            input.elem
        ));
        return;
    }
    let ratio = i64::from(wide / narrow);
    let mut dims = input.dims.to_vec();
    let mut dynamic = dynamic_flags(input);
    if input_bits > output_bits {
        // Each element splits into `ratio` narrower ones along a new minor
        // dimension.
        dims.push(ratio);
        dynamic.push(false);
    } else if input_bits < output_bits {
        // `ratio` narrow elements of the minor dimension make one wide element.
        if dims.last() != Some(&ratio) {
            let last = dims
                .last()
                .map_or_else(|| "none (a scalar)".to_string(), i64::to_string);
            cx.report(
                rule,
                instr,
                format!(
                    "Last dimension of input shape={last} is not equal to ratio of bit-widths={ratio} for bitcast-convert from {input_shape} to {target}"
                ),
            )
            .with_hint(format!(
                "widening to {target} packs the minor dimension, which must have size {ratio}"
            ))
            .at_operand(0);
            return;
        }
        dims.pop();
        dynamic.pop();
    }
    expect_array(cx, rule, instr, target, dims, dynamic);
}

fn check_stochastic_convert(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Convert;
    let input = operand_array(cx, rule, instr, 0, "lhs of stochastic convert operation");
    let random = operand_array(cx, rule, instr, 1, "rhs of stochastic convert operation");
    let (Some(input), Some(random)) = (input, random) else {
        return;
    };
    let Some(target) = target_type(cx, instr) else {
        return;
    };
    let shapes: Vec<String> = (0..2)
        .filter_map(|i| operand(cx, instr, i))
        .map(|o| human(cx, cx.shape_of(o)))
        .collect();
    let [input_shape, random_shape] = shapes.as_slice() else {
        return;
    };
    if random.elem.class() != ElementClass::Unsigned {
        cx.report(
            rule,
            instr,
            format!(
                "Random numbers for stochastic convert must be unsigned integers, but got: {random_shape}"
            ),
        )
        .with_hint("the second operand holds unsigned random bits")
        .at_operand(1);
        return;
    }
    if !input.elem.is_float() {
        cx.report(
            rule,
            instr,
            format!(
                "Stochastic convert supports only floating point operand conversion, but got: {input_shape}"
            ),
        )
        .with_hint("stochastic-convert rounds floating-point values")
        .at_operand(0);
        return;
    }
    if input.elem.bit_width() != random.elem.bit_width() {
        cx.report(
            rule,
            instr,
            format!(
                "The random number is required to have same bits as the operand. But got random bits: {}, operand bits: {}",
                random.elem.bit_width(),
                input.elem.bit_width()
            ),
        )
        .with_hint(format!(
            "use u{} random bits for a {} operand",
            input.elem.bit_width(),
            input.elem
        ))
        .at_operand(1);
        return;
    }
    // XLA compares with EqualIgnoringElementType; layouts are left to the
    // layout checks, as everywhere in a layout-insensitive run.
    if input.dims != random.dims || dynamic_flags(input) != dynamic_flags(random) {
        cx.report(
            rule,
            instr,
            format!(
                "Stochastic convert operand shape does not match random tensor shape: {input_shape} vs {random_shape}."
            ),
        )
        .with_hint("one random number per element: the shapes match, element types aside")
        .at_operand(1);
        return;
    }
    expect_array(
        cx,
        rule,
        instr,
        target,
        input.dims.to_vec(),
        dynamic_flags(input),
    );
}

fn check_reduce_precision(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Convert;
    let Some(input) = operand_array(cx, rule, instr, 0, "operand of reduce-precision") else {
        return;
    };
    if !input.elem.is_float() {
        cx.report(
            rule,
            instr,
            format!(
                "Expected element type in shape to be floating point for ReducePrecision operation; got {}.",
                input.elem
            ),
        )
        .with_hint("reduce-precision rounds floating-point values")
        .at_operand(0);
        return;
    }
    if let Attrs::ReducePrecision {
        exponent_bits,
        mantissa_bits,
    } = cx.data(instr).attrs
    {
        if exponent_bits < 1 {
            cx.report(
                rule,
                instr,
                format!("Expected exponent_bits >= 1; got {exponent_bits}."),
            )
            .with_hint("one exponent bit is needed to tell zero from infinity")
            .at_attribute("exponent_bits");
            return;
        }
        if mantissa_bits < 0 {
            cx.report(
                rule,
                instr,
                format!("Expected non-negative mantissa_bits; got {mantissa_bits}."),
            )
            .with_hint("mantissa_bits may be 0 but not negative")
            .at_attribute("mantissa_bits");
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

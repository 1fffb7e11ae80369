//! Inference for the elementwise family: unary and binary arithmetic,
//! compare, select, clamp, and the conversions (convert, bitcast-convert,
//! stochastic-convert, reduce-precision). XLA's `InferUnaryOpShape`,
//! `InferBinaryOpShape`, `InferTernaryOpShape`, `InferConvertShape`,
//! `InferBitcastConvertShape`, `InferStochasticConvertShape` and
//! `InferReducePrecisionShape`.
//!
//! HLO has no implicit broadcasting: the operands of a binary op have the same
//! dimensions (an unbounded `?` dimension matching any size), and the result is
//! the first operand's array with the op's element type: its dimensions,
//! dynamic flags and layout (XLA's `ChangeElementType`). Where the operands
//! agree only up to an unbounded size or a dynamic flag, the first operand's
//! is the result's, as it always was for shapes the parser fills in.
//!
//! Not here, because they do not decide the shape: the verifier's
//! mixed-precision rule and its check of a compare's `type=`.

use crate::element_type::{ElementClass, ElementType};
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, Shape, ShapeTable, UNBOUNDED};

use super::{InferError, InferredShape, shape_text};

/// Whether two dimension sizes agree: equal, or one is unbounded (`?`), which
/// XLA's `SameDimensions` lets match any size.
pub fn sizes_match(a: i64, b: i64) -> bool {
    a == b || a == UNBOUNDED || b == UNBOUNDED
}

/// Whether two arrays have matching dimensions (see [`sizes_match`]),
/// element types and dynamic flags aside.
pub fn same_dimensions(a: &ArrayShape, b: &ArrayShape) -> bool {
    a.rank() == b.rank()
        && a.dims
            .iter()
            .zip(b.dims.iter())
            .all(|(&x, &y)| sizes_match(x, y))
}

/// The array of `shape`, or XLA's `ExpectArray` error naming the operand's
/// `role` (operand `index` of `opcode`).
pub fn array_operand<'s>(
    shapes: &'s ShapeTable,
    shape: Shape,
    opcode: Opcode,
    index: usize,
    role: &str,
) -> Result<&'s ArrayShape, InferError> {
    shapes.as_array(shape).ok_or_else(|| {
        InferError::new(format!(
            "Expected array argument for {role}, but got {}.",
            shape_text(shapes, shape)
        ))
        .with_hint(format!("{opcode} takes arrays here"))
        .at_operand(index)
    })
}

/// `base` (an array) with element type `elem` and the given dimensions and
/// dynamic flags: `base` itself, or `base` retyped, when they are its own, so
/// the layout is kept; else a fresh array.
fn array_like(
    shapes: &ShapeTable,
    base: Shape,
    elem: ElementType,
    dims: Vec<i64>,
    dynamic: Vec<bool>,
) -> InferredShape {
    let Some(array) = shapes.as_array(base) else {
        return InferredShape::dynamic_array(elem, dims, dynamic);
    };
    let same = *array.dims == *dims
        && (0..array.rank())
            .all(|d| array.is_dynamic(d) == dynamic.get(d).copied().unwrap_or(false));
    match (same, array.elem == elem) {
        (true, true) => InferredShape::Existing(base),
        (true, false) => InferredShape::Retyped { base, elem },
        (false, _) => InferredShape::dynamic_array(elem, dims, dynamic),
    }
}

/// The array `base`, of element type `from`, with element type `to`.
fn retyped(base: Shape, from: ElementType, to: ElementType) -> InferredShape {
    if from == to {
        InferredShape::Existing(base)
    } else {
        InferredShape::Retyped { base, elem: to }
    }
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

/// Whether `opcode` is a unary elementwise op [`unary`] infers.
pub fn is_unary(opcode: Opcode) -> bool {
    unary_types(opcode).is_some()
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

/// A unary elementwise op: the operand's dimensions, with the element type
/// the op gives.
pub fn unary(
    shapes: &ShapeTable,
    opcode: Opcode,
    operand: Shape,
) -> Result<InferredShape, InferError> {
    let input = array_operand(shapes, operand, opcode, 0, "operand of unary operation")?;
    let Some(types) = unary_types(opcode) else {
        return Err(InferError::new(format!(
            "{opcode} is not a unary operation"
        )));
    };
    match unary_result(types, input.elem) {
        Ok(elem) => Ok(retyped(operand, input.elem, elem)),
        Err(accepted) => Err(InferError::new(format!(
            "Expected element type in shape to be {accepted} for {opcode} operation; got {}.",
            input.elem
        ))
        .with_hint(format!("{opcode} takes {accepted} element types"))
        .at_operand(0)),
    }
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

/// Whether `opcode` is a binary elementwise op (compare included) [`binary`]
/// infers.
pub fn is_binary(opcode: Opcode) -> bool {
    binary_types(opcode).is_some()
}

/// XLA's checks of a binary op's operands, in its order: element types the op
/// accepts, one element type (floating-point precision aside), one set of
/// dimensions.
pub fn binary_operands(
    shapes: &ShapeTable,
    opcode: Opcode,
    lhs_shape: Shape,
    rhs_shape: Shape,
) -> Result<(), InferError> {
    let lhs = array_operand(
        shapes,
        lhs_shape,
        opcode,
        0,
        &format!("lhs of binary operation {opcode}"),
    )?;
    let rhs = array_operand(
        shapes,
        rhs_shape,
        opcode,
        1,
        &format!("rhs of binary operation {opcode}"),
    )?;
    let Some(types) = binary_types(opcode) else {
        return Err(InferError::new(format!(
            "{opcode} is not a binary operation"
        )));
    };
    let (lhs_text, rhs_text) = (shape_text(shapes, lhs_shape), shape_text(shapes, rhs_shape));

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
        return Err(InferError::new(message).with_hint(hint).at_operand(index));
    }

    // XLA's SameElementTypeIgnoringFpPrecision; a precision difference is
    // the verifier's mixed-precision rule.
    if lhs.elem != rhs.elem && !(lhs.elem.is_float() && rhs.elem.is_float()) {
        return Err(InferError::new(format!(
            "Binary op {opcode} with different element types: {lhs_text} and {rhs_text}."
        ))
        .with_hint("convert one operand so both have the same element type")
        .at_operand(1));
    }

    // XLA's shape inference would broadcast a scalar or a size-1 dimension,
    // and its InstructionVerifier then rejects the instruction: HLO has no
    // implicit broadcasting, so any difference in dimensions is an error.
    if !same_dimensions(lhs, rhs) {
        let message = if lhs.rank() != rhs.rank() && lhs.rank() != 0 && rhs.rank() != 0 {
            format!("Shapes must be equal rank, but are {lhs_text} and {rhs_text}")
        } else {
            format!("Binary op {opcode} with incompatible shapes: {lhs_text} and {rhs_text}.")
        };
        return Err(InferError::new(message)
            .with_hint("HLO has no implicit broadcasting: broadcast the operand explicitly")
            .at_operand(1));
    }
    Ok(())
}

/// A binary elementwise op (or compare): the operands' dimensions, with the
/// element type the op gives (`pred` for compare, the complex type for
/// complex).
pub fn binary(
    shapes: &ShapeTable,
    opcode: Opcode,
    lhs_shape: Shape,
    rhs_shape: Shape,
) -> Result<InferredShape, InferError> {
    binary_operands(shapes, opcode, lhs_shape, rhs_shape)?;
    let (Some(lhs), Some(rhs)) = (shapes.as_array(lhs_shape), shapes.as_array(rhs_shape)) else {
        unreachable!("binary_operands checked both are arrays");
    };
    let elem =
        match binary_types(opcode) {
            Some(BinaryTypes::Compare) => ElementType::Pred,
            Some(BinaryTypes::Complex) => match (lhs.elem, rhs.elem) {
                (ElementType::F32, ElementType::F32) => ElementType::C64,
                (ElementType::F64, ElementType::F64) => ElementType::C128,
                _ => {
                    return Err(InferError::new("Complex component type is not implemented.")
                    .with_hint(
                        "complex takes two f32 operands (giving c64) or two f64 (giving c128)",
                    )
                    .at_operand(0));
                }
            },
            _ => lhs.elem,
        };
    Ok(retyped(lhs_shape, lhs.elem, elem))
}

// ----- select and clamp -----

/// select: the values' shape, once the predicate and the values fit.
pub fn select(
    shapes: &ShapeTable,
    predicate_shape: Shape,
    true_shape: Shape,
    false_shape: Shape,
) -> Result<InferredShape, InferError> {
    let opcode = Opcode::Select;
    let predicate = array_operand(shapes, predicate_shape, opcode, 0, "select pred")?;
    let on_true = array_operand(shapes, true_shape, opcode, 1, "select on-true")?;
    let on_false = array_operand(shapes, false_shape, opcode, 2, "select on-false")?;
    let predicate_text = shape_text(shapes, predicate_shape);
    let (true_text, false_text) = (
        shape_text(shapes, true_shape),
        shape_text(shapes, false_shape),
    );
    if on_true.elem != on_false.elem || !same_dimensions(on_true, on_false) {
        return Err(InferError::new(format!(
            "Operands to select must be the same shape; got {true_text} and {false_text}."
        ))
        .with_hint("both values of a select have one shape, element type included")
        .at_operand(2));
    }
    if predicate.elem != ElementType::Pred {
        return Err(InferError::new(format!(
            "Select's pred operand must have PRED element type; got {predicate_text}."
        ))
        .with_hint("the first operand of select chooses between the others: make it pred")
        .at_operand(0));
    }
    let scalar_predicate = predicate.rank() == 0;
    if !scalar_predicate && !same_dimensions(predicate, on_true) {
        return Err(InferError::new(format!(
            "Operands to select and predicate must be the same shape; got {true_text} and {false_text} and {predicate_text}."
        ))
        .with_hint("the predicate is a pred scalar or has the values' dimensions")
        .at_operand(0));
    }
    // As for binary ops, the first value operand's shape is the result.
    Ok(InferredShape::Existing(true_shape))
}

/// XLA's check of clamp's operand types: one element type (floating-point
/// precision aside).
pub fn clamp_operands(
    shapes: &ShapeTable,
    min_shape: Shape,
    input_shape: Shape,
    max_shape: Shape,
) -> Result<(), InferError> {
    let opcode = Opcode::Clamp;
    let min = array_operand(shapes, min_shape, opcode, 0, "clamp min")?;
    let input = array_operand(shapes, input_shape, opcode, 1, "clamp operand")?;
    let max = array_operand(shapes, max_shape, opcode, 2, "clamp max")?;
    let same_type = |a: &ArrayShape, b: &ArrayShape| {
        a.elem == b.elem || (a.elem.is_float() && b.elem.is_float())
    };
    if !same_type(min, input) || !same_type(max, input) {
        return Err(InferError::new(format!(
            "Clamp with different operand types: {}, {}, {}.",
            shape_text(shapes, min_shape),
            shape_text(shapes, input_shape),
            shape_text(shapes, max_shape)
        ))
        .with_hint("min, operand and max of a clamp have one element type")
        .at_operand(if same_type(min, input) { 2 } else { 0 }));
    }
    Ok(())
}

/// clamp: the operand's shape. The bounds are scalars or shaped like the
/// operand; a scalar operand may also be clamped between arrays, giving their
/// shape (XLA allows both).
pub fn clamp(
    shapes: &ShapeTable,
    min_shape: Shape,
    input_shape: Shape,
    max_shape: Shape,
) -> Result<InferredShape, InferError> {
    clamp_operands(shapes, min_shape, input_shape, max_shape)?;
    let (Some(min), Some(input), Some(max)) = (
        shapes.as_array(min_shape),
        shapes.as_array(input_shape),
        shapes.as_array(max_shape),
    ) else {
        unreachable!("clamp_operands checked all three are arrays");
    };
    let is_scalar = |a: &ArrayShape| a.rank() == 0;
    let fits = |bound: &ArrayShape| is_scalar(bound) || same_dimensions(bound, input);
    let result = if fits(min) && fits(max) {
        Some(input_shape)
    } else if is_scalar(input) {
        if same_dimensions(min, max) || is_scalar(max) {
            Some(min_shape)
        } else if is_scalar(min) {
            Some(max_shape)
        } else {
            None
        }
    } else {
        None
    };
    let Some(result) = result else {
        return Err(InferError::new(format!(
            "Clamp with incompatible shapes: min {}, operand {}, max {}.",
            shape_text(shapes, min_shape),
            shape_text(shapes, input_shape),
            shape_text(shapes, max_shape)
        ))
        .with_hint("clamp's min and max are scalars or have the operand's dimensions")
        .at_operand(if fits(min) { 2 } else { 0 }));
    };
    Ok(retyped(
        result,
        shapes.as_array(result).map_or(input.elem, |a| a.elem),
        input.elem,
    ))
}

// ----- conversions -----

/// convert to `target`: the operand's dimensions with the new element type.
pub fn convert(
    shapes: &ShapeTable,
    operand: Shape,
    target: ElementType,
) -> Result<InferredShape, InferError> {
    let input = array_operand(shapes, operand, Opcode::Convert, 0, "operand of convert")?;
    Ok(retyped(operand, input.elem, target))
}

/// bitcast-convert to `target`: between widths, a minor dimension of size
/// `wide / narrow` is added (narrowing) or removed (widening).
pub fn bitcast_convert(
    shapes: &ShapeTable,
    operand: Shape,
    target: ElementType,
) -> Result<InferredShape, InferError> {
    let input = array_operand(
        shapes,
        operand,
        Opcode::BitcastConvert,
        0,
        "operand of bitcast-convert",
    )?;
    let input_text = shape_text(shapes, operand);
    if input.elem.is_complex() != target.is_complex() {
        return Err(InferError::new(format!(
            "Conversion between complex and real type {input_text} => {target}."
        ))
        .with_hint("bitcast-convert keeps complex values complex and real values real"));
    }
    let (input_bits, output_bits) = (input.elem.bit_width(), target.bit_width());
    let (wide, narrow) = (input_bits.max(output_bits), input_bits.min(output_bits));
    if narrow == 0 || wide % narrow != 0 {
        return Err(InferError::new(format!(
            "Cannot bitcast types with undivisible bit-widths: {} => {target}.",
            input.elem
        ))
        .with_hint(format!(
            "{} is {input_bits} bits and {target} is {output_bits}: one width must divide the other",
            input.elem
        )));
    }
    let ratio = i64::from(wide / narrow);
    let mut dims = input.dims.to_vec();
    let mut dynamic: Vec<bool> = (0..input.rank()).map(|d| input.is_dynamic(d)).collect();
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
            return Err(InferError::new(format!(
                "Last dimension of input shape={last} is not equal to ratio of bit-widths={ratio} for bitcast-convert from {input_text} to {target}"
            ))
            .with_hint(format!(
                "widening to {target} packs the minor dimension, which must have size {ratio}"
            ))
            .at_operand(0));
        }
        dims.pop();
        dynamic.pop();
    }
    Ok(array_like(shapes, operand, target, dims, dynamic))
}

/// stochastic-convert to `target`: the operand's dimensions, once the random
/// bits fit it.
pub fn stochastic_convert(
    shapes: &ShapeTable,
    operand: Shape,
    random: Shape,
    target: ElementType,
) -> Result<InferredShape, InferError> {
    let opcode = Opcode::StochasticConvert;
    let input = array_operand(
        shapes,
        operand,
        opcode,
        0,
        "lhs of stochastic convert operation",
    )?;
    let random_array = array_operand(
        shapes,
        random,
        opcode,
        1,
        "rhs of stochastic convert operation",
    )?;
    let (input_text, random_text) = (shape_text(shapes, operand), shape_text(shapes, random));
    if random_array.elem.class() != ElementClass::Unsigned {
        return Err(InferError::new(format!(
            "Random numbers for stochastic convert must be unsigned integers, but got: {random_text}"
        ))
        .with_hint("the second operand holds unsigned random bits")
        .at_operand(1));
    }
    if !input.elem.is_float() {
        return Err(InferError::new(format!(
            "Stochastic convert supports only floating point operand conversion, but got: {input_text}"
        ))
        .with_hint("stochastic-convert rounds floating-point values")
        .at_operand(0));
    }
    if input.elem.bit_width() != random_array.elem.bit_width() {
        return Err(InferError::new(format!(
            "The random number is required to have same bits as the operand. But got random bits: {}, operand bits: {}",
            random_array.elem.bit_width(),
            input.elem.bit_width()
        ))
        .with_hint(format!(
            "use u{} random bits for a {} operand",
            input.elem.bit_width(),
            input.elem
        ))
        .at_operand(1));
    }
    // XLA compares with EqualIgnoringElementType; layouts are left to the
    // layout checks.
    let flags = |a: &ArrayShape| (0..a.rank()).map(|d| a.is_dynamic(d)).collect::<Vec<_>>();
    if input.dims != random_array.dims || flags(input) != flags(random_array) {
        return Err(InferError::new(format!(
            "Stochastic convert operand shape does not match random tensor shape: {input_text} vs {random_text}."
        ))
        .with_hint("one random number per element: the shapes match, element types aside")
        .at_operand(1));
    }
    convert(shapes, operand, target)
}

/// reduce-precision: the operand, a floating-point array; `bits` are the
/// exponent and mantissa bits kept.
pub fn reduce_precision(
    shapes: &ShapeTable,
    operand: Shape,
    bits: Option<(i64, i64)>,
) -> Result<InferredShape, InferError> {
    let input = array_operand(
        shapes,
        operand,
        Opcode::ReducePrecision,
        0,
        "operand of reduce-precision",
    )?;
    if !input.elem.is_float() {
        return Err(InferError::new(format!(
            "Expected element type in shape to be floating point for ReducePrecision operation; got {}.",
            input.elem
        ))
        .with_hint("reduce-precision rounds floating-point values")
        .at_operand(0));
    }
    let Some((exponent_bits, mantissa_bits)) = bits else {
        return Ok(InferredShape::Existing(operand));
    };
    if exponent_bits < 1 {
        return Err(
            InferError::new(format!("Expected exponent_bits >= 1; got {exponent_bits}."))
                .with_hint("one exponent bit is needed to tell zero from infinity")
                .at_attribute("exponent_bits"),
        );
    }
    if mantissa_bits < 0 {
        return Err(InferError::new(format!(
            "Expected non-negative mantissa_bits; got {mantissa_bits}."
        ))
        .with_hint("mantissa_bits may be 0 but not negative")
        .at_attribute("mantissa_bits"));
    }
    Ok(InferredShape::Existing(operand))
}

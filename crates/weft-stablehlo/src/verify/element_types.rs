//! Element types of the elementwise ops: every operand of an elementwise op
//! has an element type the op's "Inputs" table in the StableHLO spec allows
//! (`atan2` takes floats and complex numbers, `popcnt` integers, `abs`
//! signed integers, floats and complex numbers, …).
//!
//! The spec reads MLIR's integer types as it does: `i1` is the boolean type,
//! a signless `iN` (N > 1) is a signed integer, `uiN` unsigned. Quantized
//! element types are the quantization rules' concern, and an operand that is
//! not a ranked or unranked tensor is the structure rules' concern: this
//! stage leaves both alone.

use crate::ir::{ElementKind, Op, Signedness, Type};
use crate::ops::OpKind;
use crate::verify::{Checker, type_text};

/// The element types an op's operands may have.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Accepted {
    /// Floats.
    Float,
    /// Floats and complex numbers.
    FloatOrComplex,
    /// Signed and unsigned integers.
    Integer,
    /// Booleans and integers.
    BooleanOrInteger,
    /// Signed integers, floats and complex numbers.
    SignedFloatOrComplex,
    /// Integers, floats and complex numbers (no booleans).
    Numeric,
}

impl Accepted {
    fn describe(self) -> &'static str {
        match self {
            Accepted::Float => "floating-point",
            Accepted::FloatOrComplex => "floating-point or complex",
            Accepted::Integer => "integer",
            Accepted::BooleanOrInteger => "boolean or integer",
            Accepted::SignedFloatOrComplex => "signed integer, floating-point or complex",
            Accepted::Numeric => "integer, floating-point or complex",
        }
    }

    /// Whether `element` is accepted; `None` when this stage does not judge
    /// it (quantized types).
    fn admits(self, element: &ElementKind) -> Option<bool> {
        let class = match element {
            ElementKind::Quantized(_) => return None,
            ElementKind::Integer { width: 1, .. } => Class::Boolean,
            ElementKind::Integer {
                signedness: Signedness::Unsigned,
                ..
            } => Class::Unsigned,
            ElementKind::Integer { .. } | ElementKind::Index => Class::Signed,
            ElementKind::Float(_) => Class::Float,
            ElementKind::Complex(_) => Class::Complex,
        };
        Some(match self {
            Accepted::Float => class == Class::Float,
            Accepted::FloatOrComplex => matches!(class, Class::Float | Class::Complex),
            Accepted::Integer => matches!(class, Class::Signed | Class::Unsigned),
            Accepted::BooleanOrInteger => class != Class::Float && class != Class::Complex,
            Accepted::SignedFloatOrComplex => {
                matches!(class, Class::Signed | Class::Float | Class::Complex)
            }
            Accepted::Numeric => class != Class::Boolean,
        })
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Class {
    Boolean,
    Signed,
    Unsigned,
    Float,
    Complex,
}

/// What the operands of `kind` may hold; `None` for ops that take any
/// element type (`add`, `compare`, `select`, …) or are not elementwise.
fn accepted(kind: OpKind) -> Option<Accepted> {
    use OpKind as K;
    Some(match kind {
        K::Ceil
        | K::Floor
        | K::RoundNearestAfz
        | K::RoundNearestEven
        | K::IsFinite
        | K::ReducePrecision
        | K::Complex => Accepted::Float,
        K::Atan2
        | K::Cbrt
        | K::Cosine
        | K::Exponential
        | K::ExponentialMinusOne
        | K::Imag
        | K::Log
        | K::LogPlusOne
        | K::Logistic
        | K::Real
        | K::Rsqrt
        | K::Sine
        | K::Sqrt
        | K::Tan
        | K::Tanh => Accepted::FloatOrComplex,
        K::CountLeadingZeros
        | K::PopulationCount
        | K::ShiftLeft
        | K::ShiftRightArithmetic
        | K::ShiftRightLogical => Accepted::Integer,
        K::And | K::Or | K::Xor | K::Not => Accepted::BooleanOrInteger,
        K::Abs | K::Sign => Accepted::SignedFloatOrComplex,
        K::Divide | K::Negate | K::Power | K::Remainder | K::Subtract => Accepted::Numeric,
        _ => return None,
    })
}

pub(super) fn check(cx: &mut Checker, ops: &[Op]) {
    for &op in ops {
        let data = &cx.body.ops[op];
        let Some(accepts) = data.name.kind().and_then(accepted) else {
            continue;
        };
        for (index, &operand) in data.operands.iter().enumerate() {
            let ty = cx.body.ty(operand);
            let Type::Tensor(tensor) = ty else {
                continue;
            };
            if accepts.admits(&tensor.element) == Some(false) {
                let got = type_text(ty);
                let op_name = data.name.as_str().trim_start_matches("stablehlo.");
                cx.report(
                    op,
                    format!(
                        "operand #{index} must be a tensor of {} type values, but got '{got}'",
                        accepts.describe()
                    ),
                )
                .with_hint(format!(
                    "the StableHLO spec's `{op_name}` takes {} elements",
                    accepts.describe()
                ));
                break;
            }
        }
    }
}

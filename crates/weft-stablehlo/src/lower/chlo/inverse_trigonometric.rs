//! `acos`, `asin`, `atan`, `acosh`, `asinh`, `atanh` on real operands, by the
//! formulas of XLA's generated decompositions (the `functional_algorithms`
//! derivations), computed in the operand type:
//! - `asin(x) = 2 atan2(x, 1 + sqrt((1 - x)(1 + x)))`;
//! - `acos(x) = atan2(sqrt((1 - x)(1 + x)), x)`;
//! - `atan(x) = atan2(x, 1)`;
//! - `acosh(x) = log1p(sqrt(x - 1) (sqrt(x + 1) + sqrt(x - 1)))`, or
//!   `log 2 + log x` from `max / 2` on, where the product would overflow;
//! - `asinh(x) = sign(x) log1p(|x| + x² / (1 + sqrt(1 + x²)))`, or
//!   `sign(x) (log 2 + log |x|)` from `sqrt(max)` on;
//! - `atanh(x) = (log1p(x) - log1p(-x)) / 2`, NaN for `|x| > 1`.
//!
//! Complex operands take the forms of [`super::inverse_trigonometric_complex`].

use weft_ir::attrs::Direction;
use weft_ir::{Instr, Opcode};

use super::Arithmetic;
use super::inverse_trigonometric_complex as complex;

/// Complex operands take Hull et al.'s algorithm
/// ([`super::inverse_trigonometric_complex`]); real ones must be floats.
fn complex_form(
    a: &mut Arithmetic<'_, '_>,
    x: Instr,
    op: &str,
    form: fn(&mut Arithmetic<'_, '_>, Instr) -> Instr,
) -> Result<Option<Instr>, String> {
    if a.element(x).is_complex() {
        return Ok(Some(form(a, x)));
    }
    super::require_float(a, x, op)?;
    Ok(None)
}

/// `(1 - x)(1 + x)`, which is `1 - x²` without its cancellation near `|x| = 1`.
fn one_minus_square(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let one = a.constant_like(1.0, x);
    let below = a.subtract(one, x);
    let above = a.add(one, x);
    a.multiply(below, above)
}

pub(super) fn asin(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    if let Some(value) = complex_form(a, x, "asin", complex::asin)? {
        return Ok(value);
    }
    let one = a.constant_like(1.0, x);
    let product = one_minus_square(a, x);
    let root = a.sqrt(product);
    let denominator = a.add(one, root);
    let half = a.binary(Opcode::Atan2, x, denominator);
    Ok(a.add(half, half))
}

pub(super) fn acos(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    if let Some(value) = complex_form(a, x, "acos", complex::acos)? {
        return Ok(value);
    }
    let product = one_minus_square(a, x);
    let root = a.sqrt(product);
    Ok(a.binary(Opcode::Atan2, root, x))
}

pub(super) fn atan(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    if let Some(value) = complex_form(a, x, "atan", complex::atan)? {
        return Ok(value);
    }
    let one = a.constant_like(1.0, x);
    Ok(a.binary(Opcode::Atan2, x, one))
}

pub(super) fn acosh(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    if let Some(value) = complex_form(a, x, "acosh", complex::acosh)? {
        return Ok(value);
    }
    let max = a.max_finite_like(x);
    let two = a.constant_like(2.0, x);
    let threshold = a.divide(max, two);
    let large = a.compare(Direction::Ge, x, threshold);
    let log_two = a.log(two);
    let log_x = a.log(x);
    let large_value = a.add(log_two, log_x);
    let one = a.constant_like(1.0, x);
    let below = a.subtract(x, one);
    let root_below = a.sqrt(below);
    let above = a.add(x, one);
    let root_above = a.sqrt(above);
    let sum = a.add(root_above, root_below);
    let product = a.multiply(root_below, sum);
    let small_value = a.log_plus_one(product);
    Ok(a.select(large, large_value, small_value))
}

pub(super) fn asinh(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    if let Some(value) = complex_form(a, x, "asinh", complex::asinh)? {
        return Ok(value);
    }
    let sign = a.unary(Opcode::Sign, x);
    let magnitude = a.abs(x);
    let max = a.max_finite_like(x);
    let threshold = a.sqrt(max);
    let large = a.compare(Direction::Ge, magnitude, threshold);
    let two = a.constant_like(2.0, x);
    let log_two = a.log(two);
    let log_magnitude = a.log(magnitude);
    let large_value = a.add(log_two, log_magnitude);
    let square = a.multiply(magnitude, magnitude);
    let one = a.constant_like(1.0, x);
    let one_plus_square = a.add(one, square);
    let hypotenuse = a.sqrt(one_plus_square);
    let denominator = a.add(one, hypotenuse);
    let quotient = a.divide(square, denominator);
    let argument = a.add(magnitude, quotient);
    let small_value = a.log_plus_one(argument);
    let value = a.select(large, large_value, small_value);
    Ok(a.multiply(sign, value))
}

pub(super) fn atanh(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    if let Some(value) = complex_form(a, x, "atanh", complex::atanh)? {
        return Ok(value);
    }
    let magnitude = a.abs(x);
    let one = a.constant_like(1.0, x);
    let outside = a.compare(Direction::Gt, magnitude, one);
    let nan = a.constant_like(f64::NAN, x);
    let up = a.log_plus_one(x);
    let negated = a.negate(x);
    let down = a.log_plus_one(negated);
    let difference = a.subtract(up, down);
    let half = a.constant_like(0.5, x);
    let value = a.multiply(difference, half);
    Ok(a.select(outside, nan, value))
}

/// `_asin_acos_kernel` is defined on complex operands only.
pub(super) fn asin_acos_kernel(
    a: &mut Arithmetic<'_, '_>,
    operands: &[Instr],
) -> Result<Instr, String> {
    let z = operands[0];
    let element = a.element(z);
    if !element.is_complex() {
        return Err(format!(
            "_asin_acos_kernel of {element} is not supported (it takes complex numbers)"
        ));
    }
    Ok(complex::kernel(a, z))
}

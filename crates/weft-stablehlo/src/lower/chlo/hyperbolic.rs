//! `sinh` and `cosh`, as XLA's legalization writes them:
//! - `cosh(x) = e^(x + log ½) + e^(-x + log ½)`, which does not overflow
//!   where `e^x` does but `e^x / 2` does not;
//! - `sinh(x) = e^(x + log ½) - e^(-x + log ½)` for `|x| ≥ 1`, and
//!   `(expm1(x) + expm1(x) / (expm1(x) + 1)) / 2` below, where the first
//!   form cancels to 0.
//!
//! Complex operands take the `e^(x + log ½)` forms (HLO's `exp` and
//! arithmetic are defined on complex numbers).

use weft_ir::attrs::Direction;
use weft_ir::{Instr, Opcode};

use super::Arithmetic;

/// `(e^(x + log ½), e^(log ½ - x))`.
fn half_exponentials(a: &mut Arithmetic<'_, '_>, x: Instr) -> (Instr, Instr) {
    let half = a.constant_like(0.5, x);
    let log_half = a.log(half);
    let up = a.add(x, log_half);
    let down = a.subtract(log_half, x);
    (a.exp(up), a.exp(down))
}

fn require_number(a: &Arithmetic<'_, '_>, x: Instr, op: &str) -> Result<(), String> {
    let element = a.element(x);
    if element.is_float() || element.is_complex() {
        Ok(())
    } else {
        Err(format!(
            "{op} of {element} is not supported (it takes floats or complex numbers)"
        ))
    }
}

pub(super) fn cosh(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    require_number(a, x, "cosh")?;
    let (up, down) = half_exponentials(a, x);
    Ok(a.add(up, down))
}

pub(super) fn sinh(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    require_number(a, x, "sinh")?;
    let (up, down) = half_exponentials(a, x);
    let large = a.subtract(up, down);
    if a.element(x).is_complex() {
        return Ok(large);
    }
    let expm1 = a.unary(Opcode::ExponentialMinusOne, x);
    let one = a.constant_like(1.0, x);
    let half = a.constant_like(0.5, x);
    let exponential = a.add(expm1, one);
    let ratio = a.divide(expm1, exponential);
    let sum = a.add(expm1, ratio);
    let small = a.multiply(half, sum);
    let magnitude = a.abs(x);
    let is_small = a.compare(Direction::Lt, magnitude, one);
    Ok(a.select(is_small, small, large))
}

//! `is_inf`, `is_pos_inf`, `is_neg_inf`: comparisons with the infinities
//! (`is_inf(x) = is_pos_inf(|x|)`), as XLA's legalization writes them.

use weft_ir::Instr;
use weft_ir::attrs::Direction;

use super::Arithmetic;

/// `x == value`, for a real float `x`.
fn equals(a: &mut Arithmetic<'_, '_>, x: Instr, value: f64, op: &str) -> Result<Instr, String> {
    super::require_float(a, x, op)?;
    let constant = a.constant_like(value, x);
    Ok(a.compare(Direction::Eq, x, constant))
}

pub(super) fn is_inf(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    super::require_float(a, x, "is_inf")?;
    let magnitude = a.abs(x);
    equals(a, magnitude, f64::INFINITY, "is_inf")
}

pub(super) fn is_pos_inf(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    equals(a, operands[0], f64::INFINITY, "is_pos_inf")
}

pub(super) fn is_neg_inf(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    equals(a, operands[0], f64::NEG_INFINITY, "is_neg_inf")
}

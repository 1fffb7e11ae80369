//! `next_after(x, y)`, C's `nextafter`, on the bit patterns as XLA's
//! legalization computes it: `x`'s bits as a same-width integer, plus one
//! (away from zero) or minus one (towards zero: the signs differ, or `|x|`
//! is the larger); from ±0 the smallest subnormal with `y`'s sign; `y` when
//! `x == y` (so `next_after(-0, +0) = +0`); NaN when either is NaN.

use weft_ir::attrs::Direction;
use weft_ir::{ElementType, Instr};

use super::Arithmetic;

pub(super) fn next_after(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let [x, y] = operands[..] else {
        return Err("next_after takes x and y".to_string());
    };
    let element = a.element(x);
    let integer = match element.bit_width() {
        _ if !element.is_float() => {
            return Err(format!(
                "next_after of {element} is not supported (it takes floats)"
            ));
        }
        64 => ElementType::S64,
        32 => ElementType::S32,
        16 => ElementType::S16,
        8 => ElementType::S8,
        width => return Err(format!("next_after of {width}-bit floats is not supported")),
    };
    let width = element.bit_width();
    let x_bits = a.bitcast_convert(x, integer);
    let y_bits = a.bitcast_convert(y, integer);

    let x_is_nan = a.compare(Direction::Ne, x, x);
    let y_is_nan = a.compare(Direction::Ne, y, y);
    let nan_input = a.or(x_is_nan, y_is_nan);
    let nan = a.constant_like(f64::NAN, x);
    let nan_bits = a.bitcast_convert(nan, integer);

    let sign_bit = 1i128 << (width - 1);
    let sign_mask = a.integer_like(sign_bit, x_bits);
    let magnitude_mask = a.integer_like(!sign_bit, x_bits);
    let x_magnitude = a.and(x_bits, magnitude_mask);
    let y_magnitude = a.and(y_bits, magnitude_mask);

    let equal = a.compare(Direction::Eq, x, y);
    let zero = a.integer_like(0, x_bits);
    let x_is_zero = a.compare(Direction::Eq, x_magnitude, zero);
    let y_is_zero = a.compare(Direction::Eq, y_magnitude, zero);
    let x_sign = a.and(x_bits, sign_mask);
    let y_sign = a.and(y_bits, sign_mask);
    let one = a.integer_like(1, x_bits);
    let smallest_towards_y = a.or(y_sign, one);

    let signs_differ = a.compare(Direction::Ne, x_sign, y_sign);
    let x_larger = a.compare(Direction::Gt, x_magnitude, y_magnitude);
    let towards_zero = a.or(x_larger, signs_differ);
    let minus_one = a.integer_like(-1, x_bits);
    let step = a.select(towards_zero, minus_one, one);
    let stepped = a.add(x_bits, step);

    let from_zero = a.select(y_is_zero, y_bits, smallest_towards_y);
    let result = a.select(x_is_zero, from_zero, stepped);
    let result = a.select(equal, y_bits, result);
    let result = a.select(nan_input, nan_bits, result);
    Ok(a.bitcast_convert(result, element))
}

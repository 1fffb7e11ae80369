//! Floats as MLIR prints them (`printFloatValue` over LLVM's `APFloat`):
//!
//! 1. `%e`-style with six digits after the point (`1.000000e+00`) when that
//!    text reads back to the same value in the element's format;
//! 2. otherwise the shortest text APFloat guarantees to round-trip — as many
//!    significant digits as the format needs (9 for f32, 17 for f64), trailing
//!    zeros dropped, plain below 10³ padding and scientific (`E`) beyond — when
//!    that text contains a `.`;
//! 3. otherwise (infinities, NaNs, large integral values) the bit pattern in
//!    hex: `0x7FC00000`.
//!
//! Values are carried as `f64`, which holds every narrower format exactly.

use weft_ir::literal::minifloat;

use crate::ir::FloatKind;

/// The significand precision of `kind` in bits (including the hidden bit).
fn precision_bits(kind: FloatKind) -> u32 {
    match kind {
        FloatKind::F64 => 53,
        FloatKind::F32 => 24,
        FloatKind::Tf32 | FloatKind::F16 => 11,
        FloatKind::Bf16 => 8,
        FloatKind::F8E5M2 | FloatKind::F8E5M2Fnuz | FloatKind::F6E3M2Fn => 3,
        FloatKind::F8E4M3
        | FloatKind::F8E4M3Fn
        | FloatKind::F8E4M3Fnuz
        | FloatKind::F8E4M3B11Fnuz
        | FloatKind::F6E2M3Fn => 4,
        FloatKind::F8E3M4 => 5,
        FloatKind::F4E2M1Fn => 2,
        FloatKind::F8E8M0Fnu => 1,
    }
}

/// The bit pattern of `value` in `kind` (rounded to nearest even).
pub fn to_bits(kind: FloatKind, value: f64) -> u64 {
    match kind {
        FloatKind::F64 => value.to_bits(),
        FloatKind::F32 => u64::from((value as f32).to_bits()),
        // tf32 is stored as an f32 whose low 13 mantissa bits are zero.
        FloatKind::Tf32 => u64::from(round_f32_mantissa((value as f32).to_bits(), 13)),
        _ => u64::from(minifloat::encode(kind.hlo(), value)),
    }
}

/// The value of a bit pattern of `kind`.
pub fn from_bits(kind: FloatKind, bits: u64) -> f64 {
    match kind {
        FloatKind::F64 => f64::from_bits(bits),
        FloatKind::F32 | FloatKind::Tf32 => f64::from(f32::from_bits(bits as u32)),
        _ => minifloat::decode(kind.hlo(), bits as u32),
    }
}

/// The width of `kind`'s storage in bits.
pub fn bit_width(kind: FloatKind) -> u32 {
    match kind {
        FloatKind::Tf32 => 32,
        _ => kind.hlo().bit_width(),
    }
}

fn round_f32_mantissa(bits: u32, dropped: u32) -> u32 {
    if (bits >> 23) & 0xFF == 0xFF {
        return bits;
    }
    let half = 1u32 << (dropped - 1);
    let mask = (1u32 << dropped) - 1;
    let low = bits & mask;
    let mut kept = bits & !mask;
    if low > half || (low == half && (kept >> dropped) & 1 == 1) {
        kept = kept.wrapping_add(1 << dropped);
    }
    kept
}

/// `value` (already representable in `kind`) printed as MLIR prints it.
pub fn format(kind: FloatKind, value: f64) -> String {
    if value.is_finite() {
        let scientific = apfloat_to_string(kind, value, 6, 0, false);
        if reads_back(kind, &scientific, value) {
            return scientific;
        }
        let natural = apfloat_to_string(kind, value, 0, 3, true);
        if natural.contains('.') {
            return natural;
        }
    }
    format_hex(kind, value)
}

/// The bit pattern of `value` as a C hex literal with upper-case digits.
pub fn format_hex(kind: FloatKind, value: f64) -> String {
    format!("0x{:X}", to_bits(kind, value))
}

fn reads_back(kind: FloatKind, text: &str, value: f64) -> bool {
    let Ok(parsed) = text.parse::<f64>() else {
        return false;
    };
    let parsed_bits = match kind {
        // Parse straight into the narrow format where Rust can, so no double
        // rounding happens.
        FloatKind::F32 => text.parse::<f32>().map_or(0, |f| u64::from(f.to_bits())),
        _ => to_bits(kind, parsed),
    };
    parsed_bits == to_bits(kind, value)
}

/// LLVM's `APFloat::toString(FormatPrecision, FormatMaxPadding, TruncateZero)`
/// for a finite value.
fn apfloat_to_string(
    kind: FloatKind,
    value: f64,
    format_precision: usize,
    format_max_padding: usize,
    truncate_zero: bool,
) -> String {
    let mut out = String::new();
    if value.is_sign_negative() {
        out.push('-');
    }
    let magnitude = value.abs();
    if magnitude == 0.0 {
        // APFloat prints zero specially.
        if format_max_padding != 0 {
            out.push('0');
        } else if truncate_zero {
            out.push_str("0.0E+0");
        } else {
            out.push_str("0.0");
            for _ in 1..format_precision {
                out.push('0');
            }
            out.push_str("e+00");
        }
        return out;
    }
    let precision = if format_precision == 0 {
        2 + (precision_bits(kind) as usize * 59) / 196
    } else {
        format_precision
    };
    let (mut digits, mut exponent) = significand_digits(magnitude, precision);
    // Round half up to `precision` digits (APFloat's decimal AdjustToPrecision).
    if digits.len() > precision {
        let dropped = digits.len() - precision;
        let round_up = digits[precision] >= b'5';
        digits.truncate(precision);
        exponent += dropped as i64;
        if round_up {
            let mut i = digits.len();
            loop {
                if i == 0 {
                    digits.insert(0, b'1');
                    digits.truncate(precision);
                    exponent += 1;
                    break;
                }
                i -= 1;
                if digits[i] == b'9' {
                    digits[i] = b'0';
                } else {
                    digits[i] += 1;
                    break;
                }
            }
        }
    }
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
        exponent += 1;
    }
    let n = digits.len() as i64;
    let scientific = if format_max_padding == 0 {
        true
    } else if exponent >= 0 {
        exponent as usize > format_max_padding || (n + exponent) as usize > precision
    } else {
        let most_significant = exponent + n - 1;
        most_significant < 0 && (-most_significant) as usize > format_max_padding
    };
    if scientific {
        let exp10 = exponent + n - 1;
        out.push(digits[0] as char);
        out.push('.');
        if n == 1 && truncate_zero {
            out.push('0');
        } else {
            for &d in &digits[1..] {
                out.push(d as char);
            }
        }
        if !truncate_zero && precision + 1 > digits.len() {
            for _ in 0..(precision + 1 - digits.len()) {
                out.push('0');
            }
        }
        out.push(if truncate_zero { 'E' } else { 'e' });
        out.push(if exp10 >= 0 { '+' } else { '-' });
        let magnitude = exp10.unsigned_abs();
        if !truncate_zero && magnitude < 10 {
            out.push('0');
        }
        out.push_str(&magnitude.to_string());
        return out;
    }
    if exponent >= 0 {
        for &d in &digits {
            out.push(d as char);
        }
        for _ in 0..exponent {
            out.push('0');
        }
        return out;
    }
    let whole = n + exponent;
    if whole > 0 {
        for &d in &digits[..whole as usize] {
            out.push(d as char);
        }
        out.push('.');
        for &d in &digits[whole as usize..] {
            out.push(d as char);
        }
    } else {
        out.push_str("0.");
        for _ in 0..(-whole) {
            out.push('0');
        }
        for &d in &digits {
            out.push(d as char);
        }
    }
    out
}

/// APFloat's decimal significand of a positive finite `value`: the exact
/// integer `D` with `value = D × 10^e`, first cut down by *truncating* division
/// to about `precision` digits' worth of bits (APFloat's binary
/// AdjustToPrecision, which is why MLIR prints `9.99999974E-6` for the f32
/// nearest 1e-5), then its digits without trailing zeros. Returns the digits,
/// most significant first, and the power of ten of the last one.
fn significand_digits(value: f64, precision: usize) -> (Vec<u8>, i64) {
    let bits = value.to_bits();
    let biased = ((bits >> 52) & 0x7FF) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mut mantissa, mut exponent2) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    let zeros = mantissa.trailing_zeros();
    mantissa >>= zeros;
    exponent2 += i64::from(zeros);
    let mut number = BigUint::from(mantissa);
    let mut exponent10 = 0i64;
    if exponent2 > 0 {
        number.shift_left(exponent2 as u32);
    } else {
        for _ in 0..(-exponent2) {
            number.multiply(5);
        }
        exponent10 = exponent2;
    }
    let required = (precision * 196).div_ceil(59) as u64;
    let active = number.bit_length();
    if active > required {
        let removable = (active - required) * 59 / 196;
        for _ in 0..removable {
            number.divide(10);
        }
        exponent10 += removable as i64;
    }
    let mut digits = Vec::new();
    let mut trailing = true;
    while !number.is_zero() {
        let digit = number.divide(10) as u8;
        if trailing && digit == 0 {
            exponent10 += 1;
        } else {
            trailing = false;
            digits.push(b'0' + digit);
        }
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    digits.reverse();
    (digits, exponent10)
}

/// Just enough of an unsigned big integer for [`significand_digits`].
struct BigUint {
    /// Little-endian 32-bit limbs.
    limbs: Vec<u32>,
}

impl BigUint {
    fn from(value: u64) -> BigUint {
        BigUint {
            limbs: vec![value as u32, (value >> 32) as u32],
        }
    }

    fn multiply(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
    }

    fn shift_left(&mut self, bits: u32) {
        for _ in 0..bits / 32 {
            self.limbs.insert(0, 0);
        }
        let rest = bits % 32;
        if rest != 0 {
            let mut carry = 0u32;
            for limb in &mut self.limbs {
                let shifted = (u64::from(*limb) << rest) | u64::from(carry);
                *limb = shifted as u32;
                carry = (shifted >> 32) as u32;
            }
            if carry != 0 {
                self.limbs.push(carry);
            }
        }
    }

    /// Divides in place (truncating) and returns the remainder.
    fn divide(&mut self, divisor: u32) -> u32 {
        let mut remainder = 0u64;
        for limb in self.limbs.iter_mut().rev() {
            let current = (remainder << 32) | u64::from(*limb);
            *limb = (current / u64::from(divisor)) as u32;
            remainder = current % u64::from(divisor);
        }
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
        remainder as u32
    }

    fn bit_length(&self) -> u64 {
        match self.limbs.iter().rposition(|&l| l != 0) {
            None => 0,
            Some(top) => top as u64 * 32 + u64::from(32 - self.limbs[top].leading_zeros()),
        }
    }

    fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&l| l == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_mlir() {
        assert_eq!(format(FloatKind::F32, 1.0), "1.000000e+00");
        assert_eq!(format(FloatKind::F32, 0.1f32 as f64), "1.000000e-01");
        assert_eq!(format(FloatKind::F32, 32.0), "3.200000e+01");
        assert_eq!(format(FloatKind::F32, -0.0), "-0.000000e+00");
        assert_eq!(
            format(FloatKind::F32, std::f32::consts::PI as f64),
            "3.14159274"
        );
        assert_eq!(format(FloatKind::F32, f64::NAN), "0x7FC00000");
        assert_eq!(format(FloatKind::F32, f64::INFINITY), "0x7F800000");
        assert_eq!(format(FloatKind::F32, f64::NEG_INFINITY), "0xFF800000");
        assert_eq!(format(FloatKind::F64, 0.1), "1.000000e-01");
        assert_eq!(format(FloatKind::F64, 1.0 / 3.0), "0.33333333333333331");
        assert_eq!(format(FloatKind::Bf16, 1.5), "1.500000e+00");
        assert_eq!(format(FloatKind::F32, 1234565.0), "0x4996B428");
        assert_eq!(format(FloatKind::F32, 1.0e-10f32 as f64), "1.000000e-10");
        assert_eq!(format(FloatKind::F32, 1.17549435e-38), "1.17549435E-38");
        // APFloat truncates before it rounds, so this one does not read back
        // from six digits.
        assert_eq!(format(FloatKind::F32, 1.0e-5f32 as f64), "9.99999974E-6");
    }
}

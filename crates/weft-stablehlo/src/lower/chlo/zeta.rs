//! The Hurwitz zeta function `ζ(x, q) = Σₙ (q + n)^-x`, as XLA's
//! legalization computes it (Johansson's Euler–Maclaurin form): ten terms of
//! the series, the integral correction `(q + 10)^(1-x) / (x - 1)`, and a
//! twelve-term Bernoulli tail by Horner's rule; the series alone when the
//! next term is below its precision. Outside the domain: NaN for `x < 1` and
//! for non-integral `x` at `q ≤ 0`; at the poles (integral `q ≤ 0`) `+inf`
//! for even integral `x`, else NaN; `+inf` at `x = 1` (the harmonic series).

use weft_ir::attrs::Direction;
use weft_ir::{Instr, Opcode};

use super::Arithmetic;

/// The Bernoulli tail's coefficients `(2k)! / B₂ₖ`.
const ZETA_COEFFICIENTS: [f64; 12] = [
    -7.166_165_256_175_667e18,
    1.815_210_540_194_354_6e17,
    -4_597_978_722_407_473.0,
    116_467_828_143_500.67,
    -2_950_130_727_918.164,
    74_724_249_600.0,
    -1_892_437_580.318_379_2,
    47_900_160.0,
    -1_209_600.0,
    30_240.0,
    -720.0,
    12.0,
];

/// Terms of the series before the correction.
const SERIES_TERMS: usize = 9;

pub(super) fn zeta(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let [x, q] = operands[..] else {
        return Err("zeta takes x and q".to_string());
    };
    super::require_float(a, x, "zeta")?;
    Ok(zeta_of(a, x, q))
}

pub(super) fn zeta_of(a: &mut Arithmetic<'_, '_>, x: Instr, q: Instr) -> Instr {
    let zero = a.constant_like(0.0, q);
    let one = a.constant_like(1.0, q);
    let negated_x = a.negate(x);
    let mut accumulator = q;
    let mut power_sum = a.binary(Opcode::Power, q, negated_x);
    for _ in 0..SERIES_TERMS {
        accumulator = a.add(accumulator, one);
        let power = a.binary(Opcode::Power, accumulator, negated_x);
        power_sum = a.add(power_sum, power);
    }
    accumulator = a.add(accumulator, one);
    let next_power = a.binary(Opcode::Power, accumulator, negated_x);
    let x_minus_one = a.subtract(x, one);
    let scaled = a.multiply(next_power, accumulator);
    let correction = a.divide(scaled, x_minus_one);

    // 1 / accumulator², written out as XLA does (not rsqrt).
    let square = a.multiply(accumulator, accumulator);
    let inverse_square = a.divide(one, square);
    let two_terms_minus_one = (2 * ZETA_COEFFICIENTS.len() - 1) as f64;
    let mut horner_sum = zero;
    for (i, &coefficient) in ZETA_COEFFICIENTS[..ZETA_COEFFICIENTS.len() - 1]
        .iter()
        .enumerate()
    {
        let i = i as f64;
        let left_shift = a.constant_like(two_terms_minus_one - 1.0 - 2.0 * i, x);
        let left = a.add(x, left_shift);
        let right_shift = a.constant_like(two_terms_minus_one - 2.0 - 2.0 * i, x);
        let right = a.add(x, right_shift);
        let product = a.multiply(left, right);
        let inverse = a.constant_like(1.0 / coefficient, accumulator);
        let summed = a.add(horner_sum, inverse);
        let weighted = a.multiply(inverse_square, summed);
        horner_sum = a.multiply(product, weighted);
    }
    let half = a.constant_like(0.5, next_power);
    let x_over_accumulator = a.divide(x, accumulator);
    let last = a.constant_like(
        1.0 / ZETA_COEFFICIENTS[ZETA_COEFFICIENTS.len() - 1],
        accumulator,
    );
    let tail_sum = a.add(last, horner_sum);
    let tail_product = a.multiply(x_over_accumulator, tail_sum);
    let tail_factor = a.add(half, tail_product);
    let tail = a.multiply(next_power, tail_factor);
    let with_correction = a.add(power_sum, correction);
    let accurate = a.add(with_correction, tail);

    // The series alone when the next term is negligible next to it.
    let next_magnitude = a.abs(next_power);
    let sum_magnitude = a.abs(power_sum);
    let smallest = a.smallest_like(accumulator);
    let negligible_bound = a.multiply(sum_magnitude, smallest);
    let negligible = a.compare(Direction::Lt, next_magnitude, negligible_bound);
    let mut output = a.select(negligible, power_sum, accurate);

    let nan = a.constant_like(f64::NAN, x);
    let one_like_x = a.constant_like(1.0, x);
    let below_one = a.compare(Direction::Lt, x, one_like_x);
    output = a.select(below_one, nan, output);

    let q_non_positive = a.compare(Direction::Le, q, zero);
    let x_floor = a.floor(x);
    let x_fractional = a.compare(Direction::Ne, x, x_floor);
    let domain_error = a.and(q_non_positive, x_fractional);
    output = a.select(domain_error, nan, output);

    let infinity = a.constant_like(f64::INFINITY, x);
    let q_floor = a.floor(q);
    let q_integral = a.compare(Direction::Eq, q, q_floor);
    let at_pole = a.and(q_non_positive, q_integral);
    let two = a.constant_like(2.0, x);
    let x_integral = a.compare(Direction::Eq, x, x_floor);
    let parity = a.binary(Opcode::Remainder, x, two);
    let even = a.compare(Direction::Eq, parity, zero);
    let even_integral = a.and(x_integral, even);
    let pole_value = a.select(even_integral, infinity, nan);
    output = a.select(at_pole, pole_value, output);

    let x_is_one = a.compare(Direction::Eq, x, one);
    a.select(x_is_one, infinity, output)
}

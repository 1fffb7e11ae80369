//! `lgamma`, `digamma` and `polygamma` by Lanczos' approximation
//! (g = 7, 9 coefficients), as XLA's legalization computes them:
//! with `z = x - 1` (or `z = -x` below ½, for the reflection formula),
//! `t = z + g + ½` and `a(z) = c₀ + Σ cₖ / (z + k)`,
//! - `lgamma(z + 1) = log(2π)/2 + (z + ½ - t / log t) log t + log a(z)`, where
//!   `log t = log(g + ½) + log1p(z / (g + ½))` (precise where `log` is not),
//!   reflected below ½ as `log π - log|sin(π frac|x|)| - lgamma(1 - x)`, and
//!   `+inf` at `±inf`;
//! - `digamma(z + 1) = log t + a'(z) / a(z) - g / t`, reflected below ½ as
//!   `digamma(1 - x) - π cos(πr) / sin(πr)` with `x` shifted into
//!   `[-½, ½]`, and NaN at the poles (integers ≤ 0);
//! - `polygamma(n, x) = (-1)^(n+1) n! ζ(n + 1, x)` for natural `n > 0`,
//!   `digamma(x)` for `n = 0`, NaN for other `n`.

use std::f64::consts::PI;

use weft_ir::attrs::Direction;
use weft_ir::{Instr, Opcode};

use super::Arithmetic;

/// Lanczos' g.
const LANCZOS_GAMMA: f64 = 7.0;
/// Lanczos' c₀.
const BASE_LANCZOS_COEFFICIENT: f64 = 0.999_999_999_999_809_9;
/// Lanczos' c₁ … c₈.
const LANCZOS_COEFFICIENTS: [f64; 8] = [
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

/// `(needs reflection: x < ½, z)` with `z = -x` when reflecting, else `x - 1`.
fn reflection_argument(a: &mut Arithmetic<'_, '_>, x: Instr) -> (Instr, Instr) {
    let half = a.constant_like(0.5, x);
    let reflect = a.compare(Direction::Lt, x, half);
    let negated = a.negate(x);
    let one = a.constant_like(1.0, x);
    let shifted = a.subtract(x, one);
    (reflect, a.select(reflect, negated, shifted))
}

/// `(t, log t)` for `t = z + g + ½`.
fn lanczos_t(a: &mut Arithmetic<'_, '_>, z: Instr) -> (Instr, Instr) {
    let shift = a.constant_like(LANCZOS_GAMMA + 0.5, z);
    let t = a.add(shift, z);
    let log_shift = a.constant_like((LANCZOS_GAMMA + 0.5).ln(), z);
    let ratio = a.divide(z, shift);
    let log_ratio = a.log_plus_one(ratio);
    (t, a.add(log_shift, log_ratio))
}

pub(super) fn lgamma(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    super::require_float(a, x, "lgamma")?;
    Ok(lgamma_of(a, x))
}

fn lgamma_of(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let (reflect, z) = reflection_argument(a, x);
    let mut series = a.constant_like(BASE_LANCZOS_COEFFICIENT, x);
    for (k, &c) in LANCZOS_COEFFICIENTS.iter().enumerate() {
        let c = a.constant_like(c, x);
        let index = a.constant_like((k + 1) as f64, x);
        let shifted = a.add(z, index);
        let term = a.divide(c, shifted);
        series = a.add(series, term);
    }
    let (t, log_t) = lanczos_t(a, z);
    // (z + ½) log t - t, written so that a large t does not overflow.
    let half = a.constant_like(0.5, x);
    let t_over_log_t = a.divide(t, log_t);
    let z_plus_half = a.add(z, half);
    let factor = a.subtract(z_plus_half, t_over_log_t);
    let r = a.multiply(factor, log_t);
    let log_series = a.log(series);
    let log_root_two_pi = a.constant_like((2f64.ln() + PI.ln()) / 2.0, x);
    let partial = a.add(log_root_two_pi, r);
    let unreflected = a.add(partial, log_series);

    // log|sin(πx)| from the fractional part of |x|, folded into [0, ½] so that
    // π·frac stays precise and integers give exactly log 0 = -inf.
    let magnitude = a.abs(x);
    let floor = a.floor(magnitude);
    let fraction = a.subtract(magnitude, floor);
    let fold = a.compare(Direction::Lt, half, fraction);
    let one = a.constant_like(1.0, x);
    let folded_value = a.subtract(one, fraction);
    let fraction = a.select(fold, folded_value, fraction);
    let pi = a.constant_like(PI, x);
    let angle = a.multiply(pi, fraction);
    let sine = a.unary(Opcode::Sine, angle);
    let log_sine = a.log(sine);
    let log_pi = a.constant_like(PI.ln(), x);
    let difference = a.subtract(log_pi, log_sine);
    let reflected = a.subtract(difference, unreflected);
    // An infinite log|sin| wins (avoiding inf - inf = NaN).
    let finite = a.is_finite(log_sine);
    let negated_log_sine = a.negate(log_sine);
    let reflected = a.select(finite, reflected, negated_log_sine);
    let value = a.select(reflect, reflected, unreflected);

    let infinite = is_infinite(a, x);
    let infinity = a.constant_like(f64::INFINITY, x);
    a.select(infinite, infinity, value)
}

/// `|x| == inf`.
fn is_infinite(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let magnitude = a.abs(x);
    let infinity = a.constant_like(f64::INFINITY, x);
    a.compare(Direction::Eq, magnitude, infinity)
}

pub(super) fn digamma(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    super::require_float(a, x, "digamma")?;
    Ok(digamma_of(a, x))
}

pub(super) fn digamma_of(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let (reflect, z) = reflection_argument(a, x);
    let zero = a.constant_like(0.0, x);
    let mut series = a.constant_like(BASE_LANCZOS_COEFFICIENT, x);
    let mut derivative = zero;
    for (k, &c) in LANCZOS_COEFFICIENTS.iter().enumerate() {
        let c = a.constant_like(c, x);
        let index = a.constant_like((k + 1) as f64, x);
        let shifted = a.add(z, index);
        let square = a.multiply(shifted, shifted);
        let derivative_term = a.divide(c, square);
        derivative = a.subtract(derivative, derivative_term);
        let term = a.divide(c, shifted);
        series = a.add(series, term);
    }
    let (t, log_t) = lanczos_t(a, z);
    let ratio = a.divide(derivative, series);
    let gamma = a.constant_like(LANCZOS_GAMMA, x);
    let gamma_over_t = a.divide(gamma, t);
    let sum = a.add(log_t, ratio);
    let unreflected = a.subtract(sum, gamma_over_t);

    // cot(πx) from x shifted into [-½, ½], where π·x is precise.
    let half = a.constant_like(0.5, x);
    let x_plus_half = a.add(x, half);
    let floor = a.floor(x_plus_half);
    let shift = a.abs(floor);
    let reduced = a.add(x, shift);
    let pi = a.constant_like(PI, x);
    let angle = a.multiply(pi, reduced);
    let cosine = a.unary(Opcode::Cosine, angle);
    let sine = a.unary(Opcode::Sine, angle);
    let pi_cosine = a.multiply(pi, cosine);
    let cotangent_term = a.divide(pi_cosine, sine);
    let reflected = a.subtract(unreflected, cotangent_term);
    let value = a.select(reflect, reflected, unreflected);

    let non_positive = a.compare(Direction::Le, x, zero);
    let x_floor = a.floor(x);
    let integral = a.compare(Direction::Eq, x, x_floor);
    let pole = a.and(non_positive, integral);
    let nan = a.constant_like(f64::NAN, x);
    a.select(pole, nan, value)
}

pub(super) fn polygamma(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let [n, x] = operands[..] else {
        return Err("polygamma takes n and x".to_string());
    };
    super::require_float(a, x, "polygamma")?;
    // (-1)^(n+1) as 2 (n mod 2) - 1.
    let one = a.constant_like(1.0, x);
    let two = a.constant_like(2.0, x);
    let parity = a.binary(Opcode::Remainder, n, two);
    let twice = a.multiply(two, parity);
    let sign = a.subtract(twice, one);
    let n_plus_one = a.add(n, one);
    let log_factorial = lgamma_of(a, n_plus_one);
    let factorial = a.exp(log_factorial);
    let zeta = super::zeta::zeta_of(a, n_plus_one, x);
    let signed = a.multiply(sign, factorial);
    let value = a.multiply(signed, zeta);

    let zero = a.constant_like(0.0, x);
    let n_is_zero = a.compare(Direction::Eq, n, zero);
    let digamma = digamma_of(a, x);
    let value = a.select(n_is_zero, digamma, value);

    let n_floor = a.floor(n);
    let fractional = a.compare(Direction::Ne, n, n_floor);
    let negative = a.compare(Direction::Lt, n, zero);
    let not_natural = a.or(fractional, negative);
    let nan = a.constant_like(f64::NAN, x);
    Ok(a.select(not_natural, nan, value))
}

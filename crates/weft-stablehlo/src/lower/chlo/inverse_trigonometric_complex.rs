//! The inverse trigonometric family on complex operands, as XLA's generated
//! decompositions compute it (the `functional_algorithms` derivations):
//! - Hull et al.'s algorithm, in the modified form with fewer regions, as
//!   `_asin_acos_kernel(z) = w = sqrt(a² - x²) + i log(a + sqrt(a² - 1))`
//!   with `a = (hypot(x + 1, y) + hypot(x - 1, y)) / 2` on `x = |re z|`,
//!   `y = |im z|`, each part by the formula that neither overflows nor
//!   cancels in its region;
//! - `asin(z) = (atan2(re z, re w), ±im w)`, `acos(z) = (atan2(re w, re z),
//!   ∓im w)`, `acosh(z) = (im w, ±atan2(re w, re z))` (signs from `im z`),
//!   `asinh(z) = -i asin(iz)`;
//! - `atanh(z) = (log1p(z) - log1p(-z)) / 2` by parts: the real part
//!   `sign(x) log1p(4|x| / ((1 - |x|)² + y²)) / 4` with the large-argument
//!   forms past `1/ε²`, the imaginary part `atan2(2y, (1 - |x|)(1 + |x|) - y²)
//!   / 2`, or `±π/2` past it; `atan(z) = -i atanh(iz)`.

use std::f64::consts::{PI, SQRT_2};

use weft_ir::attrs::Direction;
use weft_ir::{ElementType, Instr, Opcode};

use super::Arithmetic;
use super::complex_parts::{complex, parts};

/// `hypot(m, y)` for non-negative `m` and `y`, as the kernel writes it: exact
/// when they are equal, `mx (1 + r/2)` when `sqrt(1 + r)` rounds to 1.
fn hypotenuse(a: &mut Arithmetic<'_, '_>, m: Instr, y: Instr) -> Instr {
    let one = a.constant_like(1.0, m);
    let zero = a.constant_like(0.0, m);
    let two = a.constant_like(2.0, m);
    let root_two = a.constant_like(SQRT_2, m);
    let larger = a.binary(Opcode::Maximum, m, y);
    let smaller = a.binary(Opcode::Minimum, m, y);
    let equal = a.compare(Direction::Eq, larger, smaller);
    let diagonal = a.multiply(root_two, larger);
    let ratio = a.divide(smaller, larger);
    let ratio_squared = a.multiply(ratio, ratio);
    let sum = a.add(one, ratio_squared);
    let root = a.sqrt(sum);
    let root_is_one = a.compare(Direction::Eq, root, one);
    let positive = a.compare(Direction::Gt, ratio_squared, zero);
    let first_order = a.and(root_is_one, positive);
    let scaled = a.multiply(larger, ratio_squared);
    let half_scaled = a.divide(scaled, two);
    let linear = a.add(larger, half_scaled);
    let general = a.multiply(larger, root);
    let value = a.select(first_order, linear, general);
    a.select(equal, diagonal, value)
}

/// The smallest positive normal number of `element`.
fn smallest_normal(element: ElementType) -> f64 {
    match element {
        ElementType::F64 => f64::MIN_POSITIVE,
        ElementType::F32 => f64::from(f32::MIN_POSITIVE),
        ElementType::F16 => 2f64.powi(-14),
        _ => f64::from(f32::MIN_POSITIVE),
    }
}

/// `_asin_acos_kernel(z)`.
pub(super) fn kernel(a: &mut Arithmetic<'_, '_>, z: Instr) -> Instr {
    let (signed_x, signed_y) = parts(a, z);
    let x = a.abs(signed_x);
    let y = a.abs(signed_y);
    let one = a.constant_like(1.0, x);
    let zero = a.constant_like(0.0, x);
    let half = a.constant_like(0.5, x);
    let two = a.constant_like(2.0, x);
    let max = a.max_finite_like(x);
    let root_max = a.sqrt(max);
    let eight = a.constant_like(8.0, x);
    let safe_max = a.divide(root_max, eight);

    let x_plus_one = a.add(x, one);
    let magnitude_plus = a.abs(x_plus_one);
    let r = hypotenuse(a, magnitude_plus, y);
    let x_minus_one = a.subtract(x, one);
    let magnitude_minus = a.abs(x_minus_one);
    let s = hypotenuse(a, magnitude_minus, y);
    let r_plus_s = a.add(r, s);
    let big_a = a.multiply(half, r_plus_s);
    let a_plus_x = a.add(big_a, x);
    let half_a_plus_x = a.multiply(half, a_plus_x);
    let y_squared = a.multiply(y, y);
    let r_plus_x_plus_one = a.add(r, x_plus_one);
    let s_minus_x_minus_one = a.subtract(s, x_minus_one);
    let s_plus_x_minus_one = a.add(s, x_minus_one);

    // The real part: sqrt(a² - x²) in three regions.
    let largest_part = a.binary(Opcode::Maximum, x, y);
    let huge = a.compare(Direction::Ge, largest_part, safe_max);
    let within_unit = a.compare(Direction::Le, x, one);
    let quotient = a.divide(y_squared, r_plus_x_plus_one);
    let inner = a.add(quotient, s_minus_x_minus_one);
    let product = a.multiply(half_a_plus_x, inner);
    let near = a.sqrt(product);
    let first = a.divide(half_a_plus_x, r_plus_x_plus_one);
    let second = a.divide(half_a_plus_x, s_plus_x_minus_one);
    let sum = a.add(first, second);
    let root = a.sqrt(sum);
    let far = a.multiply(y, root);
    let moderate = a.select(within_unit, near, far);
    let real = a.select(huge, y, moderate);

    // The imaginary part: log(a + sqrt(a² - 1)) in three regions.
    let trillion = a.constant_like(1e12, x);
    let bound = a.multiply(safe_max, trillion);
    let x_small = a.compare(Direction::Lt, x, bound);
    let millionth = a.constant_like(1e-6, x);
    let hundred = a.constant_like(100.0, x);
    let low = a.multiply(safe_max, millionth);
    let high = a.multiply(safe_max, hundred);
    let safe_max_opt = a.select(x_small, low, high);
    let y_large = a.compare(Direction::Ge, y, safe_max_opt);
    let larger = a.select(y_large, y, x);
    let threshold = a.select(y_large, safe_max_opt, safe_max);
    let beyond = a.compare(Direction::Ge, larger, threshold);
    let log_two = a.log(two);
    let log_larger = a.log(larger);
    let logs = a.add(log_two, log_larger);
    let infinity = a.constant_like(f64::INFINITY, signed_y);
    let y_infinite = a.compare(Direction::Eq, y, infinity);
    let y_finite = a.unary(Opcode::Not, y_infinite);
    let use_ratio = a.and(y_large, y_finite);
    let x_over_y = a.divide(x, y);
    let ratio = a.select(use_ratio, x_over_y, zero);
    let ratio_squared = a.multiply(ratio, ratio);
    let log_ratio = a.log_plus_one(ratio_squared);
    let half_log_ratio = a.multiply(half, log_ratio);
    let large_imaginary = a.add(logs, half_log_ratio);

    let smallest = a.constant_like(smallest_normal(a.element(x)), x);
    let root_smallest = a.sqrt(smallest);
    let four = a.constant_like(4.0, x);
    let safe_min = a.multiply(root_smallest, four);
    let y_tiny = a.compare(Direction::Lt, y, safe_min);
    let x_below_one = a.compare(Direction::Lt, x, one);
    let tiny = a.and(y_tiny, x_below_one);
    let a_plus_one = a.add(big_a, one);
    let product_plus_minus = a.multiply(x_plus_one, x_minus_one);
    let over = a.divide(product_plus_minus, a_plus_one);
    let tiny_a_minus_one = a.negate(over);
    let x_at_least_one = a.compare(Direction::Ge, x, one);
    let half_y_squared = a.multiply(half, y_squared);
    let half_y_squared_over = a.divide(half_y_squared, r_plus_x_plus_one);
    let half_s_plus = a.multiply(half, s_plus_x_minus_one);
    let outside = a.add(half_y_squared_over, half_s_plus);
    let one_and_a_half = a.constant_like(1.5, x);
    let a_small = a.compare(Direction::Le, big_a, one_and_a_half);
    let half_y_squared_over_s = a.divide(half_y_squared, s_minus_x_minus_one);
    let inside = a.add(half_y_squared_over, half_y_squared_over_s);
    let a_minus_one_direct = a.subtract(big_a, one);
    let inside_or_direct = a.select(a_small, inside, a_minus_one_direct);
    let general = a.select(x_at_least_one, outside, inside_or_direct);
    let a_minus_one = a.select(tiny, tiny_a_minus_one, general);
    let product = a.multiply(a_minus_one, a_plus_one);
    let square_root = a.sqrt(product);
    let tiny_imaginary = a.divide(y, square_root);
    let argument = a.add(a_minus_one, square_root);
    let general_imaginary = a.log_plus_one(argument);
    let moderate_imaginary = a.select(tiny, tiny_imaginary, general_imaginary);
    let imaginary = a.select(beyond, large_imaginary, moderate_imaginary);
    complex(a, real, imaginary, z)
}

/// `-value` where `sign_source < 0`, else `value`.
fn with_sign_of(a: &mut Arithmetic<'_, '_>, value: Instr, sign_source: Instr) -> Instr {
    let zero = a.constant_like(0.0, sign_source);
    let negative = a.compare(Direction::Lt, sign_source, zero);
    let negated = a.negate(value);
    a.select(negative, negated, value)
}

pub(super) fn asin(a: &mut Arithmetic<'_, '_>, z: Instr) -> Instr {
    let (x, y) = parts(a, z);
    let w = kernel(a, z);
    let (w_real, w_imaginary) = parts(a, w);
    let real = a.binary(Opcode::Atan2, x, w_real);
    let imaginary = with_sign_of(a, w_imaginary, y);
    complex(a, real, imaginary, z)
}

pub(super) fn acos(a: &mut Arithmetic<'_, '_>, z: Instr) -> Instr {
    let (x, y) = parts(a, z);
    let w = kernel(a, z);
    let (w_real, w_imaginary) = parts(a, w);
    let real = a.binary(Opcode::Atan2, w_real, x);
    let negated = a.negate(w_imaginary);
    let imaginary = with_sign_of(a, negated, y);
    complex(a, real, imaginary, z)
}

pub(super) fn acosh(a: &mut Arithmetic<'_, '_>, z: Instr) -> Instr {
    let (x, y) = parts(a, z);
    let w = kernel(a, z);
    let (w_real, w_imaginary) = parts(a, w);
    let angle = a.binary(Opcode::Atan2, w_real, x);
    let imaginary = with_sign_of(a, angle, y);
    complex(a, w_imaginary, imaginary, z)
}

pub(super) fn asinh(a: &mut Arithmetic<'_, '_>, z: Instr) -> Instr {
    let (x, y) = parts(a, z);
    let negated_y = a.negate(y);
    let rotated = complex(a, negated_y, x, z);
    let w = kernel(a, rotated);
    let (w_real, w_imaginary) = parts(a, w);
    let real = with_sign_of(a, w_imaginary, x);
    let imaginary = a.binary(Opcode::Atan2, y, w_real);
    complex(a, real, imaginary, z)
}

/// `1/ε²` with `ε = 1 - nextafter(1, 0)`: where `|x| + 1` rounds to `|x|`.
fn inverse_epsilon(element: ElementType) -> f64 {
    match element {
        ElementType::F64 => 9_007_199_254_740_994.0,
        ElementType::F32 => 16_777_218.0,
        _ => 2050.0,
    }
}

pub(super) fn atanh(a: &mut Arithmetic<'_, '_>, z: Instr) -> Instr {
    let (x, y) = parts(a, z);
    let zero = a.constant_like(0.0, x);
    let one = a.constant_like(1.0, x);
    let minus_one = a.constant_like(-1.0, x);
    let non_negative = a.compare(Direction::Ge, x, zero);
    let sign = a.select(non_negative, one, minus_one);
    let inverse_epsilon = a.constant_like(inverse_epsilon(a.element(x)), x);
    let safe_max = a.multiply(inverse_epsilon, inverse_epsilon);
    let x_magnitude = a.abs(x);
    let y_magnitude = a.abs(y);
    let x_safe = a.compare(Direction::Lt, x_magnitude, safe_max);
    let y_safe = a.compare(Direction::Lt, y_magnitude, safe_max);
    let in_safe_region = a.and(x_safe, y_safe);
    let one_minus = a.subtract(one, x_magnitude);
    let one_minus_squared = a.multiply(one_minus, one_minus);
    let y_squared = a.multiply(y, y);
    let denominator = a.add(one_minus_squared, y_squared);
    let safe_ratio = a.divide(x_magnitude, denominator);
    let y_scaled = a.multiply(y_magnitude, inverse_epsilon);
    let y_negligible = a.compare(Direction::Lt, y_scaled, x_magnitude);
    let reciprocal = a.divide(one, x_magnitude);
    let infinity = a.constant_like(f64::INFINITY, x);
    let negative_infinity = a.constant_like(f64::NEG_INFINITY, x);
    let x_pos = a.compare(Direction::Eq, x, infinity);
    let x_neg = a.compare(Direction::Eq, x, negative_infinity);
    let x_infinite = a.or(x_pos, x_neg);
    let y_pos = a.compare(Direction::Eq, y, infinity);
    let y_neg = a.compare(Direction::Eq, y, negative_infinity);
    let y_infinite = a.or(y_pos, y_neg);
    let any_infinite = a.or(x_infinite, y_infinite);
    let x_over_y = a.divide(x_magnitude, y);
    let y_over_x = a.divide(y, x_magnitude);
    let sum = a.add(x_over_y, y_over_x);
    let inverse_sum = a.divide(one, sum);
    let large_ratio = a.divide(inverse_sum, y);
    let large = a.select(any_infinite, zero, large_ratio);
    let unsafe_ratio = a.select(y_negligible, reciprocal, large);
    let ratio = a.select(in_safe_region, safe_ratio, unsafe_ratio);
    let four = a.constant_like(4.0, x);
    let scaled = a.multiply(four, ratio);
    let log = a.log_plus_one(scaled);
    let signed = a.multiply(sign, log);
    let quarter = a.constant_like(0.25, x);
    let real = a.multiply(signed, quarter);

    let two_y = a.add(y, y);
    let one_plus = a.add(one, x_magnitude);
    let product = a.multiply(one_minus, one_plus);
    let difference = a.subtract(product, y_squared);
    let angle = a.binary(Opcode::Atan2, two_y, difference);
    let y_non_negative = a.compare(Direction::Ge, y, zero);
    let y_sign = a.select(y_non_negative, one, minus_one);
    let pi = a.constant_like(PI, x);
    let right_angle = a.multiply(y_sign, pi);
    let doubled = a.select(in_safe_region, angle, right_angle);
    let half = a.constant_like(0.5, x);
    let imaginary = a.multiply(doubled, half);
    complex(a, real, imaginary, z)
}

pub(super) fn atan(a: &mut Arithmetic<'_, '_>, z: Instr) -> Instr {
    let (x, y) = parts(a, z);
    let negated_y = a.negate(y);
    let rotated = complex(a, negated_y, x, z);
    let w = atanh(a, rotated);
    let (w_real, w_imaginary) = parts(a, w);
    let negated = a.negate(w_real);
    complex(a, w_imaginary, negated, z)
}

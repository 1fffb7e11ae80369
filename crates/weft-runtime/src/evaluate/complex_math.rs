//! Complex elementwise math: every unary and binary elementwise op the
//! StableHLO spec allows on `c64` and `c128`, computed with the formulas
//! XLA's CPU backend runs, so that results, branch cuts, signed zeros,
//! infinities and NaNs come out as XLA:CPU gives them. XLA gets its formulas
//! from three places, and each function says which it follows:
//! - StableHLO's complex math expander rewrites `exponential`, `log`,
//!   `log_plus_one` and `sqrt` before XLA sees them (accurate algorithms:
//!   double-precision sums near `|z| = 1`, rescaling against overflow);
//! - MLIR's complex-to-standard lowering emits the rest (`abs`, `sign`,
//!   `exponential_minus_one`, `rsqrt`, `sine`, `cosine`, `tan`, `tanh`,
//!   `power`, `atan2`, and the `exponential`, `sqrt` and `log` inside them);
//! - XLA's own emitter divides (Smith's algorithm with repairs for zeros and
//!   infinities) and expands `logistic` into `1 / (1 + exp(-z))`.
//!
//! Invariants:
//! - a `c64` value is computed in `f32` and a `c128` value in `f64`, the
//!   precision XLA computes them in ([`Real`] is that component type), so
//!   the results round as XLA's do;
//! - where XLA's compiled code fuses a product into a sum (multiplication,
//!   division, `power`), the formula uses `mul_add` in the same place;
//! - branch cuts are the principal ones: `log`, `sqrt`, `rsqrt`, `cbrt` and
//!   `power` cut along the negative real axis, and the sign of a zero
//!   imaginary part picks the side (`sqrt` keys on `imag < 0`, so `-0` lands
//!   on the upper side, as XLA's does);
//! - an op with no complex definition (`remainder`, which the spec leaves
//!   open) is refused by the caller, never approximated.
//!
//! What stays different from XLA:CPU: XLA flushes subnormal `f32` results to
//! zero and weft keeps them; and XLA's own `exp`, `log`, `sin`, `cos` differ
//! from the Rust library's in the last bit, which the cancellation in
//! `sinh y = e^y/2 - e^-y/2` (sine, cosine for small `|y|`) and in `power`
//! and `atan2` can grow to a few dozen ulp.
//!
//! `cbrt` is `power(z, 1/3)`, the principal root as the StableHLO
//! interpreter computes it; XLA refuses complex `cbrt`. The ordering ops
//! (`maximum`, `minimum`, `compare` other than `EQ`/`NE`) are lexicographic
//! on `(real, imaginary)`, as the spec defines them; XLA:CPU refuses them.

use std::cmp::Ordering;
use std::ops::{Add, Div, Mul, Neg, Sub};

use weft_ir::{ElementType, Opcode};

use crate::numbers::Numbers;

/// The component type of a complex number: `f32` for `c64`, `f64` for `c128`.
pub(super) trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn exp(self) -> Self;
    fn exp_m1(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn sqrt(self) -> Self;
    fn powf(self, exponent: Self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn abs(self) -> Self;
    fn copysign(self, sign: Self) -> Self;
    fn mul_add(self, factor: Self, addend: Self) -> Self;
    fn is_nan(self) -> bool;
    /// The largest finite value.
    const LARGEST: f64;
    /// `2^⌈p/2⌉ + 1` for a `p`-bit significand: splits a value into two
    /// halves whose products are exact.
    const VELTKAMP_SPLITTER: f64;
}

macro_rules! real_component {
    ($t:ty, $splitter:expr) => {
        impl Real for $t {
            const LARGEST: f64 = <$t>::MAX as f64;
            const VELTKAMP_SPLITTER: f64 = $splitter;
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn exp_m1(self) -> Self {
                <$t>::exp_m1(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn powf(self, exponent: Self) -> Self {
                <$t>::powf(self, exponent)
            }
            fn atan2(self, x: Self) -> Self {
                <$t>::atan2(self, x)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn copysign(self, sign: Self) -> Self {
                <$t>::copysign(self, sign)
            }
            fn mul_add(self, factor: Self, addend: Self) -> Self {
                <$t>::mul_add(self, factor, addend)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}

real_component!(f32, 4097.0);
real_component!(f64, 134_217_729.0);

/// `x` as the component type.
fn constant<R: Real>(x: f64) -> R {
    R::from_f64(x)
}

/// The float maximum of XLA and MLIR's `arith.maximumf`: NaN wins.
fn nan_maximum<R: Real>(a: R, b: R) -> R {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if b > a {
        b
    } else {
        a
    }
}

/// The float minimum of XLA and MLIR's `arith.minimumf`: NaN wins.
fn nan_minimum<R: Real>(a: R, b: R) -> R {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if b < a {
        b
    } else {
        a
    }
}

/// `x²` as the unevaluated sum `high + low` (Dekker's product with a
/// Veltkamp split), exact unless it overflows.
fn square_dekker<R: Real>(x: R) -> (R, R) {
    let splitter = constant::<R>(R::VELTKAMP_SPLITTER);
    let high = x * x;
    let scaled = splitter * x;
    let x_high = scaled + (x - scaled);
    let x_low = x - x_high;
    let cross = x_high * x_low;
    let low = (((-high + x_high * x_high) + cross) + cross) + x_low * x_low;
    (high, low)
}

/// `a + b` and its rounding error (2Sum, which needs no ordering).
fn two_sum<R: Real>(a: R, b: R) -> (R, R) {
    let sum = a + b;
    let b_part = sum - a;
    (sum, (a - (sum - b_part)) + (b - b_part))
}

/// A complex number with components of type `R`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Complex<R> {
    pub re: R,
    pub im: R,
}

impl<R: Real> Complex<R> {
    pub fn new(re: R, im: R) -> Self {
        Complex { re, im }
    }

    fn from_pair((re, im): (f64, f64)) -> Self {
        Complex::new(R::from_f64(re), R::from_f64(im))
    }

    fn to_pair(self) -> (f64, f64) {
        (self.re.to_f64(), self.im.to_f64())
    }

    fn real(x: f64) -> Self {
        Complex::new(constant(x), constant(0.0))
    }

    pub fn negate(self) -> Self {
        Complex::new(-self.re, -self.im)
    }

    pub fn add(self, other: Self) -> Self {
        Complex::new(self.re + other.re, self.im + other.im)
    }

    pub fn subtract(self, other: Self) -> Self {
        Complex::new(self.re - other.re, self.im - other.im)
    }

    /// `(a + bi)(c + di)`, with the first product of each part fused into
    /// its sum as XLA's compiled code fuses it.
    pub fn multiply(self, other: Self) -> Self {
        let (a, b, c, d) = (self.re, self.im, other.re, other.im);
        Complex::new(a.mul_add(c, -(b * d)), b.mul_add(c, a * d))
    }

    /// Smith's division, then XLA's repairs of a `(NaN, NaN)` quotient: a
    /// zero divisor gives infinities signed by the dividend, an infinite
    /// dividend over a finite divisor infinities, a finite dividend over an
    /// infinite divisor zeros. Each product feeding a sum is fused into it,
    /// as the compiled code fuses it.
    pub fn divide(self, other: Self) -> Self {
        let (zero, one) = (constant::<R>(0.0), constant::<R>(1.0));
        let infinity = constant::<R>(f64::INFINITY);
        let (a_re, a_im, b_re, b_im) = (self.re, self.im, other.re, other.im);
        let (quotient_re, quotient_im) = if b_re.abs() < b_im.abs() {
            let ratio = b_re / b_im;
            let denominator = ratio.mul_add(b_re, b_im);
            (
                ratio.mul_add(a_re, a_im) / denominator,
                ratio.mul_add(a_im, -a_re) / denominator,
            )
        } else {
            let ratio = b_im / b_re;
            let denominator = ratio.mul_add(b_im, b_re);
            (
                ratio.mul_add(a_im, a_re) / denominator,
                (-ratio).mul_add(a_re, a_im) / denominator,
            )
        };
        if !(quotient_re.is_nan() && quotient_im.is_nan()) {
            return Complex::new(quotient_re, quotient_im);
        }
        let finite = |x: R| x.abs() != infinity && !x.is_nan();
        let infinite = |x: R| x.abs() == infinity;
        let dividend_not_nan = !a_re.is_nan() || !a_im.is_nan();
        if b_re.abs() == zero && b_im.abs() == zero && dividend_not_nan {
            let signed_infinity = infinity.copysign(b_re);
            return Complex::new(signed_infinity * a_re, signed_infinity * a_im);
        }
        // An infinite part counts as ±1 and a finite one as ±0 below.
        let unit_if = |is: bool, x: R| (if is { one } else { zero }).copysign(x);
        if (infinite(a_re) || infinite(a_im)) && finite(b_re) && finite(b_im) {
            let (re, im) = (unit_if(infinite(a_re), a_re), unit_if(infinite(a_im), a_im));
            return Complex::new(
                infinity * (re * b_re + im * b_im),
                infinity * (im * b_re - re * b_im),
            );
        }
        if (infinite(b_re) || infinite(b_im)) && finite(a_re) && finite(a_im) {
            let (re, im) = (unit_if(infinite(b_re), b_re), unit_if(infinite(b_im), b_im));
            return Complex::new(
                zero * (a_re * re + a_im * im),
                zero * (a_im * re - a_re * im),
            );
        }
        Complex::new(quotient_re, quotient_im)
    }

    /// `|z|` as `max · sqrt(1 + (min/max)²)`, which neither overflows nor
    /// underflows where the plain `sqrt(re² + im²)` would. Returns `min`,
    /// `max` and `1 + (min/max)²`.
    fn magnitude_parts(self) -> (R, R, R) {
        let (re, im) = (self.re.abs(), self.im.abs());
        let (max, min) = (nan_maximum(re, im), nan_minimum(re, im));
        let ratio = min / max;
        (min, max, constant::<R>(1.0) + ratio * ratio)
    }

    /// `|z|`. Where the scaled formula gives NaN (both parts zero or both
    /// infinite, or a NaN part) the result is `min`, which is then right.
    pub fn abs(self) -> R {
        let (min, max, one_plus_ratio_squared) = self.magnitude_parts();
        let result = max * one_plus_ratio_squared.sqrt();
        if result.is_nan() { min } else { result }
    }

    /// `1 / sqrt(|z|)`, scaled as [`Self::abs`] is:
    /// `rsqrt(max) · sqrt(rsqrt(1 + (min/max)²))`, or `rsqrt(min)` where
    /// that is NaN.
    fn reciprocal_sqrt_abs(self) -> R {
        let (min, max, one_plus_ratio_squared) = self.magnitude_parts();
        let one = constant::<R>(1.0);
        let rsqrt = |x: R| one / x.sqrt();
        let result = rsqrt(max) * rsqrt(one_plus_ratio_squared).sqrt();
        if result.is_nan() { rsqrt(min) } else { result }
    }

    /// `z / |z|`; a zero keeps its signs.
    pub fn sign(self) -> Self {
        let zero = constant::<R>(0.0);
        if self.re == zero && self.im == zero {
            return self;
        }
        let magnitude = self.abs();
        Complex::new(self.re / magnitude, self.im / magnitude)
    }

    /// `e^a (cos b + i sin b)`, the plain formula of XLA's emitted code,
    /// used inside `logistic`.
    fn exp_plain(self) -> Self {
        let scale = self.re.exp();
        Complex::new(scale * self.im.cos(), scale * self.im.sin())
    }

    /// `e^z` as StableHLO's complex math expander writes it: the imaginary
    /// part of a real `z` is `+0` (not `∞ · 0`), and where `e^a` overflows
    /// it is applied as `e^{a/2} · (cos b + i sin b) · e^{a/2}`, which stays
    /// finite when `cos b` or `sin b` is small enough.
    pub fn exp(self) -> Self {
        let (a, b) = (self.re, self.im);
        let zero = constant::<R>(0.0);
        let scale = a.exp();
        let (cos_b, sin_b) = (b.cos(), b.sin());
        let overflows = scale == constant(f64::INFINITY);
        let half_scale = (a * constant(0.5)).exp();
        let re = if overflows {
            half_scale * cos_b * half_scale
        } else {
            scale * cos_b
        };
        let im = if b == zero {
            zero
        } else if overflows {
            half_scale * sin_b * half_scale
        } else {
            scale * sin_b
        };
        Complex::new(re, im)
    }

    /// `cos x - 1` without cancellation: Cephes' polynomial for
    /// `x² < (π/4)²`, as MLIR's complex lowering evaluates it.
    fn cos_minus_one(x: R) -> R {
        const COEFFICIENTS: [f64; 7] = [
            4.737_750_796_424_621e-14,
            -1.147_028_484_342_536e-11,
            2.087_675_428_708_152e-9,
            -2.755_731_921_499_979e-7,
            2.480_158_730_157_055e-5,
            -1.388_888_888_888_887_2e-3,
            4.166_666_666_666_666_4e-2,
        ];
        let squared = x * x;
        if squared >= constant(0.61685) {
            return x.cos() - constant(1.0);
        }
        let mut polynomial = constant::<R>(COEFFICIENTS[0]);
        for &c in &COEFFICIENTS[1..] {
            polynomial = polynomial.mul_add(squared, constant(c));
        }
        (squared * squared) * polynomial + constant::<R>(-0.5) * squared
    }

    /// `e^z - 1 = (expm1(a) cos b + cosm1(b)) + i e^a sin b`, which keeps
    /// its digits when `e^a cos b` is close to 1; a real `z` has imaginary
    /// part `+0`.
    pub fn exp_minus_one(self) -> Self {
        let (a, b) = (self.re, self.im);
        let (zero, one) = (constant::<R>(0.0), constant::<R>(1.0));
        let exp_minus_one_a = a.exp_m1();
        let cos_minus_one_b = Self::cos_minus_one(b);
        let re = exp_minus_one_a * (cos_minus_one_b + one) + cos_minus_one_b;
        let im = if b == zero {
            zero
        } else {
            (exp_minus_one_a + one) * b.sin()
        };
        Complex::new(re, im)
    }

    /// `log|z| + i arg z` as StableHLO's complex math expander writes it:
    /// near the unit circle `log|z| = log1p(x² + y² - 1)/2` with the sum
    /// carried in double precision (Dekker squares, 2Sum), elsewhere
    /// `log(max) + log1p((min/max)²)/2`.
    pub fn log(self) -> Self {
        let (x, y) = (self.re, self.im);
        let half = constant::<R>(0.5);
        let (yy_high, yy_low) = square_dekker(y);
        let (xx_high, xx_low) = square_dekker(x);
        let (larger_square, smaller_square) = if yy_high > xx_high {
            (yy_high, xx_high)
        } else {
            (xx_high, yy_high)
        };
        // Fast2Sum of -1, the larger and smaller square, then the squares'
        // low parts: each partial sum is at least as large as the next term.
        let minus_one = constant::<R>(-1.0);
        let h2 = minus_one + larger_square;
        let h1 = h2 + smaller_square;
        let h0 = h1 + yy_low;
        let h = h0 + xx_low;
        // The rounding errors of the four sums, added in the same order.
        let low = (larger_square - (h2 - minus_one)) + (smaller_square - (h1 - h2));
        let low = low + (yy_low - (h0 - h1));
        let low = low + (xx_low - (h - h0));
        let near_one = h + low;
        let log_magnitude = if near_one.abs() < half {
            half * near_one.ln_1p()
        } else {
            let (abs_x, abs_y) = (x.abs(), y.abs());
            let (larger, smaller) = (nan_maximum(abs_x, abs_y), nan_minimum(abs_x, abs_y));
            let ratio = if smaller == larger {
                constant(1.0)
            } else {
                smaller / larger
            };
            larger.ln() + half * (ratio * ratio).ln_1p()
        };
        Complex::new(log_magnitude, y.atan2(x))
    }

    /// `log|z| + i arg z` with `log|z|` as `log` of [`Self::abs`], the
    /// plain formula of MLIR's complex lowering, used inside `atan2`.
    fn log_plain(self) -> Self {
        Complex::new(self.abs().ln(), self.im.atan2(self.re))
    }

    /// `log(1 + z)` as StableHLO's complex math expander writes it, with
    /// imaginary part `atan2(y, x + 1)` and real part
    /// - `log(max) + log1p((min/max)²)/2` when a part exceeds
    ///   `sqrt(largest)/100` (its square would overflow);
    /// - `log((x + 1)² + y²)/2` when `|x + 1| + |y| < 0.2`;
    /// - else `log1p(2x + x² + y²)/2` with the sum carried in double
    ///   precision (Dekker squares, 2Sum), which keeps small `z` and values
    ///   near `x = -y²/2` exact.
    pub fn log_plus_one(self) -> Self {
        let (x, y) = (self.re, self.im);
        let (half, one) = (constant::<R>(0.5), constant::<R>(1.0));
        let (abs_x, abs_y) = (x.abs(), y.abs());
        let larger = nan_maximum(abs_x, abs_y);
        let x_plus_one = x + one;
        let re = if larger > constant::<R>(R::LARGEST).sqrt() * constant(0.01) {
            let smaller = nan_minimum(abs_x, abs_y);
            let ratio_squared = if smaller == larger {
                one
            } else {
                (smaller / larger) * (smaller / larger)
            };
            larger.ln() + half * ratio_squared.ln_1p()
        } else if x_plus_one.abs() + abs_y < constant(0.2) {
            half * (x_plus_one * x_plus_one + y * y).ln()
        } else {
            let (yy_high, yy_low) = square_dekker(y);
            let (xx_high, xx_low) = square_dekker(x);
            let (h2, low2) = two_sum(x + x, yy_high);
            let (h1, low1) = two_sum(h2, xx_high);
            let (h0, low0) = two_sum(h1, yy_low);
            let (h, low) = two_sum(h0, xx_low);
            half * (h + (((low2 + low1) + low0) + low)).ln_1p()
        };
        Complex::new(re, y.atan2(x_plus_one))
    }

    /// The principal square root, by the algorithm XLA takes from
    /// `functional_algorithms`: the larger result part is
    /// `sqrt((|z| + |a|)/2)`, evaluated with `|z|` scaled so it neither
    /// overflows nor underflows, and the smaller is `|b| / (2·larger)`. The
    /// imaginary part takes its sign from `b < 0`, so `-0` counts as
    /// positive.
    pub fn sqrt(self) -> Self {
        let (x, y) = (self.re, self.im);
        let (zero, one, two) = (constant::<R>(0.0), constant::<R>(1.0), constant::<R>(2.0));
        let infinity = constant::<R>(f64::INFINITY);
        let sqrt_two = constant::<R>(std::f64::consts::SQRT_2);
        let (abs_x, abs_y) = (x.abs(), y.abs());
        // `hypot(larger, smaller)` without overflow, exact when the parts are equal
        // and with the first-order term when `1 + r` rounds to 1.
        let scaled_hypot = |larger: R, smaller: R| -> R {
            let ratio = smaller / larger;
            let r = ratio * ratio;
            let root = (one + r).sqrt();
            if larger == smaller {
                sqrt_two * larger
            } else if root == one && r > zero {
                larger + larger * r / two
            } else {
                larger * root
            }
        };
        let (larger, smaller) = (nan_maximum(abs_x, abs_y), nan_minimum(abs_x, abs_y));
        let u_direct = (scaled_hypot(larger, smaller) / two + abs_x / two).sqrt();
        let (u, abs_y_over_2u) = if abs_x == abs_y {
            // |a| = |b|: u = sqrt|a|·sqrt(1 + √2)/√2 and
            // |b|/(2u) = sqrt|b| / (sqrt(1 + √2)·√2).
            let root_abs_x = abs_x.sqrt();
            (
                root_abs_x * constant(1.553_773_974_030_037_4) / sqrt_two,
                abs_y.sqrt() / constant(2.197_368_226_935_62),
            )
        } else if u_direct == zero || u_direct == infinity {
            // Under- or overflow: work with square roots of the parts.
            let ratio = if abs_x < abs_y {
                abs_x / abs_y
            } else {
                abs_y / abs_x
            };
            let h = scaled_hypot(nan_maximum(one, ratio.abs()), nan_minimum(one, ratio.abs()));
            let (root_abs_x, root_abs_y) = (abs_x.sqrt(), abs_y.sqrt());
            if abs_x > abs_y {
                let root_one_plus_h = (one + h).sqrt();
                (
                    root_abs_x * (root_one_plus_h / sqrt_two),
                    root_abs_y * (root_abs_y / root_abs_x) / (root_one_plus_h * sqrt_two),
                )
            } else {
                let root_ratio_plus_h = (ratio + h).sqrt();
                (
                    root_abs_y * (root_ratio_plus_h / sqrt_two),
                    root_abs_y / (root_ratio_plus_h * sqrt_two),
                )
            }
        } else {
            (u_direct, abs_y / (u_direct * two))
        };
        let negative_y = y < zero;
        if x >= zero {
            Complex::new(
                u,
                if negative_y {
                    -abs_y_over_2u
                } else {
                    abs_y_over_2u
                },
            )
        } else {
            Complex::new(abs_y_over_2u, if negative_y { -u } else { u })
        }
    }

    /// The principal square root in polar form, `sqrt|z| (cos θ/2 + i
    /// sin θ/2)`, as MLIR's complex lowering writes it, used inside `atan2`.
    fn sqrt_polar(self) -> Self {
        let (a, b) = (self.re, self.im);
        let zero = constant::<R>(0.0);
        let infinity = constant::<R>(f64::INFINITY);
        let (min, max, one_plus_ratio_squared) = self.magnitude_parts();
        let root = max.sqrt() * one_plus_ratio_squared.powf(constant(0.25));
        let root = if root.is_nan() { min } else { root };
        let half_angle = b.atan2(a) * constant(0.5);
        let (cos, sin) = (half_angle.cos(), half_angle.sin());
        let mut re = root * cos;
        let mut im = if sin == zero { zero } else { root * sin };
        let b_infinite = b.abs() == infinity;
        if a == -infinity && !b_infinite {
            re = zero;
        }
        if b_infinite || a == infinity {
            re = infinity;
        }
        if root.is_nan() {
            im = constant(f64::NAN);
        }
        if b_infinite || a == -infinity {
            im = infinity.copysign(b);
        }
        if root == zero {
            return Complex::new(zero, zero);
        }
        Complex::new(re, im)
    }

    /// `1 / sqrt(z)` as `|z|^(-1/2) (cos(-θ/2) + i sin(-θ/2))`, `θ = arg z`,
    /// with XLA's special values: `1/sqrt(0) = ∞ + NaN i`, and a zero (signed
    /// as XLA signs it) for an infinite real part or an infinite imaginary
    /// part beside a NaN real part.
    pub fn rsqrt(self) -> Self {
        let (a, b) = (self.re, self.im);
        let zero = constant::<R>(0.0);
        let infinity = constant::<R>(f64::INFINITY);
        let r = self.reciprocal_sqrt_abs();
        let angle = b.atan2(a) * constant(-0.5);
        if a == zero && b == zero {
            return Complex::new(infinity, constant(f64::NAN));
        }
        if (b.abs() == infinity && a.is_nan()) || a.abs() == infinity {
            return Complex::new(zero.copysign(a), -zero.copysign(b));
        }
        Complex::new(r * angle.cos(), r * angle.sin())
    }

    /// The principal cube root, `z^(1/3)`.
    pub fn cbrt(self) -> Self {
        self.power(Complex::new(constant(1.0 / 3.0), constant(0.0)))
    }

    /// `(a + bi)^(c + di) = |z|^c e^(-dθ) (cos q + i sin q)` with
    /// `θ = atan2(b, a)` and `q = cθ + d log|z|`, as MLIR's complex lowering
    /// writes it, with Kahan's special values applied last to first:
    /// `inf^c` is 0 for real `c < 0` and `inf` for real `c > 0`; `1^w = 1`;
    /// `z^0 = 1`; `0^c` is 1 for `c = 0` and 0 for real `c > 0`.
    pub fn power(self, exponent: Self) -> Self {
        let (a, b, c, d) = (self.re, self.im, exponent.re, exponent.im);
        let (zero, one) = (constant::<R>(0.0), constant::<R>(1.0));
        let infinity = constant::<R>(f64::INFINITY);
        let magnitude = self.abs();
        let angle = b.atan2(a);
        let scale = magnitude.powf(c) * (-d * angle).exp();
        let q = c.mul_add(angle, d * magnitude.ln());
        let real_exponent = d == zero;
        let real_infinite_base = a == infinity && b == zero;
        if real_infinite_base && real_exponent && c < zero {
            return Complex::new(zero, zero);
        }
        if real_infinite_base && real_exponent && c > zero {
            return Complex::new(infinity, zero);
        }
        if a == one && b == zero {
            return Complex::new(one, zero);
        }
        if c == zero && real_exponent {
            return Complex::new(one, zero);
        }
        if magnitude == zero && real_exponent && zero <= c {
            return Complex::new(if c == zero { one } else { zero }, zero);
        }
        Complex::new(scale * q.cos(), scale * q.sin())
    }

    /// The hyperbolic parts of `y` from one exponential, as XLA computes
    /// them: `(sinh y, cosh y)`.
    fn sinh_cosh(y: R) -> (R, R) {
        let exp_y = y.exp();
        let half_exp_y = constant::<R>(0.5) * exp_y;
        let half_exp_minus_y = constant::<R>(0.5) / exp_y;
        (half_exp_y - half_exp_minus_y, half_exp_y + half_exp_minus_y)
    }

    /// `sin x cosh y + i cos x sinh y`.
    pub fn sin(self) -> Self {
        let (sinh_y, cosh_y) = Self::sinh_cosh(self.im);
        Complex::new(self.re.sin() * cosh_y, self.re.cos() * sinh_y)
    }

    /// `cos x cosh y - i sin x sinh y`.
    pub fn cos(self) -> Self {
        let (sinh_y, cosh_y) = Self::sinh_cosh(self.im);
        Complex::new(self.re.cos() * cosh_y, -(self.re.sin() * sinh_y))
    }

    /// `tan z = -i tanh(iz)`, as MLIR's complex lowering computes it.
    pub fn tan(self) -> Self {
        let w = Complex::new(-self.im, self.re).tanh();
        Complex::new(w.im, -w.re)
    }

    /// `(e^{2a} - e^{-2a} + 2i sin 2b) / (e^{2a} + e^{-2a} + 2 cos 2b)`,
    /// written with `expm1` and `cos² b` so that neither cancels, with the
    /// limits `±1` where the exponentials overflow and C99's special
    /// values, as MLIR's complex lowering writes it.
    pub fn tanh(self) -> Self {
        let (a, b) = (self.re, self.im);
        let (zero, four) = (constant::<R>(0.0), constant::<R>(4.0));
        let infinity = constant::<R>(f64::INFINITY);
        let two_a = a + a;
        let exp_two_a_minus_one = two_a.exp_m1();
        let exp_minus_two_a_minus_one = (constant::<R>(-1.0) * two_a).exp_m1();
        let real_numerator = exp_two_a_minus_one - exp_minus_two_a_minus_one;
        let (cos_b, sin_b) = (b.cos(), b.sin());
        let four_cos_squared = cos_b * cos_b * four;
        let imaginary_numerator = four * (cos_b * sin_b);
        let exp_sum_minus_two = exp_two_a_minus_one + exp_minus_two_a_minus_one;
        let denominator = exp_sum_minus_two + four_cos_squared;
        let mut re = if exp_sum_minus_two == infinity {
            constant::<R>(-1.0).copysign(a)
        } else {
            real_numerator / denominator
        };
        let mut im = imaginary_numerator / denominator;
        let a_infinite = a.abs() == infinity;
        let sin_two_b_nan = imaginary_numerator.is_nan();
        if sin_two_b_nan && !a_infinite {
            re = constant(f64::NAN);
        }
        if b == zero || (a_infinite && sin_two_b_nan) {
            im = zero;
        }
        Complex::new(re, im)
    }

    /// `1 / (1 + e^{-z})`, as XLA expands `logistic`.
    pub fn logistic(self) -> Self {
        Self::real(1.0).divide(Self::real(1.0).add(self.negate().exp_plain()))
    }

    /// `atan2(y, x) = -i log((x + iy) / sqrt(x² + y²))` for complex `y`
    /// (`self`) and `x`, with the polar square root and plain logarithm of
    /// MLIR's complex lowering.
    pub fn atan2(self, x: Self) -> Self {
        let y = self;
        let (zero, one) = (constant::<R>(0.0), constant::<R>(1.0));
        let root = x.multiply(x).add(y.multiply(y)).sqrt_polar();
        let x_plus_iy = x.add(Complex::new(zero, one).multiply(y));
        let logarithm = x_plus_iy.divide(root).log_plain();
        Complex::new(zero, -one).multiply(logarithm)
    }
}

/// `op` of complex `values` of type `elem` (`c64` or `c128`), or `None` when
/// the op is not defined on complex numbers. `abs`, `real` and `imag` give
/// real numbers, every other op complex ones.
pub(super) fn unary(op: Opcode, elem: ElementType, values: &[(f64, f64)]) -> Option<Numbers> {
    if elem == ElementType::C64 {
        unary_in::<f32>(op, values)
    } else {
        unary_in::<f64>(op, values)
    }
}

fn unary_in<R: Real>(op: Opcode, values: &[(f64, f64)]) -> Option<Numbers> {
    use Opcode as O;
    let real = |f: fn(Complex<R>) -> R| {
        Numbers::Float(
            values
                .iter()
                .map(|&pair| f(Complex::from_pair(pair)).to_f64())
                .collect(),
        )
    };
    let complex = |f: fn(Complex<R>) -> Complex<R>| {
        Numbers::Complex(
            values
                .iter()
                .map(|&pair| f(Complex::from_pair(pair)).to_pair())
                .collect(),
        )
    };
    Some(match op {
        O::Abs => real(Complex::abs),
        O::Real => real(|z| z.re),
        O::Imag => real(|z| z.im),
        O::Copy => complex(|z| z),
        O::Negate => complex(Complex::negate),
        O::Sign => complex(Complex::sign),
        O::Exponential => complex(Complex::exp),
        O::ExponentialMinusOne => complex(Complex::exp_minus_one),
        O::Log => complex(Complex::log),
        O::LogPlusOne => complex(Complex::log_plus_one),
        O::Sqrt => complex(Complex::sqrt),
        O::Rsqrt => complex(Complex::rsqrt),
        O::Cbrt => complex(Complex::cbrt),
        O::Sine => complex(Complex::sin),
        O::Cosine => complex(Complex::cos),
        O::Tan => complex(Complex::tan),
        O::Tanh => complex(Complex::tanh),
        O::Logistic => complex(Complex::logistic),
        _ => return None,
    })
}

/// `op` of corresponding complex elements of type `elem`, or `None` when the
/// op is not defined on complex numbers.
pub(super) fn binary(
    op: Opcode,
    elem: ElementType,
    lhs: &[(f64, f64)],
    rhs: &[(f64, f64)],
) -> Option<Vec<(f64, f64)>> {
    if elem == ElementType::C64 {
        binary_in::<f32>(op, lhs, rhs)
    } else {
        binary_in::<f64>(op, lhs, rhs)
    }
}

fn binary_in<R: Real>(
    op: Opcode,
    lhs: &[(f64, f64)],
    rhs: &[(f64, f64)],
) -> Option<Vec<(f64, f64)>> {
    use Opcode as O;
    let f: fn(Complex<R>, Complex<R>) -> Complex<R> = match op {
        O::Add => Complex::add,
        O::Subtract => Complex::subtract,
        O::Multiply => Complex::multiply,
        O::Divide => Complex::divide,
        O::Power => Complex::power,
        O::Atan2 => Complex::atan2,
        // An unordered pair (a NaN part) gives the right operand.
        O::Maximum => |p, q| match lexicographic(p, q) {
            Some(Ordering::Greater | Ordering::Equal) => p,
            _ => q,
        },
        O::Minimum => |p, q| match lexicographic(p, q) {
            Some(Ordering::Less | Ordering::Equal) => p,
            _ => q,
        },
        _ => return None,
    };
    Some(
        lhs.iter()
            .zip(rhs)
            .map(|(&p, &q)| f(Complex::from_pair(p), Complex::from_pair(q)).to_pair())
            .collect(),
    )
}

/// The spec's order of complex numbers: by real part, then imaginary part;
/// `None` when a NaN makes them unordered.
pub(super) fn lexicographic<R: Real>(p: Complex<R>, q: Complex<R>) -> Option<Ordering> {
    match p.re.partial_cmp(&q.re)? {
        Ordering::Equal => p.im.partial_cmp(&q.im),
        unequal => Some(unequal),
    }
}

/// [`lexicographic`] on `(re, im)` pairs, which compare exactly in `f64`
/// whatever their type.
pub(super) fn lexicographic_pairs(p: (f64, f64), q: (f64, f64)) -> Option<Ordering> {
    lexicographic::<f64>(Complex::from_pair(p), Complex::from_pair(q))
}

#[cfg(test)]
mod tests {
    //! Expected values are XLA:CPU's (jax 0.10.2) for the same inputs,
    //! compared bit for bit (NaNs of any payload are equal).

    use super::*;

    fn same<R: Real + std::fmt::Debug>(got: Complex<R>, want: (f64, f64)) -> bool {
        let equal = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
        let (re, im) = got.to_pair();
        equal(re, want.0) && equal(im, want.1)
    }

    fn c128(re: f64, im: f64) -> Complex<f64> {
        Complex::new(re, im)
    }

    #[test]
    fn c64_is_computed_in_f32() {
        // XLA's scaled abs in f32 is one ulp below the correctly rounded
        // 7.459513187408447 that computing in f64 would give.
        let z = Complex::<f32>::new(-3.973_077, -6.313_398);
        assert_eq!(z.abs(), 7.459_512_7);
    }

    #[test]
    fn multiplication_fuses_a_product_into_each_sum() {
        let product = c128(-0.524_316_276_165_485_8, -0.947_892_661_506_521_1)
            .multiply(c128(1.322_212_956_683_429_8, -2.361_975_829_552_442_5));
        assert!(same(
            product,
            (-2.932_157_329_234_550_4, -0.014_893_587_245_241_749)
        ));
        let infinite = c128(f64::INFINITY, 0.0).multiply(c128(0.0, 1.0));
        assert!(same(infinite, (f64::NAN, f64::INFINITY)));
    }

    #[test]
    fn division_repairs_zeros_and_infinities() {
        let cases = [
            ((1.0, 0.0), (0.0, 0.0), (f64::INFINITY, f64::NAN)),
            ((1.0, 2.0), (0.0, f64::INFINITY), (0.0, -0.0)),
            (
                (f64::INFINITY, 1.0),
                (1.0, 1.0),
                (f64::INFINITY, f64::NEG_INFINITY),
            ),
            (
                (1.0, 1.0),
                (1e-300, 1e-300),
                (9.999_999_999_999_999e299, 0.0),
            ),
            ((0.0, 0.0), (0.0, 0.0), (f64::NAN, f64::NAN)),
        ];
        for ((a, b), (c, d), want) in cases {
            let quotient = c128(a, b).divide(c128(c, d));
            assert!(
                same(quotient, want),
                "({a}, {b}) / ({c}, {d}) = {quotient:?}"
            );
        }
    }

    #[test]
    fn power_has_kahans_special_values() {
        let cases = [
            ((0.0, 0.0), (0.0, 0.0), (1.0, 0.0)),
            ((0.0, 0.0), (2.0, 0.0), (0.0, 0.0)),
            ((0.0, 0.0), (0.0, 1.0), (f64::NAN, f64::NAN)),
            ((2.0, 3.0), (0.0, 0.0), (1.0, 0.0)),
            ((1.0, 0.0), (f64::NAN, f64::NAN), (1.0, 0.0)),
            ((f64::INFINITY, 0.0), (2.0, 0.0), (f64::INFINITY, 0.0)),
            ((f64::INFINITY, 0.0), (-2.0, 0.0), (0.0, 0.0)),
            // Either side of the branch cut.
            (
                (-8.0, 0.0),
                (1.0 / 3.0, 0.0),
                (1.000_000_000_000_000_2, 1.732_050_807_568_877_2),
            ),
            (
                (-8.0, -0.0),
                (1.0 / 3.0, 0.0),
                (1.000_000_000_000_000_2, -1.732_050_807_568_877_2),
            ),
        ];
        for ((a, b), (c, d), want) in cases {
            let power = c128(a, b).power(c128(c, d));
            assert!(same(power, want), "({a}, {b})^({c}, {d}) = {power:?}");
        }
    }

    #[test]
    fn atan2_of_complex_operands() {
        let cases = [
            ((1.0, 0.0), (0.0, 0.0), (std::f64::consts::FRAC_PI_2, 0.0)),
            (
                (-1.0, 0.0),
                (0.0, 0.0),
                (-std::f64::consts::FRAC_PI_2, -0.0),
            ),
            ((3.0, 0.0), (-4.0, 0.0), (2.498_091_544_796_509, 0.0)),
        ];
        for ((a, b), (c, d), want) in cases {
            let angle = c128(a, b).atan2(c128(c, d));
            assert!(
                same(angle, want),
                "atan2(({a}, {b}), ({c}, {d})) = {angle:?}"
            );
        }
    }

    #[test]
    fn lexicographic_order_is_partial() {
        assert_eq!(
            lexicographic_pairs((1.0, 5.0), (2.0, 0.0)),
            Some(Ordering::Less)
        );
        assert_eq!(
            lexicographic_pairs((1.0, 3.0), (1.0, 2.0)),
            Some(Ordering::Greater)
        );
        assert_eq!(lexicographic_pairs((1.0, f64::NAN), (1.0, 2.0)), None);
        assert_eq!(lexicographic_pairs((f64::NAN, 0.0), (1.0, 2.0)), None);
    }

    #[test]
    fn remainder_is_not_defined() {
        assert!(
            binary(
                Opcode::Remainder,
                ElementType::C64,
                &[(1.0, 0.0)],
                &[(1.0, 0.0)]
            )
            .is_none()
        );
        assert!(unary(Opcode::Floor, ElementType::C128, &[(1.0, 0.0)]).is_none());
    }
}

//! Elementwise kernels: unary and binary math, comparisons, select and clamp,
//! with XLA's semantics where IEEE or Rust leave a choice:
//! - integer division by zero gives -1 (all bits set) and the remainder the
//!   dividend; `MIN / -1` wraps to `MIN` and its remainder is 0;
//! - a shift by at least the bit width gives 0 (or the sign for an arithmetic
//!   right shift);
//! - `maximum`/`minimum` of floats propagate NaN;
//! - integer `power` with a negative exponent is 0 (but 1 and -1 stay ±1);
//! - `round-nearest-afz` rounds half away from zero, `round-nearest-even`
//!   half to even; `sign` keeps NaN and the sign of zero.
//!
//! `f32` operands of `+ − × ÷ max min` take a fast path computing in `f32`
//! directly (the same result as through `f64`, see [`crate::numbers`]);
//! `f32` `tanh` and `exponential-minus-one` use XLA:CPU's formulas.
//!
//! Complex operands go to [`super::complex_math`], which computes them with
//! XLA:CPU's formulas in their own precision; compare's `EQ`/`NE` compare
//! both parts and its other directions order lexicographically.

use weft_ir::ElementType;
use weft_ir::Opcode;
use weft_ir::attrs::{CompareType, Direction};

use super::complex_math;
use crate::numbers::{Numbers, decode, encode};
use crate::tensor::Tensor;

type KernelResult = Result<Tensor, String>;

/// `op` applied to each element of `input`, giving `result_elem` elements.
pub(crate) fn unary(op: Opcode, input: &Tensor, result_elem: ElementType) -> KernelResult {
    use Opcode as O;
    if input.elem == ElementType::F32 && result_elem == ElementType::F32 {
        // f32 math in f32, as XLA computes it (correctly rounded or within an
        // ulp), and far cheaper than through f64.
        // Each arm instantiates `map_f32_unary` with its own function, so
        // the loop inlines it (and vectorizes what can be).
        let result = match op {
            O::Tanh => map_f32_unary(input, fast_tanh),
            O::Exponential => map_f32_unary(input, f32::exp),
            O::ExponentialMinusOne => map_f32_unary(input, exp_minus_one_f32),
            O::Log => map_f32_unary(input, f32::ln),
            O::LogPlusOne => map_f32_unary(input, f32::ln_1p),
            O::Logistic => map_f32_unary(input, |x| 1.0 / (1.0 + (-x).exp())),
            O::Sine => map_f32_unary(input, f32::sin),
            O::Cosine => map_f32_unary(input, f32::cos),
            O::Abs => map_f32_unary(input, f32::abs),
            O::Negate => map_f32_unary(input, |x| -x),
            O::Sqrt => map_f32_unary(input, f32::sqrt),
            O::Rsqrt => map_f32_unary(input, |x| 1.0 / x.sqrt()),
            _ => return unary_general(op, input, result_elem),
        };
        return Ok(result);
    }
    unary_general(op, input, result_elem)
}

/// [`unary`] in the arithmetic domain of any element type.
fn unary_general(op: Opcode, input: &Tensor, result_elem: ElementType) -> KernelResult {
    use Opcode as O;
    let numbers = decode(input);
    let out = match (&numbers, op) {
        (Numbers::Float(v), _) => Numbers::Float(match op {
            O::Abs => v.iter().map(|x| x.abs()).collect(),
            O::Negate => v.iter().map(|x| -x).collect(),
            O::Exponential => v.iter().map(|x| x.exp()).collect(),
            O::ExponentialMinusOne => v.iter().map(|x| x.exp_m1()).collect(),
            O::Log => v.iter().map(|x| x.ln()).collect(),
            O::LogPlusOne => v.iter().map(|x| x.ln_1p()).collect(),
            O::Sqrt => v.iter().map(|x| x.sqrt()).collect(),
            O::Rsqrt => v.iter().map(|x| 1.0 / x.sqrt()).collect(),
            O::Cbrt => v.iter().map(|x| x.cbrt()).collect(),
            O::Tanh => v.iter().map(|x| x.tanh()).collect(),
            O::Logistic => v.iter().map(|x| 1.0 / (1.0 + (-x).exp())).collect(),
            O::Sine => v.iter().map(|x| x.sin()).collect(),
            O::Cosine => v.iter().map(|x| x.cos()).collect(),
            O::Tan => v.iter().map(|x| x.tan()).collect(),
            O::Floor => v.iter().map(|x| x.floor()).collect(),
            O::Ceil => v.iter().map(|x| x.ceil()).collect(),
            O::RoundNearestAfz => v.iter().map(|x| x.round()).collect(),
            O::RoundNearestEven => v.iter().map(|x| x.round_ties_even()).collect(),
            O::Sign => v
                .iter()
                .map(|&x| {
                    if x == 0.0 || x.is_nan() {
                        x
                    } else {
                        x.signum()
                    }
                })
                .collect(),
            O::Erf => v.iter().map(|&x| erf(x)).collect(),
            O::Copy | O::Real => v.clone(),
            O::Imag => vec![0.0; v.len()],
            O::IsFinite => {
                return Ok(encode(
                    result_elem,
                    &input.dims,
                    &Numbers::Pred(v.iter().map(|x| x.is_finite()).collect()),
                ));
            }
            _ => return Err(unsupported(op, input.elem)),
        }),
        (Numbers::Signed(v), _) => {
            let bits = input.elem.bit_width();
            Numbers::Signed(match op {
                O::Abs => v.iter().map(|x| x.wrapping_abs()).collect(),
                O::Negate => v.iter().map(|x| x.wrapping_neg()).collect(),
                O::Sign => v.iter().map(|x| x.signum()).collect(),
                O::Not => v.iter().map(|x| !x).collect(),
                O::Copy => v.clone(),
                O::PopulationCount => v
                    .iter()
                    .map(|&x| i64::from((x as u64 & mask(bits)).count_ones()))
                    .collect(),
                O::CountLeadingZeros => v
                    .iter()
                    .map(|&x| {
                        let value = x as u64 & mask(bits);
                        i64::from(value.leading_zeros()) - (64 - bits as i64)
                    })
                    .collect(),
                _ => return Err(unsupported(op, input.elem)),
            })
        }
        (Numbers::Unsigned(v), _) => {
            let bits = input.elem.bit_width();
            Numbers::Unsigned(match op {
                O::Abs | O::Copy => v.clone(),
                O::Negate => v.iter().map(|x| x.wrapping_neg()).collect(),
                O::Sign => v.iter().map(|&x| u64::from(x != 0)).collect(),
                O::Not => v.iter().map(|x| !x).collect(),
                O::PopulationCount => v.iter().map(|&x| u64::from(x.count_ones())).collect(),
                O::CountLeadingZeros => v
                    .iter()
                    .map(|&x| u64::from(x.leading_zeros()) - (64 - u64::from(bits)))
                    .collect(),
                _ => return Err(unsupported(op, input.elem)),
            })
        }
        (Numbers::Pred(v), O::Not) => Numbers::Pred(v.iter().map(|x| !x).collect()),
        (Numbers::Pred(v), O::Copy) => Numbers::Pred(v.clone()),
        (Numbers::Complex(v), _) => match complex_math::unary(op, input.elem, v) {
            Some(out) => out,
            None => return Err(unsupported(op, input.elem)),
        },
        _ => return Err(unsupported(op, input.elem)),
    };
    Ok(encode(result_elem, &input.dims, &out))
}

/// `op` applied to corresponding elements of `lhs` and `rhs` (same shape).
pub(crate) fn binary(
    op: Opcode,
    lhs: &Tensor,
    rhs: &Tensor,
    result_elem: ElementType,
) -> KernelResult {
    use Opcode as O;
    if lhs.dims != rhs.dims {
        return Err(format!(
            "operands of {} have different shapes: {:?} and {:?}",
            op.name(),
            lhs.dims,
            rhs.dims
        ));
    }
    if lhs.elem == ElementType::F32 && result_elem == ElementType::F32 {
        // Each arm instantiates `map_f32` with its own closure, so the loop
        // is inlined and vectorized.
        match op {
            O::Add => return Ok(map_f32(lhs, rhs, |a, b| a + b)),
            O::Subtract => return Ok(map_f32(lhs, rhs, |a, b| a - b)),
            O::Multiply => return Ok(map_f32(lhs, rhs, |a, b| a * b)),
            O::Divide => return Ok(map_f32(lhs, rhs, |a, b| a / b)),
            O::Maximum => return Ok(map_f32(lhs, rhs, maximum_f32)),
            O::Minimum => return Ok(map_f32(lhs, rhs, minimum_f32)),
            _ => {}
        }
    }
    let (a, b) = (decode(lhs), decode(rhs));
    let out = match (&a, &b) {
        (Numbers::Float(x), Numbers::Float(y)) => Numbers::Float(match op {
            O::Add => zip(x, y, |a, b| a + b),
            O::Subtract => zip(x, y, |a, b| a - b),
            O::Multiply => zip(x, y, |a, b| a * b),
            O::Divide => zip(x, y, |a, b| a / b),
            O::Remainder => zip(x, y, |a, b| a % b),
            O::Power => zip(x, y, f64::powf),
            O::Atan2 => zip(x, y, f64::atan2),
            O::Maximum => zip(x, y, nan_max),
            O::Minimum => zip(x, y, nan_min),
            O::Complex => {
                let pairs = x.iter().copied().zip(y.iter().copied()).collect();
                return Ok(encode(result_elem, &lhs.dims, &Numbers::Complex(pairs)));
            }
            _ => return Err(unsupported(op, lhs.elem)),
        }),
        (Numbers::Signed(x), Numbers::Signed(y)) => {
            let bits = lhs.elem.bit_width();
            Numbers::Signed(match op {
                O::Add => zip(x, y, i64::wrapping_add),
                O::Subtract => zip(x, y, i64::wrapping_sub),
                O::Multiply => zip(x, y, i64::wrapping_mul),
                O::Divide => zip(x, y, |a, b| if b == 0 { -1 } else { a.wrapping_div(b) }),
                O::Remainder => zip(x, y, |a, b| if b == 0 { a } else { a.wrapping_rem(b) }),
                O::Maximum => zip(x, y, i64::max),
                O::Minimum => zip(x, y, i64::min),
                O::And => zip(x, y, |a, b| a & b),
                O::Or => zip(x, y, |a, b| a | b),
                O::Xor => zip(x, y, |a, b| a ^ b),
                O::Power => zip(x, y, integer_power),
                O::Mulhi => zip(x, y, |a, b| {
                    ((i128::from(a) * i128::from(b)) >> bits) as i64
                }),
                O::ShiftLeft => zip(x, y, |a, b| shift_left(a as u64, b as u64, bits) as i64),
                O::ShiftRightLogical => zip(x, y, |a, b| {
                    shift_right_logical(a as u64 & mask(bits), b as u64, bits) as i64
                }),
                O::ShiftRightArithmetic => zip(x, y, |a, b| {
                    if (b as u64) >= u64::from(bits) {
                        if a < 0 { -1 } else { 0 }
                    } else {
                        a >> b
                    }
                }),
                _ => return Err(unsupported(op, lhs.elem)),
            })
        }
        (Numbers::Unsigned(x), Numbers::Unsigned(y)) => {
            let bits = lhs.elem.bit_width();
            Numbers::Unsigned(match op {
                O::Add => zip(x, y, u64::wrapping_add),
                O::Subtract => zip(x, y, u64::wrapping_sub),
                O::Multiply => zip(x, y, u64::wrapping_mul),
                O::Divide => zip(x, y, |a, b| a.checked_div(b).unwrap_or(u64::MAX)),
                O::Remainder => zip(x, y, |a, b| if b == 0 { a } else { a % b }),
                O::Maximum => zip(x, y, u64::max),
                O::Minimum => zip(x, y, u64::min),
                O::And => zip(x, y, |a, b| a & b),
                O::Or => zip(x, y, |a, b| a | b),
                O::Xor => zip(x, y, |a, b| a ^ b),
                O::Power => zip(x, y, |a, b| {
                    a.wrapping_pow(b.min(u64::from(u32::MAX)) as u32)
                }),
                O::Mulhi => zip(x, y, |a, b| {
                    ((u128::from(a) * u128::from(b)) >> bits) as u64
                }),
                O::ShiftLeft => zip(x, y, |a, b| shift_left(a, b, bits)),
                O::ShiftRightLogical | O::ShiftRightArithmetic => {
                    zip(x, y, |a, b| shift_right_logical(a, b, bits))
                }
                _ => return Err(unsupported(op, lhs.elem)),
            })
        }
        (Numbers::Pred(x), Numbers::Pred(y)) => Numbers::Pred(match op {
            O::And | O::Minimum | O::Multiply => zip(x, y, |a, b| a & b),
            O::Or | O::Maximum | O::Add => zip(x, y, |a, b| a | b),
            O::Xor | O::Subtract => zip(x, y, |a, b| a ^ b),
            _ => return Err(unsupported(op, lhs.elem)),
        }),
        (Numbers::Complex(x), Numbers::Complex(y)) => {
            match complex_math::binary(op, lhs.elem, x, y) {
                Some(out) => Numbers::Complex(out),
                None => return Err(unsupported(op, lhs.elem)),
            }
        }
        _ => {
            return Err(format!(
                "{} of {} and {}",
                op.name(),
                lhs.elem.name(),
                rhs.elem.name()
            ));
        }
    };
    Ok(encode(result_elem, &lhs.dims, &out))
}

/// `compare(lhs, rhs), direction=…, type=…` as a `pred` tensor.
pub(crate) fn compare(
    direction: Direction,
    compare_type: Option<CompareType>,
    lhs: &Tensor,
    rhs: &Tensor,
) -> KernelResult {
    use std::cmp::Ordering;
    let total_order = compare_type == Some(CompareType::TotalOrder);
    let decide = |ordering: Option<Ordering>| -> bool {
        match (direction, ordering) {
            (Direction::Ne, None) => true,
            (_, None) => false,
            (Direction::Eq, Some(o)) => o == Ordering::Equal,
            (Direction::Ne, Some(o)) => o != Ordering::Equal,
            (Direction::Lt, Some(o)) => o == Ordering::Less,
            (Direction::Le, Some(o)) => o != Ordering::Greater,
            (Direction::Gt, Some(o)) => o == Ordering::Greater,
            (Direction::Ge, Some(o)) => o != Ordering::Less,
        }
    };
    let (a, b) = (decode(lhs), decode(rhs));
    let result: Vec<bool> = match (&a, &b) {
        (Numbers::Float(x), Numbers::Float(y)) if total_order => {
            zip(x, y, |p, q| decide(Some(p.total_cmp(&q))))
        }
        (Numbers::Float(x), Numbers::Float(y)) => zip(x, y, |p, q| decide(p.partial_cmp(&q))),
        (Numbers::Signed(x), Numbers::Signed(y)) => zip(x, y, |p, q| decide(Some(p.cmp(&q)))),
        (Numbers::Unsigned(x), Numbers::Unsigned(y)) => zip(x, y, |p, q| decide(Some(p.cmp(&q)))),
        (Numbers::Pred(x), Numbers::Pred(y)) => zip(x, y, |p, q| decide(Some(p.cmp(&q)))),
        // EQ and NE compare both parts (NaN is unequal to everything); the
        // other directions order lexicographically, as the spec says.
        (Numbers::Complex(x), Numbers::Complex(y)) => zip(x, y, |p, q| match direction {
            Direction::Eq => p == q,
            Direction::Ne => p != q,
            _ => decide(complex_math::lexicographic_pairs(p, q)),
        }),
        _ => {
            return Err(format!(
                "compare of {} and {}",
                lhs.elem.name(),
                rhs.elem.name()
            ));
        }
    };
    Ok(encode(ElementType::Pred, &lhs.dims, &Numbers::Pred(result)))
}

/// `select(pred, on_true, on_false)`; a scalar `pred` picks a whole operand.
pub(crate) fn select(pred: &Tensor, on_true: &Tensor, on_false: &Tensor) -> KernelResult {
    if pred.dims.is_empty() {
        return Ok(if pred.bytes.first().is_some_and(|&b| b != 0) {
            on_true.clone()
        } else {
            on_false.clone()
        });
    }
    if pred.dims != on_true.dims || on_true.dims != on_false.dims {
        return Err("select's operands must have one shape".into());
    }
    let size = on_true.element_size();
    let mut out = on_false.clone();
    for (i, &p) in pred.bytes.iter().enumerate() {
        if p != 0 {
            out.bytes[i * size..(i + 1) * size]
                .copy_from_slice(&on_true.bytes[i * size..(i + 1) * size]);
        }
    }
    Ok(out)
}

/// `clamp(min, x, max)`; `min` and `max` may be scalars.
pub(crate) fn clamp(min: &Tensor, x: &Tensor, max: &Tensor) -> KernelResult {
    let spread = |t: &Tensor| -> Tensor {
        if t.dims.is_empty() && !x.dims.is_empty() {
            super::data_movement::broadcast(t, &x.dims, &[])
        } else {
            t.clone()
        }
    };
    let (min, max) = (spread(min), spread(max));
    let lower = binary(Opcode::Maximum, &min, x, x.elem)?;
    binary(Opcode::Minimum, &max, &lower, x.elem)
}

/// `tanh` of an `f32` by the rational approximation XLA's CPU and GPU
/// backends emit (Eigen's: an odd degree-13 numerator over an even degree-6
/// denominator, inputs clamped where the quotient reaches ±1, `tanh(x) = x`
/// below 0.0004). Branch-free, so a loop over it vectorizes; within a few
/// ulp of the true value, and what XLA itself computes.
#[inline(always)]
// The coefficients are written as XLA writes them; each rounds to the same
// f32 either way.
#[allow(clippy::excessive_precision)]
fn fast_tanh(x: f32) -> f32 {
    const CLAMP: f32 = 7.905_311;
    const NUMERATOR: [f32; 7] = [
        -2.760_768_5e-16,
        2.000_187_9e-13,
        -8.604_671_5e-11,
        5.122_297e-8,
        1.485_722_4e-5,
        6.372_619_3e-4,
        4.893_524_6e-3,
    ];
    const DENOMINATOR: [f32; 4] = [1.198_258_4e-6, 1.185_347_1e-4, 2.268_434_6e-3, 4.893_525e-3];
    let clamped = x.clamp(-CLAMP, CLAMP);
    let squared = clamped * clamped;
    let mut numerator = NUMERATOR[0];
    for &c in &NUMERATOR[1..] {
        numerator = numerator * squared + c;
    }
    numerator *= clamped;
    let mut denominator = DENOMINATOR[0];
    for &c in &DENOMINATOR[1..] {
        denominator = denominator * squared + c;
    }
    if x.abs() < 0.0004 {
        x
    } else {
        numerator / denominator
    }
}

/// `e^x - 1` of an `f32` as XLA's CPU backend computes it: `e^x - 1` for
/// `|x| > 0.5`, else `tanh(x/2)·(e^x + 1)`, which keeps the digits of small
/// `x` (and `x` itself where `x/2` underflows).
#[inline(always)]
fn exp_minus_one_f32(x: f32) -> f32 {
    let half = x * 0.5;
    if half == 0.0 {
        return x;
    }
    let exp = x.exp();
    if x.abs() > 0.5 {
        exp - 1.0
    } else {
        fast_tanh(half) * (exp + 1.0)
    }
}

fn map_f32_unary(input: &Tensor, f: impl Fn(f32) -> f32) -> Tensor {
    let mut bytes = vec![0u8; input.bytes.len()];
    use crate::tensor::{as_f32, as_f32_mut};
    match (as_f32(&input.bytes), as_f32_mut(&mut bytes)) {
        (Some(values), Some(out)) => {
            for (o, &x) in out.iter_mut().zip(values) {
                *o = f(x);
            }
        }
        _ => {
            for (out, x) in bytes.chunks_exact_mut(4).zip(input.bytes.chunks_exact(4)) {
                let x = f32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                out.copy_from_slice(&f(x).to_le_bytes());
            }
        }
    }
    Tensor {
        elem: ElementType::F32,
        dims: input.dims.clone(),
        bytes: bytes.into(),
    }
}

/// XLA's maximum: NaN wins; +0 is larger than -0.
#[inline]
fn maximum_f32(a: f32, b: f32) -> f32 {
    let b_wins =
        !a.is_nan() && (b.is_nan() || b > a || (a == 0.0 && b == 0.0 && a.is_sign_negative()));
    if b_wins { b } else { a }
}

/// XLA's minimum: NaN wins; -0 is smaller than +0.
#[inline]
fn minimum_f32(a: f32, b: f32) -> f32 {
    let b_wins =
        !a.is_nan() && (b.is_nan() || b < a || (a == 0.0 && b == 0.0 && a.is_sign_positive()));
    if b_wins { b } else { a }
}

/// `out[i] = ((inputs[0][i] ⊕ inputs[1][i]) ⊕ inputs[2][i]) …` for the f32
/// `op` (add, multiply, maximum or minimum): the same bits as folding whole
/// tensors with [`binary`] left to right. At least two inputs, each as long
/// as `out`. Returns false, touching nothing, for any other op.
pub(crate) fn fold_f32(op: Opcode, inputs: &[&[f32]], out: &mut [f32]) -> bool {
    fn fold(inputs: &[&[f32]], out: &mut [f32], f: impl Fn(f32, f32) -> f32) {
        for ((o, &a), &b) in out.iter_mut().zip(inputs[0]).zip(inputs[1]) {
            *o = f(a, b);
        }
        for input in &inputs[2..] {
            for (o, &b) in out.iter_mut().zip(*input) {
                *o = f(*o, b);
            }
        }
    }
    debug_assert!(inputs.len() >= 2 && inputs.iter().all(|i| i.len() == out.len()));
    match op {
        Opcode::Add => fold(inputs, out, |a, b| a + b),
        Opcode::Multiply => fold(inputs, out, |a, b| a * b),
        Opcode::Maximum => fold(inputs, out, maximum_f32),
        Opcode::Minimum => fold(inputs, out, minimum_f32),
        _ => return false,
    }
    true
}

fn map_f32(lhs: &Tensor, rhs: &Tensor, f: impl Fn(f32, f32) -> f32) -> Tensor {
    let mut bytes = vec![0u8; lhs.bytes.len()];
    use crate::tensor::{as_f32, as_f32_mut};
    if let (Some(a), Some(b)) = (as_f32(&lhs.bytes), as_f32(&rhs.bytes))
        && let Some(out) = as_f32_mut(&mut bytes)
    {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = f(x, y);
        }
        return Tensor {
            elem: ElementType::F32,
            dims: lhs.dims.clone(),
            bytes: bytes.into(),
        };
    }
    // Four bytes at a time, written in place: the compiler turns this into
    // vector loads and stores, so a large add runs at memory speed.
    for ((out, a), b) in bytes
        .chunks_exact_mut(4)
        .zip(lhs.bytes.chunks_exact(4))
        .zip(rhs.bytes.chunks_exact(4))
    {
        let a = f32::from_le_bytes([a[0], a[1], a[2], a[3]]);
        let b = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        out.copy_from_slice(&f(a, b).to_le_bytes());
    }
    Tensor {
        elem: ElementType::F32,
        dims: lhs.dims.clone(),
        bytes: bytes.into(),
    }
}

fn zip<T: Copy, U>(x: &[T], y: &[T], f: impl Fn(T, T) -> U) -> Vec<U> {
    x.iter().zip(y).map(|(&a, &b)| f(a, b)).collect()
}

fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_positive() { a } else { b }
    } else {
        a.max(b)
    }
}

fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_negative() { a } else { b }
    } else {
        a.min(b)
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

fn shift_left(a: u64, b: u64, bits: u32) -> u64 {
    if b >= u64::from(bits) { 0 } else { a << b }
}

fn shift_right_logical(a: u64, b: u64, bits: u32) -> u64 {
    if b >= u64::from(bits) { 0 } else { a >> b }
}

fn integer_power(base: i64, exponent: i64) -> i64 {
    if exponent < 0 {
        return match base {
            1 => 1,
            -1 => {
                if exponent % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        };
    }
    let mut result: i64 = 1;
    let mut base = base;
    let mut exponent = exponent;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exponent >>= 1;
    }
    result
}

/// The error function, to `f64` precision (Abramowitz–Stegun 7.1.26 is too
/// coarse for `f32` results, so this uses the series and continued fraction).
fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let value = if a < 2.5 {
        // Maclaurin series: converges fast for small |x|.
        let mut term = a;
        let mut sum = a;
        let squared = a * a;
        let mut n = 0.0;
        loop {
            n += 1.0;
            term *= -squared / n;
            let add = term / (2.0 * n + 1.0);
            sum += add;
            if add.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // erfc by its continued fraction (Lentz), then 1 - erfc.
        let mut f = a;
        let tiny = 1e-300;
        let mut c = f;
        let mut d = 0.0;
        for k in 1..200 {
            let coefficient = k as f64 / 2.0;
            d = a + coefficient * d;
            d = if d.abs() < tiny { tiny } else { d };
            c = a + coefficient / c;
            c = if c.abs() < tiny { tiny } else { c };
            d = 1.0 / d;
            let delta = c * d;
            f *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        1.0 - (-a * a).exp() / (f * std::f64::consts::PI.sqrt())
    };
    value.copysign(x)
}

fn unsupported(op: Opcode, elem: ElementType) -> String {
    format!("{} of {} is not supported", op.name(), elem.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::encode;

    fn ints(elem: ElementType, values: &[i64]) -> Tensor {
        encode(
            elem,
            &[values.len() as i64],
            &Numbers::Signed(values.to_vec()),
        )
    }

    #[test]
    fn integer_division_follows_xla() {
        let a = ints(ElementType::S32, &[7, -7, i32::MIN as i64, 5]);
        let b = ints(ElementType::S32, &[2, 2, -1, 0]);
        let q = binary(Opcode::Divide, &a, &b, ElementType::S32).unwrap();
        assert_eq!(
            decode(&q),
            Numbers::Signed(vec![3, -3, i32::MIN as i64, -1])
        );
        let r = binary(Opcode::Remainder, &a, &b, ElementType::S32).unwrap();
        assert_eq!(decode(&r), Numbers::Signed(vec![1, -1, 0, 5]));
    }

    #[test]
    fn shifts_past_the_width() {
        let a = ints(ElementType::S8, &[-16, 16, 1]);
        let b = ints(ElementType::S8, &[9, 9, 7]);
        let arithmetic = binary(Opcode::ShiftRightArithmetic, &a, &b, ElementType::S8).unwrap();
        assert_eq!(decode(&arithmetic), Numbers::Signed(vec![-1, 0, 0]));
        let left = binary(Opcode::ShiftLeft, &a, &b, ElementType::S8).unwrap();
        assert_eq!(decode(&left), Numbers::Signed(vec![0, 0, -128]));
    }

    #[test]
    fn float_max_propagates_nan_and_total_order_compares_nan() {
        let a = encode(ElementType::F32, &[2], &Numbers::Float(vec![f64::NAN, 1.0]));
        let b = encode(ElementType::F32, &[2], &Numbers::Float(vec![1.0, f64::NAN]));
        let m = binary(Opcode::Maximum, &a, &b, ElementType::F32).unwrap();
        assert!(matches!(decode(&m), Numbers::Float(v) if v.iter().all(|x| x.is_nan())));
        let lt = compare(Direction::Lt, Some(CompareType::TotalOrder), &b, &a).unwrap();
        assert_eq!(decode(&lt), Numbers::Pred(vec![true, false]));
        let partial = compare(Direction::Lt, None, &b, &a).unwrap();
        assert_eq!(decode(&partial), Numbers::Pred(vec![false, false]));
    }

    #[test]
    fn fast_tanh_is_close_and_saturates() {
        for i in -2000..=2000 {
            let x = i as f32 * 0.01;
            let (ours, exact) = (fast_tanh(x), x.tanh());
            assert!(
                (ours - exact).abs() <= 4.0 * f32::EPSILON * exact.abs().max(1e-3),
                "tanh({x}): {ours} vs {exact}"
            );
        }
        assert_eq!(fast_tanh(100.0), 1.0);
        assert_eq!(fast_tanh(-100.0), -1.0);
        assert!(fast_tanh(f32::NAN).is_nan());
        assert_eq!(fast_tanh(1e-30), 1e-30);
    }

    #[test]
    fn f32_exp_minus_one_is_xlas() {
        // XLA:CPU's values (jax 0.10.2).
        for (x, want) in [
            (0.3, 0.349_858_8),
            (1e-7, 1e-7),
            (-0.25, -0.221_199_2),
            (0.5, 0.648_721_3),
            (0.75, 1.117_000_1),
            (2.0, 6.389_056),
            (-0.7, -0.503_414_7),
            (20.0, 4.851_652e8),
            (-30.0, -1.0),
        ] {
            assert_eq!(exp_minus_one_f32(x), want, "expm1({x})");
        }
        assert!(exp_minus_one_f32(f32::NAN).is_nan());
        assert_eq!(exp_minus_one_f32(f32::NEG_INFINITY), -1.0);
    }

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.5, 0.520_499_877_813_046_5),
            (2.0, 0.995_322_265_018_952_7),
            (3.0, 0.999_977_909_503_001_4),
        ] {
            assert!((erf(x) - want).abs() < 1e-15, "erf({x}) = {}", erf(x));
            assert!((erf(-x) + want).abs() < 1e-15);
        }
    }
}

//! Complex numbers as `(re, im)` pairs of `f64`, the arithmetic of `fft`,
//! `triangular-solve`, `cholesky` and complex `ragged-dot`: the operations
//! on them, and tensors read as and written from them.
//!
//! Division by a real divisor divides each part exactly, so real inputs get
//! real arithmetic.

use weft_ir::ElementType;

use crate::numbers::{Numbers, decode, encode};
use crate::tensor::Tensor;

pub(super) type C64 = (f64, f64);

pub(super) fn c_add(a: C64, b: C64) -> C64 {
    (a.0 + b.0, a.1 + b.1)
}

pub(super) fn c_sub(a: C64, b: C64) -> C64 {
    (a.0 - b.0, a.1 - b.1)
}

pub(super) fn c_mul(a: C64, b: C64) -> C64 {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

pub(super) fn c_conj(a: C64) -> C64 {
    (a.0, -a.1)
}

pub(super) fn c_div(a: C64, b: C64) -> C64 {
    if b.1 == 0.0 {
        // Real divisors divide exactly, so real inputs get real arithmetic.
        return (a.0 / b.0, a.1 / b.0);
    }
    let norm = b.0 * b.0 + b.1 * b.1;
    (
        (a.0 * b.0 + a.1 * b.1) / norm,
        (a.1 * b.0 - a.0 * b.1) / norm,
    )
}

/// The elements as complex numbers, and whether they were complex.
pub(super) fn complex_values(tensor: &Tensor, what: &str) -> Result<(Vec<C64>, bool), String> {
    match decode(tensor) {
        Numbers::Complex(v) => Ok((v, true)),
        Numbers::Float(v) => Ok((v.into_iter().map(|x| (x, 0.0)).collect(), false)),
        _ => Err(format!(
            "{what} needs floating-point or complex operands, got {}",
            tensor.elem.name()
        )),
    }
}

/// Complex values back in the domain of `elem` (real parts for reals).
pub(super) fn from_complex(elem: ElementType, dims: &[i64], values: Vec<C64>) -> Tensor {
    let numbers = if elem.is_complex() {
        Numbers::Complex(values)
    } else {
        Numbers::Float(values.into_iter().map(|(re, _)| re).collect())
    };
    encode(elem, dims, &numbers)
}

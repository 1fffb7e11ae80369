//! Tensors in the arithmetic domain of their element type, and back.
//!
//! Kernels compute on [`Numbers`]: real floats of every width as `f64`, signed
//! integers as `i64`, unsigned as `u64`, `pred` as `bool`, complex as
//! `(re, im)` pairs of `f64`. Encoding rounds as XLA's CPU backend does:
//! - `f32` from `f64` rounds once to nearest even; for `+ − × ÷ √` of `f32`
//!   operands that equals the `f32` operation (`f64` holds more than twice
//!   `f32`'s precision, so the double rounding is innocuous);
//! - `f16`, `bf16` and the f8/f6/f4 families are computed as XLA computes
//!   them, in `f32`: the `f64` result is rounded to `f32` first, then to the
//!   narrow type;
//! - integers wrap to their width (two's complement).

use weft_ir::literal::minifloat;
use weft_ir::{ElementType, element_type::ElementClass};

use crate::tensor::{Tensor, element_count};

/// A tensor's elements in their arithmetic domain.
#[derive(Clone, Debug, PartialEq)]
pub enum Numbers {
    /// `pred`.
    Pred(Vec<bool>),
    /// `s2` … `s64`.
    Signed(Vec<i64>),
    /// `u2` … `u64`.
    Unsigned(Vec<u64>),
    /// Every real float type.
    Float(Vec<f64>),
    /// `c64`, `c128`.
    Complex(Vec<(f64, f64)>),
}

impl Numbers {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Numbers::Pred(v) => v.len(),
            Numbers::Signed(v) => v.len(),
            Numbers::Unsigned(v) => v.len(),
            Numbers::Float(v) => v.len(),
            Numbers::Complex(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The arithmetic class kernels dispatch on.
pub fn class_of(elem: ElementType) -> ElementClass {
    elem.class()
}

/// `tensor`'s elements, decoded.
pub fn decode(tensor: &Tensor) -> Numbers {
    let bytes = &tensor.bytes;
    let elem = tensor.elem;
    match elem {
        ElementType::Pred => Numbers::Pred(bytes.iter().map(|&b| b != 0).collect()),
        ElementType::F32 => Numbers::Float(
            bytes
                .chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                .collect(),
        ),
        ElementType::F64 => Numbers::Float(
            bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
        ),
        ElementType::C64 => Numbers::Complex(
            bytes
                .chunks_exact(8)
                .map(|c| {
                    (
                        f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                        f64::from(f32::from_le_bytes([c[4], c[5], c[6], c[7]])),
                    )
                })
                .collect(),
        ),
        ElementType::C128 => Numbers::Complex(
            bytes
                .chunks_exact(16)
                .map(|c| {
                    (
                        f64::from_le_bytes(c[..8].try_into().expect("8 bytes")),
                        f64::from_le_bytes(c[8..].try_into().expect("8 bytes")),
                    )
                })
                .collect(),
        ),
        _ => match elem.class() {
            ElementClass::Signed => {
                let bits = elem.bit_width();
                Numbers::Signed(
                    raw_words(bytes, elem)
                        .map(|raw| {
                            let shift = 64 - bits;
                            ((raw << shift) as i64) >> shift
                        })
                        .collect(),
                )
            }
            ElementClass::Unsigned => {
                let bits = elem.bit_width();
                let mask = if bits >= 64 {
                    u64::MAX
                } else {
                    (1 << bits) - 1
                };
                Numbers::Unsigned(raw_words(bytes, elem).map(|raw| raw & mask).collect())
            }
            _ => Numbers::Float(
                raw_words(bytes, elem)
                    .map(|raw| minifloat::decode(elem, raw as u32))
                    .collect(),
            ),
        },
    }
}

/// The raw little-endian words of each element.
fn raw_words(bytes: &[u8], elem: ElementType) -> impl Iterator<Item = u64> + '_ {
    let size = weft_ir::literal::storage_bytes(elem);
    bytes.chunks_exact(size).map(|c| {
        let mut word = 0u64;
        for (k, &b) in c.iter().enumerate() {
            word |= u64::from(b) << (8 * k);
        }
        word
    })
}

/// A tensor of `elem` with `dims` holding `numbers`, converted as XLA's
/// `convert` does when the domains differ (see [`convert_numbers`]).
pub fn encode(elem: ElementType, dims: &[i64], numbers: &Numbers) -> Tensor {
    debug_assert_eq!(element_count(dims), numbers.len());
    let size = weft_ir::literal::storage_bytes(elem);
    let mut bytes = Vec::with_capacity(numbers.len() * size);
    match (elem, convert_numbers(numbers, elem)) {
        (ElementType::Pred, Numbers::Pred(values)) => {
            bytes.extend(values.iter().map(|&b| u8::from(b)));
        }
        (ElementType::F32, Numbers::Float(values)) => {
            for v in values {
                bytes.extend_from_slice(&(v as f32).to_le_bytes());
            }
        }
        (ElementType::F64, Numbers::Float(values)) => {
            for v in values {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        (ElementType::C64, Numbers::Complex(values)) => {
            for (re, im) in values {
                bytes.extend_from_slice(&(re as f32).to_le_bytes());
                bytes.extend_from_slice(&(im as f32).to_le_bytes());
            }
        }
        (ElementType::C128, Numbers::Complex(values)) => {
            for (re, im) in values {
                bytes.extend_from_slice(&re.to_le_bytes());
                bytes.extend_from_slice(&im.to_le_bytes());
            }
        }
        (_, Numbers::Float(values)) => {
            for v in values {
                let word = minifloat::encode(elem, f64::from(v as f32));
                bytes.extend_from_slice(&u64::from(word).to_le_bytes()[..size]);
            }
        }
        (_, Numbers::Signed(values)) => {
            for v in values {
                bytes.extend_from_slice(&v.to_le_bytes()[..size]);
            }
        }
        (_, Numbers::Unsigned(values)) => {
            for v in values {
                bytes.extend_from_slice(&v.to_le_bytes()[..size]);
            }
        }
        (_, other) => unreachable!("convert_numbers gave {other:?} for {elem:?}"),
    }
    if elem.bit_width() < 8 && elem.class() != ElementClass::Float && elem != ElementType::Pred {
        // s4/u4/s2/u2 keep only their low bits, as XLA stores them.
        let mask = (1u8 << elem.bit_width()) - 1;
        for b in &mut bytes {
            *b &= mask;
        }
    }
    Tensor {
        elem,
        dims: dims.to_vec(),
        bytes: bytes.into(),
    }
}

/// `numbers` in the domain of `to`, as XLA's `convert` does it:
/// - float to integer truncates toward zero, saturates at the type's range
///   and maps NaN to 0;
/// - integer to integer wraps to the width (done when encoding);
/// - anything to `pred` is "not zero"; `pred` to a number is 0 or 1;
/// - complex to real keeps the real part; real to complex has no imaginary part.
pub fn convert_numbers(numbers: &Numbers, to: ElementType) -> Numbers {
    let target = match to {
        ElementType::Pred => Domain::Pred,
        ElementType::C64 | ElementType::C128 => Domain::Complex,
        _ => match to.class() {
            ElementClass::Signed => Domain::Signed,
            ElementClass::Unsigned => Domain::Unsigned,
            _ => Domain::Float,
        },
    };
    match (numbers, target) {
        (Numbers::Pred(_), Domain::Pred)
        | (Numbers::Signed(_), Domain::Signed)
        | (Numbers::Unsigned(_), Domain::Unsigned)
        | (Numbers::Float(_), Domain::Float)
        | (Numbers::Complex(_), Domain::Complex) => numbers.clone(),
        (_, Domain::Pred) => Numbers::Pred(
            // A complex number converts through its real part, as StableHLO's
            // convert defines it.
            real_parts(numbers).map(|re| re != 0.0).collect(),
        ),
        (Numbers::Signed(v), Domain::Unsigned) => {
            Numbers::Unsigned(v.iter().map(|&x| x as u64).collect())
        }
        (Numbers::Unsigned(v), Domain::Signed) => {
            Numbers::Signed(v.iter().map(|&x| x as i64).collect())
        }
        (Numbers::Pred(v), Domain::Signed) => {
            Numbers::Signed(v.iter().map(|&b| i64::from(b)).collect())
        }
        (Numbers::Pred(v), Domain::Unsigned) => {
            Numbers::Unsigned(v.iter().map(|&b| u64::from(b)).collect())
        }
        (Numbers::Signed(v), Domain::Float) => {
            Numbers::Float(v.iter().map(|&x| x as f64).collect())
        }
        (Numbers::Unsigned(v), Domain::Float) => {
            Numbers::Float(v.iter().map(|&x| x as f64).collect())
        }
        (Numbers::Pred(v), Domain::Float) => {
            Numbers::Float(v.iter().map(|&b| f64::from(u8::from(b))).collect())
        }
        (Numbers::Complex(v), Domain::Float) => {
            Numbers::Float(v.iter().map(|&(re, _)| re).collect())
        }
        (_, Domain::Complex) => Numbers::Complex(as_f64_pairs(numbers).collect()),
        (Numbers::Float(_) | Numbers::Complex(_), Domain::Signed) => {
            let (min, max) = signed_range(to);
            Numbers::Signed(
                real_parts(numbers)
                    .map(|x| saturate(x, min as f64, max as f64) as i64)
                    .collect(),
            )
        }
        (Numbers::Float(_) | Numbers::Complex(_), Domain::Unsigned) => {
            let max = unsigned_max(to);
            Numbers::Unsigned(
                real_parts(numbers)
                    .map(|x| saturate(x, 0.0, max as f64) as u64)
                    .collect(),
            )
        }
    }
}

enum Domain {
    Pred,
    Signed,
    Unsigned,
    Float,
    Complex,
}

/// The real part of each element.
fn real_parts(numbers: &Numbers) -> impl Iterator<Item = f64> + '_ {
    as_f64_pairs(numbers).map(|(re, _)| re)
}

/// Each element as a complex pair (reals with no imaginary part).
fn as_f64_pairs(numbers: &Numbers) -> Box<dyn Iterator<Item = (f64, f64)> + '_> {
    match numbers {
        Numbers::Pred(v) => Box::new(v.iter().map(|&b| (f64::from(u8::from(b)), 0.0))),
        Numbers::Signed(v) => Box::new(v.iter().map(|&x| (x as f64, 0.0))),
        Numbers::Unsigned(v) => Box::new(v.iter().map(|&x| (x as f64, 0.0))),
        Numbers::Float(v) => Box::new(v.iter().map(|&x| (x, 0.0))),
        Numbers::Complex(v) => Box::new(v.iter().copied()),
    }
}

/// Truncation toward zero, clamped to `[min, max]`; NaN is 0.
fn saturate(x: f64, min: f64, max: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.trunc().clamp(min, max)
    }
}

fn signed_range(elem: ElementType) -> (i64, i64) {
    let bits = elem.bit_width().min(64);
    if bits >= 64 {
        (i64::MIN, i64::MAX)
    } else {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    }
}

fn unsigned_max(elem: ElementType) -> u64 {
    let bits = elem.bit_width().min(64);
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor_of(elem: ElementType, numbers: Numbers) -> Tensor {
        let n = numbers.len() as i64;
        encode(elem, &[n], &numbers)
    }

    #[test]
    fn every_width_decodes_what_it_encodes() {
        let t = tensor_of(ElementType::S4, Numbers::Signed(vec![-8, -1, 0, 7, 9]));
        assert_eq!(decode(&t), Numbers::Signed(vec![-8, -1, 0, 7, -7]));
        let t = tensor_of(ElementType::U8, Numbers::Signed(vec![-1, 256, 3]));
        assert_eq!(decode(&t), Numbers::Unsigned(vec![255, 0, 3]));
        let t = tensor_of(
            ElementType::Bf16,
            Numbers::Float(vec![1.0, 1.00390625, -2.5]),
        );
        assert_eq!(decode(&t), Numbers::Float(vec![1.0, 1.0, -2.5]));
    }

    #[test]
    fn float_to_integer_truncates_saturates_and_zeroes_nan() {
        let t = tensor_of(
            ElementType::S8,
            Numbers::Float(vec![-2.7, 2.7, 1e9, -1e9, f64::NAN]),
        );
        assert_eq!(decode(&t), Numbers::Signed(vec![-2, 2, 127, -128, 0]));
        let t = tensor_of(ElementType::U32, Numbers::Float(vec![-5.0, 4294967296.0]));
        assert_eq!(decode(&t), Numbers::Unsigned(vec![0, u64::from(u32::MAX)]));
    }

    #[test]
    fn pred_is_not_zero() {
        let t = tensor_of(
            ElementType::Pred,
            Numbers::Float(vec![0.0, -0.0, 0.5, f64::NAN]),
        );
        assert_eq!(decode(&t), Numbers::Pred(vec![false, false, true, true]));
    }
}

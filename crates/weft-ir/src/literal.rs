//! Constant values (literals): dense arrays of any element type, tuples, and
//! constants written elided (`{...}`).
//!
//! An array literal stores its elements row-major (the layout of the constant's
//! shape is a separate matter) as little-endian bytes: one byte per element for
//! `pred` and types of at most 8 bits (sub-byte types unpacked, in the low bits),
//! two for 16-bit types, and so on; complex numbers are two floats, real first.
//! Narrow floats are stored as their bit patterns and converted with [`minifloat`].

use crate::element_type::ElementType;

/// A constant value.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// A dense array.
    Array(ArrayLiteral),
    /// A tuple of literals.
    Tuple(Vec<Literal>),
    /// A constant whose values were elided in text (`{...}`); it has the shape of
    /// its instruction and unspecified contents.
    Elided,
}

/// A dense array of elements.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayLiteral {
    /// The element type.
    pub elem: ElementType,
    /// The dimensions.
    pub dims: Vec<i64>,
    /// The elements, row-major, [`storage_bytes`] each.
    pub data: Vec<u8>,
}

/// How many bytes one element of `elem` takes in a literal.
pub fn storage_bytes(elem: ElementType) -> usize {
    match elem.bit_width() {
        0 => 0,
        1..=8 => 1,
        16 => 2,
        32 => 4,
        64 => 8,
        _ => 16,
    }
}

impl ArrayLiteral {
    /// A zero-filled array of a shape the caller knows is small (a scalar, a
    /// table it sized itself). Panics when the size cannot be had; shapes
    /// read from input go through [`ArrayLiteral::try_zeros`].
    pub fn zeros(elem: ElementType, dims: &[i64]) -> ArrayLiteral {
        ArrayLiteral::try_zeros(elem, dims).expect("a literal of a valid size")
    }

    /// A zero-filled array; an error when its size cannot be had (see
    /// [`crate::size::byte_size`]). How large it may be is the caller's to
    /// bound before asking.
    pub fn try_zeros(
        elem: ElementType,
        dims: &[i64],
    ) -> Result<ArrayLiteral, crate::size::SizeError> {
        let bytes = crate::size::byte_size(elem, dims)?;
        Ok(ArrayLiteral {
            elem,
            dims: dims.to_vec(),
            data: vec![0; bytes.as_usize()],
        })
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data
            .len()
            .checked_div(storage_bytes(self.elem))
            .unwrap_or(0)
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn raw(&self, i: usize) -> u128 {
        let size = storage_bytes(self.elem);
        let bytes = &self.data[i * size..(i + 1) * size];
        let mut v = 0u128;
        for (k, &b) in bytes.iter().enumerate() {
            v |= u128::from(b) << (8 * k);
        }
        v
    }

    fn set_raw(&mut self, i: usize, v: u128) {
        let size = storage_bytes(self.elem);
        for k in 0..size {
            self.data[i * size + k] = (v >> (8 * k)) as u8;
        }
    }

    /// The raw bit pattern of element `i` (for narrow floats, the encoding).
    pub fn bits(&self, i: usize) -> u64 {
        self.raw(i) as u64
    }

    /// Sets the raw bit pattern of element `i`.
    pub fn set_bits(&mut self, i: usize, bits: u64) {
        self.set_raw(i, u128::from(bits));
    }

    /// Element `i` of an integer or pred array as `i128` (sign-extended for
    /// signed types).
    pub fn get_int(&self, i: usize) -> i128 {
        let raw = self.raw(i);
        let bits = self.elem.bit_width();
        match self.elem.class() {
            crate::element_type::ElementClass::Signed => {
                let shift = 128 - bits;
                ((raw << shift) as i128) >> shift
            }
            _ => {
                let mask = if bits >= 128 {
                    u128::MAX
                } else {
                    (1u128 << bits) - 1
                };
                (raw & mask) as i128
            }
        }
    }

    /// Sets element `i` of an integer or pred array (truncating to the width).
    pub fn set_int(&mut self, i: usize, v: i128) {
        let bits = self.elem.bit_width().min(64);
        let mask = if bits >= 64 {
            u64::MAX as u128
        } else {
            (1u128 << bits) - 1
        };
        self.set_raw(i, (v as u128) & mask);
    }

    /// Element `i` of a real floating-point array as `f64`.
    pub fn get_float(&self, i: usize) -> f64 {
        let raw = self.raw(i);
        match self.elem {
            ElementType::F32 => f64::from(f32::from_bits(raw as u32)),
            ElementType::F64 => f64::from_bits(raw as u64),
            other => minifloat::decode(other, raw as u32),
        }
    }

    /// Sets element `i` of a real floating-point array, rounding to nearest even.
    pub fn set_float(&mut self, i: usize, v: f64) {
        let raw = match self.elem {
            ElementType::F32 => u128::from((v as f32).to_bits()),
            ElementType::F64 => u128::from(v.to_bits()),
            other => u128::from(minifloat::encode(other, v)),
        };
        self.set_raw(i, raw);
    }

    /// Element `i` of a complex array as `(re, im)`.
    pub fn get_complex(&self, i: usize) -> (f64, f64) {
        let raw = self.raw(i);
        match self.elem {
            ElementType::C64 => (
                f64::from(f32::from_bits(raw as u32)),
                f64::from(f32::from_bits((raw >> 32) as u32)),
            ),
            _ => (
                f64::from_bits(raw as u64),
                f64::from_bits((raw >> 64) as u64),
            ),
        }
    }

    /// Sets element `i` of a complex array.
    pub fn set_complex(&mut self, i: usize, re: f64, im: f64) {
        let raw = match self.elem {
            ElementType::C64 => {
                u128::from((re as f32).to_bits()) | (u128::from((im as f32).to_bits()) << 32)
            }
            _ => u128::from(re.to_bits()) | (u128::from(im.to_bits()) << 64),
        };
        self.set_raw(i, raw);
    }
}

/// Encoding and decoding of the narrow float types (f16, bf16, the f8, f6 and f4
/// families) as bit patterns in the low bits of a `u32`.
pub mod minifloat {
    use crate::element_type::ElementType;

    /// How a narrow format encodes special values.
    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    pub enum Specials {
        /// IEEE: all-ones exponent is infinity (zero mantissa) or NaN.
        Ieee,
        /// Finite only, NaN is all ones (`fn` types with NaN: f8e4m3fn).
        AllOnesNan,
        /// Finite only, NaN is the negative-zero pattern; no negative zero (`fnuz`).
        NegativeZeroNan,
        /// Finite only, no NaN at all (f4e2m1fn, f6 types).
        FiniteOnly,
        /// Unsigned exponent-only format (f8e8m0fnu): 0xFF is NaN, no zero.
        ExponentOnly,
    }

    /// The layout of a narrow float format.
    #[derive(Copy, Clone, Debug)]
    pub struct Format {
        /// Exponent bits.
        pub exponent_bits: u32,
        /// Mantissa bits.
        pub mantissa_bits: u32,
        /// Exponent bias.
        pub bias: i32,
        /// Special-value encoding.
        pub specials: Specials,
    }

    /// The format of `elem`, if it is a narrow float.
    pub fn format(elem: ElementType) -> Option<Format> {
        use ElementType as E;
        use Specials as S;
        let f = |exponent_bits, mantissa_bits, bias, specials| Format {
            exponent_bits,
            mantissa_bits,
            bias,
            specials,
        };
        Some(match elem {
            E::F16 => f(5, 10, 15, S::Ieee),
            E::Bf16 => f(8, 7, 127, S::Ieee),
            E::F8E5M2 => f(5, 2, 15, S::Ieee),
            E::F8E4M3 => f(4, 3, 7, S::Ieee),
            E::F8E4M3Fn => f(4, 3, 7, S::AllOnesNan),
            E::F8E4M3B11Fnuz => f(4, 3, 11, S::NegativeZeroNan),
            E::F8E3M4 => f(3, 4, 3, S::Ieee),
            E::F8E5M2Fnuz => f(5, 2, 16, S::NegativeZeroNan),
            E::F8E4M3Fnuz => f(4, 3, 8, S::NegativeZeroNan),
            E::F4E2M1Fn => f(2, 1, 1, S::FiniteOnly),
            E::F8E8M0Fnu => f(8, 0, 127, S::ExponentOnly),
            E::F6E3M2Fn => f(3, 2, 3, S::FiniteOnly),
            E::F6E2M3Fn => f(2, 3, 1, S::FiniteOnly),
            _ => return None,
        })
    }

    impl Format {
        fn sign_bit(&self) -> u32 {
            if self.specials == Specials::ExponentOnly {
                0
            } else {
                1 << (self.exponent_bits + self.mantissa_bits)
            }
        }

        fn max_exponent_field(&self) -> u32 {
            (1 << self.exponent_bits) - 1
        }

        /// The largest finite value.
        pub fn max_finite(&self) -> f64 {
            let m = self.mantissa_bits;
            let (exp_field, mantissa) = match self.specials {
                Specials::Ieee => (self.max_exponent_field() - 1, (1u32 << m) - 1),
                Specials::AllOnesNan => (self.max_exponent_field(), (1u32 << m) - 2),
                Specials::ExponentOnly => (self.max_exponent_field() - 1, 0),
                _ => (self.max_exponent_field(), (1u32 << m) - 1),
            };
            (1.0 + f64::from(mantissa) / f64::from(1u32 << m))
                * 2f64.powi(exp_field as i32 - self.bias)
        }

        /// Whether the format has NaN.
        pub fn has_nan(&self) -> bool {
            self.specials != Specials::FiniteOnly
        }

        /// Whether the format has infinities.
        pub fn has_inf(&self) -> bool {
            self.specials == Specials::Ieee
        }

        /// The canonical quiet NaN pattern.
        pub fn nan_bits(&self) -> u32 {
            match self.specials {
                Specials::Ieee => {
                    (self.max_exponent_field() << self.mantissa_bits)
                        | (1 << self.mantissa_bits.saturating_sub(1))
                }
                Specials::AllOnesNan => (1 << (self.exponent_bits + self.mantissa_bits)) - 1,
                Specials::NegativeZeroNan => self.sign_bit(),
                Specials::ExponentOnly => 0xFF,
                Specials::FiniteOnly => 0,
            }
        }
    }

    /// Decodes a bit pattern of `elem` to `f64`.
    pub fn decode(elem: ElementType, bits: u32) -> f64 {
        let Some(f) = format(elem) else {
            return f64::NAN;
        };
        let m = f.mantissa_bits;
        let e_max = f.max_exponent_field();
        if f.specials == Specials::ExponentOnly {
            let e = bits & 0xFF;
            return if e == 0xFF {
                f64::NAN
            } else {
                2f64.powi(e as i32 - f.bias)
            };
        }
        let sign = if bits & f.sign_bit() != 0 { -1.0 } else { 1.0 };
        let exponent = (bits >> m) & e_max;
        let mantissa = bits & ((1 << m) - 1);
        match f.specials {
            Specials::Ieee if exponent == e_max => {
                return if mantissa == 0 {
                    sign * f64::INFINITY
                } else if sign < 0.0 {
                    -f64::NAN
                } else {
                    f64::NAN
                };
            }
            Specials::AllOnesNan if exponent == e_max && mantissa == (1 << m) - 1 => {
                return if sign < 0.0 { -f64::NAN } else { f64::NAN };
            }
            // The NaN of `fnuz` types is the negative-zero pattern, so it prints
            // as `-nan`, as XLA prints it.
            Specials::NegativeZeroNan if bits == f.sign_bit() => return -f64::NAN,
            _ => {}
        }
        let fraction = f64::from(mantissa) / f64::from(1u32 << m);
        let value = if exponent == 0 {
            fraction * 2f64.powi(1 - f.bias)
        } else {
            (1.0 + fraction) * 2f64.powi(exponent as i32 - f.bias)
        };
        sign * value
    }

    /// Encodes `value` in `elem`, rounding to nearest even; values beyond the
    /// largest finite value become infinity where the format has it, else NaN
    /// where it has that, else saturate.
    pub fn encode(elem: ElementType, value: f64) -> u32 {
        let Some(f) = format(elem) else {
            return 0;
        };
        let m = f.mantissa_bits;
        if value.is_nan() {
            let sign = if value.is_sign_negative() && f.specials != Specials::NegativeZeroNan {
                f.sign_bit()
            } else {
                0
            };
            return f.nan_bits() | sign;
        }
        if f.specials == Specials::ExponentOnly {
            if value <= 0.0 {
                return 0xFF;
            }
            let e = value.log2().round() as i32 + f.bias;
            return e.clamp(0, 0xFE) as u32;
        }
        let sign = if value.is_sign_negative() {
            f.sign_bit()
        } else {
            0
        };
        let magnitude = value.abs();
        if magnitude.is_infinite() || magnitude > f.max_finite() {
            // Values that round down to the max stay finite.
            let ulp_half = 2f64.powi(max_exponent(&f) - m as i32 - 1);
            if magnitude.is_finite() && magnitude < f.max_finite() + ulp_half {
                return sign | encode_finite(&f, f.max_finite());
            }
            return match f.specials {
                Specials::Ieee => sign | (f.max_exponent_field() << m),
                Specials::AllOnesNan | Specials::NegativeZeroNan => f.nan_bits() | sign,
                _ => sign | encode_finite(&f, f.max_finite()),
            };
        }
        let bits = encode_finite(&f, magnitude);
        if bits == 0 && f.specials == Specials::NegativeZeroNan {
            return 0;
        }
        sign | bits
    }

    fn max_exponent(f: &Format) -> i32 {
        let top = match f.specials {
            Specials::Ieee => f.max_exponent_field() - 1,
            _ => f.max_exponent_field(),
        };
        top as i32 - f.bias
    }

    /// Encodes a finite non-negative magnitude no larger than the max.
    fn encode_finite(f: &Format, magnitude: f64) -> u32 {
        let m = f.mantissa_bits as i32;
        let min_normal_exp = 1 - f.bias;
        if magnitude == 0.0 {
            return 0;
        }
        let mut exp = magnitude.log2().floor() as i32;
        // Guard against log2 rounding.
        if 2f64.powi(exp) > magnitude {
            exp -= 1;
        } else if 2f64.powi(exp + 1) <= magnitude {
            exp += 1;
        }
        let (field, scaled) = if exp < min_normal_exp {
            (0, magnitude / 2f64.powi(min_normal_exp - m))
        } else {
            (exp + f.bias, magnitude / 2f64.powi(exp - m))
        };
        // scaled is the significand in units of the last place (with the hidden
        // bit for normals); round half to even.
        let floor = scaled.floor();
        let fraction = scaled - floor;
        let mut q = floor as u64;
        if fraction > 0.5 || (fraction == 0.5 && q % 2 == 1) {
            q += 1;
        }
        let mut field = field as u32;
        if field == 0 {
            // Subnormal; rounding may carry into the smallest normal.
            if q >= 1 << m {
                return (1 << m) | (q as u32 - (1 << m));
            }
            return q as u32;
        }
        if q >= 2 << m {
            q >>= 1;
            field += 1;
        }
        (field << m) | (q as u32 & ((1 << m) - 1))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn round_trips_and_extremes() {
            for elem in [
                ElementType::F16,
                ElementType::Bf16,
                ElementType::F8E5M2,
                ElementType::F8E4M3Fn,
                ElementType::F8E4M3B11Fnuz,
                ElementType::F8E5M2Fnuz,
                ElementType::F8E4M3Fnuz,
                ElementType::F8E3M4,
                ElementType::F8E4M3,
                ElementType::F4E2M1Fn,
                ElementType::F6E2M3Fn,
                ElementType::F6E3M2Fn,
            ] {
                let width = elem.bit_width();
                for bits in 0..(1u32 << width) {
                    let v = decode(elem, bits);
                    if v.is_nan() {
                        continue;
                    }
                    let back = encode(elem, v);
                    assert_eq!(decode(elem, back), v, "{elem} {bits:#x}");
                }
            }
            assert_eq!(format(ElementType::F16).unwrap().max_finite(), 65504.0);
            assert_eq!(format(ElementType::F8E4M3Fn).unwrap().max_finite(), 448.0);
            assert_eq!(format(ElementType::F4E2M1Fn).unwrap().max_finite(), 6.0);
            assert_eq!(format(ElementType::F6E3M2Fn).unwrap().max_finite(), 28.0);
            assert_eq!(format(ElementType::F6E2M3Fn).unwrap().max_finite(), 7.5);
            assert_eq!(format(ElementType::F8E5M2).unwrap().max_finite(), 57344.0);
            assert_eq!(encode(ElementType::Bf16, 1.0), 0x3F80);
            assert_eq!(encode(ElementType::F16, 1.0), 0x3C00);
            assert_eq!(encode(ElementType::F16, 65520.0), 0x7C00);
            assert_eq!(decode(ElementType::F8E8M0Fnu, 127), 1.0);
        }
    }
}

//! `reduce-precision`: floats rounded to a format of fewer exponent and
//! mantissa bits, kept in their own element type.
//!
//! Semantics follow XLA's CPU backend where it and the StableHLO spec part:
//! `reduce-precision` rounds the mantissa to nearest even on the bit
//! pattern, sends overflow to ±inf and everything at or below the reduced
//! format's smallest normal exponent to ±0, and keeps NaN (a NaN becomes
//! +inf when no mantissa bits are kept). `f16`, `bf16`, `f32` and `f64`
//! are processed in their own format, narrower floats through `f32`.

use weft_ir::ElementType;

use crate::numbers::{Numbers, decode, encode};
use crate::tensor::Tensor;

/// `reduce-precision` to `exponent_bits` and `mantissa_bits`.
pub(super) fn reduce_precision(
    input: &Tensor,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Tensor, String> {
    if exponent_bits < 1 || mantissa_bits < 0 {
        return Err(format!(
            "reduce-precision needs at least one exponent bit and no negative mantissa bits, got exponent_bits={exponent_bits}, mantissa_bits={mantissa_bits}"
        ));
    }
    let (exponent_bits, mantissa_bits) =
        (exponent_bits.min(64) as u32, mantissa_bits.min(64) as u32);
    let format = |nbits: u32, exponent: u32| FloatFormat {
        bits: nbits,
        exponent,
        mantissa: nbits - 1 - exponent,
    };
    let native = match input.elem {
        ElementType::F64 => Some(format(64, 11)),
        ElementType::F32 => Some(format(32, 8)),
        ElementType::F16 => Some(format(16, 5)),
        ElementType::Bf16 => Some(format(16, 8)),
        _ => None,
    };
    if let Some(format) = native {
        let size = input.element_size();
        let mut out = input.clone();
        for chunk in out.bytes.chunks_exact_mut(size) {
            let mut word = [0u8; 8];
            word[..size].copy_from_slice(chunk);
            let reduced = format.reduce(u64::from_le_bytes(word), exponent_bits, mantissa_bits);
            chunk.copy_from_slice(&reduced.to_le_bytes()[..size]);
        }
        return Ok(out);
    }
    match decode(input) {
        Numbers::Float(values) => {
            // Narrower floats go through f32, as XLA upcasts them.
            let f32_format = format(32, 8);
            let reduced = values
                .iter()
                .map(|&v| {
                    let bits = u64::from((v as f32).to_bits());
                    f64::from(f32::from_bits(
                        f32_format.reduce(bits, exponent_bits, mantissa_bits) as u32,
                    ))
                })
                .collect();
            Ok(encode(input.elem, &input.dims, &Numbers::Float(reduced)))
        }
        _ => Err(format!(
            "reduce-precision needs a floating-point operand, got {}",
            input.elem.name()
        )),
    }
}

/// An IEEE-style binary floating-point format.
struct FloatFormat {
    bits: u32,
    exponent: u32,
    mantissa: u32,
}

impl FloatFormat {
    /// XLA's reduce-precision of the bit pattern `x`.
    fn reduce(&self, x: u64, exponent_bits: u32, mantissa_bits: u32) -> u64 {
        let width_mask = if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        };
        let sign_mask = 1u64 << (self.bits - 1);
        let exponent_mask = ((1u64 << self.exponent) - 1) << self.mantissa;
        let is_nan = (x & !sign_mask & width_mask) > exponent_mask;
        let mut value = x;
        if mantissa_bits < self.mantissa {
            let dropped = self.mantissa - mantissa_bits;
            let last_kept_bit = 1u64 << dropped;
            // Round to nearest, ties to even: add 0111…1, plus one when the
            // last kept bit is set. A carry into the exponent is correct.
            let base_bias = (last_kept_bit >> 1) - 1;
            let bias = ((value & last_kept_bit) >> dropped) + base_bias;
            value = value.wrapping_add(bias) & !(last_kept_bit - 1) & width_mask;
        }
        if exponent_bits < self.exponent {
            let bias = (1u64 << (self.exponent - 1)) - 1;
            let reduced_bias = (1u64 << (exponent_bits - 1)) - 1;
            let max_exponent = (bias + reduced_bias) << self.mantissa;
            let min_exponent = (bias - reduced_bias) << self.mantissa;
            let exponent = value & exponent_mask;
            let signed_zero = value & sign_mask;
            if exponent > max_exponent {
                value = signed_zero | exponent_mask;
            } else if exponent <= min_exponent {
                // Denormals of the reduced format flush to zero too.
                value = signed_zero;
            }
        }
        if is_nan {
            // Rounding may have turned a NaN into an infinity or zero; XLA
            // keeps the NaN unless no mantissa bit survives.
            if mantissa_bits > 0 { x } else { exponent_mask }
        } else {
            value
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::test_support::*;

    fn reduce_f64(values: &[u64], exponent_bits: u32, mantissa_bits: u32) -> Vec<u64> {
        let format = FloatFormat {
            bits: 64,
            exponent: 11,
            mantissa: 52,
        };
        values
            .iter()
            .map(|&v| format.reduce(v, exponent_bits, mantissa_bits))
            .collect()
    }

    #[test]
    fn reduce_precision_rounds_overflows_flushes_and_keeps_nan() {
        let bits = |x: f64| x.to_bits();
        let input = [
            bits(f64::INFINITY),
            0x7FFF_FFFF_FFFF_FFFF,
            1,
            bits(0.0),
            bits(65505.0),
            bits(65520.0),
            bits(-65520.0),
            bits(1.0 + 1.0 / 2048.0), // a tie at f16 precision: to even
            bits(1.0 + 3.0 / 2048.0), // a tie: rounds up to even
        ];
        let expected = [
            bits(f64::INFINITY),
            0x7FFF_FFFF_FFFF_FFFF,
            0,
            bits(0.0),
            bits(65504.0),
            bits(f64::INFINITY),
            bits(f64::NEG_INFINITY),
            bits(1.0),
            bits(1.0 + 4.0 / 2048.0),
        ];
        assert_eq!(reduce_f64(&input, 5, 10), expected);
        // With no mantissa bits a NaN becomes +inf.
        assert_eq!(
            reduce_f64(&[0x7FFF_FFFF_FFFF_FFFF], 5, 0),
            vec![bits(f64::INFINITY)]
        );
        // f16's smallest normal survives; half of it flushes to zero.
        let min_normal = 2f64.powi(-14);
        assert_eq!(
            reduce_f64(&[bits(min_normal), bits(-min_normal / 2.0)], 5, 10),
            vec![bits(min_normal), bits(-0.0)]
        );
    }

    #[test]
    fn reduce_precision_of_f32_to_bf16_through_the_evaluator() {
        let text = r#"
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  ROOT r = f32[3] reduce-precision(x), exponent_bits=8, mantissa_bits=7
}
"#;
        let input = f32s(&[3], &[1.0 + 1.0 / 256.0, 3.4e38, 1.0 + 3.0 / 256.0]);
        let result = run(text, vec![input]);
        // 1 + 2⁻⁸ ties to 1; 3.4e38 is nearer 2¹²⁸ than bf16's largest
        // finite value, so it overflows to inf; 1 + 3·2⁻⁸ ties up to 1 + 2⁻⁶.
        assert_eq!(
            floats(tensor(&result)),
            vec![1.0, f64::INFINITY, 1.0 + 4.0 / 256.0]
        );
    }
}

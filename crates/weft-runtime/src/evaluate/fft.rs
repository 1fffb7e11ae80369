//! `fft`: discrete Fourier transforms over an array's trailing dimensions.
//!
//! Semantics follow XLA's CPU backend where it and the StableHLO spec part:
//! `fft` transforms the trailing `fft_length.len()` dimensions in `f64`
//! (radix 2 for powers of two, a direct DFT otherwise); `IFFT` and `IRFFT`
//! divide by the transform size; `IRFFT` completes the spectrum by
//! Hermitian symmetry, ignoring the imaginary parts that symmetry cannot
//! hold.

use weft_ir::ElementType;
use weft_ir::attrs::FftType;

use super::complex::{C64, c_add, c_conj, c_mul, c_sub, complex_values, from_complex};
use super::element_access::Lines;
use crate::tensor::{Tensor, element_count};

/// `fft` of `fft_type` over the trailing `fft_length.len()` dimensions.
pub(super) fn fft(
    input: &Tensor,
    fft_type: FftType,
    fft_length: &[i64],
    result_elem: ElementType,
    result_dims: &[i64],
) -> Result<Tensor, String> {
    let rank = input.dims.len();
    if fft_length.is_empty() || fft_length.len() > rank {
        return Err(format!(
            "fft over {} dimensions of a rank-{rank} operand",
            fft_length.len()
        ));
    }
    let first_axis = rank - fft_length.len();
    let last_axis = rank - 1;
    let (mut values, _) = complex_values(input, "fft")?;
    let mut dims = input.dims.clone();
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            for axis in first_axis..rank {
                transform_axis(&mut values, &dims, axis, fft_type == FftType::Ifft);
            }
        }
        FftType::Rfft => {
            transform_axis(&mut values, &dims, last_axis, false);
            let kept = if dims[last_axis] == 0 {
                0
            } else {
                dims[last_axis] / 2 + 1
            };
            values = resize_last_axis(&values, &dims, kept, |line, _| line.to_vec());
            dims[last_axis] = kept;
            for axis in first_axis..last_axis {
                transform_axis(&mut values, &dims, axis, false);
            }
        }
        FftType::Irfft => {
            for axis in first_axis..last_axis {
                transform_axis(&mut values, &dims, axis, true);
            }
            let length = fft_length[fft_length.len() - 1];
            values = resize_last_axis(&values, &dims, length, |half, n| {
                // The full spectrum of a real signal: X[n − k] = conj(X[k]).
                let mut line: Vec<C64> = (0..n)
                    .map(|k| {
                        if k < half.len() {
                            half[k]
                        } else {
                            half.get(n - k).copied().map_or((0.0, 0.0), c_conj)
                        }
                    })
                    .collect();
                fft_line(&mut line, true);
                line.iter().map(|&(re, _)| (re, 0.0)).collect()
            });
            dims[last_axis] = length;
        }
    }
    if dims != result_dims {
        return Err(format!(
            "the transform gives dimensions {dims:?} but the result has {result_dims:?}"
        ));
    }
    Ok(from_complex(result_elem, &dims, values))
}

/// Replaces each line along the last axis by `make(line, new_length)`.
fn resize_last_axis(
    values: &[C64],
    dims: &[i64],
    new_length: i64,
    make: impl Fn(&[C64], usize) -> Vec<C64>,
) -> Vec<C64> {
    let length = dims[dims.len() - 1].max(0) as usize;
    let new_length = new_length.max(0) as usize;
    let lines = element_count(&dims[..dims.len() - 1]);
    let mut out = Vec::with_capacity(lines * new_length);
    for l in 0..lines {
        let mut line = make(&values[l * length..(l + 1) * length], new_length);
        line.resize(new_length, (0.0, 0.0));
        out.extend(line);
    }
    out
}

/// Transforms every line of `values` (of `dims`) along `axis`.
fn transform_axis(values: &mut [C64], dims: &[i64], axis: usize, inverse: bool) {
    let lines = Lines::new(dims, axis);
    let mut line = Vec::with_capacity(lines.length);
    for start in lines.starts() {
        line.clear();
        line.extend((0..lines.length).map(|i| values[start + i * lines.step]));
        fft_line(&mut line, inverse);
        for (i, &v) in line.iter().enumerate() {
            values[start + i * lines.step] = v;
        }
    }
}

/// The discrete Fourier transform of `line` in place; the inverse divides
/// by the length.
fn fft_line(line: &mut [C64], inverse: bool) {
    let n = line.len();
    if n <= 1 {
        return;
    }
    let sign = if inverse { 1.0 } else { -1.0 };
    if n.is_power_of_two() {
        // Iterative radix-2 Cooley–Tukey.
        let bits = n.trailing_zeros();
        for i in 0..n {
            let j = i.reverse_bits() >> (usize::BITS - bits);
            if j > i {
                line.swap(i, j);
            }
        }
        let mut size = 2;
        while size <= n {
            let half = size / 2;
            let twiddles: Vec<C64> = (0..half)
                .map(|k| {
                    let angle = sign * 2.0 * std::f64::consts::PI * k as f64 / size as f64;
                    (angle.cos(), angle.sin())
                })
                .collect();
            for start in (0..n).step_by(size) {
                for k in 0..half {
                    let even = line[start + k];
                    let odd = c_mul(line[start + k + half], twiddles[k]);
                    line[start + k] = c_add(even, odd);
                    line[start + k + half] = c_sub(even, odd);
                }
            }
            size *= 2;
        }
    } else {
        let twiddles: Vec<C64> = (0..n)
            .map(|m| {
                let angle = sign * 2.0 * std::f64::consts::PI * m as f64 / n as f64;
                (angle.cos(), angle.sin())
            })
            .collect();
        let input = line.to_vec();
        for (k, out) in line.iter_mut().enumerate() {
            *out = input.iter().enumerate().fold((0.0, 0.0), |acc, (j, &x)| {
                c_add(acc, c_mul(x, twiddles[(j * k) % n]))
            });
        }
    }
    if inverse {
        let scale = 1.0 / n as f64;
        for v in line.iter_mut() {
            *v = (v.0 * scale, v.1 * scale);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::test_support::*;
    use crate::numbers::{Numbers, decode};

    fn complexes(t: &Tensor) -> Vec<C64> {
        match decode(t) {
            Numbers::Complex(v) => v,
            other => panic!("{other:?}"),
        }
    }

    fn assert_close(actual: &[f64], expected: &[f64]) {
        assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
        for (a, e) in actual.iter().zip(expected) {
            assert!(
                (a - e).abs() <= 1e-5 * e.abs().max(1.0),
                "{actual:?} vs {expected:?}"
            );
        }
    }

    #[test]
    fn fft_round_trips_and_matches_a_direct_transform() {
        let text = r#"
HloModule m
ENTRY e {
  x = f32[2,6] parameter(0)
  spectrum = c64[2,4] fft(x), fft_type=RFFT, fft_length={6}
  back = f32[2,6] fft(spectrum), fft_type=IRFFT, fft_length={6}
  full = c64[2,6] convert(x)
  forward = c64[2,6] fft(full), fft_type=FFT, fft_length={2,6}
  inverse = c64[2,6] fft(forward), fft_type=IFFT, fft_length={2,6}
  ROOT t = (c64[2,4], f32[2,6], c64[2,6], c64[2,6]) tuple(spectrum, back, forward, inverse)
}
"#;
        let x = [1.0, 2.0, 0.0, -1.0, 3.0, 0.5, 2.0, -2.0, 1.0, 0.0, 4.0, 1.0];
        let result = run(text, vec![f32s(&[2, 6], &x)]);
        // RFFT of the first row, directly.
        let spectrum = complexes(element(&result, 0));
        for (k, value) in spectrum.iter().take(4).enumerate() {
            let mut expected = (0.0, 0.0);
            for (j, &v) in x[..6].iter().enumerate() {
                let angle = -2.0 * std::f64::consts::PI * (j * k) as f64 / 6.0;
                expected = c_add(expected, (v * angle.cos(), v * angle.sin()));
            }
            assert!((value.0 - expected.0).abs() < 1e-5);
            assert!((value.1 - expected.1).abs() < 1e-5);
        }
        assert_close(&floats(element(&result, 1)), &x);
        // The 2-D transform's DC term is the sum of everything.
        let forward = complexes(element(&result, 2));
        assert!((forward[0].0 - x.iter().sum::<f64>()).abs() < 1e-5);
        let inverse: Vec<f64> = complexes(element(&result, 3)).iter().map(|c| c.0).collect();
        assert_close(&inverse, &x);
    }

    #[test]
    fn fft_of_a_power_of_two_length_matches_the_direct_transform() {
        let mut line: Vec<C64> = (0..8)
            .map(|i| (i as f64 * 0.5 - 1.0, (i % 3) as f64))
            .collect();
        let input = line.clone();
        fft_line(&mut line, false);
        for (k, value) in line.iter().enumerate() {
            let mut expected = (0.0, 0.0);
            for (j, &x) in input.iter().enumerate() {
                let angle = -2.0 * std::f64::consts::PI * (j * k) as f64 / 8.0;
                expected = c_add(expected, c_mul(x, (angle.cos(), angle.sin())));
            }
            assert!((value.0 - expected.0).abs() < 1e-9 && (value.1 - expected.1).abs() < 1e-9);
        }
    }
}

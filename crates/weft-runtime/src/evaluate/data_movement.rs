//! Kernels that move elements without looking at them: broadcast, transpose,
//! reverse, slice, dynamic slice and update, concatenate, pad, iota. They
//! work on raw bytes, so one kernel serves every element type.
//!
//! Dynamic start indices are clamped so the slice stays inside the operand,
//! as XLA (and StableHLO) define it.

use weft_ir::ElementType;
use weft_ir::attrs::{PaddingConfig, SliceRange};

use crate::numbers::{Numbers, encode};
use crate::tensor::{Tensor, element_count, strides};

/// Calls `visit` with every multi-index of `dims`, in row-major order.
fn for_each_index(dims: &[i64], mut visit: impl FnMut(&[i64])) {
    if dims.iter().any(|&d| d <= 0) {
        return;
    }
    let mut index = vec![0i64; dims.len()];
    loop {
        visit(&index);
        let mut d = dims.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// `operand` broadcast into `dims`: operand dimension `i` becomes result
/// dimension `dimensions[i]` (a scalar goes everywhere).
pub(crate) fn broadcast(operand: &Tensor, dims: &[i64], dimensions: &[i64]) -> Tensor {
    let size = operand.element_size();
    let mut out = Tensor::zeros(operand.elem, dims);
    if operand.len() == 1 {
        for chunk in out.bytes.chunks_exact_mut(size.max(1)) {
            chunk.copy_from_slice(&operand.bytes[..size]);
        }
        return out;
    }
    let source_strides = strides(&operand.dims);
    let mut linear = 0;
    for_each_index(dims, |index| {
        let source: usize = dimensions
            .iter()
            .enumerate()
            .map(|(i, &d)| index[d as usize] as usize * source_strides[i])
            .sum();
        out.bytes[linear * size..(linear + 1) * size]
            .copy_from_slice(&operand.bytes[source * size..(source + 1) * size]);
        linear += 1;
    });
    out
}

/// `operand` with its dimensions permuted: result dimension `i` is operand
/// dimension `permutation[i]`.
pub(crate) fn transpose(operand: &Tensor, permutation: &[i64]) -> Tensor {
    let dims: Vec<i64> = permutation
        .iter()
        .map(|&p| operand.dims[p as usize])
        .collect();
    let size = operand.element_size();
    let source_strides = strides(&operand.dims);
    let mut out = Tensor::zeros(operand.elem, &dims);
    let mut linear = 0;
    for_each_index(&dims, |index| {
        let source: usize = permutation
            .iter()
            .enumerate()
            .map(|(i, &p)| index[i] as usize * source_strides[p as usize])
            .sum();
        out.bytes[linear * size..(linear + 1) * size]
            .copy_from_slice(&operand.bytes[source * size..(source + 1) * size]);
        linear += 1;
    });
    out
}

/// `operand` reversed along `dimensions`.
pub(crate) fn reverse(operand: &Tensor, dimensions: &[i64]) -> Tensor {
    gather_by(operand, &operand.dims.clone(), |index, source| {
        for (d, &i) in index.iter().enumerate() {
            source[d] = if dimensions.contains(&(d as i64)) {
                operand.dims[d] - 1 - i
            } else {
                i
            };
        }
        true
    })
}

/// `slice={[start:limit:stride], …}`.
pub(crate) fn slice(operand: &Tensor, ranges: &[SliceRange]) -> Tensor {
    let dims: Vec<i64> = ranges
        .iter()
        .map(|r| weft_ir::size::slice_count(r.start, r.limit, r.stride.max(1)).unwrap_or(0))
        .collect();
    gather_by(operand, &dims, |index, source| {
        for (d, &i) in index.iter().enumerate() {
            source[d] = ranges[d].start + i * ranges[d].stride;
        }
        true
    })
}

/// Start indices clamped so a window of `sizes` fits inside `dims`.
pub(crate) fn clamp_starts(starts: &[i64], sizes: &[i64], dims: &[i64]) -> Vec<i64> {
    starts
        .iter()
        .zip(sizes)
        .zip(dims)
        .map(|((&start, &size), &dim)| start.clamp(0, (dim - size).max(0)))
        .collect()
}

/// `dynamic-slice` with already-read start indices.
pub(crate) fn dynamic_slice(operand: &Tensor, starts: &[i64], sizes: &[i64]) -> Tensor {
    let starts = clamp_starts(starts, sizes, &operand.dims);
    gather_by(operand, sizes, |index, source| {
        for (d, &i) in index.iter().enumerate() {
            source[d] = starts[d] + i;
        }
        true
    })
}

/// `dynamic-update-slice` with already-read start indices. The update's
/// rows (its innermost dimension) are contiguous in both tensors, so each is
/// copied whole.
pub(crate) fn dynamic_update_slice(operand: &Tensor, update: &Tensor, starts: &[i64]) -> Tensor {
    let starts = clamp_starts(starts, &update.dims, &operand.dims);
    let size = operand.element_size();
    let target_strides = strides(&operand.dims);
    let mut out = operand.clone();
    let Some((&row, outer)) = update.dims.split_last() else {
        // A scalar update replaces the scalar.
        out.bytes
            .copy_from_slice(&update.bytes[..size.min(update.bytes.len())]);
        return out;
    };
    let row_bytes = row.max(0) as usize * size;
    if row_bytes == 0 {
        return out;
    }
    let last = update.dims.len() - 1;
    let mut source = 0;
    for_each_index(outer, |index| {
        let target: usize = index
            .iter()
            .enumerate()
            .map(|(d, &i)| (starts[d] + i) as usize * target_strides[d])
            .sum::<usize>()
            + starts[last] as usize * target_strides[last];
        out.bytes[target * size..target * size + row_bytes]
            .copy_from_slice(&update.bytes[source..source + row_bytes]);
        source += row_bytes;
    });
    out
}

/// The operands joined along `dimension`.
pub(crate) fn concatenate(operands: &[&Tensor], dimension: usize) -> Tensor {
    let first = operands[0];
    let mut dims = first.dims.clone();
    dims[dimension] = operands.iter().map(|t| t.dims[dimension]).sum();
    let size = first.element_size();
    // Rows before the dimension stay together: copy each operand's block of
    // one outer index at a time.
    let outer: usize = element_count(&first.dims[..dimension]);
    let mut out = Vec::with_capacity(element_count(&dims) * size);
    for o in 0..outer {
        for t in operands {
            let block = element_count(&t.dims[dimension..]) * size;
            out.extend_from_slice(&t.bytes[o * block..(o + 1) * block]);
        }
    }
    Tensor {
        elem: first.elem,
        dims,
        bytes: out.into(),
    }
}

/// `pad(operand, value), padding=low_high_interior…` (negative padding
/// removes elements).
pub(crate) fn pad(operand: &Tensor, value: &Tensor, config: &PaddingConfig) -> Tensor {
    let dims: Vec<i64> = operand
        .dims
        .iter()
        .zip(&config.dims)
        // The verifier's checked rule; a size it would refuse is empty here.
        .map(|(&d, p)| p.padded_size(d).unwrap_or(0).max(0))
        .collect();
    let mut out = broadcast(value, &dims, &[]);
    let size = operand.element_size();
    let target_strides = strides(&dims);
    let mut linear = 0;
    for_each_index(&operand.dims, |index| {
        let mut target = 0usize;
        let mut inside = true;
        for (d, &i) in index.iter().enumerate() {
            let p = &config.dims[d];
            let position = p.low + i * (p.interior + 1);
            if position < 0 || position >= dims[d] {
                inside = false;
                break;
            }
            target += position as usize * target_strides[d];
        }
        if inside {
            out.bytes[target * size..(target + 1) * size]
                .copy_from_slice(&operand.bytes[linear * size..(linear + 1) * size]);
        }
        linear += 1;
    });
    out
}

/// `iota`: each element is its index along `dimension`.
pub(crate) fn iota(elem: ElementType, dims: &[i64], dimension: usize) -> Tensor {
    let mut values = Vec::with_capacity(element_count(dims));
    for_each_index(dims, |index| values.push(index[dimension]));
    let numbers = if elem.is_integer() {
        Numbers::Signed(values)
    } else {
        Numbers::Float(values.into_iter().map(|v| v as f64).collect())
    };
    encode(elem, dims, &numbers)
}

/// A tensor of `dims` whose every element is read from `operand` at the
/// index `locate` writes (or left zero when `locate` returns false).
fn gather_by(
    operand: &Tensor,
    dims: &[i64],
    mut locate: impl FnMut(&[i64], &mut [i64]) -> bool,
) -> Tensor {
    let size = operand.element_size();
    let source_strides = strides(&operand.dims);
    let mut out = Tensor::zeros(operand.elem, dims);
    let mut source = vec![0i64; operand.dims.len()];
    let mut linear = 0;
    for_each_index(dims, |index| {
        if locate(index, &mut source) {
            let offset: usize = source
                .iter()
                .zip(&source_strides)
                .map(|(&i, &s)| i as usize * s)
                .sum();
            out.bytes[linear * size..(linear + 1) * size]
                .copy_from_slice(&operand.bytes[offset * size..(offset + 1) * size]);
        }
        linear += 1;
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::decode;
    use weft_ir::attrs::PaddingDim;

    fn range(dims: &[i64]) -> Tensor {
        iota_flat(dims)
    }

    fn iota_flat(dims: &[i64]) -> Tensor {
        let n = element_count(dims) as i64;
        encode(ElementType::S32, dims, &Numbers::Signed((0..n).collect()))
    }

    fn values(t: &Tensor) -> Vec<i64> {
        match decode(t) {
            Numbers::Signed(v) => v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn transpose_and_broadcast() {
        let t = range(&[2, 3]);
        assert_eq!(values(&transpose(&t, &[1, 0])), vec![0, 3, 1, 4, 2, 5]);
        let row = range(&[3]);
        assert_eq!(
            values(&broadcast(&row, &[2, 3], &[1])),
            vec![0, 1, 2, 0, 1, 2]
        );
        assert_eq!(
            values(&broadcast(&row, &[3, 2], &[0])),
            vec![0, 0, 1, 1, 2, 2]
        );
    }

    #[test]
    fn slices_clamp_and_pad() {
        let t = range(&[5]);
        let s = slice(
            &t,
            &[SliceRange {
                start: 1,
                limit: 5,
                stride: 2,
            }],
        );
        assert_eq!(values(&s), vec![1, 3]);
        assert_eq!(values(&dynamic_slice(&t, &[4], &[2])), vec![3, 4]);
        let update = encode(ElementType::S32, &[2], &Numbers::Signed(vec![9, 9]));
        assert_eq!(
            values(&dynamic_update_slice(&t, &update, &[-3])),
            vec![9, 9, 2, 3, 4]
        );
        let zero = encode(ElementType::S32, &[], &Numbers::Signed(vec![-1]));
        let config = PaddingConfig {
            dims: Box::new([PaddingDim {
                low: -1,
                high: 2,
                interior: 1,
            }]),
        };
        assert_eq!(
            values(&pad(&t, &zero, &config)),
            vec![-1, 1, -1, 2, -1, 3, -1, 4, -1, -1]
        );
    }

    #[test]
    fn concatenate_and_reverse() {
        let a = range(&[2, 2]);
        let b = range(&[2, 1]);
        assert_eq!(values(&concatenate(&[&a, &b], 1)), vec![0, 1, 0, 2, 3, 1]);
        assert_eq!(values(&reverse(&a, &[0])), vec![2, 3, 0, 1]);
    }
}

//! Kernels that move elements without looking at them: broadcast, transpose,
//! reverse, slice, dynamic slice and update, concatenate, pad, iota. They
//! work on raw bytes, so one kernel serves every element type.
//!
//! Dynamic start indices are clamped so the slice stays inside the operand,
//! as XLA (and StableHLO) define it.

use weft_ir::ElementType;
use weft_ir::attrs::{PaddingConfig, SliceRange};

use super::strided::{StridedView, copy_view};
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
    let source_strides = strides(&operand.dims);
    let mut view = StridedView {
        offset: 0,
        strides: vec![0; dims.len()],
    };
    for (i, &d) in dimensions.iter().enumerate() {
        view.strides[d as usize] = source_strides[i] as isize;
    }
    copy_view(operand, dims, &view)
}

/// `operand` with its dimensions permuted: result dimension `i` is operand
/// dimension `permutation[i]`.
pub(crate) fn transpose(operand: &Tensor, permutation: &[i64]) -> Tensor {
    let dims: Vec<i64> = permutation
        .iter()
        .map(|&p| operand.dims[p as usize])
        .collect();
    let source_strides = strides(&operand.dims);
    let view = StridedView {
        offset: 0,
        strides: permutation
            .iter()
            .map(|&p| source_strides[p as usize] as isize)
            .collect(),
    };
    copy_view(operand, &dims, &view)
}

/// `operand` reversed along `dimensions`.
pub(crate) fn reverse(operand: &Tensor, dimensions: &[i64]) -> Tensor {
    let source_strides = strides(&operand.dims);
    let mut view = StridedView {
        offset: 0,
        strides: source_strides.iter().map(|&s| s as isize).collect(),
    };
    for &d in dimensions {
        let d = d as usize;
        // Index 0 reads the last element along d, and steps back.
        view.offset += (operand.dims[d] - 1).max(0) as isize * view.strides[d];
        view.strides[d] = -view.strides[d];
    }
    copy_view(operand, &operand.dims, &view)
}

/// `slice={[start:limit:stride], …}`.
pub(crate) fn slice(operand: &Tensor, ranges: &[SliceRange]) -> Tensor {
    let dims: Vec<i64> = ranges
        .iter()
        .map(|r| weft_ir::size::slice_count(r.start, r.limit, r.stride.max(1)).unwrap_or(0))
        .collect();
    let source_strides = strides(&operand.dims);
    let view = StridedView {
        offset: ranges
            .iter()
            .zip(&source_strides)
            .map(|(r, &s)| r.start as isize * s as isize)
            .sum(),
        strides: ranges
            .iter()
            .zip(&source_strides)
            .map(|(r, &s)| r.stride.max(1) as isize * s as isize)
            .collect(),
    };
    copy_view(operand, &dims, &view)
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
    let source_strides = strides(&operand.dims);
    let view = StridedView {
        offset: starts
            .iter()
            .zip(&source_strides)
            .map(|(&start, &s)| start as isize * s as isize)
            .sum(),
        strides: source_strides.iter().map(|&s| s as isize).collect(),
    };
    copy_view(operand, sizes, &view)
}

/// `dynamic-update-slice` with already-read start indices, written into
/// `operand`'s bytes: in place when no other value shares them, into a copy
/// otherwise (copy-on-write). The update's rows (its innermost dimension)
/// are contiguous in both tensors, so each is copied whole.
pub(crate) fn dynamic_update_slice(operand: Tensor, update: &Tensor, starts: &[i64]) -> Tensor {
    let starts = clamp_starts(starts, &update.dims, &operand.dims);
    let size = operand.element_size();
    let target_strides = strides(&operand.dims);
    let mut out = operand;
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
    let Some((&row, outer)) = operand.dims.split_last() else {
        // A scalar operand pads to itself.
        out.bytes.copy_from_slice(&operand.bytes);
        return out;
    };
    let last = config.dims.len() - 1;
    let (low, interior) = (config.dims[last].low, config.dims[last].interior);
    let row_bytes = row.max(0) as usize * size;
    if row_bytes == 0 {
        return out;
    }
    // The operand elements of a row that land inside the result: position
    // low + i·(interior + 1) within 0..dims[last].
    let spacing = interior + 1;
    let first = if low < 0 {
        (-low + spacing - 1) / spacing
    } else {
        0
    };
    let end = ((dims[last] - low + spacing - 1) / spacing).clamp(0, row);
    let mut source = 0;
    for_each_index(outer, |index| {
        let mut base = 0usize;
        let mut inside = true;
        for (d, &i) in index.iter().enumerate() {
            let p = &config.dims[d];
            let position = p.low + i * (p.interior + 1);
            if position < 0 || position >= dims[d] {
                inside = false;
                break;
            }
            base += position as usize * target_strides[d];
        }
        if inside && first < end {
            if interior == 0 {
                let from = source + first as usize * size;
                let to = (base + (low + first) as usize) * size;
                let bytes = (end - first) as usize * size;
                out.bytes[to..to + bytes].copy_from_slice(&operand.bytes[from..from + bytes]);
            } else {
                for i in first..end {
                    let from = source + i as usize * size;
                    let to = (base + (low + i * spacing) as usize) * size;
                    out.bytes[to..to + size].copy_from_slice(&operand.bytes[from..from + size]);
                }
            }
        }
        source += row_bytes;
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

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::attrs::PaddingDim;

    use crate::evaluate::test_support::{counting as range, ints as values};

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
            values(&dynamic_update_slice(t.clone(), &update, &[-3])),
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

//! Copying a strided view of a tensor out into a new row-major tensor: the
//! one kernel behind broadcast, transpose, reverse, slice and dynamic
//! slice.
//!
//! Each of those ops reads result element `index` from the operand at
//! `offset + Σ index[d] · strides[d]` (in elements): a broadcast has stride
//! 0 along the dimensions it adds, a transpose permutes the operand's
//! strides, a reverse negates them (its offset starting at the far end), a
//! slice multiplies them by its step. Walking the result one element at a
//! time through a closure that recomputes the source index cost ten times
//! a memory copy; this kernel walks it a row at a time instead:
//!
//! - adjacent dimensions that step through the source as one (stride of
//!   the outer = stride of the inner × its size, which includes two
//!   broadcast dimensions) are merged first, so a broadcast of a scalar is
//!   one row and a slice of whole rows copies whole blocks;
//! - a row of stride 1 is one `copy_from_slice`, a row of stride 0 one
//!   element repeated by doubling copies, any other row a loop over
//!   fixed-size elements.
//!
//! Invariant: every source index the view reaches lies inside the operand
//! (the callers' shapes guarantee it; a violation panics on the slice
//! bounds rather than reading out of range).

use crate::tensor::{Tensor, element_count};

/// A view of an operand: where result element 0 reads and how far each
/// result dimension steps, in elements.
pub(crate) struct StridedView {
    /// The source element of result index 0.
    pub offset: isize,
    /// Source elements between neighbours along each result dimension.
    pub strides: Vec<isize>,
}

/// The tensor of `dims` whose element `index` is `operand`'s element at
/// `view.offset + Σ index[d] · view.strides[d]`.
pub(crate) fn copy_view(operand: &Tensor, dims: &[i64], view: &StridedView) -> Tensor {
    let size = operand.element_size();
    let count = element_count(dims);
    let mut out = vec![0u8; count * size];
    if count > 0 {
        let (dims, strides) = merged(dims, &view.strides);
        let (&row, outer) = dims.split_last().expect("merged keeps a dimension");
        let step = *strides.last().expect("as many strides as dims");
        let row_bytes = row * size;
        let mut index = vec![0usize; outer.len()];
        let mut start = view.offset;
        for target in out.chunks_exact_mut(row_bytes) {
            copy_row(&operand.bytes, target, start, step, size);
            // The next outer index, and its row's start, as an odometer.
            for d in (0..outer.len()).rev() {
                index[d] += 1;
                start += strides[d];
                if index[d] < outer[d] {
                    break;
                }
                start -= strides[d] * outer[d] as isize;
                index[d] = 0;
            }
        }
    }
    Tensor {
        elem: operand.elem,
        dims: dims.to_vec(),
        bytes: out.into(),
    }
}

/// `dims` and `strides` with size-1 dimensions dropped and each run of
/// dimensions that steps through the source as one merged into one; at
/// least one dimension is left.
fn merged(dims: &[i64], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    let mut merged_dims: Vec<usize> = Vec::with_capacity(dims.len());
    let mut merged_strides: Vec<isize> = Vec::with_capacity(dims.len());
    for (&dim, &stride) in dims.iter().zip(strides) {
        let dim = dim.max(0) as usize;
        if dim == 1 {
            continue;
        }
        match (merged_dims.last_mut(), merged_strides.last_mut()) {
            (Some(outer), Some(outer_stride)) if *outer_stride == stride * dim as isize => {
                *outer *= dim;
                *outer_stride = stride;
            }
            _ => {
                merged_dims.push(dim);
                merged_strides.push(stride);
            }
        }
    }
    if merged_dims.is_empty() {
        return (vec![1], vec![0]);
    }
    (merged_dims, merged_strides)
}

/// Fills `target` (whole elements of `size` bytes) from `source` starting
/// at element `start`, `step` elements apart.
fn copy_row(source: &[u8], target: &mut [u8], start: isize, step: isize, size: usize) {
    let begin = start as usize * size;
    match step {
        1 => target.copy_from_slice(&source[begin..begin + target.len()]),
        0 => {
            target[..size].copy_from_slice(&source[begin..begin + size]);
            let mut filled = size;
            while filled < target.len() {
                let next = (2 * filled).min(target.len());
                target.copy_within(..next - filled, filled);
                filled = next;
            }
        }
        _ => match size {
            1 => copy_elements::<1>(source, target, start, step),
            2 => copy_elements::<2>(source, target, start, step),
            4 => copy_elements::<4>(source, target, start, step),
            8 => copy_elements::<8>(source, target, start, step),
            16 => copy_elements::<16>(source, target, start, step),
            _ => {
                for (k, element) in target.chunks_exact_mut(size).enumerate() {
                    let from = (start + k as isize * step) as usize * size;
                    element.copy_from_slice(&source[from..from + size]);
                }
            }
        },
    }
}

/// [`copy_row`]'s element loop for `SIZE`-byte elements, which the compiler
/// turns into plain loads and stores.
fn copy_elements<const SIZE: usize>(source: &[u8], target: &mut [u8], start: isize, step: isize) {
    let (elements, _) = target.as_chunks_mut::<SIZE>();
    let mut from = start;
    for element in elements {
        let at = from as usize * SIZE;
        *element = source[at..at + SIZE].try_into().expect("SIZE bytes");
        from += step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::test_support::{counting as tensor, ints as values};
    use weft_ir::ElementType;

    #[test]
    fn a_contiguous_view_is_one_block() {
        let t = tensor(&[2, 3]);
        let view = StridedView {
            offset: 0,
            strides: vec![3, 1],
        };
        assert_eq!(
            values(&copy_view(&t, &[2, 3], &view)),
            vec![0, 1, 2, 3, 4, 5]
        );
        assert_eq!(merged(&[2, 3], &[3, 1]), (vec![6], vec![1]));
    }

    #[test]
    fn a_zero_stride_repeats_and_merges() {
        let t = tensor(&[1]);
        let view = StridedView {
            offset: 0,
            strides: vec![0, 0, 0],
        };
        let out = copy_view(&t, &[3, 5, 7], &view);
        assert_eq!(values(&out), vec![0; 105]);
        assert_eq!(merged(&[3, 5, 7], &[0, 0, 0]), (vec![105], vec![0]));
    }

    #[test]
    fn a_transposed_view_reads_down_the_columns() {
        let t = tensor(&[2, 3]);
        let view = StridedView {
            offset: 0,
            strides: vec![1, 3],
        };
        assert_eq!(
            values(&copy_view(&t, &[3, 2], &view)),
            vec![0, 3, 1, 4, 2, 5]
        );
    }

    #[test]
    fn a_negative_stride_reads_backwards() {
        let t = tensor(&[2, 3]);
        let view = StridedView {
            offset: 5,
            strides: vec![-3, -1],
        };
        assert_eq!(
            values(&copy_view(&t, &[2, 3], &view)),
            vec![5, 4, 3, 2, 1, 0]
        );
    }

    #[test]
    fn size_one_and_empty_dimensions() {
        let t = tensor(&[4]);
        let view = StridedView {
            offset: 1,
            strides: vec![7, 2],
        };
        assert_eq!(values(&copy_view(&t, &[1, 2], &view)), vec![1, 3]);
        let empty = copy_view(&t, &[0, 2], &view);
        assert_eq!(empty.dims, vec![0, 2]);
        assert!(empty.bytes.is_empty());
    }

    #[test]
    fn every_element_size() {
        for elem in [
            ElementType::S8,
            ElementType::S16,
            ElementType::S32,
            ElementType::S64,
            ElementType::C128,
        ] {
            let dims = [3, 4];
            let size = Tensor::zeros(elem, &[]).element_size();
            let t = Tensor {
                elem,
                dims: dims.to_vec(),
                bytes: (0..element_count(&dims) * size).map(|b| b as u8).collect(),
            };
            let view = StridedView {
                offset: 0,
                strides: vec![1, 4],
            };
            let out = copy_view(&t, &[4, 3], &view);
            for row in 0..4 {
                for column in 0..3 {
                    let at = (row * 3 + column) * size;
                    let from = (column * 4 + row) * size;
                    assert_eq!(
                        out.bytes[at..at + size],
                        t.bytes[from..from + size],
                        "{elem:?}"
                    );
                }
            }
        }
    }
}

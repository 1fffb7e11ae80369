//! Element access shared by the structured ops: writing one scalar into an
//! array, rearranging an array's elements, the lines of an array along one
//! axis, and stepping through multi-indices in row-major order.
//!
//! Indices are linear and row-major over an array's contiguous element
//! bytes; a scalar is written only when its element type and size are the
//! target's.

use crate::tensor::{Tensor, Value, element_count};

/// Writes the scalar `value` at element `index` of `target`.
pub(super) fn store(target: &mut Tensor, index: usize, value: &Tensor) -> Result<(), String> {
    let size = target.element_size();
    if value.elem != target.elem || value.bytes.len() != size {
        return Err(format!(
            "a computation returned {} where a {} scalar was expected",
            Value::Tensor(value.clone()).describe(),
            target.elem.name()
        ));
    }
    target.bytes[index * size..(index + 1) * size].copy_from_slice(&value.bytes);
    Ok(())
}

/// `tensor`'s elements rearranged: element `i` of the result is element
/// `source[i]` of `tensor`.
pub(super) fn permuted(tensor: &Tensor, source: &[usize]) -> Tensor {
    let size = tensor.element_size();
    let mut bytes = Vec::with_capacity(tensor.bytes.len());
    for &from in source {
        bytes.extend_from_slice(&tensor.bytes[from * size..(from + 1) * size]);
    }
    Tensor {
        elem: tensor.elem,
        dims: tensor.dims.clone(),
        bytes: bytes.into(),
    }
}

/// The lines of an array along one axis: each starts at a linear index
/// and runs `length` elements `step` apart.
pub(super) struct Lines {
    pub(super) outer: usize,
    pub(super) length: usize,
    pub(super) step: usize,
}

impl Lines {
    pub(super) fn new(dims: &[i64], axis: usize) -> Lines {
        Lines {
            outer: element_count(&dims[..axis]),
            length: dims[axis].max(0) as usize,
            step: element_count(&dims[axis + 1..]),
        }
    }

    /// The linear index of each line's first element.
    pub(super) fn starts(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.outer)
            .flat_map(move |o| (0..self.step).map(move |i| o * self.length * self.step + i))
    }
}

/// Steps `index` to the next multi-index of `dims` in row-major order;
/// false after the last one.
pub(super) fn next_index(index: &mut [i64], dims: &[i64]) -> bool {
    for d in (0..dims.len()).rev() {
        index[d] += 1;
        if index[d] < dims[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}

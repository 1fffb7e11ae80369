//! `gather` and `scatter`, with the index arithmetic of the StableHLO spec
//! (batching dimensions included) and XLA's handling of indices that leave
//! the operand:
//! - a gather's start index is clamped so the slice stays inside;
//! - a scatter's update window that does not fit entirely is skipped.
//!
//! Scatter applies its update computation to each element in the order of
//! the update tensor, so overlapping windows combine as XLA's CPU backend
//! combines them (a sequential loop).

use weft_ir::attrs::{GatherAttrs, ScatterAttrs};
use weft_ir::{Comp, Instr};

use super::{Evaluator, RunError};
use crate::numbers::{Numbers, decode};
use crate::tensor::{Tensor, Value, element_count, strides};

/// Every multi-index of `dims` in row-major order.
fn indices(dims: &[i64]) -> impl Iterator<Item = Vec<i64>> + '_ {
    let total = element_count(dims);
    let strides = strides(dims);
    (0..total).map(move |linear| {
        strides
            .iter()
            .zip(dims)
            .map(|(&s, &d)| ((linear / s.max(1)) as i64) % d.max(1))
            .collect()
    })
}

fn offset(index: &[i64], dims: &[i64]) -> usize {
    strides(dims)
        .iter()
        .zip(index)
        .map(|(&s, &i)| s * i as usize)
        .sum()
}

/// The start index vector for `batch_index` (the indices tensor's index
/// without its index-vector dimension).
fn start_vector(
    indices_tensor: &Tensor,
    values: &[i64],
    batch_index: &[i64],
    index_vector_dim: usize,
) -> Vec<i64> {
    let rank = indices_tensor.dims.len();
    if index_vector_dim >= rank {
        return vec![values[offset(batch_index, &indices_tensor.dims)]];
    }
    let length = indices_tensor.dims[index_vector_dim];
    (0..length)
        .map(|k| {
            let mut full = batch_index.to_vec();
            full.insert(index_vector_dim, k);
            values[offset(&full, &indices_tensor.dims)]
        })
        .collect()
}

fn integer_values(tensor: &Tensor) -> Option<Vec<i64>> {
    match decode(tensor) {
        Numbers::Signed(v) => Some(v),
        Numbers::Unsigned(v) => Some(
            v.into_iter()
                .map(|x| x.min(i64::MAX as u64) as i64)
                .collect(),
        ),
        _ => None,
    }
}

impl Evaluator<'_> {
    pub(crate) fn gather(
        &self,
        instr: Instr,
        operand: &Tensor,
        start_indices: &Tensor,
        attrs: &GatherAttrs,
        result_dims: &[i64],
    ) -> Result<Tensor, RunError> {
        let values = integer_values(start_indices)
            .ok_or_else(|| self.error(instr, "gather indices must be integers"))?;
        let size = operand.element_size();
        let batch_dims: Vec<usize> = (0..result_dims.len())
            .filter(|d| !attrs.offset_dims.contains(&(*d as i64)))
            .collect();
        let offset_operand_dims: Vec<usize> = (0..operand.dims.len())
            .filter(|d| {
                !attrs.collapsed_slice_dims.contains(&(*d as i64))
                    && !attrs.operand_batching_dims.contains(&(*d as i64))
            })
            .collect();
        let index_vector_dim = attrs.index_vector_dim as usize;
        let mut out = Tensor::zeros(operand.elem, result_dims);
        for (linear, result_index) in indices(result_dims).enumerate() {
            let batch_index: Vec<i64> = batch_dims.iter().map(|&d| result_index[d]).collect();
            let start = start_vector(start_indices, &values, &batch_index, index_vector_dim);
            let mut operand_index = vec![0i64; operand.dims.len()];
            for (k, &d) in attrs.start_index_map.iter().enumerate() {
                let d = d as usize;
                let limit = (operand.dims[d] - attrs.slice_sizes[d]).max(0);
                operand_index[d] = start.get(k).copied().unwrap_or(0).clamp(0, limit);
            }
            for (i, &d) in attrs.operand_batching_dims.iter().enumerate() {
                // The batch index counts the indices tensor's dimensions
                // without the index-vector one.
                let position = attrs.start_indices_batching_dims[i] as usize;
                let position = if position > index_vector_dim {
                    position - 1
                } else {
                    position
                };
                operand_index[d as usize] += batch_index[position];
            }
            for (k, &d) in offset_operand_dims.iter().enumerate() {
                operand_index[d] += result_index[attrs.offset_dims[k] as usize];
            }
            let source = offset(&operand_index, &operand.dims);
            out.bytes[linear * size..(linear + 1) * size]
                .copy_from_slice(&operand.bytes[source * size..(source + 1) * size]);
        }
        Ok(out)
    }

    pub(crate) fn scatter(
        &mut self,
        instr: Instr,
        operands: &[&Tensor],
        scatter_indices: &Tensor,
        updates: &[&Tensor],
        attrs: &ScatterAttrs,
        combiner: Comp,
    ) -> Result<Value, RunError> {
        let values = integer_values(scatter_indices)
            .ok_or_else(|| self.error(instr, "scatter indices must be integers"))?;
        let mut results: Vec<Tensor> = operands.iter().map(|t| (*t).clone()).collect();
        let operand_dims = operands[0].dims.clone();
        let update_dims = updates[0].dims.clone();
        let scatter_dims: Vec<usize> = (0..update_dims.len())
            .filter(|d| !attrs.update_window_dims.contains(&(*d as i64)))
            .collect();
        let window_operand_dims: Vec<usize> = (0..operand_dims.len())
            .filter(|d| {
                !attrs.inserted_window_dims.contains(&(*d as i64))
                    && !attrs.input_batching_dims.contains(&(*d as i64))
            })
            .collect();
        // The extent of the update window along each operand dimension.
        let mut window_extent = vec![1i64; operand_dims.len()];
        for (k, &d) in window_operand_dims.iter().enumerate() {
            window_extent[d] = update_dims[attrs.update_window_dims[k] as usize];
        }
        let index_vector_dim = attrs.index_vector_dim as usize;
        for (linear, update_index) in indices(&update_dims).enumerate() {
            let batch_index: Vec<i64> = scatter_dims.iter().map(|&d| update_index[d]).collect();
            let start = start_vector(scatter_indices, &values, &batch_index, index_vector_dim);
            let mut target = vec![0i64; operand_dims.len()];
            for (k, &d) in attrs.scatter_dims_to_operand_dims.iter().enumerate() {
                target[d as usize] = start.get(k).copied().unwrap_or(0);
            }
            for (i, &d) in attrs.input_batching_dims.iter().enumerate() {
                let position = attrs.scatter_indices_batching_dims[i] as usize;
                let position = if position > index_vector_dim {
                    position - 1
                } else {
                    position
                };
                target[d as usize] = batch_index[position];
            }
            let fits = target
                .iter()
                .zip(&window_extent)
                .zip(&operand_dims)
                .all(|((&s, &e), &dim)| s >= 0 && s + e <= dim);
            if !fits {
                continue;
            }
            for (k, &d) in window_operand_dims.iter().enumerate() {
                target[d] += update_index[attrs.update_window_dims[k] as usize];
            }
            let at = offset(&target, &operand_dims);
            let mut arguments = Vec::with_capacity(2 * results.len());
            for result in &results {
                arguments.push(Value::Tensor(result.element(at)));
            }
            for update in updates {
                arguments.push(Value::Tensor(update.element(linear)));
            }
            let combined = self.call(combiner, arguments)?;
            let combined = match combined {
                Value::Tuple(elements) => elements,
                single => vec![single],
            };
            for (result, value) in results.iter_mut().zip(combined) {
                let scalar = value.as_tensor().ok_or_else(|| {
                    self.error(instr, "the update computation did not return arrays")
                })?;
                let size = result.element_size();
                result.bytes[at * size..(at + 1) * size].copy_from_slice(&scalar.bytes);
            }
        }
        Ok(if results.len() == 1 {
            Value::Tensor(results.pop().expect("one result"))
        } else {
            Value::Tuple(results.into_iter().map(Value::Tensor).collect())
        })
    }
}

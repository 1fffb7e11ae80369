//! Inference for gather and scatter (XLA's `InferGatherShape` and
//! `InferScatterShape`, with their validation of dimension numbers).
//!
//! Indices are implicitly reshaped: when `index_vector_dim` equals the rank
//! of the indices, they gain a trailing dimension of size 1 (the "expanded"
//! indices below). A gather's output has the index batch dimensions with the
//! slice's offset dimensions at `offset_dims`; gathering a whole dynamic
//! dimension keeps it dynamic. A scatter returns its operands (one as itself,
//! several as a tuple). That `to_apply` reduces operand elements with update
//! elements is the verifier's rule: it does not change the shape.

use crate::attrs::{GatherAttrs, ScatterAttrs};
use crate::element_type::ElementType;
use crate::shape::{Shape, ShapeTable, UNBOUNDED};

use super::reduce::{dims_of, list};
use super::{InferError, InferredShape, shape_text};

/// An error about attribute `attribute`.
fn at(attribute: &'static str, message: String) -> InferError {
    InferError::new(message).at_attribute(attribute)
}

/// An error about operand `operand`.
fn on_operand(operand: usize, message: String) -> InferError {
    InferError::new(message).at_operand(operand)
}

/// Whether `values` is sorted ascending.
fn is_sorted(values: &[i64]) -> bool {
    values.windows(2).all(|w| w[0] <= w[1])
}

/// Whether some value appears twice.
fn has_repeat(values: &[i64]) -> bool {
    values
        .iter()
        .enumerate()
        .any(|(i, v)| values[..i].contains(v))
}

/// The first value outside `[0, bound)`.
fn out_of_range(values: &[i64], bound: usize) -> Option<i64> {
    values.iter().copied().find(|&v| v < 0 || v >= bound as i64)
}

/// Checks a sorted, unique list of operand dimensions, each within `rank`.
fn sorted_operand_dims(
    values: &[i64],
    rank: usize,
    attribute: &'static str,
    op: &str,
) -> Result<(), InferError> {
    if let Some(bad) = out_of_range(values, rank) {
        return Err(at(
            attribute,
            format!("Invalid {attribute} set in {op} op; valid range is [0, {rank}), got: {bad}."),
        ));
    }
    if !is_sorted(values) {
        return Err(at(
            attribute,
            format!(
                "{attribute} in {op} op must be sorted; got: {}",
                list(values)
            ),
        ));
    }
    if has_repeat(values) {
        return Err(at(
            attribute,
            format!(
                "Repeated dimensions not allowed in {attribute} in {op} op; got: {}.",
                list(values)
            ),
        ));
    }
    Ok(())
}

/// Checks index batching dimensions: within the indices' rank, unique, not
/// the index vector dimension, as many as the operand batching dimensions,
/// with matching sizes.
#[allow(clippy::too_many_arguments)]
fn batching_dims(
    indices_batching: &[i64],
    operand_batching: &[i64],
    indices_dims: &[i64],
    operand_dims: &[i64],
    index_vector_dim: i64,
    names: (&'static str, &'static str),
    op: &str,
) -> Result<(), InferError> {
    let (operand_name, indices_name) = names;
    let indices_rank = indices_dims.len();
    if let Some(bad) = out_of_range(indices_batching, indices_rank) {
        return Err(at(
            indices_name,
            format!(
                "Invalid {indices_name} set in {op} op; valid range is [0, {indices_rank}), got: {bad}."
            ),
        ));
    }
    if has_repeat(indices_batching) {
        return Err(at(
            indices_name,
            format!(
                "Repeated dimensions not allowed in {indices_name} in {op} op; got: {}.",
                list(indices_batching)
            ),
        ));
    }
    if indices_batching.contains(&index_vector_dim) {
        return Err(at(
            indices_name,
            format!(
                "{indices_name} in {op} op cannot contain index_vector_dim {index_vector_dim}."
            ),
        ));
    }
    if indices_batching.len() != operand_batching.len() {
        return Err(at(
            indices_name,
            format!(
                "{operand_name} and {indices_name} in {op} op must be of the same size; got: {} and {}.",
                operand_batching.len(),
                indices_batching.len()
            ),
        ));
    }
    for (&o, &i) in operand_batching.iter().zip(indices_batching) {
        let (a, b) = (operand_dims[o as usize], indices_dims[i as usize]);
        if a != b && a != UNBOUNDED && b != UNBOUNDED {
            return Err(at(
                indices_name,
                format!(
                    "{op} op batching dimensions must have the same size: operand dimension {o} has size {a}, indices dimension {i} has size {b}."
                ),
            ));
        }
    }
    Ok(())
}

/// The indices' dimensions with the implicit trailing 1 when
/// `index_vector_dim` is their rank; `None` when it is out of range.
fn expanded(
    dims: &[i64],
    dynamic: &[bool],
    index_vector_dim: i64,
) -> Option<(Vec<i64>, Vec<bool>)> {
    let rank = dims.len() as i64;
    if index_vector_dim < 0 || index_vector_dim > rank {
        return None;
    }
    let (mut dims, mut dynamic) = (dims.to_vec(), dynamic.to_vec());
    if index_vector_dim == rank {
        dims.push(1);
        dynamic.push(false);
    }
    Some((dims, dynamic))
}

/// gather: the index batch dimensions with the slice's offset dimensions at
/// `offset_dims`, once the dimension numbers fit the operand and indices.
pub fn gather(
    shapes: &ShapeTable,
    operand: Shape,
    indices: Shape,
    g: &GatherAttrs,
) -> Result<InferredShape, InferError> {
    let Some((operand_dims, operand_dynamic)) = dims_of(shapes, operand) else {
        return Err(on_operand(
            0,
            format!(
                "Expected array argument for input tensor operand of gather op, but got {}.",
                shape_text(shapes, operand)
            ),
        ));
    };
    let indices_array = shapes.as_array(indices);
    if !indices_array.is_some_and(|a| a.elem.is_integer()) {
        return Err(on_operand(
            1,
            format!(
                "Gather indices parameter must be an integral tensor; got {}.",
                shape_text(shapes, indices)
            ),
        ));
    }
    let Some((indices_dims, indices_dynamic)) = dims_of(shapes, indices) else {
        return Err(on_operand(1, "gather indices are not an array".into()));
    };
    let index_vector_dim = g.index_vector_dim;
    let Some((expanded_dims, expanded_dynamic)) =
        expanded(&indices_dims, &indices_dynamic, index_vector_dim)
    else {
        return Err(at(
            "index_vector_dim",
            format!(
                "Gather index leaf dimension must be within [0, rank(start_indices) + 1). rank(start_indices) is {} and gather index leaf dimension is {index_vector_dim}.",
                indices_dims.len()
            ),
        ));
    };
    let operand_rank = operand_dims.len();
    let batch_count = expanded_dims.len() - 1;
    let output_rank = batch_count + g.offset_dims.len();

    // offset_dims: sorted, unique, within the output.
    if !is_sorted(&g.offset_dims) {
        return Err(at(
            "offset_dims",
            format!(
                "Output window dimensions in gather op must be ascending; got: {}.",
                list(&g.offset_dims)
            ),
        ));
    }
    if has_repeat(&g.offset_dims) {
        return Err(at(
            "offset_dims",
            format!(
                "Output window dimensions in gather op must not repeat; got: {}.",
                list(&g.offset_dims)
            ),
        ));
    }
    if let Some(bad) = out_of_range(&g.offset_dims, output_rank) {
        return Err(at(
            "offset_dims",
            format!(
                "Offset dimension {bad} in gather op is out of bounds; got {bad}, but should have been in [0,{output_rank})."
            ),
        ));
    }
    // start_index_map: one distinct operand dimension per index element.
    let index_vector_size = expanded_dims[index_vector_dim as usize];
    if index_vector_size != UNBOUNDED && g.start_index_map.len() as i64 != index_vector_size {
        return Err(at(
            "start_index_map",
            format!(
                "Gather op has {} elements in start_index_map and the bound of dimension index_vector_dim={index_vector_dim} of start_indices is {index_vector_size}. These two numbers must be equal.",
                g.start_index_map.len()
            ),
        ));
    }
    if let Some((i, &bad)) = g
        .start_index_map
        .iter()
        .enumerate()
        .find(|&(_, &d)| d < 0 || d >= operand_rank as i64)
    {
        return Err(at(
            "start_index_map",
            format!("Invalid start_index_map; domain is [0, {operand_rank}), got: {i}->{bad}."),
        ));
    }
    if has_repeat(&g.start_index_map) {
        return Err(at(
            "start_index_map",
            format!(
                "Repeated dimensions are not allowed in start_index_map; got: {}.",
                list(&g.start_index_map)
            ),
        ));
    }
    sorted_operand_dims(
        &g.collapsed_slice_dims,
        operand_rank,
        "collapsed_slice_dims",
        "gather",
    )?;
    sorted_operand_dims(
        &g.operand_batching_dims,
        operand_rank,
        "operand_batching_dims",
        "gather",
    )?;
    if let Some(d) = g
        .collapsed_slice_dims
        .iter()
        .find(|d| g.operand_batching_dims.contains(d))
    {
        return Err(at(
            "operand_batching_dims",
            format!(
                "collapsed_slice_dims and operand_batching_dims in gather op must be disjoint; both contain {d}."
            ),
        ));
    }
    if let Some(d) = g
        .start_index_map
        .iter()
        .find(|d| g.operand_batching_dims.contains(d))
    {
        return Err(at(
            "operand_batching_dims",
            format!(
                "start_index_map and operand_batching_dims in gather op must be disjoint; both contain {d}."
            ),
        ));
    }
    batching_dims(
        &g.start_indices_batching_dims,
        &g.operand_batching_dims,
        &indices_dims,
        &operand_dims,
        index_vector_dim,
        ("operand_batching_dims", "start_indices_batching_dims"),
        "gather",
    )?;

    // slice_sizes: one per operand dimension, within its bound.
    let sizes = &g.slice_sizes;
    if sizes.len() != operand_rank {
        return Err(at(
            "slice_sizes",
            format!(
                "Gather op must have one slice size for every input dimension; got: len(slice_sizes)={}, input_shape.rank={operand_rank}.",
                sizes.len()
            ),
        ));
    }
    let window_count =
        g.offset_dims.len() + g.collapsed_slice_dims.len() + g.operand_batching_dims.len();
    if sizes.len() != window_count {
        return Err(at(
            "offset_dims",
            format!(
                "All components of the offset index in a gather op must either be a offset dimension or explicitly collapsed/batching; got len(slice_sizes)={}, output_slice_sizes={}, collapsed_slice_dims={}, operand_batching_dims={}.",
                sizes.len(),
                list(&g.offset_dims),
                list(&g.collapsed_slice_dims),
                list(&g.operand_batching_dims)
            ),
        ));
    }
    for (i, (&size, &bound)) in sizes.iter().zip(&operand_dims).enumerate() {
        if size < 0 || (bound != UNBOUNDED && size > bound) {
            return Err(at(
                "slice_sizes",
                format!(
                    "Slice size at index {i} in gather op is out of range, must be within [0, {}), got {size}.",
                    bound.saturating_add(1)
                ),
            ));
        }
    }
    for (position, &d) in g.collapsed_slice_dims.iter().enumerate() {
        let size = sizes[d as usize];
        if size > 1 {
            return Err(at(
                "slice_sizes",
                format!(
                    "Gather op can only collapse slice dims with bound 1, but bound is {size} for index {d} at position {position}."
                ),
            ));
        }
    }
    for (position, &d) in g.operand_batching_dims.iter().enumerate() {
        let size = sizes[d as usize];
        if size > 1 {
            return Err(at(
                "slice_sizes",
                format!(
                    "Gather op can only have operand batching dims with bound 0/1, but bound is {size} for index {d} at position {position}."
                ),
            ));
        }
    }

    // The output: offset dimensions take the kept slice sizes in order;
    // the rest take the index batch dimensions in order.
    let kept: Vec<usize> = (0..operand_rank)
        .filter(|&d| {
            let d = d as i64;
            !g.collapsed_slice_dims.contains(&d) && !g.operand_batching_dims.contains(&d)
        })
        .collect();
    let batch: Vec<usize> = (0..expanded_dims.len())
        .filter(|&d| d as i64 != index_vector_dim)
        .collect();
    let (mut kept_iter, mut batch_iter) = (kept.iter(), batch.iter());
    let mut dims = Vec::with_capacity(output_rank);
    let mut dynamic = Vec::with_capacity(output_rank);
    for i in 0..output_rank {
        if g.offset_dims.contains(&(i as i64)) {
            let Some(&d) = kept_iter.next() else {
                break;
            };
            dims.push(sizes[d]);
            // Gathering a whole dynamic dimension keeps it dynamic.
            dynamic.push(sizes[d] == operand_dims[d] && operand_dynamic[d]);
        } else {
            let Some(&d) = batch_iter.next() else {
                break;
            };
            dims.push(expanded_dims[d]);
            dynamic.push(expanded_dynamic[d]);
        }
    }
    let elem = shapes
        .as_array(operand)
        .map_or(ElementType::F32, |a| a.elem);
    Ok(InferredShape::dynamic_array(elem, dims, dynamic))
}

/// XLA's checks of scatter's operands (`inputs`, `indices`, `updates`) and
/// dimension numbers.
pub fn scatter_operands(
    shapes: &ShapeTable,
    inputs: &[Shape],
    indices: Shape,
    updates: &[Shape],
    s: &ScatterAttrs,
) -> Result<(), InferError> {
    let count = inputs.len();
    let indices_array = shapes.as_array(indices);
    if !indices_array.is_some_and(|a| a.elem.is_integer()) {
        return Err(on_operand(
            count,
            format!(
                "Scatter indices parameter must be an integral tensor; got {}.",
                shape_text(shapes, indices)
            ),
        ));
    }
    let Some((indices_dims, indices_dynamic)) = dims_of(shapes, indices) else {
        return Err(on_operand(count, "scatter indices are not an array".into()));
    };
    let index_vector_dim = s.index_vector_dim;
    let Some((expanded_dims, _)) = expanded(&indices_dims, &indices_dynamic, index_vector_dim)
    else {
        return Err(at(
            "index_vector_dim",
            format!(
                "Scatter index leaf dimension must be within [0, rank(scatter_indices) + 1). rank(scatter_indices) is {} and scatter index leaf dimension is {index_vector_dim}.",
                indices_dims.len()
            ),
        ));
    };
    let mut operand_dims = Vec::new();
    for (i, &input) in inputs.iter().enumerate() {
        let Some((dims, _)) = dims_of(shapes, input) else {
            return Err(on_operand(
                i,
                format!(
                    "Expected array argument for operand of scatter op, but got {}.",
                    shape_text(shapes, input)
                ),
            ));
        };
        if i == 0 {
            operand_dims = dims;
        } else if dims != operand_dims {
            return Err(on_operand(
                i,
                format!(
                    "All scatter inputs must have the same dimensions: {} vs {}.",
                    shape_text(shapes, inputs[0]),
                    shape_text(shapes, input)
                ),
            ));
        }
    }
    let mut update_dims = Vec::new();
    for (i, &update) in updates.iter().enumerate() {
        let Some((dims, _)) = dims_of(shapes, update) else {
            return Err(on_operand(
                count + 1 + i,
                format!(
                    "Expected array argument for updates of scatter op, but got {}.",
                    shape_text(shapes, update)
                ),
            ));
        };
        if i == 0 {
            update_dims = dims;
        } else if dims != update_dims {
            return Err(on_operand(
                count + 1 + i,
                format!(
                    "All scatter updates must have the same dimensions: {} vs {}.",
                    shape_text(shapes, updates[0]),
                    shape_text(shapes, update)
                ),
            ));
        }
    }
    let operand_rank = operand_dims.len();
    let updates_rank = update_dims.len();
    let first_update = count + 1;

    // update_window_dims: sorted, unique, update dimensions.
    let windows = &s.update_window_dims;
    if !is_sorted(windows) {
        return Err(at(
            "update_window_dims",
            format!(
                "update_window_dims in scatter op must be sorted; got: {}.",
                list(windows)
            ),
        ));
    }
    if has_repeat(windows) {
        return Err(at(
            "update_window_dims",
            format!(
                "update_window_dims in scatter op must not repeat; got: {}.",
                list(windows)
            ),
        ));
    }
    if let Some(bad) = out_of_range(windows, updates_rank) {
        return Err(at(
            "update_window_dims",
            format!(
                "Invalid update_window_dims set in scatter op; valid range is [0, {updates_rank}). got: {bad}."
            ),
        ));
    }
    sorted_operand_dims(
        &s.inserted_window_dims,
        operand_rank,
        "inserted_window_dims",
        "scatter",
    )?;
    sorted_operand_dims(
        &s.input_batching_dims,
        operand_rank,
        "input_batching_dims",
        "scatter",
    )?;
    if let Some(d) = s
        .inserted_window_dims
        .iter()
        .find(|d| s.input_batching_dims.contains(d))
    {
        return Err(at(
            "input_batching_dims",
            format!(
                "inserted_window_dims and input_batching_dims in scatter op must be disjoint; both contain {d}."
            ),
        ));
    }
    let window_size = windows.len() + s.inserted_window_dims.len() + s.input_batching_dims.len();
    if window_size != operand_rank {
        return Err(at(
            "update_window_dims",
            format!(
                "Scatter op has window of size {window_size}; doesn't match operand of rank {operand_rank}."
            ),
        )
        .with_hint("update_window_dims, inserted_window_dims and input_batching_dims together cover every operand dimension"));
    }
    // scatter_dims_to_operand_dims: one distinct operand dimension per index.
    let map = &s.scatter_dims_to_operand_dims;
    let index_vector_size = expanded_dims[index_vector_dim as usize];
    if index_vector_size != UNBOUNDED && map.len() as i64 != index_vector_size {
        return Err(at(
            "scatter_dims_to_operand_dims",
            format!(
                "Scatter op has {} elements in scatter_dims_to_operand_dims and the bound of dimension index_vector_dim={index_vector_dim} of scatter_indices is {index_vector_size}. These two numbers must be equal.",
                map.len()
            ),
        ));
    }
    if let Some((i, &bad)) = map
        .iter()
        .enumerate()
        .find(|&(_, &d)| d < 0 || d >= operand_rank as i64)
    {
        return Err(at(
            "scatter_dims_to_operand_dims",
            format!(
                "Invalid scatter_dims_to_operand_dims mapping; domain is [0, {operand_rank}), got: {i}->{bad}."
            ),
        ));
    }
    if has_repeat(map) {
        return Err(at(
            "scatter_dims_to_operand_dims",
            format!(
                "Repeated dimensions not allowed in scatter_dims_to_operand_dims; got: {}.",
                list(map)
            ),
        ));
    }
    if let Some(d) = map.iter().find(|d| s.input_batching_dims.contains(d)) {
        return Err(at(
            "input_batching_dims",
            format!(
                "scatter_dims_to_operand_dims and input_batching_dims in scatter op must be disjoint; both contain {d}."
            ),
        ));
    }
    batching_dims(
        &s.scatter_indices_batching_dims,
        &s.input_batching_dims,
        &indices_dims,
        &operand_dims,
        index_vector_dim,
        ("input_batching_dims", "scatter_indices_batching_dims"),
        "scatter",
    )?;

    // The updates: rank, window bounds within the operand's, scatter bounds
    // equal to the indices'.
    let expected_rank = expanded_dims.len() - 1 + windows.len();
    if updates_rank != expected_rank {
        return Err(on_operand(
            first_update,
            format!("Updates tensor must be of rank {expected_rank}; got {updates_rank}."),
        ));
    }
    let max_sizes: Vec<i64> = (0..operand_rank)
        .filter(|&d| {
            let d = d as i64;
            !s.inserted_window_dims.contains(&d) && !s.input_batching_dims.contains(&d)
        })
        .map(|d| operand_dims[d])
        .collect();
    for (i, (&window_dim, &bound)) in windows.iter().zip(&max_sizes).enumerate() {
        let size = update_dims[window_dim as usize];
        if size != UNBOUNDED && bound != UNBOUNDED && size > bound {
            return Err(on_operand(
                first_update,
                format!(
                    "Bounds of the window dimensions of updates must not exceed the bounds of the corresponding dimensions of operand. For dimension {window_dim}, updates bound is {size}, operand bound is {bound}."
                ),
            )
            .with_hint(format!("window dimension {i} of the updates is larger than the operand's")));
        }
    }
    let mut scatter_dims_seen = 0usize;
    for (i, &size) in update_dims.iter().enumerate() {
        if windows.contains(&(i as i64)) {
            continue;
        }
        if scatter_dims_seen as i64 == index_vector_dim {
            scatter_dims_seen += 1;
        }
        let Some(&bound) = expanded_dims.get(scatter_dims_seen) else {
            break;
        };
        if size != bound && size != UNBOUNDED && bound != UNBOUNDED {
            return Err(on_operand(
                first_update,
                format!(
                    "Bounds of the scatter dimensions of updates must be same as the bounds of the corresponding dimensions of scatter indices. For scatter dimension {i}, updates bound is {size}, scatter_indices bound is {bound}."
                ),
            ));
        }
        scatter_dims_seen += 1;
    }
    Ok(())
}

/// scatter: its operands (the first `N` of `N` operands, the indices and `N`
/// updates), once indices, updates and dimension numbers fit them.
pub fn scatter(
    shapes: &ShapeTable,
    operands: &[Shape],
    attrs: &ScatterAttrs,
) -> Result<InferredShape, InferError> {
    let count = operands.len() / 2;
    if operands.len() != 2 * count + 1 || count == 0 {
        return Err(InferError::new(format!(
            "Invalid argument count of scatter op: Expected {}, saw {}",
            2 * count.max(1) + 1,
            operands.len()
        ))
        .with_hint("scatter takes N operands, the indices, then N updates")
        .at_opcode());
    }
    let inputs = &operands[..count];
    scatter_operands(
        shapes,
        inputs,
        operands[count],
        &operands[count + 1..],
        attrs,
    )?;
    Ok(match inputs {
        [only] => InferredShape::Existing(*only),
        many => InferredShape::tuple_of(many),
    })
}

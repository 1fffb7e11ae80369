//! Inference for collectives and host/peer transfers: all-reduce, all-gather,
//! reduce-scatter, all-to-all, ragged-all-to-all, collective-broadcast,
//! collective-reduce, collective-permute, send/recv and their dones, infeed
//! and outfeed (XLA's `InferAllReduceShape`, `InferAllGatherShape`,
//! `InferReduceScatterShape`, `InferAllToAllTupleShape`,
//! `InferCollectivePermuteShape`, …). The first-class start/done pairs are in
//! [`super::asynchronous`].
//!
//! A collective over several operands returns the tuple of their results; over
//! one, that result itself. XLA passes the shard count of all-gather and
//! reduce-scatter in as an argument (its verifier reads it off the declared
//! result); so do these functions. Replica groups, source-target pairs and
//! group sizes are the verifier's rules: they do not change the shape.

use crate::element_type::ElementType;
use crate::opcode::Opcode;
use crate::shape::{ArrayShape, Shape, ShapeTable, UNBOUNDED};

use super::{InferError, InferredShape, shape_text_with_layout};

/// Operand `index` of a collective as an array; XLA's `ExpectArray` error
/// (naming the operand's role `what`) when it is not one.
pub fn array_operand<'s>(
    shapes: &'s ShapeTable,
    operands: &[Shape],
    index: usize,
    what: &str,
) -> Result<&'s ArrayShape, InferError> {
    let shape = operands[index];
    shapes.as_array(shape).ok_or_else(|| {
        InferError::new(format!(
            "Expected array argument for {what}, but got {}.",
            shape_text_with_layout(shapes, shape)
        ))
        .with_hint("collectives move arrays; pass tuple elements as separate operands")
        .at_operand(index)
    })
}

/// Every operand as an array (the first that is not one is the error).
fn array_operands<'s>(
    shapes: &'s ShapeTable,
    operands: &[Shape],
    what: &str,
) -> Result<Vec<&'s ArrayShape>, InferError> {
    (0..operands.len())
        .map(|i| array_operand(shapes, operands, i, what))
        .collect()
}

/// The operands as the result: one operand is itself, several a tuple
/// (all-reduce, collective-broadcast, collective-reduce, collective-permute).
pub fn forwarded(operands: &[Shape]) -> InferredShape {
    match operands {
        [single] => InferredShape::Existing(*single),
        many => InferredShape::tuple_of(many),
    }
}

/// The `dimensions={d}` of all-gather or reduce-scatter, checked against
/// every operand's rank.
pub fn collective_dimension(
    opcode: Opcode,
    dimension: Option<i64>,
    operands: &[&ArrayShape],
) -> Result<usize, InferError> {
    let Some(dimension) = dimension else {
        return Err(InferError::new(format!(
            "{opcode} needs dimensions={{d}}, the dimension it works along"
        )));
    };
    let rank = operands.iter().map(|a| a.rank()).min().unwrap_or(0);
    match usize::try_from(dimension) {
        Ok(d) if d < rank => Ok(d),
        _ => Err(InferError::new(format!(
            "{opcode} dimension {dimension} is out of bounds for operands of rank {rank}"
        ))
        .with_hint(format!("the dimension must be in 0..{rank}"))
        .at_attribute("dimensions")),
    }
}

/// `array` with dimension `dimension` resized by `resize`; unbounded sizes stay
/// unbounded.
fn resized(array: &ArrayShape, dimension: usize, resize: impl Fn(i64) -> i64) -> InferredShape {
    let mut dims = array.dims.to_vec();
    if let Some(size) = dims.get_mut(dimension)
        && *size != UNBOUNDED
    {
        *size = resize(*size);
    }
    InferredShape::dynamic_array(
        array.elem,
        dims,
        (0..array.rank()).map(|d| array.is_dynamic(d)).collect(),
    )
}

/// all-reduce (and all-reduce-start): the operands.
pub fn all_reduce(shapes: &ShapeTable, operands: &[Shape]) -> Result<InferredShape, InferError> {
    array_operands(shapes, operands, "operand of cross replica sum")?;
    Ok(forwarded(operands))
}

/// all-gather: each operand with dimension `dimension` multiplied by
/// `shard_count`.
pub fn all_gather(
    shapes: &ShapeTable,
    operands: &[Shape],
    dimension: Option<i64>,
    shard_count: i64,
) -> Result<InferredShape, InferError> {
    let arrays = array_operands(shapes, operands, "operand of all-gather")?;
    let dimension = collective_dimension(Opcode::AllGather, dimension, &arrays)?;
    Ok(InferredShape::one_or_tuple(
        arrays
            .iter()
            .map(|a| resized(a, dimension, |size| size.saturating_mul(shard_count)))
            .collect(),
    ))
}

/// reduce-scatter: each operand with dimension `dimension` divided by
/// `shard_count`, which must divide it.
pub fn reduce_scatter(
    shapes: &ShapeTable,
    operands: &[Shape],
    dimension: Option<i64>,
    shard_count: i64,
) -> Result<InferredShape, InferError> {
    let arrays = array_operands(shapes, operands, "operand of reduce-scatter")?;
    let dimension = collective_dimension(Opcode::ReduceScatter, dimension, &arrays)?;
    let mut scattered = Vec::with_capacity(arrays.len());
    for (i, array) in arrays.iter().enumerate() {
        let size = array.dims[dimension];
        // An empty dimension scatters into empty pieces whatever the count
        // (XLA's shard count, read off the result, is 0 then).
        let divides = size == 0 || (shard_count != 0 && size % shard_count == 0);
        if size != UNBOUNDED && !divides {
            return Err(InferError::new(format!(
                "ReduceScatter operand scatter dimension size {size} must be dividable by shard_count {shard_count}."
            ))
            .at_operand(i));
        }
        scattered.push(resized(array, dimension, |s| {
            s.checked_div(shard_count).unwrap_or(0)
        }));
    }
    Ok(InferredShape::one_or_tuple(scattered))
}

/// The shard count XLA's verifier reads off an all-gather's result: the
/// gathered dimension's size over the operand's, rounded up; `None` when the
/// result does not say.
pub fn all_gather_shard_count(input_size: i64, output_size: Option<i64>) -> Option<i64> {
    match output_size {
        Some(output_size) if input_size > 0 && output_size >= 0 => {
            Some((output_size + input_size - 1) / input_size)
        }
        _ => None,
    }
}

/// The shard count XLA's verifier reads off a reduce-scatter's result: the
/// operand's scattered dimension over the result's, rounded up.
pub fn reduce_scatter_shard_count(input_size: i64, output_size: Option<i64>) -> Option<i64> {
    match output_size {
        Some(output_size) if output_size > 0 && input_size >= 0 => {
            Some((input_size + output_size - 1) / output_size)
        }
        _ => None,
    }
}

/// The first result array of a collective over `count` operands: the shape
/// itself for one operand, else the first element of the result tuple.
pub fn first_result_array(shapes: &ShapeTable, result: Shape, count: usize) -> Option<&ArrayShape> {
    if count == 1 {
        shapes.as_array(result)
    } else {
        shapes
            .tuple_elements(result)
            .and_then(|elements| elements.first().copied())
            .and_then(|element| shapes.as_array(element))
    }
}

/// all-to-all: with a split dimension, its one operand (split and
/// concatenated along one dimension, so sizes are kept); without, the tuple
/// of its operands.
pub fn all_to_all(operands: &[Shape], split_dimension: Option<i64>) -> InferredShape {
    match (split_dimension, operands) {
        (Some(_), [single, ..]) => InferredShape::Existing(*single),
        _ => InferredShape::tuple_of(operands),
    }
}

/// ragged-all-to-all: its output buffer, operand 1.
pub fn ragged_all_to_all(
    shapes: &ShapeTable,
    operands: &[Shape],
) -> Result<InferredShape, InferError> {
    if operands.len() < 2 {
        return Err(InferError::new(format!(
            "ragged-all-to-all takes 6 operands, has {}",
            operands.len()
        )));
    }
    array_operand(shapes, operands, 1, "operand 1 of ragged-all-to-all")?;
    Ok(InferredShape::Existing(operands[1]))
}

/// collective-broadcast and collective-reduce: each operand comes back with
/// its own shape. With a dynamic root the last operand holds the roots, not
/// data.
pub fn operands_forwarded(
    shapes: &ShapeTable,
    opcode: Opcode,
    operands: &[Shape],
    dynamic_root: bool,
) -> Result<InferredShape, InferError> {
    array_operands(shapes, operands, &format!("operand of {}", opcode.name()))?;
    let data = match operands.split_last() {
        Some((_, data)) if dynamic_root => data,
        _ => operands,
    };
    if data.is_empty() {
        return Err(InferError::new(
            "With has_dynamic_root, the roots follow at least one data operand.",
        )
        .with_hint("the roots follow the data operands: one group position per result"));
    }
    Ok(forwarded(data))
}

/// collective-permute's `(input, output)`: the in-place form (which carries
/// slice sizes) writes into operand 1; the plain form returns its operands.
pub fn collective_permute_parts(
    shapes: &ShapeTable,
    opcode: Opcode,
    operands: &[Shape],
    in_place: bool,
) -> Result<(InferredShape, InferredShape), InferError> {
    if in_place {
        if operands.len() != 4 {
            return Err(InferError::new(format!(
                "Unexpected number of operands: {}.",
                operands.len()
            ))
            .with_hint(
                "an in-place collective-permute takes input, output, input offsets and output offsets",
            ));
        }
        return Ok((
            InferredShape::Existing(operands[0]),
            InferredShape::Existing(operands[1]),
        ));
    }
    let what = if opcode == Opcode::CollectivePermuteStart {
        "operand of collective-permute-start"
    } else {
        "operand of collective-permute"
    };
    array_operands(shapes, operands, what)?;
    if operands.is_empty() {
        return Err(InferError::new(
            "collective-permute takes at least one operand",
        ));
    }
    Ok((forwarded(operands), forwarded(operands)))
}

/// collective-permute: its output.
pub fn collective_permute(
    shapes: &ShapeTable,
    operands: &[Shape],
    in_place: bool,
) -> Result<InferredShape, InferError> {
    collective_permute_parts(shapes, Opcode::CollectivePermute, operands, in_place)
        .map(|(_, output)| output)
}

fn u32_scalar() -> InferredShape {
    InferredShape::array(ElementType::U32, Vec::new())
}

/// send: `(data, u32[], token[])`.
pub fn send(data: Shape) -> InferredShape {
    InferredShape::Tuple(vec![
        InferredShape::Existing(data),
        u32_scalar(),
        InferredShape::Token,
    ])
}

/// recv of `data`: `(data, u32[], token[])`.
pub fn recv(data: Shape) -> InferredShape {
    send(data)
}

/// recv-done and infeed of `data`: `(data, token[])`.
pub fn data_and_token(data: Shape) -> InferredShape {
    InferredShape::Tuple(vec![InferredShape::Existing(data), InferredShape::Token])
}

/// send-done and outfeed: `token[]`.
pub fn token() -> InferredShape {
    InferredShape::Token
}

/// The data element of a recv-like tuple `shape` (a recv's, a recv-done
/// operand's, an infeed's), or why it has none.
pub fn data_element(shapes: &ShapeTable, shape: Shape, what: &str) -> Result<Shape, InferError> {
    shapes
        .tuple_elements(shape)
        .and_then(|e| e.first().copied())
        .ok_or_else(|| {
            InferError::new(format!(
                "{what} must be a tuple whose element 0 is the data, found {}",
                shape_text_with_layout(shapes, shape)
            ))
        })
}

//! Inference for dot, ragged-dot, scaled-dot and convolution (XLA's
//! `InferDotOpShape`, `InferRaggedDotOpShape` and `InferConvolveShape`).
//!
//! A dot's result is the batch dimensions, then the lhs free dimensions, then
//! the rhs free dimensions (a ragged-dot's rhs group dimension is not free;
//! contracting its ragged dimension adds the groups in front). A
//! convolution's result has the output labels' layout: batch (divided by the
//! batch group count), output features, and the windowed spatial
//! dimensions. Dynamic flags travel with their dimensions. The element type
//! is the preferred one (the declared result's, as XLA's verifier passes
//! it), else the lhs's. Operand precision and the narrowing rule for integer
//! convolutions are the verifier's concern.

use crate::attrs::{ConvolutionAttrs, DotAttrs, WindowDim};
use crate::element_type::ElementType;
use crate::opcode::Opcode;
use crate::shape::{Shape, ShapeTable, UNBOUNDED};

use super::reduce::{dims_of, list, window_output};
use super::{InferError, InferredShape, shape_text};

/// XLA's `CompatibleDimensionSizes`: equal, or one of them unbounded.
pub fn compatible_sizes(a: i64, b: i64) -> bool {
    a == b || a == UNBOUNDED || b == UNBOUNDED
}

/// One operand's dimensions and dynamic flags.
pub struct Side {
    /// The dimension sizes.
    pub dims: Vec<i64>,
    /// Per dimension, whether it is dynamic.
    pub dynamic: Vec<bool>,
}

/// The lhs and rhs as arrays, or XLA's `ExpectArray` error for the first that
/// is not one.
pub fn sides(
    shapes: &ShapeTable,
    opcode: Opcode,
    lhs: Shape,
    rhs: Shape,
) -> Result<[Side; 2], InferError> {
    let read = |index: usize, shape: Shape, what: &str| match dims_of(shapes, shape) {
        Some((dims, dynamic)) => Ok(Side { dims, dynamic }),
        None => Err(InferError::new(format!(
            "Expected array argument for {what} of {opcode}, but got {}.",
            shape_text(shapes, shape)
        ))
        .at_operand(index)),
    };
    Ok([read(0, lhs, "lhs")?, read(1, rhs, "rhs")?])
}

/// XLA's checks of a dot's dimension numbers: in range and unique per
/// operand; as many contracting, and as many batch, dimensions on each side,
/// of compatible sizes pair by pair.
pub fn dot_operands(
    shapes: &ShapeTable,
    opcode: Opcode,
    lhs_shape: Shape,
    rhs_shape: Shape,
    dot: &DotAttrs,
) -> Result<(), InferError> {
    let [lhs, rhs] = sides(shapes, opcode, lhs_shape, rhs_shape)?;
    let lhs_text = shape_text(shapes, lhs_shape);
    let rhs_text = shape_text(shapes, rhs_shape);
    let lists: [(&'static str, &[i64], usize); 6] = [
        ("lhs_contracting_dims", &dot.lhs_contracting, lhs.dims.len()),
        ("lhs_batch_dims", &dot.lhs_batch, lhs.dims.len()),
        ("lhs_ragged_dims", &dot.lhs_ragged, lhs.dims.len()),
        ("rhs_contracting_dims", &dot.rhs_contracting, rhs.dims.len()),
        ("rhs_batch_dims", &dot.rhs_batch, rhs.dims.len()),
        ("rhs_group_dims", &dot.rhs_group, rhs.dims.len()),
    ];
    for (attribute, values, rank) in lists {
        if let Some(&bad) = values.iter().find(|&&d| d < 0 || d >= rank as i64) {
            return Err(InferError::new(format!(
                "A dimension number is out of range in Dot: {attribute}={} ({bad} is not a dimension of {}).",
                list(values),
                if attribute.starts_with("lhs") { &lhs_text } else { &rhs_text }
            ))
            .with_hint(format!(
                "the operands are {lhs_text} {rhs_text}; dimensions count from 0"
            ))
            .at_attribute(attribute));
        }
    }
    let unique = |a: &[i64], b: &[i64]| {
        let all: Vec<i64> = a.iter().chain(b).copied().collect();
        all.iter().enumerate().all(|(i, d)| !all[..i].contains(d))
    };
    for (attribute, contracting, batch) in [
        ("lhs_contracting_dims", &dot.lhs_contracting, &dot.lhs_batch),
        ("rhs_contracting_dims", &dot.rhs_contracting, &dot.rhs_batch),
    ] {
        if !unique(contracting, batch) {
            return Err(InferError::new(format!(
                "A dimension number is not unique in Dot: contracting {} and batch {}.",
                list(contracting),
                list(batch)
            ))
            .with_hint("a dimension is either contracted or a batch dimension, once")
            .at_attribute(attribute));
        }
    }
    let fail = format!("Cannot infer shape for dot operation: {lhs_text} <dot> {rhs_text}.");
    if dot.lhs_contracting.len() != dot.rhs_contracting.len() {
        return Err(InferError::new(format!(
            "{fail} Must specify the same number of contracting dimensions for lhs and rhs."
        ))
        .at_attribute("rhs_contracting_dims"));
    }
    for (&l, &r) in dot.lhs_contracting.iter().zip(&dot.rhs_contracting) {
        let (a, b) = (lhs.dims[l as usize], rhs.dims[r as usize]);
        if !compatible_sizes(a, b) {
            return Err(InferError::new(format!(
                "{fail} Contracting dimension sizes are not compatible."
            ))
            .with_hint(format!(
                "lhs dimension {l} has size {a} but rhs dimension {r} has size {b}"
            ))
            .at_attribute("lhs_contracting_dims"));
        }
    }
    if dot.lhs_batch.len() != dot.rhs_batch.len() {
        return Err(InferError::new(format!(
            "{fail} Must the same number of batch dimensions for lhs and rhs."
        ))
        .at_attribute(if dot.lhs_batch.is_empty() {
            "rhs_batch_dims"
        } else {
            "lhs_batch_dims"
        }));
    }
    for (&l, &r) in dot.lhs_batch.iter().zip(&dot.rhs_batch) {
        let (a, b) = (lhs.dims[l as usize], rhs.dims[r as usize]);
        if !compatible_sizes(a, b) {
            return Err(InferError::new(format!(
                "{fail} Batch dimension sizes are not compatible."
            ))
            .with_hint(format!(
                "lhs dimension {l} has size {a} but rhs dimension {r} has size {b}"
            ))
            .at_attribute("lhs_batch_dims"));
        }
    }
    Ok(())
}

/// dot (and scaled-dot, whose scales do not change the shape): batch, lhs
/// free, rhs free dimensions, of the `preferred` element type (else the
/// lhs's). For a ragged-dot, `groups` is the dimension contracting the
/// ragged dimension adds in front (see [`ragged_dot`]).
pub fn dot(
    shapes: &ShapeTable,
    opcode: Opcode,
    lhs_shape: Shape,
    rhs_shape: Shape,
    dot: &DotAttrs,
    preferred: Option<ElementType>,
) -> Result<InferredShape, InferError> {
    ragged_dot(shapes, opcode, lhs_shape, rhs_shape, dot, None, preferred)
}

/// ragged-dot: as [`dot`], with the rhs group dimension left out and, when
/// the ragged dimension is contracted, `groups` (the group count and whether
/// it is dynamic) in front.
pub fn ragged_dot(
    shapes: &ShapeTable,
    opcode: Opcode,
    lhs_shape: Shape,
    rhs_shape: Shape,
    dot: &DotAttrs,
    groups: Option<(i64, bool)>,
    preferred: Option<ElementType>,
) -> Result<InferredShape, InferError> {
    dot_operands(shapes, opcode, lhs_shape, rhs_shape, dot)?;
    let [lhs, rhs] = sides(shapes, opcode, lhs_shape, rhs_shape)?;
    let mut dims = Vec::new();
    let mut dynamic = Vec::new();
    if let Some((count, is_dynamic)) = groups {
        dims.push(count);
        dynamic.push(is_dynamic);
    }
    for &b in &dot.lhs_batch {
        dims.push(lhs.dims[b as usize]);
        dynamic.push(lhs.dynamic[b as usize]);
    }
    for d in 0..lhs.dims.len() {
        let d64 = d as i64;
        if !dot.lhs_batch.contains(&d64) && !dot.lhs_contracting.contains(&d64) {
            dims.push(lhs.dims[d]);
            dynamic.push(lhs.dynamic[d]);
        }
    }
    for d in 0..rhs.dims.len() {
        let d64 = d as i64;
        if !dot.rhs_batch.contains(&d64)
            && !dot.rhs_contracting.contains(&d64)
            && !dot.rhs_group.contains(&d64)
        {
            dims.push(rhs.dims[d]);
            dynamic.push(rhs.dynamic[d]);
        }
    }
    let lhs_elem = shapes
        .as_array(lhs_shape)
        .map_or(ElementType::F32, |a| a.elem);
    Ok(InferredShape::dynamic_array(
        preferred.unwrap_or(lhs_elem),
        dims,
        dynamic,
    ))
}

/// The window of a convolution (empty when the text gives none).
fn window(convolution: &ConvolutionAttrs) -> &[WindowDim] {
    convolution.window.as_ref().map_or(&[], |w| &w.dims)
}

/// convolution, once its group counts, labels and window fit the operands.
pub fn convolution(
    shapes: &ShapeTable,
    lhs_shape: Shape,
    rhs_shape: Shape,
    convolution: &ConvolutionAttrs,
    preferred: Option<ElementType>,
) -> Result<InferredShape, InferError> {
    let [lhs, rhs] = sides(shapes, Opcode::Convolution, lhs_shape, rhs_shape)?;
    let (lhs, rhs) = (&lhs, &rhs);
    let lhs_text = shape_text(shapes, lhs_shape);
    let rhs_text = shape_text(shapes, rhs_shape);
    let got = format!("got <conv>({lhs_text}, {rhs_text})");
    let feature_groups = convolution.feature_group_count;
    let batch_groups = convolution.batch_group_count;
    if feature_groups <= 0 {
        return Err(InferError::new(format!(
            "feature_group_count must be a positive number, got {feature_groups}"
        ))
        .at_attribute("feature_group_count"));
    }
    if batch_groups <= 0 {
        return Err(InferError::new(format!(
            "batch_group_count must be a positive number, got {batch_groups}"
        ))
        .at_attribute("batch_group_count"));
    }
    if feature_groups > 1 && batch_groups > 1 {
        return Err(InferError::new(format!(
            "both batch_group_count {batch_groups} and feature_group_count {feature_groups} cannot be greater than 1"
        ))
        .at_attribute("batch_group_count"));
    }
    let labels = &convolution.dims;
    let spatial = labels.input_spatial.len();
    let window = window(convolution);
    if window.len() != spatial {
        return Err(InferError::new(format!(
            "Window must have same number of dimensions as dimension numbers: the window has {} but the labels have {spatial} spatial dimensions.",
            window.len()
        ))
        .at_attribute("window"));
    }
    let rank = spatial + 2;
    for (side, (what, text)) in [lhs, rhs]
        .into_iter()
        .zip([("LHS", &lhs_text), ("RHS", &rhs_text)])
    {
        if side.dims.len() != rank {
            return Err(InferError::new(format!(
                "The {what} argument to a convolution should have rank {rank}; {}: {text}.",
                what.to_lowercase()
            ))
            .with_hint(format!("dim_labels give {spatial} spatial dimensions"))
            .at_operand(usize::from(what == "RHS")));
        }
    }
    for (what, numbers) in label_permutations(convolution) {
        if !is_permutation(&numbers, rank) {
            return Err(permutation_error(what, &numbers, rank));
        }
    }
    let at = |side: &Side, d: i64| (side.dims[d as usize], side.dynamic[d as usize]);
    let (input_batch, batch_dynamic) = at(lhs, labels.input_batch);
    let (input_features, _) = at(lhs, labels.input_feature);
    let (kernel_input_features, _) = at(rhs, labels.kernel_input_feature);
    let (kernel_output_features, output_feature_dynamic) = at(rhs, labels.kernel_output_feature);
    let unbounded = |size: i64| size == UNBOUNDED;
    if !unbounded(input_batch) && input_batch % batch_groups != 0 {
        return Err(InferError::new(format!(
            "Expected input batch dimension (value {input_batch}) to be divisible by batch_group_count (value {batch_groups}); {got}"
        ))
        .at_attribute("batch_group_count"));
    }
    if !unbounded(input_features)
        && !unbounded(kernel_input_features)
        && (input_features % feature_groups != 0
            || input_features / feature_groups != kernel_input_features)
    {
        return Err(InferError::new(format!(
            "Expected LHS feature dimension (value {input_features}) to be a multiple of feature_group_count (value {feature_groups}), and LHS feature dimension / feature_group_count = RHS feature dimension (value {kernel_input_features}); {got}"
        ))
        .with_hint("input features = kernel input features * feature_group_count")
        .at_attribute("feature_group_count"));
    }
    if !unbounded(kernel_output_features) && kernel_output_features % feature_groups != 0 {
        return Err(InferError::new(format!(
            "Expected output feature dimension (value {kernel_output_features}) to be divisible by feature_group_count (value {feature_groups}); {got}"
        ))
        .at_attribute("feature_group_count"));
    }
    if !unbounded(kernel_output_features) && kernel_output_features % batch_groups != 0 {
        return Err(InferError::new(format!(
            "Expected output feature dimension size (value {kernel_output_features}) to be a multiple of batch group count {batch_groups}; {got}"
        ))
        .at_attribute("batch_group_count"));
    }
    for (i, (&kernel_dim, window_dim)) in labels.kernel_spatial.iter().zip(window).enumerate() {
        let size = rhs.dims[kernel_dim as usize];
        if !unbounded(size) && size != window_dim.size {
            return Err(InferError::new(format!(
                "Window dimensions do not match RHS shape: window dimension {i} has size {} but kernel dimension {kernel_dim} of {rhs_text} has size {size}.",
                window_dim.size
            ))
            .at_attribute("window"));
        }
    }
    let base: Vec<i64> = labels
        .input_spatial
        .iter()
        .map(|&d| lhs.dims[d as usize])
        .collect();
    let base_dynamic: Vec<bool> = labels
        .input_spatial
        .iter()
        .map(|&d| lhs.dynamic[d as usize])
        .collect();
    let (spatial_sizes, spatial_dynamic) = window_output(window, &base, &base_dynamic)
        .map_err(|message| InferError::new(message).at_attribute("window"))?;
    let mut dims = vec![0; rank];
    let mut dynamic = vec![false; rank];
    dims[labels.output_batch as usize] = if unbounded(input_batch) {
        UNBOUNDED
    } else {
        input_batch / batch_groups
    };
    dynamic[labels.output_batch as usize] = batch_dynamic;
    dims[labels.output_feature as usize] = kernel_output_features;
    dynamic[labels.output_feature as usize] = output_feature_dynamic;
    for (i, &d) in labels.output_spatial.iter().enumerate() {
        dims[d as usize] = spatial_sizes[i];
        dynamic[d as usize] = spatial_dynamic[i];
    }
    let lhs_elem = shapes
        .as_array(lhs_shape)
        .map_or(ElementType::F32, |a| a.elem);
    Ok(InferredShape::dynamic_array(
        preferred.unwrap_or(lhs_elem),
        dims,
        dynamic,
    ))
}

/// The input, kernel and output dimension numbers of a convolution's labels.
pub fn label_permutations(convolution: &ConvolutionAttrs) -> [(&'static str, Vec<i64>); 3] {
    let labels = &convolution.dims;
    [
        (
            "input",
            [labels.input_batch, labels.input_feature]
                .into_iter()
                .chain(labels.input_spatial.iter().copied())
                .collect(),
        ),
        (
            "kernel",
            [labels.kernel_input_feature, labels.kernel_output_feature]
                .into_iter()
                .chain(labels.kernel_spatial.iter().copied())
                .collect(),
        ),
        (
            "output",
            [labels.output_batch, labels.output_feature]
                .into_iter()
                .chain(labels.output_spatial.iter().copied())
                .collect(),
        ),
    ]
}

/// Whether `numbers` name each of `0..rank` once.
fn is_permutation(numbers: &[i64], rank: usize) -> bool {
    let mut sorted = numbers.to_vec();
    sorted.sort_unstable();
    sorted == (0..rank as i64).collect::<Vec<_>>()
}

/// XLA's error for labels that are not a permutation of `rank` dimensions.
pub fn permutation_error(what: &str, numbers: &[i64], rank: usize) -> InferError {
    InferError::new(format!(
        "Convolution requires the {what} dimension numbers to be a permutation of its {rank} dimensions; got: {}.",
        list(numbers)
    ))
    .at_attribute("dim_labels")
}

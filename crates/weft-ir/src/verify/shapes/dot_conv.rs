//! Shape rules of dot, ragged-dot, scaled-dot and convolution (XLA's
//! `InferDotOpShape`, `InferRaggedDotOpShape`, `InferConvolveShape` and the
//! `ShapeVerifier` checks around them).
//!
//! Invariants the rules establish, as XLA does:
//! - dot dimension numbers are in range and unique per operand; lhs and rhs
//!   name as many batch as contracting dimensions each, with equal sizes pair
//!   by pair (an unbounded `?` size matches anything);
//! - a dot's result is the batch dimensions, then the lhs free dimensions,
//!   then the rhs free dimensions, dynamic flags carried along;
//! - a convolution's labels name every dimension of each operand once, its
//!   window has one dimension per spatial dimension whose sizes are the
//!   kernel's, and the group counts divide the dimensions they split;
//! - the result element type is free (XLA's preferred element type), except
//!   that an integer convolution may not narrow it.
//!
//! Sparse dots (`sparsity=`) are not represented in the IR and not checked.

use crate::attrs::{ConvolutionAttrs, DotAttrs, Precision, WindowDim};
use crate::element_type::ElementType;
use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::UNBOUNDED;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;
use crate::verify::expected::Expected;

use super::reduce::{dims_of, human, list, window_output};

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    match &cx.data(instr).attrs {
        crate::attrs::Attrs::Dot(dot) => check_dot(cx, instr, dot),
        crate::attrs::Attrs::Convolution(convolution) => check_convolution(cx, instr, convolution),
        _ => {}
    }
}

/// XLA's `CompatibleDimensionSizes`: equal, or one of them unbounded.
fn compatible_sizes(a: i64, b: i64) -> bool {
    a == b || a == UNBOUNDED || b == UNBOUNDED
}

/// The element type the result is declared with, or `fallback`.
fn declared_type(cx: &Checker, instr: Instr, fallback: ElementType) -> ElementType {
    cx.array_of(instr).map_or(fallback, |a| a.elem)
}

// ----- dot -----

/// One operand's dimensions as a dot sees them.
struct Side {
    dims: Vec<i64>,
    dynamic: Vec<bool>,
}

/// The first two operands and their dimensions, when both are arrays;
/// otherwise reports the first that is not (as XLA words it).
fn array_sides(cx: &mut Checker, rule: Rule, instr: Instr) -> Option<(Instr, Instr, [Side; 2])> {
    let data = cx.data(instr);
    let opcode = data.opcode;
    let (&lhs, &rhs) = (data.operands.first()?, data.operands.get(1)?);
    let mut read = |index: usize, operand: Instr, what: &str| match dims_of(cx, operand) {
        Some((dims, dynamic)) => Some(Side { dims, dynamic }),
        None => {
            let shape = human(cx, cx.shape_of(operand));
            cx.report(
                rule,
                instr,
                format!("Expected array argument for {what} of {opcode}, but got {shape}."),
            )
            .at_operand(index);
            None
        }
    };
    let lhs_side = read(0, lhs, "lhs")?;
    let rhs_side = read(1, rhs, "rhs")?;
    Some((lhs, rhs, [lhs_side, rhs_side]))
}

fn check_dot(cx: &mut Checker, instr: Instr, dot: &DotAttrs) {
    let rule = Rule::Dot;
    let data = cx.data(instr);
    let opcode = data.opcode;
    let Some((lhs_instr, rhs_instr, sides)) = array_sides(cx, rule, instr) else {
        return;
    };
    let (lhs, rhs) = (&sides[0], &sides[1]);
    let lhs_text = human(cx, cx.shape_of(lhs_instr));
    let rhs_text = human(cx, cx.shape_of(rhs_instr));

    // Every dimension number in range, and unique per operand.
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
            let shapes = format!("{lhs_text} {rhs_text}");
            cx.report(
                rule,
                instr,
                format!(
                    "A dimension number is out of range in Dot: {attribute}={} ({bad} is not a dimension of {}).",
                    list(values),
                    if attribute.starts_with("lhs") { &lhs_text } else { &rhs_text }
                ),
            )
            .with_hint(format!("the operands are {shapes}; dimensions count from 0"))
            .at_attribute(attribute);
            return;
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
            cx.report(
                rule,
                instr,
                format!(
                    "A dimension number is not unique in Dot: contracting {} and batch {}.",
                    list(contracting),
                    list(batch)
                ),
            )
            .with_hint("a dimension is either contracted or a batch dimension, once")
            .at_attribute(attribute);
            return;
        }
    }

    let fail = format!("Cannot infer shape for dot operation: {lhs_text} <dot> {rhs_text}.");
    if dot.lhs_contracting.len() != dot.rhs_contracting.len() {
        cx.report(
            rule,
            instr,
            format!(
                "{fail} Must specify the same number of contracting dimensions for lhs and rhs."
            ),
        )
        .at_attribute("rhs_contracting_dims");
        return;
    }
    for (&l, &r) in dot.lhs_contracting.iter().zip(&dot.rhs_contracting) {
        let (a, b) = (lhs.dims[l as usize], rhs.dims[r as usize]);
        if !compatible_sizes(a, b) {
            cx.report(
                rule,
                instr,
                format!("{fail} Contracting dimension sizes are not compatible."),
            )
            .with_hint(format!(
                "lhs dimension {l} has size {a} but rhs dimension {r} has size {b}"
            ))
            .at_attribute("lhs_contracting_dims");
            return;
        }
    }
    if dot.lhs_batch.len() != dot.rhs_batch.len() {
        cx.report(
            rule,
            instr,
            format!("{fail} Must the same number of batch dimensions for lhs and rhs."),
        )
        .at_attribute(if dot.lhs_batch.is_empty() {
            "rhs_batch_dims"
        } else {
            "lhs_batch_dims"
        });
        return;
    }
    for (&l, &r) in dot.lhs_batch.iter().zip(&dot.rhs_batch) {
        let (a, b) = (lhs.dims[l as usize], rhs.dims[r as usize]);
        if !compatible_sizes(a, b) {
            cx.report(
                rule,
                instr,
                format!("{fail} Batch dimension sizes are not compatible."),
            )
            .with_hint(format!(
                "lhs dimension {l} has size {a} but rhs dimension {r} has size {b}"
            ))
            .at_attribute("lhs_batch_dims");
            return;
        }
    }
    if !check_precision(cx, rule, instr, &dot.precision, "Dot") {
        return;
    }

    // Batch dimensions, then lhs free, then rhs free (minus ragged groups).
    let mut dims = Vec::new();
    let mut dynamic = Vec::new();
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
    let lhs_elem = cx.array_of(lhs_instr).map_or(ElementType::F32, |a| a.elem);
    match opcode {
        Opcode::RaggedDot => {
            let Some(groups) = check_ragged(cx, instr, dot, rhs) else {
                return;
            };
            if let Some((count, is_dynamic)) = groups {
                dims.insert(0, count);
                dynamic.insert(0, is_dynamic);
            }
        }
        Opcode::ScaledDot if !check_scales(cx, instr, &sides) => return,
        _ => {}
    }
    // XLA passes the declared element type as the preferred one, so any
    // result type is accepted.
    let elem = declared_type(cx, instr, lhs_elem);
    cx.expect_shape(rule, instr, &Expected::dynamic_array(elem, dims, dynamic));
}

/// `operand_precision` has one entry per lhs and rhs; packed nibbles come
/// in pairs on 8-bit integers. Returns whether it is valid.
fn check_precision(
    cx: &mut Checker,
    rule: Rule,
    instr: Instr,
    precision: &[Precision],
    what: &str,
) -> bool {
    let operands = &cx.data(instr).operands;
    if !precision.is_empty() && precision.len() != 2 && precision.len() != operands.len() {
        cx.report(
            rule,
            instr,
            format!(
                "operand_precision has {} entries; {what} takes one per lhs and rhs (2)",
                precision.len()
            ),
        )
        .at_attribute("operand_precision");
        return false;
    }
    let nibbles = precision
        .iter()
        .filter(|&&p| p == Precision::PackedNibble)
        .count();
    if nibbles == 1 {
        cx.report(
            rule,
            instr,
            format!("{what} cannot have a single packed nibble argument"),
        )
        .with_hint("packed_nibble applies to both operands or to neither")
        .at_attribute("operand_precision");
        return false;
    }
    if nibbles == 2 {
        for (index, side) in ["LHS", "RHS"].into_iter().enumerate() {
            let Some(&operand) = operands.get(index) else {
                continue;
            };
            let is_byte_integer = cx
                .array_of(operand)
                .is_some_and(|a| a.elem.is_integer() && a.elem.bit_width() == 8);
            if !is_byte_integer {
                let shape = human(cx, cx.shape_of(operand));
                cx.report(
                    rule,
                    instr,
                    format!(
                        "Packed nibble precision can only apply to 8 bit integers. {side} is {shape}."
                    ),
                )
                .at_operand(index);
                return false;
            }
        }
    }
    true
}

/// Ragged-dot's extra rules: one lhs ragged dimension; when it is a free
/// (non-contracting, non-batch) dimension the rhs has one group dimension
/// whose size is the number of groups; otherwise the rhs has none. The
/// group sizes are an integer array whose last dimension counts the groups.
/// Returns `None` after reporting, else the dimension the result gains in
/// front (the groups, when the ragged dimension is contracted).
fn check_ragged(
    cx: &mut Checker,
    instr: Instr,
    dot: &DotAttrs,
    rhs: &Side,
) -> Option<Option<(i64, bool)>> {
    let rule = Rule::Dot;
    let group_sizes = *cx.data(instr).operands.get(2)?;
    let group_array = cx.array_of(group_sizes);
    let Some((group_dims, group_dynamic)) = group_array
        .filter(|a| a.elem.is_integer() && a.rank() >= 1)
        .and_then(|_| dims_of(cx, group_sizes))
    else {
        let shape = human(cx, cx.shape_of(group_sizes));
        cx.report(
            rule,
            instr,
            format!("ragged-dot group_sizes must be an integer array of rank >= 1, got {shape}."),
        )
        .at_operand(2);
        return None;
    };
    let groups = group_dims[group_dims.len() - 1];
    let groups_dynamic = group_dynamic[group_dynamic.len() - 1];
    let [ragged] = dot.lhs_ragged[..] else {
        cx.report(
            rule,
            instr,
            format!(
                "ragged-dot must have exactly one lhs ragged dimension, has {}.",
                dot.lhs_ragged.len()
            ),
        )
        .at_attribute("lhs_ragged_dims");
        return None;
    };
    let free = !dot.lhs_contracting.contains(&ragged) && !dot.lhs_batch.contains(&ragged);
    if free {
        let [group] = dot.rhs_group[..] else {
            cx.report(
                rule,
                instr,
                format!(
                    "ragged-dot with a non-contracting lhs ragged dimension must have exactly one rhs group dimension, has {}.",
                    dot.rhs_group.len()
                ),
            )
            .at_attribute("rhs_group_dims");
            return None;
        };
        if dot.rhs_contracting.contains(&group) || dot.rhs_batch.contains(&group) {
            cx.report(
                rule,
                instr,
                format!("rhs group dimension {group} cannot be a contracting or batch dimension."),
            )
            .at_attribute("rhs_group_dims");
            return None;
        }
        let size = rhs.dims[group as usize];
        if !compatible_sizes(size, groups) {
            cx.report(
                rule,
                instr,
                format!(
                    "rhs group dimension {group} has size {size} but group_sizes has {groups} groups."
                ),
            )
            .at_attribute("rhs_group_dims");
            return None;
        }
        return Some(None);
    }
    if !dot.rhs_group.is_empty() {
        cx.report(
            rule,
            instr,
            "ragged-dot with a contracting or batch lhs ragged dimension cannot have rhs group dimensions.",
        )
        .at_attribute("rhs_group_dims");
        return None;
    }
    if dot.lhs_contracting.contains(&ragged) {
        Some(Some((groups, groups_dynamic)))
    } else {
        Some(None)
    }
}

/// Scaled-dot's scales: each is a scalar, or has its operand's rank with
/// every dimension dividing the operand's (one scale per block).
fn check_scales(cx: &mut Checker, instr: Instr, sides: &[Side]) -> bool {
    let operands = cx.data(instr).operands.clone();
    for (index, side) in sides.iter().enumerate() {
        let Some(&scale) = operands.get(index + 2) else {
            continue;
        };
        let Some((dims, _)) = dims_of(cx, scale) else {
            continue;
        };
        let fits = dims.is_empty()
            || (dims.len() == side.dims.len()
                && dims.iter().zip(&side.dims).all(|(&s, &o)| {
                    s == UNBOUNDED || o == UNBOUNDED || (s > 0 && o % s == 0) || (s == 0 && o == 0)
                }));
        if !fits {
            let (scale_text, operand_text) = (
                human(cx, cx.shape_of(scale)),
                human(cx, cx.shape_of(operands[index])),
            );
            cx.report(
                Rule::Dot,
                instr,
                format!(
                    "scaled-dot scale {scale_text} does not fit operand {operand_text}: it needs the operand's rank, each dimension dividing the operand's"
                ),
            )
            .at_operand(index + 2);
            return false;
        }
    }
    true
}

// ----- convolution -----

fn check_convolution(cx: &mut Checker, instr: Instr, convolution: &ConvolutionAttrs) {
    let rule = Rule::Convolution;
    let Some((lhs_instr, rhs_instr, sides)) = array_sides(cx, rule, instr) else {
        return;
    };
    let (lhs, rhs) = (&sides[0], &sides[1]);
    let lhs_text = human(cx, cx.shape_of(lhs_instr));
    let rhs_text = human(cx, cx.shape_of(rhs_instr));
    let got = format!("got <conv>({lhs_text}, {rhs_text})");
    let feature_groups = convolution.feature_group_count;
    let batch_groups = convolution.batch_group_count;
    if feature_groups <= 0 {
        cx.report(
            rule,
            instr,
            format!("feature_group_count must be a positive number, got {feature_groups}"),
        )
        .at_attribute("feature_group_count");
        return;
    }
    if batch_groups <= 0 {
        cx.report(
            rule,
            instr,
            format!("batch_group_count must be a positive number, got {batch_groups}"),
        )
        .at_attribute("batch_group_count");
        return;
    }
    if feature_groups > 1 && batch_groups > 1 {
        cx.report(
            rule,
            instr,
            format!(
                "both batch_group_count {batch_groups} and feature_group_count {feature_groups} cannot be greater than 1"
            ),
        )
        .at_attribute("batch_group_count");
        return;
    }
    let labels = &convolution.dims;
    let spatial = labels.input_spatial.len();
    let window: &[WindowDim] = convolution.window.as_ref().map_or(&[], |w| &w.dims);
    if window.len() != spatial {
        cx.report(
            rule,
            instr,
            format!(
                "Window must have same number of dimensions as dimension numbers: the window has {} but the labels have {spatial} spatial dimensions.",
                window.len()
            ),
        )
        .at_attribute("window");
        return;
    }
    let rank = spatial + 2;
    for (side, (what, text)) in [lhs, rhs]
        .into_iter()
        .zip([("LHS", &lhs_text), ("RHS", &rhs_text)])
    {
        if side.dims.len() != rank {
            cx.report(
                rule,
                instr,
                format!(
                    "The {what} argument to a convolution should have rank {rank}; {}: {text}.",
                    what.to_lowercase()
                ),
            )
            .with_hint(format!("dim_labels give {spatial} spatial dimensions"))
            .at_operand(usize::from(what == "RHS"));
            return;
        }
    }
    let output_rank = cx.array_of(instr).map_or(rank, |a| a.rank());
    let permutations: [(&str, Vec<i64>); 3] = [
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
    ];
    for (what, numbers) in &permutations {
        let mut sorted = numbers.clone();
        sorted.sort_unstable();
        if sorted != (0..rank as i64).collect::<Vec<_>>()
            || (*what == "output" && output_rank != rank)
        {
            cx.report(
                rule,
                instr,
                format!(
                    "Convolution requires the {what} dimension numbers to be a permutation of its {rank} dimensions; got: {}.",
                    list(numbers)
                ),
            )
            .at_attribute("dim_labels");
            return;
        }
    }
    let at = |side: &Side, d: i64| (side.dims[d as usize], side.dynamic[d as usize]);
    let (input_batch, batch_dynamic) = at(lhs, labels.input_batch);
    let (input_features, _) = at(lhs, labels.input_feature);
    let (kernel_input_features, _) = at(rhs, labels.kernel_input_feature);
    let (kernel_output_features, output_feature_dynamic) = at(rhs, labels.kernel_output_feature);
    let unbounded = |size: i64| size == UNBOUNDED;
    if !unbounded(input_batch) && input_batch % batch_groups != 0 {
        cx.report(
            rule,
            instr,
            format!(
                "Expected input batch dimension (value {input_batch}) to be divisible by batch_group_count (value {batch_groups}); {got}"
            ),
        )
        .at_attribute("batch_group_count");
        return;
    }
    if !unbounded(input_features)
        && !unbounded(kernel_input_features)
        && (input_features % feature_groups != 0
            || input_features / feature_groups != kernel_input_features)
    {
        cx.report(
            rule,
            instr,
            format!(
                "Expected LHS feature dimension (value {input_features}) to be a multiple of feature_group_count (value {feature_groups}), and LHS feature dimension / feature_group_count = RHS feature dimension (value {kernel_input_features}); {got}"
            ),
        )
        .with_hint("input features = kernel input features * feature_group_count")
        .at_attribute("feature_group_count");
        return;
    }
    if !unbounded(kernel_output_features) && kernel_output_features % feature_groups != 0 {
        cx.report(
            rule,
            instr,
            format!(
                "Expected output feature dimension (value {kernel_output_features}) to be divisible by feature_group_count (value {feature_groups}); {got}"
            ),
        )
        .at_attribute("feature_group_count");
        return;
    }
    if !unbounded(kernel_output_features) && kernel_output_features % batch_groups != 0 {
        cx.report(
            rule,
            instr,
            format!(
                "Expected output feature dimension size (value {kernel_output_features}) to be a multiple of batch group count {batch_groups}; {got}"
            ),
        )
        .at_attribute("batch_group_count");
        return;
    }
    for (i, (&kernel_dim, window_dim)) in labels.kernel_spatial.iter().zip(window).enumerate() {
        let size = rhs.dims[kernel_dim as usize];
        if !unbounded(size) && size != window_dim.size {
            cx.report(
                rule,
                instr,
                format!(
                    "Window dimensions do not match RHS shape: window dimension {i} has size {} but kernel dimension {kernel_dim} of {rhs_text} has size {size}.",
                    window_dim.size
                ),
            )
            .at_attribute("window");
            return;
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
    let (spatial_sizes, spatial_dynamic) = match window_output(window, &base, &base_dynamic) {
        Ok(output) => output,
        Err(message) => {
            cx.report(rule, instr, message).at_attribute("window");
            return;
        }
    };
    if !check_precision(cx, rule, instr, &convolution.precision, "Convolution") {
        return;
    }
    let lhs_elem = cx.array_of(lhs_instr).map_or(ElementType::F32, |a| a.elem);
    let rhs_elem = cx.array_of(rhs_instr).map_or(ElementType::F32, |a| a.elem);
    let elem = declared_type(cx, instr, lhs_elem);
    // XLA's MaybeUpcast: an integer convolution may widen its result type but
    // not narrow it; floating-point results are free.
    if lhs_elem == rhs_elem
        && !lhs_elem.is_float()
        && elem != lhs_elem
        && elem.bit_width() < lhs_elem.bit_width()
    {
        cx.report(
            rule,
            instr,
            "`preferred_element_type` must not be narrower than the original type.",
        )
        .with_hint(format!(
            "the operands are {lhs_elem}; the result type needs at least {} bits",
            lhs_elem.bit_width()
        ));
        return;
    }
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
    cx.expect_shape(rule, instr, &Expected::dynamic_array(elem, dims, dynamic));
}

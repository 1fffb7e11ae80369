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
//!
//! The inferred shapes, and the checks inference makes, come from
//! [`crate::infer::dot_conv`].

use crate::attrs::{ConvolutionAttrs, DotAttrs, Precision};
use crate::element_type::ElementType;
use crate::infer::{self, dot_conv::Side};
use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::UNBOUNDED;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

use super::reduce::{dims_of, human};

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    match &cx.data(instr).attrs {
        crate::attrs::Attrs::Dot(dot) => check_dot(cx, instr, dot),
        crate::attrs::Attrs::Convolution(convolution) => check_convolution(cx, instr, convolution),
        _ => {}
    }
}

use crate::infer::dot_conv::compatible_sizes;

/// The element type the result is declared with, or `fallback`.
fn declared_type(cx: &Checker, instr: Instr, fallback: ElementType) -> ElementType {
    cx.array_of(instr).map_or(fallback, |a| a.elem)
}

// ----- dot -----

/// The first two operands and their dimensions, when both are arrays;
/// otherwise reports the first that is not (as XLA words it).
fn array_sides(cx: &mut Checker, rule: Rule, instr: Instr) -> Option<(Instr, Instr, [Side; 2])> {
    let data = cx.data(instr);
    let (&lhs, &rhs) = (data.operands.first()?, data.operands.get(1)?);
    let sides = infer::dot_conv::sides(
        &cx.m.shapes,
        data.opcode,
        cx.shape_of(lhs),
        cx.shape_of(rhs),
    );
    match sides {
        Ok(sides) => Some((lhs, rhs, sides)),
        Err(error) => {
            cx.report_inference(rule, instr, error);
            None
        }
    }
}

fn check_dot(cx: &mut Checker, instr: Instr, dot: &DotAttrs) {
    let rule = Rule::Dot;
    let data = cx.data(instr);
    let opcode = data.opcode;
    let Some((lhs_instr, rhs_instr, sides)) = array_sides(cx, rule, instr) else {
        return;
    };
    let (lhs, rhs) = (cx.shape_of(lhs_instr), cx.shape_of(rhs_instr));
    let shapes = &cx.m.shapes;
    if let Err(error) = infer::dot_conv::dot_operands(shapes, opcode, lhs, rhs, dot) {
        cx.report_inference(rule, instr, error);
        return;
    }
    if !check_precision(cx, rule, instr, &dot.precision, "Dot") {
        return;
    }
    let mut groups = None;
    match opcode {
        Opcode::RaggedDot => {
            let Some(ragged_groups) = check_ragged(cx, instr, dot, &sides[1]) else {
                return;
            };
            groups = ragged_groups;
        }
        Opcode::ScaledDot if !check_scales(cx, instr, &sides) => return,
        _ => {}
    }
    // XLA passes the declared element type as the preferred one, so any
    // result type is accepted.
    let preferred = cx.array_of(instr).map(|a| a.elem);
    let inferred = infer::dot_conv::ragged_dot(shapes, opcode, lhs, rhs, dot, groups, preferred);
    match inferred {
        Ok(inferred) => {
            cx.expect_shape(rule, instr, &inferred);
        }
        Err(error) => cx.report_inference(rule, instr, error),
    }
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
    let Some((lhs_instr, rhs_instr, _)) = array_sides(cx, rule, instr) else {
        return;
    };
    let (lhs, rhs) = (cx.shape_of(lhs_instr), cx.shape_of(rhs_instr));
    let preferred = cx.array_of(instr).map(|a| a.elem);
    let inferred =
        match infer::dot_conv::convolution(&cx.m.shapes, lhs, rhs, convolution, preferred) {
            Ok(inferred) => inferred,
            Err(error) => {
                cx.report_inference(rule, instr, error);
                return;
            }
        };
    // The output labels must also fit the declared result.
    let rank = convolution.dims.input_spatial.len() + 2;
    if cx.array_of(instr).is_some_and(|a| a.rank() != rank) {
        let [_, _, (what, numbers)] = infer::dot_conv::label_permutations(convolution);
        let error = infer::dot_conv::permutation_error(what, &numbers, rank);
        cx.report_inference(rule, instr, error);
        return;
    }
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
    cx.expect_shape(rule, instr, &inferred);
}

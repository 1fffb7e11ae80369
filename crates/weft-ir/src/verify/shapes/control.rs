//! Shape rules of control flow and plumbing: while, conditional, call, fusion,
//! tuple, get-tuple-element, opt-barrier, add-dependency, after-all, domain,
//! parameter and constant (XLA's `ShapeVerifier` handlers of the same names).
//!
//! Invariants checked:
//! - a while's body and condition take one parameter of the loop state (the
//!   operand's shape); the condition returns `pred[]`; the body returns the loop
//!   state, and so does the while;
//! - a conditional's selector is a `pred[]` with two branches or an `s32[]` with
//!   one or more; branch `j` takes one parameter shaped like operand `j + 1`, and
//!   every branch returns the conditional's shape;
//! - a call's and a fusion's callee takes parameters shaped like the operands and
//!   returns the instruction's shape; fusion aliasing names valid indices of
//!   compatible shapes;
//! - tuple, get-tuple-element, opt-barrier, add-dependency (whose second operand
//!   is a token), after-all (a token) and domain forward shapes as XLA infers
//!   them;
//! - a parameter is its computation's parameter of that number; a constant's
//!   literal has the declared shape, layouts aside.
//!
//! Callee problems are reported under [`Rule::CalleeSignature`] at the
//! attribute naming the callee; result-shape problems under the opcode family's
//! rule. Callee counts and operand counts are the handles stage's concern: a rule
//! that finds an unexpected count returns without guessing.
//!
//! The inferred shapes, and the checks inference makes, come from
//! [`crate::infer::control`].

use crate::attrs::{Attrs, OutputOperandAlias};
use crate::element_type::ElementType;
use crate::infer::{self, InferredShape, Signature};
use crate::module::{Comp, Instr};
use crate::opcode::Opcode;
use crate::shape::{Shape, ShapeData};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    match cx.data(instr).opcode {
        Opcode::While => check_while(cx, instr),
        Opcode::Conditional => check_conditional(cx, instr),
        Opcode::Call => check_call(cx, instr),
        Opcode::Fusion => check_fusion(cx, instr),
        Opcode::Tuple => check_tuple(cx, instr),
        Opcode::GetTupleElement => check_get_tuple_element(cx, instr),
        Opcode::OptimizationBarrier | Opcode::Domain => check_forwarding(cx, instr),
        Opcode::AddDependency => check_add_dependency(cx, instr),
        Opcode::AfterAll => check_after_all(cx, instr),
        Opcode::Parameter => check_parameter(cx, instr),
        Opcode::Constant => check_constant(cx, instr),
        _ => {}
    }
}

/// `inferred` with every layout dropped, for the opcodes XLA compares with
/// `only_compare_minor_to_major_in_layout` (memory spaces and tiles may
/// differ between the declared and the inferred shape): existing arrays
/// become arrays of their element type, dimensions and dynamic flags.
pub(super) fn without_layout(cx: &Checker, inferred: &InferredShape) -> InferredShape {
    match inferred {
        InferredShape::Existing(shape) => match cx.shape(*shape) {
            ShapeData::Array(array) => InferredShape::like(array, array.elem),
            ShapeData::Tuple(elements) => InferredShape::Tuple(
                elements
                    .iter()
                    .map(|&e| without_layout(cx, &InferredShape::Existing(e)))
                    .collect(),
            ),
            ShapeData::Token => InferredShape::Token,
            ShapeData::Opaque | ShapeData::Buffer(_) => inferred.clone(),
        },
        InferredShape::Retyped { .. } => {
            let (elem, dims, dynamic) = inferred
                .array_parts(&cx.m.shapes)
                .expect("a retyped shape is an array");
            InferredShape::dynamic_array(elem, dims, dynamic)
        }
        InferredShape::Tuple(elements) => {
            InferredShape::Tuple(elements.iter().map(|e| without_layout(cx, e)).collect())
        }
        InferredShape::Array { .. } | InferredShape::Token => inferred.clone(),
    }
}

fn is_scalar_pred(cx: &Checker, shape: Shape) -> bool {
    cx.array(shape)
        .is_some_and(|a| a.elem == ElementType::Pred && a.rank() == 0)
}

/// XLA's `CheckParameterCount`: reports and returns false when `callee` does not
/// take `expected` parameters.
fn check_parameter_count(
    cx: &mut Checker,
    instr: Instr,
    callee: Comp,
    expected: usize,
    attribute: &'static str,
) -> bool {
    let count = cx.m.comps[callee].params.len();
    if count == expected {
        return true;
    }
    let callee_name = cx.m.comps[callee].name.clone();
    let opcode = cx.data(instr).opcode;
    let message = format!(
        "Expected computation %{callee_name} called from {} to have {expected} parameters, has {count}",
        cx.name(instr)
    );
    cx.report(Rule::CalleeSignature, instr, message)
        .with_hint(format!(
            "a {opcode} passes %{callee_name} {expected} argument(s)"
        ))
        .at_attribute(attribute);
    false
}

/// XLA's `CheckOperandAndParameter`: operand `operand` of `instr` must have the
/// shape of parameter `parameter` of `callee`.
fn check_operand_and_parameter(
    cx: &mut Checker,
    instr: Instr,
    operand: usize,
    callee: Comp,
    parameter: usize,
    attribute: &'static str,
) {
    let Some(&operand_instr) = cx.data(instr).operands.get(operand) else {
        return;
    };
    let Some(&parameter_instr) = cx.m.comps[callee].params.get(parameter) else {
        return;
    };
    let (operand_shape, parameter_shape) =
        (cx.shape_of(operand_instr), cx.shape_of(parameter_instr));
    if cx.same(operand_shape, parameter_shape) {
        return;
    }
    let message = format!(
        "Operand {operand} shape {} does not match parameter {parameter} shape {} of %{}",
        cx.text(operand_shape),
        cx.text(parameter_shape),
        cx.m.comps[callee].name
    );
    cx.report(Rule::CalleeSignature, instr, message)
        .with_hint(format!(
            "the operand and the callee's parameter must have the same shape (callee named by {attribute}=)"
        ))
        .at_operand(operand);
}

fn check_while(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    // The printer's order: callees[0] is the body, callees[1] the condition.
    let (&[body, condition], &[operand]) = (&*data.callees, data.operands.as_slice()) else {
        return;
    };
    let state = cx.shape_of(operand);
    if check_parameter_count(cx, instr, body, 1, "body") {
        check_operand_and_parameter(cx, instr, 0, body, 0, "body");
    }
    if check_parameter_count(cx, instr, condition, 1, "condition") {
        check_operand_and_parameter(cx, instr, 0, condition, 0, "condition");
    }
    if let Some(root) = cx.root_shape(condition)
        && !is_scalar_pred(cx, root)
    {
        let message = format!(
            "Conditional computation shape does not lead to a scalar predicate shape: {}",
            cx.text(root)
        );
        cx.report(Rule::CalleeSignature, instr, message)
            .with_hint("a while condition must return pred[]")
            .at_attribute("condition");
    }
    // The body's result feeds the next iteration, so it must be the loop state;
    // checking that here (rather than the while against the body root, as XLA
    // does) reports a wrong body once, at the body.
    if let Some(root) = cx.root_shape(body)
        && !cx.same(root, state)
    {
        let message = format!(
            "while body must return the loop state {}, but %{} returns {}",
            cx.text(state),
            cx.m.comps[body].name,
            cx.text(root)
        );
        cx.report(Rule::CalleeSignature, instr, message)
            .with_hint("the body's root is the next iteration's parameter")
            .at_attribute("body");
    }
    cx.expect_shape(Rule::ControlFlow, instr, &infer::control::while_loop(state));
}

fn check_conditional(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let Some(&selector) = data.operands.first() else {
        return;
    };
    let branches = data.callees.clone();
    let operand_count = data.operands.len();
    let selector_shape = cx.shape_of(selector);
    let Some(selector_array) = cx.array(selector_shape).filter(|a| a.rank() == 0) else {
        let message = format!(
            "The first operand of conditional must be a scalar. Got {}",
            cx.text(selector_shape)
        );
        cx.report(Rule::ControlFlow, instr, message)
            .with_hint("the selector is pred[] (two branches) or s32[] (a branch index)")
            .at_operand(0);
        return;
    };
    let predicated = selector_array.elem == ElementType::Pred;
    if predicated {
        if branches.len() != 2 {
            let message = format!(
                "a conditional with a pred[] selector needs 2 branches, has {}",
                branches.len()
            );
            cx.report(Rule::ControlFlow, instr, message)
                .with_hint("use an s32[] selector and branch_computations={…} for other counts")
                .at_operand(0);
            return;
        }
    } else if selector_array.elem != ElementType::S32 {
        let message = format!(
            "The first operand of indexed conditional must be a scalar of S32. Got type {}.",
            selector_array.elem
        );
        cx.report(Rule::ControlFlow, instr, message)
            .with_hint("the selector is pred[] (two branches) or s32[] (a branch index)")
            .at_operand(0);
        return;
    } else if branches.is_empty() {
        cx.report(
            Rule::ControlFlow,
            instr,
            "an indexed conditional needs at least one branch",
        );
        return;
    }
    if operand_count != branches.len() + 1 {
        let message = format!(
            "Expected {} operands for conditional instruction: the selector and one per branch, has {operand_count}",
            branches.len() + 1
        );
        cx.report(Rule::ControlFlow, instr, message)
            .with_hint("branch j receives operand j + 1");
        return;
    }
    let result = cx.shape_of(instr);
    for (j, &branch) in branches.iter().enumerate() {
        let attribute = match (predicated, j) {
            (true, 0) => "true_computation",
            (true, _) => "false_computation",
            (false, _) => "branch_computations",
        };
        if check_parameter_count(cx, instr, branch, 1, attribute) {
            check_operand_and_parameter(cx, instr, j + 1, branch, 0, attribute);
        }
        if let Some(root) = cx.root_shape(branch)
            && !cx.same(root, result)
        {
            let message = format!(
                "Expected instruction to have shape equal to {}, actual shape is {}: branch %{} returns a different shape",
                cx.text(root),
                cx.text(result),
                cx.m.comps[branch].name
            );
            cx.report(Rule::ControlFlow, instr, message)
                .with_hint("every branch must return the conditional's shape")
                .at_attribute(attribute);
        }
    }
}

fn check_call(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let Some(&callee) = data.callees.first() else {
        return;
    };
    let operand_count = data.operands.len();
    if check_parameter_count(cx, instr, callee, operand_count, "to_apply") {
        for i in 0..operand_count {
            check_operand_and_parameter(cx, instr, i, callee, i, "to_apply");
        }
    }
    let callee = Signature::of(cx.m, callee);
    if let Ok(expected) = infer::control::callee_result(Some(&callee)) {
        cx.expect_shape(Rule::ControlFlow, instr, &expected);
    }
}

fn check_fusion(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let &[callee] = &*data.callees else {
        cx.report(
            Rule::ControlFlow,
            instr,
            format!(
                "Fusion has a non-unary number of called computations ({})",
                data.callees.len()
            ),
        )
        .with_hint("a fusion calls exactly one computation")
        .at_attribute("calls");
        return;
    };
    let operand_count = data.operands.len();
    if let Some(root) = cx.root_shape(callee)
        && !cx.same(root, cx.shape_of(instr))
    {
        let message = format!(
            "Fused computation shape ({}) is not equal to the fusion shape ({})",
            cx.text(root),
            cx.text(cx.shape_of(instr))
        );
        cx.report(Rule::ControlFlow, instr, message)
            .with_hint("a fusion's shape is its fused computation's root shape")
            .at_attribute("calls");
    }
    let parameter_count = cx.m.comps[callee].params.len();
    if parameter_count > operand_count {
        let message = format!(
            "Fused parameter count ({parameter_count}) is greater than the number of operands ({operand_count}) passed to the fusion instruction"
        );
        cx.report(Rule::CalleeSignature, instr, message)
            .with_hint("each fused parameter receives the operand of its number")
            .at_attribute("calls");
    } else {
        for i in 0..parameter_count {
            check_operand_and_parameter(cx, instr, i, callee, i, "calls");
        }
    }
    if let Attrs::Fusion(fusion) = &cx.data(instr).attrs {
        check_output_to_operand_aliasing(
            cx,
            Rule::ControlFlow,
            instr,
            &fusion.output_to_operand_aliasing,
        );
    }
}

/// XLA's aliasing checks shared by fusion and custom-call: each entry names an
/// existing operand, valid indices into the operand and the output, and
/// compatible shapes at those indices.
pub(super) fn check_output_to_operand_aliasing(
    cx: &mut Checker,
    rule: Rule,
    instr: Instr,
    aliasing: &[OutputOperandAlias],
) {
    const ATTRIBUTE: &str = "output_to_operand_aliasing";
    let operands = &cx.data(instr).operands;
    for alias in aliasing {
        let Some(&operand) = usize::try_from(alias.operand)
            .ok()
            .and_then(|i| operands.get(i))
        else {
            let message = format!(
                "Invalid aliasing operand index: operand {} of {} operands",
                alias.operand,
                operands.len()
            );
            cx.report(rule, instr, message).at_attribute(ATTRIBUTE);
            continue;
        };
        let Some(operand_subshape) =
            cx.m.shapes
                .subshape(cx.shape_of(operand), &alias.operand_index)
        else {
            let message = format!(
                "Invalid aliasing operand shape index {:?} into {}",
                alias.operand_index,
                cx.text(cx.shape_of(operand))
            );
            cx.report(rule, instr, message).at_attribute(ATTRIBUTE);
            continue;
        };
        let Some(output_subshape) = cx.m.shapes.subshape(cx.shape_of(instr), &alias.output) else {
            let message = format!(
                "Invalid aliasing output shape index {:?} into {}",
                alias.output,
                cx.text(cx.shape_of(instr))
            );
            cx.report(rule, instr, message).at_attribute(ATTRIBUTE);
            continue;
        };
        // A buffer (`b(…)`) aliases the array it holds: pinning and unpinning
        // custom-calls alias exactly that way.
        let (operand_subshape, output_subshape) = (
            unwrap_buffer(cx, operand_subshape),
            unwrap_buffer(cx, output_subshape),
        );
        if !cx.same(operand_subshape, output_subshape) {
            let message = format!(
                "Different aliasing shapes: {} vs {}",
                cx.text(operand_subshape),
                cx.text(output_subshape)
            );
            cx.report(rule, instr, message)
                .with_hint("an output buffer can only alias an operand buffer of the same shape")
                .at_attribute(ATTRIBUTE);
        }
    }
}

/// The shape a buffer holds, or `shape` itself.
fn unwrap_buffer(cx: &Checker, shape: Shape) -> Shape {
    match cx.shape(shape) {
        ShapeData::Buffer(inner) => *inner,
        _ => shape,
    }
}

fn check_tuple(cx: &mut Checker, instr: Instr) {
    let operands: Vec<Shape> = cx
        .data(instr)
        .operands
        .iter()
        .map(|&o| cx.shape_of(o))
        .collect();
    cx.expect_shape(Rule::Tuple, instr, &infer::control::tuple(&operands));
}

fn check_get_tuple_element(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let (Some(&operand), Attrs::GetTupleElement { index }) = (data.operands.first(), &data.attrs)
    else {
        return;
    };
    match infer::control::get_tuple_element(&cx.m.shapes, cx.shape_of(operand), *index) {
        Ok(expected) => {
            cx.expect_shape(Rule::Tuple, instr, &expected);
        }
        Err(error) => cx.report_inference(Rule::Tuple, instr, error),
    }
}

/// opt-barrier and domain: the result is the operand.
fn check_forwarding(cx: &mut Checker, instr: Instr) {
    if let Some(&operand) = cx.data(instr).operands.first() {
        let expected = infer::control::forwarded(cx.shape_of(operand));
        cx.expect_shape(Rule::Other, instr, &expected);
    }
}

fn check_add_dependency(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let &[value, token] = data.operands.as_slice() else {
        return;
    };
    let token_shape = cx.shape_of(token);
    if !matches!(cx.shape(token_shape), ShapeData::Token) {
        let message = format!(
            "Expected operand 1 to be token-shaped, actual shape is {}",
            cx.text(token_shape)
        );
        cx.report(Rule::Other, instr, message)
            .with_hint("add-dependency's second operand is the token it waits for")
            .at_operand(1);
    }
    let expected = infer::control::forwarded(cx.shape_of(value));
    cx.expect_shape(Rule::Other, instr, &expected);
}

/// after-all returns a token. XLA's verifier leaves its operands alone (the
/// parser tests join values of any shape), so they are not checked here.
fn check_after_all(cx: &mut Checker, instr: Instr) {
    cx.expect_shape(Rule::Other, instr, &infer::control::after_all());
}

fn check_parameter(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let Attrs::Parameter(parameter) = &data.attrs else {
        return;
    };
    let params = &cx.m.comps[cx.m.parent(instr)].params;
    let slot = usize::try_from(parameter.number)
        .ok()
        .and_then(|n| params.get(n));
    if slot != Some(&instr) {
        let message = format!(
            "parameter number {} is not this computation's parameter {} (it has {} parameters)",
            parameter.number,
            parameter.number,
            params.len()
        );
        cx.report(Rule::Other, instr, message)
            .with_hint("each parameter number 0..n appears exactly once in a computation");
    }
}

fn check_constant(cx: &mut Checker, instr: Instr) {
    let Attrs::Constant(literal) = &cx.data(instr).attrs else {
        return;
    };
    let declared = cx.shape_of(instr);
    if let Some(expected) = infer::control::constant(&cx.m.shapes, literal, declared) {
        cx.expect_shape(Rule::Other, instr, &expected);
    }
}

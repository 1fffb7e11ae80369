//! Elementwise forms: the `SameOperandsAndResultType` printer shared by unary,
//! binary and ternary ops, `stablehlo.constant`, `stablehlo.compare`, and chlo's
//! unary and binary forms (`: t -> u`, `: t, u -> v`: every operand type
//! written, the result type after the arrow).

use crate::ir::attribute;
use crate::ir::dialect_attr;
use crate::ir::{Attribute, Op, Type};
use crate::ops::OpName;
use crate::text::attributes::print_dense_body;
use crate::text::cursor::PResult;
use crate::text::parser::{IntoHint, ParsedOp, Parser};
use crate::text::printer::Printer;
use crate::text::syntax::operands::function_type_of;
use crate::text::types::{print_function_type, print_type};

/// `op %a, %b {attrs} : t` (every operand and the result have type `t`) or
/// `op %a, %b {attrs} : (t, u) -> v`.
pub(super) fn parse_same_type(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let uses = if p.c.peek() == b'%' {
        p.parse_value_uses()?
    } else {
        Vec::new()
    };
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the type")?;
    let at = p.c.pos;
    let ty = p.parse_type()?;
    let (inputs, results) = match ty {
        Type::Function(function) => (function.inputs, function.results),
        ty => (vec![ty.clone(); uses.len()], vec![ty]),
    };
    if inputs.len() != uses.len() {
        return Err(p.c.error_at(
            at,
            format!(
                "expected {} operand types but had {}",
                uses.len(),
                inputs.len()
            ),
        ));
    }
    parsed.data.operands = p.resolve_operands(&uses, &inputs)?;
    parsed.result_types = results;
    Ok(parsed)
}

pub(super) fn print_same_type(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    pr.print_op_name(&data.name.clone());
    let operands = data.operands.clone();
    if !operands.is_empty() {
        pr.out.push(' ');
        pr.print_value_list(&operands);
    }
    pr.print_remaining_attributes(op, &[]);
    pr.out.push_str(" : ");
    print_same_or_functional(pr, op);
    true
}

/// `t` when the op's operands and single result all have type `t`, else the
/// functional type.
fn print_same_or_functional(pr: &mut Printer<'_>, op: Op) {
    let function = function_type_of(pr, op);
    if let [result] = &function.results[..]
        && function.inputs.iter().all(|t| t == result)
    {
        print_type(&mut pr.out, result);
    } else {
        print_function_type(&mut pr.out, &function);
    }
}

/// `stablehlo.constant {attrs}? dense<…> : t`.
pub(super) fn parse_constant(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    p.parse_optional_attr_dict(&mut parsed.data)?;
    let at = p.c.pos;
    let value = p.parse_attribute()?;
    let ty = match &value {
        Attribute::DenseElements(dense) => dense.ty.clone(),
        _ => {
            return Err(p.c.error_at(
                at,
                "expected a dense elements attribute (dense<…> : tensor<…>)",
            ));
        }
    };
    Parser::set_property(&mut parsed.data, "value", value);
    parsed.result_types = vec![ty];
    Ok(parsed)
}

pub(super) fn print_constant(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let Some(Attribute::DenseElements(dense)) = attribute::find(&data.properties, "value") else {
        return false;
    };
    let [result] = data.results[..] else {
        return false;
    };
    if pr.body.ty(result) != &dense.ty {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.print_remaining_attributes(op, &["value"]);
    pr.out.push(' ');
    print_dense_body(&mut pr.out, dense);
    pr.out.push_str(" : ");
    print_type(&mut pr.out, &dense.ty);
    true
}

/// `stablehlo.compare LT, %a, %b (, SIGNED)? {attrs} : (t, t) -> u`.
pub(super) fn parse_compare(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let at = p.c.pos;
    let direction = p.c.identifier().ok_or_else(|| {
        p.c.error_expected("a comparison direction (EQ, NE, GE, GT, LE, LT)")
    })?;
    if !dialect_attr::COMPARISON_DIRECTIONS.contains(&direction) {
        return Err(p
            .c
            .error_at(at, format!("unknown comparison direction '{direction}'"))
            .into_hint("comparison directions are EQ, NE, GE, GT, LE, LT"));
    }
    Parser::set_property(
        &mut parsed.data,
        "comparison_direction",
        Attribute::Opaque(format!("#stablehlo<comparison_direction {direction}>")),
    );
    p.c.expect(b',', "','")?;
    let lhs = p.parse_value_use()?;
    p.c.expect(b',', "','")?;
    let rhs = p.parse_value_use()?;
    if p.c.eat(b',') {
        let at = p.c.pos;
        let compare_type =
            p.c.identifier()
                .ok_or_else(|| p.c.error_expected("a comparison type"))?;
        if !dialect_attr::COMPARISON_TYPES.contains(&compare_type) {
            return Err(p
                .c
                .error_at(at, format!("unknown comparison type '{compare_type}'"))
                .into_hint("comparison types are NOTYPE, FLOAT, TOTALORDER, SIGNED, UNSIGNED"));
        }
        Parser::set_property(
            &mut parsed.data,
            "compare_type",
            Attribute::Opaque(format!("#stablehlo<comparison_type {compare_type}>")),
        );
    }
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the function type")?;
    let at = p.c.pos;
    let ty = p.parse_type()?;
    let (inputs, results) = match ty {
        Type::Function(function) => (function.inputs, function.results),
        _ => {
            return Err(p
                .c
                .error_at(at, "expected a function type (lhs, rhs) -> result"));
        }
    };
    if inputs.len() != 2 {
        return Err(p.c.error_at(
            at,
            format!("expected 2 operand types but had {}", inputs.len()),
        ));
    }
    parsed.data.operands = p.resolve_operands(&[lhs, rhs], &inputs)?;
    parsed.result_types = results;
    Ok(parsed)
}

fn enum_keyword<'a>(attribute: Option<&'a Attribute>, kind: &str) -> Option<&'a str> {
    super::stablehlo_enum(attribute?, kind)
}

pub(super) fn print_compare(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let Some(direction) = enum_keyword(
        attribute::find(&data.properties, "comparison_direction"),
        "comparison_direction",
    ) else {
        return false;
    };
    let compare_type = attribute::find(&data.properties, "compare_type");
    let compare_keyword = enum_keyword(compare_type, "comparison_type");
    if compare_type.is_some() && compare_keyword.is_none() || data.operands.len() != 2 {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.out.push_str(direction);
    pr.out.push_str(", ");
    pr.print_value_list(&data.operands.clone());
    if let Some(keyword) = compare_keyword {
        pr.out.push_str(", ");
        pr.out.push_str(keyword);
    }
    pr.print_remaining_attributes(op, &["comparison_direction", "compare_type"]);
    pr.out.push_str(" : ");
    let function = function_type_of(pr, op);
    print_function_type(&mut pr.out, &function);
    true
}

/// `chlo.op %a {attrs} : t -> u`.
pub(super) fn parse_chlo_unary(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let operand = p.parse_value_use()?;
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the operand type")?;
    let input = p.parse_type()?;
    p.c.expect_str("->")?;
    let result = p.parse_type()?;
    parsed.data.operands = p.resolve_operands(&[operand], &[input])?;
    parsed.result_types = vec![result];
    Ok(parsed)
}

pub(super) fn print_chlo_unary(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let ([operand], [result]) = (&data.operands[..], &data.results[..]) else {
        return false;
    };
    let (operand, result) = (*operand, *result);
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value(operand);
    pr.print_remaining_attributes(op, &[]);
    pr.out.push_str(" : ");
    print_type(&mut pr.out, pr.body.ty(operand));
    pr.out.push_str(" -> ");
    print_type(&mut pr.out, pr.body.ty(result));
    true
}

/// `chlo.op %a, %b {attrs} : t, u -> v`.
pub(super) fn parse_chlo_binary(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let lhs = p.parse_value_use()?;
    p.c.expect(b',', "',' and the second operand")?;
    let rhs = p.parse_value_use()?;
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the operand types")?;
    let lhs_type = p.parse_type()?;
    p.c.expect(b',', "',' and the second operand's type")?;
    let rhs_type = p.parse_type()?;
    p.c.expect_str("->")?;
    let result = p.parse_type()?;
    parsed.data.operands = p.resolve_operands(&[lhs, rhs], &[lhs_type, rhs_type])?;
    parsed.result_types = vec![result];
    Ok(parsed)
}

pub(super) fn print_chlo_binary(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let ([lhs, rhs], [result]) = (&data.operands[..], &data.results[..]) else {
        return false;
    };
    let (lhs, rhs, result) = (*lhs, *rhs, *result);
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value_list(&[lhs, rhs]);
    pr.print_remaining_attributes(op, &[]);
    pr.out.push_str(" : ");
    print_type(&mut pr.out, pr.body.ty(lhs));
    pr.out.push_str(", ");
    print_type(&mut pr.out, pr.body.ty(rhs));
    pr.out.push_str(" -> ");
    print_type(&mut pr.out, pr.body.ty(result));
    true
}

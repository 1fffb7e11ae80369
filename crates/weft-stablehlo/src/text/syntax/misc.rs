//! The other StableHLO custom forms:
//!
//! - `stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>` (or a function type)
//! - `stablehlo.complex %re, %im : tensor<2xcomplex<f32>>` (or a function type)
//! - `stablehlo.reduce_precision %x, format = e5m10 : t`
//! - `stablehlo.optimization_barrier %a, %b : t, u` and `stablehlo.optimization_barrier()`
//! - `stablehlo.custom_call @target(%x) {attrs} : (t) -> u`
//! - `stablehlo.composite "name" %x {attrs} : (t) -> u`
//! - `stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (…) -> t`
//! - `stablehlo.rng_bit_generator %state, algorithm = DEFAULT : (s) -> (s, t)`
//! - `stablehlo.fft %x, type = FFT, length = [4] : (t) -> u`
//! - `stablehlo.cholesky %a, lower = true : t`
//! - `stablehlo.constant() <{value = dense<…> : t}> : () -> u`: the generic tail
//!   MLIR prints when the value's type is not the result type (quantized
//!   constants); the plain `stablehlo.constant dense<…> : t` is in `elementwise`.
//!
//! As MLIR's generated printers do, attribute dictionaries leave out inherent
//! attributes that hold their default value (`has_side_effect = false`,
//! `api_version = 1 : i32`, `version = 0 : i32`, …); the generic form prints
//! whatever is stored.

use crate::ir::attribute::{self, NamedAttribute};
use crate::ir::dialect_attr;
use crate::ir::{Attribute, ElementKind, Op, Type};
use crate::ops::{OpName, Syntax};
use crate::text::attributes::{print_attribute_dictionary, print_string, print_symbol_name};
use crate::text::cursor::PResult;
use crate::text::parser::{IntoHint, ParsedOp, Parser};
use crate::text::printer::Printer;
use crate::text::syntax::data_movement::{
    Arity, Clause, ClauseForm, TypeTail, parse_attr_dict, parse_colon_function_type,
    parse_optional_uses, print_type_tail,
};
use crate::text::syntax::elementwise;
use crate::text::syntax::operands::function_type_of;
use crate::text::types::{print_function_type, print_type, print_type_list};

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

pub(super) fn parse(p: &mut Parser<'_>, name: OpName, syntax: Syntax) -> PResult<ParsedOp> {
    match syntax {
        Syntax::Select => parse_select(p, name),
        Syntax::ComplexOpType => parse_complex(p, name),
        Syntax::OptimizationBarrier => parse_optimization_barrier(p, name),
        Syntax::CustomCall => parse_custom_call(p, name),
        Syntax::Composite => parse_composite(p, name),
        _ => super::data_movement::parse(p, name, syntax),
    }
}

pub(super) fn print(pr: &mut Printer<'_>, op: Op, syntax: Syntax) -> bool {
    match syntax {
        Syntax::Select => print_select(pr, op),
        Syntax::ComplexOpType => print_complex(pr, op),
        Syntax::OptimizationBarrier => print_optimization_barrier(pr, op),
        Syntax::CustomCall => print_custom_call(pr, op),
        Syntax::Composite => print_composite(pr, op),
        _ => super::data_movement::print(pr, op, syntax),
    }
}

// ---------------------------------------------------------------------------
// Clause forms
// ---------------------------------------------------------------------------

pub(super) static RNG: ClauseForm = ClauseForm {
    operands: Arity::Exactly(3),
    clauses: &[Clause::Enum {
        keyword: "distribution",
        property: "rng_distribution",
        kind: "rng_distribution",
        cases: dialect_attr::RNG_DISTRIBUTIONS,
    }],
    types: TypeTail::Functional,
    results: 1,
};

pub(super) static RNG_BIT_GENERATOR: ClauseForm = ClauseForm {
    operands: Arity::Exactly(1),
    clauses: &[Clause::Enum {
        keyword: "algorithm",
        property: "rng_algorithm",
        kind: "rng_algorithm",
        cases: dialect_attr::RNG_ALGORITHMS,
    }],
    types: TypeTail::Functional,
    results: 2,
};

pub(super) static FFT: ClauseForm = ClauseForm {
    operands: Arity::Exactly(1),
    clauses: &[
        Clause::Enum {
            keyword: "type",
            property: "fft_type",
            kind: "fft_type",
            cases: dialect_attr::FFT_TYPES,
        },
        Clause::I64Array {
            keyword: "length",
            property: "fft_length",
        },
    ],
    types: TypeTail::Functional,
    results: 1,
};

pub(super) static REDUCE_PRECISION: ClauseForm = ClauseForm {
    operands: Arity::Exactly(1),
    clauses: &[Clause::ExponentMantissa],
    types: TypeTail::SameType,
    results: 1,
};

pub(super) static CHOLESKY: ClauseForm = ClauseForm {
    operands: Arity::Exactly(1),
    clauses: &[Clause::OptionalTrue {
        keyword: "lower",
        property: "lower",
    }],
    types: TypeTail::SameType,
    results: 1,
};

// ---------------------------------------------------------------------------
// select
// ---------------------------------------------------------------------------

/// `stablehlo.select %p, %a, %b {attrs} : pred_type, type` or `: (p, a, b) -> r`.
fn parse_select(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let uses = p.parse_value_uses()?;
    if uses.len() != 3 {
        let at = uses.get(3).map_or(uses[0].2, |u| u.2);
        return Err(p.c.error_at(
            at,
            format!(
                "'stablehlo.select' takes 3 operands (pred, on_true, on_false), found {}",
                uses.len()
            ),
        ));
    }
    parse_attr_dict(p, &mut parsed.data, &[])?;
    p.c.expect(b':', "':' and the types")?;
    p.c.skip_trivia();
    let at = p.c.pos;
    let types = p.parse_type_list()?;
    let (inputs, result) = match <[Type; 2]>::try_from(types) {
        Ok([pred, ty]) => (vec![pred, ty.clone(), ty.clone()], ty),
        Err(mut types) => match types.pop() {
            Some(Type::Function(function)) if types.is_empty() => {
                if function.inputs.len() != 3 {
                    return Err(p.c.error_at(
                        at,
                        format!("3 operands present, but expected {}", function.inputs.len()),
                    ));
                }
                let [result] = <[Type; 1]>::try_from(function.results)
                    .map_err(|_| p.c.error_at(at, "expected single output"))?;
                (function.inputs, result)
            }
            _ => {
                return Err(p
                    .c
                    .error_at(at, "expected functional type or list of two types")
                    .into_hint("write ': predicate_type, result_type' or ': (p, t, f) -> r'"));
            }
        },
    };
    parsed.data.operands = p.resolve_operands(&uses, &inputs)?;
    parsed.result_types = vec![result];
    Ok(parsed)
}

fn print_select(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let ([pred, on_true, on_false], [result]) = (&data.operands[..], &data.results[..]) else {
        return false;
    };
    let (pred, on_true, on_false, result) = (*pred, *on_true, *on_false, *result);
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value_list(&[pred, on_true, on_false]);
    pr.print_remaining_attributes(op, &[]);
    pr.out.push_str(" : ");
    let body = pr.body;
    let result_type = body.ty(result);
    if body.ty(on_true) == result_type && body.ty(on_false) == result_type {
        print_type(&mut pr.out, body.ty(pred));
        pr.out.push_str(", ");
        print_type(&mut pr.out, result_type);
    } else {
        print_type_tail(pr, op, TypeTail::Functional);
    }
    true
}

// ---------------------------------------------------------------------------
// complex
// ---------------------------------------------------------------------------

/// The type of the real parts of a complex tensor type (MLIR's
/// `createRealType`): the element type's float part; other types unchanged.
fn real_type(ty: &Type) -> Type {
    match ty {
        Type::Tensor(tensor) => match &tensor.element {
            ElementKind::Complex(kind) => {
                let mut real = tensor.clone();
                real.element = ElementKind::Float(*kind);
                Type::Tensor(real)
            }
            _ => ty.clone(),
        },
        _ => ty.clone(),
    }
}

/// `stablehlo.complex %re, %im {attrs} : tensor<…xcomplex<f>>` or a function type.
fn parse_complex(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let uses = p.parse_value_uses()?;
    if uses.len() != 2 {
        let at = uses.get(2).map_or(uses[0].2, |u| u.2);
        return Err(p.c.error_at(
            at,
            format!(
                "'stablehlo.complex' takes 2 operands (real and imaginary parts), found {}",
                uses.len()
            ),
        ));
    }
    parse_attr_dict(p, &mut parsed.data, &[])?;
    p.c.expect(b':', "':' and the type")?;
    p.c.skip_trivia();
    let at = p.c.pos;
    let (inputs, result) = match p.parse_type()? {
        Type::Function(function) => {
            if function.inputs.len() != 2 {
                return Err(p.c.error_at(
                    at,
                    format!("2 operands present, but expected {}", function.inputs.len()),
                ));
            }
            let [result] = <[Type; 1]>::try_from(function.results)
                .map_err(|_| p.c.error_at(at, "expected single output"))?;
            (function.inputs, result)
        }
        ty @ Type::Tensor(_)
            if matches!(
                ty.as_tensor().map(|t| &t.element),
                Some(ElementKind::Complex(_))
            ) =>
        {
            let real = real_type(&ty);
            (vec![real.clone(), real], ty)
        }
        _ => {
            return Err(p
                .c
                .error_at(at, "expected tensor with complex element type")
                .into_hint("the operand types are the result's with the complex element type's float part; else write a function type (t, t) -> u"));
        }
    };
    parsed.data.operands = p.resolve_operands(&uses, &inputs)?;
    parsed.result_types = vec![result];
    Ok(parsed)
}

fn print_complex(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let ([lhs, rhs], [result]) = (&data.operands[..], &data.results[..]) else {
        return false;
    };
    let (lhs, rhs, result) = (*lhs, *rhs, *result);
    let body = pr.body;
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value_list(&[lhs, rhs]);
    pr.print_remaining_attributes(op, &[]);
    pr.out.push_str(" : ");
    let result_type = body.ty(result);
    let real = real_type(result_type);
    if *body.ty(lhs) == real && *body.ty(rhs) == real {
        print_type(&mut pr.out, result_type);
    } else {
        print_type_tail(pr, op, TypeTail::Functional);
    }
    true
}

// ---------------------------------------------------------------------------
// optimization_barrier
// ---------------------------------------------------------------------------

/// `stablehlo.optimization_barrier {attrs}? %a, %b : t, u` (results have the
/// operands' types) or `stablehlo.optimization_barrier {attrs}? ()`.
fn parse_optimization_barrier(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    parse_attr_dict(p, &mut parsed.data, &[])?;
    if p.c.peek() == b'%' {
        let uses = p.parse_value_uses()?;
        p.c.expect(b':', "':' and the operand types")?;
        p.c.skip_trivia();
        let at = p.c.pos;
        let types = p.parse_type_list()?;
        if types.len() != uses.len() {
            return Err(p.c.error_at(
                at,
                format!("expected {} types but had {}", uses.len(), types.len()),
            ));
        }
        parsed.data.operands = p.resolve_operands(&uses, &types)?;
        parsed.result_types = types;
    } else {
        p.c.expect(
            b'(',
            "the operands ('%a, %b : t, u') or '()' for a barrier without operands",
        )?;
        p.c.expect(b')', "')'")?;
    }
    Ok(parsed)
}

fn print_optimization_barrier(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    if data.operands.len() != data.results.len()
        || data
            .operands
            .iter()
            .zip(&data.results)
            .any(|(&a, &r)| body.ty(a) != body.ty(r))
    {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.print_remaining_attributes(op, &[]);
    if data.operands.is_empty() {
        pr.out.push_str("()");
    } else {
        pr.out.push(' ');
        pr.print_value_list(&data.operands);
        pr.out.push_str(" : ");
        let types: Vec<Type> = data.operands.iter().map(|&v| body.ty(v).clone()).collect();
        print_type_list(&mut pr.out, &types);
    }
    true
}

// ---------------------------------------------------------------------------
// custom_call, composite
// ---------------------------------------------------------------------------

/// Inherent attributes of `data` that hold their default value, which MLIR's
/// generated printers leave out of the attribute dictionary.
fn defaulted<'a>(
    properties: &'a [NamedAttribute],
    defaults: &[(&'a str, Attribute)],
) -> Vec<&'a str> {
    defaults
        .iter()
        .filter(|(name, value)| attribute::find(properties, name) == Some(value))
        .map(|(name, _)| *name)
        .collect()
}

fn custom_call_defaults() -> [(&'static str, Attribute); 4] {
    [
        (
            "api_version",
            super::data_movement::integer(1, 32), // API_VERSION_ORIGINAL
        ),
        ("called_computations", Attribute::Array(Vec::new())),
        ("has_side_effect", Attribute::Bool(false)),
        ("output_operand_aliases", Attribute::Array(Vec::new())),
    ]
}

/// `stablehlo.custom_call @target(%a, %b) {attrs} : (t, u) -> v`.
fn parse_custom_call(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    if p.c.peek() != b'@' {
        return Err(p.c.error_expected("the call target ('@name')").into_hint(
            "write the target as a symbol: stablehlo.custom_call @target(%x) : (t) -> u",
        ));
    }
    let target = p.parse_symbol_name()?;
    Parser::set_property(
        &mut parsed.data,
        "call_target_name",
        Attribute::String(target),
    );
    p.c.expect(b'(', "'(' and the call's operands")?;
    let uses = p.parse_value_use_list(b')')?;
    parse_attr_dict(p, &mut parsed.data, &["call_target_name"])?;
    let function = parse_colon_function_type(p, uses.len(), None)?;
    parsed.data.operands = p.resolve_operands(&uses, &function.inputs)?;
    parsed.result_types = function.results;
    Ok(parsed)
}

fn print_custom_call(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let Some(Attribute::String(target)) = attribute::find(&data.properties, "call_target_name")
    else {
        return false;
    };
    if !data.regions.is_empty() {
        return false;
    }
    let defaults = custom_call_defaults();
    let mut elided = defaulted(&data.properties, &defaults);
    elided.push("call_target_name");
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    print_symbol_name(&mut pr.out, target);
    pr.out.push('(');
    pr.print_value_list(&data.operands);
    pr.out.push(')');
    pr.print_remaining_attributes(op, &elided);
    pr.out.push_str(" : ");
    print_type_tail(pr, op, TypeTail::Functional);
    true
}

fn composite_defaults() -> [(&'static str, Attribute); 2] {
    [
        ("composite_attributes", Attribute::Dictionary(Vec::new())),
        ("version", super::data_movement::integer(0, 32)),
    ]
}

/// `stablehlo.composite "name" %a, %b {attrs} : (t, u) -> v`.
fn parse_composite(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    if p.c.peek() != b'"' {
        return Err(p
            .c
            .error_expected("the composite's name as a string (\"ns.op\")"));
    }
    let composite = p.c.string()?;
    Parser::set_property(&mut parsed.data, "name", Attribute::String(composite));
    let uses = parse_optional_uses(p)?;
    parse_attr_dict(p, &mut parsed.data, &["name"])?;
    let function = parse_colon_function_type(p, uses.len(), None)?;
    parsed.data.operands = p.resolve_operands(&uses, &function.inputs)?;
    parsed.result_types = function.results;
    Ok(parsed)
}

fn print_composite(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let Some(Attribute::String(composite)) = attribute::find(&data.properties, "name") else {
        return false;
    };
    if !data.regions.is_empty() {
        return false;
    }
    let defaults = composite_defaults();
    let mut elided = defaulted(&data.properties, &defaults);
    elided.push("name");
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    print_string(&mut pr.out, composite);
    // MLIR prints the space before the operand list even when it is empty.
    pr.out.push(' ');
    pr.print_value_list(&data.operands);
    pr.print_remaining_attributes(op, &elided);
    pr.out.push_str(" : ");
    print_type_tail(pr, op, TypeTail::Functional);
    true
}

// ---------------------------------------------------------------------------
// constant
// ---------------------------------------------------------------------------

/// `stablehlo.constant {attrs}? dense<…> : t`, or the generic tail
/// `stablehlo.constant() <{value = …}> {attrs}? : () -> t` MLIR prints when the
/// value's type is not the result type.
pub(super) fn parse_constant(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    if p.c.peek() != b'(' {
        return elementwise::parse_constant(p, name);
    }
    let mut parsed = ParsedOp::new(name);
    p.c.eat(b'(');
    p.c.expect(b')', "')': stablehlo.constant takes no operands")?;
    let mut has_properties = false;
    if p.c.peek_str("<{") {
        p.c.eat(b'<');
        for entry in p.parse_attribute_dictionary()? {
            Parser::set_property(&mut parsed.data, &entry.name, entry.value);
        }
        p.c.expect(b'>', "'>' to close the properties")?;
        has_properties = true;
    }
    if has_properties {
        if p.c.peek() == b'{' && !p.c.peek_str("{-#") {
            parsed.data.attributes = p.parse_attribute_dictionary()?;
        }
    } else {
        p.parse_optional_attr_dict(&mut parsed.data)?;
    }
    p.c.expect(b':', "':' and the type '() -> t'")?;
    p.c.skip_trivia();
    let at = p.c.pos;
    let function = parse_colon_free_function_type(p)?;
    if !function.inputs.is_empty() || function.results.len() != 1 {
        return Err(p
            .c
            .error_at(at, "expected the type '() -> t' of a constant"));
    }
    if attribute::find(&parsed.data.properties, "value").is_none() {
        return Err(p
            .c
            .error_at(at, "stablehlo.constant needs a 'value' property")
            .into_hint(
                "write it as stablehlo.constant() <{value = dense<…> : tensor<…>}> : () -> t",
            ));
    }
    parsed.result_types = function.results;
    Ok(parsed)
}

fn parse_colon_free_function_type(p: &mut Parser<'_>) -> PResult<crate::ir::FunctionType> {
    if p.c.peek() != b'(' {
        return Err(p.c.error_expected("the type '() -> t' of a constant"));
    }
    p.parse_function_type()
}

pub(super) fn print_constant(pr: &mut Printer<'_>, op: Op) -> bool {
    let checkpoint = pr.out.len();
    if elementwise::print_constant(pr, op) {
        return true;
    }
    pr.out.truncate(checkpoint);
    let data = &pr.body.ops[op];
    if !data.operands.is_empty()
        || data.results.len() != 1
        || !data.regions.is_empty()
        || !data.successors.is_empty()
        || attribute::find(&data.properties, "value").is_none()
    {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.out.push_str("() <");
    print_attribute_dictionary(&mut pr.out, &data.properties);
    pr.out.push('>');
    if !data.attributes.is_empty() {
        pr.out.push(' ');
        print_attribute_dictionary(&mut pr.out, &data.attributes);
    }
    pr.out.push_str(" : ");
    let function = function_type_of(pr, op);
    print_function_type(&mut pr.out, &function);
    true
}

#[cfg(test)]
mod tests {
    use crate::text::syntax::data_movement::tests::{error, forms, func};

    fn check(args: &str, op_text: &str, custom: &str, generic: &str) {
        let (c, g) = forms(&func(args, op_text), 0);
        assert_eq!(c, custom);
        assert_eq!(g, generic);
    }

    #[test]
    fn select() {
        check(
            "%p: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf32>",
            "%0 = stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>",
            "stablehlo.select %arg0, %arg1, %arg2 : tensor<2xi1>, tensor<2xf32>",
            "\"stablehlo.select\"(%arg0, %arg1, %arg2) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
        );
        check(
            "%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<?xf32>",
            "%0 = stablehlo.select %p, %a, %b : (tensor<i1>, tensor<2xf32>, tensor<?xf32>) -> tensor<2xf32>",
            "stablehlo.select %arg0, %arg1, %arg2 : (tensor<i1>, tensor<2xf32>, tensor<?xf32>) -> tensor<2xf32>",
            "\"stablehlo.select\"(%arg0, %arg1, %arg2) : (tensor<i1>, tensor<2xf32>, tensor<?xf32>) -> tensor<2xf32>",
        );
    }

    #[test]
    fn complex() {
        check(
            "%re: tensor<2xf64>, %im: tensor<2xf64>",
            "%0 = stablehlo.complex %re, %im : tensor<2xcomplex<f64>>",
            "stablehlo.complex %arg0, %arg1 : tensor<2xcomplex<f64>>",
            "\"stablehlo.complex\"(%arg0, %arg1) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xcomplex<f64>>",
        );
        check(
            "%re: tensor<?xf32>, %im: tensor<2xf32>",
            "%0 = stablehlo.complex %re, %im : (tensor<?xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>",
            "stablehlo.complex %arg0, %arg1 : (tensor<?xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>",
            "\"stablehlo.complex\"(%arg0, %arg1) : (tensor<?xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>",
        );
    }

    #[test]
    fn reduce_precision() {
        check(
            "%x: tensor<6xf64>",
            "%0 = stablehlo.reduce_precision %x, format = e5m10 : tensor<6xf64>",
            "stablehlo.reduce_precision %arg0, format = e5m10 : tensor<6xf64>",
            "\"stablehlo.reduce_precision\"(%arg0) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<6xf64>) -> tensor<6xf64>",
        );
    }

    #[test]
    fn optimization_barrier() {
        let text = func(
            "%a: tensor<f32>, %b: tensor<2xi32>",
            "  %0:2 = stablehlo.optimization_barrier %a, %b : tensor<f32>, tensor<2xi32>\n  stablehlo.optimization_barrier {x = 1 : i32} ()",
        );
        let (custom, generic) = forms(&text, 0);
        assert_eq!(
            custom,
            "stablehlo.optimization_barrier %arg0, %arg1 : tensor<f32>, tensor<2xi32>"
        );
        assert_eq!(
            generic,
            "\"stablehlo.optimization_barrier\"(%arg0, %arg1) : (tensor<f32>, tensor<2xi32>) -> (tensor<f32>, tensor<2xi32>)"
        );
        let (custom, generic) = forms(&text, 1);
        assert_eq!(custom, "stablehlo.optimization_barrier {x = 1 : i32}()");
        assert_eq!(
            generic,
            "\"stablehlo.optimization_barrier\"() {x = 1 : i32} : () -> ()"
        );
    }

    #[test]
    fn custom_call() {
        check(
            "%x: tensor<8x2xf32>",
            "%0 = stablehlo.custom_call @Sharding(%x) {backend_config = \"\", has_side_effect = false, api_version = 1 : i32, mhlo.sharding = \"{replicated}\"} : (tensor<8x2xf32>) -> tensor<8x2xf32>",
            "stablehlo.custom_call @Sharding(%arg0) {backend_config = \"\", mhlo.sharding = \"{replicated}\"} : (tensor<8x2xf32>) -> tensor<8x2xf32>",
            "\"stablehlo.custom_call\"(%arg0) <{api_version = 1 : i32, backend_config = \"\", call_target_name = \"Sharding\", has_side_effect = false}> {mhlo.sharding = \"{replicated}\"} : (tensor<8x2xf32>) -> tensor<8x2xf32>",
        );
        check(
            "%x: tensor<f64>",
            "%0:2 = stablehlo.custom_call @\"my target\"(%x, %x) {api_version = 4 : i32, backend_config = {bar = 42 : i32}, has_side_effect = true, called_computations = [@f]} : (tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<i32>)",
            "stablehlo.custom_call @\"my target\"(%arg0, %arg0) {api_version = 4 : i32, backend_config = {bar = 42 : i32}, called_computations = [@f], has_side_effect = true} : (tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<i32>)",
            "\"stablehlo.custom_call\"(%arg0, %arg0) <{api_version = 4 : i32, backend_config = {bar = 42 : i32}, call_target_name = \"my target\", called_computations = [@f], has_side_effect = true}> : (tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<i32>)",
        );
        check(
            "",
            "stablehlo.custom_call @foo() : () -> ()",
            "stablehlo.custom_call @foo() : () -> ()",
            "\"stablehlo.custom_call\"() <{call_target_name = \"foo\"}> : () -> ()",
        );
    }

    #[test]
    fn composite() {
        check(
            "%x: tensor<i64>",
            "%0 = stablehlo.composite \"stablehlo.add_n\" %x {\n    composite_attributes = { n = 2 : i64 },\n    decomposition = @add_n.impl, version = 0 : i32\n  } : (tensor<i64>) -> tensor<i64>",
            "stablehlo.composite \"stablehlo.add_n\" %arg0 {composite_attributes = {n = 2 : i64}, decomposition = @add_n.impl} : (tensor<i64>) -> tensor<i64>",
            "\"stablehlo.composite\"(%arg0) <{composite_attributes = {n = 2 : i64}, decomposition = @add_n.impl, name = \"stablehlo.add_n\", version = 0 : i32}> : (tensor<i64>) -> tensor<i64>",
        );
    }

    #[test]
    fn rng_fft_cholesky() {
        check(
            "%a: tensor<i32>, %b: tensor<i32>, %s: tensor<2xi64>",
            "%0 = stablehlo.rng %a, %b, %s, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>",
            "stablehlo.rng %arg0, %arg1, %arg2, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>",
            "\"stablehlo.rng\"(%arg0, %arg1, %arg2) <{rng_distribution = #stablehlo<rng_distribution NORMAL>}> : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>",
        );
        check(
            "%s: tensor<2xui64>",
            "%0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)",
            "stablehlo.rng_bit_generator %arg0, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)",
            "\"stablehlo.rng_bit_generator\"(%arg0) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)",
        );
        check(
            "%x: tensor<4xcomplex<f32>>",
            "%0 = stablehlo.fft %x, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>",
            "stablehlo.fft %arg0, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>",
            "\"stablehlo.fft\"(%arg0) <{fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type FFT>}> : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>",
        );
        check(
            "%a: tensor<3x3xf32>",
            "%0 = stablehlo.cholesky %a, lower = true : tensor<3x3xf32>",
            "stablehlo.cholesky %arg0, lower = true : tensor<3x3xf32>",
            "\"stablehlo.cholesky\"(%arg0) <{lower = true}> : (tensor<3x3xf32>) -> tensor<3x3xf32>",
        );
        // `lower = false` is the default: MLIR leaves it out of the custom form.
        check(
            "%a: tensor<3x3xf32>",
            "%0 = stablehlo.cholesky %a, lower = false : tensor<3x3xf32>",
            "stablehlo.cholesky %arg0 : tensor<3x3xf32>",
            "\"stablehlo.cholesky\"(%arg0) <{lower = false}> : (tensor<3x3xf32>) -> tensor<3x3xf32>",
        );
    }

    #[test]
    fn constant_with_another_result_type() {
        check(
            "",
            "%0 = stablehlo.constant() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>",
            "stablehlo.constant() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>",
            "\"stablehlo.constant\"() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>",
        );
        check(
            "",
            "%0 = stablehlo.constant() {value = dense<1> : tensor<i32>} : () -> tensor<i32>",
            "stablehlo.constant dense<1> : tensor<i32>",
            "\"stablehlo.constant\"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>",
        );
    }

    #[test]
    fn errors_say_what_was_expected() {
        let e = error(&func(
            "%x: tensor<4xcomplex<f32>>",
            "  %0 = stablehlo.fft %x, type = DFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>",
        ));
        assert!(
            e.contains("unknown fft_type 'DFT'") && e.contains("FFT, IFFT, RFFT, IRFFT"),
            "{e}"
        );
        let e = error(&func(
            "%x: tensor<f64>",
            "  %0 = stablehlo.reduce_precision %x, format = f5m10 : tensor<f64>",
        ));
        assert!(
            e.contains("expected exponent mantissa in format e#m#, saw 'f5m10'"),
            "{e}"
        );
        let e = error(&func(
            "%re: tensor<2xf64>, %im: tensor<2xf64>",
            "  %0 = stablehlo.complex %re, %im : tensor<2xf64>",
        ));
        assert!(
            e.contains("expected tensor with complex element type"),
            "{e}"
        );
        let e = error(&func(
            "%p: tensor<i1>, %a: tensor<f32>",
            "  %0 = stablehlo.select %p, %a, %a : tensor<i1>, tensor<f32>, tensor<f32>",
        ));
        assert!(
            e.contains("expected functional type or list of two types"),
            "{e}"
        );
        let e = error(&func(
            "%x: tensor<f32>",
            "  %0 = stablehlo.custom_call \"foo\"(%x) : (tensor<f32>) -> tensor<f32>",
        ));
        assert!(e.contains("expected the call target ('@name')"), "{e}");
        let e = error(&func("", "  %0 = stablehlo.constant() : () -> tensor<i32>"));
        assert!(e.contains("needs a 'value' property"), "{e}");
        let e = error(&func(
            "%a: tensor<f32>",
            "  %0 = stablehlo.optimization_barrier %a : tensor<f32>, tensor<f32>",
        ));
        assert!(e.contains("expected 1 types but had 2"), "{e}");
    }
}

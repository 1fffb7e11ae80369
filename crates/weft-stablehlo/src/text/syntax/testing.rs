//! The StableHLO test dialects: `check.expect_*`, `interpreter.probe` and
//! `interpreter.print`.
//!
//! Their assembly formats are ODS ones: optional groups anchored on a
//! default-valued attribute (`tolerance`, `min_ulp_difference`, `iter`) are
//! printed only when the attribute is set to something other than its default.

use crate::ir::attribute;
use crate::ir::{Attribute, ElementKind, FloatKind, Op, Signedness, Type};
use crate::ops::OpName;
use crate::text::attributes::{print_attribute, print_string};
use crate::text::cursor::PResult;
use crate::text::float;
use crate::text::parser::{IntoHint, ParsedOp, Parser};
use crate::text::printer::Printer;
use crate::text::types::print_type;

/// `tolerance`'s default (`DefaultValuedOptionalAttr<F64Attr, "1e-4">`).
const DEFAULT_TOLERANCE: f64 = 1e-4;

fn f64_type() -> Type {
    Type::Element(ElementKind::Float(FloatKind::F64))
}

fn unsigned(width: u32) -> Type {
    Type::Element(ElementKind::Integer {
        width,
        signedness: Signedness::Unsigned,
    })
}

/// `keyword = ` at the cursor.
fn expect_keyword_equal(p: &mut Parser<'_>, keyword: &str) -> PResult<()> {
    if !p.c.eat_keyword(keyword) {
        return Err(p.c.error_expected(&format!("'{keyword}'")));
    }
    p.c.expect(b'=', &format!("'=' after '{keyword}'"))
}

/// A float literal (decimal, or a hex bit pattern) as an `f64` attribute.
fn parse_f64(p: &mut Parser<'_>) -> PResult<Attribute> {
    p.c.skip_trivia();
    let at = p.c.pos;
    let Some(text) = p.c.number_text() else {
        return Err(p.c.error_expected("a floating-point number"));
    };
    let value = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16)
            .ok()
            .map(|bits| float::from_bits(FloatKind::F64, bits)),
        None => text.parse::<f64>().ok(),
    };
    let value = value.ok_or_else(|| p.c.error_at(at, "invalid floating-point literal"))?;
    Ok(Attribute::Float {
        value,
        ty: f64_type(),
    })
}

/// A non-negative integer that fits in `width` bits, as a `ui{width}` attribute.
fn parse_unsigned(p: &mut Parser<'_>, width: u32) -> PResult<Attribute> {
    p.c.skip_trivia();
    let at = p.c.pos;
    let value = p.c.integer()?;
    if value < 0 || value >> width != 0 {
        return Err(p
            .c
            .error_at(at, format!("integer constant out of range for ui{width}")));
    }
    Ok(Attribute::Integer {
        value,
        ty: unsigned(width),
    })
}

/// `, tolerance = 0.1` if next and the op has a tolerance.
fn parse_optional_tolerance(p: &mut Parser<'_>, parsed: &mut ParsedOp) -> PResult<()> {
    if !parsed.data.name.is_inherent("tolerance") || !p.c.eat(b',') {
        return Ok(());
    }
    expect_keyword_equal(p, "tolerance")?;
    let tolerance = parse_f64(p)?;
    Parser::set_property(&mut parsed.data, "tolerance", tolerance);
    Ok(())
}

/// `, tolerance = …` when the tolerance is set and not the default; `None`
/// when it is not an `f64`.
fn tolerance_text(op_properties: &[attribute::NamedAttribute]) -> Option<String> {
    match attribute::find(op_properties, "tolerance") {
        None => Some(String::new()),
        Some(Attribute::Float { value, ty }) if *ty == f64_type() => {
            if *value == DEFAULT_TOLERANCE {
                Some(String::new())
            } else {
                Some(format!(
                    ", tolerance = {}",
                    float::format(FloatKind::F64, *value)
                ))
            }
        }
        Some(_) => None,
    }
}

/// The value of an unsigned integer attribute of `width` bits, if `attribute`
/// is one.
fn unsigned_value(attribute: &Attribute, width: u32) -> Option<i128> {
    match attribute {
        Attribute::Integer { value, ty } if *ty == unsigned(width) => Some(*value),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// check.expect_eq, check.expect_almost_eq
// ---------------------------------------------------------------------------

/// `check.expect_eq %a, %b {attrs} : t` and
/// `check.expect_almost_eq %a, %b (, tolerance = 0.1)? {attrs} : t`.
pub(super) fn parse_check_operands(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let lhs = p.parse_value_use()?;
    p.c.expect(b',', "',' and the expected value")?;
    let rhs = p.parse_value_use()?;
    parse_optional_tolerance(p, &mut parsed)?;
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the type of the operands")?;
    let ty = p.parse_type()?;
    parsed.data.operands = p.resolve_operands(&[lhs, rhs], &[ty.clone(), ty])?;
    Ok(parsed)
}

pub(super) fn print_check_operands(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let [lhs, rhs] = data.operands[..] else {
        return false;
    };
    if body.ty(lhs) != body.ty(rhs) || !data.results.is_empty() {
        return false;
    }
    let Some(tolerance) = tolerance_text(&data.properties) else {
        return false;
    };
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value_list(&data.operands);
    pr.out.push_str(&tolerance);
    pr.print_remaining_attributes(op, &["tolerance"]);
    pr.out.push_str(" : ");
    print_type(&mut pr.out, body.ty(lhs));
    true
}

// ---------------------------------------------------------------------------
// check.expect_eq_const, check.expect_almost_eq_const
// ---------------------------------------------------------------------------

/// `check.expect_eq_const %a, dense<…> : t {attrs}` and
/// `check.expect_almost_eq_const %a, dense<…> : t (, tolerance = 0.1)? {attrs}`.
pub(super) fn parse_check_constant(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let lhs = p.parse_value_use()?;
    p.c.expect(b',', "',' and the expected constant")?;
    p.c.skip_trivia();
    let at = p.c.pos;
    let value = p.parse_attribute()?;
    let ty = match &value {
        Attribute::DenseElements(dense) => dense.ty.clone(),
        _ => {
            return Err(p
                .c
                .error_at(
                    at,
                    "expected a dense elements attribute (dense<…> : tensor<…>)",
                )
                .into_hint(
                    "the expected value is a constant such as `dense<[1, 2]> : tensor<2xi32>`",
                ));
        }
    };
    Parser::set_property(&mut parsed.data, "value", value);
    parse_optional_tolerance(p, &mut parsed)?;
    p.parse_optional_attr_dict(&mut parsed.data)?;
    parsed.data.operands = p.resolve_operands(&[lhs], &[ty])?;
    Ok(parsed)
}

pub(super) fn print_check_constant(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let [lhs] = data.operands[..] else {
        return false;
    };
    let Some(value @ Attribute::DenseElements(dense)) = attribute::find(&data.properties, "value")
    else {
        return false;
    };
    if dense.ty != *body.ty(lhs) || !data.results.is_empty() {
        return false;
    }
    let Some(tolerance) = tolerance_text(&data.properties) else {
        return false;
    };
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value(lhs);
    pr.out.push_str(", ");
    print_attribute(&mut pr.out, value);
    pr.out.push_str(&tolerance);
    pr.print_remaining_attributes(op, &["tolerance", "value"]);
    true
}

// ---------------------------------------------------------------------------
// check.expect_close
// ---------------------------------------------------------------------------

/// `check.expect_close %a, %b, max_ulp_difference = 3 (, min_ulp_difference =
/// 1)? : {attrs}? t, u`.
pub(super) fn parse_check_close(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let actual = p.parse_value_use()?;
    p.c.expect(b',', "',' and the expected value")?;
    let expected = p.parse_value_use()?;
    p.c.expect(b',', "',' and 'max_ulp_difference'")?;
    expect_keyword_equal(p, "max_ulp_difference")?;
    let max = parse_unsigned(p, 64)?;
    Parser::set_property(&mut parsed.data, "max_ulp_difference", max);
    if p.c.eat(b',') {
        expect_keyword_equal(p, "min_ulp_difference")?;
        let min = parse_unsigned(p, 64)?;
        Parser::set_property(&mut parsed.data, "min_ulp_difference", min);
    }
    p.c.expect(b':', "':' and the operand types")?;
    p.parse_optional_attr_dict(&mut parsed.data)?;
    let actual_type = p.parse_type()?;
    p.c.expect(b',', "',' and the type of the expected value")?;
    let expected_type = p.parse_type()?;
    parsed.data.operands =
        p.resolve_operands(&[actual, expected], &[actual_type, expected_type])?;
    Ok(parsed)
}

pub(super) fn print_check_close(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let [actual, expected] = data.operands[..] else {
        return false;
    };
    let Some(max) =
        attribute::find(&data.properties, "max_ulp_difference").and_then(|a| unsigned_value(a, 64))
    else {
        return false;
    };
    let min = match attribute::find(&data.properties, "min_ulp_difference") {
        None => None,
        Some(min) => match unsigned_value(min, 64) {
            Some(0) => None,
            Some(min) => Some(min),
            None => return false,
        },
    };
    if !data.results.is_empty() {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value_list(&data.operands);
    pr.out.push_str(&format!(", max_ulp_difference = {max}"));
    if let Some(min) = min {
        pr.out.push_str(&format!(", min_ulp_difference = {min}"));
    }
    pr.out.push_str(" :");
    pr.print_remaining_attributes(op, &["max_ulp_difference", "min_ulp_difference"]);
    pr.out.push(' ');
    print_type(&mut pr.out, body.ty(actual));
    pr.out.push_str(", ");
    print_type(&mut pr.out, body.ty(expected));
    true
}

// ---------------------------------------------------------------------------
// check.expect_serialized_eq, interpreter.probe
// ---------------------------------------------------------------------------

/// `check.expect_serialized_eq %a, probe_id = "p" (, iter = 1)? {attrs} : t`.
pub(super) fn parse_check_serialized_eq(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let operand = p.parse_value_use()?;
    p.c.expect(b',', "',' and 'probe_id'")?;
    expect_keyword_equal(p, "probe_id")?;
    let probe = p.c.string()?;
    Parser::set_property(&mut parsed.data, "probe_id", Attribute::String(probe));
    if p.c.eat(b',') {
        expect_keyword_equal(p, "iter")?;
        let iteration = parse_unsigned(p, 32)?;
        Parser::set_property(&mut parsed.data, "iteration", iteration);
    }
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the operand type")?;
    let ty = p.parse_type()?;
    parsed.data.operands = p.resolve_operands(&[operand], &[ty])?;
    Ok(parsed)
}

pub(super) fn print_check_serialized_eq(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let [operand] = data.operands[..] else {
        return false;
    };
    let Some(Attribute::String(probe)) = attribute::find(&data.properties, "probe_id") else {
        return false;
    };
    let iteration = match attribute::find(&data.properties, "iteration") {
        None => None,
        Some(iteration) => match unsigned_value(iteration, 32) {
            Some(0) => None,
            Some(iteration) => Some(iteration),
            None => return false,
        },
    };
    if !data.results.is_empty() {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value(operand);
    pr.out.push_str(", probe_id = ");
    print_string(&mut pr.out, probe);
    if let Some(iteration) = iteration {
        pr.out.push_str(&format!(", iter = {iteration}"));
    }
    pr.print_remaining_attributes(op, &["iteration", "probe_id"]);
    pr.out.push_str(" : ");
    print_type(&mut pr.out, body.ty(operand));
    true
}

/// `interpreter.probe %a, probe_id = "p" {attrs} : t`.
pub(super) fn parse_probe(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let operand = p.parse_value_use()?;
    p.c.expect(b',', "',' and 'probe_id'")?;
    expect_keyword_equal(p, "probe_id")?;
    let probe = p.c.string()?;
    Parser::set_property(&mut parsed.data, "probe_id", Attribute::String(probe));
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the type")?;
    let ty = p.parse_type()?;
    parsed.data.operands = p.resolve_operands(&[operand], std::slice::from_ref(&ty))?;
    parsed.result_types = vec![ty];
    Ok(parsed)
}

pub(super) fn print_probe(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let ([operand], [result]) = (&data.operands[..], &data.results[..]) else {
        return false;
    };
    let Some(Attribute::String(probe)) = attribute::find(&data.properties, "probe_id") else {
        return false;
    };
    if body.ty(*operand) != body.ty(*result) {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value(*operand);
    pr.out.push_str(", probe_id = ");
    print_string(&mut pr.out, probe);
    pr.print_remaining_attributes(op, &["probe_id"]);
    pr.out.push_str(" : ");
    print_type(&mut pr.out, body.ty(*result));
    true
}

/// `interpreter.print %a {attrs} : t`: operands with their types, no results.
pub(super) fn parse_operand_types(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let uses = p.parse_value_uses()?;
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the operand types")?;
    let at = p.c.pos;
    let types = p.parse_type_list()?;
    if types.len() != uses.len() {
        return Err(p.c.error_at(
            at,
            format!(
                "expected {} operand types but had {}",
                uses.len(),
                types.len()
            ),
        ));
    }
    parsed.data.operands = p.resolve_operands(&uses, &types)?;
    Ok(parsed)
}

pub(super) fn print_operand_types(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    if data.operands.is_empty() || !data.results.is_empty() {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value_list(&data.operands);
    pr.print_remaining_attributes(op, &[]);
    pr.out.push_str(" : ");
    pr.print_value_types(&data.operands);
    true
}

#[cfg(test)]
mod tests {
    use crate::text::parse;
    use crate::text::syntax::test_support::round_trip;

    #[test]
    fn check_ops() {
        let text = r#"module {
  func.func @f(%arg0: tensor<2xf64>, %arg1: tensor<2xf64>) {
    check.expect_eq %arg0, %arg1 : tensor<2xf64>
    check.expect_almost_eq %arg0, %arg1 : tensor<2xf64>
    check.expect_almost_eq %arg0, %arg1, tolerance = 1.000000e-01 : tensor<2xf64>
    check.expect_eq_const %arg0, dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>
    check.expect_almost_eq_const %arg0, dense<5.000000e-01> : tensor<2xf64>, tolerance = 1.000000e-01 {foo}
    check.expect_close %arg0, %arg1, max_ulp_difference = 3 : tensor<2xf64>, tensor<2xf64>
    check.expect_close %arg0, %arg1, max_ulp_difference = 3, min_ulp_difference = 1 : {foo} tensor<2xf64>, tensor<2xf64>
    check.expect_serialized_eq %arg0, probe_id = "p" : tensor<2xf64>
    check.expect_serialized_eq %arg0, probe_id = "p", iter = 2 : tensor<2xf64>
    %0 = interpreter.probe %arg0, probe_id = "probe/0" : tensor<2xf64>
    interpreter.print %0 : tensor<2xf64>
    return
  }
}
"#;
        let (pretty, generic) = round_trip(text);
        assert_eq!(pretty, text);
        for expected in [
            r#""check.expect_eq"(%arg0, %arg1) : (tensor<2xf64>, tensor<2xf64>) -> ()"#,
            r#""check.expect_almost_eq"(%arg0, %arg1) <{tolerance = 1.000000e-01 : f64}> : (tensor<2xf64>, tensor<2xf64>) -> ()"#,
            r#""check.expect_eq_const"(%arg0) <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>}> : (tensor<2xf64>) -> ()"#,
            r#""check.expect_almost_eq_const"(%arg0) <{tolerance = 1.000000e-01 : f64, value = dense<5.000000e-01> : tensor<2xf64>}> {foo} : (tensor<2xf64>) -> ()"#,
            r#""check.expect_close"(%arg0, %arg1) <{max_ulp_difference = 3 : ui64}> : (tensor<2xf64>, tensor<2xf64>) -> ()"#,
            r#""check.expect_close"(%arg0, %arg1) <{max_ulp_difference = 3 : ui64, min_ulp_difference = 1 : ui64}> {foo} : (tensor<2xf64>, tensor<2xf64>) -> ()"#,
            r#""check.expect_serialized_eq"(%arg0) <{iteration = 2 : ui32, probe_id = "p"}> : (tensor<2xf64>) -> ()"#,
            r#"%0 = "interpreter.probe"(%arg0) <{probe_id = "probe/0"}> : (tensor<2xf64>) -> tensor<2xf64>"#,
            r#""interpreter.print"(%0) : (tensor<2xf64>) -> ()"#,
        ] {
            assert!(generic.contains(expected), "{expected}\nnot in\n{generic}");
        }
    }

    #[test]
    fn tolerance_in_the_attribute_dictionary_is_the_property() {
        let text = "func.func @f(%a: tensor<f64>) {\n  check.expect_almost_eq_const %a, dense<5.1> : tensor<f64> {tolerance = 0.1 : f64}\n  func.return\n}\n";
        let (pretty, _) = round_trip(text);
        assert!(pretty.contains("check.expect_almost_eq_const %arg0, dense<5.100000e+00> : tensor<f64>, tolerance = 1.000000e-01\n"), "{pretty}");
    }

    #[test]
    fn default_valued_groups_are_elided() {
        let text = "func.func @f(%a: tensor<f32>) {\n  check.expect_close %a, %a, max_ulp_difference = 1, min_ulp_difference = 0 : tensor<f32>, tensor<f32>\n  check.expect_almost_eq %a, %a, tolerance = 1.0e-4 : tensor<f32>\n  return\n}\n";
        let (pretty, _) = round_trip(text);
        assert!(pretty.contains("check.expect_close %arg0, %arg0, max_ulp_difference = 1 : tensor<f32>, tensor<f32>\n"), "{pretty}");
        assert!(
            pretty.contains("check.expect_almost_eq %arg0, %arg0 : tensor<f32>\n"),
            "{pretty}"
        );
    }

    #[test]
    fn errors_are_clear() {
        let text =
            "func.func @f(%a: tensor<2xi32>) {\n  check.expect_eq_const %a, [1, 2]\n  return\n}\n";
        let error = parse(text).expect_err("an error").render("t", text);
        assert!(
            error.contains("expected a dense elements attribute"),
            "{error}"
        );
        let text = "func.func @f(%a: tensor<2xi32>) {\n  check.expect_eq_const %a, dense<[1, 2]> : tensor<2xi64>\n  return\n}\n";
        let error = parse(text).expect_err("an error").render("t", text);
        assert!(error.contains("expects different type"), "{error}");
        let text = "func.func @f(%a: tensor<2xf32>) {\n  check.expect_close %a, %a, max_ulp_difference = -1 : tensor<2xf32>, tensor<2xf32>\n  return\n}\n";
        let error = parse(text).expect_err("an error").render("t", text);
        assert!(error.contains("out of range for ui64"), "{error}");
    }
}

//! Shardy ops: `sdy.mesh`, `sdy.sharding_constraint` and
//! `sdy.manual_computation` (`sdy.return` uses the shared return form).
//!
//! Sharding attributes are kept as their generic text (`#sdy.mesh<…>`,
//! `#sdy.sharding<…>`, `#sdy.sharding_per_value<[…]>`,
//! `#sdy<manual_axes{…}>`); the custom forms write them stripped of the
//! dialect prefix, as Shardy's printer does.

use crate::ir::attribute;
use crate::ir::{Attribute, Op};
use crate::ops::OpName;
use crate::text::attributes::print_symbol_name;
use crate::text::cursor::PResult;
use crate::text::parser::{ParsedOp, Parser};
use crate::text::printer::Printer;
use crate::text::syntax::linalg::{
    check_stripped_body, is_balanced_group, parse_balanced, parse_stripped_attribute,
    strip_dialect_prefix,
};
use crate::text::syntax::operands::function_type_of;
use crate::text::types::{print_function_type, print_type};

const MESH: &str = "#sdy.mesh";
const SHARDING: &str = "#sdy.sharding";
const SHARDING_PER_VALUE: &str = "#sdy.sharding_per_value";
const MANUAL_AXES: &str = "#sdy<manual_axes";

// ---------------------------------------------------------------------------
// sdy.mesh
// ---------------------------------------------------------------------------

/// `sdy.mesh @name = <["x"=8]> {attrs}`.
pub(super) fn parse_mesh(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let symbol = p.parse_symbol_name()?;
    Parser::set_property(&mut parsed.data, "sym_name", Attribute::String(symbol));
    p.c.expect(b'=', "'=' and the mesh")?;
    let mesh = parse_stripped_attribute(p, MESH, b'<', "a mesh such as <[\"x\"=8]>")?;
    Parser::set_property(&mut parsed.data, "mesh", mesh);
    p.parse_optional_attr_dict(&mut parsed.data)?;
    Ok(parsed)
}

pub(super) fn print_mesh(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let Some(Attribute::String(symbol)) = attribute::find(&data.properties, "sym_name") else {
        return false;
    };
    let Some(mesh) = strip_dialect_prefix(attribute::find(&data.properties, "mesh"), MESH, b'<')
    else {
        return false;
    };
    if !data.operands.is_empty() || !data.results.is_empty() || !data.regions.is_empty() {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    print_symbol_name(&mut pr.out, symbol);
    pr.out.push_str(" = ");
    pr.out.push_str(mesh);
    pr.print_remaining_attributes(op, &["mesh", "sym_name"]);
    true
}

// ---------------------------------------------------------------------------
// sdy.sharding_constraint
// ---------------------------------------------------------------------------

/// `sdy.sharding_constraint %x <@mesh, [{"x"}, {}]> {attrs} : t`.
pub(super) fn parse_sharding_constraint(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let input = p.parse_value_use()?;
    let sharding = parse_stripped_attribute(
        p,
        SHARDING,
        b'<',
        "a sharding such as <@mesh, [{\"x\"}, {}]>",
    )?;
    Parser::set_property(&mut parsed.data, "sharding", sharding);
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the type")?;
    let ty = p.parse_type()?;
    parsed.data.operands = p.resolve_operands(&[input], std::slice::from_ref(&ty))?;
    parsed.result_types = vec![ty];
    Ok(parsed)
}

pub(super) fn print_sharding_constraint(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let ([input], [result]) = (&data.operands[..], &data.results[..]) else {
        return false;
    };
    let Some(sharding) = strip_dialect_prefix(
        attribute::find(&data.properties, "sharding"),
        SHARDING,
        b'<',
    ) else {
        return false;
    };
    if body.ty(*input) != body.ty(*result) {
        return false;
    }
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value(*input);
    pr.out.push(' ');
    pr.out.push_str(sharding);
    pr.print_remaining_attributes(op, &["sharding"]);
    pr.out.push_str(" : ");
    print_type(&mut pr.out, body.ty(*result));
    true
}

// ---------------------------------------------------------------------------
// sdy.manual_computation
// ---------------------------------------------------------------------------

/// `[<@mesh, …>, …]` after `in_shardings=` / `out_shardings=`, as
/// `#sdy.sharding_per_value<[…]>`.
fn parse_sharding_per_value(p: &mut Parser<'_>, keyword: &str) -> PResult<Attribute> {
    if !p.c.eat_keyword(keyword) {
        return Err(p.c.error_expected(&format!("'{keyword}'")));
    }
    p.c.expect(b'=', &format!("'=' after '{keyword}'"))?;
    if p.c.peek() == b'#' {
        return parse_stripped_attribute(p, SHARDING_PER_VALUE, b'<', "shardings per value");
    }
    p.c.expect(b'[', "'[' and a list of shardings")?;
    let mut shardings = Vec::new();
    if !p.c.eat(b']') {
        loop {
            let sharding =
                parse_balanced(&mut p.c, b'<', "a sharding such as <@mesh, [{\"x\"}, {}]>")?;
            check_stripped_body(p, sharding)?;
            shardings.push(sharding);
            if p.c.eat(b']') {
                break;
            }
            p.c.expect(b',', "',' or ']' in the list of shardings")?;
        }
    }
    Ok(Attribute::Opaque(format!(
        "{SHARDING_PER_VALUE}<[{}]>",
        shardings.join(", ")
    )))
}

/// The `[…]` of a `#sdy.sharding_per_value<[…]>`.
fn sharding_list(attribute: Option<&Attribute>) -> Option<&str> {
    let inner = strip_dialect_prefix(attribute, SHARDING_PER_VALUE, b'<')?;
    let list = inner.strip_prefix('<')?.strip_suffix('>')?;
    list.starts_with('[').then_some(list)
}

/// The `{"x", …}` of a `#sdy<manual_axes{"x", …}>`.
fn manual_axes_text(attribute: Option<&Attribute>) -> Option<&str> {
    let Some(Attribute::Opaque(text)) = attribute else {
        return None;
    };
    let axes = text.strip_prefix(MANUAL_AXES)?.strip_suffix('>')?;
    is_balanced_group(axes, b'{').then_some(axes)
}

/// `sdy.manual_computation(%x, …) in_shardings=[…] out_shardings=[…]
/// manual_axes={"x"} (%arg1: t, …) { … } {attrs} : (…) -> …`.
pub(super) fn parse_manual_computation(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    p.c.expect(b'(', "'(' and the operands")?;
    let uses = p.parse_value_use_list(b')')?;
    let in_shardings = parse_sharding_per_value(p, "in_shardings")?;
    Parser::set_property(&mut parsed.data, "in_shardings", in_shardings);
    let out_shardings = parse_sharding_per_value(p, "out_shardings")?;
    Parser::set_property(&mut parsed.data, "out_shardings", out_shardings);
    if !p.c.eat_keyword("manual_axes") {
        return Err(p.c.error_expected("'manual_axes'"));
    }
    p.c.expect(b'=', "'=' after 'manual_axes'")?;
    let manual_axes = if p.c.peek() == b'#' {
        parse_stripped_attribute(p, MANUAL_AXES, b'{', "manual axes")?
    } else {
        let axes = parse_balanced(&mut p.c, b'{', "'{' and the manual axes, as in {\"x\"}")?;
        check_stripped_body(p, axes)?;
        Attribute::Opaque(format!("{MANUAL_AXES}{axes}>"))
    };
    Parser::set_property(&mut parsed.data, "manual_axes", manual_axes);
    p.c.expect(b'(', "'(' and the body's arguments")?;
    let mut arguments = Vec::new();
    if !p.c.eat(b')') {
        loop {
            arguments.push(p.parse_typed_argument()?);
            if p.c.eat(b')') {
                break;
            }
            p.c.expect(b',', "',' or ')' in the body's arguments")?;
        }
    }
    let region = p.parse_region(arguments)?;
    parsed.data.regions.push(region);
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the function type")?;
    let at = p.c.pos;
    let function = p.parse_function_type()?;
    if function.inputs.len() != uses.len() {
        return Err(p.c.error_at(
            at,
            format!(
                "expected {} operand types but had {}",
                uses.len(),
                function.inputs.len()
            ),
        ));
    }
    parsed.data.operands = p.resolve_operands(&uses, &function.inputs)?;
    parsed.result_types = function.results;
    Ok(parsed)
}

pub(super) fn print_manual_computation(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let (Some(in_shardings), Some(out_shardings)) = (
        sharding_list(attribute::find(&data.properties, "in_shardings")),
        sharding_list(attribute::find(&data.properties, "out_shardings")),
    ) else {
        return false;
    };
    let Some(manual_axes) = manual_axes_text(attribute::find(&data.properties, "manual_axes"))
    else {
        return false;
    };
    let [region] = data.regions[..] else {
        return false;
    };
    let Some(entry) = body.entry_block(region) else {
        return false;
    };
    pr.print_op_name(&data.name);
    pr.out.push('(');
    pr.print_value_list(&data.operands);
    pr.out.push_str(") in_shardings=");
    pr.out.push_str(in_shardings);
    pr.out.push_str(" out_shardings=");
    pr.out.push_str(out_shardings);
    pr.out.push_str(" manual_axes=");
    pr.out.push_str(manual_axes);
    pr.out.push_str(" (");
    for (i, &argument) in body.blocks[entry].arguments.iter().enumerate() {
        if i > 0 {
            pr.out.push_str(", ");
        }
        pr.print_typed_value(argument);
    }
    pr.out.push_str(") ");
    pr.print_owned_region(op, region, false);
    pr.print_remaining_attributes(op, &["in_shardings", "manual_axes", "out_shardings"]);
    pr.out.push_str(" : ");
    let function = function_type_of(pr, op);
    print_function_type(&mut pr.out, &function);
    true
}

#[cfg(test)]
mod tests {
    use crate::text::parse;
    use crate::text::syntax::test_support::round_trip;

    #[test]
    fn mesh_constraint_and_manual_computation() {
        let text = r#"module @jit_f attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  sdy.mesh @other = <["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<1x4xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
    %1:2 = sdy.manual_computation(%0, %arg0) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}], replicated={"x"}>] manual_axes={"x"} (%arg1: tensor<1x4xf32> loc("a"), %arg2: tensor<8x4xf32>) {
      %2 = stablehlo.add %arg1, %arg1 : tensor<1x4xf32>
      sdy.return %2, %arg2 : tensor<1x4xf32>, tensor<8x4xf32>
    } {foo} : (tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<1x4xf32>, tensor<8x4xf32>)
    return %1#0 : tensor<1x4xf32>
  }
}
"#;
        let (pretty, generic) = round_trip(text);
        assert_eq!(pretty, text);
        for expected in [
            r#""sdy.mesh"() <{mesh = #sdy.mesh<["x"=8]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}} : () -> ()"#,
            r#"%0 = "sdy.sharding_constraint"(%arg0) <{sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}> : (tensor<8x4xf32>) -> tensor<8x4xf32>"#,
            r#"%1:2 = "sdy.manual_computation"(%0, %arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}], replicated={"x"}>]>}> ({
    ^bb0(%arg1: tensor<1x4xf32> loc("a"), %arg2: tensor<8x4xf32>):"#,
            r#""sdy.return"(%2, %arg2) : (tensor<1x4xf32>, tensor<8x4xf32>) -> ()"#,
        ] {
            assert!(generic.contains(expected), "{expected}\nnot in\n{generic}");
        }
    }

    #[test]
    fn empty_manual_axes_and_full_attribute_spellings() {
        let text = "module {\n  sdy.mesh @empty_mesh = #sdy.mesh<[]>\n  func.func @f(%arg0: tensor<2xui32>) -> tensor<2xui32> {\n    %0 = sdy.sharding_constraint %arg0 #sdy.sharding<@empty_mesh, [{}]> : tensor<2xui32>\n    %1 = sdy.manual_computation(%0) in_shardings=[<@empty_mesh, [{}]>] out_shardings=[<@empty_mesh, [{}]>] manual_axes={} (%arg1: tensor<2xui32>) {\n      sdy.return %arg1 : tensor<2xui32>\n    } : (tensor<2xui32>) -> tensor<2xui32>\n    return %1 : tensor<2xui32>\n  }\n}\n";
        let (pretty, generic) = round_trip(text);
        assert!(pretty.contains("sdy.mesh @empty_mesh = <[]>\n"), "{pretty}");
        assert!(
            pretty.contains(
                "%0 = sdy.sharding_constraint %arg0 <@empty_mesh, [{}]> : tensor<2xui32>\n"
            ),
            "{pretty}"
        );
        assert!(
            pretty.contains("manual_axes={} (%arg1: tensor<2xui32>) {\n"),
            "{pretty}"
        );
        assert!(
            generic.contains("manual_axes = #sdy<manual_axes{}>"),
            "{generic}"
        );
    }

    /// Found by fuzzing: a stripped attribute's text was kept unchecked,
    /// so a pretty form with a bad nested enum read, and its generic print
    /// (`#sdy.mesh<…>`, which is checked) did not read back.
    #[test]
    fn stripped_attributes_are_checked_as_generic_ones_are() {
        for text in [
            "sdy.mesh @m = <[\"a\"=1], x=#stablehlo.result_accuracy_mode<>>\n",
            "sdy.mesh @m = <[\"a\"=1], x=#stablehlo<precision BOGUS>>\n",
            "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{}], x=#stablehlo.result_accuracy_mode<BAD>>] out_shardings=[<@m, [{}]>] manual_axes={} (%b: tensor<2xf32>) {\n    sdy.return %b : tensor<2xf32>\n  } : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
        ] {
            let error = parse(text).expect_err("refused").render("t", text);
            assert!(
                error.contains("result_accuracy_mode") || error.contains("precision"),
                "{error}"
            );
        }
    }

    #[test]
    fn errors_are_clear() {
        let text = "sdy.mesh @m = [\"x\"=2]\n";
        let error = parse(text).expect_err("an error").render("t", text);
        assert!(error.contains("expected a mesh"), "{error}");
    }
}

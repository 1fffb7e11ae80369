//! Ops with regions and a custom form: `stablehlo.reduce` (the compact
//! `applies` form and the `reducer` region form), `stablehlo.while` and
//! `chlo.scan`; and `chlo.top_k`, the other chlo op with a form of its own.

use crate::ir::attribute::{self, DenseArray, DenseArrayValues, NamedAttribute};
use crate::ir::{Attribute, Body, ElementKind, Op, OpData, Region, RegionData, Type};
use crate::ops::{OpKind, OpName};
use crate::text::attributes::print_attribute_dictionary;
use crate::text::cursor::PResult;
use crate::text::parser::{IntoHint, ParsedOp, Parser, RegionArgument};
use crate::text::printer::Printer;
use crate::text::syntax::linalg::{as_i64_array, i64_array, parse_int_list, print_int_list};
use crate::text::syntax::operands::function_type_of;
use crate::text::types::print_function_type;

/// The indentation of the line being printed (the op's own indentation):
/// where MLIR's `printNewline` puts the continuation lines of an op.
fn current_indent(out: &str) -> usize {
    let line = &out[out.rfind('\n').map_or(0, |i| i + 1)..];
    line.len() - line.trim_start_matches(' ').len()
}

/// ` attributes {…}` for the op's attributes other than `elided`, if any.
fn print_attributes_with_keyword(pr: &mut Printer<'_>, op: Op, elided: &[&str]) {
    let data = &pr.body.ops[op];
    let mut rest: Vec<NamedAttribute> = data
        .properties
        .iter()
        .chain(&data.attributes)
        .filter(|a| !elided.contains(&a.name.as_str()))
        .cloned()
        .collect();
    if rest.is_empty() {
        return;
    }
    rest.sort_by(|a, b| a.name.cmp(&b.name));
    pr.out.push_str(" attributes ");
    print_attribute_dictionary(&mut pr.out, &rest);
}

/// `attributes {…}`, if present.
fn parse_attributes_with_keyword(p: &mut Parser<'_>, parsed: &mut ParsedOp) -> PResult<()> {
    if p.c.eat_keyword("attributes") {
        if p.c.peek() != b'{' {
            return Err(p
                .c
                .error_expected("'{' and an attribute dictionary after 'attributes'"));
        }
        p.parse_optional_attr_dict(&mut parsed.data)?;
    }
    Ok(())
}

/// Reads `: (inputs) -> results` and resolves `uses` against the inputs.
fn parse_functional_tail(
    p: &mut Parser<'_>,
    parsed: &mut ParsedOp,
    uses: &[(&str, usize, usize)],
) -> PResult<()> {
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
    parsed.data.operands = p.resolve_operands(uses, &function.inputs)?;
    parsed.result_types = function.results;
    Ok(())
}

// ---------------------------------------------------------------------------
// stablehlo.reduce
// ---------------------------------------------------------------------------

/// The commutative, region-free binary StableHLO ops: the inner ops the
/// compact form may name.
const COMMUTATIVE: [OpKind; 7] = [
    OpKind::Add,
    OpKind::And,
    OpKind::Maximum,
    OpKind::Minimum,
    OpKind::Multiply,
    OpKind::Or,
    OpKind::Xor,
];

/// `(%x init: %c), (%y init: %d)`: the inputs, then the init values.
fn parse_reduce_operands<'a>(p: &mut Parser<'a>) -> PResult<Vec<(&'a str, usize, usize)>> {
    let mut inputs = Vec::new();
    let mut inits = Vec::new();
    loop {
        p.c.expect(
            b'(',
            "'(' and an operand with its init value, as in `(%x init: %c)`",
        )?;
        inputs.push(p.parse_value_use()?);
        if !p.c.eat_keyword("init") {
            return Err(p
                .c
                .error_expected("'init'")
                .into_hint("reduce operands are written `(%x init: %c)`"));
        }
        p.c.expect(b':', "':' after 'init'")?;
        inits.push(p.parse_value_use()?);
        p.c.expect(b')', "')' after the init value")?;
        if !p.c.eat(b',') {
            break;
        }
    }
    inputs.extend(inits);
    Ok(inputs)
}

/// `across dimensions = [..]`.
fn parse_across_dimensions(p: &mut Parser<'_>, parsed: &mut ParsedOp) -> PResult<()> {
    if !p.c.eat_keyword("across") {
        return Err(p.c.error_expected("'across'"));
    }
    if !p.c.eat_keyword("dimensions") {
        return Err(p.c.error_expected("'dimensions'"));
    }
    p.c.expect(b'=', "'=' after 'dimensions'")?;
    let dimensions = parse_int_list(&mut p.c)?;
    Parser::set_property(&mut parsed.data, "dimensions", i64_array(dimensions));
    Ok(())
}

/// `stablehlo.reduce(%x init: %c), … applies stablehlo.add across dimensions
/// = [..] {attrs} : (…) -> …` or `… across dimensions = [..] {attrs} : (…) -> …
/// reducer(%a: t, %b: t) … { … }`.
pub(super) fn parse_reduce(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let uses = parse_reduce_operands(p)?;
    if !p.c.eat_keyword("applies") {
        parse_across_dimensions(p, &mut parsed)?;
        p.parse_optional_attr_dict(&mut parsed.data)?;
        parse_functional_tail(p, &mut parsed, &uses)?;
        if !p.c.eat_keyword("reducer") {
            return Err(p
                .c
                .error_expected("'reducer' and the reduction body")
                .into_hint("or write the compact form `applies stablehlo.add` before `across`"));
        }
        let mut firsts = Vec::new();
        let mut seconds = Vec::new();
        while p.c.eat(b'(') {
            firsts.push(p.parse_typed_argument()?);
            p.c.expect(b',', "',' between the element and accumulator arguments")?;
            seconds.push(p.parse_typed_argument()?);
            p.c.expect(b')', "')'")?;
        }
        firsts.extend(seconds);
        let region = p.parse_region(firsts)?;
        parsed.data.regions.push(region);
        return Ok(parsed);
    }
    p.c.skip_trivia();
    let at = p.c.pos;
    let word = if p.c.peek() == b'"' {
        p.c.string()?
    } else {
        p.c.identifier()
            .ok_or_else(|| p.c.error_expected("the name of the reduction op"))?
            .to_string()
    };
    let kind = OpKind::from_name(&word)
        .or_else(|| OpKind::from_name(&format!("stablehlo.{word}")))
        .filter(|kind| COMMUTATIVE.contains(kind));
    let Some(kind) = kind else {
        return Err(p
            .c
            .error_at(
                at,
                format!(
                    "expected the inner-op to be a commutative binary-op from the stablehlo dialect, with zero region, producing single result; found '{word}'"
                ),
            )
            .into_hint("the compact form takes stablehlo.add, and, maximum, minimum, multiply, or, xor; write other reductions with a `reducer` region"));
    };
    parse_across_dimensions(p, &mut parsed)?;
    p.parse_optional_attr_dict(&mut parsed.data)?;
    let type_at = p.c.pos;
    parse_functional_tail(p, &mut parsed, &uses)?;
    // The location belongs to the reduce and to the body it stands for.
    let location = p.parse_optional_location()?;
    let Some(Type::Tensor(input)) = parsed.data.operands.first().map(|&v| p.body.ty(v).clone())
    else {
        return Err(p
            .c
            .error_at(type_at, "expected a tensor as the first reduce operand"));
    };
    let scalar = Type::tensor(&[], input.element);
    let region = p.body.regions.push(RegionData::default());
    let block = p.body.add_block(region);
    let lhs = p.body.add_argument(block, scalar.clone(), location.clone());
    let rhs = p.body.add_argument(block, scalar.clone(), location.clone());
    let mut inner = OpData::new(OpName::Known(kind));
    inner.operands = vec![lhs, rhs];
    inner.location = location.clone();
    let inner = p.body.add_op(Some(block), inner, vec![scalar]);
    let mut terminator = OpData::new(OpName::Known(OpKind::Return));
    terminator.operands = p.body.ops[inner].results.clone();
    terminator.location = location.clone();
    p.body.add_op(Some(block), terminator, Vec::new());
    parsed.data.regions.push(region);
    parsed.data.location = location;
    Ok(parsed)
}

/// The inner op a reduce is written with in the compact form, when its body
/// is exactly `%r = inner %lhs, %rhs; return %r` over its own arguments (the
/// eligibility rule of MLIR's `ReduceOp::print`).
fn compact_inner(body: &Body, op: Op, region: Region) -> Option<OpName> {
    let data = &body.ops[op];
    let block = &body.blocks[body.entry_block(region)?];
    let [inner, terminator] = block.ops[..] else {
        return None;
    };
    let inner = &body.ops[inner];
    if !inner.name.kind().is_some_and(|k| COMMUTATIVE.contains(&k))
        || inner.operands.len() != 2
        || inner.results.len() != 1
        || !inner.regions.is_empty()
    {
        return None;
    }
    let expected = body.ty(inner.operands[0]);
    if inner
        .operands
        .iter()
        .chain(&inner.results)
        .any(|&v| body.ty(v) != expected)
    {
        return None;
    }
    let input = body.ty(*data.operands.first()?).as_tensor()?;
    if *expected != Type::tensor(&[], input.element.clone()) {
        return None;
    }
    if block.arguments != inner.operands {
        return None;
    }
    let terminator = &body.ops[terminator];
    let short = terminator.name.as_str().rsplit('.').next().unwrap_or("");
    if !short.eq_ignore_ascii_case("return") || terminator.operands != inner.results {
        return None;
    }
    Some(inner.name.clone())
}

pub(super) fn print_reduce(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let count = data.operands.len();
    let Some(dimensions) = as_i64_array(attribute::find(&data.properties, "dimensions")) else {
        return false;
    };
    let [region] = data.regions[..] else {
        return false;
    };
    let Some(entry) = body.entry_block(region) else {
        return false;
    };
    if count == 0 || !count.is_multiple_of(2) {
        return false;
    }
    let pairs = count / 2;
    let compact = compact_inner(body, op, region);
    if compact.is_none() && body.blocks[entry].arguments.len() != count {
        return false;
    }
    pr.print_op_name(&data.name);
    for i in 0..pairs {
        if i > 0 {
            pr.out.push_str(", ");
        }
        pr.out.push('(');
        pr.print_value(data.operands[i]);
        pr.out.push_str(" init: ");
        pr.print_value(data.operands[i + pairs]);
        pr.out.push(')');
    }
    if let Some(inner) = &compact {
        pr.out.push_str(" applies ");
        pr.out.push_str(inner.as_str());
    }
    pr.out.push_str(" across dimensions = ");
    print_int_list(&mut pr.out, dimensions);
    pr.print_remaining_attributes(op, &["dimensions"]);
    pr.out.push_str(" : ");
    let function = function_type_of(pr, op);
    print_function_type(&mut pr.out, &function);
    if compact.is_none() {
        let indent = current_indent(&pr.out);
        pr.out.push('\n');
        pr.out.push_str(&" ".repeat(indent));
        pr.out.push_str(" reducer");
        let arguments = &body.blocks[entry].arguments;
        for i in 0..pairs {
            pr.out.push('(');
            pr.print_typed_value(arguments[i]);
            pr.out.push_str(", ");
            pr.print_typed_value(arguments[i + pairs]);
            pr.out.push_str(") ");
        }
        pr.out.push(' ');
        pr.print_owned_region(op, region, false);
    }
    true
}

// ---------------------------------------------------------------------------
// stablehlo.while
// ---------------------------------------------------------------------------

/// `stablehlo.while(%iterArg = %a, …) : t, … (attributes {…})? cond {…} do {…}`.
pub(super) fn parse_while(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    p.c.expect(b'(', "'(' and the loop variables (`%iterArg = %init`)")?;
    let mut names = Vec::new();
    let mut uses = Vec::new();
    if !p.c.eat(b')') {
        loop {
            p.c.skip_trivia();
            let at = p.c.pos;
            names.push((p.parse_value_name()?, at));
            p.c.expect(b'=', "'=' and the initial value of the loop variable")?;
            uses.push(p.parse_value_use()?);
            if p.c.eat(b')') {
                break;
            }
            p.c.expect(b',', "',' or ')' in the loop variables")?;
        }
    }
    let types = if uses.is_empty() {
        Vec::new()
    } else {
        p.c.expect(b':', "':' and the types of the loop variables")?;
        let at = p.c.pos;
        let types = p.parse_type_list()?;
        if types.len() != uses.len() {
            return Err(p.c.error_at(
                at,
                format!(
                    "expected {} types (one per loop variable) but had {}",
                    uses.len(),
                    types.len()
                ),
            ));
        }
        types
    };
    parsed.data.operands = p.resolve_operands(&uses, &types)?;
    parse_attributes_with_keyword(p, &mut parsed)?;
    for keyword in ["cond", "do"] {
        if !p.c.eat_keyword(keyword) {
            return Err(p.c.error_expected(&format!("'{keyword}' and a region")));
        }
        let args = names
            .iter()
            .zip(&types)
            .map(|(&(name, at), ty)| RegionArgument {
                name,
                ty: ty.clone(),
                location: None,
                at,
            })
            .collect();
        let region = p.parse_region(args)?;
        parsed.data.regions.push(region);
    }
    parsed.result_types = types;
    Ok(parsed)
}

pub(super) fn print_while(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let [cond, loop_body] = data.regions[..] else {
        return false;
    };
    let types: Vec<&Type> = data.operands.iter().map(|&v| body.ty(v)).collect();
    // Both regions take the loop variables as their arguments; the header
    // names them once (and, as in MLIR, does not print their locations).
    for region in [cond, loop_body] {
        let Some(entry) = body.entry_block(region) else {
            return false;
        };
        let arguments = &body.blocks[entry].arguments;
        if arguments.len() != types.len()
            || arguments.iter().zip(&types).any(|(&a, t)| body.ty(a) != *t)
        {
            return false;
        }
    }
    let Some(entry) = body.entry_block(loop_body) else {
        return false;
    };
    let arguments = &body.blocks[entry].arguments;
    pr.print_op_name(&data.name);
    pr.out.push('(');
    for (i, (&argument, &operand)) in arguments.iter().zip(&data.operands).enumerate() {
        if i > 0 {
            pr.out.push_str(", ");
        }
        pr.print_value(argument);
        pr.out.push_str(" = ");
        pr.print_value(operand);
    }
    pr.out.push(')');
    if !data.operands.is_empty() {
        pr.out.push_str(" : ");
        pr.print_value_types(&data.operands);
    }
    print_attributes_with_keyword(pr, op, &[]);
    let indent = current_indent(&pr.out);
    pr.out.push('\n');
    pr.out.push_str(&" ".repeat(indent));
    pr.out.push_str("cond ");
    pr.print_owned_region(op, cond, false);
    pr.out.push_str(" do ");
    pr.print_owned_region(op, loop_body, false);
    true
}

// ---------------------------------------------------------------------------
// chlo.scan
// ---------------------------------------------------------------------------

fn i32_array(values: Vec<i64>) -> Attribute {
    Attribute::DenseArray(DenseArray {
        element: ElementKind::int(32),
        values: DenseArrayValues::Integers(values),
    })
}

fn as_i32_array(attribute: Option<&Attribute>) -> Option<&[i64]> {
    match attribute? {
        Attribute::DenseArray(DenseArray {
            element: ElementKind::Integer { width: 32, .. },
            values: DenseArrayValues::Integers(values),
        }) => Some(values),
        _ => None,
    }
}

/// `chlo.scan(%x, …) inits(%c, …) dimension=0 (attributes {…})? { ^bb0(…): … }
/// : (…) -> (…)`.
pub(super) fn parse_chlo_scan(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    p.c.expect(b'(', "'(' and the scanned inputs")?;
    let mut uses = p.parse_value_use_list(b')')?;
    if !p.c.eat_keyword("inits") {
        return Err(p.c.error_expected("'inits' and the initial carries"));
    }
    p.c.expect(b'(', "'(' and the initial carries")?;
    let inits = p.parse_value_use_list(b')')?;
    let (input_count, init_count) = (uses.len(), inits.len());
    uses.extend(inits);
    if !p.c.eat_keyword("dimension") {
        return Err(p.c.error_expected("'dimension'"));
    }
    p.c.expect(b'=', "'=' after 'dimension'")?;
    p.c.skip_trivia();
    let at = p.c.pos;
    let dimension = p.c.integer()?;
    let dimension = i64::try_from(dimension)
        .map_err(|_| p.c.error_at(at, "dimension does not fit in 64 bits"))?;
    Parser::set_property(&mut parsed.data, "dimension", Attribute::i64(dimension));
    parse_attributes_with_keyword(p, &mut parsed)?;
    let region = p.parse_region(Vec::new())?;
    parsed.data.regions.push(region);
    let type_at = p.c.pos;
    parse_functional_tail(p, &mut parsed, &uses)?;
    let result_count = parsed.result_types.len();
    if result_count < init_count {
        return Err(p.c.error_at(
            type_at,
            format!(
                "expected at least {init_count} results (a carry per init value) but had {result_count}"
            ),
        ));
    }
    Parser::set_property(
        &mut parsed.data,
        "operandSegmentSizes",
        i32_array(vec![input_count as i64, init_count as i64]),
    );
    Parser::set_property(
        &mut parsed.data,
        "resultSegmentSizes",
        i32_array(vec![(result_count - init_count) as i64, init_count as i64]),
    );
    Ok(parsed)
}

pub(super) fn print_chlo_scan(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let Some(&[inputs, inits]) =
        as_i32_array(attribute::find(&data.properties, "operandSegmentSizes"))
    else {
        return false;
    };
    let results = data.results.len() as i64;
    if inputs < 0
        || inits < 0
        || (inputs + inits) as usize != data.operands.len()
        || as_i32_array(attribute::find(&data.properties, "resultSegmentSizes"))
            != Some(&[results - inits, inits][..])
    {
        return false;
    }
    let Some(Attribute::Integer {
        value: dimension,
        ty,
    }) = attribute::find(&data.properties, "dimension")
    else {
        return false;
    };
    if *ty != Type::Element(ElementKind::int(64)) {
        return false;
    }
    let [region] = data.regions[..] else {
        return false;
    };
    let (input_values, init_values) = data.operands.split_at(inputs as usize);
    pr.print_op_name(&data.name);
    pr.out.push('(');
    pr.print_value_list(input_values);
    pr.out.push_str(") inits(");
    pr.print_value_list(init_values);
    pr.out.push_str(") dimension=");
    pr.out.push_str(&dimension.to_string());
    print_attributes_with_keyword(
        pr,
        op,
        &["dimension", "operandSegmentSizes", "resultSegmentSizes"],
    );
    pr.out.push(' ');
    pr.print_owned_region(op, region, true);
    pr.out.push_str(" : ");
    let function = function_type_of(pr, op);
    print_function_type(&mut pr.out, &function);
    true
}

// ---------------------------------------------------------------------------
// chlo.top_k
// ---------------------------------------------------------------------------

/// `chlo.top_k(%x, k = 4) {attrs} : t -> (u, v)`.
pub(super) fn parse_chlo_top_k(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    p.c.expect(b'(', "'(' and the operand")?;
    let operand = p.parse_value_use()?;
    p.c.expect(b',', "',' and 'k'")?;
    if !p.c.eat_keyword("k") {
        return Err(p.c.error_expected("'k'"));
    }
    p.c.expect(b'=', "'=' after 'k'")?;
    p.c.skip_trivia();
    let at = p.c.pos;
    let k = p.c.integer()?;
    let k = i64::try_from(k).map_err(|_| p.c.error_at(at, "k does not fit in 64 bits"))?;
    Parser::set_property(&mut parsed.data, "k", Attribute::i64(k));
    if p.c.eat(b',') {
        if !p.c.eat_keyword("is_stable") {
            return Err(p.c.error_expected("'is_stable'"));
        }
        p.c.expect(b'=', "'=' after 'is_stable'")?;
        let at = p.c.pos;
        let is_stable = match p.parse_attribute()? {
            Attribute::Bool(flag) => flag,
            _ => return Err(p.c.error_at(at, "is_stable must be true or false")),
        };
        Parser::set_property(&mut parsed.data, "is_stable", Attribute::Bool(is_stable));
    }
    p.c.expect(b')', "')'")?;
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the operand type")?;
    let ty = p.parse_type()?;
    p.c.expect_str("->")?;
    p.c.expect(b'(', "'(' and the types of the values and indices")?;
    let values = p.parse_type()?;
    p.c.expect(b',', "',' and the type of the indices")?;
    let indices = p.parse_type()?;
    p.c.expect(b')', "')'")?;
    parsed.data.operands = p.resolve_operands(&[operand], &[ty])?;
    parsed.result_types = vec![values, indices];
    Ok(parsed)
}

pub(super) fn print_chlo_top_k(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let ([operand], [values, indices]) = (&data.operands[..], &data.results[..]) else {
        return false;
    };
    let Some(Attribute::Integer { value: k, ty }) = attribute::find(&data.properties, "k") else {
        return false;
    };
    if *ty != Type::Element(ElementKind::int(64)) {
        return false;
    }
    let is_stable = match attribute::find(&data.properties, "is_stable") {
        None => None,
        Some(Attribute::Bool(flag)) => Some(*flag),
        Some(_) => return false,
    };
    pr.print_op_name(&data.name);
    pr.out.push('(');
    pr.print_value(*operand);
    pr.out.push_str(&format!(", k = {k}"));
    if let Some(flag) = is_stable {
        pr.out.push_str(&format!(", is_stable = {flag}"));
    }
    pr.out.push(')');
    pr.print_remaining_attributes(op, &["is_stable", "k"]);
    pr.out.push_str(" : ");
    pr.print_value_types(&[*operand]);
    pr.out.push_str(" -> (");
    pr.print_value_types(&[*values, *indices]);
    pr.out.push(')');
    true
}

#[cfg(test)]
mod tests {
    use crate::text::parse;
    use crate::text::syntax::test_support::round_trip;

    #[test]
    fn compact_reduce() {
        let text = "module {\n  func.func @f(%arg0: tensor<3x5xf32>) -> tensor<5xf32> {\n    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3x5xf32>, tensor<f32>) -> tensor<5xf32> loc(\"r\")\n    return %0 : tensor<5xf32>\n  }\n}\n";
        let (pretty, generic) = round_trip(text);
        assert_eq!(pretty, text);
        assert!(
            generic.contains(
                r#"%1 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg1: tensor<f32> loc("r"), %arg2: tensor<f32> loc("r")):
      %2 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc("r")
      "stablehlo.return"(%2) : (tensor<f32>) -> () loc("r")
    }) : (tensor<3x5xf32>, tensor<f32>) -> tensor<5xf32> loc("r")"#
            ),
            "{generic}"
        );
    }

    #[test]
    fn reduce_with_reducer_region() {
        let text = "module {\n  func.func @f(%arg0: tensor<3x5xf32>, %arg1: tensor<3x5xi32>) -> (tensor<3xf32>, tensor<3xi32>) {\n    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n    %c = stablehlo.constant dense<0> : tensor<i32>\n    %0:2 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %c) across dimensions = [1] : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)\n     reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<i32>, %arg5: tensor<i32>)  {\n      %1 = stablehlo.maximum %arg2, %arg4 : tensor<f32>\n      %2 = stablehlo.maximum %arg3, %arg5 : tensor<i32>\n      stablehlo.return %1, %2 : tensor<f32>, tensor<i32>\n    }\n    return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>\n  }\n}\n";
        let (pretty, _) = round_trip(text);
        assert_eq!(pretty, text);
    }

    #[test]
    fn reduce_not_compact_when_body_uses_swapped_arguments() {
        let text = "func.func @f(%arg0: tensor<3xf32>, %init: tensor<f32>) -> tensor<f32> {\n  %0 = \"stablehlo.reduce\"(%arg0, %init) <{dimensions = array<i64: 0>}> ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    %1 = stablehlo.add %b, %a : tensor<f32>\n    stablehlo.return %1 : tensor<f32>\n  }) : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n";
        let (pretty, _) = round_trip(text);
        assert!(pretty.contains(" across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n     reducer(%arg2: tensor<f32>, %arg3: tensor<f32>)  {\n      %1 = stablehlo.add %arg3, %arg2 : tensor<f32>\n"), "{pretty}");
    }

    #[test]
    fn reduce_compact_rejects_non_commutative_ops() {
        let text = "func.func @f(%arg0: tensor<3xf32>, %c: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.subtract across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n";
        let error = parse(text).expect_err("an error").render("t", text);
        assert!(error.contains("commutative binary-op"), "{error}");
    }

    #[test]
    fn while_loop() {
        let text = "module {\n  func.func @f(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {\n    %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1) : tensor<i32>, tensor<4xf32> attributes {foo = 1 : i32}\n    cond {\n      %c = stablehlo.constant dense<3> : tensor<i32>\n      %1 = stablehlo.compare LT, %iterArg, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>\n      stablehlo.return %1 : tensor<i1>\n    } do {\n      %c = stablehlo.constant dense<1> : tensor<i32>\n      %1 = stablehlo.add %iterArg, %c : tensor<i32>\n      stablehlo.return %1, %iterArg_0 : tensor<i32>, tensor<4xf32>\n    }\n    return %0#1 : tensor<4xf32>\n  }\n}\n";
        let (pretty, generic) = round_trip(text);
        assert_eq!(pretty, text);
        // The generic form asks no op for names: the loop's arguments are
        // numbered like any other block's.
        assert!(generic.contains("%0:2 = \"stablehlo.while\"(%arg0, %arg1) ({\n    ^bb0(%arg2: tensor<i32>, %arg3: tensor<4xf32>):\n"), "{generic}");
        assert!(
            generic.contains(
                "}) {foo = 1 : i32} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)"
            ),
            "{generic}"
        );
    }

    #[test]
    fn chlo_top_k() {
        let text = "module {\n  func.func @f(%arg0: tensor<5x16xf32>) -> tensor<?x?xf32> {\n    %0:2 = chlo.top_k(%arg0, k = 4) {largest = true} : tensor<5x16xf32> -> (tensor<?x?xf32>, tensor<?x?xi32>)\n    return %0#0 : tensor<?x?xf32>\n  }\n}\n";
        let (pretty, generic) = round_trip(text);
        assert_eq!(pretty, text);
        assert!(generic.contains(r#"%0:2 = "chlo.top_k"(%arg0) <{k = 4 : i64, largest = true}> : (tensor<5x16xf32>) -> (tensor<?x?xf32>, tensor<?x?xi32>)"#), "{generic}");
    }

    #[test]
    fn chlo_scan() {
        let text = "module {\n  func.func @f(%arg0: tensor<4xi32>, %arg1: tensor<i32>) -> tensor<4xi32> {\n    %0:2 = chlo.scan(%arg0) inits(%arg1) dimension=0 attributes {is_reverse = true} {\n    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):\n      %1 = stablehlo.add %arg2, %arg3 : tensor<i32>\n      stablehlo.return %1, %1 : tensor<i32>, tensor<i32>\n    } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)\n    return %0#0 : tensor<4xi32>\n  }\n}\n";
        let (pretty, generic) = round_trip(text);
        assert_eq!(pretty, text);
        assert!(generic.contains(r#"%0:2 = "chlo.scan"(%arg0, %arg1) <{dimension = 0 : i64, is_reverse = true, operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 1, 1>}> ({"#), "{generic}");
    }
}

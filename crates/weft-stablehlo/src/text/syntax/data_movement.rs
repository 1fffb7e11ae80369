//! Data-movement forms, and the "clause" engine most of StableHLO's declarative
//! assembly formats reduce to: operands, then `keyword = value` clauses, the
//! attribute dictionary, and a type signature.
//!
//! - `stablehlo.broadcast_in_dim %x, dims = [1] : (t) -> u`
//! - `stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [1] : (t, s) -> u`
//! - `stablehlo.iota dim = 0 : t`, `stablehlo.dynamic_iota %shape, dim = 0 : (s) -> t`
//! - `stablehlo.transpose %x, dims = [1, 0] : (t) -> u`
//! - `stablehlo.reverse %x, dims = [0] : t`
//! - `stablehlo.concatenate %a, %b, dim = 0 : (t, u) -> v`
//! - `stablehlo.slice %x [1:3, 0:8:2] : (t) -> u`
//! - `stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (t, i, j) -> u`
//! - `stablehlo.pad %x, %v, low = [1], high = [0], interior = [2] : (t, v) -> u`
//! - `stablehlo.get_dimension_size %x, dim = 1 : (t) -> tensor<i32>`
//! - `stablehlo.set_dimension_size %x, %size, dim = 1 : (t, tensor<i32>) -> u`
//! - `stablehlo.tuple %a, %b : tuple<t, u>`
//! - `stablehlo.get_tuple_element %t[0] : (tuple<t, u>) -> t`
//!
//! Properties are stored with the kinds MLIR uses, so the generic form prints
//! what MLIR's generic printer prints: `dims`/`sizes`/`low`… lists are
//! `array<i64: …>`, `dim` is an `i64` integer, a tuple index an `i32` integer,
//! enum keywords `#stablehlo<kind KEYWORD>`. A printer returns `false` (generic
//! form) when a property is missing or of another kind, so nothing is lost.

use crate::ir::attribute::{self, DenseArray, DenseArrayValues};
use crate::ir::{Attribute, ElementKind, FunctionType, Op, OpData, Signedness, Type, Value};
use crate::ops::{OpName, Syntax};
use crate::text::cursor::PResult;
use crate::text::parser::{IntoHint, ParsedOp, Parser};
use crate::text::printer::Printer;
use crate::text::syntax::operands::function_type_of;
use crate::text::types::{print_function_type, print_type};

/// An SSA use as the parser reads it: name, result number, offset.
pub(super) type Use<'a> = (&'a str, usize, usize);

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

pub(super) fn parse(p: &mut Parser<'_>, name: OpName, syntax: Syntax) -> PResult<ParsedOp> {
    match syntax {
        Syntax::Slice => parse_slice(p, name),
        Syntax::Tuple => parse_tuple(p, name),
        Syntax::GetTupleElement => parse_get_tuple_element(p, name),
        _ => match clause_form(syntax) {
            Some(form) => parse_clause_form(p, name, form),
            None => Err(p
                .c
                .error_expected("an operation weft can read in its custom form")),
        },
    }
}

pub(super) fn print(pr: &mut Printer<'_>, op: Op, syntax: Syntax) -> bool {
    match syntax {
        Syntax::Slice => print_slice(pr, op),
        Syntax::Tuple => print_tuple(pr, op),
        Syntax::GetTupleElement => print_get_tuple_element(pr, op),
        _ => clause_form(syntax).is_some_and(|form| print_clause_form(pr, op, form)),
    }
}

/// The clause form of `syntax`, for the ops that have one.
pub(super) fn clause_form(syntax: Syntax) -> Option<&'static ClauseForm> {
    Some(match syntax {
        Syntax::BroadcastInDim => &BROADCAST_IN_DIM,
        Syntax::DynamicBroadcastInDim => &DYNAMIC_BROADCAST_IN_DIM,
        Syntax::Iota => &IOTA,
        Syntax::DynamicIota => &DYNAMIC_IOTA,
        Syntax::Transpose => &TRANSPOSE,
        Syntax::Reverse => &REVERSE,
        Syntax::Concatenate => &CONCATENATE,
        Syntax::DynamicSlice => &DYNAMIC_SLICE,
        Syntax::Pad => &PAD,
        Syntax::GetDimensionSize => &GET_DIMENSION_SIZE,
        Syntax::SetDimensionSize => &SET_DIMENSION_SIZE,
        Syntax::Rng => &super::misc::RNG,
        Syntax::RngBitGenerator => &super::misc::RNG_BIT_GENERATOR,
        Syntax::Fft => &super::misc::FFT,
        Syntax::ReducePrecision => &super::misc::REDUCE_PRECISION,
        Syntax::Cholesky => &super::misc::CHOLESKY,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// The clause engine
// ---------------------------------------------------------------------------

/// How many operands a clause form takes.
#[derive(Copy, Clone, Debug)]
pub(super) enum Arity {
    /// Exactly this many.
    Exactly(usize),
    /// This many or more (a variadic tail).
    AtLeast(usize),
}

/// One `keyword = value` clause after the operands.
#[derive(Copy, Clone, Debug)]
pub(super) enum Clause {
    /// `keyword = [1, 2]`: an `array<i64: …>` property.
    I64Array {
        keyword: &'static str,
        property: &'static str,
    },
    /// `keyword = 3`: a signless integer property of `width` bits.
    Integer {
        keyword: &'static str,
        property: &'static str,
        width: u32,
    },
    /// `keyword = CASE`: a `#stablehlo<kind CASE>` enum property.
    Enum {
        keyword: &'static str,
        property: &'static str,
        kind: &'static str,
        cases: &'static [&'static str],
    },
    /// `format = e5m10`: the `exponent_bits` and `mantissa_bits` (`i32`)
    /// properties of `reduce_precision`.
    ExponentMantissa,
    /// `(, keyword = true)?`: a bool property that defaults to `false`,
    /// written only when it is `true` (MLIR's optional group on a
    /// default-valued attribute).
    OptionalTrue {
        keyword: &'static str,
        property: &'static str,
    },
}

impl Clause {
    fn keyword(self) -> &'static str {
        match self {
            Clause::I64Array { keyword, .. }
            | Clause::Integer { keyword, .. }
            | Clause::Enum { keyword, .. }
            | Clause::OptionalTrue { keyword, .. } => keyword,
            Clause::ExponentMantissa => "format",
        }
    }

    /// Adds the properties this clause writes to `out`.
    fn push_properties(self, out: &mut Vec<&'static str>) {
        match self {
            Clause::I64Array { property, .. }
            | Clause::Integer { property, .. }
            | Clause::Enum { property, .. }
            | Clause::OptionalTrue { property, .. } => out.push(property),
            Clause::ExponentMantissa => out.extend(["exponent_bits", "mantissa_bits"]),
        }
    }

    fn placeholder(self) -> &'static str {
        match self {
            Clause::I64Array { .. } => "[…]",
            Clause::Integer { .. } => "<integer>",
            Clause::Enum { .. } => "<keyword>",
            Clause::ExponentMantissa => "e#m#",
            Clause::OptionalTrue { .. } => "true",
        }
    }
}

/// How the type signature after `:` is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum TypeTail {
    /// `(t, u) -> v` (`functional-type(operands, results)`).
    Functional,
    /// `t` when every operand and the result have type `t`, else `(t) -> u`
    /// (StableHLO's `SameOperandsAndResultType` directive).
    SameType,
    /// The result type alone (`type($output)`; for ops without operands).
    Result,
}

/// A declarative form: operands, clauses, `attr-dict`, `:` and types.
#[derive(Debug)]
pub(super) struct ClauseForm {
    pub(super) operands: Arity,
    pub(super) clauses: &'static [Clause],
    pub(super) types: TypeTail,
    pub(super) results: usize,
}

const DIMS_BROADCAST: Clause = Clause::I64Array {
    keyword: "dims",
    property: "broadcast_dimensions",
};

const DIM_IOTA: Clause = Clause::Integer {
    keyword: "dim",
    property: "iota_dimension",
    width: 64,
};

static BROADCAST_IN_DIM: ClauseForm = ClauseForm {
    operands: Arity::Exactly(1),
    clauses: &[DIMS_BROADCAST],
    types: TypeTail::Functional,
    results: 1,
};

static DYNAMIC_BROADCAST_IN_DIM: ClauseForm = ClauseForm {
    operands: Arity::Exactly(2),
    clauses: &[DIMS_BROADCAST],
    types: TypeTail::Functional,
    results: 1,
};

static IOTA: ClauseForm = ClauseForm {
    operands: Arity::Exactly(0),
    clauses: &[DIM_IOTA],
    types: TypeTail::Result,
    results: 1,
};

static DYNAMIC_IOTA: ClauseForm = ClauseForm {
    operands: Arity::Exactly(1),
    clauses: &[DIM_IOTA],
    types: TypeTail::Functional,
    results: 1,
};

static TRANSPOSE: ClauseForm = ClauseForm {
    operands: Arity::Exactly(1),
    clauses: &[Clause::I64Array {
        keyword: "dims",
        property: "permutation",
    }],
    types: TypeTail::Functional,
    results: 1,
};

static REVERSE: ClauseForm = ClauseForm {
    operands: Arity::Exactly(1),
    clauses: &[Clause::I64Array {
        keyword: "dims",
        property: "dimensions",
    }],
    types: TypeTail::SameType,
    results: 1,
};

static CONCATENATE: ClauseForm = ClauseForm {
    operands: Arity::AtLeast(1),
    clauses: &[Clause::Integer {
        keyword: "dim",
        property: "dimension",
        width: 64,
    }],
    types: TypeTail::Functional,
    results: 1,
};

static DYNAMIC_SLICE: ClauseForm = ClauseForm {
    operands: Arity::AtLeast(1),
    clauses: &[Clause::I64Array {
        keyword: "sizes",
        property: "slice_sizes",
    }],
    types: TypeTail::Functional,
    results: 1,
};

static PAD: ClauseForm = ClauseForm {
    operands: Arity::Exactly(2),
    clauses: &[
        Clause::I64Array {
            keyword: "low",
            property: "edge_padding_low",
        },
        Clause::I64Array {
            keyword: "high",
            property: "edge_padding_high",
        },
        Clause::I64Array {
            keyword: "interior",
            property: "interior_padding",
        },
    ],
    types: TypeTail::Functional,
    results: 1,
};

static GET_DIMENSION_SIZE: ClauseForm = ClauseForm {
    operands: Arity::Exactly(1),
    clauses: &[Clause::Integer {
        keyword: "dim",
        property: "dimension",
        width: 64,
    }],
    types: TypeTail::Functional,
    results: 1,
};

static SET_DIMENSION_SIZE: ClauseForm = ClauseForm {
    operands: Arity::Exactly(2),
    clauses: &[Clause::Integer {
        keyword: "dim",
        property: "dimension",
        width: 64,
    }],
    types: TypeTail::Functional,
    results: 1,
};

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("{n} {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Checks the number of operand uses against `arity`.
fn check_arity(p: &mut Parser<'_>, name: &OpName, arity: Arity, uses: &[Use<'_>]) -> PResult<()> {
    let (ok, expected) = match arity {
        Arity::Exactly(n) => (uses.len() == n, plural(n, "operand")),
        Arity::AtLeast(n) => (
            uses.len() >= n,
            format!("at least {}", plural(n, "operand")),
        ),
    };
    if ok {
        return Ok(());
    }
    let at = match arity {
        Arity::Exactly(n) if uses.len() > n => uses[n].2,
        _ => {
            p.c.skip_trivia();
            p.c.pos
        }
    };
    Err(p.c.error_at(
        at,
        format!("'{}' takes {expected}, found {}", name.as_str(), uses.len()),
    ))
}

fn parse_clause_form(p: &mut Parser<'_>, name: OpName, form: &ClauseForm) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name.clone());
    let uses = parse_optional_uses(p)?;
    check_arity(p, &name, form.operands, &uses)?;
    let mut printed: Vec<&'static str> = Vec::new();
    for (i, &clause) in form.clauses.iter().enumerate() {
        let keyword = clause.keyword();
        if let Clause::OptionalTrue { property, .. } = clause {
            // `(, lower = true)?`
            if p.c.peek() != b',' {
                printed.push(property);
                continue;
            }
        }
        if i > 0 || !uses.is_empty() {
            p.c.expect(
                b',',
                &format!("',' and '{keyword} = {}'", clause.placeholder()),
            )?;
        }
        if !p.c.eat_keyword(keyword) {
            return Err(p
                .c
                .error_expected(&format!("'{keyword} = {}'", clause.placeholder())));
        }
        p.c.expect(b'=', &format!("'=' after '{keyword}'"))?;
        parse_clause_value(p, &mut parsed.data, clause)?;
        clause.push_properties(&mut printed);
    }
    parse_attr_dict(p, &mut parsed.data, &printed)?;
    parse_type_tail(p, &mut parsed, &uses, form.types, form.results)?;
    Ok(parsed)
}

fn parse_clause_value(p: &mut Parser<'_>, data: &mut OpData, clause: Clause) -> PResult<()> {
    match clause {
        Clause::I64Array { keyword, property } => {
            let values = parse_i64_list(p, &format!("the '{keyword}' list"))?;
            Parser::set_property(data, property, i64_array(values));
        }
        Clause::Integer {
            property, width, ..
        } => {
            let value = parse_integer(p, width)?;
            Parser::set_property(data, property, integer(value, width));
        }
        Clause::Enum {
            keyword,
            property,
            kind,
            cases,
        } => {
            let value = parse_enum(p, kind, cases, keyword)?;
            Parser::set_property(data, property, value);
        }
        Clause::ExponentMantissa => {
            p.c.skip_trivia();
            let at = p.c.pos;
            let Some(word) = p.c.identifier() else {
                return Err(p.c.error_expected("a format 'e#m#' (e.g. e5m10)"));
            };
            let Some((exponent, mantissa)) = split_exponent_mantissa(word) else {
                return Err(p
                    .c
                    .error_at(
                        at,
                        format!("expected exponent mantissa in format e#m#, saw '{word}'"),
                    )
                    .into_hint(
                        "write the format as e<exponent bits>m<mantissa bits>, e.g. e5m10",
                    ));
            };
            Parser::set_property(data, "exponent_bits", integer(exponent, 32));
            Parser::set_property(data, "mantissa_bits", integer(mantissa, 32));
        }
        Clause::OptionalTrue { property, .. } => {
            let value = if p.c.eat_keyword("true") {
                true
            } else if p.c.eat_keyword("false") {
                false
            } else {
                return Err(p.c.error_expected("'true' or 'false'"));
            };
            Parser::set_property(data, property, Attribute::Bool(value));
        }
    }
    Ok(())
}

/// `e5m10` → (5, 10).
fn split_exponent_mantissa(word: &str) -> Option<(i64, i64)> {
    let rest = word.strip_prefix('e')?;
    let (exponent, mantissa) = rest.split_once('m')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(exponent) || !digits(mantissa) {
        return None;
    }
    let exponent: i32 = exponent.parse().ok()?;
    let mantissa: i32 = mantissa.parse().ok()?;
    Some((i64::from(exponent), i64::from(mantissa)))
}

fn print_clause_form(pr: &mut Printer<'_>, op: Op, form: &ClauseForm) -> bool {
    let data = &pr.body.ops[op];
    let arity_ok = match form.operands {
        Arity::Exactly(n) => data.operands.len() == n,
        Arity::AtLeast(n) => data.operands.len() >= n,
    };
    if !arity_ok || data.results.len() != form.results || !data.regions.is_empty() {
        return false;
    }
    // Render every clause first: a property that does not fit means the
    // generic form.
    let mut clauses: Vec<String> = Vec::new();
    let mut printed: Vec<&'static str> = Vec::new();
    for &clause in form.clauses {
        let Some(text) = render_clause(&data.properties, clause) else {
            return false;
        };
        if let Some(text) = text {
            clauses.push(text);
        }
        clause.push_properties(&mut printed);
    }
    if form.types == TypeTail::Result && !data.operands.is_empty() {
        return false;
    }
    let operands = data.operands.clone();
    pr.print_op_name(&data.name);
    if !operands.is_empty() {
        pr.out.push(' ');
        pr.print_value_list(&operands);
    }
    for (i, text) in clauses.iter().enumerate() {
        pr.out.push_str(if i == 0 && operands.is_empty() {
            " "
        } else {
            ", "
        });
        pr.out.push_str(text);
    }
    pr.print_remaining_attributes(op, &printed);
    pr.out.push_str(" : ");
    print_type_tail(pr, op, form.types);
    true
}

/// `keyword = value` for `clause`; `Some(None)` when the clause is optional
/// and absent, `None` when the properties do not fit the syntax.
fn render_clause(
    properties: &[attribute::NamedAttribute],
    clause: Clause,
) -> Option<Option<String>> {
    let keyword = clause.keyword();
    let value = match clause {
        Clause::I64Array { property, .. } => {
            format_i64_list(as_i64_array(attribute::find(properties, property))?)
        }
        Clause::Integer {
            property, width, ..
        } => integer_value(attribute::find(properties, property), width)?.to_string(),
        Clause::Enum {
            property,
            kind,
            cases,
            ..
        } => enum_case(attribute::find(properties, property), kind, cases)?.to_string(),
        Clause::ExponentMantissa => {
            let exponent = integer_value(attribute::find(properties, "exponent_bits"), 32)?;
            let mantissa = integer_value(attribute::find(properties, "mantissa_bits"), 32)?;
            if exponent < 0 || mantissa < 0 {
                return None;
            }
            format!("e{exponent}m{mantissa}")
        }
        Clause::OptionalTrue { property, .. } => match attribute::find(properties, property) {
            None | Some(Attribute::Bool(false)) => return Some(None),
            Some(Attribute::Bool(true)) => "true".to_string(),
            Some(_) => return None,
        },
    };
    Some(Some(format!("{keyword} = {value}")))
}

// ---------------------------------------------------------------------------
// Shared pieces: operands, attribute dictionaries, type signatures, values
// ---------------------------------------------------------------------------

/// `%a, %b` if the next token is a value, else nothing.
pub(super) fn parse_optional_uses<'a>(p: &mut Parser<'a>) -> PResult<Vec<Use<'a>>> {
    if p.c.peek() == b'%' {
        p.parse_value_uses()
    } else {
        Ok(Vec::new())
    }
}

/// The optional attribute dictionary of a custom form. `printed` names the
/// inherent attributes the form's own syntax wrote: writing one of them again
/// in the dictionary is an error rather than a silent overwrite.
pub(super) fn parse_attr_dict(
    p: &mut Parser<'_>,
    data: &mut OpData,
    printed: &[&str],
) -> PResult<()> {
    p.c.skip_trivia();
    let at = p.c.pos;
    let mut dictionary = OpData::new(data.name.clone());
    p.parse_optional_attr_dict(&mut dictionary)?;
    for entry in dictionary.properties.iter().chain(&dictionary.attributes) {
        if printed.contains(&entry.name.as_str()) {
            let written = name_position(&p.c.src[at..p.c.pos], &entry.name).map_or(at, |i| at + i);
            return Err(p
                .c
                .error_at(
                    written,
                    format!(
                        "attribute '{}' of '{}' is given twice: by the op's syntax and in its attribute dictionary",
                        entry.name,
                        data.name.as_str()
                    ),
                )
                .into_hint("remove it from the attribute dictionary"));
        }
    }
    for entry in dictionary.properties {
        attribute::set(&mut data.properties, &entry.name, entry.value);
    }
    for entry in dictionary.attributes {
        attribute::set(&mut data.attributes, &entry.name, entry.value);
    }
    Ok(())
}

/// Where the entry `name` is written in the attribute dictionary `text`: the
/// first occurrence that is a whole word.
fn name_position(text: &str, name: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    text.match_indices(name).map(|(i, _)| i).find(|&i| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + name.len()).copied();
        let starts =
            before.is_none_or(|b| matches!(b, b'{' | b',' | b'"') || b.is_ascii_whitespace());
        starts && !after.is_some_and(crate::text::cursor::is_identifier_byte)
    })
}

/// `: types` in the style `tail`, resolving `uses` and setting the result
/// types (`results` of them).
pub(super) fn parse_type_tail<'a>(
    p: &mut Parser<'a>,
    parsed: &mut ParsedOp,
    uses: &[Use<'a>],
    tail: TypeTail,
    results: usize,
) -> PResult<()> {
    match tail {
        TypeTail::Functional => {
            let function = parse_colon_function_type(p, uses.len(), Some(results))?;
            parsed.data.operands = p.resolve_operands(uses, &function.inputs)?;
            parsed.result_types = function.results;
        }
        TypeTail::SameType => {
            p.c.expect(b':', "':' and the type")?;
            p.c.skip_trivia();
            let at = p.c.pos;
            let (inputs, result) = match p.parse_type()? {
                Type::Function(function) => {
                    check_type_count(p, at, "operand", uses.len(), function.inputs.len())?;
                    if function.results.len() != 1 {
                        return Err(p.c.error_at(at, "expected single output"));
                    }
                    let mut results = function.results;
                    (function.inputs, results.remove(0))
                }
                ty => (vec![ty.clone(); uses.len()], ty),
            };
            parsed.data.operands = p.resolve_operands(uses, &inputs)?;
            parsed.result_types = vec![result];
        }
        TypeTail::Result => {
            p.c.expect(b':', "':' and the result type")?;
            parsed.result_types = vec![p.parse_type()?];
            parsed.data.operands = p.resolve_operands(uses, &[])?;
        }
    }
    Ok(())
}

/// `: (inputs) -> results`, checking the number of inputs (and of results
/// when `results` is given).
pub(super) fn parse_colon_function_type(
    p: &mut Parser<'_>,
    operands: usize,
    results: Option<usize>,
) -> PResult<FunctionType> {
    p.c.expect(b':', "':' and the function type")?;
    if p.c.peek() != b'(' {
        return Err(p
            .c
            .error_expected("a function type '(operand types) -> result types'"));
    }
    let at = p.c.pos;
    let function = p.parse_function_type()?;
    check_type_count(p, at, "operand", operands, function.inputs.len())?;
    if let Some(results) = results {
        check_type_count(p, at, "result", results, function.results.len())?;
    }
    Ok(function)
}

fn check_type_count(
    p: &Parser<'_>,
    at: usize,
    what: &str,
    expected: usize,
    found: usize,
) -> PResult<()> {
    if expected == found {
        return Ok(());
    }
    Err(p.c.error_at(
        at,
        format!(
            "expected {} but had {found}",
            plural(expected, &format!("{what} type"))
        ),
    ))
}

/// Prints the type signature in the style `tail`.
pub(super) fn print_type_tail(pr: &mut Printer<'_>, op: Op, tail: TypeTail) {
    let function = function_type_of(pr, op);
    match tail {
        TypeTail::Functional => print_function_type(&mut pr.out, &function),
        TypeTail::SameType => print_same_or_functional(&mut pr.out, &function),
        TypeTail::Result => {
            if let [result] = &function.results[..] {
                print_type(&mut pr.out, result);
            } else {
                print_function_type(&mut pr.out, &function);
            }
        }
    }
}

/// StableHLO's `SameOperandsAndResultType` printer: the result type alone when
/// there are no operands or all of them have the result's type, else the
/// function type.
pub(super) fn print_same_or_functional(out: &mut String, function: &FunctionType) {
    if let [result] = &function.results[..]
        && function.inputs.iter().all(|t| t == result)
    {
        print_type(out, result);
    } else {
        print_function_type(out, function);
    }
}

/// `[1, -2, 3]`.
pub(super) fn parse_i64_list(p: &mut Parser<'_>, what: &str) -> PResult<Vec<i64>> {
    p.c.expect(b'[', &format!("'[' to open {what}"))?;
    let mut values = Vec::new();
    if p.c.eat(b']') {
        return Ok(values);
    }
    loop {
        values.push(parse_integer(p, 64)?);
        if p.c.eat(b']') {
            return Ok(values);
        }
        p.c.expect(b',', &format!("',' or ']' in {what}"))?;
    }
}

/// An integer that fits a signed `width`-bit integer.
pub(super) fn parse_integer(p: &mut Parser<'_>, width: u32) -> PResult<i64> {
    p.c.skip_trivia();
    let at = p.c.pos;
    let value = p.c.integer()?;
    let (min, max) = (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1);
    if !(min..=max).contains(&value) {
        return Err(p
            .c
            .error_at(at, format!("integer {value} does not fit in i{width}")));
    }
    Ok(value as i64)
}

/// `[1, 2]` as the custom forms print an `array<i64: 1, 2>`.
pub(super) fn format_i64_list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// `array<i64: …>`.
pub(super) fn i64_array(values: Vec<i64>) -> Attribute {
    Attribute::DenseArray(DenseArray {
        element: ElementKind::int(64),
        values: DenseArrayValues::Integers(values),
    })
}

/// The values of an `array<i64: …>` (and only of an `i64` one).
pub(super) fn as_i64_array(attribute: Option<&Attribute>) -> Option<&[i64]> {
    match attribute? {
        Attribute::DenseArray(DenseArray {
            element:
                ElementKind::Integer {
                    width: 64,
                    signedness: Signedness::Signless,
                },
            values: DenseArrayValues::Integers(values),
        }) => Some(values),
        _ => None,
    }
}

/// `value : iN`.
pub(super) fn integer(value: i64, width: u32) -> Attribute {
    Attribute::Integer {
        value: i128::from(value),
        ty: Type::Element(ElementKind::int(width)),
    }
}

/// The value of a signless `width`-bit integer attribute.
pub(super) fn integer_value(attribute: Option<&Attribute>, width: u32) -> Option<i64> {
    match attribute? {
        Attribute::Integer {
            value,
            ty:
                Type::Element(ElementKind::Integer {
                    width: w,
                    signedness: Signedness::Signless,
                }),
        } if *w == width => i64::try_from(*value).ok(),
        _ => None,
    }
}

/// A bare enum keyword, stored as `#stablehlo<kind KEYWORD>`.
pub(super) fn parse_enum(
    p: &mut Parser<'_>,
    kind: &str,
    cases: &[&str],
    keyword: &str,
) -> PResult<Attribute> {
    p.c.skip_trivia();
    let at = p.c.pos;
    let hint = format!("'{keyword}' is one of {}", cases.join(", "));
    let Some(word) = p.c.identifier() else {
        return Err(p
            .c
            .error_expected(&format!("a {kind} keyword"))
            .into_hint(&hint));
    };
    if !cases.contains(&word) {
        return Err(p
            .c
            .error_at(at, format!("unknown {kind} '{word}'"))
            .into_hint(&hint));
    }
    Ok(Attribute::Opaque(format!("#stablehlo<{kind} {word}>")))
}

/// The keyword of a `#stablehlo<kind KEYWORD>` enum attribute, if it is one of
/// `cases`.
pub(super) fn enum_case<'a>(
    attribute: Option<&'a Attribute>,
    kind: &str,
    cases: &[&str],
) -> Option<&'a str> {
    let keyword = super::stablehlo_enum(attribute?, kind)?;
    cases.contains(&keyword).then_some(keyword)
}

/// The single result of `op`, if it has exactly one.
pub(super) fn single_result(pr: &Printer<'_>, op: Op) -> Option<Value> {
    match pr.body.ops[op].results[..] {
        [result] => Some(result),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// slice
// ---------------------------------------------------------------------------

/// `stablehlo.slice %x [start:limit(:stride)?, …] {attrs} : (t) -> u`.
fn parse_slice(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let operand = p.parse_value_use()?;
    p.c.expect(
        b'[',
        "'[' and the slice ranges (start:limit or start:limit:stride)",
    )?;
    let (mut start, mut limit, mut strides) = (Vec::new(), Vec::new(), Vec::new());
    if !p.c.eat(b']') {
        loop {
            start.push(parse_integer(p, 64)?);
            p.c.expect(b':', "':' between the start and the limit of a slice range")?;
            limit.push(parse_integer(p, 64)?);
            strides.push(if p.c.eat(b':') {
                parse_integer(p, 64)?
            } else {
                1
            });
            if p.c.eat(b']') {
                break;
            }
            p.c.expect(b',', "',' or ']' in the slice ranges")?;
        }
    }
    Parser::set_property(&mut parsed.data, "start_indices", i64_array(start));
    Parser::set_property(&mut parsed.data, "limit_indices", i64_array(limit));
    Parser::set_property(&mut parsed.data, "strides", i64_array(strides));
    parse_attr_dict(
        p,
        &mut parsed.data,
        &["limit_indices", "start_indices", "strides"],
    )?;
    parse_type_tail(p, &mut parsed, &[operand], TypeTail::Functional, 1)?;
    Ok(parsed)
}

fn print_slice(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let properties = &data.properties;
    let (Some(start), Some(limit), Some(strides)) = (
        as_i64_array(attribute::find(properties, "start_indices")),
        as_i64_array(attribute::find(properties, "limit_indices")),
        as_i64_array(attribute::find(properties, "strides")),
    ) else {
        return false;
    };
    // MLIR prints ranges of different lengths in a form it cannot read back;
    // the generic form keeps them.
    let ([operand], [_]) = (&data.operands[..], &data.results[..]) else {
        return false;
    };
    if start.len() != limit.len() || start.len() != strides.len() {
        return false;
    }
    let ranges: Vec<String> = (0..start.len())
        .map(|i| {
            if strides[i] == 1 {
                format!("{}:{}", start[i], limit[i])
            } else {
                format!("{}:{}:{}", start[i], limit[i], strides[i])
            }
        })
        .collect();
    let operand = *operand;
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value(operand);
    pr.out.push_str(" [");
    pr.out.push_str(&ranges.join(", "));
    pr.out.push(']');
    pr.print_remaining_attributes(op, &["limit_indices", "start_indices", "strides"]);
    pr.out.push_str(" : ");
    print_type_tail(pr, op, TypeTail::Functional);
    true
}

// ---------------------------------------------------------------------------
// tuple, get_tuple_element
// ---------------------------------------------------------------------------

/// `stablehlo.tuple %a, %b {attrs} : tuple<t, u>`.
fn parse_tuple(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let uses = parse_optional_uses(p)?;
    parse_attr_dict(p, &mut parsed.data, &[])?;
    p.c.expect(b':', "':' and the tuple type")?;
    p.c.skip_trivia();
    let at = p.c.pos;
    let Type::Tuple(elements) = p.parse_type()? else {
        return Err(p.c.error_at(at, "expected tuple type"));
    };
    check_type_count(p, at, "tuple element", uses.len(), elements.len())?;
    parsed.data.operands = p.resolve_operands(&uses, &elements)?;
    parsed.result_types = vec![Type::Tuple(elements)];
    Ok(parsed)
}

fn print_tuple(pr: &mut Printer<'_>, op: Op) -> bool {
    let Some(result) = single_result(pr, op) else {
        return false;
    };
    let data = &pr.body.ops[op];
    let Type::Tuple(elements) = pr.body.ty(result) else {
        return false;
    };
    let operand_types: Vec<&Type> = data.operands.iter().map(|&v| pr.body.ty(v)).collect();
    if !elements.iter().eq(operand_types) {
        return false;
    }
    let operands = data.operands.clone();
    pr.print_op_name(&data.name);
    // MLIR prints the space before the operand list even when it is empty.
    pr.out.push(' ');
    pr.print_value_list(&operands);
    pr.print_remaining_attributes(op, &[]);
    pr.out.push_str(" : ");
    print_type(&mut pr.out, pr.body.ty(result));
    true
}

/// `stablehlo.get_tuple_element %t[0] {attrs} : (tuple<t, u>) -> t`.
fn parse_get_tuple_element(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let operand = p.parse_value_use()?;
    p.c.expect(b'[', "'[' and the tuple index")?;
    let index = parse_integer(p, 32)?;
    p.c.expect(b']', "']' after the tuple index")?;
    Parser::set_property(&mut parsed.data, "index", integer(index, 32));
    parse_attr_dict(p, &mut parsed.data, &["index"])?;
    parse_type_tail(p, &mut parsed, &[operand], TypeTail::Functional, 1)?;
    Ok(parsed)
}

fn print_get_tuple_element(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    let Some(index) = integer_value(attribute::find(&data.properties, "index"), 32) else {
        return false;
    };
    let ([operand], [_]) = (&data.operands[..], &data.results[..]) else {
        return false;
    };
    let operand = *operand;
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value(operand);
    pr.out.push_str(&format!("[{index}]"));
    pr.print_remaining_attributes(op, &["index"]);
    pr.out.push_str(" : ");
    print_type_tail(pr, op, TypeTail::Functional);
    true
}

#[cfg(test)]
pub(super) mod tests {
    use crate::text::parse;
    use crate::text::syntax::test_support::round_trip;

    /// Parses `text` (one function, see [`func`]), prints it in the custom and
    /// the generic form, checks that both read back to the same custom text,
    /// and returns op `n` of the function body in each form (trimmed, without
    /// the `%results = `).
    pub(crate) fn forms(text: &str, n: usize) -> (String, String) {
        let (custom, generic) = round_trip(text);
        (op_line(&custom, n), op_line(&generic, n))
    }

    /// Op `n` of the function body: the ops are the lines indented by four
    /// spaces (module, function, op), the last of them the return.
    fn op_line(printed: &str, n: usize) -> String {
        let line = printed
            .lines()
            .filter(|l| l.starts_with("    ") && !l[4..].starts_with(' '))
            .nth(n)
            .unwrap_or_else(|| panic!("no op {n} in\n{printed}"))
            .trim();
        match line.split_once(" = ") {
            Some((results, rest)) if results.starts_with('%') => rest.to_string(),
            _ => line.to_string(),
        }
    }

    /// The rendered error of parsing `text`.
    pub(crate) fn error(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("parsed:\n{text}"),
            Err(d) => d.render("input", text),
        }
    }

    /// A function with arguments `args` whose body is `ops`.
    pub(crate) fn func(args: &str, ops: &str) -> String {
        format!("func.func @f({args}) {{\n{ops}\n  return\n}}\n")
    }

    fn check(args: &str, op_text: &str, custom: &str, generic: &str) {
        let (c, g) = forms(&func(args, op_text), 0);
        assert_eq!(c, custom);
        assert_eq!(g, generic);
    }

    #[test]
    fn broadcast_in_dim() {
        check(
            "%x: tensor<3xf32>",
            "%0 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>",
            "stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>",
            "\"stablehlo.broadcast_in_dim\"(%arg0) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> tensor<2x3xf32>",
        );
        check(
            "%x: tensor<f32>",
            "%0 = stablehlo.broadcast_in_dim %x, dims = [] {xla_shape = \"f32[2]\"} : (tensor<f32>) -> tensor<2xf32>",
            "stablehlo.broadcast_in_dim %arg0, dims = [] {xla_shape = \"f32[2]\"} : (tensor<f32>) -> tensor<2xf32>",
            "\"stablehlo.broadcast_in_dim\"(%arg0) <{broadcast_dimensions = array<i64>}> {xla_shape = \"f32[2]\"} : (tensor<f32>) -> tensor<2xf32>",
        );
    }

    #[test]
    fn dynamic_broadcast_in_dim() {
        check(
            "%x: tensor<?xf32>, %s: tensor<2xi64>",
            "%0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1] {known_expanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>",
            "stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [1] {known_expanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>",
            "\"stablehlo.dynamic_broadcast_in_dim\"(%arg0, %arg1) <{broadcast_dimensions = array<i64: 1>, known_expanding_dimensions = array<i64: 0>}> : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>",
        );
    }

    #[test]
    fn iota_and_dynamic_iota() {
        check(
            "",
            "%0 = stablehlo.iota dim = 1 : tensor<2x3xui64>",
            "stablehlo.iota dim = 1 : tensor<2x3xui64>",
            "\"stablehlo.iota\"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xui64>",
        );
        check(
            "%s: tensor<2xi64>",
            "%0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<3x4xi64>",
            "stablehlo.dynamic_iota %arg0, dim = 0 : (tensor<2xi64>) -> tensor<3x4xi64>",
            "\"stablehlo.dynamic_iota\"(%arg0) <{iota_dimension = 0 : i64}> : (tensor<2xi64>) -> tensor<3x4xi64>",
        );
    }

    #[test]
    fn transpose_and_reverse() {
        check(
            "%x: tensor<2x3xf32>",
            "%0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
            "stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
            "\"stablehlo.transpose\"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        );
        check(
            "%x: tensor<2x3xf32>",
            "%0 = stablehlo.reverse %x, dims = [0, 1] : tensor<2x3xf32>",
            "stablehlo.reverse %arg0, dims = [0, 1] : tensor<2x3xf32>",
            "\"stablehlo.reverse\"(%arg0) <{dimensions = array<i64: 0, 1>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>",
        );
        // Different operand and result types need the function type.
        check(
            "%x: tensor<?xf32>",
            "%0 = stablehlo.reverse %x, dims = [0] : (tensor<?xf32>) -> tensor<2xf32>",
            "stablehlo.reverse %arg0, dims = [0] : (tensor<?xf32>) -> tensor<2xf32>",
            "\"stablehlo.reverse\"(%arg0) <{dimensions = array<i64: 0>}> : (tensor<?xf32>) -> tensor<2xf32>",
        );
    }

    #[test]
    fn properties_of_another_kind_print_generically() {
        // MLIR's transpose takes `array<i64: …>`; an `i32` array has no custom form.
        check(
            "%x: tensor<2x3xf32>",
            "%0 = \"stablehlo.transpose\"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>",
            "\"stablehlo.transpose\"(%arg0) <{permutation = array<i32: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>",
            "\"stablehlo.transpose\"(%arg0) <{permutation = array<i32: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        );
        check(
            "",
            "%0 = \"stablehlo.iota\"() {iota_dimension = 0 : i32} : () -> tensor<4xi32>",
            "\"stablehlo.iota\"() <{iota_dimension = 0 : i32}> : () -> tensor<4xi32>",
            "\"stablehlo.iota\"() <{iota_dimension = 0 : i32}> : () -> tensor<4xi32>",
        );
    }

    #[test]
    fn concatenate() {
        check(
            "%a: tensor<3x2xi64>, %b: tensor<1x2xi64>",
            "%0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>",
            "stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>",
            "\"stablehlo.concatenate\"(%arg0, %arg1) <{dimension = 0 : i64}> : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>",
        );
    }

    #[test]
    fn slice() {
        check(
            "%x: tensor<3x8xi64>",
            "%0 = stablehlo.slice %x [1:3, 4:8:2] : (tensor<3x8xi64>) -> tensor<2x2xi64>",
            "stablehlo.slice %arg0 [1:3, 4:8:2] : (tensor<3x8xi64>) -> tensor<2x2xi64>",
            "\"stablehlo.slice\"(%arg0) <{limit_indices = array<i64: 3, 8>, start_indices = array<i64: 1, 4>, strides = array<i64: 1, 2>}> : (tensor<3x8xi64>) -> tensor<2x2xi64>",
        );
        // Ranges of different lengths cannot be written as `[a:b]`.
        check(
            "%x: tensor<3xi64>",
            "%0 = \"stablehlo.slice\"(%x) <{limit_indices = array<i64: 3>, start_indices = array<i64: 1>, strides = array<i64>}> : (tensor<3xi64>) -> tensor<2xi64>",
            "\"stablehlo.slice\"(%arg0) <{limit_indices = array<i64: 3>, start_indices = array<i64: 1>, strides = array<i64>}> : (tensor<3xi64>) -> tensor<2xi64>",
            "\"stablehlo.slice\"(%arg0) <{limit_indices = array<i64: 3>, start_indices = array<i64: 1>, strides = array<i64>}> : (tensor<3xi64>) -> tensor<2xi64>",
        );
    }

    #[test]
    fn dynamic_slice_and_pad() {
        check(
            "%x: tensor<4x4xi32>, %i: tensor<i64>, %j: tensor<i64>",
            "%0 = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2]\n    : (tensor<4x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>",
            "stablehlo.dynamic_slice %arg0, %arg1, %arg2, sizes = [2, 2] : (tensor<4x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>",
            "\"stablehlo.dynamic_slice\"(%arg0, %arg1, %arg2) <{slice_sizes = array<i64: 2, 2>}> : (tensor<4x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>",
        );
        check(
            "%x: tensor<5x4xi64>, %v: tensor<i64>",
            "%0 = stablehlo.pad %x, %v, low = [1, -1], high = [1, -1], interior = [0, 1]\n    : (tensor<5x4xi64>, tensor<i64>) -> tensor<7x5xi64>",
            "stablehlo.pad %arg0, %arg1, low = [1, -1], high = [1, -1], interior = [0, 1] : (tensor<5x4xi64>, tensor<i64>) -> tensor<7x5xi64>",
            "\"stablehlo.pad\"(%arg0, %arg1) <{edge_padding_high = array<i64: 1, -1>, edge_padding_low = array<i64: 1, -1>, interior_padding = array<i64: 0, 1>}> : (tensor<5x4xi64>, tensor<i64>) -> tensor<7x5xi64>",
        );
    }

    #[test]
    fn get_dimension_size() {
        check(
            "%x: tensor<2x3xi64>",
            "%0 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x3xi64>) -> tensor<i32>",
            "stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xi64>) -> tensor<i32>",
            "\"stablehlo.get_dimension_size\"(%arg0) <{dimension = 1 : i64}> : (tensor<2x3xi64>) -> tensor<i32>",
        );
    }

    #[test]
    fn tuple_and_get_tuple_element() {
        let text = func(
            "%a: tensor<2xf64>, %b: tensor<i64>",
            "  %t = stablehlo.tuple %b : tuple<tensor<i64>>\n  %u = stablehlo.tuple %a, %t : tuple<tensor<2xf64>, tuple<tensor<i64>>>\n  %e = stablehlo.get_tuple_element %u[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>",
        );
        let (custom, generic) = forms(&text, 1);
        assert_eq!(
            custom,
            "stablehlo.tuple %arg0, %0 : tuple<tensor<2xf64>, tuple<tensor<i64>>>"
        );
        assert_eq!(
            generic,
            "\"stablehlo.tuple\"(%arg0, %0) : (tensor<2xf64>, tuple<tensor<i64>>) -> tuple<tensor<2xf64>, tuple<tensor<i64>>>"
        );
        let (custom, generic) = forms(&text, 2);
        assert_eq!(
            custom,
            "stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>"
        );
        assert_eq!(
            generic,
            "\"stablehlo.get_tuple_element\"(%1) <{index = 1 : i32}> : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>"
        );
        // MLIR prints the space before the (empty) operand list.
        let (custom, generic) = forms(&func("", "  %t = stablehlo.tuple : tuple<>"), 0);
        assert_eq!(custom, "stablehlo.tuple  : tuple<>");
        assert_eq!(generic, "\"stablehlo.tuple\"() : () -> tuple<>");
    }

    #[test]
    fn errors_say_what_was_expected() {
        let e = error(&func(
            "%x: tensor<2x3xf32>",
            "  %0 = stablehlo.transpose %x : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        ));
        assert!(e.contains("expected ',' and 'dims = […]'"), "{e}");
        let e = error(&func(
            "%x: tensor<2x3xf32>",
            "  %0 = stablehlo.transpose %x, dims = [1, 0 : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        ));
        assert!(e.contains("expected ',' or ']' in the 'dims' list"), "{e}");
        let e = error(&func(
            "%x: tensor<2x3xf32>, %y: tensor<2x3xf32>",
            "  %0 = stablehlo.transpose %x, %y, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        ));
        assert!(
            e.contains("'stablehlo.transpose' takes 1 operand, found 2"),
            "{e}"
        );
        assert!(e.contains("input:2:32"), "points at %y: {e}");
        let e = error(&func(
            "%x: tensor<2x3xf32>",
            "  %0 = stablehlo.transpose %x, dims = [1, 0] {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        ));
        assert!(
            e.contains("attribute 'permutation' of 'stablehlo.transpose' is given twice"),
            "{e}"
        );
        let e = error(&func(
            "%x: tensor<2x3xf32>",
            "  %0 = stablehlo.transpose %x, dims = [1, 0] : tensor<3x2xf32>",
        ));
        assert!(
            e.contains("expected a function type '(operand types) -> result types'"),
            "{e}"
        );
        let e = error(&func(
            "%x: tensor<8xi64>",
            "  %0 = stablehlo.slice %x [1, 3] : (tensor<8xi64>) -> tensor<2xi64>",
        ));
        assert!(
            e.contains("expected ':' between the start and the limit"),
            "{e}"
        );
        let e = error(&func(
            "%a: tensor<2xf32>",
            "  %t = stablehlo.tuple %a : tensor<2xf32>",
        ));
        assert!(e.contains("expected tuple type"), "{e}");
        let e = error(&func(
            "",
            "  %0 = stablehlo.iota dim = 99999999999999999999 : tensor<4xi32>",
        ));
        assert!(
            e.contains("integer literal is too large") || e.contains("does not fit"),
            "{e}"
        );
        let e = error(&func(
            "%t: tuple<tensor<i64>>",
            "  %0 = stablehlo.get_tuple_element %t[4294967296] : (tuple<tensor<i64>>) -> tensor<i64>",
        ));
        assert!(e.contains("integer 4294967296 does not fit in i32"), "{e}");
    }
}

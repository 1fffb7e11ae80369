//! Linear algebra forms: `stablehlo.dot`, `stablehlo.dot_general` and
//! `stablehlo.convolution`, with the dimension-number and window notations
//! MLIR's StableHLO printer uses.
//!
//! The structured attributes are kept in their generic spelling
//! (`#stablehlo.dot<…>`, `#stablehlo.conv<…>`, `#stablehlo<precision …>`,
//! `#stablehlo.dot_algorithm<…>`); the parsers write them canonically and the
//! printers read them back, falling back to the generic form when one does
//! not fit the custom notation.

use weft_ir::ElementType;
use weft_ir::literal::ArrayLiteral;

use crate::ir::attribute::{self, DenseArray, DenseArrayValues, DenseElements, DenseValues};
use crate::ir::dialect_attr;
use crate::ir::{Attribute, ElementKind, Op, Type};
use crate::ops::OpName;
use crate::text::cursor::{Cursor, PResult};
use crate::text::parser::{IntoHint, ParsedOp, Parser};
use crate::text::printer::Printer;
use crate::text::syntax::operands::function_type_of;
use crate::text::syntax::stablehlo_enum;
use crate::text::types::print_function_type;

// ---------------------------------------------------------------------------
// Shared pieces (also used by the other syntax files of this family).
// ---------------------------------------------------------------------------

/// `[1, -2, 3]` (possibly empty).
pub(super) fn parse_int_list(c: &mut Cursor<'_>) -> PResult<Vec<i64>> {
    c.expect(b'[', "'[' and a list of integers")?;
    let mut values = Vec::new();
    if c.eat(b']') {
        return Ok(values);
    }
    loop {
        values.push(parse_i64(c)?);
        if c.eat(b']') {
            return Ok(values);
        }
        c.expect(b',', "',' or ']' in a list of integers")?;
    }
}

/// One integer that fits in an `i64`.
pub(super) fn parse_i64(c: &mut Cursor<'_>) -> PResult<i64> {
    c.skip_trivia();
    let at = c.pos;
    let value = c.integer()?;
    i64::try_from(value).map_err(|_| c.error_at(at, "integer does not fit in 64 bits"))
}

/// `[1, 2, 3]`.
pub(super) fn print_int_list(out: &mut String, values: &[i64]) {
    out.push('[');
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&v.to_string());
    }
    out.push(']');
}

/// `array<i64: …>`.
pub(super) fn i64_array(values: Vec<i64>) -> Attribute {
    Attribute::DenseArray(DenseArray {
        element: ElementKind::int(64),
        values: DenseArrayValues::Integers(values),
    })
}

/// The values of an `array<i64: …>` attribute.
pub(super) fn as_i64_array(attribute: Option<&Attribute>) -> Option<&[i64]> {
    match attribute? {
        Attribute::DenseArray(DenseArray {
            element: ElementKind::Integer { width: 64, .. },
            values: DenseArrayValues::Integers(values),
        }) => Some(values),
        _ => None,
    }
}

/// The body of a dialect attribute written `{prefix}{body}` (for example the
/// `<…>` of `#sdy.mesh<…>` with prefix `#sdy.mesh`), when `body` is one
/// balanced `open … close` group.
pub(super) fn strip_dialect_prefix<'a>(
    attribute: Option<&'a Attribute>,
    prefix: &str,
    open: u8,
) -> Option<&'a str> {
    let Some(Attribute::Opaque(text)) = attribute else {
        return None;
    };
    let body = text.strip_prefix(prefix)?;
    is_balanced_group(body, open).then_some(body)
}

/// Whether `text` is exactly one balanced `open … close` group.
pub(super) fn is_balanced_group(text: &str, open: u8) -> bool {
    if text.as_bytes().first() != Some(&open) {
        return false;
    }
    let mut c = Cursor::new(text);
    c.pos = 1;
    c.balanced(0).is_ok() && c.pos == text.len()
}

/// Reads a balanced `open … close` group at the cursor and returns it whole.
pub(super) fn parse_balanced<'a>(c: &mut Cursor<'a>, open: u8, what: &str) -> PResult<&'a str> {
    c.skip_trivia();
    let start = c.pos;
    c.expect(open, what)?;
    c.balanced(start)?;
    Ok(&c.src[start..c.pos])
}

/// A dialect attribute in its custom (stripped) spelling `<…>` or written in
/// full (`#dialect.name<…>`); returns it in full.
pub(super) fn parse_stripped_attribute(
    p: &mut Parser<'_>,
    prefix: &str,
    open: u8,
    what: &str,
) -> PResult<Attribute> {
    if p.c.peek() == b'#' {
        let at = p.c.pos;
        let attribute = p.parse_attribute()?;
        return match &attribute {
            Attribute::Opaque(text)
                if text
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with(open as char)) =>
            {
                Ok(attribute)
            }
            _ => Err(p.c.error_at(at, format!("expected {what}"))),
        };
    }
    let body = parse_balanced(&mut p.c, open, what)?;
    check_stripped_body(p, body)?;
    Ok(Attribute::Opaque(format!("{prefix}{body}")))
}

/// Checks `body`, the text of a dialect attribute just read in its
/// stripped form (it ends at the cursor), as the generic form
/// `#dialect.name<…>` is checked: both forms accept the same attributes, so
/// what one prints the other reads.
pub(super) fn check_stripped_body(p: &Parser<'_>, body: &str) -> PResult<()> {
    let body_at = p.c.pos - body.len();
    crate::text::attributes::check_enum_keywords(body)
        .map_err(|(at, message, hint)| p.c.error_at(body_at + at, message).into_hint(&hint))
}

/// Parses the operand types of a functional type and resolves `uses` with them.
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
// Precision config and algorithm.
// ---------------------------------------------------------------------------

/// `[DEFAULT, HIGHEST]` after `precision =`.
fn parse_precision_list(p: &mut Parser<'_>) -> PResult<Attribute> {
    p.c.expect(b'[', "'[' and a list of precisions")?;
    let mut items = Vec::new();
    if !p.c.eat(b']') {
        loop {
            p.c.skip_trivia();
            let at = p.c.pos;
            let Some(word) = p.c.identifier() else {
                return Err(p.c.error_expected("a precision (DEFAULT, HIGH or HIGHEST)"));
            };
            if !dialect_attr::PRECISIONS.contains(&word) {
                return Err(p
                    .c
                    .error_at(at, format!("unknown precision '{word}'"))
                    .into_hint("precisions are DEFAULT, HIGH and HIGHEST"));
            }
            items.push(Attribute::Opaque(format!("#stablehlo<precision {word}>")));
            if p.c.eat(b']') {
                break;
            }
            p.c.expect(b',', "',' or ']' in the precision list")?;
        }
    }
    Ok(Attribute::Array(items))
}

/// `, precision = [A, B]` for a `precision_config` array, or `None` when it
/// does not fit (an element that is not a precision).
fn precision_text(config: Option<&Attribute>) -> Option<String> {
    let Some(config) = config else {
        return Some(String::new());
    };
    let items = config.as_array()?;
    let mut out = String::from(", precision = [");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(stablehlo_enum(item, "precision")?);
    }
    out.push(']');
    Some(out)
}

const DOT_ALGORITHM: &str = "#stablehlo.dot_algorithm";

// ---------------------------------------------------------------------------
// stablehlo.dot
// ---------------------------------------------------------------------------

/// `stablehlo.dot %a, %b (, precision = [..])? {attrs} : (t, u) -> v`.
pub(super) fn parse_dot(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let lhs = p.parse_value_use()?;
    p.c.expect(b',', "',' and the right-hand operand")?;
    let rhs = p.parse_value_use()?;
    if p.c.eat(b',') {
        if !p.c.eat_keyword("precision") {
            return Err(p.c.error_expected("'precision'"));
        }
        p.c.expect(b'=', "'=' after 'precision'")?;
        let config = parse_precision_list(p)?;
        Parser::set_property(&mut parsed.data, "precision_config", config);
    }
    p.parse_optional_attr_dict(&mut parsed.data)?;
    parse_functional_tail(p, &mut parsed, &[lhs, rhs])?;
    Ok(parsed)
}

pub(super) fn print_dot(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    if data.operands.len() != 2 {
        return false;
    }
    let Some(precision) = precision_text(attribute::find(&data.properties, "precision_config"))
    else {
        return false;
    };
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value_list(&data.operands);
    pr.out.push_str(&precision);
    pr.print_remaining_attributes(op, &["precision_config"]);
    pr.out.push_str(" : ");
    let function = function_type_of(pr, op);
    print_function_type(&mut pr.out, &function);
    true
}

// ---------------------------------------------------------------------------
// stablehlo.dot_general
// ---------------------------------------------------------------------------

/// The four lists of `#stablehlo.dot<…>`: lhs batching, rhs batching, lhs
/// contracting, rhs contracting.
#[derive(Debug, Default, PartialEq)]
pub(super) struct DotDimensions {
    lhs_batching: Vec<i64>,
    rhs_batching: Vec<i64>,
    lhs_contracting: Vec<i64>,
    rhs_contracting: Vec<i64>,
}

const DOT_FIELDS: [&str; 4] = [
    "lhs_batching_dimensions",
    "rhs_batching_dimensions",
    "lhs_contracting_dimensions",
    "rhs_contracting_dimensions",
];

impl DotDimensions {
    fn fields(&self) -> [&Vec<i64>; 4] {
        [
            &self.lhs_batching,
            &self.rhs_batching,
            &self.lhs_contracting,
            &self.rhs_contracting,
        ]
    }

    fn field_mut(&mut self, index: usize) -> &mut Vec<i64> {
        match index {
            0 => &mut self.lhs_batching,
            1 => &mut self.rhs_batching,
            2 => &mut self.lhs_contracting,
            _ => &mut self.rhs_contracting,
        }
    }

    /// `#stablehlo.dot<lhs_contracting_dimensions = [1], …>`: non-empty fields only.
    fn to_attribute(&self) -> Attribute {
        let mut text = String::from("#stablehlo.dot<");
        let mut first = true;
        for (name, values) in DOT_FIELDS.iter().zip(self.fields()) {
            if values.is_empty() {
                continue;
            }
            if !first {
                text.push_str(", ");
            }
            first = false;
            text.push_str(name);
            text.push_str(" = ");
            print_int_list(&mut text, values);
        }
        text.push('>');
        Attribute::Opaque(text)
    }

    /// Reads `#stablehlo.dot<…>` back; `None` if it is not one.
    fn from_attribute(attribute: Option<&Attribute>) -> Option<DotDimensions> {
        let Some(Attribute::Opaque(text)) = attribute else {
            return None;
        };
        let mut c = Cursor::new(text);
        if !c.eat_str("#stablehlo.dot<") {
            return None;
        }
        let mut dims = DotDimensions::default();
        let mut seen = [false; 4];
        if !c.eat(b'>') {
            loop {
                let name = c.identifier()?;
                let index = DOT_FIELDS.iter().position(|f| *f == name)?;
                if std::mem::replace(&mut seen[index], true) {
                    return None;
                }
                if !c.eat(b'=') {
                    return None;
                }
                *dims.field_mut(index) = parse_int_list(&mut c).ok()?;
                if c.eat(b'>') {
                    break;
                }
                if !c.eat(b',') {
                    return None;
                }
            }
        }
        c.at_end().then_some(dims)
    }
}

/// `[a, b] x [c, d]`.
fn parse_lhs_rhs(c: &mut Cursor<'_>) -> PResult<(Vec<i64>, Vec<i64>)> {
    let lhs = parse_int_list(c)?;
    if !c.eat_keyword("x") {
        return Err(c.error_expected("'x' between the lhs and rhs dimensions"));
    }
    let rhs = parse_int_list(c)?;
    Ok((lhs, rhs))
}

/// `stablehlo.dot_general %a, %b, (batching_dims = [..] x [..],)?
/// contracting_dims = [..] x [..] (, precision = [..])? (, algorithm = <..>)?
/// {attrs} : (t, u) -> v`.
pub(super) fn parse_dot_general(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let lhs = p.parse_value_use()?;
    p.c.expect(b',', "',' and the right-hand operand")?;
    let rhs = p.parse_value_use()?;
    p.c.expect(b',', "',' and the dimension numbers")?;
    let mut dims = DotDimensions::default();
    if p.c.eat_keyword("batching_dims") {
        p.c.expect(b'=', "'=' after 'batching_dims'")?;
        (dims.lhs_batching, dims.rhs_batching) = parse_lhs_rhs(&mut p.c)?;
        p.c.expect(b',', "',' and 'contracting_dims'")?;
    }
    if !p.c.eat_keyword("contracting_dims") {
        return Err(p.c.error_expected("'contracting_dims'").into_hint(
            "write `contracting_dims = [1] x [0]` (optionally after `batching_dims = [0] x [0],`)",
        ));
    }
    p.c.expect(b'=', "'=' after 'contracting_dims'")?;
    (dims.lhs_contracting, dims.rhs_contracting) = parse_lhs_rhs(&mut p.c)?;
    Parser::set_property(
        &mut parsed.data,
        "dot_dimension_numbers",
        dims.to_attribute(),
    );
    if p.c.eat(b',') {
        let mut algorithm_next = p.c.peek_identifier() == Some("algorithm");
        if !algorithm_next {
            if !p.c.eat_keyword("precision") {
                return Err(p.c.error_expected("'precision' or 'algorithm'"));
            }
            p.c.expect(b'=', "'=' after 'precision'")?;
            let config = parse_precision_list(p)?;
            Parser::set_property(&mut parsed.data, "precision_config", config);
            algorithm_next = p.c.eat(b',');
        }
        if algorithm_next {
            if !p.c.eat_keyword("algorithm") {
                return Err(p.c.error_expected("'algorithm'"));
            }
            p.c.expect(b'=', "'=' after 'algorithm'")?;
            let algorithm = parse_stripped_attribute(
                p,
                DOT_ALGORITHM,
                b'<',
                "a dot algorithm (<lhs_precision_type = …>)",
            )?;
            Parser::set_property(&mut parsed.data, "algorithm", algorithm);
        }
    }
    p.parse_optional_attr_dict(&mut parsed.data)?;
    parse_functional_tail(p, &mut parsed, &[lhs, rhs])?;
    Ok(parsed)
}

pub(super) fn print_dot_general(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    if data.operands.len() != 2 {
        return false;
    }
    let Some(dims) =
        DotDimensions::from_attribute(attribute::find(&data.properties, "dot_dimension_numbers"))
    else {
        return false;
    };
    let Some(precision) = precision_text(attribute::find(&data.properties, "precision_config"))
    else {
        return false;
    };
    let algorithm = match attribute::find(&data.properties, "algorithm") {
        None => None,
        Some(algorithm) => match strip_dialect_prefix(Some(algorithm), DOT_ALGORITHM, b'<') {
            Some(text) => Some(text),
            None => return false,
        },
    };
    pr.print_op_name(&data.name);
    pr.out.push(' ');
    pr.print_value_list(&data.operands);
    pr.out.push_str(", ");
    if !dims.lhs_batching.is_empty() || !dims.rhs_batching.is_empty() {
        pr.out.push_str("batching_dims = ");
        print_int_list(&mut pr.out, &dims.lhs_batching);
        pr.out.push_str(" x ");
        print_int_list(&mut pr.out, &dims.rhs_batching);
        pr.out.push_str(", ");
    }
    pr.out.push_str("contracting_dims = ");
    print_int_list(&mut pr.out, &dims.lhs_contracting);
    pr.out.push_str(" x ");
    print_int_list(&mut pr.out, &dims.rhs_contracting);
    pr.out.push_str(&precision);
    if let Some(algorithm) = algorithm {
        pr.out.push_str(", algorithm = ");
        pr.out.push_str(algorithm);
    }
    pr.print_remaining_attributes(
        op,
        &["algorithm", "dot_dimension_numbers", "precision_config"],
    );
    pr.out.push_str(" : ");
    let function = function_type_of(pr, op);
    print_function_type(&mut pr.out, &function);
    true
}

// ---------------------------------------------------------------------------
// stablehlo.convolution
// ---------------------------------------------------------------------------

/// One operand's layout in `#stablehlo.conv<…>`: the positions of its two
/// non-spatial dimensions and of each spatial dimension.
#[derive(Debug, PartialEq)]
pub(crate) struct ConvLayout {
    /// `(position, letter)` for the two non-spatial dimensions.
    pub(crate) non_spatial: [(i64, char); 2],
    /// Position of spatial dimension `k` at index `k`.
    pub(crate) spatial: Vec<i64>,
}

/// `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`.
#[derive(Debug, PartialEq)]
pub(crate) struct ConvDimensions {
    pub(crate) input: ConvLayout,
    pub(crate) kernel: ConvLayout,
    pub(crate) output: ConvLayout,
}

impl ConvDimensions {
    /// Reads `[…]x[…]->[…]`.
    fn parse(c: &mut Cursor<'_>) -> PResult<ConvDimensions> {
        let input = parse_conv_layout(c, ['b', 'f'])?;
        if !c.eat_keyword("x") {
            return Err(c.error_expected("'x' between the input and kernel dimensions"));
        }
        let kernel = parse_conv_layout(c, ['i', 'o'])?;
        c.expect_str("->")?;
        let output = parse_conv_layout(c, ['b', 'f'])?;
        Ok(ConvDimensions {
            input,
            kernel,
            output,
        })
    }

    fn print(&self, out: &mut String) {
        print_conv_layout(out, &self.input);
        out.push('x');
        print_conv_layout(out, &self.kernel);
        out.push_str("->");
        print_conv_layout(out, &self.output);
    }

    fn to_attribute(&self) -> Attribute {
        let mut text = String::from("#stablehlo.conv<");
        self.print(&mut text);
        text.push('>');
        Attribute::Opaque(text)
    }

    pub(crate) fn from_attribute(attribute: Option<&Attribute>) -> Option<ConvDimensions> {
        let Some(Attribute::Opaque(text)) = attribute else {
            return None;
        };
        let inner = text.strip_prefix("#stablehlo.conv<")?.strip_suffix('>')?;
        let mut c = Cursor::new(inner);
        let dims = ConvDimensions::parse(&mut c).ok()?;
        c.at_end().then_some(dims)
    }
}

/// `[b, 0, 1, f]`: spatial dimension numbers, `?` for an unused position, and
/// the two letters in `letters` exactly once each.
fn parse_conv_layout(c: &mut Cursor<'_>, letters: [char; 2]) -> PResult<ConvLayout> {
    c.expect(b'[', "'[' and a dimension layout")?;
    let mut non_spatial: [Option<i64>; 2] = [None, None];
    let mut spatial_at: Vec<(i64, i64)> = Vec::new();
    let mut index = 0i64;
    let expecting = format!(
        "'{}', '{}', '?' or a spatial dimension number",
        letters[0], letters[1]
    );
    loop {
        c.skip_trivia();
        let at = c.pos;
        if c.peek().is_ascii_digit() || c.peek() == b'-' {
            let dim = parse_i64(c)?;
            if dim < 0 {
                return Err(c.error_at(at, format!("unexpected dimension {dim}")));
            }
            if spatial_at.iter().any(|&(d, _)| d == dim) {
                return Err(
                    c.error_at(at, format!("duplicate entries for spatial dimension {dim}"))
                );
            }
            spatial_at.push((dim, index));
        } else if c.eat(b'?') {
        } else {
            let Some(word) = c.identifier() else {
                return Err(c.error_expected(&expecting));
            };
            let slot = letters
                .iter()
                .position(|&l| word.len() == 1 && word.starts_with(l));
            match slot {
                Some(slot) if non_spatial[slot].is_none() => non_spatial[slot] = Some(index),
                _ => {
                    return Err(c
                        .error_at(at, format!("unexpected dimension '{word}'"))
                        .into_hint(&format!("expected {expecting}")));
                }
            }
        }
        index += 1;
        if c.eat(b']') {
            break;
        }
        c.expect(b',', "',' or ']' in a dimension layout")?;
    }
    let (Some(first), Some(second)) = (non_spatial[0], non_spatial[1]) else {
        let missing: Vec<String> = letters
            .iter()
            .zip(non_spatial)
            .filter(|(_, at)| at.is_none())
            .map(|(l, _)| l.to_string())
            .collect();
        return Err(c.error_at(
            c.pos.saturating_sub(1),
            format!("expected dimensions {} not specified", missing.join(", ")),
        ));
    };
    // Spatial dimensions are numbered 0..n-1 for n of them: a larger number
    // means a smaller one is missing (and must not size an allocation).
    let mut spatial = vec![-1; spatial_at.len()];
    for (dim, at) in spatial_at {
        if let Some(slot) = usize::try_from(dim).ok().and_then(|d| spatial.get_mut(d)) {
            *slot = at;
        }
    }
    if let Some(missing) = spatial.iter().position(|&at| at < 0) {
        return Err(c.error_at(
            c.pos.saturating_sub(1),
            format!("expected spatial dimension {missing} not specified"),
        ));
    }
    Ok(ConvLayout {
        non_spatial: [(first, letters[0]), (second, letters[1])],
        spatial,
    })
}

fn print_conv_layout(out: &mut String, layout: &ConvLayout) {
    let count = layout
        .spatial
        .iter()
        .copied()
        .chain(layout.non_spatial.iter().map(|&(at, _)| at))
        .map(|at| at + 1)
        .max()
        .unwrap_or(0);
    let mut slots: Vec<Option<String>> = vec![None; count.max(0) as usize];
    for &(at, letter) in &layout.non_spatial {
        slots[at as usize] = Some(letter.to_string());
    }
    for (dim, &at) in layout.spatial.iter().enumerate() {
        slots[at as usize] = Some(dim.to_string());
    }
    out.push('[');
    for (i, slot) in slots.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(slot.as_deref().unwrap_or("?"));
    }
    out.push(']');
}

const WINDOW_FIELDS: [(&str, &str); 5] = [
    ("stride", "window_strides"),
    ("pad", "padding"),
    ("lhs_dilate", "lhs_dilation"),
    ("rhs_dilate", "rhs_dilation"),
    ("reverse", "window_reversal"),
];

/// `stride = [..], pad = [[..], ..], lhs_dilate = [..], rhs_dilate = [..],
/// reverse = [..]` (each optional, any order) inside `window = {…}`.
fn parse_window(p: &mut Parser<'_>, parsed: &mut ParsedOp) -> PResult<()> {
    let mut seen = [false; 5];
    while let Some(word) = p.c.peek_identifier() {
        let at = p.c.pos;
        let Some(index) = WINDOW_FIELDS.iter().position(|(w, _)| *w == word) else {
            return Err(p
                .c
                .error_at(at, format!("unknown window attribute '{word}'"))
                .into_hint("window attributes are stride, pad, lhs_dilate, rhs_dilate, reverse"));
        };
        p.c.identifier();
        if std::mem::replace(&mut seen[index], true) {
            return Err(p
                .c
                .error_at(at, format!("duplicate window attribute '{word}'")));
        }
        p.c.expect(b'=', "'='")?;
        let value = match word {
            "pad" => parse_padding(&mut p.c)?,
            "reverse" => parse_bool_list(&mut p.c)?,
            _ => i64_array(parse_int_list(&mut p.c)?),
        };
        Parser::set_property(&mut parsed.data, WINDOW_FIELDS[index].1, value);
        if !p.c.eat(b',') {
            break;
        }
    }
    Ok(())
}

/// `[[lo, hi], …]` as `dense<…> : tensor<Nx2xi64>`.
fn parse_padding(c: &mut Cursor<'_>) -> PResult<Attribute> {
    c.expect(b'[', "'[' and a list of [low, high] pairs")?;
    let mut values = Vec::new();
    if !c.eat(b']') {
        loop {
            let at = c.pos;
            let pair = parse_int_list(c)?;
            if pair.len() != 2 {
                return Err(c.error_at(
                    at,
                    format!("expected a [low, high] pair but had {} values", pair.len()),
                ));
            }
            values.extend(pair);
            if c.eat(b']') {
                break;
            }
            c.expect(b',', "',' or ']' in the padding")?;
        }
    }
    let rows = (values.len() / 2) as i64;
    let mut array = ArrayLiteral::zeros(ElementType::S64, &[rows, 2]);
    for (i, v) in values.iter().enumerate() {
        array.set_int(i, i128::from(*v));
    }
    Ok(Attribute::DenseElements(Box::new(DenseElements {
        ty: Type::tensor(&[rows, 2], ElementKind::int(64)),
        values: DenseValues::Array(array),
    })))
}

/// `[true, false]` (or `[1, 0]`) as `array<i1: …>`.
fn parse_bool_list(c: &mut Cursor<'_>) -> PResult<Attribute> {
    c.expect(b'[', "'[' and a list of booleans")?;
    let mut values = Vec::new();
    if !c.eat(b']') {
        loop {
            c.skip_trivia();
            let at = c.pos;
            let value = if c.eat_keyword("true") {
                1
            } else if c.eat_keyword("false") {
                0
            } else {
                match c.integer() {
                    Ok(v @ (0 | 1)) => v as i64,
                    _ => {
                        c.pos = at;
                        return Err(c.error_expected("'true' or 'false'"));
                    }
                }
            };
            values.push(value);
            if c.eat(b']') {
                break;
            }
            c.expect(b',', "',' or ']' in a list of booleans")?;
        }
    }
    Ok(Attribute::DenseArray(DenseArray {
        element: ElementKind::int(1),
        values: DenseArrayValues::Integers(values),
    }))
}

/// The window text for `attribute` (field `index` of [`WINDOW_FIELDS`]), or
/// `None` if it does not have the kind the custom form prints.
fn window_field_text(index: usize, attribute: &Attribute) -> Option<String> {
    let mut out = String::new();
    match (index, attribute) {
        (1, Attribute::DenseElements(dense)) => {
            let tensor = dense.ty.as_tensor()?;
            let dims = tensor.static_dims()?;
            // A splat padding (`dense<1> : tensor<2x2xi64>`) prints as rows too.
            let array = dense.numbers(1 << 20).ok()?;
            if dims.len() != 2
                || dims[1] != 2
                || !matches!(tensor.element, ElementKind::Integer { .. })
            {
                return None;
            }
            out.push('[');
            for row in 0..dims[0] as usize {
                if row > 0 {
                    out.push_str(", ");
                }
                let pair = [array.get_int(2 * row), array.get_int(2 * row + 1)];
                out.push_str(&format!("[{}, {}]", pair[0], pair[1]));
            }
            out.push(']');
        }
        (
            4,
            Attribute::DenseArray(DenseArray {
                element: ElementKind::Integer { width: 1, .. },
                values: DenseArrayValues::Integers(values),
            }),
        ) => {
            out.push('[');
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(if *v != 0 { "true" } else { "false" });
            }
            out.push(']');
        }
        (0 | 2 | 3, attribute) => print_int_list(&mut out, as_i64_array(Some(attribute))?),
        _ => return None,
    }
    Some(out)
}

/// `stablehlo.convolution(%lhs, %rhs) dim_numbers = […]x[…]->[…],
/// window = {…} {attrs} : (t, u) -> v`.
pub(super) fn parse_convolution(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    p.c.expect(b'(', "'(' and the operands")?;
    let uses = p.parse_value_use_list(b')')?;
    if !p.c.eat_keyword("dim_numbers") {
        return Err(p.c.error_expected("'dim_numbers'"));
    }
    p.c.expect(b'=', "'=' after 'dim_numbers'")?;
    let dims = ConvDimensions::parse(&mut p.c)?;
    Parser::set_property(&mut parsed.data, "dimension_numbers", dims.to_attribute());
    p.c.expect(b',', "',' and 'window'")?;
    if !p.c.eat_keyword("window") {
        return Err(p.c.error_expected("'window'"));
    }
    p.c.expect(b'=', "'=' after 'window'")?;
    p.c.expect(b'{', "'{' to open the window attributes")?;
    parse_window(p, &mut parsed)?;
    p.c.expect(b'}', "'}' to close the window attributes")?;
    p.parse_optional_attr_dict(&mut parsed.data)?;
    parse_functional_tail(p, &mut parsed, &uses)?;
    Ok(parsed)
}

pub(super) fn print_convolution(pr: &mut Printer<'_>, op: Op) -> bool {
    let body = pr.body;
    let data = &body.ops[op];
    let Some(dims) =
        ConvDimensions::from_attribute(attribute::find(&data.properties, "dimension_numbers"))
    else {
        return false;
    };
    let mut window = Vec::new();
    for (index, (word, name)) in WINDOW_FIELDS.iter().enumerate() {
        if let Some(value) = attribute::find(&data.properties, name) {
            let Some(text) = window_field_text(index, value) else {
                return false;
            };
            window.push(format!("{word} = {text}"));
        }
    }
    pr.print_op_name(&data.name);
    pr.out.push('(');
    pr.print_value_list(&data.operands);
    pr.out.push_str(") dim_numbers = ");
    dims.print(&mut pr.out);
    pr.out.push_str(", window = {");
    pr.out.push_str(&window.join(", "));
    pr.out.push('}');
    let mut printed = vec!["dimension_numbers"];
    printed.extend(WINDOW_FIELDS.iter().map(|(_, name)| *name));
    pr.print_remaining_attributes(op, &printed);
    pr.out.push_str(" : ");
    let function = function_type_of(pr, op);
    print_function_type(&mut pr.out, &function);
    true
}

#[cfg(test)]
mod tests {
    use crate::text::parse;
    use crate::text::syntax::test_support::round_trip;

    fn wrap(ops: &str, args: &str, results: &str) -> String {
        format!("func.func @f({args}) -> {results} {{\n{ops}}}\n")
    }

    #[test]
    fn dot_general_with_batching_and_precision() {
        let op = "  %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>\n  return %0 : tensor<3x4x6xf32>\n";
        let text = wrap(
            op,
            "%arg0: tensor<3x4x5xf32>, %arg1: tensor<3x5x6xf32>",
            "tensor<3x4x6xf32>",
        );
        let (pretty, generic) = round_trip(&text);
        assert_eq!(pretty, format!("module {{\n{}}}\n", indent(&text)));
        assert!(generic.contains(r#"%0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>"#), "{generic}");
    }

    #[test]
    fn dot_general_from_generic_and_algorithm() {
        let text = r#"func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>, foo = 1 : i32} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
"#;
        let (pretty, _) = round_trip(text);
        assert!(pretty.contains("%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> {foo = 1 : i32} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n"), "{pretty}");
    }

    #[test]
    fn dot_without_precision() {
        let text = wrap(
            "  %0 = stablehlo.dot %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>\n  %1 = stablehlo.dot %arg0, %arg1, precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n",
            "%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>",
            "tensor<2xf32>",
        );
        let (pretty, generic) = round_trip(&text);
        assert_eq!(pretty, format!("module {{\n{}}}\n", indent(&text)));
        assert!(generic.contains(
            r#""stablehlo.dot"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>"#
        ));
        assert!(generic.contains(r#""stablehlo.dot"(%arg0, %arg1) <{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}>"#));
    }

    #[test]
    fn convolution() {
        let op = "  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x9x9x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x5x5x4xf32>\n  return %0 : tensor<2x5x5x4xf32>\n";
        let text = wrap(
            op,
            "%arg0: tensor<2x9x9x3xf32>, %arg1: tensor<3x3x3x4xf32>",
            "tensor<2x5x5x4xf32>",
        );
        let (pretty, generic) = round_trip(&text);
        assert_eq!(pretty, format!("module {{\n{}}}\n", indent(&text)));
        assert!(generic.contains(r#"<{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<[[1, 1], [0, 1]]> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, true>, window_strides = array<i64: 2, 2>}>"#), "{generic}");
    }

    #[test]
    fn convolution_empty_window_and_unknown_dims() {
        let op = "  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [f, ?, b, 0]x[i, o, 0]->[b, f, 0], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x1x2x12xf32>, tensor<4x6x3xf32>) -> tensor<2x6x10xf32>\n  return %0 : tensor<2x6x10xf32>\n";
        let text = wrap(
            op,
            "%arg0: tensor<4x1x2x12xf32>, %arg1: tensor<4x6x3xf32>",
            "tensor<2x6x10xf32>",
        );
        let (pretty, _) = round_trip(&text);
        assert_eq!(pretty, format!("module {{\n{}}}\n", indent(&text)));
    }

    #[test]
    fn huge_spatial_dimension_is_an_error_not_an_allocation() {
        let text = wrap_convolution("[b, 3000000000, f]x[0, i, o]->[b, 0, f]");
        let error = crate::text::parse(&text).unwrap_err();
        assert!(
            error.message.contains("spatial dimension 0 not specified"),
            "{}",
            error.message
        );
        let text = wrap_convolution("[b, 9223372036854775807, f]x[0, i, o]->[b, 0, f]");
        assert!(crate::text::parse(&text).is_err());
    }

    fn wrap_convolution(dims: &str) -> String {
        format!(
            "func.func @f(%a: tensor<1x4x1xf32>, %b: tensor<2x1x1xf32>) -> tensor<1x3x1xf32> {{\n  %0 = stablehlo.convolution(%a, %b) dim_numbers = {dims}, window = {{}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x3x1xf32>\n  return %0 : tensor<1x3x1xf32>\n}}\n"
        )
    }

    #[test]
    fn convolution_errors_are_clear() {
        let text = "func.func @f(%a: tensor<1x1x1xf32>) {\n  %0 = stablehlo.convolution(%a, %a) dim_numbers = [b, 0]x[0, i, o]->[b, 0, f], window = {} : (tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>\n  return\n}\n";
        let error = parse(text).expect_err("an error").render("t", text);
        assert!(
            error.contains("expected dimensions f not specified"),
            "{error}"
        );
        let text = text.replace("window = {}", "window = {strides = [1]}");
        let text = text.replace("[b, 0]x", "[b, 0, f]x");
        let error = parse(&text).expect_err("an error").render("t", &text);
        assert!(
            error.contains("unknown window attribute 'strides'"),
            "{error}"
        );
    }

    #[test]
    fn dot_general_errors_are_clear() {
        let text = "func.func @f(%a: tensor<2x2xf32>) {\n  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], precision = [FAST] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n  return\n}\n";
        let error = parse(text).expect_err("an error").render("t", text);
        assert!(error.contains("unknown precision 'FAST'"), "{error}");
    }

    fn indent(text: &str) -> String {
        text.lines().map(|l| format!("  {l}\n")).collect()
    }
}

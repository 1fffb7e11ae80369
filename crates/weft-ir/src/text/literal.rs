//! Constant literals in HLO text, parse and print side by side.
//!
//! ```text
//! constant(42)   constant(true)   constant(-inf)   constant(nan(0x1))
//! constant({1, 2, 3})   constant({ { 0, 1 }, { 1, 0 } })   constant({...})
//! constant((1, -2))                 complex scalars
//! constant(( {1, 2}, 3 ))           tuples
//! ```
//!
//! Printing follows XLA's one-line literal printer: rank 1 is `{a, b}`; higher
//! ranks nest `{ … }` with inner spaces, the innermost level spaced only when it
//! has more than one element, and ranks above 3 annotate middle levels with
//! `/*iK=V*/`. Floats use XLA's round-trip precision for their type.

use crate::element_type::{ElementClass, ElementType};
use crate::literal::{ArrayLiteral, Literal, minifloat};
use crate::shape::{Shape, ShapeData};
use crate::text::float::{format_f32, format_f64, format_g, narrow_precision};
use crate::text::lexer::Tok;
use crate::text::parser::{PResult, Parser};

impl Parser<'_> {
    /// A literal of `shape`.
    pub(crate) fn literal(&mut self, shape: Shape) -> PResult<Literal> {
        match self.m.shapes.get(shape).clone() {
            ShapeData::Tuple(elements) => {
                self.expect(Tok::LParen, "'(' starting a tuple literal")?;
                let mut values = Vec::with_capacity(elements.len());
                for (i, &element) in elements.iter().enumerate() {
                    if i > 0 {
                        self.expect(Tok::Comma, "',' separating tuple elements")?;
                    }
                    values.push(self.literal(element)?);
                }
                self.expect(
                    Tok::RParen,
                    &format!(
                        "')' at the end of the tuple with {} elements",
                        elements.len()
                    ),
                )?;
                Ok(Literal::Tuple(values))
            }
            ShapeData::Array(array) => self.dense_literal(array.elem, &array.dims),
            ShapeData::Token => {
                if self.eat_word("token") {
                    Ok(Literal::Tuple(Vec::new()))
                } else {
                    Err(self.error("a token constant has no value"))
                }
            }
            ShapeData::Opaque | ShapeData::Buffer(_) => {
                Err(self.error("constants of this shape cannot be written in text"))
            }
        }
    }

    fn dense_literal(&mut self, elem: ElementType, dims: &[i64]) -> PResult<Literal> {
        if dims.iter().any(|&d| d < 0) {
            return Err(self.error("constants cannot have dynamic dimensions"));
        }
        // `{...}` needs no storage; check before allocating the array.
        if !dims.is_empty() && self.at(Tok::LBrace) && self.peek().kind == Tok::Dots {
            self.bump();
            self.bump();
            self.expect(Tok::RBrace, "'}' after '...'")?;
            return Ok(Literal::Elided);
        }
        // Written elements take at least a byte of text each; only the bare-value
        // form (one value, the rest zero) is larger than its text, and it is
        // capped so a short text cannot demand terabytes.
        const MAX_FILLED_ELEMENTS: usize = 1 << 20;
        let room = (self.src.len() - self.tok.start as usize).max(MAX_FILLED_ELEMENTS);
        let count =
            crate::size::element_count(elem, dims).map_err(|e| self.error(e.to_string()))?;
        if count.as_usize() > room {
            return Err(self.error(format!(
                "a constant of {count} elements is too large to read"
            )));
        }
        let mut array =
            ArrayLiteral::try_zeros(elem, dims).map_err(|e| self.error(e.to_string()))?;
        let rank = dims.len();
        if rank == 0 {
            self.literal_value(&mut array, 0)?;
            return Ok(Literal::Array(array));
        }
        // counts[d] = elements seen so far at nesting level d+1.
        let mut counts: Vec<i64> = vec![0; rank];
        let mut level = 0usize;
        let mut linear = 0usize;
        let total = array.len();
        loop {
            match self.kind() {
                Tok::LBrace => {
                    if level == rank {
                        return Err(self.error(format!(
                            "expects nested array in rank {rank}, but sees larger"
                        )));
                    }
                    if level > 0 {
                        if counts[level - 1] >= dims[level - 1] {
                            return Err(self.error(format!(
                                "expects {} elements in the [{}]th element, but sees more",
                                dims[level - 1],
                                counts[..level - 1]
                                    .iter()
                                    .map(|c| c.to_string())
                                    .collect::<Vec<_>>()
                                    .join(",")
                            )));
                        }
                        counts[level - 1] += 1;
                    }
                    counts[level] = 0;
                    level += 1;
                    self.bump();
                }
                Tok::RBrace => {
                    if level == 0 {
                        return Err(self.error("unexpected '}' token"));
                    }
                    let d = level - 1;
                    if counts[d] != dims[d] {
                        return Err(self.error(format!(
                            "expects {} elements in the [{}]th element, but sees {}",
                            dims[d],
                            counts[..d]
                                .iter()
                                .map(|c| (c - 1).max(0).to_string())
                                .collect::<Vec<_>>()
                                .join(","),
                            counts[d]
                        )));
                    }
                    level -= 1;
                    self.bump();
                    if level == 0 {
                        return Ok(Literal::Array(array));
                    }
                }
                Tok::Comma => {
                    self.bump();
                }
                Tok::Dots => {
                    if level != 1 {
                        return Err(self.error(format!(
                            "expects `...` at nest level 1, but sees it at nest level {level}"
                        )));
                    }
                    self.bump();
                    self.expect(Tok::RBrace, "'}' after '...'")?;
                    return Ok(Literal::Elided);
                }
                Tok::Eof => return Err(self.error("unterminated literal")),
                _ => {
                    if level == 0 {
                        // XLA accepts a bare value for an array constant: it sets
                        // the first element and leaves the rest zero.
                        if total > 0 {
                            self.literal_value(&mut array, 0)?;
                        } else {
                            return Err(self.error(format!(
                                "expected '{{' starting a rank-{rank} literal, found {}",
                                self.found()
                            )));
                        }
                        return Ok(Literal::Array(array));
                    }
                    if level != rank {
                        return Err(self.error(format!(
                            "expects nested array in rank {rank}, but sees {level}"
                        )));
                    }
                    if counts[rank - 1] >= dims[rank - 1] || linear >= total {
                        return Err(self.error(format!(
                            "expects {} elements on the minor-most dimension, but sees more",
                            dims[rank - 1]
                        )));
                    }
                    self.literal_value(&mut array, linear)?;
                    counts[rank - 1] += 1;
                    linear += 1;
                }
            }
        }
    }

    /// One element value into `array[index]`.
    fn literal_value(&mut self, array: &mut ArrayLiteral, index: usize) -> PResult<()> {
        let elem = array.elem;
        match elem.class() {
            ElementClass::Pred => {
                if self.at_word("true") || self.at_word("false") {
                    let v = self.bool()?;
                    array.set_int(index, i128::from(v));
                } else if self.at(Tok::Int) {
                    let v = self.big_int()?;
                    array.set_int(index, i128::from(v != 0));
                } else {
                    return Err(self.error(format!(
                        "expected true, false or an integer for a pred element, found {}",
                        self.found()
                    )));
                }
            }
            ElementClass::Signed | ElementClass::Unsigned => {
                if !self.at(Tok::Int) {
                    return Err(self.error(format!(
                        "expects integer for primitive type: {}, found {}",
                        elem.name().to_uppercase(),
                        self.found()
                    )));
                }
                let span = self.span();
                let v = self.big_int()?;
                let bits = elem.bit_width();
                let (lo, hi, v) = if elem.class() == ElementClass::Signed {
                    let hi = (1i128 << (bits - 1)) - 1;
                    (-hi - 1, hi, v)
                } else {
                    // XLA reads the text as a 64-bit pattern, so -1 is u64's max.
                    let v = if v < 0 && v >= i128::from(i64::MIN) {
                        v + (1i128 << 64)
                    } else {
                        v
                    };
                    (0, (1i128 << bits) - 1, v)
                };
                if v < lo || v > hi {
                    return Err(self.error_at(
                        span,
                        format!(
                            "value {} is out of range for literal's primitive type {} namely [{lo}, {hi}].",
                            self.text(self.tok_at(span)),
                            elem.name().to_uppercase()
                        ),
                    ));
                }
                array.set_int(index, v);
            }
            ElementClass::Float => {
                let span = self.span();
                let (value, payload) = self.float_value(elem)?;
                self.check_float_range(elem, value, span)?;
                array.set_float(index, value);
                if let Some(payload) = payload {
                    self.set_nan_payload(array, index, payload, span)?;
                }
            }
            ElementClass::Complex => {
                if !self.at(Tok::LParen) {
                    return Err(self.error(format!(
                        "expected (real, imaginary) for a {} element, found {}",
                        elem.name(),
                        self.found()
                    )));
                }
                self.bump();
                let part = if elem == ElementType::C64 {
                    ElementType::F32
                } else {
                    ElementType::F64
                };
                let span = self.span();
                let (re, _) = self.float_value(part)?;
                self.check_float_range(part, re, span).map_err(|_| {
                    self.error_at(
                        span,
                        format!(
                            "real part {} is out of range for literal's primitive type {}",
                            format_g(re, 6),
                            elem.name().to_uppercase()
                        ),
                    )
                })?;
                self.expect(Tok::Comma, "',' after the real part of a complex number")?;
                let span = self.span();
                let (im, _) = self.float_value(part)?;
                self.check_float_range(part, im, span).map_err(|_| {
                    self.error_at(
                        span,
                        format!(
                            "imaginary part {} is out of range for literal's primitive type {}",
                            format_g(im, 6),
                            elem.name().to_uppercase()
                        ),
                    )
                })?;
                self.expect(Tok::RParen, "')' after the complex number")?;
                array.set_complex(index, re, im);
            }
            ElementClass::Token | ElementClass::Opaque => {
                return Err(self.error("token and opaque constants have no values"));
            }
        }
        Ok(())
    }

    fn tok_at(&self, span: crate::diagnostic::Span) -> crate::text::lexer::Token {
        crate::text::lexer::Token {
            kind: Tok::Int,
            start: span.start,
            end: span.end,
        }
    }

    /// An integer token that may exceed `i64` (up to `u64::MAX`).
    fn big_int(&mut self) -> PResult<i128> {
        let text = self.cur_text();
        match text.parse::<i128>() {
            Ok(v) if v <= i128::from(u64::MAX) && v >= i128::from(i64::MIN) => {
                self.bump();
                Ok(v)
            }
            _ => Err(self.error(format!("integer {text} is out of range"))),
        }
    }

    /// A float value and its NaN payload, if one was written.
    fn float_value(&mut self, elem: ElementType) -> PResult<(f64, Option<u64>)> {
        let text = self.cur_text();
        let ok = matches!(self.kind(), Tok::Int | Tok::Decimal)
            || (self.at(Tok::Ident) && matches!(text, "inf" | "nan"));
        if !ok {
            return Err(self.error(format!(
                "expect floating point value for primitive type: {}, found {}",
                elem.name().to_uppercase(),
                self.found()
            )));
        }
        let (negative, body) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if let Some(rest) = body.strip_prefix("nan") {
            let payload =
                if let Some(hex) = rest.strip_prefix("(0x").and_then(|h| h.strip_suffix(')')) {
                    match u64::from_str_radix(hex, 16) {
                        Ok(p) if p != 0 => Some(p),
                        _ => return Err(self.error(format!("malformed NaN payload in '{text}'"))),
                    }
                } else if rest.is_empty() {
                    None
                } else {
                    return Err(self.error(format!("malformed NaN '{text}'")));
                };
            self.bump();
            let nan = if negative { -f64::NAN } else { f64::NAN };
            return Ok((nan, payload));
        }
        let value = crate::text::float::parse_f64(text)
            .ok_or_else(|| self.error(format!("malformed number '{text}'")))?;
        if value.is_infinite() && !body.starts_with("inf") {
            return Err(self.error(
                "Constant is out of range for double (+/-1.79769e+308) and so is unparsable.",
            ));
        }
        self.bump();
        Ok((value, None))
    }

    fn check_float_range(
        &self,
        elem: ElementType,
        value: f64,
        span: crate::diagnostic::Span,
    ) -> PResult<()> {
        if !value.is_finite() {
            return Ok(());
        }
        let (max, limit) = match elem {
            ElementType::F64 => return Ok(()),
            ElementType::F32 => {
                let max = f64::from(f32::MAX);
                (max, max + 2f64.powi(127 - 24))
            }
            _ => {
                let Some(format) = minifloat::format(elem) else {
                    return Ok(());
                };
                let max = format.max_finite();
                let top = max.log2().floor() as i32;
                (max, max + 2f64.powi(top - format.mantissa_bits as i32 - 1))
            }
        };
        if value.abs() >= limit {
            return Err(self.error_at(
                span,
                format!(
                    "value {} is out of range for literal's primitive type {} namely [{}, {}].",
                    format_g(value, 6),
                    elem.name().to_uppercase(),
                    format_g(-max, 6),
                    format_g(max, 6)
                ),
            ));
        }
        Ok(())
    }

    fn set_nan_payload(
        &self,
        array: &mut ArrayLiteral,
        index: usize,
        payload: u64,
        span: crate::diagnostic::Span,
    ) -> PResult<()> {
        let mantissa_bits = match array.elem {
            ElementType::F32 => 23,
            ElementType::F64 => 52,
            ElementType::F16 => 10,
            ElementType::Bf16 => 7,
            ElementType::F8E5M2 => 2,
            ElementType::F8E4M3 => 3,
            ElementType::F8E3M4 => 4,
            other => {
                return Err(self.error_at(
                    span,
                    format!(
                        "tries to set NaN payload 0x{payload:x} to a literal at linear index {index}, but {} does not support payloads",
                        other.name()
                    ),
                ));
            }
        };
        let mask = (1u64 << mantissa_bits) - 1;
        if payload > mask {
            return Err(self.error_at(
                span,
                format!(
                    "tries to set NaN payload 0x{payload:x} to a literal at linear index {index}, but the NaN payload is out of range (0x{mask:x})"
                ),
            ));
        }
        let bits = array.bits(index);
        array.set_bits(index, (bits & !mask) | payload);
        Ok(())
    }
}

/// Appends the literal's values (without its shape), as XLA prints constants.
pub fn print_literal(out: &mut String, literal: &Literal) {
    match literal {
        Literal::Elided => out.push_str("{...}"),
        Literal::Tuple(elements) => {
            out.push_str("( ");
            for (i, e) in elements.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_literal(out, e);
            }
            out.push_str(" )");
        }
        Literal::Array(array) => print_array(out, array),
    }
}

fn print_array(out: &mut String, array: &ArrayLiteral) {
    let rank = array.dims.len();
    if rank == 0 {
        if array.elem == ElementType::Pred {
            out.push_str(if array.get_int(0) != 0 {
                "true"
            } else {
                "false"
            });
        } else {
            print_element(out, array, 0);
        }
        return;
    }
    if rank == 1 {
        out.push('{');
        for i in 0..array.dims[0] as usize {
            if i > 0 {
                out.push_str(", ");
            }
            print_element(out, array, i);
        }
        out.push('}');
        return;
    }
    print_levels(out, array);
}

/// An array of rank 2 or more, as nested braces, one level per dimension
/// (with XLA's `/*iN=M*/` comments above rank 3), without recursion: ranks
/// are not bounded.
fn print_levels(out: &mut String, array: &ArrayLiteral) {
    let dims = &array.dims;
    let rank = dims.len();
    // The position in each open level.
    let mut index = vec![0i64; rank];
    let mut linear = 0usize;
    let mut d = 0;
    'open: loop {
        // Open level `d`: the innermost prints its elements at once.
        let size = dims[d];
        if d == rank - 1 {
            out.push('{');
            if size > 1 {
                out.push(' ');
            }
            for i in 0..size {
                if i > 0 {
                    out.push_str(", ");
                }
                print_element(out, array, linear);
                linear += 1;
            }
            if size > 1 {
                out.push(' ');
            }
            out.push('}');
        } else {
            out.push('{');
            if rank > 3 && d > 0 {
                out.push_str(" /*i");
                out.push_str(&(d - 1).to_string());
                out.push('=');
                out.push_str(&index[d - 1].to_string());
                out.push_str("*/");
            }
            if size > 0 {
                out.push(' ');
                index[d] = 0;
                d += 1;
                continue 'open;
            }
            out.push_str(" }");
        }
        // Level `d` is closed: open its next sibling, closing the levels
        // that have none.
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < dims[d] {
                out.push_str(", ");
                d += 1;
                continue 'open;
            }
            out.push_str(" }");
        }
    }
}

fn print_element(out: &mut String, array: &ArrayLiteral, i: usize) {
    let elem = array.elem;
    match elem.class() {
        ElementClass::Pred => out.push(if array.get_int(i) != 0 { '1' } else { '0' }),
        ElementClass::Signed | ElementClass::Unsigned => {
            out.push_str(&array.get_int(i).to_string());
        }
        ElementClass::Float => {
            let value = array.get_float(i);
            match elem {
                ElementType::F32 => out.push_str(&format_f32(value as f32)),
                ElementType::F64 => out.push_str(&format_f64(value)),
                _ => out.push_str(&format_g(value, narrow_precision(elem))),
            }
            if value.is_nan() {
                push_nan_payload(out, elem, array.bits(i));
            }
        }
        ElementClass::Complex => {
            let (re, im) = array.get_complex(i);
            out.push('(');
            if elem == ElementType::C64 {
                out.push_str(&format_f32(re as f32));
                out.push_str(", ");
                out.push_str(&format_f32(im as f32));
            } else {
                out.push_str(&format_f64(re));
                out.push_str(", ");
                out.push_str(&format_f64(im));
            }
            out.push(')');
        }
        ElementClass::Token | ElementClass::Opaque => {}
    }
}

/// Appends `(0x…)` when a NaN's payload differs from the quiet default.
fn push_nan_payload(out: &mut String, elem: ElementType, bits: u64) {
    let mantissa_bits = match elem {
        ElementType::F32 => 23,
        ElementType::F64 => 52,
        ElementType::F16 => 10,
        ElementType::Bf16 => 7,
        ElementType::F8E5M2 => 2,
        _ => return,
    };
    let mask = (1u64 << mantissa_bits) - 1;
    let payload = bits & mask;
    if payload != 1 << (mantissa_bits - 1) {
        out.push_str(&format!("(0x{payload:x})"));
    }
}

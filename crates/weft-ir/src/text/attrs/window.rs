//! Windows (`window={size=3x3 stride=2x2 pad=0_1x0_1 …}`), padding configs
//! (`padding=0_0x1_1_2`) and slice ranges (`slice={[0:2], [1:5:2]}`) in HLO
//! text, parse and print side by side.
//!
//! Printing follows XLA: a window prints `size=` and then each other field only
//! when some dimension differs from its default; a padding config prints the
//! interior part of every dimension when any dimension has interior padding; a
//! slice prints every stride when any stride differs from 1.

use std::fmt::Write;

use crate::attrs::{PaddingConfig, PaddingDim, SliceRange, Window, WindowDim};
use crate::text::integers::push_int;
use crate::text::lexer::Tok;
use crate::text::parser::{PResult, Parser};

/// Splits a `DxD` or integer token into its numbers (`3x3` → `[3, 3]`).
fn dxd_values(text: &str) -> Option<Vec<i64>> {
    text.split('x')
        .map(|part| part.parse::<i64>().ok())
        .collect()
}

impl Parser<'_> {
    /// `{size=… stride=… pad=… lhs_dilate=… rhs_dilate=… rhs_reversal=…}`.
    pub(crate) fn window(&mut self) -> PResult<Window> {
        self.expect(Tok::LBrace, "'{' starting the window")?;
        let mut size: Option<Vec<i64>> = None;
        let mut fields: Vec<(&str, crate::diagnostic::Span, Vec<i64>)> = Vec::new();
        let mut pads: Option<(crate::diagnostic::Span, Vec<(i64, i64)>)> = None;
        while !self.at(Tok::RBrace) {
            let span = self.span();
            if !self.at(Tok::AttrName) {
                return Err(self
                    .error(format!("expected a window field, found {}", self.found()))
                    .with_hint("window fields are size, stride, pad, lhs_dilate, rhs_dilate and rhs_reversal, e.g. window={size=3x3 stride=2x2 pad=1_1x1_1}"));
            }
            let name = self.cur_text();
            let seen = size.is_some() && name == "size"
                || pads.is_some() && name == "pad"
                || fields.iter().any(|(n, _, _)| *n == name);
            if seen {
                return Err(self.error(format!("window field '{name}=' is given twice")));
            }
            self.bump();
            match name {
                "pad" => {
                    let values = self.pad_pairs()?;
                    pads = Some((span, values));
                }
                "size" | "stride" | "lhs_dilate" | "rhs_dilate" | "rhs_reversal" => {
                    let values = self.dxd()?;
                    if name == "size" {
                        size = Some(values);
                    } else {
                        fields.push((name, span, values));
                    }
                }
                _ => {
                    return Err(self
                        .error_at(span, format!("unknown window field '{name}'"))
                        .with_hint("window fields are size, stride, pad, lhs_dilate, rhs_dilate and rhs_reversal"));
                }
            }
        }
        let close = self.span();
        self.bump();
        let Some(size) = size else {
            return Err(self.error_at(close, "window has no 'size='"));
        };
        let mut window = Window {
            dims: size.iter().map(|&s| WindowDim::new(s)).collect(),
        };
        for (name, span, values) in fields {
            if values.len() != size.len() {
                return Err(self.error_at(
                    span,
                    format!(
                        "'{name}=' has {} values but 'size=' has {}",
                        values.len(),
                        size.len()
                    ),
                ));
            }
            for (dim, v) in window.dims.iter_mut().zip(values) {
                match name {
                    "stride" => dim.stride = v,
                    "lhs_dilate" => dim.base_dilation = v,
                    "rhs_dilate" => dim.window_dilation = v,
                    _ => dim.reversal = v != 0,
                }
            }
        }
        if let Some((span, values)) = pads {
            if values.len() != size.len() {
                return Err(self.error_at(
                    span,
                    format!(
                        "'pad=' has {} values but 'size=' has {}",
                        values.len(),
                        size.len()
                    ),
                ));
            }
            for (dim, (low, high)) in window.dims.iter_mut().zip(values) {
                dim.padding_low = low;
                dim.padding_high = high;
            }
        }
        Ok(window)
    }

    /// An integer or `NxM…` token.
    fn dxd(&mut self) -> PResult<Vec<i64>> {
        match self.kind() {
            Tok::Int | Tok::DxD => {
                let text = self.cur_text();
                let values = dxd_values(text)
                    .ok_or_else(|| self.error(format!("malformed dimensions '{text}'")))?;
                self.bump();
                Ok(values)
            }
            _ => Err(self.error(format!(
                "expected dimensions like 3x3, found {}",
                self.found()
            ))),
        }
    }

    /// `lo_hi x lo_hi …` of a window's `pad=`.
    fn pad_pairs(&mut self) -> PResult<Vec<(i64, i64)>> {
        let span = self.span();
        let dims = self.padding_token()?;
        dims.into_iter()
            .map(|d| {
                if d.interior != 0 || d.has_interior {
                    Err(self
                        .error_at(span, "window padding has no interior part")
                        .with_hint("window padding is low_high per dimension, e.g. pad=0_1x1_1"))
                } else {
                    Ok((d.low, d.high))
                }
            })
            .collect()
    }

    /// A padding token: `lo_hi[_int]` per dimension, dimensions separated by `x`.
    fn padding_token(&mut self) -> PResult<Vec<RawPad>> {
        if !self.at(Tok::Pad) {
            return Err(self
                .error(format!("expected padding like 0_1x1_1, found {}", self.found()))
                .with_hint("padding is low_high (or low_high_interior for pad) per dimension, separated by 'x'"));
        }
        let text = self.cur_text();
        let mut dims = Vec::new();
        for part in split_pad_dims(text) {
            let numbers: Vec<&str> = part.split('_').collect();
            let parse = |s: &str| s.parse::<i64>().ok();
            let dim = match numbers.as_slice() {
                [low, high] => parse(low).zip(parse(high)).map(|(low, high)| RawPad {
                    low,
                    high,
                    interior: 0,
                    has_interior: false,
                }),
                [low, high, interior] => match (parse(low), parse(high), parse(interior)) {
                    (Some(low), Some(high), Some(interior)) => Some(RawPad {
                        low,
                        high,
                        interior,
                        has_interior: true,
                    }),
                    _ => None,
                },
                _ => None,
            };
            match dim {
                Some(d) => dims.push(d),
                None => {
                    return Err(self.error(format!("malformed padding '{text}'")).with_hint(
                        "padding is low_high or low_high_interior per dimension, e.g. 0_0x1_1_2",
                    ));
                }
            }
        }
        self.bump();
        Ok(dims)
    }

    /// A pad instruction's `padding=` value.
    pub(crate) fn padding_config(&mut self) -> PResult<PaddingConfig> {
        let dims = self.padding_token()?;
        Ok(PaddingConfig {
            dims: dims
                .into_iter()
                .map(|d| PaddingDim {
                    low: d.low,
                    high: d.high,
                    interior: d.interior,
                })
                .collect(),
        })
    }

    /// `{[start:limit(:stride)?], …}`.
    pub(crate) fn slice_ranges(&mut self) -> PResult<Vec<SliceRange>> {
        self.braced_list(|p| {
            p.expect(Tok::LSquare, "'[' starting a slice range")?;
            let start = p.int()?;
            p.expect(Tok::Colon, "':' in [start:limit]")?;
            let limit = p.int()?;
            let stride = if p.eat(Tok::Colon) { p.int()? } else { 1 };
            p.expect(Tok::RSquare, "']' closing the slice range")?;
            Ok(SliceRange {
                start,
                limit,
                stride,
            })
        })
    }
}

/// A parsed padding dimension, remembering whether an interior part was written.
struct RawPad {
    low: i64,
    high: i64,
    interior: i64,
    has_interior: bool,
}

/// Splits `0_1x-1_2` into `["0_1", "-1_2"]` (an `x` separates dimensions; a `-`
/// after `x` or `_` is a sign).
fn split_pad_dims(text: &str) -> impl Iterator<Item = &str> {
    text.split('x')
}

impl Window {
    /// Appends XLA's text for the window (without braces).
    pub fn print(&self, out: &mut String) {
        let dims = &self.dims;
        let joined = |out: &mut String, f: &dyn Fn(&WindowDim) -> String| {
            for (i, d) in dims.iter().enumerate() {
                if i > 0 {
                    out.push('x');
                }
                out.push_str(&f(d));
            }
        };
        out.push_str("size=");
        joined(out, &|d| d.size.to_string());
        if dims.iter().any(|d| d.stride != 1) {
            out.push_str(" stride=");
            joined(out, &|d| d.stride.to_string());
        }
        if dims
            .iter()
            .any(|d| d.padding_low != 0 || d.padding_high != 0)
        {
            out.push_str(" pad=");
            joined(out, &|d| format!("{}_{}", d.padding_low, d.padding_high));
        }
        if dims.iter().any(|d| d.base_dilation != 1) {
            out.push_str(" lhs_dilate=");
            joined(out, &|d| d.base_dilation.to_string());
        }
        if dims.iter().any(|d| d.window_dilation != 1) {
            out.push_str(" rhs_dilate=");
            joined(out, &|d| d.window_dilation.to_string());
        }
        if dims.iter().any(|d| d.reversal) {
            out.push_str(" rhs_reversal=");
            joined(out, &|d| if d.reversal { "1" } else { "0" }.to_string());
        }
    }
}

impl PaddingConfig {
    /// Appends XLA's text for the config.
    pub fn print(&self, out: &mut String) {
        let interior = self.dims.iter().any(|d| d.interior != 0);
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                out.push('x');
            }
            let _ = write!(out, "{}_{}", d.low, d.high);
            if interior {
                let _ = write!(out, "_{}", d.interior);
            }
        }
    }
}

/// Appends `{[a:b], …}` (with strides when any differs from 1).
pub fn print_slice_ranges(out: &mut String, ranges: &[SliceRange]) {
    let strides = ranges.iter().any(|r| r.stride != 1);
    out.push('{');
    for (i, r) in ranges.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('[');
        push_int(out, r.start);
        out.push(':');
        push_int(out, r.limit);
        if strides {
            out.push(':');
            push_int(out, r.stride);
        }
        out.push(']');
    }
    out.push('}');
}

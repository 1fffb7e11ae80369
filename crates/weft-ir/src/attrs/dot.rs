//! Dot dimension numbers and precision configs, parse and print side by side.
//!
//! XLA prints `lhs_batch_dims` and `rhs_batch_dims` only when non-empty and the
//! contracting dimensions always; `operand_precision={…}` only when some entry is
//! not `default`, and then every entry.

use crate::text::parser::{PResult, Parser};
use crate::text::printer::push_int_list;

/// An operand's precision.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// `default`.
    Default,
    /// `high`.
    High,
    /// `highest`.
    Highest,
    /// `packed_nibble`.
    PackedNibble,
}

impl Precision {
    /// The spelling in text.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Default => "default",
            Precision::High => "high",
            Precision::Highest => "highest",
            Precision::PackedNibble => "packed_nibble",
        }
    }
}

/// Dot, ragged-dot and scaled-dot attributes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DotAttrs {
    /// `lhs_batch_dims`.
    pub lhs_batch: Vec<i64>,
    /// `lhs_contracting_dims`.
    pub lhs_contracting: Vec<i64>,
    /// `rhs_batch_dims`.
    pub rhs_batch: Vec<i64>,
    /// `rhs_contracting_dims`.
    pub rhs_contracting: Vec<i64>,
    /// ragged-dot's `lhs_ragged_dims`.
    pub lhs_ragged: Vec<i64>,
    /// ragged-dot's `rhs_group_dims`.
    pub rhs_group: Vec<i64>,
    /// `operand_precision={…}` (empty when all default).
    pub precision: Vec<Precision>,
    /// `algorithm=…` (a dot precision algorithm such as `dot_bf16_bf16_f32`).
    pub algorithm: Option<String>,
}

impl Parser<'_> {
    /// `{default,high}`.
    pub(crate) fn precision_list(&mut self) -> PResult<Vec<Precision>> {
        self.braced_list(|p| {
            let span = p.span();
            let word = p.ident("a precision")?;
            match word {
                "default" | "DEFAULT" => Ok(Precision::Default),
                "high" | "HIGH" => Ok(Precision::High),
                "highest" | "HIGHEST" => Ok(Precision::Highest),
                "packed_nibble" | "PACKED_NIBBLE" => Ok(Precision::PackedNibble),
                _ => Err(p
                    .error_at(span, format!("unknown precision '{word}'"))
                    .with_hint("precisions are default, high, highest and packed_nibble")),
            }
        })
    }
}

/// Appends `, operand_precision={…}` when some entry is not default, and
/// `, algorithm=…` when set.
pub fn print_precision(out: &mut String, precision: &[Precision], algorithm: Option<&str>) {
    if precision.iter().any(|&p| p != Precision::Default) {
        out.push_str(", operand_precision={");
        for (i, p) in precision.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(p.name());
        }
        out.push('}');
    }
    if let Some(algorithm) = algorithm {
        out.push_str(", algorithm=");
        out.push_str(algorithm);
    }
}

impl DotAttrs {
    /// Appends the dimension numbers (`, lhs_batch_dims=…` …).
    pub(crate) fn print_dims(&self, out: &mut String) {
        if !self.lhs_batch.is_empty() {
            out.push_str(", lhs_batch_dims=");
            push_int_list(out, &self.lhs_batch);
        }
        out.push_str(", lhs_contracting_dims=");
        push_int_list(out, &self.lhs_contracting);
        if !self.rhs_batch.is_empty() {
            out.push_str(", rhs_batch_dims=");
            push_int_list(out, &self.rhs_batch);
        }
        out.push_str(", rhs_contracting_dims=");
        push_int_list(out, &self.rhs_contracting);
    }
}

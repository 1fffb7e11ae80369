//! Dot dimension numbers and precision configs in HLO text, parse and print
//! side by side.
//!
//! XLA prints `lhs_batch_dims` and `rhs_batch_dims` only when non-empty and the
//! contracting dimensions always; `operand_precision={…}` only when some entry is
//! not `default`, and then every entry.

use crate::attrs::{DotAttrs, Precision};
use crate::text::integers::push_int_list;
use crate::text::parser::{PResult, Parser};

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

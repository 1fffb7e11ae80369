//! Convolution dimension labels in HLO text (`dim_labels=b01f_01io->b01f`),
//! parse and print side by side.
//!
//! In a label string each position is a dimension of that operand: `b` batch, `f`
//! feature (`i`/`o` input/output feature for the kernel), a digit the n-th spatial
//! dimension, `?` a dimension with no role.

use crate::attrs::ConvolutionDims;
use crate::text::lexer::Tok;
use crate::text::parser::{PResult, Parser};

struct Labels {
    batch: Option<i64>,
    feature: Option<i64>,
    spatial: Vec<Option<i64>>,
}

fn parse_labels(text: &str, batch: u8, feature: u8, side: &str) -> Result<Labels, String> {
    let spatial_count = text.len().saturating_sub(2);
    if let Some(c) = text
        .bytes()
        .find(|c| c.is_ascii_digit() && usize::from(c - b'0') >= spatial_count)
    {
        let range = if spatial_count == 0 {
            String::new()
        } else {
            format!("0-{}", spatial_count - 1)
        };
        return Err(format!(
            "expects [{range}{}{}?] in {side} dimension numbers, found '{}' in '{text}'",
            batch as char, feature as char, c as char
        ));
    }
    let mut labels = Labels {
        batch: None,
        feature: None,
        spatial: Vec::new(),
    };
    for (position, c) in text.bytes().enumerate() {
        let position = position as i64;
        let slot = if c == batch {
            &mut labels.batch
        } else if c == feature {
            &mut labels.feature
        } else if c.is_ascii_digit() {
            let n = usize::from(c - b'0');
            if labels.spatial.len() <= n {
                labels.spatial.resize(n + 1, None);
            }
            &mut labels.spatial[n]
        } else if c == b'?' {
            continue;
        } else {
            return Err(format!(
                "unexpected '{}' in dimension labels '{text}'",
                c as char
            ));
        };
        if slot.is_some() {
            return Err(format!(
                "expects unique {side} dimension numbers, but sees '{}' twice in '{text}'",
                c as char
            ));
        }
        *slot = Some(position);
    }
    Ok(labels)
}

impl Parser<'_> {
    /// `b01f_01io->b01f`.
    pub(crate) fn dim_labels(&mut self) -> PResult<ConvolutionDims> {
        if !self.at(Tok::DimLabels) {
            return Err(self
                .error(format!("expected dimension labels, found {}", self.found()))
                .with_hint("dimension labels look like b01f_01io->b01f"));
        }
        let text = self.cur_text();
        let (lhs, rest) = text.split_once('_').unwrap_or((text, ""));
        let (rhs, out) = rest.split_once("->").unwrap_or((rest, ""));
        let lhs_labels = parse_labels(lhs, b'b', b'f', "lhs").map_err(|e| self.error(e))?;
        let rhs_labels = parse_labels(rhs, b'o', b'i', "rhs").map_err(|e| self.error(e))?;
        let out_labels = parse_labels(out, b'b', b'f', "output").map_err(|e| self.error(e))?;
        let spatial = lhs_labels.spatial.len();
        if rhs_labels.spatial.len() != spatial || out_labels.spatial.len() != spatial {
            return Err(self.error(format!(
                "input, kernel, and output must have same number of spatial dimensions, but got {}, {}, {}",
                lhs_labels.spatial.len(),
                rhs_labels.spatial.len(),
                out_labels.spatial.len()
            )));
        }
        let missing = |labels: &Labels| labels.spatial.iter().any(|s| s.is_none());
        if missing(&lhs_labels) || missing(&rhs_labels) || missing(&out_labels) {
            return Err(self.error(format!(
                "dimension labels '{text}' skip a spatial dimension number"
            )));
        }
        let need = |v: Option<i64>, what: &str| -> PResult<i64> {
            v.ok_or_else(|| self.error(format!("dimension labels '{text}' have no {what}")))
        };
        let dims = ConvolutionDims {
            input_batch: need(lhs_labels.batch, "input batch dimension 'b'")?,
            input_feature: need(lhs_labels.feature, "input feature dimension 'f'")?,
            input_spatial: lhs_labels.spatial.iter().flatten().copied().collect(),
            kernel_output_feature: need(rhs_labels.batch, "kernel output feature dimension 'o'")?,
            kernel_input_feature: need(rhs_labels.feature, "kernel input feature dimension 'i'")?,
            kernel_spatial: rhs_labels.spatial.iter().flatten().copied().collect(),
            output_batch: need(out_labels.batch, "output batch dimension 'b'")?,
            output_feature: need(out_labels.feature, "output feature dimension 'f'")?,
            output_spatial: out_labels.spatial.iter().flatten().copied().collect(),
            ranks: [lhs.len(), rhs.len(), out.len()],
        };
        self.bump();
        Ok(dims)
    }
}

impl ConvolutionDims {
    /// Appends the label text.
    pub fn print(&self, out: &mut String) {
        let render = |rank: usize, batch: i64, feature: i64, spatial: &[i64], b: char, f: char| {
            let mut chars = vec!['?'; rank];
            let mut set = |position: i64, c: char| {
                if let Some(slot) = usize::try_from(position)
                    .ok()
                    .and_then(|p| chars.get_mut(p))
                {
                    *slot = c;
                }
            };
            set(batch, b);
            set(feature, f);
            for (i, &s) in spatial.iter().enumerate() {
                set(s, char::from_digit(i as u32 % 10, 10).unwrap_or('?'));
            }
            chars.into_iter().collect::<String>()
        };
        out.push_str(&render(
            self.ranks[0],
            self.input_batch,
            self.input_feature,
            &self.input_spatial,
            'b',
            'f',
        ));
        out.push('_');
        out.push_str(&render(
            self.ranks[1],
            self.kernel_output_feature,
            self.kernel_input_feature,
            &self.kernel_spatial,
            'o',
            'i',
        ));
        out.push_str("->");
        out.push_str(&render(
            self.ranks[2],
            self.output_batch,
            self.output_feature,
            &self.output_spatial,
            'b',
            'f',
        ));
    }
}

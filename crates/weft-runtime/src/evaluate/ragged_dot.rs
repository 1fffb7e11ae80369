//! `ragged-dot`: a dot whose lhs has one ragged dimension, split into
//! groups by `group_sizes`.
//!
//! `ragged-dot` supports the three modes of `chlo.ragged_dot`: a ragged
//! non-contracting lhs dimension picks a group of the rhs for each row; a
//! ragged contracting dimension gives one product per group, each over
//! its slice of the contraction; a ragged batch dimension is a `dot`.
//! Rows (or batches) past the last group are zero. `group_sizes` is `[g]`
//! or carries the lhs dimensions outer to the ragged one first. Products
//! accumulate in `f64` (integers wrap).

use weft_ir::ElementType;
use weft_ir::attrs::DotAttrs;

use super::complex::{c_add, c_mul};
use super::element_access::next_index;
use crate::numbers::{Numbers, convert_numbers, decode, encode};
use crate::tensor::{Tensor, element_count, strides};

/// Which kind of lhs dimension is ragged.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RaggedMode {
    /// A free dimension: each row's group picks a slice of the rhs.
    NonContracting,
    /// A contracting dimension: one product per group over its slice.
    Contracting,
    /// A batch dimension: a dot whose batches past the groups are zero.
    Batch,
}

/// `ragged-dot(lhs, rhs, group_sizes)`.
pub(super) fn ragged_dot(
    lhs: &Tensor,
    rhs: &Tensor,
    group_sizes: &Tensor,
    attrs: &DotAttrs,
    result_elem: ElementType,
    result_dims: &[i64],
) -> Result<Tensor, String> {
    let &[ragged] = &attrs.lhs_ragged[..] else {
        return Err("ragged-dot needs exactly one lhs ragged dimension".into());
    };
    let mode = if attrs.lhs_contracting.contains(&ragged) {
        RaggedMode::Contracting
    } else if attrs.lhs_batch.contains(&ragged) {
        RaggedMode::Batch
    } else {
        RaggedMode::NonContracting
    };
    let rhs_group = match (mode, &attrs.rhs_group[..]) {
        (RaggedMode::NonContracting, &[g]) => Some(
            usize::try_from(g)
                .ok()
                .filter(|&g| g < rhs.dims.len())
                .ok_or("the rhs group dimension is out of range")?,
        ),
        (RaggedMode::NonContracting, _) => {
            return Err("a ragged non-contracting dimension needs one rhs group dimension".into());
        }
        (_, []) => None,
        _ => return Err("only a ragged non-contracting dimension has rhs group dimensions".into()),
    };
    let in_range = |d: i64, rank: usize| usize::try_from(d).ok().filter(|&d| d < rank);
    let lhs_rank = lhs.dims.len();
    let rhs_rank = rhs.dims.len();
    let dims_of = |ds: &[i64], rank: usize| -> Result<Vec<usize>, String> {
        ds.iter()
            .map(|&d| in_range(d, rank).ok_or_else(|| format!("dimension {d} is out of range")))
            .collect()
    };
    let lhs_batch = dims_of(&attrs.lhs_batch, lhs_rank)?;
    let rhs_batch = dims_of(&attrs.rhs_batch, rhs_rank)?;
    let lhs_contracting = dims_of(&attrs.lhs_contracting, lhs_rank)?;
    let rhs_contracting = dims_of(&attrs.rhs_contracting, rhs_rank)?;
    let ragged = in_range(ragged, lhs_rank).ok_or("the ragged dimension is out of range")?;
    if lhs_batch.len() != rhs_batch.len() || lhs_contracting.len() != rhs_contracting.len() {
        return Err(
            "ragged-dot's lhs and rhs batch or contracting dimensions differ in number".into(),
        );
    }
    let lhs_free: Vec<usize> = (0..lhs_rank)
        .filter(|d| !lhs_batch.contains(d) && !lhs_contracting.contains(d))
        .collect();
    let rhs_free: Vec<usize> = (0..rhs_rank)
        .filter(|d| !rhs_batch.contains(d) && !rhs_contracting.contains(d) && Some(*d) != rhs_group)
        .collect();

    // Group boundaries for each combination of the lhs dimensions that
    // `group_sizes` carries before its group dimension.
    let sizes: Vec<i64> = match decode(group_sizes) {
        Numbers::Signed(v) => v,
        Numbers::Unsigned(v) => v
            .into_iter()
            .map(|x| x.min(i64::MAX as u64) as i64)
            .collect(),
        _ => return Err("ragged-dot's group sizes must be integers".into()),
    };
    let groups = group_sizes
        .dims
        .last()
        .map(|&g| g.max(0) as usize)
        .ok_or("ragged-dot's group sizes must have rank 1 or more")?;
    if let Some(g) = rhs_group
        && rhs.dims[g] != groups as i64
    {
        return Err(format!(
            "the rhs group dimension has size {} but there are {groups} groups",
            rhs.dims[g]
        ));
    }
    let outer_dims: Vec<usize> = match mode {
        RaggedMode::NonContracting => lhs_batch
            .iter()
            .copied()
            .chain(lhs_free.iter().copied().filter(|&d| d < ragged))
            .collect(),
        RaggedMode::Contracting => lhs_batch
            .iter()
            .copied()
            .chain(lhs_contracting.iter().copied().filter(|&d| d < ragged))
            .collect(),
        RaggedMode::Batch => lhs_batch.iter().copied().filter(|&d| d < ragged).collect(),
    };
    let prefix = &group_sizes.dims[..group_sizes.dims.len() - 1];
    let group_prefix: Vec<usize> = if prefix.is_empty() {
        Vec::new()
    } else if prefix.len() == outer_dims.len()
        && prefix
            .iter()
            .zip(&outer_dims)
            .all(|(&p, &d)| p == lhs.dims[d])
    {
        outer_dims
    } else {
        return Err(format!(
            "ragged-dot's group sizes {:?} do not fit the lhs dimensions outer to the ragged one",
            group_sizes.dims
        ));
    };
    let group_ends: Vec<Vec<i64>> = sizes
        .chunks(groups.max(1))
        .map(|chunk| {
            chunk
                .iter()
                .scan(0i64, |end, &size| {
                    *end = end.saturating_add(size);
                    Some(*end)
                })
                .collect()
        })
        .collect();
    // The row of `group_sizes` an lhs element uses: the lhs dimensions of
    // the prefix, row-major. Contracting ones vary along the contraction, so
    // the row splits into a part from the output index and one per step.
    let row_multipliers: Vec<(usize, usize)> = group_prefix
        .iter()
        .enumerate()
        .map(|(k, &d)| (d, element_count(&prefix[k + 1..])))
        .collect();
    let group_row = |lhs_index: &[i64], contracted: bool| -> usize {
        row_multipliers
            .iter()
            .filter(|(d, _)| lhs_contracting.contains(d) == contracted)
            .map(|&(d, multiplier)| lhs_index[d] as usize * multiplier)
            .sum()
    };
    // The group holding `position` along the ragged dimension, if any.
    let group_of = |ends: &[i64], position: i64| ends.iter().position(|&end| position < end);

    // Output dimensions: [groups,] batch, lhs free, rhs free.
    let mut out_dims: Vec<i64> = Vec::new();
    if mode == RaggedMode::Contracting {
        out_dims.push(groups as i64);
    }
    out_dims.extend(lhs_batch.iter().map(|&d| lhs.dims[d]));
    out_dims.extend(lhs_free.iter().map(|&d| lhs.dims[d]));
    out_dims.extend(rhs_free.iter().map(|&d| rhs.dims[d]));
    if out_dims != result_dims {
        return Err(format!(
            "ragged-dot gives dimensions {out_dims:?} but the result has {result_dims:?}"
        ));
    }
    let contracting_dims: Vec<i64> = lhs_contracting.iter().map(|&d| lhs.dims[d]).collect();
    if rhs_contracting
        .iter()
        .zip(&contracting_dims)
        .any(|(&d, &size)| rhs.dims[d] != size)
        || lhs_batch
            .iter()
            .zip(&rhs_batch)
            .any(|(&l, &r)| lhs.dims[l] != rhs.dims[r])
    {
        return Err("ragged-dot's contracting or batch dimensions differ in size".into());
    }

    let lhs_strides = strides(&lhs.dims);
    let rhs_strides = strides(&rhs.dims);
    let mut steps: Vec<Step> = Vec::new();
    if element_count(&contracting_dims) > 0 {
        let mut index = vec![0i64; contracting_dims.len()];
        let mut lhs_index = vec![0i64; lhs_rank];
        loop {
            let mut step = Step {
                lhs: 0,
                rhs: 0,
                ragged: 0,
                row: 0,
            };
            for (k, &i) in index.iter().enumerate() {
                lhs_index[lhs_contracting[k]] = i;
                step.lhs += i as usize * lhs_strides[lhs_contracting[k]];
                step.rhs += i as usize * rhs_strides[rhs_contracting[k]];
                if lhs_contracting[k] == ragged {
                    step.ragged = i;
                }
            }
            step.row = group_row(&lhs_index, true);
            steps.push(step);
            if !next_index(&mut index, &contracting_dims) {
                break;
            }
        }
    }

    /// One step of the contraction.
    struct Step {
        /// Offsets from the lhs and rhs elements of the output.
        lhs: usize,
        rhs: usize,
        /// The index along the ragged dimension, when it is contracted.
        ragged: i64,
        /// This step's part of the `group_sizes` row.
        row: usize,
    }
    /// One output element: where its operands start, and for a ragged
    /// contraction its group and the output's part of the `group_sizes`
    /// row; `None` for an element outside every group.
    struct Term {
        lhs_base: usize,
        rhs_base: usize,
        group: Option<(usize, usize)>,
    }
    let mut terms: Vec<Option<Term>> = Vec::with_capacity(element_count(&out_dims));
    if element_count(&out_dims) > 0 {
        let mut out_index = vec![0i64; out_dims.len()];
        let mut lhs_index = vec![0i64; lhs_rank];
        loop {
            let mut position = 0;
            let mut group = None;
            if mode == RaggedMode::Contracting {
                group = Some(out_index[0] as usize);
                position = 1;
            }
            let (mut lhs_base, mut rhs_base) = (0usize, 0usize);
            for (k, (&l, &r)) in lhs_batch.iter().zip(&rhs_batch).enumerate() {
                let i = out_index[position + k];
                lhs_index[l] = i;
                lhs_base += i as usize * lhs_strides[l];
                rhs_base += i as usize * rhs_strides[r];
            }
            position += lhs_batch.len();
            for (k, &l) in lhs_free.iter().enumerate() {
                let i = out_index[position + k];
                lhs_index[l] = i;
                lhs_base += i as usize * lhs_strides[l];
            }
            position += lhs_free.len();
            for (k, &r) in rhs_free.iter().enumerate() {
                rhs_base += out_index[position + k] as usize * rhs_strides[r];
            }
            let term = match mode {
                RaggedMode::NonContracting => {
                    let ends = group_ends.get(group_row(&lhs_index, false));
                    ends.and_then(|ends| group_of(ends, lhs_index[ragged]))
                        .map(|g| Term {
                            lhs_base,
                            rhs_base: rhs_base + g * rhs_strides[rhs_group.unwrap_or(0)],
                            group: None,
                        })
                }
                RaggedMode::Batch => {
                    let ends = group_ends.get(group_row(&lhs_index, false));
                    ends.and_then(|ends| group_of(ends, lhs_index[ragged]))
                        .map(|_| Term {
                            lhs_base,
                            rhs_base,
                            group: None,
                        })
                }
                RaggedMode::Contracting => Some(Term {
                    lhs_base,
                    rhs_base,
                    group: Some((group.unwrap_or(0), group_row(&lhs_index, false))),
                }),
            };
            terms.push(term);
            if !next_index(&mut out_index, &out_dims) {
                break;
            }
        }
    }
    // Whether a step belongs to a term: always, except in a ragged
    // contraction, where its ragged index must fall in the term's group.
    let included = |term: &Term, step: &Step| -> bool {
        let Some((group, row)) = term.group else {
            return true;
        };
        let Some(ends) = group_ends.get(row + step.row) else {
            return false;
        };
        let start = if group == 0 { 0 } else { ends[group - 1] };
        ends.get(group)
            .is_some_and(|&end| start <= step.ragged && step.ragged < end)
    };
    /// Each term's sum of `multiply_add` over its steps (by lhs and rhs
    /// element index); zero for a term outside every group.
    fn contract_with<T: Copy>(
        terms: &[Option<Term>],
        steps: &[Step],
        included: &dyn Fn(&Term, &Step) -> bool,
        zero: T,
        multiply_add: impl Fn(T, usize, usize) -> T,
    ) -> Vec<T> {
        terms
            .iter()
            .map(|term| match term {
                None => zero,
                Some(term) => {
                    steps
                        .iter()
                        .filter(|step| included(term, step))
                        .fold(zero, |sum, step| {
                            multiply_add(sum, term.lhs_base + step.lhs, term.rhs_base + step.rhs)
                        })
                }
            })
            .collect()
    }
    let domain = if result_elem == ElementType::Pred {
        ElementType::S64
    } else {
        result_elem
    };
    let (a, b) = (
        convert_numbers(&decode(lhs), domain),
        convert_numbers(&decode(rhs), domain),
    );
    let out = match (a, b) {
        (Numbers::Float(x), Numbers::Float(y)) => {
            Numbers::Float(contract_with(&terms, &steps, &included, 0.0, |s, l, r| {
                s + x[l] * y[r]
            }))
        }
        (Numbers::Complex(x), Numbers::Complex(y)) => Numbers::Complex(contract_with(
            &terms,
            &steps,
            &included,
            (0.0, 0.0),
            |s, l, r| c_add(s, c_mul(x[l], y[r])),
        )),
        (Numbers::Signed(x), Numbers::Signed(y)) => {
            Numbers::Signed(contract_with(&terms, &steps, &included, 0, |s, l, r| {
                s.wrapping_add(x[l].wrapping_mul(y[r]))
            }))
        }
        (Numbers::Unsigned(x), Numbers::Unsigned(y)) => {
            Numbers::Unsigned(contract_with(&terms, &steps, &included, 0, |s, l, r| {
                s.wrapping_add(x[l].wrapping_mul(y[r]))
            }))
        }
        _ => {
            return Err(format!(
                "ragged-dot of {} and {} into {}",
                lhs.elem.name(),
                rhs.elem.name(),
                result_elem.name()
            ));
        }
    };
    Ok(encode(result_elem, &out_dims, &out))
}

#[cfg(test)]
mod tests {
    use crate::evaluate::test_support::*;

    #[test]
    fn ragged_dot_in_all_three_modes() {
        // lhs rows 0..2 use group 0, rows 2..3 group 1, row 3 no group.
        let text = r#"
HloModule m
ENTRY e {
  lhs = f32[4,2] constant({{1, 2}, {3, 4}, {5, 6}, {7, 8}})
  rhs = f32[2,2,1] constant({{{1}, {1}}, {{10}, {0}}})
  sizes = s32[2] constant({2, 1})
  ROOT r = f32[4,1] ragged-dot(lhs, rhs, sizes), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}
"#;
        assert_eq!(
            floats(tensor(&run(text, vec![]))),
            vec![3.0, 7.0, 50.0, 0.0]
        );
        // Ragged contraction: group 0 sums k in 0..1, group 1 sums k in 1..3.
        let text = r#"
HloModule m
ENTRY e {
  lhs = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  rhs = f32[3,1] constant({{1}, {10}, {100}})
  sizes = s32[2] constant({1, 2})
  ROOT r = f32[2,2,1] ragged-dot(lhs, rhs, sizes), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
}
"#;
        assert_eq!(
            floats(tensor(&run(text, vec![]))),
            vec![1.0, 4.0, 320.0, 650.0]
        );
        // Group sizes per outer contracting index: row 0 splits k as 1 + 2,
        // row 1 as 2 + 1.
        let text = r#"
HloModule m
ENTRY e {
  lhs = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  rhs = f32[2,3,1] constant({{{1}, {10}, {100}}, {{1000}, {10000}, {100000}}})
  sizes = s64[2,2] constant({{1, 2}, {2, 1}})
  ROOT r = f32[2,1] ragged-dot(lhs, rhs, sizes), lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}, lhs_ragged_dims={1}
}
"#;
        assert_eq!(floats(tensor(&run(text, vec![]))), vec![54001.0, 600320.0]);
        // Ragged batch: batches past the groups are zero.
        let text = r#"
HloModule m
ENTRY e {
  lhs = f32[3,1,2] constant({{{1, 2}}, {{3, 4}}, {{5, 6}}})
  rhs = f32[3,2,1] constant({{{1}, {1}}, {{1}, {1}}, {{1}, {1}}})
  sizes = s32[1] constant({2})
  ROOT r = f32[3,1,1] ragged-dot(lhs, rhs, sizes), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
}
"#;
        assert_eq!(floats(tensor(&run(text, vec![]))), vec![3.0, 7.0, 0.0]);
    }
}

//! `topk` (and XLA's `TopK` custom call): the `k` largest or smallest
//! elements of each row of the last dimension, and their indices.
//!
//! Semantics follow XLA's CPU backend where it and the StableHLO spec part:
//! `topk` orders floats by total order (−NaN < −inf < … < +inf < +NaN),
//! as XLA's sort-based expansion does, largest (or smallest) first; ties
//! keep the lower index first.

use std::cmp::Ordering;

use weft_ir::ElementType;

use super::element_access::permuted;
use crate::numbers::{Numbers, decode, encode};
use crate::tensor::{Tensor, element_count};

/// `topk(operand), k=…`: the `k` largest (or smallest) elements of each row
/// of the last dimension and their indices.
pub(crate) fn top_k(input: &Tensor, k: i64, largest: bool) -> Result<(Tensor, Tensor), String> {
    let rank = input.dims.len();
    if rank == 0 {
        return Err("topk needs an operand of rank 1 or more".into());
    }
    let n = input.dims[rank - 1].max(0) as usize;
    let k = usize::try_from(k)
        .ok()
        .filter(|&k| k <= n)
        .ok_or_else(|| format!("topk's k must be in 0..={n}"))?;
    let order: Box<dyn Fn(usize, usize) -> Ordering> = match decode(input) {
        Numbers::Float(v) => Box::new(move |a, b| v[a].total_cmp(&v[b])),
        Numbers::Signed(v) => Box::new(move |a, b| v[a].cmp(&v[b])),
        Numbers::Unsigned(v) => Box::new(move |a, b| v[a].cmp(&v[b])),
        Numbers::Pred(v) => Box::new(move |a, b| v[a].cmp(&v[b])),
        Numbers::Complex(_) => return Err("topk of complex numbers has no order".into()),
    };
    let rows = element_count(&input.dims[..rank - 1]);
    let mut chosen = Vec::with_capacity(rows * k);
    let mut indices = Vec::with_capacity(rows * k);
    for row in 0..rows {
        let mut line: Vec<usize> = (row * n..(row + 1) * n).collect();
        // A stable sort keeps tied elements in index order.
        if largest {
            line.sort_by(|&a, &b| order(b, a));
        } else {
            line.sort_by(|&a, &b| order(a, b));
        }
        for &at in &line[..k] {
            chosen.push(at);
            indices.push((at - row * n) as i64);
        }
    }
    let mut dims = input.dims.clone();
    dims[rank - 1] = k as i64;
    let mut values = permuted(input, &chosen);
    values.dims = dims.clone();
    Ok((
        values,
        encode(ElementType::S32, &dims, &Numbers::Signed(indices)),
    ))
}

#[cfg(test)]
mod tests {
    use crate::evaluate::test_support::*;
    use crate::tensor::Value;

    #[test]
    fn topk_orders_by_value_then_index() {
        let text = r#"
HloModule m
ENTRY e {
  x = f32[2,5] constant({{1, 3, 3, nan, -inf}, {0, -1, 2, 2, 5}})
  big = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
  small = (f32[2,2], s32[2,2]) topk(x), k=2, largest=false
  ROOT t = ((f32[2,3], s32[2,3]), (f32[2,2], s32[2,2])) tuple(big, small)
}
"#;
        let result = run(text, vec![]);
        let Value::Tuple(parts) = result else {
            panic!("not a tuple")
        };
        let big_values = floats(element(&parts[0], 0));
        assert!(big_values[0].is_nan());
        assert_eq!(big_values[1..], [3.0, 3.0, 5.0, 2.0, 2.0]);
        assert_eq!(ints(element(&parts[0], 1)), vec![3, 1, 2, 4, 2, 3]);
        assert_eq!(
            floats(element(&parts[1], 0)),
            vec![f64::NEG_INFINITY, 1.0, -1.0, 0.0]
        );
        assert_eq!(ints(element(&parts[1], 1)), vec![4, 0, 1, 0]);
    }
}

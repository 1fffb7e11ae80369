//! `triangular-solve` and `cholesky` on batches of square matrices.
//!
//! Semantics follow XLA's CPU backend where it and the StableHLO spec part:
//! `triangular-solve` reads only the `lower` (or upper) triangle of `a`;
//! `cholesky` reads only that triangle too, leaves the other one zero and,
//! like XLA's expander, fills a matrix with NaN when a pivot's square root
//! is NaN (the matrix is not positive definite). Both compute in `f64`.

use weft_ir::attrs::TriangularSolveAttrs;

use super::complex::{C64, c_conj, c_div, c_mul, c_sub, complex_values, from_complex};
use crate::tensor::{Tensor, Value, element_count};

/// The batch count and matrix size of a batch of square matrices.
fn square_batches(a: &Tensor, what: &str) -> Result<(usize, usize), String> {
    let rank = a.dims.len();
    if rank < 2 || a.dims[rank - 1] != a.dims[rank - 2] {
        return Err(format!(
            "{what} needs a batch of square matrices, got {}",
            Value::Tensor(a.clone()).describe()
        ));
    }
    Ok((
        element_count(&a.dims[..rank - 2]),
        a.dims[rank - 1].max(0) as usize,
    ))
}

/// `triangular-solve(a, b)`: `op(a) x = b` (left side) or `x op(a) = b`.
pub(super) fn triangular_solve(
    a: &Tensor,
    b: &Tensor,
    attrs: &TriangularSolveAttrs,
) -> Result<Tensor, String> {
    let (batches, m) = square_batches(a, "triangular-solve")?;
    let rank = a.dims.len();
    if b.dims.len() != rank || b.dims[..rank - 2] != a.dims[..rank - 2] {
        return Err("triangular-solve's operands must have the same batch dimensions".into());
    }
    let (rows, columns) = (
        b.dims[rank - 2].max(0) as usize,
        b.dims[rank - 1].max(0) as usize,
    );
    let shared = if attrs.left_side { rows } else { columns };
    if shared != m {
        return Err(format!(
            "triangular-solve: a is {m}x{m} but b is {rows}x{columns}"
        ));
    }
    let (transpose, conjugate) = match &*attrs.transpose_a {
        "" | "NO_TRANSPOSE" => (false, false),
        "TRANSPOSE" => (true, false),
        "ADJOINT" => (true, true),
        other => return Err(format!("unknown transpose_a value '{other}'")),
    };
    let (a_values, _) = complex_values(a, "triangular-solve")?;
    let (mut b_values, _) = complex_values(b, "triangular-solve")?;
    for batch in 0..batches {
        let matrix = &a_values[batch * m * m..(batch + 1) * m * m];
        // op(a), reading only the named triangle of a.
        let t = |i: usize, j: usize| -> C64 {
            let (r, c) = if transpose { (j, i) } else { (i, j) };
            let value = if r == c && attrs.unit_diagonal {
                (1.0, 0.0)
            } else if (attrs.lower && c <= r) || (!attrs.lower && c >= r) {
                matrix[r * m + c]
            } else {
                (0.0, 0.0)
            };
            if conjugate { c_conj(value) } else { value }
        };
        let t_is_lower = attrs.lower != transpose;
        let x = &mut b_values[batch * rows * columns..(batch + 1) * rows * columns];
        if attrs.left_side {
            // T X = B, one column at a time.
            for c in 0..columns {
                let order: Vec<usize> = if t_is_lower {
                    (0..m).collect()
                } else {
                    (0..m).rev().collect()
                };
                for (step, &i) in order.iter().enumerate() {
                    let mut sum = x[i * columns + c];
                    for &j in &order[..step] {
                        sum = c_sub(sum, c_mul(t(i, j), x[j * columns + c]));
                    }
                    x[i * columns + c] = c_div(sum, t(i, i));
                }
            }
        } else {
            // X T = B, one row at a time: x_j T_jj = b_j − Σ_{i≠j} x_i T_ij,
            // solved from the end when T is lower.
            for r in 0..rows {
                let order: Vec<usize> = if t_is_lower {
                    (0..m).rev().collect()
                } else {
                    (0..m).collect()
                };
                for (step, &j) in order.iter().enumerate() {
                    let mut sum = x[r * columns + j];
                    for &i in &order[..step] {
                        sum = c_sub(sum, c_mul(x[r * columns + i], t(i, j)));
                    }
                    x[r * columns + j] = c_div(sum, t(j, j));
                }
            }
        }
    }
    Ok(from_complex(b.elem, &b.dims, b_values))
}

/// `cholesky(a)`: `l` with `l lᴴ = a` (lower) or `u` with `uᴴ u = a`.
pub(super) fn cholesky(a: &Tensor, lower: bool) -> Result<Tensor, String> {
    let (batches, n) = square_batches(a, "cholesky")?;
    let (values, _) = complex_values(a, "cholesky")?;
    let mut out = vec![(0.0, 0.0); values.len()];
    for batch in 0..batches {
        let matrix = &values[batch * n * n..(batch + 1) * n * n];
        // XLA factors the transpose for the upper form and transposes back
        // (no conjugation), so only that triangle of `a` is read.
        let source = |i: usize, j: usize| {
            if lower {
                matrix[i * n + j]
            } else {
                matrix[j * n + i]
            }
        };
        let mut l = vec![(0.0, 0.0); n * n];
        let mut failed = false;
        for j in 0..n {
            let mut pivot = source(j, j).0;
            for k in 0..j {
                let v = l[j * n + k];
                pivot -= v.0 * v.0 + v.1 * v.1;
            }
            let root = pivot.sqrt();
            failed |= root.is_nan();
            l[j * n + j] = (root, 0.0);
            for i in j + 1..n {
                let mut sum = source(i, j);
                for k in 0..j {
                    sum = c_sub(sum, c_mul(l[i * n + k], c_conj(l[j * n + k])));
                }
                l[i * n + j] = c_div(sum, (root, 0.0));
            }
        }
        let target = &mut out[batch * n * n..(batch + 1) * n * n];
        for i in 0..n {
            for j in 0..n {
                target[i * n + j] = if failed {
                    (f64::NAN, f64::NAN)
                } else if lower {
                    l[i * n + j]
                } else {
                    l[j * n + i]
                };
            }
        }
    }
    Ok(from_complex(a.elem, &a.dims, out))
}

#[cfg(test)]
mod tests {
    use crate::evaluate::test_support::*;

    #[test]
    fn cholesky_and_triangular_solve() {
        let text = r#"
HloModule m
ENTRY e {
  a = f32[3,3] parameter(0)
  b = f32[3,2] parameter(1)
  l = f32[3,3] cholesky(a), lower=true
  u = f32[3,3] cholesky(a)
  y = f32[3,2] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  x = f32[3,2] triangular-solve(l, y), left_side=true, lower=true, transpose_a=TRANSPOSE
  bt = f32[2,3] transpose(b), dimensions={1,0}
  xr = f32[2,3] triangular-solve(u, bt), lower=false, transpose_a=NO_TRANSPOSE
  ROOT t = (f32[3,3], f32[3,3], f32[3,2], f32[2,3]) tuple(l, u, x, xr)
}
"#;
        // The StableHLO spec's example: a = l lᵀ with l = [[1,0,0],[2,4,0],[3,5,6]].
        // The unused triangle holds garbage that must not be read.
        let a = f32s(
            &[3, 3],
            &[1.0, 99.0, 99.0, 2.0, 20.0, 99.0, 3.0, 26.0, 70.0],
        );
        let b = f32s(&[3, 2], &[1.0, 0.0, 2.0, 1.0, 3.0, -1.0]);
        let result = run(text, vec![a.clone(), b]);
        assert_eq!(
            floats(element(&result, 0)),
            vec![1.0, 0.0, 0.0, 2.0, 4.0, 0.0, 3.0, 5.0, 6.0]
        );
        // The upper form reads the upper triangle: garbage gives NaN.
        assert!(floats(element(&result, 1)).iter().all(|v| v.is_nan()));
        // a x = b with the true symmetric a.
        let full = [1.0, 2.0, 3.0, 2.0, 20.0, 26.0, 3.0, 26.0, 70.0];
        let x = floats(element(&result, 2));
        for row in 0..3 {
            for column in 0..2 {
                let product: f64 = (0..3).map(|k| full[row * 3 + k] * x[k * 2 + column]).sum();
                let expected = [1.0, 0.0, 2.0, 1.0, 3.0, -1.0][row * 2 + column];
                assert!((product - expected).abs() < 1e-5, "{x:?}");
            }
        }
        // x u = bᵀ on the right side, u upper (from the symmetric matrix).
        let symmetric = f32s(&[3, 3], &full);
        let b = f32s(&[3, 2], &[1.0, 0.0, 2.0, 1.0, 3.0, -1.0]);
        let result = run(text, vec![symmetric, b]);
        let u = floats(element(&result, 1));
        assert_eq!(u, vec![1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 0.0, 0.0, 6.0]);
        let xr = floats(element(&result, 3));
        for row in 0..2 {
            for column in 0..3 {
                let product: f64 = (0..3).map(|k| xr[row * 3 + k] * u[k * 3 + column]).sum();
                let expected = [1.0, 2.0, 3.0, 0.0, 1.0, -1.0][row * 3 + column];
                assert!((product - expected).abs() < 1e-5, "{xr:?}");
            }
        }
    }
}

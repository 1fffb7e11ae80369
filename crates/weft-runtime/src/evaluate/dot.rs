//! `dot` with general dimension numbers.
//!
//! Each operand is a batch of matrices: `[batch, rows, contracted]` and
//! `[batch, contracted, columns]`; the result is `[batch…, lhs free…, rhs
//! free…]` as XLA orders it. `f32` and `f64` products run on the
//! `matrixmultiply` GEMM (accumulating in the element type, as XLA's CPU
//! backend does), which reads a matrix through its row and column strides:
//! an operand whose contracted dimensions come before its free ones (a
//! gradient's `xᵀ·dy`, an `x·wᵀ`) is read transposed where it lies, never
//! copied; only other layouts are transposed first. Every other type is
//! computed in its arithmetic domain (`f64` for narrow floats, which XLA
//! accumulates in `f32`, so results may differ from XLA's in the last bit of
//! a narrow type).

use weft_ir::ElementType;
use weft_ir::attrs::DotAttrs;

use super::data_movement::transpose;
use crate::numbers::{Numbers, decode, encode};
use crate::tensor::{Tensor, element_count};

/// `dot(lhs, rhs)` with `dot`'s dimension numbers, giving `result_elem`.
pub(crate) fn dot(
    lhs: &Tensor,
    rhs: &Tensor,
    dims: &DotAttrs,
    result_elem: ElementType,
) -> Result<Tensor, String> {
    let free = |rank: usize, batch: &[i64], contracting: &[i64]| -> Vec<i64> {
        (0..rank as i64)
            .filter(|d| !batch.contains(d) && !contracting.contains(d))
            .collect()
    };
    let lhs_free = free(lhs.dims.len(), &dims.lhs_batch, &dims.lhs_contracting);
    let rhs_free = free(rhs.dims.len(), &dims.rhs_batch, &dims.rhs_contracting);
    let size_of = |t: &Tensor, ds: &[i64]| -> usize {
        ds.iter()
            .map(|&d| t.dims[d as usize].max(0) as usize)
            .product()
    };
    let batch = size_of(lhs, &dims.lhs_batch);
    let rows = size_of(lhs, &lhs_free);
    let depth = size_of(lhs, &dims.lhs_contracting);
    let columns = size_of(rhs, &rhs_free);
    if depth != size_of(rhs, &dims.rhs_contracting) || batch != size_of(rhs, &dims.rhs_batch) {
        return Err("the contracting or batch dimensions of dot's operands differ in size".into());
    }
    let lhs_order: Vec<i64> = dims
        .lhs_batch
        .iter()
        .chain(&lhs_free)
        .chain(&dims.lhs_contracting)
        .copied()
        .collect();
    let rhs_order: Vec<i64> = dims
        .rhs_batch
        .iter()
        .chain(&dims.rhs_contracting)
        .chain(&rhs_free)
        .copied()
        .collect();
    let mut result_dims: Vec<i64> = dims
        .lhs_batch
        .iter()
        .map(|&d| lhs.dims[d as usize])
        .collect();
    result_dims.extend(lhs_free.iter().map(|&d| lhs.dims[d as usize]));
    result_dims.extend(rhs_free.iter().map(|&d| rhs.dims[d as usize]));
    let shape = Gemm {
        batch,
        rows,
        depth,
        columns,
    };
    // The GEMM reads each operand where it lies when its dimensions are in
    // matrix order or transposed; other layouts are arranged first.
    let lhs_transposed: Vec<i64> = dims
        .lhs_batch
        .iter()
        .chain(&dims.lhs_contracting)
        .chain(&lhs_free)
        .copied()
        .collect();
    let rhs_transposed: Vec<i64> = dims
        .rhs_batch
        .iter()
        .chain(&rhs_free)
        .chain(&dims.rhs_contracting)
        .copied()
        .collect();
    let (a, a_layout) = strided(lhs, &lhs_order, &lhs_transposed, rows, depth);
    let (b, b_layout) = strided(rhs, &rhs_order, &rhs_transposed, depth, columns);
    if a.elem == ElementType::F32 && b.elem == ElementType::F32 && result_elem == ElementType::F32 {
        let mut bytes = vec![0u8; shape.batch * shape.rows * shape.columns * 4];
        // Aligned buffers (what the allocator gives) are used in place;
        // others are copied once.
        let (a_copy, b_copy);
        let a_values = match crate::tensor::as_f32(&a.bytes) {
            Some(values) => values,
            None => {
                a_copy = floats32(&a);
                &a_copy
            }
        };
        let b_values = match crate::tensor::as_f32(&b.bytes) {
            Some(values) => values,
            None => {
                b_copy = floats32(&b);
                &b_copy
            }
        };
        match crate::tensor::as_f32_mut(&mut bytes) {
            Some(out) => shape.gemm_into(a_values, a_layout, b_values, b_layout, out),
            None => {
                let mut out = vec![0f32; shape.batch * shape.rows * shape.columns];
                shape.gemm_into(a_values, a_layout, b_values, b_layout, &mut out);
                bytes = crate::tensor::f32_bytes(&out);
            }
        }
        return Ok(Tensor {
            elem: ElementType::F32,
            dims: result_dims,
            bytes: bytes.into(),
        });
    }
    if a.elem == ElementType::F64
        && b.elem == ElementType::F64
        && result_elem == ElementType::F64
        && let (Numbers::Float(x), Numbers::Float(y)) = (decode(&a), decode(&b))
    {
        let mut out = vec![0f64; shape.batch * shape.rows * shape.columns];
        shape.gemm_into(&x, a_layout, &y, b_layout, &mut out);
        return Ok(encode(result_elem, &result_dims, &Numbers::Float(out)));
    }
    // The other domains read matrices in matrix order.
    let a = arranged(lhs, &lhs_order);
    let b = arranged(rhs, &rhs_order);
    let out = match (decode(&a), decode(&b)) {
        (Numbers::Float(x), Numbers::Float(y)) => {
            Numbers::Float(shape.naive(&x, &y, 0.0, |s, p, q| s + p * q))
        }
        (Numbers::Signed(x), Numbers::Signed(y)) => {
            Numbers::Signed(shape.naive(&x, &y, 0, |s, p, q| s.wrapping_add(p.wrapping_mul(q))))
        }
        (Numbers::Unsigned(x), Numbers::Unsigned(y)) => {
            Numbers::Unsigned(shape.naive(&x, &y, 0, |s, p, q| s.wrapping_add(p.wrapping_mul(q))))
        }
        (Numbers::Pred(x), Numbers::Pred(y)) => {
            Numbers::Pred(shape.naive(&x, &y, false, |s, p, q| s | (p & q)))
        }
        (Numbers::Complex(x), Numbers::Complex(y)) => {
            Numbers::Complex(shape.naive(&x, &y, (0.0, 0.0), |s, p, q| {
                (s.0 + p.0 * q.0 - p.1 * q.1, s.1 + p.0 * q.1 + p.1 * q.0)
            }))
        }
        (x, y) => {
            // Mixed domains (e.g. s8 × f32): compute in floats.
            let x = crate::numbers::convert_numbers(&x, ElementType::F64);
            let y = crate::numbers::convert_numbers(&y, ElementType::F64);
            match (x, y) {
                (Numbers::Float(x), Numbers::Float(y)) => {
                    Numbers::Float(shape.naive(&x, &y, 0.0, |s, p, q| s + p * q))
                }
                _ => {
                    return Err(format!(
                        "dot of {} and {}",
                        lhs.elem.name(),
                        rhs.elem.name()
                    ));
                }
            }
        }
    };
    debug_assert_eq!(out.len(), element_count(&result_dims));
    Ok(encode(result_elem, &result_dims, &out))
}

fn arranged<'t>(tensor: &'t Tensor, order: &[i64]) -> std::borrow::Cow<'t, Tensor> {
    if order.iter().enumerate().all(|(i, &d)| d == i as i64) {
        std::borrow::Cow::Borrowed(tensor)
    } else {
        std::borrow::Cow::Owned(transpose(tensor, order))
    }
}

/// How a batch's matrix lies in its buffer: the steps, in elements, from
/// one row and from one column to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    row_stride: usize,
    column_stride: usize,
}

/// `tensor` as a batch of `rows × columns` matrices: read where it lies
/// when its dimensions are in `order` (matrix order) or in `transposed`
/// order, else arranged into matrix order first.
fn strided<'t>(
    tensor: &'t Tensor,
    order: &[i64],
    transposed: &[i64],
    rows: usize,
    columns: usize,
) -> (std::borrow::Cow<'t, Tensor>, Layout) {
    let identity = |order: &[i64]| order.iter().enumerate().all(|(i, &d)| d == i as i64);
    if !identity(order) && identity(transposed) {
        return (
            std::borrow::Cow::Borrowed(tensor),
            Layout {
                row_stride: 1,
                column_stride: rows,
            },
        );
    }
    (
        arranged(tensor, order),
        Layout {
            row_stride: columns,
            column_stride: 1,
        },
    )
}

fn floats32(t: &Tensor) -> Vec<f32> {
    crate::tensor::f32_values(&t.bytes)
}

/// How many cores one GEMM may use: 0 means all of them; a grid run
/// shares the cores among its devices (see [`set_cores_per_device`]).
static CORES_PER_GEMM: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Lets each GEMM use `cores` threads (0: the machine's cores). A run on
/// several devices gives each device its share, so devices do not fight
/// over cores and their async streams keep room to run.
pub(crate) fn set_cores_per_device(cores: usize) {
    CORES_PER_GEMM.store(cores, std::sync::atomic::Ordering::Relaxed);
}

/// How many threads a product of `m × k` by `k × n` is worth: one below
/// about 50 MFLOP (thread start-up would cost more than it saves), else the
/// cores a GEMM may use.
fn gemm_threads(m: usize, k: usize, n: usize) -> usize {
    const PARALLEL_FLOPS: usize = 50_000_000;
    if 2 * m * k * n < PARALLEL_FLOPS || m < 2 {
        return 1;
    }
    let cores = match CORES_PER_GEMM.load(std::sync::atomic::Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |p| p.get()),
        cores => cores,
    };
    cores.min(m)
}

/// The element types the GEMM crate multiplies.
trait GemmElement: Copy + Send + Sync {
    /// `c = a × b` for an `m × k` matrix `a` and a `k × n` matrix `b` read
    /// through their strides, into the row-major `c`.
    ///
    /// # Safety
    /// Every element the strides reach (`(m−1)·row + (k−1)·column` from
    /// `a`, likewise for `b`, `m·n` from `c`) must lie in its buffer.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        m: usize,
        k: usize,
        n: usize,
        a: *const Self,
        a_layout: Layout,
        b: *const Self,
        b_layout: Layout,
        c: *mut Self,
    );
}

/// A [`GemmElement`] impl calling the GEMM crate's routine for the type.
macro_rules! gemm_element {
    ($type:ty, $routine:path) => {
        impl GemmElement for $type {
            unsafe fn gemm(
                m: usize,
                k: usize,
                n: usize,
                a: *const $type,
                a_layout: Layout,
                b: *const $type,
                b_layout: Layout,
                c: *mut $type,
            ) {
                // SAFETY: the caller keeps every strided element in bounds.
                unsafe {
                    $routine(
                        m,
                        k,
                        n,
                        1.0,
                        a,
                        a_layout.row_stride as isize,
                        a_layout.column_stride as isize,
                        b,
                        b_layout.row_stride as isize,
                        b_layout.column_stride as isize,
                        0.0,
                        c,
                        n as isize,
                        1,
                    );
                }
            }
        }
    };
}

gemm_element!(f32, matrixmultiply::sgemm);
gemm_element!(f64, matrixmultiply::dgemm);

/// `c = a × b` for the `rows × k` matrix at the start of `a`, the `k × n`
/// matrix `b` and the row-major `c` (`rows × n`, its length giving the
/// rows).
fn gemm_rows<T: GemmElement>(
    a: &[T],
    a_layout: Layout,
    b: &[T],
    b_layout: Layout,
    c: &mut [T],
    k: usize,
    n: usize,
) {
    let m = c.len() / n.max(1);
    if m == 0 || n == 0 {
        return;
    }
    let reach = |rows: usize, columns: usize, layout: Layout| {
        (rows - 1) * layout.row_stride + columns.saturating_sub(1) * layout.column_stride
    };
    assert!(k == 0 || (reach(m, k, a_layout) < a.len() && reach(k, n, b_layout) < b.len()));
    // SAFETY: checked just above: every element the strides reach lies in
    // `a` and `b`, and `c` holds m × n elements.
    unsafe {
        T::gemm(
            m,
            k,
            n,
            a.as_ptr(),
            a_layout,
            b.as_ptr(),
            b_layout,
            c.as_mut_ptr(),
        )
    }
}

/// A batch of `rows × depth` by `depth × columns` products, row-major.
struct Gemm {
    batch: usize,
    rows: usize,
    depth: usize,
    columns: usize,
}

impl Gemm {
    /// Every batch's product, large ones split by rows over the cores a
    /// GEMM may use (each thread multiplies a block of rows by all of `b`).
    fn gemm_into<T: GemmElement>(
        &self,
        a: &[T],
        a_layout: Layout,
        b: &[T],
        b_layout: Layout,
        c: &mut [T],
    ) {
        let (m, k, n) = (self.rows, self.depth, self.columns);
        if m * n == 0 {
            return;
        }
        for batch in 0..self.batch {
            let a = &a[batch * m * k..][..m * k];
            let b = &b[batch * k * n..][..k * n];
            let c = &mut c[batch * m * n..][..m * n];
            let threads = gemm_threads(m, k, n);
            if threads <= 1 {
                gemm_rows(a, a_layout, b, b_layout, c, k, n);
                continue;
            }
            let rows_per_thread = m.div_ceil(threads);
            std::thread::scope(|scope| {
                for (block, c_rows) in c.chunks_mut(rows_per_thread * n).enumerate() {
                    let a_rows = &a[block * rows_per_thread * a_layout.row_stride..];
                    scope.spawn(move || gemm_rows(a_rows, a_layout, b, b_layout, c_rows, k, n));
                }
            });
        }
    }

    fn naive<T: Copy>(
        &self,
        a: &[T],
        b: &[T],
        zero: T,
        accumulate: impl Fn(T, T, T) -> T,
    ) -> Vec<T> {
        let (m, k, n) = (self.rows, self.depth, self.columns);
        let mut c = vec![zero; self.batch * m * n];
        for batch in 0..self.batch {
            for i in 0..m {
                for j in 0..n {
                    let mut sum = zero;
                    for p in 0..k {
                        sum = accumulate(
                            sum,
                            a[batch * m * k + i * k + p],
                            b[batch * k * n + p * n + j],
                        );
                    }
                    c[batch * m * n + i * n + j] = sum;
                }
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[rows, columns]` values `seed + i` of `elem`.
    fn matrix(elem: ElementType, dims: [i64; 2], seed: f64) -> Tensor {
        let count = (dims[0] * dims[1]) as usize;
        let values: Vec<f64> = (0..count).map(|i| seed + (i % 13) as f64 - 6.0).collect();
        encode(elem, &dims, &Numbers::Float(values))
    }

    fn values(tensor: &Tensor) -> Vec<f64> {
        match decode(tensor) {
            Numbers::Float(values) => values,
            _ => panic!("floats"),
        }
    }

    /// Every layout the GEMM reads in place (and the one it arranges
    /// first) gives the product a plain loop gives.
    #[test]
    fn transposed_operands_are_read_where_they_lie() {
        let (m, k, n) = (70i64, 50i64, 90i64);
        for elem in [ElementType::F32, ElementType::F64] {
            let x = matrix(elem, [m, k], 0.5);
            let w = matrix(elem, [k, n], -0.25);
            let x_t = transpose(&x, &[1, 0]);
            let w_t = transpose(&w, &[1, 0]);
            let plain = DotAttrs {
                lhs_contracting: vec![1],
                rhs_contracting: vec![0],
                ..DotAttrs::default()
            };
            let expected = values(&dot(&x, &w, &plain, elem).expect("plain"));
            let xs = values(&x);
            let ws = values(&w);
            for i in [0usize, 17, 69] {
                for j in [0usize, 33, 89] {
                    let sum: f64 = (0..k as usize)
                        .map(|p| xs[i * k as usize + p] * ws[p * n as usize + j])
                        .sum();
                    assert!((expected[i * n as usize + j] - sum).abs() < 1e-3);
                }
            }
            for (lhs, rhs, lhs_contracting, rhs_contracting) in
                [(&x_t, &w, 0, 0), (&x, &w_t, 1, 1), (&x_t, &w_t, 0, 1)]
            {
                let dims = DotAttrs {
                    lhs_contracting: vec![lhs_contracting],
                    rhs_contracting: vec![rhs_contracting],
                    ..DotAttrs::default()
                };
                let got = dot(lhs, rhs, &dims, elem).expect("a layout");
                assert_eq!(got.dims, vec![m, n]);
                assert_eq!(
                    values(&got),
                    expected,
                    "{elem:?} {lhs_contracting} {rhs_contracting}"
                );
            }
        }
    }
}

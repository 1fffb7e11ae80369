//! `dot` with general dimension numbers.
//!
//! Both operands are first transposed to `[batch, rows, contracted]` and
//! `[batch, contracted, columns]`; the result is `[batch…, lhs free…, rhs
//! free…]` as XLA orders it. `f32` and `f64` products run on the
//! `matrixmultiply` GEMM (accumulating in the element type, as XLA's CPU
//! backend does); every other type is computed in its arithmetic domain
//! (`f64` for narrow floats, which XLA accumulates in `f32`, so results may
//! differ from XLA's in the last bit of a narrow type).

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
    // Operands already in [batch, rows, contracted] order (the common case)
    // are used as they are.
    let a = arranged(lhs, &lhs_order);
    let b = arranged(rhs, &rhs_order);
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
            Some(out) => shape.sgemm_into(a_values, b_values, out),
            None => bytes = crate::tensor::f32_bytes(&shape.sgemm(a_values, b_values)),
        }
        return Ok(Tensor {
            elem: ElementType::F32,
            dims: result_dims,
            bytes: bytes.into(),
        });
    }
    let out = match (decode(&a), decode(&b)) {
        (Numbers::Float(x), Numbers::Float(y))
            if a.elem == ElementType::F64 && b.elem == ElementType::F64 =>
        {
            Numbers::Float(shape.dgemm(&x, &y))
        }
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

/// `c = a × b` for row-major `a` (rows × k), `b` (k × n) and `c` (rows × n).
fn sgemm_rows(a: &[f32], b: &[f32], c: &mut [f32], k: usize, n: usize) {
    let m = c.len() / n.max(1);
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: `a`, `b` and `c` are row-major slices of exactly m×k, k×n and
    // m×n elements, and the strides below describe them.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            k as isize,
            1,
            b.as_ptr(),
            n as isize,
            1,
            0.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
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
    fn sgemm(&self, a: &[f32], b: &[f32]) -> Vec<f32> {
        let mut c = vec![0f32; self.batch * self.rows * self.columns];
        self.sgemm_into(a, b, &mut c);
        c
    }

    fn sgemm_into(&self, a: &[f32], b: &[f32], c: &mut [f32]) {
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
                sgemm_rows(a, b, c, k, n);
                continue;
            }
            // Large products split their rows across the machine's cores;
            // each thread multiplies a block of rows by all of `b`.
            let rows_per_thread = m.div_ceil(threads);
            std::thread::scope(|scope| {
                for (a_rows, c_rows) in a
                    .chunks(rows_per_thread * k)
                    .zip(c.chunks_mut(rows_per_thread * n))
                {
                    scope.spawn(move || sgemm_rows(a_rows, b, c_rows, k, n));
                }
            });
        }
    }

    fn dgemm(&self, a: &[f64], b: &[f64]) -> Vec<f64> {
        let (m, k, n) = (self.rows, self.depth, self.columns);
        let mut c = vec![0f64; self.batch * m * n];
        if m * n == 0 {
            return c;
        }
        for batch in 0..self.batch {
            let a = &a[batch * m * k..][..m * k];
            let b = &b[batch * k * n..][..k * n];
            let c = &mut c[batch * m * n..][..m * n];
            // SAFETY: as in `sgemm`.
            unsafe {
                matrixmultiply::dgemm(
                    m,
                    k,
                    n,
                    1.0,
                    a.as_ptr(),
                    k as isize,
                    1,
                    b.as_ptr(),
                    n as isize,
                    1,
                    0.0,
                    c.as_mut_ptr(),
                    n as isize,
                    1,
                );
            }
        }
        c
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

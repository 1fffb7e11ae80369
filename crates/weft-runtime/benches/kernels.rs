//! Kernel benchmarks of issue 5, each reported as a ratio to an anchor
//! measured in the same run (these machines are shared and noisy):
//! - `matmul`: an f32 1024×1024 `dot` through the evaluator, against the GEMM
//!   crate (`matrixmultiply::sgemm`) called directly on the same data — goal
//!   ≥ 90% of the crate's speed;
//! - `add`: an elementwise add of 16M f32 through the evaluator, against the
//!   memory bandwidth a plain loop reaches (STREAM "add": two reads, one
//!   write, into a fresh buffer like the evaluator's) — goal ≥ 70%.
//!
//! Run with `cargo bench -p weft-runtime --bench kernels`.

use std::time::Instant;

use weft_ir::text::parse;
use weft_runtime::random::{SplitMix64, tensor};
use weft_runtime::{Value, evaluate};

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn main() {
    let mut random = SplitMix64::new(1);

    let n = 1024;
    let module = parse(&format!(
        "HloModule matmul\nENTRY main {{\n  a = f32[{n},{n}] parameter(0)\n  b = f32[{n},{n}] parameter(1)\n  ROOT dot = f32[{n},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n"
    ))
    .expect("the benchmark module parses");
    let a = tensor(
        &mut random,
        weft_ir::ElementType::F32,
        &[n as i64, n as i64],
    );
    let b = tensor(
        &mut random,
        weft_ir::ElementType::F32,
        &[n as i64, n as i64],
    );
    let (a32, b32) = (
        weft_runtime::tensor::f32_values(&a.bytes),
        weft_runtime::tensor::f32_values(&b.bytes),
    );
    let mut c = vec![0f32; n * n];
    let direct = median_ms(7, || unsafe {
        // SAFETY: three row-major n×n buffers with matching strides.
        matrixmultiply::sgemm(
            n,
            n,
            n,
            1.0,
            a32.as_ptr(),
            n as isize,
            1,
            b32.as_ptr(),
            n as isize,
            1,
            0.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    });
    let (av, bv) = (Value::Tensor(a.clone()), Value::Tensor(b.clone()));
    let whole = median_ms(7, || {
        std::hint::black_box(evaluate(&module, vec![av.clone(), bv.clone()]).expect("runs"));
    });
    // The evaluator owns its inputs, so each call clones them; that copy is
    // the caller's, not the kernel's.
    let cloning = median_ms(7, || {
        std::hint::black_box((av.clone(), bv.clone()));
    });
    let through = (whole - cloning).max(f64::MIN_POSITIVE);
    let gflops = |ms: f64| 2.0 * (n as f64).powi(3) / (ms * 1e6);
    println!(
        "matmul f32 {n}²: weft {through:.2} ms ({:.1} GFLOP/s), matrixmultiply {direct:.2} ms ({:.1} GFLOP/s): {:.0}% of the crate",
        gflops(through),
        gflops(direct),
        100.0 * direct / through
    );

    let count = 16 << 20;
    let module = parse(&format!(
        "HloModule add\nENTRY main {{\n  a = f32[{count}] parameter(0)\n  b = f32[{count}] parameter(1)\n  ROOT add = f32[{count}] add(a, b)\n}}\n"
    ))
    .expect("the benchmark module parses");
    let x = tensor(&mut random, weft_ir::ElementType::F32, &[count as i64]);
    let y = tensor(&mut random, weft_ir::ElementType::F32, &[count as i64]);
    let (x32, y32) = (
        weft_runtime::tensor::f32_values(&x.bytes),
        weft_runtime::tensor::f32_values(&y.bytes),
    );
    let bytes_moved = 3.0 * 4.0 * count as f64;
    let stream = median_ms(9, || {
        let out: Vec<f32> = x32.iter().zip(&y32).map(|(p, q)| p + q).collect();
        std::hint::black_box(out);
    });
    let (xv, yv) = (Value::Tensor(x), Value::Tensor(y));
    let through = median_ms(9, || {
        std::hint::black_box(evaluate(&module, vec![xv.clone(), yv.clone()]).expect("runs"));
    });
    // The evaluator's time includes cloning its two arguments (the runtime
    // owns its inputs); measure that and leave it out.
    let cloning = median_ms(9, || {
        std::hint::black_box((xv.clone(), yv.clone()));
    });
    let kernel = (through - cloning).max(f64::MIN_POSITIVE);
    let bandwidth = |ms: f64| bytes_moved / (ms * 1e6);
    println!(
        "add f32 16M: weft {kernel:.2} ms ({:.1} GB/s), plain loop {stream:.2} ms ({:.1} GB/s): {:.0}% of the bandwidth",
        bandwidth(kernel),
        bandwidth(stream),
        100.0 * stream / kernel
    );
}

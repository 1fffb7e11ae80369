//! Sizes never wrap: `weft` on programs and inputs whose sizes overflow,
//! expand without bound or walk padding, each run under a 2 GiB address-space
//! limit and a time bound. Each must end in a clean error (exit 1, a message
//! located at its line where the input has lines, no panic, no signal) or in
//! the right answer.
//!
//! The first tests run the shared reproducers (`../shared/repro`, beside the
//! checkout) with the command their README names, and skip with a message
//! when that folder is absent; the variants after them are written here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::Scratch;
use weft_ir::ElementType;
use weft_runtime::Tensor;

/// The address space `weft` may use: far below any of the sizes asked for.
const MEMORY_LIMIT: u64 = 2 << 30;

/// How long one command may take.
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// The shared reproducers, when they are beside the checkout.
fn repro(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/repro");
    let path = dir.join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {} is absent (the shared reproducers are not beside this checkout)",
            path.display()
        );
        None
    }
}

/// `weft ARGS`, run in `dir`, under [`MEMORY_LIMIT`] and [`TIME_LIMIT`].
fn weft(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    limit_memory(&mut command);
    let mut child = command.spawn().expect("weft starts");
    let started = Instant::now();
    loop {
        if child.try_wait().expect("weft is waited for").is_some() {
            break;
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("weft {args:?} ran past {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("weft's output")
}

#[cfg(target_os = "linux")]
fn limit_memory(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the child only calls setrlimit, which is
    // async-signal-safe, and touches no memory the parent shares.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_LIMIT as libc::rlim_t,
                rlim_max: MEMORY_LIMIT as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn limit_memory(_: &mut Command) {}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts a clean failure: exit status 1 (no signal), no panic, and a
/// message containing each of `needles` (a `file:line:col` among them where
/// the input has lines).
fn fails_cleanly(output: &Output, needles: &[&str]) -> String {
    let stderr = text(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "not a clean failure ({:?}):\n{stderr}",
        output.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "no {needle:?} in:\n{stderr}");
    }
    stderr
}

/// Asserts success, returning standard output.
fn succeeds(output: &Output) -> String {
    assert!(
        output.status.success(),
        "failed ({:?}):\n{}",
        output.status,
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// The directory of a reproducer, and its file name.
fn split(path: &Path) -> (&Path, &str) {
    (
        path.parent().expect("a folder"),
        path.file_name().and_then(|n| n.to_str()).expect("a name"),
    )
}

fn write_npy(path: &Path, elem: ElementType, dims: &[i64], bytes: Vec<u8>) {
    std::fs::write(
        path,
        weft_runtime::npy::write(&Tensor::new(elem, dims.to_vec(), bytes)),
    )
    .expect("writes the input");
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

// ----- the shared reproducers -----

/// `f32[2^62]`: 2^64 bytes, which wrapped to 0 (`capacity overflow` when
/// drawing random inputs; `check` said ok). XLA rejects the shape.
#[test]
fn random_input_overflow() {
    let Some(path) = repro("random_input_overflow.hlo") else {
        return;
    };
    let (dir, name) = split(&path);
    for command in ["check", "run"] {
        fails_cleanly(
            &weft(dir, &[command, name]),
            &["overflows int64", &format!("{name}:3:17")],
        );
    }
}

/// `f32[3000000000]`: a valid 12 GB shape; random inputs obey
/// `--max-value-gib` before allocating.
#[test]
fn random_input_huge() {
    let Some(path) = repro("random_input_huge.hlo") else {
        return;
    };
    let (dir, name) = split(&path);
    fails_cleanly(
        &weft(dir, &["run", name]),
        &["parameter 0 (%p)", "11.2 GiB", "--max-value-gib"],
    );
    succeeds(&weft(dir, &["check", name]));
}

/// A `.npy` header saying 2^62 `f32`s, whose size wrapped to 0: the
/// programs taking it are refused as XLA refuses them, and the reader
/// refuses the header on its own (a parameter it does not match).
#[test]
fn npy_wrap() {
    let (Some(npy), Some(reduce), Some(identity)) = (
        repro("npy_wrap.npy"),
        repro("npy_wrap_reduce.hlo"),
        repro("npy_wrap_identity.hlo"),
    ) else {
        return;
    };
    let dir = npy.parent().expect("a folder");
    for program in [&reduce, &identity] {
        let name = split(program).1;
        fails_cleanly(
            &weft(dir, &["run", name, "--inputs", "npy_wrap.npy"]),
            &["overflows int64", &format!("{name}:")],
        );
    }
    let scratch = Scratch::new("repro_sizes", "npy_wrap");
    let program = scratch.join("two.hlo");
    std::fs::write(
        &program,
        "HloModule two\n\nENTRY %main (p: f32[2]) -> f32[2] {\n  ROOT %p = f32[2] parameter(0)\n}\n",
    )
    .expect("writes the program");
    fails_cleanly(
        &weft(
            dir,
            &["run", program.to_str().unwrap(), "--inputs", "npy_wrap.npy"],
        ),
        &[
            "npy_wrap.npy",
            "f32[4611686018427387904]",
            "overflows int64",
        ],
    );
}

/// A splat whose byte size wraps: `fmt` and `convert` panicked.
#[test]
fn mlir_splat_wrap() {
    for (file, command) in [
        ("mlir_splat_wrap_parse_panic.mlir", &["fmt"][..]),
        (
            "mlir_splat_wrap_convert_panic.mlir",
            &["convert", "--to", "hlo"][..],
        ),
    ] {
        let Some(path) = repro(file) else { return };
        let (dir, name) = split(&path);
        let mut args = command.to_vec();
        args.push(name);
        fails_cleanly(
            &weft(dir, &args),
            &["overflows int64", &format!("{name}:1:29")],
        );
    }
}

/// A 147-byte splat of 12 GB: kept as a splat, so `fmt` and `check` pass
/// without allocating it, `convert` writes a broadcast of the scalar, and
/// `run` refuses the value by `--max-value-gib`, naming it.
#[test]
fn mlir_splat_12gb() {
    let Some(path) = repro("mlir_splat_12gb.mlir") else {
        return;
    };
    let (dir, name) = split(&path);
    let printed = succeeds(&weft(dir, &["fmt", name]));
    assert!(
        printed.contains("dense<1.000000e+00> : tensor<3000000000xf32>"),
        "{printed}"
    );
    succeeds(&weft(dir, &["check", name]));
    let hlo = succeeds(&weft(dir, &["convert", "--to", "hlo", name]));
    assert!(hlo.contains("f32[] constant(1)"), "{hlo}");
    assert!(hlo.contains("f32[3000000000]{0} broadcast("), "{hlo}");
    fails_cleanly(&weft(dir, &["run", name]), &["main/%constant", "11.2 GiB"]);
}

/// `pad` of `f32[?,3]`: the unbounded dimension reached the evaluator as
/// `i64::MIN`. It is refused at the parameter, which has no size.
#[test]
fn dynamic_dim_pad() {
    let Some(path) = repro("dynamic_dim_pad_panic.hlo") else {
        return;
    };
    let (dir, name) = split(&path);
    fails_cleanly(
        &weft(dir, &["run", name]),
        &[
            "parameter 0 (%b)",
            "f32[?,3]",
            "unbounded dynamic dimension",
        ],
    );
}

/// A slice with stride `i64::MAX`: the size `ceil(3 / stride)` wrapped to
/// -1. It is 1, the first element.
#[test]
fn slice_huge_stride() {
    let Some(path) = repro("slice_huge_stride_wrong_shape.hlo") else {
        return;
    };
    let (dir, name) = split(&path);
    succeeds(&weft(dir, &["check", name]));
    let scratch = Scratch::new("repro_sizes", "slice_huge_stride");
    let input = scratch.join("p.npy");
    write_npy(&input, ElementType::F32, &[3], f32_bytes(&[7.0, 8.0, 9.0]));
    let out = scratch.join("out");
    let args = [
        "run",
        name,
        "--inputs",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    succeeds(&weft(dir, &args));
    let bytes = std::fs::read(out.join("out0.npy")).expect("the output is written");
    let result = weft_runtime::npy::read(&bytes, None).expect("a readable .npy");
    assert_eq!(result.dims, vec![1]);
    assert_eq!(&result.bytes[..], &f32_bytes(&[7.0])[..]);
}

/// `f32[2^32,2^32]`: the element count wrapped and `check` said ok; XLA
/// rejects the shape.
#[test]
fn hlo_dims_overflow() {
    let Some(path) = repro("hlo_dims_overflow_check_ok.hlo") else {
        return;
    };
    let (dir, name) = split(&path);
    fails_cleanly(
        &weft(dir, &["check", name]),
        &[
            "f32[4294967296,4294967296]",
            "overflows int64",
            &format!("{name}:3:19"),
        ],
    );
}

/// Iota replica groups of 10^10 devices: expanded without bound (80 GB).
#[test]
fn iota_replica_groups() {
    let Some(path) = repro("iota_replica_groups_alloc.hlo") else {
        return;
    };
    let (dir, name) = split(&path);
    for command in ["check", "run"] {
        fails_cleanly(
            &weft(dir, &[command, name]),
            &["10000000000 devices", &format!("{name}:11:")],
        );
    }
}

/// A 2^40-element window over 4 elements, nearly all of it padding: walked
/// element by element, it never ended. Only real elements are walked now:
/// each output is the sum of the elements up to it.
#[test]
fn reduce_window_huge_window() {
    let Some(path) = repro("reduce_window_huge_window_hang.hlo") else {
        return;
    };
    let (dir, name) = split(&path);
    let scratch = Scratch::new("repro_sizes", "reduce_window");
    let input = scratch.join("p.npy");
    write_npy(
        &input,
        ElementType::F32,
        &[4],
        f32_bytes(&[1.0, 2.0, 3.0, 4.0]),
    );
    let out = scratch.join("out");
    let args = [
        "run",
        name,
        "--inputs",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    succeeds(&weft(dir, &args));
    let bytes = std::fs::read(out.join("out0.npy")).expect("the output is written");
    let result = weft_runtime::npy::read(&bytes, None).expect("a readable .npy");
    assert_eq!(&result.bytes[..], &f32_bytes(&[1.0, 3.0, 6.0, 10.0])[..]);
}

// ----- variants of each class -----

/// Writes `text` as `name` in `scratch`, returning its path as text.
fn program(scratch: &Scratch, name: &str, text: &str) -> String {
    let path = scratch.join(name);
    std::fs::write(&path, text).expect("writes the program");
    path.to_str().expect("a UTF-8 path").to_string()
}

/// Shapes whose byte size wraps though their element count may not, in
/// other places and of other element types: rejected where they are
/// written, as XLA rejects them.
#[test]
fn other_shapes_whose_size_wraps() {
    let scratch = Scratch::new("repro_sizes", "other_shapes");
    let dir = scratch.join("");
    for (name, shape) in [
        // 2^62 × 4 pairs of bytes; 2^60 complex128 of 16 bytes.
        ("s8.hlo", "s8[4611686018427387904,4]"),
        ("c128.hlo", "c128[1152921504606846976]"),
        // A bound counts at its size, as in XLA.
        ("bounded.hlo", "f32[<=4611686018427387904]"),
        ("tuple.hlo", "(f32[2], f32[4611686018427387904])"),
    ] {
        let text = format!(
            "HloModule m\n\nENTRY %main (p: {shape}) -> {shape} {{\n  ROOT %p = {shape} parameter(0)\n}}\n"
        );
        let path = program(&scratch, name, &text);
        for command in ["check", "run"] {
            fails_cleanly(&weft(&dir, &[command, &path]), &["overflows int64", ":3:"]);
        }
    }
    // An iota's result, inside a computation.
    let path = program(
        &scratch,
        "iota.hlo",
        "HloModule m\n\nENTRY %main () -> u8[] {\n  %i = s64[2305843009213693952] iota(), iota_dimension=0\n  ROOT %c = u8[] constant(0)\n}\n",
    );
    fails_cleanly(
        &weft(&dir, &["check", &path]),
        &["s64[2305843009213693952]", ":4:"],
    );
}

/// The same in StableHLO types: a splat of `complex<f64>` and of `i8`,
/// and a function argument.
#[test]
fn tensor_types_whose_size_wraps() {
    let scratch = Scratch::new("repro_sizes", "tensor_types");
    let dir = scratch.join("");
    for (name, ty, value) in [
        (
            "c128.mlir",
            "tensor<1152921504606846976xcomplex<f64>>",
            "dense<(1.0, 0.0)>",
        ),
        ("i8.mlir", "tensor<4611686018427387904x2xi8>", "dense<1>"),
    ] {
        let text = format!(
            "func.func @main() -> {ty} {{\n  %c = stablehlo.constant {value} : {ty}\n  return %c : {ty}\n}}\n"
        );
        let path = program(&scratch, name, &text);
        for command in [
            &["fmt"][..],
            &["check"],
            &["convert", "--to", "hlo"],
            &["run"],
        ] {
            let mut args = command.to_vec();
            args.push(&path);
            fails_cleanly(&weft(&dir, &args), &["overflows int64", ":1:29"]);
        }
    }
    let path = program(
        &scratch,
        "argument.mlir",
        "func.func @main(%x: tensor<?x4611686018427387904xf32>) -> tensor<?x4611686018427387904xf32> {\n  return %x : tensor<?x4611686018427387904xf32>\n}\n",
    );
    fails_cleanly(
        &weft(&dir, &["check", &path]),
        &["overflows int64", ":1:28"],
    );
}

/// Splats written in hex, and splats of other types, stay splats: printed
/// back as splats without being expanded, and run against the value limit.
#[test]
fn other_splats_stay_splats() {
    let scratch = Scratch::new("repro_sizes", "other_splats");
    let dir = scratch.join("");
    let path = program(
        &scratch,
        "hex.mlir",
        "func.func @main() -> tensor<3000000000xf32> {\n  %c = stablehlo.constant dense<\"0x0000803F\"> : tensor<3000000000xf32>\n  return %c : tensor<3000000000xf32>\n}\n",
    );
    let printed = succeeds(&weft(&dir, &["fmt", &path]));
    assert!(
        printed.contains("dense<1.000000e+00> : tensor<3000000000xf32>"),
        "{printed}"
    );
    fails_cleanly(&weft(&dir, &["run", &path]), &["11.2 GiB"]);
    let path = program(
        &scratch,
        "i1.mlir",
        "func.func @main() -> tensor<100000x100000xi1> {\n  %c = stablehlo.constant dense<true> : tensor<100000x100000xi1>\n  return %c : tensor<100000x100000xi1>\n}\n",
    );
    succeeds(&weft(&dir, &["check", &path]));
    let hlo = succeeds(&weft(&dir, &["convert", "--to", "hlo", &path]));
    assert!(hlo.contains("pred[100000,100000]{1,0} broadcast("), "{hlo}");
    // A small splat is still spelled out, as XLA writes it.
    let path = program(
        &scratch,
        "small.mlir",
        "func.func @main() -> tensor<3xf32> {\n  %c = stablehlo.constant dense<2.0> : tensor<3xf32>\n  return %c : tensor<3xf32>\n}\n",
    );
    let hlo = succeeds(&weft(&dir, &["convert", "--to", "hlo", &path]));
    assert!(hlo.contains("constant({2, 2, 2})"), "{hlo}");
}

/// Slices whose `ceil((limit - start) / stride)` overflows when computed
/// the naive way, on another start.
#[test]
fn slices_with_huge_strides() {
    let scratch = Scratch::new("repro_sizes", "slices");
    let dir = scratch.join("");
    let path = program(
        &scratch,
        "slice.hlo",
        "HloModule m\n\nENTRY %main (p: f32[3]) -> f32[1] {\n  %p = f32[3] parameter(0)\n  ROOT %s = f32[1] slice(%p), slice={[1:3:9223372036854775806]}\n}\n",
    );
    let input = scratch.join("p.npy");
    write_npy(&input, ElementType::F32, &[3], f32_bytes(&[7.0, 8.0, 9.0]));
    let out = scratch.join("out");
    let args = [
        "run",
        &path,
        "--inputs",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    succeeds(&weft(&dir, &args));
    let bytes = std::fs::read(out.join("out0.npy")).expect("the output is written");
    let result = weft_runtime::npy::read(&bytes, None).expect("a readable .npy");
    assert_eq!(result.dims, vec![1]);
    assert_eq!(&result.bytes[..], &f32_bytes(&[8.0])[..]);
}

/// Unbounded dimensions elsewhere: given as a file, or only inside the
/// program (a reshape to `?`), they are errors naming where they are.
#[test]
fn unbounded_dimensions_never_reach_the_evaluator() {
    let scratch = Scratch::new("repro_sizes", "unbounded");
    let dir = scratch.join("");
    let path = program(
        &scratch,
        "param.hlo",
        "HloModule m\n\nENTRY %main (p: f32[3,?]) -> f32[3,?] {\n  ROOT %p = f32[3,?] parameter(0)\n}\n",
    );
    let input = scratch.join("p.npy");
    write_npy(
        &input,
        ElementType::F32,
        &[3, 1],
        f32_bytes(&[1.0, 2.0, 3.0]),
    );
    fails_cleanly(
        &weft(&dir, &["run", &path, "--inputs", input.to_str().unwrap()]),
        &["f32[3,?]", "unbounded dynamic dimension"],
    );
    // Bounded dimensions run at their bound.
    let path = program(
        &scratch,
        "bounded.hlo",
        "HloModule m\n\nENTRY %main (p: f32[<=3]) -> f32[<=3] {\n  %p = f32[<=3] parameter(0)\n  ROOT %n = f32[<=3] negate(%p)\n}\n",
    );
    succeeds(&weft(&dir, &["run", &path]));
}

/// `.npy` headers whose sizes cannot be had, and files larger than the
/// limits: refused from the header, before the data is read.
#[test]
fn npy_files_are_measured_before_they_are_read() {
    let scratch = Scratch::new("repro_sizes", "npy");
    let dir = scratch.join("");
    let header = |shape: &str| {
        let mut text = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
        while (text.len() + 11) % 64 != 0 {
            text.push(' ');
        }
        text.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
        bytes
    };
    let two = program(
        &scratch,
        "two.hlo",
        "HloModule m\n\nENTRY %main (p: f32[2]) -> f32[2] {\n  ROOT %p = f32[2] parameter(0)\n}\n",
    );
    for (name, shape, needle) in [
        ("negative.npy", "(-1,)", "negative dimension"),
        (
            "wrapping.npy",
            "(4294967296, 4294967296)",
            "overflows int64",
        ),
    ] {
        std::fs::write(scratch.join(name), header(shape)).expect("writes the file");
        fails_cleanly(
            &weft(&dir, &["run", &two, "--inputs", name]),
            &[name, needle],
        );
    }
    // A valid 4 GB shape whose data is missing: not read, not allocated.
    let big = program(
        &scratch,
        "big.hlo",
        "HloModule m\n\nENTRY %main (p: f32[1000000000]) -> f32[1000000000] {\n  ROOT %p = f32[1000000000] parameter(0)\n}\n",
    );
    std::fs::write(scratch.join("short.npy"), header("(1000000000,)")).expect("writes the file");
    fails_cleanly(
        &weft(&dir, &["run", &big, "--inputs", "short.npy"]),
        &["4000000000 are needed"],
    );
    // A file over the value limit, and two over the total one.
    write_npy(
        &scratch.join("a.npy"),
        ElementType::F32,
        &[2],
        f32_bytes(&[1.0, 2.0]),
    );
    fails_cleanly(
        &weft(
            &dir,
            &[
                "run",
                &two,
                "--inputs",
                "a.npy",
                "--max-value-gib",
                "0.000000001",
            ],
        ),
        &["a.npy", "--max-value-gib"],
    );
    let pair = program(
        &scratch,
        "pair.hlo",
        "HloModule m\n\nENTRY %main (p: f32[2], q: f32[2]) -> f32[2] {\n  %p = f32[2] parameter(0)\n  %q = f32[2] parameter(1)\n  ROOT %s = f32[2] add(%p, %q)\n}\n",
    );
    let tight = [
        "--max-value-gib",
        "0.00000001",
        "--max-input-gib",
        "0.00000001",
    ];
    let mut args = vec!["run", &pair, "--inputs", "a.npy", "a.npy"];
    args.extend(tight);
    fails_cleanly(&weft(&dir, &args), &["--max-input-gib"]);
    let mut args = vec!["run", &pair];
    args.extend(tight);
    fails_cleanly(&weft(&dir, &args), &["parameter 1 (%q)", "--max-input-gib"]);
}

/// Random inputs obey the limits on every path: one device, a grid whose
/// devices draw their own, and global values cut by a sharding.
#[test]
fn random_inputs_obey_the_limits_on_a_grid() {
    let scratch = Scratch::new("repro_sizes", "grid_inputs");
    let dir = scratch.join("");
    let replicated = program(
        &scratch,
        "replicated.hlo",
        "HloModule m, replica_count=2\n\nENTRY %main (p: f32[3000000000]) -> f32[3000000000] {\n  ROOT %p = f32[3000000000] parameter(0)\n}\n",
    );
    fails_cleanly(
        &weft(&dir, &["run", &replicated]),
        &["parameter 0 (%p)", "--max-value-gib"],
    );
    let sharded = program(
        &scratch,
        "sharded.hlo",
        "HloModule m, num_partitions=2\n\nENTRY %main (p: f32[1500000000]) -> f32[1500000000] {\n  ROOT %p = f32[1500000000] parameter(0), sharding={devices=[2]0,1}\n}\n",
    );
    fails_cleanly(
        &weft(&dir, &["run", &sharded]),
        &["parameter 0 (%p)", "--max-value-gib"],
    );
}

/// Compact device lists that name more devices than any run has: sharding
/// tile assignments and mesh-style replica groups, refused before they are
/// expanded.
#[test]
fn huge_device_lists_are_not_expanded() {
    let scratch = Scratch::new("repro_sizes", "device_lists");
    let dir = scratch.join("");
    let sharded = program(
        &scratch,
        "sharding.hlo",
        "HloModule m, num_partitions=2\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  ROOT %p = f32[4] parameter(0), sharding={devices=[100000,100000]<=[10000000000]}\n}\n",
    );
    // Random inputs leave a sharding that maps no global value aside; a
    // global value given as a file must be cut by it, and cannot be.
    succeeds(&weft(&dir, &["run", &sharded]));
    write_npy(
        &scratch.join("p.npy"),
        ElementType::F32,
        &[8],
        f32_bytes(&[0.0; 8]),
    );
    let output = weft(&dir, &["run", &sharded, "--inputs", "p.npy"]);
    fails_cleanly(&output, &["10000000000 devices"]);
    let groups = program(
        &scratch,
        "groups.hlo",
        "HloModule m\n\n%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %r = f32[] add(%a, %b)\n}\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  ROOT %ar = f32[4] all-reduce(%p), replica_groups=[1,4294967296]<=[4294967296], to_apply=%add\n}\n",
    );
    for command in ["check", "run"] {
        fails_cleanly(
            &weft(&dir, &[command, &groups]),
            &["4294967296 devices", ":11:"],
        );
    }
}

/// Windows mostly of padding or dilation holes: only the real elements are
/// walked (strided, and dilated windows).
#[test]
fn windows_mostly_of_padding() {
    let scratch = Scratch::new("repro_sizes", "windows");
    let dir = scratch.join("");
    let add = "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %r = f32[] add(%a, %b)\n}\n\n";
    let input = scratch.join("p.npy");
    write_npy(
        &input,
        ElementType::F32,
        &[4],
        f32_bytes(&[1.0, 2.0, 3.0, 4.0]),
    );
    for (name, window, out, expected) in [
        // Two windows of 2^40, the first ending at element 0, the second
        // holding the other three.
        (
            "strided.hlo",
            "size=1099511627776 stride=1099511627776 pad=1099511627775_1099511627775",
            "f32[2]",
            vec![1.0, 9.0],
        ),
        // Windows of 2^40 positions 2^40 apart: each holds one element.
        (
            "dilated.hlo",
            "size=2 pad=1099511627776_0 rhs_dilate=1099511627776",
            "f32[4]",
            vec![1.0, 2.0, 3.0, 4.0],
        ),
    ] {
        let text = format!(
            "HloModule m\n\n{add}ENTRY %main (p: f32[4]) -> {out} {{\n  %p = f32[4] parameter(0)\n  %z = f32[] constant(0)\n  ROOT %rw = {out} reduce-window(%p, %z), window={{{window}}}, to_apply=%add\n}}\n"
        );
        let path = program(&scratch, name, &text);
        let out_dir = scratch.join(&format!("{name}.out"));
        let args = [
            "run",
            &path,
            "--inputs",
            input.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ];
        succeeds(&weft(&dir, &args));
        let bytes = std::fs::read(out_dir.join("out0.npy")).expect("the output is written");
        let result = weft_runtime::npy::read(&bytes, None).expect("a readable .npy");
        assert_eq!(&result.bytes[..], &f32_bytes(&expected)[..], "{name}");
    }
}

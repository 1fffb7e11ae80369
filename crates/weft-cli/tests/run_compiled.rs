//! `weft run` on per-device HLO as XLA compiles it
//! (`jax.jit(f).lower(…).compile().as_text()`): the entry's parameters carry
//! their shardings and JAX's argument names, the ROOT carries no sharding.
//! `--out-sharding` gives the results' shardings, so the outputs come back
//! global; input errors name parameters as the program does and notice
//! inputs given in the wrong order.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::Scratch;
use weft_ir::ElementType;
use weft_runtime::Tensor;

/// `y = x @ w` on 2 devices, each holding half of x's columns and half of
/// w's rows: the partial products are summed by an all-reduce, and each
/// device keeps its row of y. The results are (that row, the whole y): y
/// split by rows, then y replicated.
const COMPILED: &str = r#"HloModule jit_layer, is_scheduled=true, entry_computation_layout={(s32[2,4]{1,0}, s32[4,3]{1,0})->(s32[1,3]{1,0}, s32[2,3]{1,0})}, num_partitions=2

%add.clone (x.3: s32[], y.1: s32[]) -> s32[] {
  %x.3 = s32[] parameter(0)
  %y.1 = s32[] parameter(1)
  ROOT %add.1 = s32[] add(%x.3, %y.1)
}

ENTRY %main.0_spmd (param: s32[2,4], param.1: s32[4,3]) -> (s32[1,3], s32[2,3]) {
  %param = s32[2,4]{1,0} parameter(0), sharding={devices=[1,2]<=[2]}, metadata={op_name="x"}
  %param.1 = s32[4,3]{1,0} parameter(1), sharding={devices=[2,1]<=[2]}, metadata={op_name="w"}
  %dot = s32[2,3]{1,0} dot(%param, %param.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %all-reduce = s32[2,3]{1,0} all-reduce(%dot), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=%add.clone
  %partition-id = u32[] partition-id()
  %zero = u32[] constant(0)
  %row = s32[1,3]{1,0} dynamic-slice(%all-reduce, %partition-id, %zero), dynamic_slice_sizes={1,3}
  ROOT %tuple = (s32[1,3]{1,0}, s32[2,3]{1,0}) tuple(%row, %all-reduce)
}
"#;

/// Two parameters of different shapes, named by JAX, on one device.
const NAMED: &str = r#"HloModule jit_scale, entry_computation_layout={(f32[3]{0}, f32[2,3]{1,0})->f32[2,3]{1,0}}

ENTRY %main (Arg_0.1: f32[3], Arg_1.2: f32[2,3]) -> f32[2,3] {
  %Arg_0.1 = f32[3]{0} parameter(0), metadata={op_name="scale"}
  %Arg_1.2 = f32[2,3]{1,0} parameter(1), metadata={op_name="args[1]"}
  %b = f32[2,3]{1,0} broadcast(%Arg_0.1), dimensions={1}
  ROOT %m = f32[2,3]{1,0} multiply(%b, %Arg_1.2)
}
"#;

fn tensor(elem: ElementType, dims: &[i64], values: &[i32]) -> Tensor {
    let bytes = match elem {
        ElementType::F32 => values
            .iter()
            .flat_map(|&v| (v as f32).to_le_bytes())
            .collect(),
        _ => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    Tensor::new(elem, dims.to_vec(), bytes)
}

fn s32(tensor: &Tensor) -> Vec<i32> {
    tensor
        .bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

fn write_npy(path: &Path, tensor: &Tensor) {
    std::fs::write(path, weft_runtime::npy::write(tensor)).expect("writes the input");
}

fn read_s32(path: &Path) -> Tensor {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("{} was not written: {e}", path.display()));
    weft_runtime::npy::read(&bytes, Some(ElementType::S32)).expect("an s32 .npy")
}

fn weft_run(program: &Path, arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .arg(program)
        .args(arguments)
        .args(["--link", "unpaced"])
        .output()
        .expect("weft runs")
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "weft run failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn failed_with(output: &Output, expected: &[&str]) {
    assert!(!output.status.success(), "the run must fail");
    let stderr = String::from_utf8_lossy(&output.stderr);
    for text in expected {
        assert!(stderr.contains(text), "missing {text:?} in:\n{stderr}");
    }
}

/// The compiled program, x = [[0..8], [8..16]] and w = 1 + [[0..3], …]
/// globally and per device, and y = x @ w.
struct Compiled {
    dir: Scratch,
    program: PathBuf,
    expected: Vec<i32>,
}

impl Compiled {
    fn new(test: &str) -> Compiled {
        let dir = Scratch::new("run-compiled", test);
        let program = dir.join("layer.hlo");
        std::fs::write(&program, COMPILED).expect("writes the program");
        let x: Vec<i32> = (0..16).collect();
        let w: Vec<i32> = (0..24).map(|i| 1 + i % 5).collect();
        write_npy(&dir.join("x.npy"), &tensor(ElementType::S32, &[2, 8], &x));
        write_npy(&dir.join("w.npy"), &tensor(ElementType::S32, &[8, 3], &w));
        // Device d holds columns 4d.. of x and rows 4d.. of w.
        let x_shards: Vec<i32> = (0..2)
            .flat_map(|d| (0..2).flat_map(move |r| (0..4).map(move |c| 8 * r + 4 * d + c)))
            .collect();
        write_npy(
            &dir.join("x.shards.npy"),
            &tensor(ElementType::S32, &[2, 2, 4], &x_shards),
        );
        write_npy(
            &dir.join("w.shards.npy"),
            &tensor(ElementType::S32, &[2, 4, 3], &w),
        );
        let expected = (0..2)
            .flat_map(|r| {
                let (x, w) = (&x, &w);
                (0..3).map(move |c| (0..8).map(|k| x[8 * r + k] * w[3 * k + c]).sum())
            })
            .collect();
        Compiled {
            dir,
            program,
            expected,
        }
    }

    fn file(&self, name: &str) -> String {
        path_str(&self.dir.join(name)).to_string()
    }
}

#[test]
fn out_sharding_reassembles_global_outputs_once_per_output() {
    let compiled = Compiled::new("per_output");
    let out = compiled.file("out");
    let (x, w) = (compiled.file("x.npy"), compiled.file("w.npy"));
    let output = weft_run(
        &compiled.program,
        &[
            "--inputs",
            &x,
            &w,
            "--out-sharding",
            "{devices=[2,1]<=[2]}",
            "--out-sharding",
            "{replicated}",
            "--out",
            &out,
        ],
    );
    succeeded(&output);
    let out = Path::new(&out);
    for name in ["out0.npy", "out1.npy"] {
        let y = read_s32(&out.join(name));
        assert_eq!(
            (y.dims.clone(), s32(&y)),
            (vec![2, 3], compiled.expected.clone())
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("out0: s32[2,3]") && stdout.contains("(global)"),
        "{stdout}"
    );
}

#[test]
fn one_tuple_out_sharding_serves_every_output_and_per_device_inputs() {
    let compiled = Compiled::new("tuple");
    let out = compiled.file("out");
    let (x, w) = (compiled.file("x.shards.npy"), compiled.file("w.shards.npy"));
    let output = weft_run(
        &compiled.program,
        &[
            "--inputs",
            &x,
            &w,
            "--out-sharding",
            "{{devices=[2,1]<=[2]}, {replicated}}",
            "--out",
            &out,
        ],
    );
    succeeded(&output);
    let y = read_s32(&Path::new(&out).join("out0.npy"));
    assert_eq!(s32(&y), compiled.expected);
    assert!(!Path::new(&out).join("out0.shards.npy").exists());
}

#[test]
fn without_out_sharding_the_outputs_stay_per_device_and_say_how_to_reassemble() {
    let compiled = Compiled::new("none");
    let out = compiled.file("out");
    let (x, w) = (compiled.file("x.npy"), compiled.file("w.npy"));
    let output = weft_run(&compiled.program, &["--inputs", &x, &w, "--out", &out]);
    succeeded(&output);
    let rows = read_s32(&Path::new(&out).join("out0.shards.npy"));
    assert_eq!(
        (rows.dims.clone(), s32(&rows)),
        (vec![2, 1, 3], compiled.expected.clone())
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("the program records no result sharding; --out-sharding gives it"),
        "{stdout}"
    );
}

#[test]
fn out_sharding_errors_name_the_mismatch() {
    let compiled = Compiled::new("errors");
    let output = weft_run(
        &compiled.program,
        &[
            "--out-sharding",
            "{replicated}",
            "--out-sharding",
            "{replicated}",
            "--out-sharding",
            "{replicated}",
        ],
    );
    failed_with(
        &output,
        &["--out-sharding gives 3 sharding(s) for 2 output(s)"],
    );
    let output = weft_run(
        &compiled.program,
        &["--out-sharding", "{devices=[2,1]<=2]}"],
    );
    failed_with(&output, &["--out-sharding", "expected '[' after '<='"]);
    let dir = Scratch::new("run-compiled", "one_device");
    let program = dir.join("scale.hlo");
    std::fs::write(&program, NAMED).expect("writes the program");
    let output = weft_run(&program, &["--out-sharding", "{replicated}"]);
    failed_with(
        &output,
        &["--out-sharding reassembles the outputs of several devices"],
    );
}

#[test]
fn inputs_in_the_wrong_order_are_named_as_jax_named_them() {
    let compiled = Compiled::new("wrong_order");
    let (x, w) = (compiled.file("x.npy"), compiled.file("w.npy"));
    let output = weft_run(&compiled.program, &["--inputs", &w, &x]);
    failed_with(
        &output,
        &[
            "parameter 0 (x, %param) has sharding={devices=[1,2]<=[2]}",
            "the global input must be s32[2,8], found s32[8,3]",
            "hint: wrong order? it matches parameter 1 (w, %param.1)",
        ],
    );
    let (x, w) = (compiled.file("x.shards.npy"), compiled.file("w.shards.npy"));
    let output = weft_run(&compiled.program, &["--inputs", &w, &x]);
    failed_with(
        &output,
        &[
            "parameter 0 (x, %param) needs 2 shards of s32[2,4], stacked as s32[2,2,4]; the file holds s32[2,4,3]",
            "hint: wrong order? it matches parameter 1 (w, %param.1)",
        ],
    );
}

#[test]
fn one_device_inputs_are_named_and_checked_for_order() {
    let dir = Scratch::new("run-compiled", "named");
    let program = dir.join("scale.hlo");
    std::fs::write(&program, NAMED).expect("writes the program");
    let (scale, values) = (dir.join("scale.npy"), dir.join("values.npy"));
    write_npy(&scale, &tensor(ElementType::F32, &[3], &[1, 2, 3]));
    write_npy(
        &values,
        &tensor(ElementType::F32, &[2, 3], &[1, 1, 1, 2, 2, 2]),
    );
    let output = weft_run(&program, &["--inputs", path_str(&values), path_str(&scale)]);
    failed_with(
        &output,
        &[
            "parameter 0 (scale, %Arg_0.1) is f32[3], the file holds f32[2,3]",
            "hint: wrong order? it matches parameter 1 (args[1], %Arg_1.2)",
        ],
    );
    // A shape no parameter has gets no hint.
    let odd = dir.join("odd.npy");
    write_npy(&odd, &tensor(ElementType::F32, &[5], &[0; 5]));
    let output = weft_run(&program, &["--inputs", path_str(&odd), path_str(&values)]);
    failed_with(
        &output,
        &["parameter 0 (scale, %Arg_0.1) is f32[3], the file holds f32[5]"],
    );
    assert!(!String::from_utf8_lossy(&output.stderr).contains("wrong order"));
    let output = weft_run(&program, &["--inputs", path_str(&scale), path_str(&values)]);
    succeeded(&output);
}

//! `weft run` on a shape-polymorphic StableHLO program (a dimension variable
//! passed as an `i64` argument, a data argument with a `?` dimension, as JAX
//! exports them): the `.npy` inputs fix the argument shapes and the dimension's
//! value, so the program lowers to the static program for them and runs, for
//! two different sizes; without inputs the error names the argument.

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::Scratch;
use weft_ir::ElementType;
use weft_runtime::Tensor;

/// `x + iota` over rows, the iota's shape computed from the dimension
/// variable `%n`, then each row's sum.
const POLYMORPHIC: &str = r#"module @polymorphic {
  func.func public @main(%n: tensor<i64>, %x: tensor<?x2xi32>) -> tensor<?xi32> {
    %rows = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>
    %r = stablehlo.reshape %rows : (tensor<i32>) -> tensor<1xi32>
    %two = stablehlo.constant dense<2> : tensor<1xi32>
    %shape = stablehlo.concatenate %r, %two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %row = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi32>) -> tensor<?x2xi32>
    %shifted = stablehlo.add %x, %row : tensor<?x2xi32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %sums = stablehlo.reduce(%shifted init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x2xi32>, tensor<i32>) -> tensor<?xi32>
    return %sums : tensor<?xi32>
  }
}
"#;

fn write_npy(path: &Path, tensor: &Tensor) {
    std::fs::write(path, weft_runtime::npy::write(tensor)).expect("writes the input");
}

fn weft_run(arguments: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .args(arguments)
        .output()
        .expect("weft runs")
}

/// The row sums `weft run` gives for `rows` rows of ones.
fn row_sums(dir: &Scratch, program: &Path, rows: i64) -> Vec<i32> {
    let n = Tensor::new(ElementType::S64, vec![], rows.to_le_bytes().to_vec());
    let x_bytes = (0..rows * 2).flat_map(|_| 1i32.to_le_bytes()).collect();
    let x = Tensor::new(ElementType::S32, vec![rows, 2], x_bytes);
    let (n_file, x_file, out) = (
        dir.join(&format!("n{rows}.npy")),
        dir.join(&format!("x{rows}.npy")),
        dir.join(&format!("out{rows}")),
    );
    write_npy(&n_file, &n);
    write_npy(&x_file, &x);
    let output = weft_run(&[
        program,
        Path::new("--inputs"),
        &n_file,
        &x_file,
        Path::new("--out"),
        &out,
    ]);
    assert!(
        output.status.success(),
        "weft run failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(out.join("out0.npy")).expect("the output was written");
    let sums = weft_runtime::npy::read(&bytes, Some(ElementType::S32)).expect("an s32 .npy");
    assert_eq!(sums.dims, vec![rows]);
    sums.bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

#[test]
fn inputs_fix_the_shapes_of_a_shape_polymorphic_program() {
    let dir = Scratch::new("run-dynamic", "inputs");
    let program = dir.join("polymorphic.mlir");
    std::fs::write(&program, POLYMORPHIC).expect("writes the program");
    // Row r of ones plus r, summed over two columns: 2 + 2r.
    assert_eq!(row_sums(&dir, &program, 3), [2, 4, 6]);
    assert_eq!(row_sums(&dir, &program, 5), [2, 4, 6, 8, 10]);
}

#[test]
fn without_inputs_the_dynamic_argument_is_named() {
    let dir = Scratch::new("run-dynamic", "no-inputs");
    let program = dir.join("polymorphic.mlir");
    std::fs::write(&program, POLYMORPHIC).expect("writes the program");
    let output = weft_run(&[&program]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .contains("cannot lower 'func.func': argument 1 has the dynamic type tensor<?x2xi32>")
            && stderr.contains("--inputs"),
        "{stderr}"
    );
}

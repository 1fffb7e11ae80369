//! `weft check --input-format`: a file (or standard input) whose name does
//! not say its format is checked as the flag says, as `weft fmt` reads it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const MLIR: &str = "func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %arg0 : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";

fn check_stdin(flags: &[&str], text: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("check")
        .args(flags)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("weft starts");
    child
        .stdin
        .take()
        .expect("a pipe")
        .write_all(text.as_bytes())
        .expect("writes the program");
    child.wait_with_output().expect("weft ends")
}

#[test]
fn standard_input_is_checked_as_stablehlo_with_input_format_mlir() {
    let output = check_stdin(&["--input-format", "mlir"], MLIR);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("<stdin>: ok (3 ops)"), "{stderr}");
    // Without the flag, standard input is HLO, which this is not.
    let output = check_stdin(&[], MLIR);
    assert!(!output.status.success());
}

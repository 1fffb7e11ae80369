//! `weft run --max-iterations` and `--deadline`: a loop that never ends
//! stops with an error naming the `while` and its line; a deadline stops any
//! run with where each device was — computing at which instruction and loop
//! iteration, or waiting at which collective; bad values are refused.

use std::process::{Command, Output};

mod common;

use common::{Scratch, unbalanced};

fn weft(scratch: &Scratch, program: &str, flags: &[&str]) -> Output {
    let file = scratch.join("program.hlo");
    std::fs::write(&file, program).expect("writable scratch");
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .arg(&file)
        .args(flags)
        .output()
        .expect("weft runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn max_iterations_names_the_loop_and_its_line() {
    let scratch = Scratch::new("run_limits", "max_iterations");
    let output = weft(
        &scratch,
        &unbalanced(0),
        &["--devices", "1", "--max-iterations", "1000"],
    );
    let text = stderr(&output);
    assert!(!output.status.success(), "{text}");
    assert!(
        text.contains("spin/%loop: this while loop's condition still held after 1000 iteration(s)"),
        "{text}"
    );
    assert!(
        text.contains("program.hlo:22:8"),
        "the while's line: {text}"
    );
}

#[test]
fn a_loop_within_the_limit_runs_to_its_end() {
    let scratch = Scratch::new("run_limits", "within_limit");
    let counted = unbalanced(0)
        .replace(
            "ROOT %forever = pred[] constant(true)",
            "%ten = s32[] constant(10)\n  ROOT %more = pred[] compare(%s, %ten), direction=LT",
        )
        .replace("replica_count=2", "replica_count=1")
        .replace("replica_groups={{0,1}}", "replica_groups={{0}}");
    // From 0 the loop runs exactly 10 iterations: the limit is not hit.
    let zero = scratch.join("zero.npy");
    std::fs::write(
        &zero,
        weft_runtime::npy::write(&weft_runtime::Tensor::zeros(weft_ir::ElementType::S32, &[])),
    )
    .expect("writable scratch");
    let output = weft(
        &scratch,
        &counted,
        &[
            "--max-iterations",
            "10",
            "--inputs",
            zero.to_str().expect("utf-8 path"),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("[10]"));
}

#[test]
fn the_deadline_reports_where_each_device_is() {
    let scratch = Scratch::new("run_limits", "deadline");
    let started = std::time::Instant::now();
    let output = weft(
        &scratch,
        &unbalanced(0),
        &["--deadline", "0.5", "--timeout", "30"],
    );
    let text = stderr(&output);
    assert!(!output.status.success(), "{text}");
    assert!(
        started.elapsed().as_secs_f64() < 20.0,
        "stopped at the deadline, not the timeout"
    );
    assert!(
        text.contains("the run passed its deadline of 0.5 s"),
        "{text}"
    );
    assert!(text.contains("device 0: computing at "), "{text}");
    assert!(text.contains("of %loop"), "the loop iteration: {text}");
    assert!(text.contains("device 1: waiting at main/%total"), "{text}");
}

#[test]
fn bad_deadlines_are_refused() {
    let scratch = Scratch::new("run_limits", "bad_deadline");
    for bad in ["0", "-1", "inf", "NaN", "1e30", "soon"] {
        let output = weft(&scratch, &unbalanced(0), &[&format!("--deadline={bad}")]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "--deadline={bad}: {}",
            stderr(&output)
        );
    }
}

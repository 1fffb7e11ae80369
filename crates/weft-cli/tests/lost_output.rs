//! A reader that closes standard output early (`weft run … | head`) costs
//! only the lines it did not read: a run still writes the files it was
//! asked for (`--out`, `--trace`), and every command's exit status still
//! says whether it succeeded. Files that cannot be written are found before
//! a run, not after it.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{Scratch, crossed, example, unbalanced, unbalanced_for, zero_input};

/// Runs `weft args…` with its standard output closed before it writes a
/// byte: the reader end of the pipe is gone, so the first line it prints
/// meets a broken pipe.
fn with_stdout_closed(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("weft starts");
    drop(child.stdout.take());
    child.wait_with_output().expect("weft ends")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

#[test]
fn a_run_writes_its_files_when_stdout_closes() {
    let scratch = Scratch::new("lost_output", "run");
    let out = scratch.join("results");
    let trace = scratch.join("trace.json");
    let program = example("dp_train_step.hlo");
    let output = with_stdout_closed(&[
        "run",
        path(&program),
        "--out",
        path(&out),
        "--trace",
        path(&trace),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(output.status.code(), Some(0));
    let written: Vec<_> = std::fs::read_dir(&out)
        .expect("the --out directory")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    assert!(!written.is_empty(), "no outputs in {}", out.display());
    for file in written {
        let bytes = std::fs::read(&file).expect("readable");
        weft_runtime::npy::read(&bytes, None).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
    let text = std::fs::read_to_string(&trace).expect("the trace");
    let json: serde_json::Value = serde_json::from_str(&text).expect("the trace is JSON");
    assert!(json.is_object() || json.is_array(), "{text}");
}

#[test]
fn a_single_device_run_writes_its_files_when_stdout_closes() {
    let scratch = Scratch::new("lost_output", "single");
    let out = scratch.join("results");
    let program = scratch.join("program.hlo");
    // One device, whose loop runs 10 iterations from the zero input.
    let bounded = unbalanced_for(0, 10)
        .replace("replica_count=2", "replica_count=1")
        .replace("replica_groups={{0,1}}", "replica_groups={{0}}");
    std::fs::write(&program, bounded).expect("writable scratch");
    let zero = zero_input(&scratch);
    let output = with_stdout_closed(&[
        "run",
        path(&program),
        "--inputs",
        path(&zero),
        "--out",
        path(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(out.join("out0.npy").is_file());
}

#[test]
fn a_failing_run_with_stdout_closed_exits_1() {
    let scratch = Scratch::new("lost_output", "failing");
    let program = scratch.join("crossed.hlo");
    std::fs::write(&program, crossed()).expect("writable scratch");
    let out = scratch.join("results");
    let output = with_stdout_closed(&[
        "run",
        path(&program),
        "--timeout",
        "0.3",
        "--out",
        path(&out),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("a deadlock: device 0 waits at ahead/%first"));
}

#[test]
fn files_that_cannot_be_written_stop_a_run_before_it_starts() {
    let scratch = Scratch::new("lost_output", "unwritable");
    let program = scratch.join("program.hlo");
    // It would spin until the deadline: only a check before the run ends
    // it at once.
    std::fs::write(&program, unbalanced(0)).expect("writable scratch");
    let missing = scratch.join("no such directory").join("trace.json");
    let started = Instant::now();
    let output = with_stdout_closed(&[
        "run",
        path(&program),
        "--deadline",
        "30",
        "--trace",
        path(&missing),
    ]);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(started.elapsed() < Duration::from_secs(10), "{text}");
    assert!(text.contains("does not exist"), "{text}");
    // An --out that is a file cannot be a directory.
    let file = scratch.join("a file");
    std::fs::write(&file, "").expect("writable scratch");
    let output = with_stdout_closed(&[
        "run",
        path(&program),
        "--deadline",
        "30",
        "--out",
        path(&file),
    ]);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("--out"), "{text}");
}

#[test]
fn other_commands_keep_their_exit_status_when_stdout_closes() {
    let scratch = Scratch::new("lost_output", "commands");
    // `check --format json` prints its errors on standard output.
    let broken = scratch.join("broken.hlo");
    std::fs::write(
        &broken,
        "HloModule broken\n\nENTRY %main () -> f32[] {\n  ROOT %x = f32[] add()\n}\n",
    )
    .expect("writable scratch");
    let output = with_stdout_closed(&["check", "--format", "json", path(&broken)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    // `interpret` prints each failing case there.
    let failing = scratch.join("failing.mlir");
    std::fs::write(
        &failing,
        "func.func @wrong() {\n  %x = stablehlo.constant dense<1> : tensor<i32>\n  check.expect_eq_const %x, dense<2> : tensor<i32>\n  func.return\n}\n",
    )
    .expect("writable scratch");
    let output = with_stdout_closed(&["interpret", path(&failing)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    // `fmt` and `convert` succeed, and fail, as they would on a terminal.
    let program = example("dp_train_step.hlo");
    for args in [
        vec!["fmt", path(&program)],
        vec!["convert", "--to", "stablehlo", path(&program)],
        vec!["bench", "--repeat", "1", path(&program)],
    ] {
        let output = with_stdout_closed(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!stderr(&output).contains("panicked"), "{args:?}");
    }
    let garbage = scratch.join("garbage.hlo");
    std::fs::write(&garbage, "this is not HLO\n").expect("writable scratch");
    let output = with_stdout_closed(&["fmt", path(&garbage)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
}

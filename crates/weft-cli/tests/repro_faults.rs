//! Inputs that once made weft wait out a timeout for a device that had
//! failed or finished, panic on its own flags or on a closed standard
//! error, lose a failure's exit status, or answer a numeric corner case
//! otherwise than XLA:CPU. Each test runs the weft binary on a reproducer
//! of `../shared/repro/` as that directory's README runs it, bounded in
//! time, and checks the clean outcome; without the directory the test says
//! so and passes. The numeric corner cases need no reproducer file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::Scratch;

/// The reproducer `name`, or `None` (with a message) when the directory is
/// absent.
fn repro(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/repro");
    if !dir.join("README.md").exists() {
        eprintln!("../shared/repro not found; skipping the test of {name}");
        return None;
    }
    Some(dir.join(name))
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// How `weft` ends when started by `command`, which must end within
/// `bound`.
fn finish(mut command: Command, bound: Duration) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = command.spawn().expect("weft starts");
    while child.try_wait().expect("weft can be waited for").is_none() {
        if started.elapsed() > bound {
            let _ = child.kill();
            panic!("weft did not finish within {bound:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let took = started.elapsed();
    (child.wait_with_output().expect("weft ends"), took)
}

/// `weft args…`, its outputs captured, ending within `bound`.
fn weft(args: &[&str], bound: Duration) -> (Output, Duration) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    finish(command, bound)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

const BOUND: Duration = Duration::from_secs(60);

#[test]
fn a_device_that_panics_ends_the_run_at_once() {
    let (Some(program), Some(input)) =
        (repro("device_panic_peer_waits.hlo"), repro("npy_wrap.npy"))
    else {
        return;
    };
    // A long timeout: a peer that waited for the failed device would show.
    let (output, took) = weft(
        &[
            "run",
            path(&program),
            "--inputs",
            path(&input),
            "--timeout",
            "60",
        ],
        BOUND,
    );
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(took < Duration::from_secs(30), "took {took:?}: {text}");
    // Until the input is refused outright, the reduce panics; then the error
    // names the device, the instruction and its line.
    if text.contains("weft panicked here") {
        assert!(text.contains("error: device 0: big/%s"), "{text}");
        assert!(text.contains("device_panic_peer_waits.hlo:12:"), "{text}");
    } else {
        assert!(text.contains("error:"), "{text}");
    }
}

#[test]
fn absurd_numbers_are_refused_as_flags() {
    let Some(program) = repro("small.hlo") else {
        return;
    };
    for flags in [
        ["--devices", "100000"],
        ["--repeat", "18446744073709551615"],
        ["--timeout", "1e30"],
        ["--timeout", "inf"],
        ["--link-latency", "inf"],
    ] {
        let mut args = vec!["run", path(&program)];
        args.extend(flags);
        let (output, _) = weft(&args, BOUND);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{flags:?}: {text}");
        assert!(
            text.contains(&format!("invalid value '{}' for '{}", flags[1], flags[0])),
            "{flags:?}: {text}"
        );
    }
}

#[test]
fn a_grid_too_large_for_one_process_is_refused() {
    let Some(program) = repro("small.hlo") else {
        return;
    };
    let scratch = Scratch::new("repro_faults", "grid");
    let text = std::fs::read_to_string(&program).expect("small.hlo");
    let huge = scratch.join("huge.hlo");
    std::fs::write(
        &huge,
        text.replace("HloModule small", "HloModule small, replica_count=1000000"),
    )
    .expect("writable scratch");
    for args in [
        vec!["run", path(&huge)],
        vec![
            "run",
            path(&program),
            "--replicas",
            "4096",
            "--partitions",
            "4096",
        ],
    ] {
        let (output, _) = weft(&args, BOUND);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {text}");
        assert!(
            text.contains("is more devices than weft runs in one process (4096"),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn threads_the_machine_refuses_end_the_run_with_an_error() {
    let Some(program) = repro("small.hlo") else {
        return;
    };
    // Threads of 8 GB stacks in 40 GB of address space: the first devices'
    // threads start (and wait), then the machine refuses one. (A machine
    // short of memory refuses the first: the same error.)
    let mut command = Command::new("sh");
    command
        .args([
            "-c",
            r#"ulimit -v 40000000 && RUST_MIN_STACK=8000000000 exec "$0" run "$1" --devices 64"#,
            env!("CARGO_BIN_EXE_weft"),
            path(&program),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (output, _) = finish(command, BOUND);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error: cannot start the threads of device")
            && text.contains("this machine cannot run that many devices at once"),
        "{text}"
    );
}

#[test]
fn a_closed_standard_error_keeps_the_exit_status() {
    if repro("small.hlo").is_none() {
        return;
    }
    // `weft run - < /dev/null 2>&1 | true`: the error meets a closed pipe.
    for (args, status) in [(vec!["run", "-"], 1), (vec!["check", "-"], 1)] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("weft starts");
        drop(child.stderr.take());
        let output = child.wait_with_output().expect("weft ends");
        assert_eq!(output.status.code(), Some(status), "{args:?}");
    }
}

/// `weft args…` with standard output closed before it writes a byte, or
/// (`full`) a file that is always full.
fn with_lost_stdout(args: &[&str], full: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
    command.args(args).stderr(Stdio::piped());
    if full {
        let device = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        command.stdout(device);
        return command.output().expect("weft runs");
    }
    command.stdout(Stdio::piped());
    let mut child = command.spawn().expect("weft starts");
    drop(child.stdout.take());
    child.wait_with_output().expect("weft ends")
}

#[test]
fn failed_checks_fail_whatever_becomes_of_the_output() {
    let (Some(two_failures), Some(check_failure)) = (
        repro("interpret_two_failures.mlir"),
        repro("run_check_failure.mlir"),
    ) else {
        return;
    };
    for args in [
        vec!["interpret", path(&two_failures)],
        vec!["run", path(&check_failure)],
        vec!["run", path(&check_failure), "--devices", "2"],
    ] {
        for full in [false, true] {
            let output = with_lost_stdout(&args, full);
            assert_eq!(
                output.status.code(),
                Some(1),
                "{args:?}, full: {full}: {}",
                stderr(&output)
            );
        }
        // A full standard error loses the messages, not the status.
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let status = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(full)
            .status()
            .expect("weft runs");
        assert_eq!(status.code(), Some(1), "{args:?} with standard error full");
    }
}

#[test]
fn a_run_whose_checks_fail_still_writes_its_outputs() {
    let Some(program) = repro("run_check_failure.mlir") else {
        return;
    };
    let scratch = Scratch::new("repro_faults", "out");
    let out = scratch.join("results");
    let (output, _) = weft(&["run", path(&program), "--out", path(&out)], BOUND);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("error: 1 check(s) failed"), "{text}");
    let bytes = std::fs::read(out.join("out0.npy")).expect("the output was written");
    let tensor = weft_runtime::npy::read(&bytes, None).expect("a .npy file");
    assert_eq!(&tensor.bytes[..], &1i32.to_le_bytes());
}

#[test]
fn a_device_that_skips_a_collective_fails_its_peers_at_once() {
    let Some(program) = repro("skip_collective_on_p3.hlo") else {
        return;
    };
    let (output, took) = weft(&["run", path(&program), "--timeout", "60"], BOUND);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(took < Duration::from_secs(30), "took {took:?}: {text}");
    assert!(
        text.contains(
            "do_ar/%ar: device 3 finished its program without reaching this collective (channel 1, instance 0)"
        ),
        "{text}"
    );
    assert!(text.contains("skip_collective_on_p3.hlo:11:"), "{text}");
    assert!(!text.contains("computing or finished"), "{text}");
}

#[test]
fn collectives_on_one_channel_meet_across_instructions_as_in_xla() {
    let Some(program) = repro("same_channel_different_instr.hlo") else {
        return;
    };
    let scratch = Scratch::new("repro_faults", "channel");
    // Device d brings sixteen d's: every device gets 0 + 1 + … + 7.
    let mut shards = weft_runtime::Tensor::zeros(weft_ir::ElementType::F32, &[8, 16]);
    for (index, chunk) in shards.bytes.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&((index / 16) as f32).to_le_bytes());
    }
    let input = scratch.join("x.shards.npy");
    std::fs::write(&input, weft_runtime::npy::write(&shards)).expect("writable scratch");
    let out = scratch.join("results");
    let (output, took) = weft(
        &[
            "run",
            path(&program),
            "--inputs",
            path(&input),
            "--out",
            path(&out),
            "--timeout",
            "60",
        ],
        BOUND,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(took < Duration::from_secs(30), "took {took:?}");
    let bytes = std::fs::read(out.join("out0.shards.npy")).expect("the output");
    let sums = weft_runtime::npy::read(&bytes, None).expect("a .npy file");
    assert_eq!(sums.dims, vec![8, 16]);
    for chunk in sums.bytes.chunks_exact(4) {
        assert_eq!(f32::from_le_bytes(chunk.try_into().expect("4 bytes")), 28.0);
    }
}

/// Runs the HLO `program` on the `.npy` `inputs` (written to scratch) and
/// returns output 0's file, or the failed run's standard error.
fn run_with_inputs(test: &str, program: &str, inputs: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    let scratch = Scratch::new("repro_faults", test);
    let file = scratch.join("program.hlo");
    std::fs::write(&file, program).expect("writable scratch");
    let mut args = vec!["run".to_string(), path(&file).to_string()];
    if !inputs.is_empty() {
        args.push("--inputs".into());
    }
    for (number, bytes) in inputs.iter().enumerate() {
        let input = scratch.join(&format!("in{number}.npy"));
        std::fs::File::create(&input)
            .and_then(|mut f| f.write_all(bytes))
            .expect("writable scratch");
        args.push(path(&input).to_string());
    }
    let out = scratch.join("results");
    args.extend(["--out".to_string(), path(&out).to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (output, _) = weft(&args, BOUND);
    if !output.status.success() {
        return Err(stderr(&output));
    }
    Ok(std::fs::read(out.join("out0.npy")).expect("the output"))
}

/// A version-1 `.npy` file with `header` and `data`.
fn npy(header: &str, data: &[u8]) -> Vec<u8> {
    let mut header = header.to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&(header.len() as u16).to_le_bytes());
    file.extend_from_slice(header.as_bytes());
    file.extend_from_slice(data);
    file
}

#[test]
fn a_pred_input_reads_any_nonzero_byte_as_true() {
    let program = "HloModule pred\n\nENTRY %main (p: pred[4]) -> s32[4] {\n  %p = pred[4] parameter(0)\n  ROOT %c = s32[4] convert(%p)\n}\n";
    let input = npy(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
        &[0, 1, 2, 255],
    );
    let out = run_with_inputs("pred", program, &[input]).expect("the run succeeds");
    let values = weft_runtime::npy::read(&out, None).expect("a .npy file");
    let expected: Vec<u8> = [0i32, 1, 1, 1]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(&values.bytes[..], &expected[..]);
}

#[test]
fn a_npy_header_that_gives_its_shape_twice_is_refused() {
    let program = "HloModule twice\n\nENTRY %main (p: f32[2]) -> f32[2] {\n  ROOT %p = f32[2] parameter(0)\n}\n";
    let input = npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (2,), }",
        &[0; 8],
    );
    let error = run_with_inputs("twice", program, &[input]).expect_err("refused");
    assert!(
        error.contains("the .npy header gives 'shape' twice"),
        "{error}"
    );
}

#[test]
fn sort_under_a_plain_less_places_nan_as_xla_cpu_does() {
    // What XLA:CPU (jaxlib 0.10.2) returns for this line: NaN is neither
    // less nor greater than anything, so the line is not fully sorted.
    let program = "HloModule sort_nan\n\n%less (a: f32[], b: f32[]) -> pred[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %lt = pred[] compare(%a, %b), direction=LT\n}\n\nENTRY %main (x: f32[12]) -> f32[12] {\n  %x = f32[12] parameter(0)\n  ROOT %s = f32[12] sort(%x), dimensions={0}, is_stable=IS_STABLE, to_apply=%less\n}\n";
    let nan = f32::NAN;
    let line = [5.0, 3.0, nan, 1.0, 4.0, 2.0, nan, 9.0, 0.0, 8.0, 7.0, 6.0];
    let data: Vec<u8> = line.iter().flat_map(|v: &f32| v.to_le_bytes()).collect();
    let input = npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (12,), }",
        &data,
    );
    for (stable, expected) in [
        (
            "true",
            [1.0, 3.0, 5.0, nan, 2.0, 4.0, nan, 0.0, 6.0, 7.0, 8.0, 9.0],
        ),
        (
            "false",
            [0.0, 1.0, 3.0, 5.0, nan, 2.0, 4.0, nan, 6.0, 7.0, 8.0, 9.0],
        ),
    ] {
        let out = run_with_inputs(
            &format!("sort_{stable}"),
            &program.replace("IS_STABLE", stable),
            std::slice::from_ref(&input),
        )
        .expect("the run succeeds");
        let sorted = weft_runtime::npy::read(&out, None).expect("a .npy file");
        let got: Vec<u32> = sorted
            .bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")).to_bits())
            .collect();
        let want: Vec<u32> = expected.iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, want, "is_stable={stable}");
    }
}

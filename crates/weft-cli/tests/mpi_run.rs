//! `weft run` under `mpirun` (the `mpi` feature): the examples on 2 and 4
//! ranks must write the same output files, byte for byte, as one process;
//! rank 0 prints the report and the other ranks nothing; a device that
//! fails on one rank fails the whole job, reported once with the device
//! named; a rank that dies (killed) ends the surviving ranks with an error
//! naming it, never a hang. Skipped (with a message) when `mpirun` is not
//! installed.

#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::{Scratch, example};
use weft_ir::ElementType;
use weft_runtime::Tensor;
use weft_runtime::random::SplitMix64;

/// Device 3 takes a branch with a custom call the evaluator does not know:
/// it fails, while the others wait for it at the all-reduce.
const FAULT: &str = r#"HloModule fault, num_partitions=4

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %a, f32[] %b)
}

%broken (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  ROOT %mystery = f32[4] custom-call(f32[4] %x), custom_call_target="no_such_target"
}

%plain (x: f32[4]) -> f32[4] {
  ROOT %x = f32[4] parameter(0)
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  %partition = u32[] partition-id()
  %three = u32[] constant(3)
  %is-three = pred[] compare(u32[] %partition, u32[] %three), direction=EQ
  %y = f32[4] conditional(pred[] %is-three, f32[4] %x, f32[4] %x), true_computation=%broken, false_computation=%plain
  ROOT %summed = f32[4] all-reduce(f32[4] %y), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%sum
}
"#;

/// The launcher's extra flags, or `None` (and a note) when there is no
/// `mpirun`.
fn launcher() -> Option<Vec<&'static str>> {
    let version = Command::new("mpirun").arg("--version").output().ok()?;
    if !version.status.success() {
        eprintln!("skipped: `mpirun --version` failed");
        return None;
    }
    let text = String::from_utf8_lossy(&version.stdout).to_string()
        + &String::from_utf8_lossy(&version.stderr);
    // Open MPI refuses more ranks than cores without it.
    Some(if text.contains("Open MPI") {
        vec!["--oversubscribe"]
    } else {
        Vec::new()
    })
}

fn weft() -> &'static str {
    env!("CARGO_BIN_EXE_weft")
}

/// `mpirun -n ranks weft run arguments…`.
fn mpirun(flags: &[&str], ranks: usize, arguments: &[&str]) -> Output {
    Command::new("mpirun")
        .args(flags)
        .args(["-n", &ranks.to_string(), weft(), "run"])
        .args(arguments)
        // Open MPI refuses root without both.
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .expect("mpirun runs")
}

fn alone(arguments: &[&str]) -> Output {
    Command::new(weft())
        .arg("run")
        .args(arguments)
        .output()
        .expect("weft runs")
}

fn succeeded(what: &str, output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "{what} failed:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The files of `dir`, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let entry = entry.expect("a directory entry");
            (
                entry.file_name().to_string_lossy().to_string(),
                std::fs::read(entry.path()).expect("a readable output"),
            )
        })
        .collect();
    files.sort();
    files
}

/// The output lines of a report (`out0: …`): the same in every run, unlike
/// the timings.
fn output_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("out")).collect()
}

/// Runs `program` alone and on each of `ranks`, and checks the output
/// files are identical and only rank 0 printed the report.
fn same_outputs_as_one_process(test: &str, program: &Path, inputs: &[&str], ranks: &[usize]) {
    let Some(flags) = launcher() else {
        eprintln!("skipped: no mpirun");
        return;
    };
    let dir = Scratch::new("mpi-run", test);
    let run_arguments = |out: &Path| -> Vec<String> {
        let mut arguments = vec![
            program.display().to_string(),
            "--link-bandwidth".into(),
            "2".into(),
            "--out".into(),
            out.display().to_string(),
        ];
        if !inputs.is_empty() {
            arguments.push("--inputs".into());
            arguments.extend(inputs.iter().map(|i| i.to_string()));
        }
        arguments
    };
    let single_dir = dir.join("single");
    let arguments = run_arguments(&single_dir);
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    let single = succeeded("weft run", &alone(&arguments));
    let expected = files(&single_dir);
    assert!(!expected.is_empty(), "outputs were written");
    for &count in ranks {
        let ranks_dir = dir.join(&format!("ranks{count}"));
        let arguments = run_arguments(&ranks_dir);
        let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
        let stdout = succeeded(
            &format!("mpirun -n {count}"),
            &mpirun(&flags, count, &arguments),
        );
        // One report: rank 0's, with every device and the same outputs.
        assert_eq!(stdout.matches("step time:").count(), 1, "{stdout}");
        assert!(
            stdout.contains(&format!("over {count} MPI ranks")),
            "{stdout}"
        );
        assert_eq!(output_lines(&stdout), output_lines(&single), "{stdout}");
        let got = files(&ranks_dir);
        assert_eq!(
            got.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            expected.iter().map(|(name, _)| name).collect::<Vec<_>>()
        );
        for ((name, ours), (_, theirs)) in got.iter().zip(&expected) {
            assert!(
                ours == theirs,
                "{name} on {count} ranks differs from one process"
            );
        }
    }
}

#[test]
fn data_parallel_step_is_identical_on_ranks() {
    same_outputs_as_one_process("dp", &example("dp_train_step.hlo"), &[], &[2, 4]);
}

#[test]
fn collective_matmul_is_identical_on_ranks() {
    same_outputs_as_one_process("matmul", &example("collective_matmul.hlo"), &[], &[2, 4]);
}

#[test]
fn stablehlo_data_parallel_step_is_identical_on_ranks() {
    same_outputs_as_one_process(
        "dp-stablehlo",
        &example("dp_train_step.stablehlo.mlir"),
        &[],
        &[2, 4],
    );
}

#[test]
fn stablehlo_with_global_inputs_is_identical_on_ranks() {
    let dir = Scratch::new("mpi-run", "global-inputs");
    let mut random = SplitMix64::new(7);
    let x: Tensor = weft_runtime::random::tensor(&mut random, ElementType::F32, &[1024, 512]);
    let w: Tensor = weft_runtime::random::tensor(&mut random, ElementType::F32, &[512, 2048]);
    let (x_file, w_file) = (dir.join("x.npy"), dir.join("w.npy"));
    std::fs::write(&x_file, weft_runtime::npy::write(&x)).expect("writes x");
    std::fs::write(&w_file, weft_runtime::npy::write(&w)).expect("writes w");
    let (x_file, w_file) = (x_file.display().to_string(), w_file.display().to_string());
    same_outputs_as_one_process(
        "global",
        &example("collective_matmul.stablehlo.mlir"),
        &[&x_file, &w_file],
        &[2, 4],
    );
}

#[test]
fn a_failing_device_fails_every_rank_and_is_reported_once() {
    let Some(flags) = launcher() else {
        eprintln!("skipped: no mpirun");
        return;
    };
    let dir = Scratch::new("mpi-run", "fault");
    let program = dir.join("fault.hlo");
    std::fs::write(&program, FAULT).expect("writes the program");
    let output = mpirun(
        &flags,
        2,
        &[program.to_str().expect("UTF-8"), "--timeout", "60"],
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reason = "error: device 3: broken/%mystery: custom-call target \"no_such_target\"";
    assert_eq!(stderr.matches(reason).count(), 1, "{stderr}");
    assert!(!stderr.contains("rank 1:"), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).is_empty());
}

#[test]
fn ranks_that_do_not_divide_the_devices_are_refused_once() {
    let Some(flags) = launcher() else {
        eprintln!("skipped: no mpirun");
        return;
    };
    let output = mpirun(
        &flags,
        3,
        &[example("dp_train_step.hlo").to_str().expect("UTF-8")],
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.matches("3 ranks cannot share 8 device(s)").count(),
        1,
        "{stderr}"
    );
}

/// The process ids of the `weft` processes whose command line mentions
/// `marker` and whose MPI rank is `rank`.
fn processes_of_rank(marker: &str, rank: usize) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let read =
                |what: &str| std::fs::read(format!("/proc/{pid}/{what}")).unwrap_or_default();
            let command = String::from_utf8_lossy(&read("cmdline")).replace('\0', " ");
            let environment = String::from_utf8_lossy(&read("environ")).replace('\0', "\n");
            command.contains(weft())
                && command.contains(marker)
                && environment
                    .lines()
                    .any(|line| line == format!("OMPI_COMM_WORLD_RANK={rank}"))
        })
        .collect()
}

#[test]
fn a_rank_that_dies_ends_the_others_with_an_error_naming_it() {
    let Some(flags) = launcher() else {
        eprintln!("skipped: no mpirun");
        return;
    };
    if flags.is_empty() {
        eprintln!("skipped: the launcher is not Open MPI's (the test uses --enable-recovery)");
        return;
    }
    let dir = Scratch::new("mpi-run", "dead-rank");
    let program = dir.join("dead_rank.hlo");
    std::fs::write(&program, common::unbalanced(1)).expect("writes the program");
    let program = program.to_str().expect("UTF-8").to_string();
    // --enable-recovery: Open MPI would otherwise end the job itself when a
    // rank dies; this test is about what the surviving rank does.
    let mut job = Command::new("mpirun")
        .args(&flags)
        .args([
            "--enable-recovery",
            "-n",
            "2",
            weft(),
            "run",
            &program,
            "--timeout",
            "3",
        ])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    // Rank 1 spins from the start; kill it once it is running.
    let started = std::time::Instant::now();
    let victims = loop {
        let found = processes_of_rank(&program, 1);
        if !found.is_empty() || started.elapsed().as_secs() > 30 {
            break found;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(!victims.is_empty(), "rank 1 never started");
    std::thread::sleep(std::time::Duration::from_millis(500));
    for pid in &victims {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    let killed = std::time::Instant::now();
    // The collective timeout (3 s) plus the shutdown's patience (10 s),
    // with room for a loaded machine: a hang is what this test catches.
    while job.try_wait().expect("mpirun can be waited for").is_none() {
        if killed.elapsed().as_secs() > 60 {
            let _ = job.kill();
            panic!("the surviving rank hangs after rank 1 died");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let output = job.wait_with_output().expect("mpirun's output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("rank 1 has not been heard from for"),
        "{stderr}"
    );
    assert!(stderr.contains("its process died, or hangs"), "{stderr}");
}

/// Virtual time crosses ranks with the data: every device's figures on 2
/// ranks are those of one process, to the nanosecond.
#[test]
fn virtual_time_is_identical_on_ranks() {
    let Some(flags) = launcher() else {
        eprintln!("skipped: no mpirun");
        return;
    };
    let program = example("dp_train_step.hlo");
    let program = program.display().to_string();
    let arguments = [
        program.as_str(),
        "--link-bandwidth",
        "2",
        "--timing",
        "virtual",
        "--profile",
        "cpu-reference",
        "--format",
        "json",
    ];
    let figures = |stdout: &str| {
        let summary: serde_json::Value = serde_json::from_str(stdout).expect("a JSON summary");
        (
            summary["step_time_ms"].to_string(),
            summary["per_device"].to_string(),
        )
    };
    let single = figures(&succeeded("weft run", &alone(&arguments)));
    let ranks = figures(&succeeded("mpirun -n 2", &mpirun(&flags, 2, &arguments)));
    assert_eq!(ranks, single);
}

#![cfg(target_os = "linux")]
//! A long run keeps its memory: the timeline adds up what it needs for
//! the summary instead of keeping one event per executed instruction, and a
//! trace keeps only its first events. The reproducers of `../shared/repro`
//! (a 3-million-iteration loop, and one that never ends) run here and
//! their peak memory is measured.
//!
//! One test in this file: the peak memory of a test's children is the
//! process's, so nothing else may run beside it.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// A reproducer, or why the test skips.
fn repro(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/repro")
        .join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {} is absent (the shared reproducers sit beside the checkout)",
            path.display()
        );
        None
    }
}

/// The largest resident set of any child this process has waited for, in
/// MiB.
fn children_peak_mib() -> f64 {
    // SAFETY: getrusage fills one rusage through a valid pointer.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let status = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(status, 0, "getrusage");
    usage.ru_maxrss as f64 / 1024.0
}

#[test]
fn long_loops_run_in_bounded_memory() {
    let (Some(long), Some(endless)) = (
        repro("while_timeline_memory.hlo"),
        repro("while_infinite.hlo"),
    ) else {
        return;
    };
    // 3 million iterations on 2 devices: it used to keep 2.9 GB of events.
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .arg(&long)
        .args(["--devices", "2", "--timing", "virtual"])
        .output()
        .expect("weft runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("out0: s32[2] [3000000, 3000000]"), "{text}");
    eprintln!("3M iterations on 2 devices: {:?}", started.elapsed());
    // A loop that never ends, on 8 devices, stopped by its deadline: it
    // used to grow until the machine killed it.
    let output = Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .arg(&endless)
        .args(["--devices", "8", "--deadline", "3"])
        .output()
        .expect("weft runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("the run passed its deadline"), "{stderr}");
    // A trace of the long loop keeps its first events only.
    let scratch = common::Scratch::new("repro_memory", "trace");
    let trace = scratch.join("trace.json");
    let output = Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .arg(&long)
        .args(["--devices", "2", "--timing", "virtual", "--trace"])
        .arg(&trace)
        .args(["--trace-max-events", "20000"])
        .output()
        .expect("weft runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("the trace keeps the first 10000 events of each device"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&trace).expect("the trace was written");
    weft_runtime::devices::trace::check_nesting(&text).unwrap_or_else(|e| panic!("{e}"));
    let peak = children_peak_mib();
    assert!(peak < 150.0, "a child's peak memory was {peak:.0} MiB");
    assert!(started.elapsed() < Duration::from_secs(120));
}

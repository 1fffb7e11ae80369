//! Every input of the fuzz corpora (`fuzz/corpus/<target>/`, and any
//! findings kept under `fuzz/artifacts/`) through the command line: `fmt`,
//! `check` and `convert` end every one with exit status 0 or 1 — a result
//! or a located error — within seconds, never with a panic or a signal; and
//! what `convert` writes, `weft check` reads.
//! The fuzz targets check the library; this checks what a user runs, on
//! every change, in the test suite's time.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The corpus and artifact files, with whether each is StableHLO.
fn inputs() -> Vec<(PathBuf, bool)> {
    let fuzz = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut files = Vec::new();
    for folder in ["corpus", "artifacts"] {
        let Ok(targets) = std::fs::read_dir(fuzz.join(folder)) else {
            continue;
        };
        for target in targets.flatten() {
            let mlir = target.file_name().to_string_lossy().contains("mlir");
            let Ok(entries) = std::fs::read_dir(target.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry.path().is_file() {
                    files.push((entry.path(), mlir));
                }
            }
        }
    }
    files.sort();
    files
}

/// Runs `weft ARGS FILE` (its output to `out`, when given), killing it
/// after `bound`; the exit code, or why there is none.
fn run(
    arguments: &[&str],
    file: &Path,
    out: Option<&Path>,
    bound: Duration,
) -> Result<(i32, String), String> {
    let stdout = match out {
        Some(path) => Stdio::from(std::fs::File::create(path).map_err(|e| e.to_string())?),
        None => Stdio::null(),
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(arguments)
        .arg(file)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let mut stderr = String::new();
            if let Some(mut pipe) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
            }
            return match status.code() {
                Some(code) => Ok((code, stderr)),
                None => Err(format!("ended by a signal ({status})\n{stderr}")),
            };
        }
        if started.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {bound:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn every_fuzz_input_ends_cleanly_on_the_command_line() {
    let files = inputs();
    if files.is_empty() {
        eprintln!("skipped: no fuzz corpus under fuzz/");
        return;
    }
    let mut failures = Vec::new();
    let converted = std::env::temp_dir().join(format!("weft-fuzz-replay-{}", std::process::id()));
    for (file, mlir) in &files {
        let format = if *mlir { "mlir" } else { "hlo" };
        let convert_to = if *mlir { "hlo" } else { "stablehlo" };
        for arguments in [
            vec!["fmt", "--input-format", format],
            vec!["check", "--input-format", format],
            vec!["convert", "--to", convert_to, "--input-format", format],
        ] {
            let out = (arguments[0] == "convert").then_some(converted.as_path());
            match run(&arguments, file, out, Duration::from_secs(20)) {
                // What convert wrote must read again.
                Ok((0, _)) if out.is_some() => {
                    let check = ["check", "--input-format", convert_to];
                    match run(&check, &converted, None, Duration::from_secs(20)) {
                        Ok((0, _)) => {}
                        Ok((code, stderr)) => failures.push(format!(
                            "weft {} {}: what it wrote does not check (exit {code})\n{stderr}",
                            arguments.join(" "),
                            file.display()
                        )),
                        Err(why) => failures.push(format!(
                            "weft check on the conversion of {}: {why}",
                            file.display()
                        )),
                    }
                }
                Ok((0 | 1, stderr)) if !stderr.contains("panicked") => {}
                Ok((code, stderr)) => failures.push(format!(
                    "weft {} {}: exit {code}\n{stderr}",
                    arguments.join(" "),
                    file.display()
                )),
                Err(why) => failures.push(format!(
                    "weft {} {}: {why}",
                    arguments.join(" "),
                    file.display()
                )),
            }
        }
    }
    let _ = std::fs::remove_file(&converted);
    assert!(
        failures.is_empty(),
        "{} of {} inputs:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

//! XLA's own pass unit tests, run on weft's passes: every entry of the
//! shared corpus's `xla-passes/manifest.json` whose pass weft has goes
//! through `weft opt` with the test's configuration, and the corpus's fact
//! checker (`tools/check_pass_facts.py`) says which of the test's assertions
//! hold on weft's output. A test is *held* when all its facts hold; each
//! pass must hold at least 90% of its tests. The tests not held are listed.
//!
//! Skips, saying why, when the corpus, the checker or `python3` is absent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The passes checked here, with the share of tests each must hold.
const CHECKED: &[(&str, f64)] = &[
    ("async-collective-creator", 0.9),
    ("convert-async-collectives-to-sync", 0.9),
    ("latency-hiding-scheduler", 0.9),
    ("legalize-scheduling-annotations", 0.9),
    ("while-loop-trip-count-annotator", 0.9),
];

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// One option value as `--passes` text: lists comma-joined; an opcode
/// predicate `{"opcode":[…]}` as the opcode list and `{"not_opcode":[…]}` as
/// the list with each opcode prefixed by `!`.
fn option_text(value: &serde_json::Value) -> String {
    let list = |items: &[serde_json::Value], prefix: &str| {
        items
            .iter()
            .map(|item| match item {
                serde_json::Value::String(s) => format!("{prefix}{s}"),
                other => format!("{prefix}{other}"),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    match value {
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => list(items, ""),
        serde_json::Value::Object(map) => match (map.get("opcode"), map.get("not_opcode")) {
            (Some(serde_json::Value::Array(items)), None) => list(items, ""),
            (None, Some(serde_json::Value::Array(items))) => list(items, "!"),
            _ => value.to_string(),
        },
        other => other.to_string(),
    }
}

/// The `--passes` text for one pass and its configuration: options by the
/// config's field names (a nested `scheduler_config`'s fields given
/// directly); `prepasses` become the passes before it.
fn passes_text(pass: &str, config: &serde_json::Map<String, serde_json::Value>) -> String {
    let mut pipeline = Vec::new();
    if let Some(serde_json::Value::Array(prepasses)) = config.get("prepasses") {
        for prepass in prepasses {
            match prepass {
                serde_json::Value::String(name) => pipeline.push(name.clone()),
                serde_json::Value::Object(options) => {
                    let mut options = options.clone();
                    let name = options
                        .remove("pass")
                        .and_then(|name| name.as_str().map(str::to_string))
                        .expect("a prepass names its pass");
                    pipeline.push(passes_text(&name, &options));
                }
                other => panic!("a prepass is a name or an object, not {other}"),
            }
        }
    }
    let mut options = Vec::new();
    for (key, value) in config {
        match (key.as_str(), value) {
            ("prepasses", _) => {}
            ("scheduler_config", serde_json::Value::Object(fields)) => {
                for (field, value) in fields {
                    options.push(format!("{field}={}", option_text(value)));
                }
            }
            _ => options.push(format!("{key}={}", option_text(value))),
        }
    }
    if options.is_empty() {
        pipeline.push(pass.to_string());
    } else {
        pipeline.push(format!("{pass}{{{}}}", options.join(" ")));
    }
    pipeline.join(",")
}

#[test]
fn xla_pass_tests_hold_on_weft_passes() {
    let corpus = shared().join("corpus/xla-passes");
    let checker = shared().join("tools/check_pass_facts.py");
    let manifest_path = corpus.join("manifest.json");
    if !manifest_path.exists() || !checker.exists() {
        eprintln!(
            "skipped: {} or {} is absent",
            manifest_path.display(),
            checker.display()
        );
        return;
    }
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: python3 is not on PATH (the fact checker needs it)");
        return;
    }
    let manifest: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).expect("readable"))
            .expect("a JSON list");
    let out = std::env::temp_dir().join(format!("weft-pass-conformance-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut ran: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for entry in &manifest {
        let pass = entry["pass"].as_str().expect("a pass");
        if !CHECKED.iter().any(|(name, _)| *name == pass) {
            continue;
        }
        let test = entry["test"].as_str().expect("a test");
        let config = entry["config"].as_object().cloned().unwrap_or_default();
        let passes = passes_text(pass, &config);
        let output = Command::new(env!("CARGO_BIN_EXE_weft"))
            .arg("opt")
            .arg(corpus.join(entry["file"].as_str().expect("a file")))
            .arg("--passes")
            .arg(&passes)
            .arg("--verify-each")
            // XLA's tests FileCheck `HloModule::ToString()`, which no longer
            // prints operand shapes.
            .arg("--no-operand-shapes")
            .output()
            .expect("weft runs");
        let dir = out.join(pass);
        std::fs::create_dir_all(&dir).expect("writable temp dir");
        if output.status.success() {
            std::fs::write(dir.join(format!("{test}.out.hlo")), &output.stdout).expect("written");
        } else {
            assert_eq!(
                output.status.code(),
                Some(1),
                "{pass}/{test}: weft opt --passes '{passes}' did not fail cleanly: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            std::fs::write(dir.join(format!("{test}.out.err")), &output.stderr).expect("written");
        }
        ran.entry(pass.to_string())
            .or_default()
            .push(test.to_string());
    }
    let report_path = out.join("report.json");
    let mut checker_run = Command::new("python3");
    checker_run
        .arg(&checker)
        .arg(&manifest_path)
        .arg(&out)
        .arg("--json")
        .arg(&report_path)
        .arg("--filecheck")
        .arg("builtin");
    for (pass, _) in CHECKED {
        checker_run.arg("--pass").arg(pass);
    }
    let checked = checker_run.output().expect("python3 runs");
    let report: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap_or_else(|_| {
            panic!(
                "the checker wrote no report: {}",
                String::from_utf8_lossy(&checked.stderr)
            )
        }))
        .expect("a JSON report");
    // A test is held when every one of its facts holds.
    let mut held: BTreeMap<(String, String), bool> = BTreeMap::new();
    let mut why: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for fact in &report {
        let key = (
            fact["pass"].as_str().unwrap_or_default().to_string(),
            fact["test"].as_str().unwrap_or_default().to_string(),
        );
        let ok = fact["result"] == "pass";
        *held.entry(key.clone()).or_insert(true) &= ok;
        if !ok {
            why.entry(key).or_default().push(format!(
                "fact {} ({}): {}",
                fact["fact"],
                fact["kind"].as_str().unwrap_or_default(),
                fact["why"].as_str().unwrap_or_default()
            ));
        }
    }
    let mut failures = Vec::new();
    for (pass, share) in CHECKED {
        let tests = ran.get(*pass).cloned().unwrap_or_default();
        let held_count = tests
            .iter()
            .filter(|test| held.get(&(pass.to_string(), test.to_string())) == Some(&true))
            .count();
        eprintln!("{pass}: {held_count} of {} tests held", tests.len());
        for test in &tests {
            if let Some(reasons) = why.get(&(pass.to_string(), test.clone())) {
                eprintln!("  not held: {test}: {}", reasons.join("; "));
            }
        }
        if tests.is_empty() || (held_count as f64) < share * tests.len() as f64 {
            failures.push(format!(
                "{pass}: {held_count} of {} tests held, below {:.0}%",
                tests.len(),
                share * 100.0
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! `weft analyze`: buffers, live ranges and peak memory as a user reads
//! them, and the same facts as JSON.

use std::process::Command;

mod common;

use common::Scratch;

/// An all-reduce in flight while two layers compute: its operand stays
/// live until the done, and the peak is while it is in flight.
const PROGRAM: &str = "HloModule m, is_scheduled=true\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\nENTRY %main (p: f32[256]) -> f32[256] {\n  %p = f32[256] parameter(0)\n  %grad = f32[256] negate(%p)\n  %start = f32[256] all-reduce-start(%grad), replica_groups={{0,1}}, to_apply=%add\n  %h1 = f32[256] exponential(%p)\n  %h2 = f32[256] sqrt(%h1)\n  %done = f32[256] all-reduce-done(%start)\n  ROOT %out = f32[256] add(%done, %h2)\n}\n";

fn analyze(test: &str, args: &[&str]) -> (bool, String) {
    let scratch = Scratch::new("analyze_cli", test);
    let file = scratch.join("m.hlo");
    std::fs::write(&file, PROGRAM).expect("writable");
    let output = Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("analyze")
        .arg(&file)
        .args(args)
        .output()
        .expect("weft runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn the_operand_of_a_start_is_held_until_its_done() {
    let (ok, text) = analyze("memory", &["--memory"]);
    assert!(ok, "{text}");
    assert!(
        text.contains("Peak memory: 5.0 KiB (5120 bytes) at step 4 (%h2)"),
        "{text}"
    );
    assert!(
        text.contains("%start (all-reduce-start): steps 2 (%start) to 5 (%done)\n    reads     1.0 KiB  %grad{}\n    writes    1.0 KiB  %start{}"),
        "{text}"
    );
}

#[test]
fn liveness_lists_ranges_and_charts_live_bytes() {
    let (ok, text) = analyze("liveness", &["--liveness"]);
    assert!(ok, "{text}");
    // %grad: defined at step 1, read by the start at 2, held until the done at 5.
    assert!(
        text.contains("1.0 KiB             1             5  %grad{}"),
        "{text}"
    );
    assert!(text.contains("Live bytes over the schedule:"), "{text}");
    assert!(!text.contains("Peak memory"), "{text}");
}

#[test]
fn json_has_the_same_facts() {
    let (ok, text) = analyze("json", &["--format", "json"]);
    assert!(ok, "{text}");
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(value["peak_bytes"], 5120);
    assert_eq!(value["peak_instruction"], "h2");
    assert_eq!(value["async"][0]["from_step"], 2);
    assert_eq!(value["async"][0]["to_step"], 5);
}

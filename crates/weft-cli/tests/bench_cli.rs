//! `weft bench`: the report's fields and its errors.

use std::process::Command;

mod common;

use common::{Scratch, example};

/// The number after `"key": ` in a one-line JSON object.
fn field(json: &str, key: &str) -> f64 {
    let at = json
        .find(&format!("\"{key}\": "))
        .unwrap_or_else(|| panic!("no {key} in {json}"));
    let rest = &json[at + key.len() + 4..];
    let end = rest.find([',', '}']).expect("a number ends");
    rest[..end]
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{key} is not a number in {json}"))
}

#[test]
fn json_report_gives_first_and_median_parse() {
    let file = example("dp_train_step.hlo");
    let output = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["bench", "--json", "--repeat", "3", "--threads", "1"])
        .arg(&file)
        .output()
        .expect("weft runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let json = stdout.lines().last().expect("a report line");
    let text = std::fs::read_to_string(&file).expect("the example");
    assert_eq!(field(json, "lines") as usize, text.lines().count());
    assert_eq!(field(json, "bytes") as usize, text.len());
    assert_eq!(field(json, "threads"), 1.0);
    for key in ["first_parse_ms", "parse_ms", "print_ms", "verify_ms"] {
        assert!(field(json, key) > 0.0, "{key} in {json}");
    }
    assert!(field(json, "printed_bytes") > 0.0);
}

#[test]
fn table_report_has_a_column_per_phase() {
    let output = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["bench", "--repeat", "1"])
        .arg(example("dp_train_step.hlo"))
        .output()
        .expect("weft runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let mut lines = stdout.lines();
    let header = lines.next().expect("a header");
    for column in ["first ms", "parse ms", "print ms", "verify ms", "peak MB"] {
        assert!(header.contains(column), "{header}");
    }
    let row = lines.next().expect("a row");
    assert_eq!(
        row.split_whitespace().count(),
        header.split_whitespace().count() - 5,
        "one value per column (five names are two words)\n{header}\n{row}"
    );
}

#[test]
fn a_file_that_does_not_parse_fails_with_its_location() {
    let scratch = Scratch::new("bench", "bad");
    let file = scratch.join("bad.hlo");
    std::fs::write(
        &file,
        "HloModule m\n\nENTRY %e {\n  %p = f32[] parameter(0\n}\n",
    )
    .expect("write");
    let output = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["bench", "--json"])
        .arg(&file)
        .output()
        .expect("weft runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    assert!(stderr.contains("bad.hlo:5:1"), "{stderr}");
}

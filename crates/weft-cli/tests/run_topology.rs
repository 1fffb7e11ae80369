//! `weft run --topology`: collectives priced by their algorithm on a
//! topology. The flat topology under the ring algorithm charges exactly
//! what the flat link does; a slow inter-node link costs more; bad
//! topologies are refused with their column.

mod common;

use common::weft_uncalibrated;

use std::process::Output;

use serde_json::Value as Json;

/// `weft run` of the data-parallel example on 8 devices, virtual timing on
/// the tests' profile (unless `extra` names one), with `extra` flags.
fn run(extra: &[&str]) -> Output {
    let profile = match extra.iter().position(|&flag| flag == "--profile") {
        Some(at) => extra[at + 1].to_string(),
        None => format!(
            "{}/tests/data/test-profile.toml",
            env!("CARGO_MANIFEST_DIR")
        ),
    };
    let extra: Vec<&str> = match extra.iter().position(|&flag| flag == "--profile") {
        Some(at) => [&extra[..at], &extra[at + 2..]].concat(),
        None => extra.to_vec(),
    };
    weft_uncalibrated()
        .arg("run")
        .arg(common::example("dp_train_step.hlo"))
        .args(["--devices", "8", "--timing", "virtual", "--format", "json"])
        .args(["--profile", &profile])
        .args(&extra)
        .output()
        .expect("weft runs")
}

fn summary(extra: &[&str]) -> Json {
    let output = run(extra);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the summary is JSON")
}

fn transfer_ms(summary: &Json) -> f64 {
    summary["total"]["transfer_ms"].as_f64().expect("a number")
}

#[test]
fn the_flat_topology_charges_what_the_flat_link_does() {
    let plain = summary(&[]);
    let flat = summary(&["--topology", "flat"]);
    assert_eq!(plain["step_time_ms"], flat["step_time_ms"]);
    assert_eq!(plain["per_device"], flat["per_device"]);
    assert_eq!(flat["topology"], "flat:link=25GB/s,5us");
    assert_eq!(flat["collective_algorithm"], "ring");
    assert!(transfer_ms(&flat) > 0.0);
}

#[test]
fn a_slow_link_between_nodes_costs_more_than_the_flat_link() {
    let flat = summary(&["--link-bandwidth", "100", "--link-latency", "1"]);
    let nodes = summary(&["--topology", "nodes:4:intra=100GB/s,1us:inter=1GB/s,20us"]);
    assert!(
        transfer_ms(&nodes) > 2.0 * transfer_ms(&flat),
        "nodes {} ms, flat {} ms",
        transfer_ms(&nodes),
        transfer_ms(&flat)
    );
    // One node holding every device: only the fast link, a little more
    // than flat for the ring's per-step latencies.
    let one_node = summary(&["--topology", "nodes:8:intra=100GB/s,1us:inter=1GB/s,20us"]);
    assert!(transfer_ms(&one_node) < transfer_ms(&nodes));
    // The best algorithm is never slower than the ring.
    let best = summary(&[
        "--topology",
        "nodes:4:intra=100GB/s,1us:inter=1GB/s,20us",
        "--collective-algorithm",
        "best",
    ]);
    assert!(transfer_ms(&best) <= transfer_ms(&nodes));
}

#[test]
fn a_profile_brings_its_interconnect() {
    let h100 = summary(&["--profile", "h100-sxm", "--topology", "profile"]);
    assert_eq!(h100["timing"]["profile"], "h100-sxm");
    assert_eq!(
        h100["topology"],
        "nodes:8:intra=450GB/s,3us:inter=50GB/s,10us"
    );
    let tpu = summary(&["--profile", "tpu-v5e", "--topology", "profile"]);
    assert_eq!(tpu["topology"], "torus:16x16:link=50GB/s,1us");
}

#[test]
fn bad_topologies_are_refused_with_their_column() {
    let output = run(&["--topology", "nodes:x"]);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("(column 7)"), "{error}");
    assert!(error.contains("hint:"), "{error}");
    let small = run(&["--topology", "torus:2x2"]);
    assert!(!small.status.success());
    let error = String::from_utf8_lossy(&small.stderr);
    assert!(
        error.contains("holds 4 devices, fewer than the run's 8"),
        "{error}"
    );
    let no_interconnect = run(&["--topology", "profile"]);
    let error = String::from_utf8_lossy(&no_interconnect.stderr);
    assert!(error.contains("has no [interconnect]"), "{error}");
}

//! `weft calibrate`: it measures this machine into a profile that reads
//! back, that `weft run` and `weft simulate` take, and that the cache holds
//! as `cpu-local`. The rates themselves are this machine's: the tests check
//! their form, never their values.

mod common;

use std::process::Command;

use common::Scratch;
use weft_cost::Profile;
use weft_cost::work::NumberClass;

/// `weft` with its cache in `cache`.
fn weft_with_cache(cache: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
    command.env("WEFT_CACHE_DIR", cache);
    command
}

#[test]
fn a_calibrated_profile_reads_back_and_runs_a_program() {
    let scratch = Scratch::new("calibrate", "output");
    let path = scratch.join("local.toml");
    let output = weft_with_cache(&scratch.join("cache"))
        .args(["calibrate", "--repeat", "1", "-o"])
        .arg(&path)
        .output()
        .expect("weft runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("memory mountain"), "{stderr}");
    assert!(
        !scratch.join("cache").join("cpu-local.toml").exists(),
        "-o leaves the cache alone"
    );

    let text = std::fs::read_to_string(&path).expect("the profile was written");
    let profile = Profile::from_toml(&text).expect("the profile reads back");
    assert_eq!(profile.name, "cpu-local");
    assert!(profile.launch_overhead_us > 0.0, "{text}");
    for class in NumberClass::ALL {
        assert!(profile.matrix_gflop_per_s.of(class) > 0.0, "{text}");
        assert!(profile.vector_gop_per_s.of(class) > 0.0, "{text}");
    }
    if let Some(cache) = profile.cache {
        assert!(
            cache.bandwidth_gb_per_s > profile.memory_bandwidth_gb_per_s,
            "{text}"
        );
    }
    assert!(
        profile.interconnect.is_none(),
        "a core says nothing of links"
    );
    // The printed profile is the written one.
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), text.trim());

    for command in [&["run", "--timing", "virtual"][..], &["simulate"]] {
        let output = weft_with_cache(&scratch.join("cache"))
            .args(command)
            .arg(common::example("overlap_allreduce.async.hlo"))
            .arg("--profile")
            .arg(&path)
            .output()
            .expect("weft runs");
        let command = command[0];
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{command}: {stderr}");
        assert!(
            format!("{stdout}{stderr}").contains("profile cpu-local"),
            "{command}: {stdout}{stderr}"
        );
    }
}

#[test]
fn without_output_the_profile_is_cached_and_becomes_the_default() {
    let scratch = Scratch::new("calibrate", "cache");
    let cache = scratch.join("cache");
    common::succeeded(weft_with_cache(&cache).args(["calibrate", "--repeat", "1"]));
    assert!(cache.join("cpu-local.toml").exists());

    let list = weft_with_cache(&cache)
        .args(["calibrate", "--list"])
        .output()
        .expect("weft runs");
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(list.status.success());
    assert!(
        listed.contains("cpu-local  this machine, calibrated"),
        "{listed}"
    );
    for name in ["cpu-reference", "h100-sxm", "tpu-v5e"] {
        assert!(listed.contains(name), "{listed}");
    }

    let run = weft_with_cache(&cache)
        .arg("simulate")
        .arg(common::example("collective_matmul.hlo"))
        .output()
        .expect("weft runs");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(said.contains("profile cpu-local"), "{said}");
}

#[test]
fn a_repeat_out_of_range_is_refused() {
    let scratch = Scratch::new("calibrate", "repeat");
    let output = weft_with_cache(&scratch.join("cache"))
        .args(["calibrate", "--repeat", "0"])
        .output()
        .expect("weft runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--repeat"));
}

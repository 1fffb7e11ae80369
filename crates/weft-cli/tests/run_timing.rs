//! Virtual timing: the same program gives the same step time and the same
//! figures on every run and under any background load, and the figures
//! are the modelled machine's (the async example beats the sync one).
//! Traces keep the format's nesting rules, with flows and args.

mod common;

use common::{test_profile, weft_uncalibrated};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value as Json;

/// `weft run EXAMPLE --format json` with the default timing (virtual when
/// the 8 devices outnumber the cores, which the test asks for explicitly
/// on a machine with 8 cores or more).
fn summary(example: &str) -> Json {
    let cores = std::thread::available_parallelism().map_or(1, |p| p.get());
    let mut command = weft_uncalibrated();
    command.arg("run").arg(common::example(example)).args([
        "--format",
        "json",
        "--profile",
        &test_profile(),
    ]);
    if cores >= 8 {
        command.args(["--timing", "virtual"]);
    }
    let output = command.output().expect("weft runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the summary is JSON")
}

/// What must not change from run to run: the step time and every
/// device's figures, to the nanosecond.
fn figures(summary: &Json) -> (String, String) {
    (
        summary["step_time_ms"].to_string(),
        summary["per_device"].to_string(),
    )
}

/// Threads that keep `count` cores busy until dropped.
struct Load(Arc<AtomicBool>, Vec<std::thread::JoinHandle<()>>);

impl Load {
    fn new(count: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..count)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                        std::hint::black_box(x);
                    }
                })
            })
            .collect();
        Load(stop, threads)
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        for thread in self.1.drain(..) {
            let _ = thread.join();
        }
    }
}

#[test]
fn virtual_time_is_the_same_on_every_run_and_under_any_load() {
    let async_quiet = summary("overlap_allreduce.async.hlo");
    let sync_quiet = summary("overlap_allreduce.sync.hlo");
    assert_eq!(async_quiet["timing"]["mode"], "virtual");
    assert_eq!(async_quiet["timing"]["profile"], "test-device");
    assert_eq!(async_quiet["devices"], 8);
    for _ in 0..2 {
        assert_eq!(
            figures(&summary("overlap_allreduce.async.hlo")),
            figures(&async_quiet)
        );
    }
    let async_step = async_quiet["step_time_ms"].as_f64().expect("a step time");
    let sync_step = sync_quiet["step_time_ms"].as_f64().expect("a step time");
    assert!(
        async_step < sync_step,
        "the async example ({async_step} ms) must beat the sync one ({sync_step} ms)"
    );
    // The async all-reduce hides behind the matmuls; the sync one cannot.
    assert_eq!(async_quiet["per_device"][0]["exposed_ms"], 0.0);
    assert!(sync_quiet["per_device"][0]["exposed_ms"].as_f64() > Some(0.0));
    for threads in [2, 16] {
        let _load = Load::new(threads);
        assert_eq!(
            figures(&summary("overlap_allreduce.async.hlo")),
            figures(&async_quiet),
            "under {threads} threads of load"
        );
        assert_eq!(
            figures(&summary("overlap_allreduce.sync.hlo")),
            figures(&sync_quiet),
            "under {threads} threads of load"
        );
    }
}

#[test]
fn the_breakdown_adds_up() {
    let summary = summary("dp_train_step.hlo");
    for device in summary["per_device"].as_array().expect("devices") {
        let part = |name: &str| device[name].as_f64().expect("a figure");
        let parts = part("transfer_ms") + part("wait_ms") + part("host_ms");
        assert!(
            (parts - part("communication_ms")).abs() < 1e-6,
            "transfer + wait + host = communication: {device}"
        );
        assert!(part("exposed_ms") <= part("communication_ms") + 1e-9);
    }
    let collectives = summary["collectives"].as_array().expect("collectives");
    assert!(!collectives.is_empty());
    for collective in collectives {
        assert_eq!(collective["peers"], 8, "{collective}");
        assert!(collective["bytes_per_run"].as_f64() > Some(0.0));
    }
}

#[test]
fn the_collectives_report_names_each_collective() {
    let output = weft_uncalibrated()
        .arg("run")
        .arg(common::example("overlap_allreduce.async.hlo"))
        .args([
            "--collectives",
            "--timing",
            "virtual",
            "--profile",
            &test_profile(),
        ])
        .output()
        .expect("weft runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(text.contains("%all-reduce-start"), "{text}");
    assert!(text.contains("all-reduce-start (async)"), "{text}");
    assert!(text.contains("critical path: device"), "{text}");
    assert!(text.contains("   total "), "{text}");
}

/// Two all-reduces in flight at once on 4 devices, both with JAX names.
const TWO_IN_FLIGHT: &str = r#"HloModule two_in_flight, num_partitions=4

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (x: f32[256,256], y: f32[256,256]) -> (f32[256,256], f32[256,256], f32[256,256]) {
  %x = f32[256,256] parameter(0)
  %y = f32[256,256] parameter(1)
  %first = f32[256,256] all-reduce-start(f32[256,256] %x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%sum, metadata={op_name="jit(step)/psum[axes=('x',)]"}
  %second = f32[256,256] all-reduce-start(f32[256,256] %y), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%sum
  %work = f32[256,256] dot(f32[256,256] %x, f32[256,256] %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(step)/dot_general"}
  %first-done = f32[256,256] all-reduce-done(f32[256,256] %first)
  %second-done = f32[256,256] all-reduce-done(f32[256,256] %second)
  ROOT %out = (f32[256,256], f32[256,256], f32[256,256]) tuple(%first-done, %second-done, %work)
}
"#;

fn trace_of(program: &str, extra: &[&str]) -> Json {
    let scratch = common::Scratch::new("run_timing", &format!("trace{}", extra.len()));
    let source = scratch.join("program.hlo");
    let trace = scratch.join("trace.json");
    std::fs::write(&source, program).expect("writes");
    let output = weft_uncalibrated()
        .arg("run")
        .arg(&source)
        .arg("--trace")
        .arg(&trace)
        .args(["--profile", &test_profile()])
        .args(extra)
        .output()
        .expect("weft runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&trace).expect("the trace was written");
    weft_runtime::devices::trace::check_nesting(&text).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn a_trace_of_two_collectives_in_flight_keeps_the_nesting_rules() {
    for timing in ["virtual", "wall"] {
        let trace = trace_of(TWO_IN_FLIGHT, &["--timing", timing]);
        let events = trace["traceEvents"].as_array().expect("events");
        // Each in-flight all-reduce is an async track of its own.
        let begins: Vec<&Json> = events
            .iter()
            .filter(|e| e["ph"] == "b" && e["pid"] == 0)
            .collect();
        assert_eq!(begins.len(), 2, "{timing}");
        assert_ne!(begins[0]["id"], begins[1]["id"]);
        // In virtual time both are in flight at once.
        if timing == "virtual" {
            let end_of = |id: &Json| {
                events
                    .iter()
                    .find(|e| e["ph"] == "e" && &e["id"] == id)
                    .and_then(|e| e["ts"].as_f64())
                    .expect("an end")
            };
            let second_begin = begins[1]["ts"].as_f64().expect("ts");
            assert!(second_begin < end_of(&begins[0]["id"]));
        }
        // An arrow from each start to its done.
        let slice = |name: &str| {
            events
                .iter()
                .find(|e| e["ph"] == "X" && e["pid"] == 0 && e["name"] == name)
                .unwrap_or_else(|| panic!("no slice {name}"))
        };
        assert_eq!(slice("first")["flow_out"], true);
        assert_eq!(slice("first-done")["flow_in"], true);
        assert_eq!(slice("first")["bind_id"], slice("first-done")["bind_id"]);
        // Arrows between the members of each collective (on the async
        // stream's slices).
        let member_flows = events
            .iter()
            .filter(|e| {
                e["ph"] == "X"
                    && e["tid"] == 1
                    && e["bind_id"].as_str().is_some_and(|id| id.starts_with('c'))
            })
            .count();
        assert_eq!(member_flows, 2 * 4, "{timing}");
        // Args: shapes, bytes, op_name; peers and timing on collectives.
        let work = slice("work");
        assert_eq!(work["args"]["shape"], "f32[256,256]");
        assert_eq!(work["args"]["op_name"], "jit(step)/dot_general");
        assert_eq!(work["args"]["bytes"], 262144.0);
        assert_eq!(work["cat"], "compute");
        let stream = events
            .iter()
            .find(|e| e["ph"] == "X" && e["tid"] == 1 && e["name"] == "first")
            .expect("the stream ran the first all-reduce");
        assert_eq!(stream["args"]["peers"], serde_json::json!([0, 1, 2, 3]));
        assert_eq!(stream["args"]["op_name"], "jit(step)/psum[axes=('x',)]");
        assert!(stream["args"]["transfer_us"].as_f64() > Some(0.0));
    }
}

#[test]
fn a_trace_works_on_one_device_and_can_hide_trivial_ops() {
    let program = "HloModule one\nENTRY %e (a: f32[64]) -> (f32[64]) {\n  %a = f32[64] parameter(0)\n  %c = f32[] constant(2)\n  %b = f32[64] broadcast(%c), dimensions={}\n  %m = f32[64] multiply(%a, %b)\n  ROOT %t = (f32[64]) tuple(%m)\n}\n";
    let all = trace_of(program, &[]);
    let names = |trace: &Json| -> Vec<String> {
        trace["traceEvents"]
            .as_array()
            .expect("events")
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| e["name"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert!(names(&all).contains(&"m".to_string()));
    assert!(names(&all).contains(&"c".to_string()));
    let hidden = trace_of(program, &["--trace-hide-trivial"]);
    assert!(names(&hidden).contains(&"m".to_string()));
    assert!(!names(&hidden).contains(&"c".to_string()));
    assert!(!names(&hidden).contains(&"t".to_string()));
}

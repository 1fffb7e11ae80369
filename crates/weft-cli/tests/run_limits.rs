//! `weft run --max-iterations`, `--deadline` and `--timeout`: a loop that
//! never ends stops with an error naming the `while` and its line; a
//! deadline stops any run with where each device was — computing at which
//! instruction and loop iteration, or waiting at which collective; a
//! deadlock stops at once, never a device that merely computes long (on its
//! compute thread or its async stream); bad
//! values of every numeric flag are refused, naming the flag, the value and
//! the range.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod common;

use common::{Scratch, crossed, stuck, unbalanced, unbalanced_for, zero_input};

fn weft(scratch: &Scratch, program: &str, flags: &[&str]) -> Output {
    let file = scratch.join("program.hlo");
    std::fs::write(&file, program).expect("writable scratch");
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .arg(&file)
        .args(flags)
        .output()
        .expect("weft runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn max_iterations_names_the_loop_and_its_line() {
    let scratch = Scratch::new("run_limits", "max_iterations");
    let output = weft(
        &scratch,
        &unbalanced(0),
        &["--devices", "1", "--max-iterations", "1000"],
    );
    let text = stderr(&output);
    assert!(!output.status.success(), "{text}");
    assert!(
        text.contains("spin/%loop: this while loop's condition still held after 1000 iteration(s)"),
        "{text}"
    );
    assert!(
        text.contains("program.hlo:22:8"),
        "the while's line: {text}"
    );
}

#[test]
fn a_loop_within_the_limit_runs_to_its_end() {
    let scratch = Scratch::new("run_limits", "within_limit");
    let counted = unbalanced(0)
        .replace(
            "ROOT %forever = pred[] constant(true)",
            "%ten = s32[] constant(10)\n  ROOT %more = pred[] compare(%s, %ten), direction=LT",
        )
        .replace("replica_count=2", "replica_count=1")
        .replace("replica_groups={{0,1}}", "replica_groups={{0}}");
    // From 0 the loop runs exactly 10 iterations: the limit is not hit.
    let zero = zero_input(&scratch);
    let output = weft(
        &scratch,
        &counted,
        &[
            "--max-iterations",
            "10",
            "--inputs",
            zero.to_str().expect("utf-8 path"),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("[10]"));
}

#[test]
fn the_deadline_reports_where_each_device_is() {
    let scratch = Scratch::new("run_limits", "deadline");
    let started = std::time::Instant::now();
    let output = weft(
        &scratch,
        &unbalanced(0),
        &["--deadline", "0.5", "--timeout", "30"],
    );
    let text = stderr(&output);
    assert!(!output.status.success(), "{text}");
    assert!(
        started.elapsed().as_secs_f64() < 20.0,
        "stopped at the deadline, not the timeout"
    );
    assert!(
        text.contains("the run passed its deadline of 0.5 s"),
        "{text}"
    );
    assert!(text.contains("device 0: computing at "), "{text}");
    assert!(text.contains("of %loop"), "the loop iteration: {text}");
    assert!(text.contains("device 1: waiting at main/%total"), "{text}");
}

#[test]
fn bad_deadlines_are_refused() {
    let scratch = Scratch::new("run_limits", "bad_deadline");
    for bad in ["0", "-1", "inf", "NaN", "1e30", "soon"] {
        let output = weft(&scratch, &unbalanced(0), &[&format!("--deadline={bad}")]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "--deadline={bad}: {}",
            stderr(&output)
        );
    }
}

/// Runs `program(iterations)` from a zero input with a 1 s timeout,
/// doubling the iterations until the run takes at least 2 s: it must
/// succeed every time with `expected(iterations)` in its output. How many
/// iterations take that long depends on the machine.
fn computes_for_two_seconds(
    test: &str,
    program: impl Fn(u64) -> String,
    expected: impl Fn(u64) -> String,
) {
    let scratch = Scratch::new("run_limits", test);
    let zero = zero_input(&scratch);
    let zero = zero.to_str().expect("utf-8 path");
    let mut iterations: u64 = 1 << 20;
    let mut took = Duration::ZERO;
    for _ in 0..6 {
        let started = Instant::now();
        let output = weft(
            &scratch,
            &program(iterations),
            &["--timeout", "1", "--inputs", zero],
        );
        took = started.elapsed();
        assert!(
            output.status.success(),
            "{iterations} iterations, {took:?}: {}",
            stderr(&output)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains(&expected(iterations)), "{stdout}");
        if took >= Duration::from_secs(2) {
            break;
        }
        iterations *= 2;
    }
    assert!(took >= Duration::from_secs(2), "never computed long enough");
}

#[test]
fn a_device_computing_past_the_timeout_is_not_a_deadlock() {
    // Replica 0 computes while replica 1 waits at the all-reduce; both get
    // the sum: the loop's count and replica 1's 0.
    computes_for_two_seconds(
        "unbalanced",
        |iterations| unbalanced_for(0, iterations),
        |iterations| format!("[{iterations}, {iterations}]"),
    );
}

#[test]
fn a_deadlock_through_a_recv_is_found_at_once() {
    let scratch = Scratch::new("run_limits", "deadlock");
    let started = Instant::now();
    let output = weft(&scratch, &stuck(), &["--timeout", "60"]);
    let took = started.elapsed();
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    // Every device blocked on one process is certain: no timeout to sit out.
    assert!(took < Duration::from_secs(20), "{took:?}");
    // Headed `the run stalled` or `no message arrived`, as the all-reduce's
    // or the recv's wait gives up first.
    assert!(
        text.contains(": every unfinished device waits for another, so none can move"),
        "{text}"
    );
    assert!(
        text.contains(
            "device 0 (replica 0, partition 0) waits at ahead/%first (line 11, channel 1, instance 0)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "device 1 (replica 0, partition 1) waits at behind/%recv-done (line 18) for message 1 on channel 5 from device 0 to device 1"
        ),
        "{text}"
    );
}

#[test]
fn a_cycle_of_collectives_is_a_deadlock_found_at_once() {
    let scratch = Scratch::new("run_limits", "cycle");
    let started = Instant::now();
    let output = weft(&scratch, &crossed(), &["--timeout", "60"]);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(started.elapsed() < Duration::from_secs(20), "{text}");
    assert!(
        text.contains(
            "a deadlock: device 0 waits at ahead/%first (line 11, channel 1, instance 0, group {0,1}) for device 1, and device 1 waits at behind/%second.1 (line 17, channel 2, instance 0, group {0,1}) for device 0"
        ),
        "{text}"
    );
}

#[test]
fn bad_numbers_are_refused_with_the_flag_the_value_and_the_range() {
    let scratch = Scratch::new("run_limits", "bad_numbers");
    let cases = [
        ("--link-bandwidth", "0", "from 0.0001 to 1000000"),
        ("--link-bandwidth", "1e-6", "from 0.0001 to 1000000"),
        ("--link-bandwidth", "-1", "from 0.0001 to 1000000"),
        ("--link-latency", "-5", "from 0 to 1000000"),
        ("--timeout", "0", "from 0.001 to 1000000"),
        ("--timeout", "NaN", "from 0.001 to 1000000"),
        ("--repeat", "0", "from 1 to 1000000"),
        ("--devices", "-2", "from 1 to 4096"),
        ("--replicas", "0", "from 1 to 4096"),
        ("--partitions", "1.5", "from 1 to 4096"),
        ("--max-value-gib", "inf", "above 0 and at most 1048576"),
        ("--max-iterations", "0", "from 1 to"),
        ("--deadline", "-1", "above 0 and at most 1000000000"),
    ];
    for (flag, value, range) in cases {
        let started = Instant::now();
        let output = weft(&scratch, &unbalanced(0), &[flag, value]);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}: {text}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{flag} {value}"
        );
        assert!(
            text.contains(&format!("invalid value '{value}' for '{flag}")),
            "{flag} {value}: {text}"
        );
        assert!(text.contains(range), "{flag} {value}: {text}");
    }
}

#[test]
fn an_absurd_link_is_run_with_a_warning() {
    let scratch = Scratch::new("run_limits", "absurd_link");
    let output = weft(
        &scratch,
        &crossed(),
        &["--link-bandwidth", "1e6", "--deadline", "0.2"],
    );
    let text = stderr(&output);
    assert!(
        text.contains(
            "warning: --link-bandwidth 1000000: a 1 MiB transfer would take 0.001 us, as good as --link unpaced"
        ),
        "{text}"
    );
}

/// A wall-clock run sleeping through a long modelled transfer stops at its
/// deadline, not when the transfer would end, and says where each device
/// was: in the transfer of a synchronous collective, or at the done of an
/// async one.
#[test]
fn the_deadline_ends_a_modelled_transfer() {
    for (example, place) in [
        (
            "overlap_allreduce.sync.hlo",
            "in the link model's transfer at step/%all-reduce",
        ),
        (
            "overlap_allreduce.async.hlo",
            "waiting at step/%all-reduce-done (line 27) for its async operation",
        ),
    ] {
        let started = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_weft"))
            .arg("run")
            .arg(common::example(example))
            .args(["--timing", "wall", "--link-bandwidth", "0.0001"])
            .args(["--deadline", "1"])
            .output()
            .expect("weft runs");
        let text = stderr(&output);
        assert!(!output.status.success());
        assert!(
            text.contains("the run passed its deadline of 1 s"),
            "{text}"
        );
        assert!(text.contains(&format!("device 0: {place}")), "{text}");
        // The 8 MiB transfer would take 84 s.
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{example} took {:?}",
            started.elapsed()
        );
    }
}

/// Replica 1 hands its async stream a loop of `iterations` iterations and
/// then an all-reduce-start (channel 2), and waits at an all-reduce
/// (channel 3) on its compute thread; replica 0 waits at the done of its
/// own channel-2 start, which needs replica 1's stream. Every compute
/// thread waits, yet replica 1's stream computes: not a deadlock.
fn stream_computes(iterations: u64) -> String {
    format!(
        r#"HloModule stream_computes, replica_count=2

%sum (a: s32[], b: s32[]) -> s32[] {{
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %add = s32[] add(%a, %b)
}}

%cond (s: s32[]) -> pred[] {{
  %s = s32[] parameter(0)
  %limit = s32[] constant({iterations})
  ROOT %more = pred[] compare(%s, %limit), direction=LT
}}

%body (s: s32[]) -> s32[] {{
  %s = s32[] parameter(0)
  %one = s32[] constant(1)
  ROOT %next = s32[] add(%s, %one)
}}

%spin (x: s32[]) -> s32[] {{
  %x = s32[] parameter(0)
  ROOT %loop = s32[] while(%x), condition=%cond, body=%body
}}

%waits (x: s32[]) -> s32[] {{
  %x = s32[] parameter(0)
  %start = s32[] all-reduce-start(%x), channel_id=2, replica_groups={{{{0,1}}}}, to_apply=%sum
  %done = s32[] all-reduce-done(%start)
  ROOT %last = s32[] all-reduce(%done), channel_id=3, replica_groups={{{{0,1}}}}, to_apply=%sum
}}

%streams (y: s32[]) -> s32[] {{
  %y = s32[] parameter(0)
  %long = ((s32[]), s32[], s32[]) async-start(%y), calls=%spin
  %start.1 = s32[] all-reduce-start(%y), channel_id=2, replica_groups={{{{0,1}}}}, to_apply=%sum
  %last.1 = s32[] all-reduce(%y), channel_id=3, replica_groups={{{{0,1}}}}, to_apply=%sum
  %done.1 = s32[] all-reduce-done(%start.1)
  %spun = s32[] async-done(%long), calls=%spin
  ROOT %out = s32[] add(%last.1, %spun)
}}

ENTRY %main (x: s32[]) -> s32[] {{
  %x = s32[] parameter(0)
  %replica = u32[] replica-id()
  %zero = u32[] constant(0)
  %first = pred[] compare(%replica, %zero), direction=EQ
  ROOT %result = s32[] conditional(%first, %x, %x), true_computation=%waits, false_computation=%streams
}}
"#
    )
}

#[test]
fn a_device_whose_async_stream_computes_is_not_blocked() {
    // As long as the stream's loop runs, every compute thread waits.
    // Replica 1's result: the all-reduce of two zeros plus the loop's count.
    computes_for_two_seconds("stream_computes", stream_computes, |iterations| {
        format!("{iterations}]")
    });
}

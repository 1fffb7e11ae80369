//! One grid across several ranks, on the loopback transport: 2 ranks × 2
//! devices must give, bit for bit, what 4 devices in one process give
//! (collectives of every kind, groups inside and across ranks, async
//! starts, a ring of permutes, send/recv); a fault or a deadlock on one
//! rank must end the run on every rank with a clear error, never a hang.

use std::sync::Arc;
use std::time::{Duration, Instant};

use weft_ir::{Comp, ElementType, Module};
use weft_runtime::devices::feeds::InfeedQueues;
use weft_runtime::devices::remote::Cluster;
use weft_runtime::devices::transport::LoopbackTransport;
use weft_runtime::devices::{
    Grid, GridOptions, Link, run_grid_programs, run_grid_programs_on_ranks,
};
use weft_runtime::random::SplitMix64;
use weft_runtime::{Evaluation, RunError, Value};

/// Every collective kind, with groups spanning both ranks, groups within
/// one rank, a group in reverse order, and an s32 reduction.
const COLLECTIVES: &str = r#"HloModule collectives, num_partitions=4

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %a, f32[] %b)
}

%largest (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %max = s32[] maximum(s32[] %a, s32[] %b)
}

%sum_then_halve (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  %added = f32[] add(f32[] %a, f32[] %b)
  %half = f32[] constant(0.5)
  ROOT %halved = f32[] multiply(f32[] %added, f32[] %half)
}

ENTRY %main (x: f32[64,16], n: s32[8]) -> (f32[64,16], f32[64,16], f32[64,16], s32[8], f32[256,16], f32[16,16], f32[64,16], f32[64,16], f32[64,16]) {
  %x = f32[64,16] parameter(0)
  %n = s32[8] parameter(1)
  %everyone = f32[64,16] all-reduce(f32[64,16] %x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%sum
  %across = f32[64,16] all-reduce(f32[64,16] %x), channel_id=2, replica_groups={{0,2},{1,3}}, use_global_device_ids=true, to_apply=%sum
  %within = f32[64,16] all-reduce(f32[64,16] %x), channel_id=3, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%sum
  %largest = s32[8] all-reduce(s32[8] %n), channel_id=4, replica_groups={{3,2,1,0}}, use_global_device_ids=true, to_apply=%largest
  %gathered = f32[256,16] all-gather(f32[64,16] %x), channel_id=5, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}
  %scattered = f32[16,16] reduce-scatter(f32[64,16] %x), channel_id=6, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=%sum
  %exchanged = f32[64,16] all-to-all(f32[64,16] %x), channel_id=7, replica_groups={{0,1,2,3}}, dimensions={0}
  %ring = f32[64,16] collective-permute(f32[64,16] %x), channel_id=8, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  %halved = f32[64,16] all-reduce(f32[64,16] %x), channel_id=9, replica_groups={{1,0,3,2}}, use_global_device_ids=true, to_apply=%sum_then_halve
  ROOT %results = (f32[64,16], f32[64,16], f32[64,16], s32[8], f32[256,16], f32[16,16], f32[64,16], f32[64,16], f32[64,16]) tuple(f32[64,16] %everyone, f32[64,16] %across, f32[64,16] %within, s32[8] %largest, f32[256,16] %gathered, f32[16,16] %scattered, f32[64,16] %exchanged, f32[64,16] %ring, f32[64,16] %halved)
}
"#;

/// Async starts with compute between start and done; a loop whose body
/// runs a collective each iteration (a new instance each time).
const ASYNC: &str = r#"HloModule async_starts, num_partitions=4

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %a, f32[] %b)
}

%body (state: (s32[], f32[64,16])) -> (s32[], f32[64,16]) {
  %state = (s32[], f32[64,16]) parameter(0)
  %i = s32[] get-tuple-element((s32[], f32[64,16]) %state), index=0
  %v = f32[64,16] get-tuple-element((s32[], f32[64,16]) %state), index=1
  %one = s32[] constant(1)
  %next = s32[] add(s32[] %i, s32[] %one)
  %passed = f32[64,16] collective-permute(f32[64,16] %v), channel_id=4, source_target_pairs={{0,3},{3,1},{1,2},{2,0}}
  %summed = f32[64,16] all-reduce(f32[64,16] %passed), channel_id=5, replica_groups={{0,2},{1,3}}, use_global_device_ids=true, to_apply=%sum
  ROOT %out = (s32[], f32[64,16]) tuple(s32[] %next, f32[64,16] %summed)
}

%condition (state: (s32[], f32[64,16])) -> pred[] {
  %state = (s32[], f32[64,16]) parameter(0)
  %i = s32[] get-tuple-element((s32[], f32[64,16]) %state), index=0
  %three = s32[] constant(3)
  ROOT %less = pred[] compare(s32[] %i, s32[] %three), direction=LT
}

ENTRY %main (x: f32[64,16], w: f32[16,16]) -> (f32[64,16], f32[256,16], f32[64,16], f32[64,16], f32[64,16]) {
  %x = f32[64,16] parameter(0)
  %w = f32[16,16] parameter(1)
  %reduce-start = f32[64,16] all-reduce-start(f32[64,16] %x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%sum
  %gather-start = (f32[64,16], f32[256,16]) all-gather-start(f32[64,16] %x), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}
  %permute-start = (f32[64,16], f32[64,16], u32[], u32[]) collective-permute-start(f32[64,16] %x), channel_id=3, source_target_pairs={{0,2},{2,1},{1,3},{3,0}}
  %product = f32[64,16] dot(f32[64,16] %x, f32[16,16] %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %reduced = f32[64,16] all-reduce-done(f32[64,16] %reduce-start)
  %gathered = f32[256,16] all-gather-done((f32[64,16], f32[256,16]) %gather-start)
  %permuted = f32[64,16] collective-permute-done((f32[64,16], f32[64,16], u32[], u32[]) %permute-start)
  %zero = s32[] constant(0)
  %init = (s32[], f32[64,16]) tuple(s32[] %zero, f32[64,16] %x)
  %loop = (s32[], f32[64,16]) while((s32[], f32[64,16]) %init), condition=%condition, body=%body
  %looped = f32[64,16] get-tuple-element((s32[], f32[64,16]) %loop), index=1
  ROOT %results = (f32[64,16], f32[256,16], f32[64,16], f32[64,16], f32[64,16]) tuple(f32[64,16] %reduced, f32[256,16] %gathered, f32[64,16] %permuted, f32[64,16] %product, f32[64,16] %looped)
}
"#;

/// Two messages on one route, each device to the device two along (always
/// on the other rank), plus a route that stays within a rank.
const SEND_RECV: &str = r#"HloModule send_recv, num_partitions=4

ENTRY %main (x: f32[8], y: s32[3]) -> (f32[8], s32[3], f32[8]) {
  %x = f32[8] parameter(0)
  %y = s32[3] parameter(1)
  %ordering = token[] after-all()
  %recv-first = (f32[8], u32[], token[]) recv(token[] %ordering), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,2},{1,3},{2,0},{3,1}}"}
  %recv-second = (s32[3], u32[], token[]) recv(token[] %ordering), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,2},{1,3},{2,0},{3,1}}"}
  %recv-near = (f32[8], u32[], token[]) recv(token[] %ordering), channel_id=2, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0},{2,3},{3,2}}"}
  %send-first = (f32[8], u32[], token[]) send(f32[8] %x, token[] %ordering), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,2},{1,3},{2,0},{3,1}}"}
  %send-second = (s32[3], u32[], token[]) send(s32[3] %y, token[] %ordering), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,2},{1,3},{2,0},{3,1}}"}
  %send-near = (f32[8], u32[], token[]) send(f32[8] %x, token[] %ordering), channel_id=2, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0},{2,3},{3,2}}"}
  %first-done = (f32[8], token[]) recv-done((f32[8], u32[], token[]) %recv-first), channel_id=1
  %second-done = (s32[3], token[]) recv-done((s32[3], u32[], token[]) %recv-second), channel_id=1
  %near-done = (f32[8], token[]) recv-done((f32[8], u32[], token[]) %recv-near), channel_id=2
  %sent-first = token[] send-done((f32[8], u32[], token[]) %send-first), channel_id=1
  %sent-second = token[] send-done((s32[3], u32[], token[]) %send-second), channel_id=1
  %sent-near = token[] send-done((f32[8], u32[], token[]) %send-near), channel_id=2
  %first = f32[8] get-tuple-element((f32[8], token[]) %first-done), index=0
  %second = s32[3] get-tuple-element((s32[3], token[]) %second-done), index=0
  %near = f32[8] get-tuple-element((f32[8], token[]) %near-done), index=0
  ROOT %results = (f32[8], s32[3], f32[8]) tuple(f32[8] %first, s32[3] %second, f32[8] %near)
}
"#;

/// Device 3 runs `%idle`, which never joins the all-reduce and finishes;
/// or `%aside`, which waits for device 0 at another all-reduce: a deadlock
/// that spans the ranks.
const DEADLOCK: &str = r#"HloModule deadlock, num_partitions=4

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %a, f32[] %b)
}

%idle (x: f32[4]) -> f32[4] {
  ROOT %x = f32[4] parameter(0)
}

%aside (y: f32[4]) -> f32[4] {
  %y = f32[4] parameter(0)
  ROOT %paired = f32[4] all-reduce(f32[4] %y), channel_id=2, replica_groups={{0,3},{1},{2}}, use_global_device_ids=true, to_apply=%sum
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  ROOT %summed = f32[4] all-reduce(f32[4] %x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%sum
}
"#;

const GRID: Grid = Grid {
    replicas: 1,
    partitions: 4,
};

fn module(text: &str) -> Module {
    weft_ir::text::parse(text).unwrap_or_else(|d| panic!("{}", d.render("test", text)))
}

fn options(timeout: Duration) -> GridOptions {
    GridOptions {
        timeout,
        link: Link::UNPACED,
        interconnect: None,
        ..GridOptions::default()
    }
}

/// Seeded random arguments for every device: `shapes` per device.
fn arguments(shapes: &[(ElementType, &[i64])]) -> Vec<Vec<Value>> {
    (0..GRID.len())
        .map(|device| {
            let mut random = SplitMix64::new(1000 + device as u64);
            shapes
                .iter()
                .map(|&(elem, dims)| {
                    Value::Tensor(weft_runtime::random::tensor(&mut random, elem, dims))
                })
                .collect()
        })
        .collect()
}

/// Runs on `ranks` loopback ranks; each rank's outcome, by rank.
fn run_on_ranks(
    module: &Module,
    entries: &[Comp],
    arguments: &[Vec<Value>],
    options: GridOptions,
    ranks: usize,
    runs: usize,
) -> Vec<Vec<Result<Option<Vec<Evaluation>>, RunError>>> {
    let clusters: Vec<Arc<Cluster>> = LoopbackTransport::network(ranks)
        .into_iter()
        .map(|transport| Cluster::new(transport))
        .collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = clusters
            .iter()
            .map(|cluster| {
                let options = options.clone();
                scope.spawn(move || {
                    (0..runs)
                        .map(|_| {
                            run_grid_programs_on_ranks(
                                module,
                                GRID,
                                entries.to_vec(),
                                arguments.to_vec(),
                                InfeedQueues::default(),
                                options.clone(),
                                cluster,
                            )
                        })
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a rank does not panic"))
            .collect()
    })
}

/// Runs `text` in one process and on 2 ranks (twice, on the same
/// clusters) and checks every device's result is bit-identical.
fn agrees_across_ranks(text: &str, shapes: &[(ElementType, &[i64])]) {
    let module = module(text);
    let entries = vec![module.entry.expect("an entry"); GRID.len()];
    let arguments = arguments(shapes);
    let options = options(Duration::from_secs(20));
    let expected = run_grid_programs(
        &module,
        GRID,
        entries.clone(),
        arguments.clone(),
        InfeedQueues::default(),
        options.clone(),
    )
    .unwrap_or_else(|e| panic!("in one process: {e}"));
    let outcomes = run_on_ranks(&module, &entries, &arguments, options, 2, 2);
    for (rank, runs) in outcomes.into_iter().enumerate() {
        for (run, outcome) in runs.into_iter().enumerate() {
            let gathered = outcome.unwrap_or_else(|e| panic!("rank {rank} run {run}: {e}"));
            match (rank, gathered) {
                (0, Some(evaluations)) => {
                    assert_eq!(evaluations.len(), expected.len());
                    for (device, (ours, theirs)) in evaluations.iter().zip(&expected).enumerate() {
                        assert!(
                            ours.result == theirs.result,
                            "run {run}: device {device}'s result differs from the one-process run"
                        );
                    }
                }
                (0, None) => panic!("rank 0 gets every device's evaluation"),
                (_, Some(_)) => panic!("only rank 0 gets the evaluations"),
                (_, None) => {}
            }
        }
    }
}

#[test]
fn collectives_are_bit_identical_across_ranks() {
    agrees_across_ranks(
        COLLECTIVES,
        &[(ElementType::F32, &[64, 16]), (ElementType::S32, &[8])],
    );
}

#[test]
fn async_starts_and_loops_are_bit_identical_across_ranks() {
    agrees_across_ranks(
        ASYNC,
        &[(ElementType::F32, &[64, 16]), (ElementType::F32, &[16, 16])],
    );
}

#[test]
fn send_and_recv_cross_ranks_in_order() {
    agrees_across_ranks(
        SEND_RECV,
        &[(ElementType::F32, &[8]), (ElementType::S32, &[3])],
    );
}

#[test]
fn four_ranks_of_one_device_agree_too() {
    let module = module(COLLECTIVES);
    let entries = vec![module.entry.expect("an entry"); GRID.len()];
    let arguments = arguments(&[(ElementType::F32, &[64, 16]), (ElementType::S32, &[8])]);
    let options = options(Duration::from_secs(20));
    let expected = run_grid_programs(
        &module,
        GRID,
        entries.clone(),
        arguments.clone(),
        InfeedQueues::default(),
        options.clone(),
    )
    .expect("runs in one process");
    let mut outcomes = run_on_ranks(&module, &entries, &arguments, options, 4, 1);
    let evaluations = outcomes[0]
        .remove(0)
        .expect("runs on 4 ranks")
        .expect("rank 0 has the evaluations");
    for (ours, theirs) in evaluations.iter().zip(&expected) {
        assert!(ours.result == theirs.result);
    }
}

#[test]
fn a_fault_on_one_rank_ends_the_run_on_every_rank() {
    let module = module(DEADLOCK);
    let entries = vec![module.entry.expect("an entry"); GRID.len()];
    let mut arguments = arguments(&[(ElementType::F32, &[4])]);
    // Device 3 (on rank 1) gets no argument: it fails at once, while the
    // others wait at the all-reduce for it.
    arguments[3].clear();
    let started = Instant::now();
    let outcomes = run_on_ranks(
        &module,
        &entries,
        &arguments,
        options(Duration::from_secs(60)),
        2,
        1,
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the abort reached every rank long before the timeout"
    );
    for (rank, mut runs) in outcomes.into_iter().enumerate() {
        let error = match runs.remove(0) {
            Ok(_) => panic!("rank {rank} succeeded"),
            Err(error) => error,
        };
        assert_eq!(
            error.instruction.as_deref(),
            Some("device 3"),
            "rank {rank}: {error}"
        );
        assert!(
            error.message.contains("takes 1 argument(s), 0 given"),
            "rank {rank}: {error}"
        );
    }
}

#[test]
fn a_device_that_finished_fails_its_waiters_at_once() {
    let module = module(DEADLOCK);
    let main = module.entry.expect("an entry");
    let idle = module.comp_by_name("idle").expect("the idle computation");
    let entries = vec![main, main, main, idle];
    let arguments = arguments(&[(ElementType::F32, &[4])]);
    let started = Instant::now();
    let outcomes = run_on_ranks(
        &module,
        &entries,
        &arguments,
        options(Duration::from_secs(60)),
        2,
        1,
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "found long before the timeout"
    );
    for (rank, mut runs) in outcomes.into_iter().enumerate() {
        let error = runs.remove(0).expect_err("every rank fails");
        // Device 2 shares a rank with device 3, which it sees finish.
        assert_eq!(
            error.instruction.as_deref(),
            Some("device 2: main/%summed"),
            "rank {rank}: {error}"
        );
        assert!(
            error
                .message
                .contains("device 3 finished its program without reaching this collective"),
            "rank {rank}: {error}"
        );
    }
}

#[test]
fn a_deadlock_across_ranks_times_out_with_every_device_state() {
    let module = module(DEADLOCK);
    let main = module.entry.expect("an entry");
    let aside = module.comp_by_name("aside").expect("the aside computation");
    let entries = vec![main, main, main, aside];
    let arguments = arguments(&[(ElementType::F32, &[4])]);
    let started = Instant::now();
    let outcomes = run_on_ranks(
        &module,
        &entries,
        &arguments,
        options(Duration::from_millis(500)),
        2,
        1,
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    let mut errors: Vec<RunError> = outcomes
        .into_iter()
        .map(|mut runs| runs.remove(0).expect_err("every rank fails"))
        .collect();
    let report = errors.remove(0).message;
    assert!(report.contains("the run stalled"), "{report}");
    assert!(
        report.contains("device 0 (replica 0, partition 0) waits at main/%summed"),
        "{report}"
    );
    // Devices 2 and 3 are on rank 1: their states come from rank 1's report.
    assert!(
        report.contains("device 2 (replica 0, partition 2) waits at main/%summed"),
        "{report}"
    );
    assert!(
        report.contains("device 3 (replica 0, partition 3) waits at aside/%paired"),
        "{report}"
    );
    // Rank 1 gets the same verdict.
    assert_eq!(errors[0].message, report);
}

#[test]
fn ranks_must_divide_the_devices() {
    let module = module(DEADLOCK);
    let entries = vec![module.entry.expect("an entry"); GRID.len()];
    let arguments = arguments(&[(ElementType::F32, &[4])]);
    let outcomes = run_on_ranks(
        &module,
        &entries,
        &arguments,
        options(Duration::from_secs(5)),
        3,
        1,
    );
    for mut runs in outcomes {
        let error = runs.remove(0).expect_err("an error");
        assert!(
            error.message.contains("3 ranks cannot share 4 device(s)"),
            "{error}"
        );
    }
}

//! The scheduler on small modules: what it must move, what it must not.

use weft_ir::Module;

use super::{SchedulerConfig, latency_hiding_scheduler};
use crate::pass::Options;

fn parse(text: &str) -> Module {
    let module = weft_ir::text::parse(text).expect("parses");
    weft_ir::verify(&module).expect("verifies");
    module
}

fn options(pairs: &[(&str, &str)]) -> SchedulerConfig {
    let values = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), vec![v.to_string()]))
        .collect();
    SchedulerConfig::from_options(&Options::checked("lhs", values, super::OPTIONS).expect("valid"))
}

/// The entry's sequence, by name, after scheduling under `config`.
fn schedule(text: &str, config: &SchedulerConfig) -> Vec<String> {
    let mut module = parse(text);
    latency_hiding_scheduler(&mut module, config).expect("schedules");
    weft_ir::verify(&module).expect("still verifies");
    let entry = module.entry().unwrap();
    module
        .schedule()
        .sequence(entry)
        .unwrap()
        .iter()
        .map(|&i| module.instr(i).name.to_string())
        .collect()
}

fn at(sequence: &[String], name: &str) -> usize {
    sequence
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("{name} in {sequence:?}"))
}

const OVERLAP: &str = "HloModule m, is_scheduled=true

ENTRY e {
  p = f32[8,128] parameter(0)
  x = f32[16,64,256] parameter(1)
  y = f32[16,64,256] parameter(2)
  ags = (f32[8,128], f32[16,128]) all-gather-start(p), replica_groups={{0,1}}, dimensions={0}
  agd = f32[16,128] all-gather-done(ags)
  c = f32[16,256,256] convolution(x, y), window={size=16 stride=15 lhs_dilate=16}, dim_labels=0fb_0io->0fb
  ROOT t = (f32[16,128], f32[16,256,256]) tuple(agd, c)
}
";

#[test]
fn a_collective_is_spread_around_independent_compute() {
    let sequence = schedule(OVERLAP, &SchedulerConfig::default());
    assert!(at(&sequence, "ags") < at(&sequence, "c"), "{sequence:?}");
    assert!(at(&sequence, "c") < at(&sequence, "agd"), "{sequence:?}");
}

#[test]
fn top_down_scheduling_overlaps_too() {
    let config = options(&[("top_down_scheduling", "true")]);
    let sequence = schedule(OVERLAP, &config);
    assert!(at(&sequence, "ags") < at(&sequence, "c"), "{sequence:?}");
    assert!(at(&sequence, "c") < at(&sequence, "agd"), "{sequence:?}");
}

const TWO_GATHERS: &str = "HloModule m, is_scheduled=true

ENTRY e {
  p = f32[8,128] parameter(0)
  q = f32[8,128] parameter(1)
  x = f32[16,64,256] parameter(2)
  ags0 = (f32[8,128], f32[16,128]) all-gather-start(p), replica_groups={{0,1}}, dimensions={0}
  agd0 = f32[16,128] all-gather-done(ags0)
  ags1 = (f32[8,128], f32[16,128]) all-gather-start(q), replica_groups={{0,1}}, dimensions={0}
  agd1 = f32[16,128] all-gather-done(ags1)
  c = f32[16,256,256] convolution(x, x), window={size=16 stride=15 lhs_dilate=16}, dim_labels=0fb_0io->0fb
  ROOT t = (f32[16,128], f32[16,128], f32[16,256,256]) tuple(agd0, agd1, c)
}
";

fn most_in_flight(sequence: &[String]) -> i32 {
    let (mut now, mut most) = (0, 0);
    for name in sequence {
        if name.starts_with("ags") {
            now += 1;
            most = most.max(now);
        } else if name.starts_with("agd") {
            now -= 1;
        }
    }
    most
}

#[test]
fn the_overlap_limit_bounds_collectives_in_flight() {
    // XLA's algorithm alone (refine=false) keeps to the limits it is given.
    let one = schedule(TWO_GATHERS, &options(&[("refine", "false")]));
    assert_eq!(most_in_flight(&one), 1, "{one:?}");
    let two = schedule(
        TWO_GATHERS,
        &options(&[("all_gather_overlap_limit", "2"), ("refine", "false")]),
    );
    assert_eq!(most_in_flight(&two), 2, "{two:?}");
}

#[test]
fn control_edges_are_kept() {
    // The control edge forbids the overlap the scheduler would otherwise make.
    let text = OVERLAP.replace(
        "dim_labels=0fb_0io->0fb\n",
        "dim_labels=0fb_0io->0fb, control-predecessors={agd}\n",
    );
    let sequence = schedule(&text, &SchedulerConfig::default());
    assert!(at(&sequence, "agd") < at(&sequence, "c"), "{sequence:?}");
}

#[test]
fn a_scheduling_group_is_placed_as_one() {
    // Two convolutions; the group says the gather overlaps `c1`, not `c0`.
    let text = "HloModule m, is_scheduled=true

ENTRY e {
  p = f32[8,128] parameter(0)
  x = f32[16,64,256] parameter(1)
  ags = (f32[8,128], f32[16,128]) all-gather-start(p), replica_groups={{0,1}}, dimensions={0}, frontend_attributes={_scheduling_group_id=\"1\"}
  agd = f32[16,128] all-gather-done(ags), frontend_attributes={_scheduling_group_id=\"1\"}
  c0 = f32[16,256,256] convolution(x, x), window={size=16 stride=15 lhs_dilate=16}, dim_labels=0fb_0io->0fb
  c1 = f32[16,256,256] convolution(x, x), window={size=16 stride=15 lhs_dilate=16}, dim_labels=0fb_0io->0fb, frontend_attributes={_scheduling_group_id=\"1\"}
  ROOT t = (f32[16,128], f32[16,256,256], f32[16,256,256]) tuple(agd, c0, c1)
}
";
    let sequence = schedule(text, &SchedulerConfig::default());
    let (start, done) = (at(&sequence, "ags"), at(&sequence, "agd"));
    assert!(
        start < at(&sequence, "c1") && at(&sequence, "c1") < done,
        "{sequence:?}"
    );
    let c0 = at(&sequence, "c0");
    assert!(c0 < start || c0 > done, "{sequence:?}");
}

#[test]
fn an_unscheduled_module_is_refused_with_a_hint() {
    let mut module = parse(&OVERLAP.replace(", is_scheduled=true", ""));
    let error = latency_hiding_scheduler(&mut module, &SchedulerConfig::default()).unwrap_err();
    assert_eq!(error.message, "the module is not scheduled");
    assert!(error.hint.unwrap().contains("hlo-memory-scheduler"));
}

#[test]
fn a_module_without_async_ops_is_left_alone() {
    let text = "HloModule m, is_scheduled=true

ENTRY e {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}
";
    let mut module = parse(text);
    let outcome = latency_hiding_scheduler(&mut module, &SchedulerConfig::default()).unwrap();
    assert!(outcome.is_none());
}

#[test]
fn every_async_op_says_why_it_is_where_it_is() {
    let mut module = parse(OVERLAP);
    let report = latency_hiding_scheduler(&mut module, &SchedulerConfig::default())
        .unwrap()
        .unwrap();
    let (_, placements) = &report.computations[0];
    let reason = |name: &str| {
        placements
            .iter()
            .find(|p| module.instr(p.instr).name == name)
            .map(|p| p.reason)
            .unwrap()
    };
    // Bottom-up, the done goes first (as late as possible in the program).
    assert_eq!(reason("agd"), "kScheduleDone");
    assert!(report.peak_bytes > 0);
}

#[test]
fn a_buffer_reader_stays_ahead_of_the_transfer_that_overwrites_it() {
    // The permute's result becomes the next iteration's first element: the
    // buffer `m` reads. Its start, which would otherwise go as early as its
    // operand allows, must wait until `m` has read.
    let text = "HloModule m, is_scheduled=true

cond {
  s = (f32[8], f32[8], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=2
  k = s32[] constant(4)
  ROOT lt = pred[] compare(i, k), direction=LT
}

body {
  s = (f32[8], f32[8], s32[]) parameter(0)
  v = f32[8] get-tuple-element(s), index=0
  u = f32[8] get-tuple-element(s), index=1
  i = s32[] get-tuple-element(s), index=2
  n = f32[8] negate(u)
  m = f32[8] abs(v)
  cps = (f32[8], f32[8]) collective-permute-start(n), source_target_pairs={{0,1},{1,0}}
  cpd = f32[8] collective-permute-done(cps)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (f32[8], f32[8], s32[]) tuple(cpd, m, j)
}

ENTRY e {
  p = f32[8] parameter(0)
  z = s32[] constant(0)
  t = (f32[8], f32[8], s32[]) tuple(p, p, z)
  w = (f32[8], f32[8], s32[]) while(t), condition=cond, body=body
  ROOT g = f32[8] get-tuple-element(w), index=0
}
";
    let mut module = parse(text);
    latency_hiding_scheduler(&mut module, &options(&[("refine", "false")])).unwrap();
    weft_ir::verify(&module).unwrap();
    let body = module.comp_by_name("body").unwrap();
    let sequence: Vec<String> = module
        .schedule()
        .sequence(body)
        .unwrap()
        .iter()
        .map(|&i| module.instr(i).name.to_string())
        .collect();
    assert!(at(&sequence, "m") < at(&sequence, "cps"), "{sequence:?}");
    // Assuming copy insertion gives the loop state its own storage (as XLA
    // runs it before its scheduler), the start may go first.
    let mut copied = parse(text);
    latency_hiding_scheduler(
        &mut copied,
        &options(&[("assume_copy_insertion", "true"), ("refine", "false")]),
    )
    .unwrap();
    let body = copied.comp_by_name("body").unwrap();
    let sequence: Vec<String> = copied
        .schedule()
        .sequence(body)
        .unwrap()
        .iter()
        .map(|&i| copied.instr(i).name.to_string())
        .collect();
    assert!(at(&sequence, "cps") < at(&sequence, "m"), "{sequence:?}");
}

const WRITTEN_WINDOW: &str = "HloModule m, is_scheduled=true

ENTRY e {
  p = f32[8,128] parameter(0)
  x = f32[16,64,256] parameter(1)
  ags0 = (f32[8,128], f32[16,128]) all-gather-start(p), replica_groups={{0,1}}, dimensions={0}
  a = f32[8,128] negate(p)
  agd0 = f32[16,128] all-gather-done(ags0)
  c0 = f32[16,256,256] convolution(x, x), window={size=16 stride=15 lhs_dilate=16}, dim_labels=0fb_0io->0fb
  ags1 = (f32[8,128], f32[16,128]) all-gather-start(a), replica_groups={{0,1}}, dimensions={0}
  agd1 = f32[16,128] all-gather-done(ags1)
  c1 = f32[16,256,256] convolution(x, x), window={size=16 stride=15 lhs_dilate=16}, dim_labels=0fb_0io->0fb
  ROOT t = (f32[16,128], f32[16,128], f32[16,256,256], f32[16,256,256]) tuple(agd0, agd1, c0, c1)
}
";

#[test]
fn a_pinned_computation_keeps_its_written_order_and_moves_only_open_pairs() {
    let unpinned = schedule(WRITTEN_WINDOW, &SchedulerConfig::default());
    // Free to choose, the scheduler overlaps the first gather with `c0`.
    assert!(at(&unpinned, "c0") < at(&unpinned, "agd0"), "{unpinned:?}");
    for config in [
        options(&[("pin_written_order", "true")]),
        SchedulerConfig::default(),
    ] {
        let text = if config.pin_written_order {
            WRITTEN_WINDOW.to_string()
        } else {
            WRITTEN_WINDOW.replace(
                "tuple(agd0, agd1, c0, c1)",
                "tuple(agd0, agd1, c0, c1), frontend_attributes={_weft_pin_order=\"true\"}",
            )
        };
        let pinned = schedule(&text, &config);
        // The written window stays as written ...
        assert!(at(&pinned, "ags0") < at(&pinned, "a"), "{pinned:?}");
        assert!(at(&pinned, "a") < at(&pinned, "agd0"), "{pinned:?}");
        assert!(at(&pinned, "agd0") < at(&pinned, "c0"), "{pinned:?}");
        assert!(at(&pinned, "c0") < at(&pinned, "c1"), "{pinned:?}");
        // ... and the pair written back to back opens around `c1`.
        assert!(at(&pinned, "ags1") < at(&pinned, "c1"), "{pinned:?}");
        assert!(at(&pinned, "c1") < at(&pinned, "agd1"), "{pinned:?}");
    }
}

#[test]
fn the_analytic_estimator_prices_work_and_transfers_from_the_cost_model() {
    let module = parse(OVERLAP);
    let config = SchedulerConfig::default();
    assert_eq!(config.estimator, super::EstimatorKind::Analytic);
    let estimator = super::make_estimator(&config).unwrap();
    let find = |name: &str| {
        module
            .all_instrs()
            .find(|&i| module.instr(i).name == name)
            .unwrap()
    };
    // The convolution's modelled time, in microseconds, is what the
    // profile says its work takes.
    let profile = weft_cost::Profile::built_in(weft_cost::profile::REFERENCE).unwrap();
    let expected = profile
        .time(&weft_cost::work::of(&module, find("c")))
        .as_secs_f64()
        * 1e6;
    assert!((estimator.node_cost(&module, find("c")) - expected).abs() < 1e-9);
    assert_eq!(estimator.node_cost(&module, find("ags")), 0.0);
    // The gather's edge waits the flat link's time for what a member
    // receives: 5 µs plus 4 KiB at 25 GB/s.
    let latency = estimator.latency_between(&module, find("ags"), find("agd"));
    assert!(
        (latency - (5.0 + 4096.0 / 25e9 * 1e6)).abs() < 1e-3,
        "{latency}"
    );
    assert_eq!(
        estimator.latency_between(&module, find("p"), find("ags")),
        0.0
    );
}

#[test]
fn a_bad_profile_or_topology_is_a_clear_error() {
    let mut module = parse(OVERLAP);
    let error =
        latency_hiding_scheduler(&mut module, &options(&[("profile", "no-such")])).unwrap_err();
    assert!(
        error.message.contains("no profile named `no-such`"),
        "{}",
        error.message
    );
    let error =
        latency_hiding_scheduler(&mut module, &options(&[("topology", "torus:4y4")])).unwrap_err();
    assert!(error.message.contains("the topology"), "{}", error.message);
}

#[test]
fn weft_default_is_never_slower_than_the_configured_run_and_keeps_memory_bounded() {
    let mut configured = parse(TWO_GATHERS);
    let mut refined = parse(TWO_GATHERS);
    let xla = options(&[("refine", "false")]);
    latency_hiding_scheduler(&mut configured, &xla).unwrap();
    let report = latency_hiding_scheduler(&mut refined, &SchedulerConfig::default())
        .unwrap()
        .unwrap();
    let config = SchedulerConfig::default();
    let estimator = super::make_estimator(&config).unwrap();
    let counter = super::resources::ResourceCounter::new(&config);
    let time = |module: &Module| {
        let entry = module.entry().unwrap();
        let sequence = module.schedule().sequence(entry).unwrap().to_vec();
        super::timeline::estimate(module, &sequence, &estimator, &counter, false)
    };
    assert!(time(&refined) <= time(&configured));
    // Two gathers queue on the async stream while the convolution runs.
    let entry = refined.entry().unwrap();
    let names: Vec<String> = refined
        .schedule()
        .sequence(entry)
        .unwrap()
        .iter()
        .map(|&i| refined.instr(i).name.to_string())
        .collect();
    assert_eq!(most_in_flight(&names), 2, "{names:?}");
    let chosen = report
        .remarks
        .iter()
        .find(|r| r.contains("chosen:"))
        .unwrap();
    assert!(chosen.contains("transfers queued"), "{chosen}");
    // A memory limit below what queueing needs keeps one in flight.
    let tight = options(&[("memory_limit", "1")]);
    let mut limited = parse(TWO_GATHERS);
    latency_hiding_scheduler(&mut limited, &tight).unwrap();
    weft_ir::verify(&limited).unwrap();
}

/// An unrolled stack of `layers` FSDP layers: each gathers its weight shard
/// and multiplies by it, the next layer using the product.
fn unrolled_layers(layers: usize) -> String {
    let mut text = String::from(
        "HloModule layers, num_partitions=8\n\nENTRY e {\n  h0 = f32[64,512] parameter(0)\n",
    );
    for layer in 0..layers {
        text.push_str(&format!(
            "  w{layer} = f32[64,512] parameter({})\n  g{layer} = f32[512,512] all-gather(w{layer}), channel_id={}, replica_groups={{{{0,1,2,3,4,5,6,7}}}}, use_global_device_ids=true, dimensions={{0}}\n  h{} = f32[64,512] dot(h{layer}, g{layer}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n",
            layer + 1,
            layer + 1,
            layer + 1,
        ));
    }
    text.push_str(&format!("  ROOT out = f32[64,512] negate(h{layers})\n}}\n"));
    text
}

#[test]
fn hiding_latency_in_unrolled_layers_keeps_memory_near_the_memory_schedule() {
    let prepare = || {
        let mut module = parse(&unrolled_layers(12));
        let passes = crate::registry::build(
            "async-collective-creator{convert=all-gather},hlo-memory-scheduler",
        )
        .unwrap();
        crate::Pipeline::new(passes)
            .run(&mut module, &Default::default())
            .unwrap();
        module
    };
    let peak = |module: &Module| {
        let flow = crate::analysis::dataflow::Dataflow::of(module);
        let aliases = crate::analysis::alias::Aliases::of(module, &flow);
        crate::passes::hlo_memory_scheduler::peak_bytes(module, &flow, &aliases)
    };
    let memory_scheduled = peak(&prepare());
    // XLA's algorithm allowed many gathers in flight starts them all early:
    // every layer's gathered weight is live at once.
    let mut xla = prepare();
    latency_hiding_scheduler(
        &mut xla,
        &options(&[("all_gather_overlap_limit", "16"), ("refine", "false")]),
    )
    .unwrap();
    assert!(
        peak(&xla) as f64 > 3.0 * memory_scheduled as f64,
        "{} against {memory_scheduled}",
        peak(&xla)
    );
    // weft's default under the same limit stays within 1.2x.
    let mut weft = prepare();
    latency_hiding_scheduler(&mut weft, &options(&[("all_gather_overlap_limit", "16")])).unwrap();
    weft_ir::verify(&weft).unwrap();
    assert!(
        peak(&weft) as f64 <= 1.2 * memory_scheduled as f64,
        "{} against {memory_scheduled}",
        peak(&weft)
    );
}

const CONTENDING: &str = "HloModule contend, num_partitions=8, is_scheduled=true

ENTRY e {
  shard = f32[512,4096] parameter(0)
  x = f32[4096,4096] parameter(1)
  y = f32[4096,4096] parameter(2)
  gathered-start = (f32[512,4096], f32[4096,4096]) all-gather-start(shard), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, dimensions={0}
  gathered = f32[4096,4096] all-gather-done(gathered-start)
  sum = f32[4096,4096] add(x, y)
  product = f32[4096,4096] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[4096,4096], f32[4096,4096], f32[4096,4096]) tuple(gathered, sum, product)
}
";

#[test]
fn beside_a_transfer_compute_bound_work_goes_first() {
    // On a GPU profile the gather takes a share of the memory bandwidth
    // while it flies: the streaming add beside it slows, the dot does not.
    let xla = schedule(
        CONTENDING,
        &options(&[("profile", "h100-sxm"), ("refine", "false")]),
    );
    assert!(at(&xla, "sum") < at(&xla, "product"), "{xla:?}");
    for config in [
        options(&[
            ("profile", "h100-sxm"),
            ("refine", "false"),
            ("contention_aware", "true"),
        ]),
        options(&[("profile", "h100-sxm")]),
    ] {
        let weft = schedule(CONTENDING, &config);
        assert!(at(&weft, "product") < at(&weft, "sum"), "{weft:?}");
        assert!(
            at(&weft, "gathered-start") < at(&weft, "product"),
            "{weft:?}"
        );
    }
    let config = options(&[("profile", "h100-sxm")]);
    let estimator = super::make_estimator(&config).unwrap();
    let module = parse(CONTENDING);
    let find = |name: &str| {
        module
            .all_instrs()
            .find(|&i| module.instr(i).name == name)
            .unwrap()
    };
    assert!(estimator.contention(&module, find("sum")) > 0.0);
    assert_eq!(estimator.contention(&module, find("product")), 0.0);
    assert!(estimator.transfer_share(&module, find("gathered-start")) > 0.0);
}

//! Async starts really run while the device computes, and sync collectives
//! really block it: checked on the order of the timeline's events, not on
//! how long anything took, so the test holds on a busy machine.
//!
//! Every program below exchanges data over a link whose latency is 300 ms.
//! Between an async start and its done a device runs cheap instructions: in
//! the timeline they must all end before the async operation does (the
//! device computed while the data was in flight), and the done must be
//! where the device waited. A synchronous collective instead holds the
//! compute stream: what follows it starts only after it ended. Every check
//! holds under wall-clock timing and under virtual timing alike.

use std::time::Duration;

use weft_runtime::Value;
use weft_runtime::devices::clock::Timing;
use weft_runtime::devices::timeline::{DeviceTimeline, Event, Track};
use weft_runtime::devices::{Grid, GridOptions, Link, run_grid};

const LATENCY: Duration = Duration::from_millis(300);

/// The program's module and each device's timeline, once per timing.
fn runs(text: &str) -> Vec<(weft_ir::Module, Vec<DeviceTimeline>)> {
    let profile = weft_cost::Profile::built_in(weft_cost::profile::REFERENCE).expect("built in");
    [Timing::Wall, Timing::Virtual(std::sync::Arc::new(profile))]
        .into_iter()
        .map(|timing| run(text, timing))
        .collect()
}

fn run(text: &str, timing: Timing) -> (weft_ir::Module, Vec<DeviceTimeline>) {
    let module = weft_ir::text::parse(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
    weft_ir::verify(&module).expect("the program verifies");
    let grid = Grid {
        replicas: 1,
        partitions: 2,
    };
    let arguments = (0..2)
        .map(|device| {
            vec![Value::Tensor(weft_runtime::random::tensor(
                &mut weft_runtime::random::SplitMix64::new(device),
                weft_ir::ElementType::F32,
                &[64],
            ))]
        })
        .collect();
    let options = GridOptions {
        link: Link {
            bandwidth: Some(25e9),
            latency: LATENCY,
        },
        timeout: Duration::from_secs(30),
        timing,
        ..GridOptions::default()
    };
    let timelines = run_grid(&module, grid, arguments, options)
        .expect("the program runs")
        .into_iter()
        .map(|evaluation| evaluation.timeline)
        .collect();
    (module, timelines)
}

fn event<'t>(
    module: &weft_ir::Module,
    timeline: &'t DeviceTimeline,
    track: Track,
    name: &str,
) -> &'t Event {
    timeline
        .events
        .iter()
        .find(|e| e.track == track && module.instr(e.instr).name == name)
        .unwrap_or_else(|| panic!("no {track:?} event {name} in {:#?}", timeline.events))
}

fn end(event: &Event) -> Duration {
    event.start + event.duration
}

/// The instructions between start and done ran while the async operation
/// was in flight, and the device waited at the done.
fn assert_overlapped(text: &str, start: &str, done: &str, work: &[&str]) {
    for (module, timelines) in runs(text) {
        assert_overlapped_in(&module, &timelines, start, done, work);
    }
}

fn assert_overlapped_in(
    module: &weft_ir::Module,
    timelines: &[DeviceTimeline],
    start: &str,
    done: &str,
    work: &[&str],
) {
    for (device, timeline) in timelines.iter().enumerate() {
        let span = &timeline.async_spans[0];
        assert_eq!(module.instr(span.start).name, start);
        let in_flight = event(module, timeline, Track::Async, start);
        assert!(
            span.ready - span.started >= LATENCY.mul_f64(0.9),
            "device {device}: the async operation took {:?}, less than the link's latency",
            span.ready - span.started
        );
        for name in work {
            let computed = event(module, timeline, Track::Compute, name);
            assert!(
                computed.start >= span.started && end(computed) < span.ready,
                "device {device}: {name} ({:?} to {:?}) did not run while {start} was in flight ({:?} to {:?})",
                computed.start,
                end(computed),
                span.started,
                span.ready
            );
        }
        let waited = event(module, timeline, Track::Compute, done);
        assert!(
            end(waited) >= end(in_flight),
            "device {device}: {done} ended before the operation it waits for"
        );
        assert_eq!(
            span.done.map(|(done, _)| module.instr(done).name.as_str()),
            Some(done)
        );
        // The device waited only for what was still in flight (the
        // instructions in between take microseconds, so nearly all of it).
        // Wall-clock figures on a loaded machine wobble by a few
        // milliseconds: 1 ms plus 2% of the communication is the noise.
        let figures = timeline.figures();
        let noise = Duration::from_millis(1) + figures.communication.mul_f64(0.02);
        assert!(
            figures.exposed <= figures.communication + noise,
            "device {device}: {:?} exposed of {:?} communication",
            figures.exposed,
            figures.communication
        );
        assert!(in_flight.duration <= span.ready - span.started);
    }
}

const SUM: &str = "%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %a, f32[] %b)
}
";

#[test]
fn a_first_class_all_reduce_start_runs_while_the_device_computes() {
    let text = format!(
        "HloModule m, num_partitions=2\n\n{SUM}\nENTRY %main (x: f32[64]) -> f32[64] {{
  %x = f32[64] parameter(0)
  %start = f32[64] all-reduce-start(f32[64] %x), channel_id=1, replica_groups={{{{0,1}}}}, use_global_device_ids=true, to_apply=%sum
  %square = f32[64] multiply(f32[64] %x, f32[64] %x)
  %shifted = f32[64] add(f32[64] %square, f32[64] %x)
  %done = f32[64] all-reduce-done(f32[64] %start)
  ROOT %out = f32[64] add(f32[64] %done, f32[64] %shifted)
}}
"
    );
    assert_overlapped(&text, "start", "done", &["square", "shifted"]);
}

#[test]
fn a_generic_async_start_around_a_collective_permute_runs_while_the_device_computes() {
    let text = "HloModule m, num_partitions=2

%swap (y: f32[64]) -> f32[64] {
  %y = f32[64] parameter(0)
  ROOT %permuted = f32[64] collective-permute(f32[64] %y), channel_id=1, source_target_pairs={{0,1},{1,0}}
}

ENTRY %main (x: f32[64]) -> f32[64] {
  %x = f32[64] parameter(0)
  %start = ((f32[64]), f32[64]) async-start(f32[64] %x), calls=%swap
  %negated = f32[64] negate(f32[64] %x)
  %done = f32[64] async-done(((f32[64]), f32[64]) %start)
  ROOT %out = f32[64] add(f32[64] %done, f32[64] %negated)
}
";
    assert_overlapped(text, "start", "done", &["negated"]);
}

#[test]
fn a_synchronous_all_reduce_holds_the_device_until_it_ends() {
    let text = format!(
        "HloModule m, num_partitions=2\n\n{SUM}\nENTRY %main (x: f32[64]) -> f32[64] {{
  %x = f32[64] parameter(0)
  %reduced = f32[64] all-reduce(f32[64] %x), channel_id=1, replica_groups={{{{0,1}}}}, use_global_device_ids=true, to_apply=%sum
  ROOT %square = f32[64] multiply(f32[64] %reduced, f32[64] %reduced)
}}
"
    );
    for (module, timelines) in runs(&text) {
        for (device, timeline) in timelines.iter().enumerate() {
            assert_held(&module, device, timeline);
        }
    }
}

fn assert_held(module: &weft_ir::Module, device: usize, timeline: &DeviceTimeline) {
    {
        let reduced = event(module, timeline, Track::Compute, "reduced");
        let square = event(module, timeline, Track::Compute, "square");
        assert!(
            reduced.duration >= LATENCY.mul_f64(0.9),
            "device {device}: the all-reduce took {:?}, less than the link's latency",
            reduced.duration
        );
        assert!(
            square.start >= end(reduced),
            "device {device}: the multiply started before the all-reduce ended"
        );
        let figures = timeline.figures();
        assert!(
            figures.exposed >= LATENCY.mul_f64(0.9),
            "device {device}: a synchronous collective hid {:?} of {:?}",
            figures.communication.saturating_sub(figures.exposed),
            figures.communication
        );
    }
}

//! Async starts really run while the device computes, and sync collectives
//! really block it: checked on the order of the timeline's events, not on
//! how long anything took, so the test holds on a busy machine.
//!
//! Every program below exchanges data over a link whose latency is 300 ms.
//! Between an async start and its done a device runs cheap instructions: in
//! the timeline they must all end before the async operation does (the
//! device computed while the data was in flight), and the done must be
//! where the device waited. A synchronous collective instead holds the
//! compute stream: what follows it starts only after it ended.

use std::time::Duration;

use weft_runtime::Value;
use weft_runtime::devices::timeline::{DeviceTimeline, Event, Track};
use weft_runtime::devices::{Grid, GridOptions, Link, run_grid};

const LATENCY: Duration = Duration::from_millis(300);

fn run(text: &str) -> Vec<DeviceTimeline> {
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
        ..GridOptions::default()
    };
    run_grid(&module, grid, arguments, options)
        .expect("the program runs")
        .into_iter()
        .map(|evaluation| evaluation.timeline)
        .collect()
}

fn event<'t>(timeline: &'t DeviceTimeline, track: Track, name: &str) -> &'t Event {
    timeline
        .events
        .iter()
        .find(|e| e.track == track && e.name.split(' ').next() == Some(name))
        .unwrap_or_else(|| panic!("no {track:?} event {name} in {:#?}", timeline.events))
}

fn end(event: &Event) -> f64 {
    event.start + event.duration
}

/// The instructions between start and done ran while the async operation
/// was in flight, and the device waited at the done.
fn assert_overlapped(timelines: &[DeviceTimeline], start: &str, done: &str, work: &[&str]) {
    for (device, timeline) in timelines.iter().enumerate() {
        let in_flight = event(timeline, Track::Async, start);
        assert!(
            in_flight.duration >= LATENCY.as_secs_f64() * 1e6 * 0.9,
            "device {device}: the async operation took {} us, less than the link's latency",
            in_flight.duration
        );
        for name in work {
            let computed = event(timeline, Track::Compute, name);
            assert!(
                computed.start >= in_flight.start && end(computed) < end(in_flight),
                "device {device}: {name} ({} to {} us) did not run while {start} was in flight ({} to {} us)",
                computed.start,
                end(computed),
                in_flight.start,
                end(in_flight)
            );
        }
        let waited = event(timeline, Track::Compute, done);
        assert!(
            end(waited) >= end(in_flight),
            "device {device}: {done} ended before the operation it waits for"
        );
        // The device waited only for what was still in flight (the
        // instructions in between take microseconds, so nearly all of it).
        assert!(
            timeline.exposed <= timeline.communication + Duration::from_millis(1),
            "device {device}: {:?} exposed of {:?} communication",
            timeline.exposed,
            timeline.communication
        );
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
    assert_overlapped(&run(&text), "start", "done", &["square", "shifted"]);
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
    assert_overlapped(&run(text), "start", "done", &["negated"]);
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
    for (device, timeline) in run(&text).iter().enumerate() {
        let reduced = event(timeline, Track::Compute, "reduced");
        let square = event(timeline, Track::Compute, "square");
        assert!(
            reduced.duration >= LATENCY.as_secs_f64() * 1e6 * 0.9,
            "device {device}: the all-reduce took {} us, less than the link's latency",
            reduced.duration
        );
        assert!(
            square.start >= end(reduced),
            "device {device}: the multiply started before the all-reduce ended"
        );
        assert!(
            timeline.exposed >= LATENCY.mul_f64(0.9),
            "device {device}: a synchronous collective hid {:?} of {:?}",
            timeline.communication.saturating_sub(timeline.exposed),
            timeline.communication
        );
    }
}

//! The behaviours XLA's memory scheduler tests assert, and weft's own
//! promises: dependencies and control edges kept, async chains in order,
//! every scheduled computation sequenced, an old schedule replaced.

use weft_ir::text::parse;
use weft_ir::{Instr, Module};

use super::{Algorithm, peak_bytes, schedule_module};
use crate::analysis::alias::Aliases;
use crate::analysis::dataflow::Dataflow;
use crate::analysis::test_support::find;

fn scheduled(text: &str, algorithm: Algorithm) -> Module {
    let mut module = parse(text).expect("parses");
    weft_ir::verify(&module).expect("verifies before");
    schedule_module(&mut module, algorithm).expect("schedules");
    weft_ir::verify(&module).expect("verifies after");
    assert!(module.is_scheduled());
    module
}

/// The place of the instruction named `name` in its computation's sequence.
fn place(module: &Module, name: &str) -> usize {
    let instr = find(module, name);
    let sequence = module
        .schedule()
        .sequence(module.parent(instr))
        .expect("sequenced");
    sequence.iter().position(|&i| i == instr).expect("listed")
}

fn entry_sequence(module: &Module) -> Vec<Instr> {
    let entry = module.entry().unwrap();
    module.schedule().sequence(entry).unwrap().to_vec()
}

fn runs_before(module: &Module, first: &str, second: &str) -> bool {
    place(module, first) < place(module, second)
}

fn peak_of(module: &Module) -> u64 {
    let flow = Dataflow::of(module);
    let aliases = Aliases::of(module, &flow);
    peak_bytes(module, &flow, &aliases)
}

const LAST_USE: &str = "HloModule m\n\nENTRY %main (param: f32[42]) -> f32[42] {\n  %param = f32[42] parameter(0)\n  %ab = f32[42] abs(%param)\n  %exp = f32[42] exponential(%param)\n  %negate = f32[42] negate(%exp)\n  %add = f32[42] add(%ab, %exp)\n  ROOT %sub = f32[42] subtract(%add, %negate)\n}\n";

#[test]
fn the_last_use_of_a_value_runs_first() {
    {
        let module = scheduled(LAST_USE, Algorithm::Default);
        let sequence = entry_sequence(&module);
        assert_eq!(sequence.len(), 6);
        assert_eq!(sequence[0], find(&module, "param"));
        assert_eq!(*sequence.last().unwrap(), find(&module, "sub"));
        // %add is %ab's last use: running it first frees %ab. The list
        // scheduler alone does not see it (below); the DFS order does, and
        // its peak is lower, so the default keeps it.
        assert!(runs_before(&module, "add", "negate"));
    }
}

const ALIASING: &str = "HloModule test_aliasing_module\n\nENTRY %root (param: s32[1000]) -> (s32[1000], s32[1000], s32[1000]) {\n  %param = s32[1000] parameter(0)\n  %p0 = s32[1000] copy(%param)\n  %p1 = s32[1000] copy(%param)\n  %t = (s32[1000], s32[1000]) tuple(%p0, %p1)\n  %a = s32[1000] get-tuple-element(%t), index=0\n  %b = s32[1000] get-tuple-element(%t), index=1\n  %c = s32[1000] add(%a, %b)\n  %d = s32[1000] add(%c, %b)\n  %e = s32[1000] add(%c, %c)\n  %f = s32[1000] add(%e, %e)\n  ROOT %result = (s32[1000], s32[1000], s32[1000]) tuple(%d, %e, %f)\n}\n";

#[test]
fn the_list_scheduler_sees_through_tuples() {
    let module = scheduled(ALIASING, Algorithm::List);
    let sequence = entry_sequence(&module);
    assert_eq!(sequence.len(), 11);
    assert_eq!(sequence[0], find(&module, "param"));
    assert_eq!(*sequence.last().unwrap(), find(&module, "result"));
    // %d and %e are ready together; %d is the last use of %p1 (through the
    // tuple), so it goes first.
    assert!(runs_before(&module, "d", "e"));
}

#[test]
fn the_default_keeps_the_lowest_peak_of_three() {
    let peaks: Vec<u64> = [Algorithm::List, Algorithm::Dfs, Algorithm::PostOrder]
        .into_iter()
        .map(|algorithm| peak_of(&scheduled(ALIASING, algorithm)))
        .collect();
    let mut module = parse(ALIASING).unwrap();
    let chosen = schedule_module(&mut module, Algorithm::Default)
        .unwrap()
        .expect("the default measures");
    assert!(peaks.iter().all(|&peak| peak > 0));
    assert_eq!(chosen, *peaks.iter().min().unwrap());
    // The peak it reports is the peak of the schedule it installed.
    assert_eq!(peak_of(&module), chosen);
}

/// XLA's counterexample to the greedy list scheduler: B's result is larger
/// than its operand, so list puts it off until after F, and B's result is
/// live while F's is made.
const GREEDY_TRAP: &str = "HloModule m\n\nENTRY %main (p: f32[256]) -> f32[768] {\n  %p = f32[256] parameter(0)\n  %A = f32[256] negate(%p)\n  %B = f32[512] concatenate(%A, %A), dimensions={0}\n  %C = f32[256] slice(%B), slice={[0:256]}\n  %D = f32[256] negate(%A)\n  %E = f32[256] abs(%A)\n  %F = f32[512] concatenate(%D, %E), dimensions={0}\n  ROOT %G = f32[768] concatenate(%C, %F), dimensions={0}\n}\n";

#[test]
fn the_list_scheduler_is_greedy_and_the_default_can_do_better() {
    let list = scheduled(GREEDY_TRAP, Algorithm::List);
    assert!(runs_before(&list, "F", "B"));
    let best = scheduled(GREEDY_TRAP, Algorithm::Default);
    let dfs = scheduled(GREEDY_TRAP, Algorithm::Dfs);
    assert!(peak_of(&best) <= peak_of(&list));
    assert!(peak_of(&best) <= peak_of(&dfs));
}

#[test]
fn a_host_send_done_runs_before_work_that_allocates() {
    let module = scheduled(
        "HloModule module\n\nENTRY %entry (p: f32[1000,1000]) -> f32[1000,1000] {\n  %p = f32[1000,1000] parameter(0)\n  %token.0 = token[] after-all()\n  %send = (f32[1000,1000], u32[], token[]) send(%p, %token.0), channel_id=1, is_host_transfer=true\n  %n1 = f32[1000,1000] negate(%p)\n  %n2 = f32[1000,1000] negate(%n1)\n  %n3 = f32[1000,1000] negate(%n2)\n  %send-done = token[] send-done(%send), channel_id=1, is_host_transfer=true\n  ROOT %r = f32[1000,1000] add-dependency(%n3, %send-done)\n}\n",
        Algorithm::List,
    );
    assert!(runs_before(&module, "send-done", "n1"));
}

#[test]
fn a_tuple_allocates_its_table_and_frees_nothing() {
    let module = scheduled(
        "HloModule m\n\nENTRY %main () -> f32[6] {\n  %lit = f32[6] constant({1, 1, 1, 1, 1, 1})\n  %abs_const = f32[6] abs(%lit)\n  %abs_abs1 = f32[6] abs(%abs_const)\n  %tuple = (f32[6]) tuple(%abs_abs1)\n  %tuple_elm = f32[6] get-tuple-element(%tuple), index=0\n  %abs_abs2 = f32[6] abs(%abs_const)\n  ROOT %add = f32[6] add(%tuple_elm, %abs_abs2)\n}\n",
        Algorithm::List,
    );
    // %abs_abs2 frees %abs_const as it defines as much; the tuple only
    // allocates its table.
    assert!(runs_before(&module, "abs_abs2", "tuple"));
}

#[test]
fn a_multi_output_fusion_allocates_every_output() {
    let module = scheduled(
        "HloModule m\n\n%fused (x: f32[5], y: f32[5], z: f32[5]) -> (f32[5], f32[5]) {\n  %x = f32[5] parameter(0)\n  %y = f32[5] parameter(1)\n  %z = f32[5] parameter(2)\n  %add = f32[5] add(%x, %y)\n  %mul = f32[5] multiply(%add, %z)\n  ROOT %tuple = (f32[5], f32[5]) tuple(%add, %mul)\n}\n\nENTRY %main () -> f32[5] {\n  %c1 = f32[5] constant({1, 1, 1, 1, 1})\n  %c2 = f32[5] constant({1, 2, 3, 4, 5})\n  %c3 = f32[5] constant({0, 2, 4, 6, 8})\n  %fusion = (f32[5], f32[5]) fusion(%c1, %c2, %c3), kind=kLoop, calls=%fused\n  %elm = f32[5] get-tuple-element(%fusion), index=0\n  %exp = f32[5] exponential(%c3)\n  ROOT %out = f32[5] add(%elm, %exp)\n}\n",
        Algorithm::List,
    );
    assert!(runs_before(&module, "exp", "fusion"));
    // A fusion body is part of its fusion: it gets no sequence.
    let fused = module.comp_by_name("fused").unwrap();
    assert!(module.schedule().sequence(fused).is_none());
}

#[test]
fn breadth_first_runs_in_waves() {
    let mut text = String::from(
        "HloModule m\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\nENTRY %e (p0: f32[1,2,1,512,256]) -> f32[1,2] {\n  %p0 = f32[1,2,1,512,256] parameter(0)\n  %c0 = f32[] constant(0)\n",
    );
    for k in 1..=5 {
        text += &format!(
            "  %c{k} = f32[] constant({k})\n  %bcast{k} = f32[1,2,1,512,256] broadcast(%c{k}), dimensions={{}}\n  %add{k} = f32[1,2,1,512,256] add(%p0, %bcast{k})\n"
        );
    }
    for k in 1..=5 {
        text += &format!(
            "  %r{k} = f32[1,2] reduce(%add{k}, %c0), dimensions={{2,3,4}}, to_apply=%add\n"
        );
    }
    text += "  %out0 = f32[1,2] add(%r1, %r2)\n  %out1 = f32[1,2] add(%r3, %r4)\n  %out2 = f32[1,2] add(%out0, %out1)\n  ROOT %out3 = f32[1,2] add(%out2, %r5)\n}\n";
    let module = scheduled(&text, Algorithm::BreadthFirst);
    let waves = [
        "bcast1", "bcast2", "bcast3", "bcast4", "bcast5", "add1", "add2", "add3", "add4", "add5",
        "r1", "r2", "r3", "r4", "r5", "out0", "out1", "out2", "out3",
    ];
    let places: Vec<usize> = waves.iter().map(|name| place(&module, name)).collect();
    assert!(places.windows(2).all(|w| w[0] < w[1]), "{places:?}");
}

#[test]
fn control_edges_async_chains_and_callees_are_kept() {
    let text = "HloModule m, replica_count=2\n\n%sum (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\n%cond (c: (s32[], f32[64])) -> pred[] {\n  %c = (s32[], f32[64]) parameter(0)\n  %i = s32[] get-tuple-element(%c), index=0\n  %n = s32[] constant(4)\n  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n\n%body (b: (s32[], f32[64])) -> (s32[], f32[64]) {\n  %b = (s32[], f32[64]) parameter(0)\n  %i = s32[] get-tuple-element(%b), index=0\n  %v = f32[64] get-tuple-element(%b), index=1\n  %one = s32[] constant(1)\n  %next = s32[] add(%i, %one)\n  %w = f32[64] exponential(%v)\n  ROOT %t = (s32[], f32[64]) tuple(%next, %w)\n}\n\nENTRY %main (p: f32[64]) -> f32[64] {\n  %p = f32[64] parameter(0)\n  %zero = s32[] constant(0)\n  %init = (s32[], f32[64]) tuple(%zero, %p)\n  %loop = (s32[], f32[64]) while(%init), condition=%cond, body=%body\n  %v = f32[64] get-tuple-element(%loop), index=1\n  %zf = f32[] constant(0)\n  %big = f32[4096] broadcast(%zf), dimensions={}\n  %ars = f32[64] all-reduce-start(%v), replica_groups={{0,1}}, to_apply=%sum\n  %busy = f32[64] negate(%p), control-predecessors={%big}\n  %ard = f32[64] all-reduce-done(%ars)\n  ROOT %out = f32[64] add(%ard, %busy)\n}\n";
    for algorithm in [
        Algorithm::Default,
        Algorithm::List,
        Algorithm::Dfs,
        Algorithm::PostOrder,
        Algorithm::BreadthFirst,
    ] {
        let module = scheduled(text, algorithm);
        assert!(runs_before(&module, "big", "busy"), "{algorithm:?}");
        assert!(runs_before(&module, "ars", "ard"), "{algorithm:?}");
        for name in ["sum", "cond", "body"] {
            let comp = module.comp_by_name(name).unwrap();
            let sequence = module.schedule().sequence(comp).expect("sequenced");
            assert_eq!(sequence.len(), module.comp(comp).body().len());
        }
    }
}

#[test]
fn a_scheduled_module_is_scheduled_again() {
    // Written in the order that keeps %exp and %ab both live: the scheduler
    // replaces it.
    let text = LAST_USE.replace("HloModule m", "HloModule m, is_scheduled=true");
    let module = scheduled(&text, Algorithm::Default);
    assert!(runs_before(&module, "add", "negate"));
    let written = parse(&text).unwrap();
    assert!(peak_of(&module) <= peak_of(&written));
}

#[test]
fn the_option_names_the_algorithm() {
    let passes = crate::registry::build("hlo-memory-scheduler{algorithm=list}").unwrap();
    let mut module = parse(LAST_USE).unwrap();
    assert!(passes[0].run(&mut module).unwrap());
    // The list scheduler alone: after %exp, %ab and %negate free nothing
    // and define as much, and the one ready last (%negate) wins the tie,
    // as in XLA.
    assert!(runs_before(&module, "negate", "add"));
    assert!(crate::registry::build("hlo-memory-scheduler{algorithm=brkga}").is_err());
}

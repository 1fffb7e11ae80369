//! Fuzzes the HLO verifier on modules no parser would make.
//!
//! A small valid module is parsed, then mutated in memory by the input's
//! bytes — operands pointed at other instructions (in other computations,
//! later in the body, itself), shapes swapped for other shapes of the
//! module, opcodes swapped for others of any arity, callees swapped,
//! operands dropped or duplicated, the root moved — and the verifier runs
//! on the result. It must report, never panic, abort or loop: the verifier
//! is what stands between such a module and every pass and the runtime.

#![no_main]

use libfuzzer_sys::fuzz_target;
use weft_ir::entity::EntityRef;
use weft_ir::{Comp, Instr, Opcode};

/// Seeds: the forms the verifier's rules are about (async chains,
/// collectives, control flow, calls, tuples).
const SEEDS: &[&str] = &[
    r#"HloModule m, num_partitions=2
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(%a, %b)
}
ENTRY %main (x: f32[8], y: f32[8]) -> (f32[8], f32[8]) {
  %x = f32[8] parameter(0)
  %y = f32[8] parameter(1)
  %start = f32[8] all-reduce-start(%x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=%sum
  %m = f32[8] multiply(%x, %y)
  %done = f32[8] all-reduce-done(%start)
  ROOT %t = (f32[8], f32[8]) tuple(%done, %m)
}
"#,
    r#"HloModule m
%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[4])) -> (s32[], f32[4]) {
  %s = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[4] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %w = f32[4] negate(%v)
  ROOT %r = (s32[], f32[4]) tuple(%j, %w)
}
%wrapped (p: f32[4]) -> f32[4] {
  %p = f32[4] parameter(0)
  ROOT %e = f32[4] exponential(%p)
}
%called (q: f32[4]) -> f32[4] {
  %q = f32[4] parameter(0)
  ROOT %l = f32[4] log(%q)
}
ENTRY %main (v: f32[4]) -> f32[4] {
  %v = f32[4] parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[4]) tuple(%zero, %v)
  %loop = (s32[], f32[4]) while(%init), condition=%cond, body=%body
  %out = f32[4] get-tuple-element(%loop), index=1
  %as = ((f32[4]), f32[4]) async-start(%out), calls=%wrapped
  %ad = f32[4] async-done(%as)
  ROOT %c = f32[4] call(%ad), to_apply=%called
}
"#,
];

fuzz_target!(|data: &[u8]| {
    let Some((&seed, steps)) = data.split_first() else {
        return;
    };
    let Ok(mut module) = weft_ir::text::parse(SEEDS[seed as usize % SEEDS.len()]) else {
        panic!("a seed does not parse");
    };
    let instrs: Vec<Instr> = module.all_instrs().collect();
    let comps: Vec<Comp> = module.computations().collect();
    let shapes: Vec<weft_ir::Shape> = instrs.iter().map(|&i| module.shape_of(i)).collect();
    for step in steps.chunks(4) {
        let [kind, a, b, c] = [step[0], *step.get(1).unwrap_or(&0), *step.get(2).unwrap_or(&0), *step.get(3).unwrap_or(&0)];
        let target = instrs[a as usize % instrs.len()];
        let other = instrs[b as usize % instrs.len()];
        // An instruction handle past the end: a dangling operand.
        let dangling = Instr::new(module.instrs.len() + b as usize);
        let data = &mut module.instrs[target];
        match kind % 8 {
            0 => {
                if !data.operands.is_empty() {
                    let slot = c as usize % data.operands.len();
                    data.operands.as_mut_slice()[slot] = other;
                }
            }
            1 => data.shape = shapes[b as usize % shapes.len()],
            2 => data.opcode = Opcode::ALL[b as usize % Opcode::ALL.len()],
            3 => {
                if !data.callees.is_empty() {
                    let slot = c as usize % data.callees.len();
                    data.callees[slot] = comps[b as usize % comps.len()];
                }
            }
            4 => {
                if !data.operands.is_empty() {
                    data.operands.remove(c as usize % data.operands.len());
                }
            }
            5 => data.operands.push(other),
            6 => {
                let comp = comps[c as usize % comps.len()];
                module.set_root(comp, other);
            }
            _ => data.operands.push(dangling),
        }
    }
    let _ = weft_ir::verify(&module);
});

//! `dce`: dead code elimination (XLA's `HloDCE`).
//!
//! **Problem.** Passes leave instructions behind whose values nothing reads —
//! an all-reduce replaced by its start/done pair, the tuple a simplification
//! bypassed — and computations nothing calls any more. They cost a parse, a
//! print and every analysis, and a scheduler would place them.
//!
//! **Algorithm.** An instruction is dead when no instruction uses it, it is
//! not its computation's root or a parameter, it has no control edges, and
//! it has no side effect (see [`crate::analysis::side_effects`]: a send, an
//! infeed, a first-class async collective, a collective with a channel, a
//! custom call that says so, or a call of a computation holding one). Each
//! computation is walked from its last instruction to its first; a dead one
//! is removed, and its operands are looked at again, since they may have
//! lost their last user. With `remove_cross_partition_collective_ops`, a
//! dead collective whose only side effect is its channel goes too, as in
//! XLA. Then every computation the entry no longer reaches through its
//! calls is removed.
//!
//! **Invariants.** Before: a module that verifies. After: the same module
//! minus what nothing could observe; every remaining instruction is live or
//! has a side effect, every computation is reachable from the entry, and
//! schedules keep their order (the editor removes from sequences too).
//!
//! ```text
//! before                                   after
//!   %a = f32[4] negate(%p)                   ROOT %b = f32[4] abs(%p)
//!   %unused = f32[4] add(%a, %a)
//!   ROOT %b = f32[4] abs(%p)
//! ```

use rustc_hash::FxHashSet;
use weft_ir::attrs::Attrs;
use weft_ir::{Comp, Editor, Instr, Module, Opcode};

use crate::analysis::side_effects::SideEffects;
use crate::pass::{OptionKind, OptionSpec, Options, Pass, PassError};

/// The pass's name.
pub const NAME: &str = "dce";

/// Its options.
pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "remove_cross_partition_collective_ops",
    kind: OptionKind::Bool,
    default: "false",
    doc: "also remove dead collectives whose only side effect is their channel",
}];

/// Removes dead instructions and unreachable computations from `module`;
/// returns whether anything went.
pub fn remove_dead_code(module: &mut Module, remove_cross_partition_collectives: bool) -> bool {
    let effects = SideEffects::of(module);
    let computations: Vec<Comp> = module.computations().collect();
    let mut editor = module.edit();
    let mut changed = false;
    for comp in computations {
        let body: Vec<Instr> = editor.module().comp(comp).body().to_vec();
        let mut worklist: Vec<Instr> = body;
        // Walked from the end: users come after their operands, so a chain
        // of dead instructions goes in one sweep.
        while let Some(instr) = worklist.pop() {
            if !is_dead(
                &mut editor,
                instr,
                &effects,
                remove_cross_partition_collectives,
            ) {
                continue;
            }
            let operands: Vec<Instr> = editor.data(instr).operands.to_vec();
            if editor.remove(instr).is_ok() {
                changed = true;
                worklist.extend(operands);
            }
        }
    }
    changed | remove_unreachable_computations(&mut editor)
}

fn is_dead(
    editor: &mut Editor<'_>,
    instr: Instr,
    effects: &SideEffects,
    remove_cross_partition_collectives: bool,
) -> bool {
    if super::removable(editor, instr, effects) {
        return true;
    }
    if !remove_cross_partition_collectives {
        return false;
    }
    // The same, but a channel's side effect does not count.
    let module = editor.module();
    let data = module.instr(instr);
    let channel_only = match (&data.opcode, &data.attrs) {
        (
            Opcode::AllReduce | Opcode::AllGather | Opcode::AllToAll | Opcode::ReduceScatter,
            Attrs::Collective(c),
        ) => c.channel_id.is_some() && !c.constrain_layout,
        (Opcode::CollectivePermute, Attrs::CollectivePermute(c)) => c.channel_id.is_some(),
        _ => false,
    };
    let comp = module.parent(instr);
    channel_only
        && module.comp(comp).root() != Some(instr)
        && data.control_predecessors().is_empty()
        && !data
            .callees
            .iter()
            .any(|&callee| computation_has_side_effect(module, callee, effects))
        && editor.users(instr).is_empty()
        && editor.control_successors(instr).is_empty()
}

fn computation_has_side_effect(module: &Module, comp: Comp, effects: &SideEffects) -> bool {
    module
        .comp(comp)
        .body()
        .iter()
        .any(|&instr| effects.instruction(module, instr))
}

/// Removes every computation the entry does not reach through calls.
fn remove_unreachable_computations(editor: &mut Editor<'_>) -> bool {
    let module = editor.module();
    let Some(entry) = module.entry else {
        return false;
    };
    let mut reached: FxHashSet<Comp> = FxHashSet::from_iter([entry]);
    let mut pending = vec![entry];
    while let Some(comp) = pending.pop() {
        for &instr in module.comp(comp).body() {
            for &callee in module.instr(instr).callees.iter() {
                if reached.insert(callee) {
                    pending.push(callee);
                }
            }
        }
    }
    let dead: Vec<Comp> = module
        .computations()
        .filter(|comp| !reached.contains(comp))
        .collect();
    for &comp in &dead {
        editor.remove_comp(comp);
    }
    !dead.is_empty()
}

struct Dce {
    remove_cross_partition_collectives: bool,
}

impl Pass for Dce {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        Ok(remove_dead_code(
            module,
            self.remove_cross_partition_collectives,
        ))
    }
}

pub(crate) fn make(options: &Options) -> Box<dyn Pass> {
    Box::new(Dce {
        remove_cross_partition_collectives: options
            .bool("remove_cross_partition_collective_ops", false),
    })
}

#[cfg(test)]
mod tests {
    use weft_ir::text::{PrintOptions, parse, print};

    fn dce(text: &str, cross_partition: bool) -> (bool, String) {
        let mut module = parse(text).expect("parses");
        let changed = super::remove_dead_code(&mut module, cross_partition);
        weft_ir::verify(&module).expect("still verifies");
        (changed, print(&module, &PrintOptions::short()))
    }

    #[test]
    fn dead_chains_and_computations_go() {
        let (changed, text) = dce(
            "HloModule m\n\n%unused (x: f32[]) -> f32[] {\n  ROOT %x = f32[] parameter(0)\n}\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %a = f32[4] negate(%p)\n  %b = f32[4] add(%a, %a)\n  ROOT %c = f32[4] abs(%p)\n}\n",
            false,
        );
        assert!(changed);
        assert!(
            !text.contains("negate") && !text.contains(" add(") && !text.contains("unused"),
            "{text}"
        );
        assert!(text.contains("ROOT c = f32[4]{0} abs(p)"), "{text}");
    }

    #[test]
    fn side_effects_and_control_edges_stay() {
        let text = "HloModule m\n\n%sum (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %add = f32[] add(%a, %b)\n}\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %ar = f32[4] all-reduce(%p), channel_id=1, replica_groups={{0,1}}, to_apply=%sum\n  %n = f32[4] negate(%p)\n  ROOT %c = f32[4] abs(%p), control-predecessors={%n}\n}\n";
        let (changed, out) = dce(text, false);
        assert!(!changed, "{out}");
        let (changed, out) = dce(text, true);
        assert!(changed);
        assert!(
            !out.contains("all-reduce") && out.contains("negate"),
            "{out}"
        );
    }

    /// Found by fuzzing: the unused done of a generic async all-reduce with
    /// a channel went, and left its start (a side effect) unfinished.
    #[test]
    fn an_async_chain_with_a_side_effect_stays_whole() {
        let text = "HloModule m\n\n%sum (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n\n%wrapped (x: f32[4]) -> f32[4] {\n  %x = f32[4] parameter(0)\n  ROOT %ar = f32[4] all-reduce(%x), channel_id=1, replica_groups={{0,1}}, to_apply=%sum\n}\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %start = ((f32[4]), f32[4]) async-start(%p), calls=%wrapped\n  %done = f32[4] async-done(%start)\n  ROOT %n = f32[4] negate(%p)\n}\n";
        let (changed, out) = dce(text, false);
        assert!(!changed, "{out}");
        // Without the channel the whole chain is dead, and goes.
        let (changed, out) = dce(&text.replace("channel_id=1, ", ""), false);
        assert!(changed);
        assert!(
            !out.contains("async") && !out.contains("all-reduce"),
            "{out}"
        );
    }
}

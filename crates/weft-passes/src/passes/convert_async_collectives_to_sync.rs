//! `convert-async-collectives-to-sync` (XLA's
//! `ConvertAsyncCollectivesToSync`).
//!
//! **Problem.** After scheduling, some start/done pairs have nothing to
//! overlap: the scheduler found no independent work to put between them.
//! Such a pair only costs the bookkeeping of an asynchronous operation (on
//! a GPU, a second stream and its synchronisation), so it runs better as the
//! plain synchronous collective.
//!
//! **Algorithm.** Only a scheduled module is looked at, computation by
//! scheduled computation (fusion bodies aside). The sequence is walked with
//! the set of async collective starts in flight. A start joins the set; a
//! done whose start is still in the set leaves it and marks the pair for
//! conversion; any other instruction — unless its opcode is one of
//! `is_nop_opcodes` — empties the set, since whatever was in flight now
//! overlaps real work. The async collectives are the first-class
//! all-reduce, all-gather and collective-permute starts and dones and the
//! generic async ops wrapping a collective (send and recv are not).
//!
//! Each marked pair becomes its synchronous collective (the wrapped one,
//! for a generic pair), with the done's shape, the start's operands,
//! metadata and backend config, and the frontend attribute
//! `async_collective_name` naming the start it replaces. It takes the done's
//! place in the schedule; the start leaves it, and both lose their control
//! edges, as XLA drops them (scheduling is over).
//!
//! **Invariants.** Before: a scheduled module that verifies. After: it
//! computes the same values and stays scheduled; no start/done pair has only
//! no-ops between its start and its done.
//!
//! ```text
//! before                                              after
//!   %start = u32[] all-reduce-start(%id), …             ROOT %all-reduce = u32[] all-reduce(%id), …,
//!   ROOT %done = u32[] all-reduce-done(%start)              frontend_attributes={async_collective_name="start"}
//! ```

use rustc_hash::FxHashSet;
use weft_ir::attrs::Attrs;
use weft_ir::{Comp, Editor, Instr, Module, Opcode};

use crate::pass::{OptionKind, OptionSpec, Options, Pass, PassError};

/// The pass's name.
pub const NAME: &str = "convert-async-collectives-to-sync";

/// Its options.
pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "is_nop_opcodes",
    kind: OptionKind::Opcodes,
    default: "",
    doc: "opcodes that may sit between a start and its done without counting as work (XLA's is_nop predicate)",
}];

/// The frontend attribute that keeps the replaced start's name.
pub const ASYNC_COLLECTIVE_NAME: &str = "async_collective_name";

/// Converts pairs with nothing but no-ops between them; returns whether any
/// was converted.
pub fn convert_to_sync(module: &mut Module, is_nop: &[Opcode]) -> Result<bool, PassError> {
    if !module.is_scheduled() {
        return Ok(false);
    }
    let fusion_bodies: FxHashSet<Comp> = module
        .all_instrs()
        .filter(|&i| module.instr(i).opcode == Opcode::Fusion)
        .flat_map(|i| module.instr(i).callees.iter().copied())
        .collect();
    let computations: Vec<Comp> = module
        .computations()
        .filter(|comp| !fusion_bodies.contains(comp))
        .filter(|&comp| module.schedule().sequence(comp).is_some())
        .collect();
    let mut changed = false;
    for comp in computations {
        let pairs = pairs_to_convert(module, comp, is_nop);
        if pairs.is_empty() {
            continue;
        }
        let mut editor = module.edit();
        for (start, done) in pairs {
            make_sync(&mut editor, start, done)?;
        }
        changed = true;
    }
    Ok(changed)
}

/// The (start, done) pairs of `comp` with only no-ops between them.
fn pairs_to_convert(module: &Module, comp: Comp, is_nop: &[Opcode]) -> Vec<(Instr, Instr)> {
    let Some(sequence) = module.schedule().sequence(comp) else {
        return Vec::new();
    };
    let mut in_flight: FxHashSet<Instr> = FxHashSet::default();
    let mut pairs = Vec::new();
    for &instr in sequence {
        if is_async_collective_start(module, instr) {
            in_flight.insert(instr);
        } else if is_async_collective_done(module, instr) {
            let start = module.instr(instr).operands[0];
            if in_flight.remove(&start) {
                pairs.push((start, instr));
            }
        } else if !in_flight.is_empty() && !is_nop.contains(&module.instr(instr).opcode) {
            in_flight.clear();
        }
    }
    pairs
}

/// XLA's `IsAsyncCollectiveStartOp` (send and recv excluded).
fn is_async_collective_start(module: &Module, instr: Instr) -> bool {
    match module.instr(instr).opcode {
        Opcode::AllReduceStart | Opcode::AllGatherStart | Opcode::CollectivePermuteStart => true,
        Opcode::AsyncStart => wraps_collective(module, instr),
        _ => false,
    }
}

/// XLA's `IsAsyncCollectiveDoneOp` (send and recv excluded).
fn is_async_collective_done(module: &Module, instr: Instr) -> bool {
    match module.instr(instr).opcode {
        Opcode::AllReduceDone | Opcode::AllGatherDone | Opcode::CollectivePermuteDone => true,
        Opcode::AsyncDone => weft_ir::async_chain::ChainTracer::new(module)
            .chain_start(instr)
            .is_some_and(|start| wraps_collective(module, start)),
        _ => false,
    }
}

/// The instruction a generic async-start wraps: its computation's root.
fn wrapped(module: &Module, start: Instr) -> Option<Instr> {
    let comp = *module.instr(start).callees.first()?;
    module.comp(comp).root()
}

/// Whether a generic start wraps a collective applied to the start's
/// operands themselves: its computation's root reads its parameters, in
/// order. Only then is the collective on the start's operands the same
/// operation; a computation that first takes its operands apart (a
/// get-tuple-element of a tuple it was handed) stays asynchronous.
fn wraps_collective(module: &Module, start: Instr) -> bool {
    let Some(&comp) = module.instr(start).callees.first() else {
        return false;
    };
    wrapped(module, start).is_some_and(|root| {
        let opcode = module.instr(root).opcode;
        opcode.has(weft_ir::opcode::Flags::COLLECTIVE)
            && !matches!(opcode, Opcode::Send | Opcode::Recv)
            && module.instr(root).operands.as_slice() == module.comp(comp).params()
    })
}

/// Replaces the pair (`start`, `done`) by its synchronous collective.
fn make_sync(editor: &mut Editor<'_>, start: Instr, done: Instr) -> Result<(), PassError> {
    let start_data = editor.data(start).clone();
    let done_shape = editor.data(done).shape;
    let done_sharding = editor.data(done).common().sharding.clone();
    let mut sync = match start_data.opcode {
        Opcode::AsyncStart => {
            let root = wrapped(editor.module(), start)
                .ok_or_else(|| PassError::new(format!("%{} wraps nothing", start_data.name)))?;
            let mut sync = editor.data(root).clone();
            if let Some(common) = sync.common.as_deref_mut() {
                common.control_predecessors.clear();
            }
            sync
        }
        opcode => {
            let sync_opcode = opcode.first_class_sync_form().ok_or_else(|| {
                PassError::new(format!(
                    "%{} is not an async collective start",
                    start_data.name
                ))
            })?;
            let mut sync = start_data.clone();
            sync.opcode = sync_opcode;
            if let Attrs::Async(_) = sync.attrs {
                sync.attrs = Attrs::plain();
            }
            sync.common = None;
            sync
        }
    };
    sync.shape = done_shape;
    sync.operands = start_data.operands.clone();
    sync.metadata = start_data.metadata.clone();
    sync.name = editor.unique_instr_name(sync.opcode.name());
    // The start's backend config and frontend attributes, plus the name of
    // the start, kept for profiles.
    let start_common = start_data.common();
    let common = sync.common_mut();
    common.control_predecessors.clear();
    common.backend_config = start_common.backend_config.clone();
    let mut attributes = start_common.frontend_attributes.clone().unwrap_or_default();
    attributes.set(ASYNC_COLLECTIVE_NAME, start_data.name.as_str());
    common.frontend_attributes = Some(attributes);
    // The done's place is the sync op's: its sharding goes with it, as
    // XLA's ReplaceInstruction carries it.
    if common.sharding.is_none() {
        common.sharding = done_sharding;
    }
    let sync = editor.insert_before(done, sync);
    editor.drop_control_edges(start);
    editor.drop_control_edges(done);
    editor.replace_all_uses(done, sync);
    editor.remove(done)?;
    // Other dones of the same start (an async-update chain) would still use
    // it; a converted pair has only its done.
    editor.remove(start)?;
    if start_data.opcode == Opcode::AsyncStart
        && let Some(&wrapped_comp) = start_data.callees.first()
    {
        editor.remove_comp(wrapped_comp);
    }
    Ok(())
}

struct ConvertAsyncCollectivesToSync {
    is_nop: Vec<Opcode>,
}

impl Pass for ConvertAsyncCollectivesToSync {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        convert_to_sync(module, &self.is_nop)
    }
}

pub(crate) fn make(options: &Options) -> Box<dyn Pass> {
    Box::new(ConvertAsyncCollectivesToSync {
        is_nop: options.opcodes("is_nop_opcodes").unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use weft_ir::Opcode;
    use weft_ir::text::{PrintOptions, parse, print};

    const NESTED: &str = "HloModule test, is_scheduled=true\n\n%apply_op (x: u32[], y: u32[]) -> u32[] {\n  %x = u32[] parameter(0)\n  %y = u32[] parameter(1)\n  ROOT %apply_op = u32[] add(%x, %y)\n}\n\nENTRY %test_computation () -> u32[] {\n  %id = u32[] replica-id()\n  %start1 = u32[] all-reduce-start(%id), to_apply=%apply_op, channel_id=3\n  %start2 = u32[] all-reduce-start(%id), to_apply=%apply_op, channel_id=4\n  %done2 = u32[] all-reduce-done(%start2)\n  %id2 = u32[] add(%done2, %done2)\n  %done1 = u32[] all-reduce-done(%start1)\n  ROOT %x = u32[] add(%done1, %done2)\n}\n";

    fn run(text: &str, is_nop: &[Opcode]) -> (bool, String) {
        let mut module = parse(text).expect("parses");
        let changed = super::convert_to_sync(&mut module, is_nop).expect("runs");
        weft_ir::verify(&module).expect("verifies");
        (changed, print(&module, &PrintOptions::short()))
    }

    #[test]
    fn a_pair_with_work_between_stays_async() {
        let (changed, text) = run(NESTED, &[]);
        assert!(changed);
        // start2/done2 had only start-and-done between them; start1 had the add.
        assert!(
            text.contains("all-reduce = u32[] all-reduce(id), channel_id=4, replica_groups={}, to_apply=apply_op, frontend_attributes={async_collective_name=\"start2\"}"),
            "{text}"
        );
        assert!(
            text.contains("all-reduce-start(id), channel_id=3"),
            "{text}"
        );
    }

    #[test]
    fn no_ops_do_not_count_as_work() {
        let (changed, text) = run(NESTED, &[Opcode::Add]);
        assert!(changed);
        assert!(!text.contains("all-reduce-start"), "{text}");
    }

    #[test]
    fn an_unscheduled_module_is_left_alone() {
        let unscheduled = NESTED.replace(", is_scheduled=true", "");
        assert!(!run(&unscheduled, &[]).0);
    }

    #[test]
    fn the_sync_collective_keeps_the_done_s_sharding() {
        let text = "HloModule test, is_scheduled=true\n\n%sum (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\nENTRY %e (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n  %start = f32[8] all-reduce-start(%p), replica_groups={{0,1}}, to_apply=%sum\n  ROOT %done = f32[8] all-reduce-done(%start), sharding={replicated}\n}\n";
        let (changed, printed) = run(text, &[]);
        assert!(changed);
        assert!(
            printed.contains(
                "all-reduce(p), replica_groups={{0,1}}, to_apply=sum, sharding={replicated}"
            ),
            "{printed}"
        );
    }

    #[test]
    fn a_wrapped_collective_that_takes_its_operand_apart_stays_asynchronous() {
        let text = "HloModule test, is_scheduled=true\n\n%wrapped (t: (f32[8], f32[8])) -> f32[8] {\n  %t = (f32[8], f32[8]) parameter(0)\n  %e = f32[8] get-tuple-element(%t), index=0\n  ROOT %a = f32[8] all-to-all(%e), replica_groups={{0,1}}, dimensions={0}\n}\n\nENTRY %e (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n  %pair = (f32[8], f32[8]) tuple(%p, %p)\n  %start = ((( f32[8], f32[8])), f32[8]) async-start(%pair), calls=%wrapped\n  ROOT %done = f32[8] async-done(%start)\n}\n";
        let (changed, printed) = run(text, &[]);
        assert!(!changed, "{printed}");
    }
}

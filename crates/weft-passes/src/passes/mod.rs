//! The passes, one file each, named by the pass's name in snake case; and
//! the editing steps several of them take the way XLA takes them.

pub mod async_collective_creator;
pub mod call_inliner;
pub mod convert_async_collectives_to_sync;
pub mod dce;
pub mod flatten_call_graph;
pub mod hlo_memory_scheduler;
pub mod hlo_trivial_scheduler;
pub mod latency_hiding_scheduler;
pub mod legalize_scheduling_annotations;
pub mod tuple_simplifier;
pub mod while_loop_trip_count_annotator;

use weft_ir::{Editor, Instr, Opcode};

use crate::analysis::side_effects::SideEffects;

/// Removes `instr`, then every operand that no longer has a user, has no
/// side effect, no control edges, is not a parameter and is not its
/// computation's root, and so on up (XLA's
/// `RemoveInstructionAndUnusedOperands`). `instr` itself must be unused.
pub(crate) fn remove_with_unused_operands(
    editor: &mut Editor<'_>,
    instr: Instr,
    effects: &SideEffects,
) -> Result<(), weft_ir::EditError> {
    let mut pending = vec![instr];
    let mut first = true;
    while let Some(next) = pending.pop() {
        if !first && !removable(editor, next, effects) {
            continue;
        }
        first = false;
        let operands: Vec<Instr> = editor.data(next).operands.to_vec();
        editor.remove(next)?;
        for operand in operands {
            if !pending.contains(&operand) {
                pending.push(operand);
            }
        }
    }
    Ok(())
}

/// Whether `instr` could go as dead: unused, not a root or parameter, no
/// side effect and no control edges.
pub(crate) fn removable(editor: &mut Editor<'_>, instr: Instr, effects: &SideEffects) -> bool {
    let module = editor.module();
    let comp = module.parent(instr);
    let data = module.instr(instr);
    data.opcode != Opcode::Parameter
        && module.comp(comp).root() != Some(instr)
        && !editor.is_removed(instr)
        && data.control_predecessors().is_empty()
        && !effects.instruction(module, instr)
        && editor.users(instr).is_empty()
        && editor.control_successors(instr).is_empty()
}

/// Replaces `old` with `new` as XLA's `HloComputation::ReplaceInstruction`
/// does: `new` takes `old`'s metadata when it has no `op_name`, its
/// frontend attributes when it has none, and its sharding when it has none;
/// `old`'s control edges move to `new`; every use of `old` (and its place as
/// root) becomes a use of `new`; `new` takes `old`'s name when both have the
/// same opcode; and `old` goes, with the operands it leaves unused.
pub(crate) fn replace_instruction(
    editor: &mut Editor<'_>,
    old: Instr,
    new: Instr,
    effects: &SideEffects,
) -> Result<(), weft_ir::EditError> {
    let old_data = editor.data(old).clone();
    {
        let mut new_data = editor.data_mut(new);
        let keep_op_name = new_data
            .metadata
            .as_ref()
            .is_some_and(|m| !m.op_name.is_empty());
        if !keep_op_name
            && old_data
                .metadata
                .as_ref()
                .is_some_and(|m| !m.op_name.is_empty())
        {
            new_data.metadata = old_data.metadata.clone();
        }
        let old_common = old_data.common();
        if new_data.common().frontend_attributes.is_none()
            && old_common.frontend_attributes.is_some()
        {
            new_data.common_mut().frontend_attributes = old_common.frontend_attributes.clone();
        }
        if new_data.common().sharding.is_none() && old_common.sharding.is_some() {
            new_data.common_mut().sharding = old_common.sharding.clone();
        }
    }
    move_control_edges(editor, old, new, new);
    editor.replace_all_uses(old, new);
    if old_data.opcode == editor.data(new).opcode {
        let name = old_data.name.clone();
        editor.remove(old)?;
        editor.data_mut(new).name = name;
        let operands: Vec<Instr> = old_data.operands.to_vec();
        for operand in operands {
            if removable(editor, operand, effects) {
                remove_with_unused_operands(editor, operand, effects)?;
            }
        }
        return Ok(());
    }
    remove_with_unused_operands(editor, old, effects)
}

/// Moves `old`'s control edges: its predecessors come before `first`, its
/// successors after `last` (XLA's `CopyAllControlDepsTo` then
/// `DropAllControlDeps`).
pub(crate) fn move_control_edges(editor: &mut Editor<'_>, old: Instr, first: Instr, last: Instr) {
    let predecessors = editor.data(old).control_predecessors().to_vec();
    let successors = editor.control_successors(old);
    editor.drop_control_edges(old);
    for predecessor in predecessors {
        editor.add_control_edge(predecessor, first);
    }
    for successor in successors {
        editor.add_control_edge(last, successor);
    }
}

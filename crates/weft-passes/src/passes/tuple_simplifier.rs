//! `tuple-simplifier` (XLA's `TupleSimplifier`).
//!
//! **Problem.** Building a tuple only to take it apart again — the state of a
//! loop after a pass rewired it, the pieces an async op was split into — adds
//! instructions and hides which value flows where from every analysis.
//!
//! **Algorithm.** Each computation (but the entry, with
//! `exclude_entry_computation`) is walked in order, and two forms are folded:
//! - `get-tuple-element(tuple(a0, …, an), i)` is `ai`: uses of the
//!   get-tuple-element become uses of `ai` (through nested tuples, as deep as
//!   they go);
//! - `tuple(get-tuple-element(x, 0), …, get-tuple-element(x, n-1))`, where `x`
//!   has exactly those `n` elements in that order and the same shape as the
//!   tuple, is `x`.
//!
//! A replaced instruction goes as XLA's `ReplaceInstruction` takes it: its
//! control edges move to the replacement and it is removed with the operands
//! it leaves unused. A tuple with a sharding is kept when the replacement's
//! differs.
//!
//! **Invariants.** Before: a module that verifies. After: it computes the
//! same values; no get-tuple-element reads a tuple instruction directly, and
//! no tuple merely reassembles another value.
//!
//! ```text
//! before                                         after
//!   %t = (f32[4], s32[]) tuple(%a, %i)             ROOT %n = f32[4] negate(%a)
//!   %e = f32[4] get-tuple-element(%t), index=0
//!   ROOT %n = f32[4] negate(%e)
//! ```

use weft_ir::attrs::Attrs;
use weft_ir::{Comp, Editor, Instr, Module, Opcode};

use crate::analysis::side_effects::SideEffects;
use crate::pass::{OptionKind, OptionSpec, Options, Pass, PassError};

/// The pass's name.
pub const NAME: &str = "tuple-simplifier";

/// Its options.
pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "exclude_entry_computation",
    kind: OptionKind::Bool,
    default: "false",
    doc: "leave the entry computation as it is",
}];

/// Folds tuple/get-tuple-element pairs in `module`; returns whether it
/// changed anything.
pub fn simplify_tuples(
    module: &mut Module,
    exclude_entry_computation: bool,
) -> Result<bool, PassError> {
    let effects = SideEffects::of(module);
    let entry = module.entry;
    let computations: Vec<Comp> = module
        .computations()
        .filter(|&comp| !(exclude_entry_computation && Some(comp) == entry))
        .collect();
    let mut editor = module.edit();
    let mut changed = false;
    for comp in computations {
        let body: Vec<Instr> = editor.module().comp(comp).body().to_vec();
        for instr in body {
            // Already removed as an unused operand of an earlier fold.
            if editor.is_removed(instr) {
                continue;
            }
            let replacement = match editor.data(instr).opcode {
                Opcode::GetTupleElement => element_source(&editor, instr),
                Opcode::Tuple => whole_tuple_source(&editor, instr),
                _ => None,
            };
            let Some(replacement) = replacement else {
                continue;
            };
            if !shardings_agree(&editor, instr, replacement) {
                continue;
            }
            super::replace_instruction(&mut editor, instr, replacement, &effects)?;
            changed = true;
        }
    }
    Ok(changed)
}

fn tuple_index(editor: &Editor<'_>, instr: Instr) -> Option<usize> {
    match &editor.data(instr).attrs {
        Attrs::GetTupleElement { index } => usize::try_from(*index).ok(),
        _ => None,
    }
}

/// What a get-tuple-element reads when its operand is a tuple instruction
/// (through nested tuples).
fn element_source(editor: &Editor<'_>, gte: Instr) -> Option<Instr> {
    let mut path = vec![tuple_index(editor, gte)?];
    let mut current = editor.data(gte).operands[0];
    // Walk up through get-tuple-elements to the nearest tuple.
    while editor.data(current).opcode == Opcode::GetTupleElement {
        path.push(tuple_index(editor, current)?);
        current = editor.data(current).operands[0];
    }
    let mut found = None;
    while let Some(&index) = path.last() {
        if editor.data(current).opcode != Opcode::Tuple {
            break;
        }
        current = *editor.data(current).operands.get(index)?;
        path.pop();
        found = Some(current);
    }
    // Only a fold that reached the whole path replaces the gte itself.
    if path.is_empty() { found } else { None }
}

/// The value a tuple of every element of one value reassembles.
fn whole_tuple_source(editor: &Editor<'_>, tuple: Instr) -> Option<Instr> {
    let data = editor.data(tuple);
    let mut source = None;
    for (position, &element) in data.operands.iter().enumerate() {
        let element_data = editor.data(element);
        if element_data.opcode != Opcode::GetTupleElement
            || tuple_index(editor, element) != Some(position)
        {
            return None;
        }
        let from = element_data.operands[0];
        if source.get_or_insert(from) != &from {
            return None;
        }
    }
    let source = source?;
    let module = editor.module();
    let same_shape = module.shape_of(source) == data.shape
        || weft_ir::shape_util::compatible(&module.shapes, module.shape_of(source), data.shape);
    same_shape.then_some(source)
}

/// XLA keeps a tuple whose sharding the replacement would not keep.
fn shardings_agree(editor: &Editor<'_>, old: Instr, new: Instr) -> bool {
    match (
        &editor.data(old).common().sharding,
        &editor.data(new).common().sharding,
    ) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

struct TupleSimplifier {
    exclude_entry_computation: bool,
}

impl Pass for TupleSimplifier {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        simplify_tuples(module, self.exclude_entry_computation)
    }
}

pub(crate) fn make(options: &Options) -> Box<dyn Pass> {
    Box::new(TupleSimplifier {
        exclude_entry_computation: options.bool("exclude_entry_computation", false),
    })
}

#[cfg(test)]
mod tests {
    use weft_ir::text::{PrintOptions, parse, print};

    fn simplify(text: &str) -> (bool, String) {
        let mut module = parse(text).expect("parses");
        let changed = super::simplify_tuples(&mut module, false).expect("runs");
        weft_ir::verify(&module).expect("still verifies");
        (changed, print(&module, &PrintOptions::short()))
    }

    #[test]
    fn an_element_of_a_tuple_is_the_operand() {
        let (changed, text) = simplify(
            "HloModule m\n\nENTRY %main (a: f32[4], i: s32[]) -> f32[4] {\n  %a = f32[4] parameter(0)\n  %i = s32[] parameter(1)\n  %t = (f32[4], s32[]) tuple(%a, %i)\n  %nest = ((f32[4], s32[]), s32[]) tuple(%t, %i)\n  %outer = (f32[4], s32[]) get-tuple-element(%nest), index=0\n  %e = f32[4] get-tuple-element(%outer), index=0\n  ROOT %n = f32[4] negate(%e)\n}\n",
        );
        assert!(changed);
        assert!(text.contains("ROOT n = f32[4]{0} negate(a)"), "{text}");
        assert!(!text.contains("tuple("), "{text}");
    }

    #[test]
    fn a_tuple_of_every_element_is_the_value() {
        let (changed, text) = simplify(
            "HloModule m\n\nENTRY %main (p: (f32[4], s32[])) -> (f32[4], s32[]) {\n  %p = (f32[4], s32[]) parameter(0)\n  %x = f32[4] get-tuple-element(%p), index=0\n  %y = s32[] get-tuple-element(%p), index=1\n  ROOT %t = (f32[4], s32[]) tuple(%x, %y)\n}\n",
        );
        assert!(changed);
        assert!(
            text.contains("ROOT p = (f32[4]{0}, s32[]) parameter(0)"),
            "{text}"
        );
    }

    #[test]
    fn a_partial_or_reordered_tuple_stays() {
        let (changed, _) = simplify(
            "HloModule m\n\nENTRY %main (p: (f32[4], f32[4])) -> (f32[4], f32[4]) {\n  %p = (f32[4], f32[4]) parameter(0)\n  %x = f32[4] get-tuple-element(%p), index=0\n  %y = f32[4] get-tuple-element(%p), index=1\n  ROOT %t = (f32[4], f32[4]) tuple(%y, %x)\n}\n",
        );
        assert!(!changed);
    }
}

//! `call-inliner` (XLA's `CallInliner`).
//!
//! **Problem.** A `call` runs another computation as if its instructions
//! stood in the caller — front ends emit one per traced function, per
//! `jax.named_call`, per checkpointed region — but every analysis and pass
//! stops at the call's edge: a collective inside cannot be combined with one
//! outside, and a scheduler sees one opaque instruction.
//!
//! **Algorithm.** Computations are visited callees first, so the calls
//! inside a callee are already gone when it is inlined; each computation's
//! instructions are walked in its schedule, or in post order. A call is
//! inlined unless it has a backend config, sits in a computation an async
//! op wraps, or has the frontend attribute `inlineable` set to anything but
//! `"true"` — or, with `single_call_site`, unless its callee is called from
//! exactly one place. Inlining a call:
//! - clones each instruction of the callee but its parameters into the
//!   caller, just before the call (in the callee's schedule order when it
//!   has one, else in post order); uses of a parameter become uses of the
//!   call's operand. A clone keeps its original's name when that is free,
//!   else takes XLA's next `name.N`;
//! - gives every clone the control predecessors its original had (cloned)
//!   and the call's own control predecessors;
//! - prefixes each clone's `op_name` with the call's (`call/inner`), and the
//!   instructions of the loops and branches a clone runs too, as XLA does;
//! - replaces the call by the clone of the callee's root as XLA's
//!   `ReplaceInstruction` does (metadata, frontend attributes and sharding
//!   when the root has none; the call's control successors follow the root),
//!   removing the call and the operands it leaves unused. A composite call
//!   loses its `composite.*` attributes first, so that they do not land on
//!   the root.
//!
//! In a scheduled caller the clones take the call's place in the sequence.
//! When anything was inlined, the pass ends by running `dce` over the
//! module, as XLA runs `HloDCE`: callees nothing calls any more go, and so
//! does any other dead code.
//!
//! Not done (XLA options weft does not take): `update_domain`,
//! `uniquify_channel_ids`, `composites_to_preserve`, override policies, and
//! the Shardy `shmap_body` exception; nor the copying of the call's
//! `MUST_FUSE`/`MAXIMAL_FUSE`/`mosaic_fusion_group` attributes onto the
//! callee's fusible instructions.
//!
//! **Invariants.** Before: a module that verifies. After: it computes the
//! same values; no inlinable call is left; control edges through a call now
//! run through its clones; scheduled computations stay scheduled.
//!
//! ```text
//! before                                          after
//!   %f (x: f32[4]) -> f32[4] {                      ENTRY %main (p: f32[4]) -> f32[4] {
//!     %x = f32[4] parameter(0)                        %p = f32[4] parameter(0)
//!     ROOT %n = f32[4] negate(%x)                     ROOT %n = f32[4] negate(%p)
//!   }                                               }
//!   ENTRY %main (p: f32[4]) -> f32[4] {
//!     %p = f32[4] parameter(0)
//!     ROOT %c = f32[4] call(%p), to_apply=%f
//!   }
//! ```

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::attrs::{Attrs, Metadata};
use weft_ir::order::post_order;
use weft_ir::{Comp, Editor, Instr, Module, Opcode};

use crate::analysis::call_graph::{self, CallContext, CallGraph};
use crate::analysis::side_effects::SideEffects;
use crate::pass::{OptionKind, OptionSpec, Options, Pass, PassError};

/// The pass's name.
pub const NAME: &str = "call-inliner";

/// Its options.
pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "single_call_site",
    kind: OptionKind::Bool,
    default: "false",
    doc: "inline only calls of computations called from exactly one place",
}];

/// The longest `op_name` inlining makes (XLA's `kMaxOpNameSize`): a longer
/// prefixed name is not written.
const MAX_OP_NAME_SIZE: usize = 1024;

/// The frontend attributes that describe a composite call.
const COMPOSITE_ATTRIBUTES: &[&str] = &[
    "composite.name",
    "composite.attributes",
    "composite.version",
];

/// Inlines the calls of `module` (see the module docs); returns whether any
/// was inlined.
pub fn inline_calls(module: &mut Module, single_call_site: bool) -> Result<bool, PassError> {
    let graph = CallGraph::of(module);
    let wrapped = call_graph::async_computations(module);
    let effects = SideEffects::of(module);
    let mut changed = false;
    {
        let mut editor = module.edit();
        for &comp in graph.callees_first() {
            let order = match editor.module().schedule().sequence(comp) {
                Some(sequence) => sequence.to_vec(),
                None => post_order(editor.module(), comp),
            };
            for instr in order {
                // An earlier inlining may have removed it as an unused operand.
                if editor.module().comp(comp).body().contains(&instr)
                    && should_inline(&editor, instr, &graph, &wrapped, single_call_site)
                {
                    inline_call(&mut editor, instr, &effects)?;
                    changed = true;
                }
            }
        }
    }
    if changed {
        super::dce::remove_dead_code(module, false);
    }
    Ok(changed)
}

/// XLA's `CallInliner::ShouldInline`.
fn should_inline(
    editor: &Editor<'_>,
    instr: Instr,
    graph: &CallGraph,
    wrapped: &FxHashSet<Comp>,
    single_call_site: bool,
) -> bool {
    let module = editor.module();
    let data = module.instr(instr);
    if data.opcode != Opcode::Call
        || data
            .common()
            .backend_config
            .as_ref()
            .is_some_and(|config| !config.0.is_empty())
        || wrapped.contains(&module.parent(instr))
    {
        return false;
    }
    if let Some(inlineable) = data
        .common()
        .frontend_attributes
        .as_ref()
        .and_then(|attributes| attributes.get("inlineable"))
        && inlineable != "true"
    {
        return false;
    }
    !single_call_site
        || data
            .callees
            .first()
            .is_some_and(|&callee| graph.callers_of(callee).len() == 1)
}

/// Replaces `call` by a clone of its callee's instructions.
fn inline_call(
    editor: &mut Editor<'_>,
    call: Instr,
    effects: &SideEffects,
) -> Result<(), PassError> {
    let call_data = editor.data(call).clone();
    let &[callee] = call_data.callees.as_slice() else {
        return Err(PassError::new(format!(
            "%{} calls {} computations; a call calls one",
            call_data.name,
            call_data.callees.len()
        )));
    };
    let module = editor.module();
    let callee_data = module.comp(callee);
    if module.parent(call) == callee {
        return Err(PassError::new(format!(
            "%{} calls %{}, the computation it is in",
            call_data.name, callee_data.name
        )));
    }
    if callee_data.params().len() != call_data.operands.len() {
        return Err(PassError::new(format!(
            "%{} passes {} operands to %{}, which has {} parameters",
            call_data.name,
            call_data.operands.len(),
            callee_data.name,
            callee_data.params().len()
        )));
    }
    let Some(callee_root) = callee_data.root() else {
        return Err(PassError::new(format!("%{} has no root", callee_data.name)));
    };
    if matches!(call_data.attrs, Attrs::Call { is_composite: true }) {
        drop_composite_attributes(editor, call);
    }
    let module = editor.module();
    let mut clones: FxHashMap<Instr, Instr> = module
        .comp(callee)
        .params()
        .iter()
        .copied()
        .zip(call_data.operands.iter().copied())
        .collect();
    // Names are taken in the order XLA clones (post order); instructions are
    // placed in the callee's schedule when it has one.
    let creation = post_order(module, callee);
    let placement = match module.schedule().sequence(callee) {
        Some(sequence) => sequence.to_vec(),
        None => creation.clone(),
    };
    let mut names = FxHashMap::default();
    for &instr in &creation {
        if editor.data(instr).opcode != Opcode::Parameter {
            let name = editor.unique_instr_name(&editor.data(instr).name.clone());
            names.insert(instr, name);
        }
    }
    let prefix = call_data
        .metadata
        .as_ref()
        .map(|metadata| metadata.op_name.to_string())
        .unwrap_or_default();
    for instr in placement {
        let Some(name) = names.remove(&instr) else {
            continue;
        };
        let mut data = editor.data(instr).clone();
        data.name = name;
        let resolve = |original: Instr| {
            clones.get(&original).copied().ok_or_else(|| {
                PassError::new(format!(
                    "%{} of %{} is used before it is computed",
                    editor.data(original).name,
                    editor.module().comp(callee).name
                ))
            })
        };
        data.operands = data
            .operands
            .iter()
            .map(|&operand| resolve(operand))
            .collect::<Result<_, _>>()?;
        let mut predecessors: Vec<Instr> = data
            .control_predecessors()
            .iter()
            .map(|&predecessor| resolve(predecessor))
            .collect::<Result<_, _>>()?;
        for &predecessor in call_data.control_predecessors() {
            if !predecessors.contains(&predecessor) {
                predecessors.push(predecessor);
            }
        }
        if !predecessors.is_empty() || data.common.is_some() {
            data.common_mut().control_predecessors = predecessors;
        }
        let clone = editor.insert_before(call, data);
        prefix_op_name(editor, clone, &prefix, 0);
        clones.insert(instr, clone);
    }
    let Some(&new_root) = clones.get(&callee_root) else {
        return Err(PassError::new(format!(
            "the root of %{} is not in its schedule",
            editor.module().comp(callee).name
        )));
    };
    // The call's control edges run through the new root (XLA relays them);
    // an edge from the root to itself would be a cycle.
    let predecessors = call_data.control_predecessors().to_vec();
    let successors = editor.control_successors(call);
    editor.drop_control_edges(call);
    for predecessor in predecessors.into_iter().filter(|&p| p != new_root) {
        editor.add_control_edge(predecessor, new_root);
    }
    for successor in successors.into_iter().filter(|&s| s != new_root) {
        editor.add_control_edge(new_root, successor);
    }
    super::replace_instruction(editor, call, new_root, effects)?;
    Ok(())
}

fn drop_composite_attributes(editor: &mut Editor<'_>, call: Instr) {
    let mut data = editor.data_mut(call);
    if let Some(common) = data.common.as_deref_mut()
        && let Some(attributes) = &mut common.frontend_attributes
    {
        attributes
            .entries
            .retain(|(key, _)| !COMPOSITE_ATTRIBUTES.contains(&key.as_str()));
        if attributes.entries.is_empty() {
            common.frontend_attributes = None;
        }
    }
}

/// Prefixes the `op_name` of `instr` with `prefix`, and of every
/// instruction of the loops, branches and async computations it runs
/// (XLA's `RecursivelyUpdateOpName`, which leaves the inside of a call
/// alone).
fn prefix_op_name(editor: &mut Editor<'_>, instr: Instr, prefix: &str, depth: usize) {
    if prefix.is_empty() || depth > weft_ir::MAX_CALL_DEPTH {
        return;
    }
    let data = editor.data(instr);
    if call_graph::call_context(data.opcode) == CallContext::ControlFlow
        && data.opcode != Opcode::Call
    {
        let inner: Vec<Instr> = data
            .callees
            .iter()
            .flat_map(|&callee| editor.module().comp(callee).body().to_vec())
            .collect();
        for instr in inner {
            prefix_op_name(editor, instr, prefix, depth + 1);
        }
    }
    let op_name = editor
        .data(instr)
        .metadata
        .as_ref()
        .map(|metadata| metadata.op_name.to_string())
        .unwrap_or_default();
    if prefix.len() + op_name.len() >= MAX_OP_NAME_SIZE {
        return;
    }
    let prefixed = if op_name.is_empty() {
        prefix.to_string()
    } else {
        format!("{prefix}/{op_name}")
    };
    editor
        .data_mut(instr)
        .metadata
        .get_or_insert_with(|| Box::new(Metadata::default()))
        .op_name = prefixed.into();
}

struct CallInliner {
    single_call_site: bool,
}

impl Pass for CallInliner {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        inline_calls(module, self.single_call_site)
    }
}

pub(crate) fn make(options: &Options) -> Box<dyn Pass> {
    Box::new(CallInliner {
        single_call_site: options.bool("single_call_site", false),
    })
}

#[cfg(test)]
mod tests {
    use weft_ir::text::{PrintOptions, parse, print};

    fn inline(text: &str, single_call_site: bool) -> (bool, String) {
        let mut module = parse(text).expect("parses");
        let changed = super::inline_calls(&mut module, single_call_site).expect("runs");
        weft_ir::verify(&module).expect("still verifies");
        (changed, print(&module, &PrintOptions::long()))
    }

    const TWO_CALLS: &str = "HloModule m\n\n%f (x: f32[4]) -> f32[4] {\n  %x = f32[4] parameter(0)\n  %n = f32[4] negate(%x)\n  ROOT %e = f32[4] exponential(%n), metadata={op_name=\"exp\"}\n}\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %c1 = f32[4] call(%p), to_apply=%f, metadata={op_name=\"jit(f)\"}\n  %c2 = f32[4] call(%c1), to_apply=%f\n  ROOT %a = f32[4] add(%c1, %c2)\n}\n";

    #[test]
    fn calls_are_replaced_by_their_callee_and_the_callee_goes() {
        let (changed, text) = inline(TWO_CALLS, false);
        assert!(changed);
        assert!(!text.contains("call(") && !text.contains("%f"), "{text}");
        // Clones take XLA's next free names (the callee still held the
        // originals when they were made); the call's op_name prefixes theirs.
        assert!(
            text.contains("%n.1 = f32[4]{0} negate(f32[4]{0} %p), metadata={op_name=\"jit(f)\"}"),
            "{text}"
        );
        assert!(
            text.contains(
                "%e.1 = f32[4]{0} exponential(f32[4]{0} %n.1), metadata={op_name=\"jit(f)/exp\"}"
            ),
            "{text}"
        );
        assert!(
            text.contains("%n.2 = f32[4]{0} negate(f32[4]{0} %e.1)"),
            "{text}"
        );
        assert!(
            text.contains("ROOT %a = f32[4]{0} add(f32[4]{0} %e.1, f32[4]{0} %e.2)"),
            "{text}"
        );
    }

    #[test]
    fn single_call_site_and_backend_configs_hold_calls_back() {
        let (changed, _) = inline(TWO_CALLS, true);
        assert!(!changed);
        let (changed, text) = inline(
            &TWO_CALLS.replace(
                "to_apply=%f\n",
                "to_apply=%f, frontend_attributes={inlineable=\"false\"}\n",
            ),
            false,
        );
        assert!(changed);
        assert_eq!(text.matches("call(").count(), 1, "{text}");
    }

    #[test]
    fn control_edges_and_the_schedule_follow_the_call() {
        let text = "HloModule m, is_scheduled=true\n\n%f (x: f32[4]) -> f32[4] {\n  %x = f32[4] parameter(0)\n  %n = f32[4] negate(%x)\n  ROOT %e = f32[4] exponential(%n)\n}\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %before = f32[4] abs(%p)\n  %c = f32[4] call(%p), to_apply=%f, control-predecessors={%before}\n  %after = f32[4] sqrt(%p), control-predecessors={%c}\n  ROOT %a = f32[4] add(%c, %after)\n}\n";
        let (changed, out) = inline(text, false);
        assert!(changed);
        assert!(
            out.contains("%before = f32[4]{0} abs(f32[4]{0} %p)\n  %n.1 = f32[4]{0} negate(f32[4]{0} %p), control-predecessors={%before}\n  %e.1 = f32[4]{0} exponential(f32[4]{0} %n.1), control-predecessors={%before}\n  %after = f32[4]{0} sqrt(f32[4]{0} %p), control-predecessors={%e.1}\n"),
            "{out}"
        );
    }
}

//! `legalize-scheduling-annotations` (XLA's `LegalizeSchedulingAnnotations`).
//!
//! **Problem.** A front end ties an async collective and the compute meant to
//! overlap it into one scheduling group with the frontend attribute
//! `_scheduling_group_id` (see [`scheduling_annotation`]). The latency-hiding
//! scheduler schedules each group as one unit, which only works when the
//! groups make sense: every group holds something asynchronous, a done's
//! start is in its group, and nothing outside a group lies on a path between
//! two of its members (a *gap*: the scheduler could neither put that
//! instruction inside the unit nor outside it). Annotations arrive from
//! user code, fusion and loop pipelining, so they rarely make sense as they
//! are. This pass cleans them up before scheduling, or says why it cannot.
//!
//! **Algorithm.** Fusion bodies are left out of every step but the third.
//! `check_gap_only` runs step 8's gap check alone and stops. Otherwise,
//! `run_verification` first refuses two groups that reach each other both
//! ways (a cycle the scheduler could never order);
//! `remove_loop_iteration_annotation_only` then strips the `:ITERATION` part
//! of every annotation and stops. Otherwise, in XLA's order:
//!
//! 1. Drop the annotations nobody asked to keep: `noop` ones, and those on
//!    an instruction that is neither an async op (`keep_start_annotation`
//!    decides for `async-start`) nor one `keep_sync_annotation` holds for.
//!    A generic async op that wraps only copies and parameters (formatting,
//!    looked for through a call at the wrapped root and into nested async
//!    ops) does not count as async.
//! 2. Collect the annotated instructions, by annotation and computation.
//! 3. (Not in the collected tables.) A fusion without an annotation, that
//!    `keep_sync_annotation` holds for, takes the one annotation its fused
//!    instructions carry; two different ones there are an error.
//! 4. With `check_start_done_annotation_consistency`, a done
//!    (`all-gather-done`, `all-reduce-done`, `collective-permute-done`,
//!    `async-done`) must have its operand in its own annotation.
//! 5. Remove trivial groups: a group's only member in a computation loses
//!    its annotation unless `keep_trivial_sync_annotation` holds for it; a
//!    group with no async op left in any computation (here the synchronous
//!    collectives, send and recv count) loses every annotation.
//! 6. Fill simple gaps: a chain of single-operand, single-user instructions
//!    from a member to another member of the same group joins the group.
//! 7. With `propagate_annotation`, every instruction on a path between two
//!    members of an annotation (through operands and control edges, in one
//!    computation) joins it; one already annotated otherwise is an error.
//!    `check_non_mitigatable_gap_only` makes this a dry run: only the error.
//! 8. Otherwise, walk from each group's frontier (the users and control
//!    successors outside it) through users and control successors; reaching
//!    the group again is a gap. A gap is an error, or, with
//!    `deannotate_unsupported_groups`, the whole annotation goes. With
//!    `skip_opt_barriers` the walk does not enter an `opt-barrier`, and
//!    jumps from a tuple (that has several users or feeds an opt-barrier)
//!    straight to the get-tuple-element of the slot it came in by.
//!
//! Where XLA iterates hash maps this pass goes by annotation, then by
//! computation in module order, so the first error found is always the same.
//!
//! **Invariants.** Before: a module whose annotations parse (a malformed one
//! is an error naming the instruction). After: the same instructions,
//! edges and schedule; only `_scheduling_group_id` attributes changed; every
//! remaining group outside fusion bodies holds an async op and has no gap
//! (the pass fails otherwise; a dry run leaves the gaps it could fill). An
//! annotation hoisted onto a fusion (step 3) is not checked until the next
//! run, as in XLA, so a second run may still remove it. The pass says it
//! changed the module only when an annotation changed (XLA also says so
//! for a fusion it looked into without hoisting, and for a dry run that
//! found gaps to fill).
//!
//! ```text
//! before (keep_sync_annotation=all-gather)        after
//!   %a0 = all-gather(%p), …group_id="1"           %a0 = all-gather(%p), …group_id="1"
//!   %b1 = bitcast(%a0)                            %b1 = bitcast(%a0), …group_id="1"
//!   ROOT %a1 = all-gather(%b1), …group_id="1"     ROOT %a1 = all-gather(%b1), …group_id="1"
//! ```

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::attrs::Attrs;
use weft_ir::{Comp, Editor, Instr, Module, Opcode};

use crate::analysis::reachability::Reachability;
use crate::opcode_predicate::OpcodePredicate;
use crate::pass::{OptionKind, OptionSpec, Options, Pass, PassError};
use crate::scheduling_annotation::{self, Annotation};

/// The pass's name.
pub const NAME: &str = "legalize-scheduling-annotations";

/// Its options: the fields of XLA's `LegalizeSchedulingAnnotations::Config`
/// (but `debug_str`, which only labels XLA's logs).
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "keep_sync_annotation",
        kind: OptionKind::OpcodePredicate,
        default: "true",
        doc: "instructions, besides async ops, whose annotations are kept",
    },
    OptionSpec {
        name: "keep_trivial_sync_annotation",
        kind: OptionKind::OpcodePredicate,
        default: "true",
        doc: "instructions that keep their annotation when alone in their group within their computation",
    },
    OptionSpec {
        name: "propagate_annotation",
        kind: OptionKind::Bool,
        default: "false",
        doc: "annotate every instruction on a path between two members of a group, instead of refusing such gaps",
    },
    OptionSpec {
        name: "check_start_done_annotation_consistency",
        kind: OptionKind::Bool,
        default: "true",
        doc: "refuse a done whose start is not in its group",
    },
    OptionSpec {
        name: "remove_loop_iteration_annotation_only",
        kind: OptionKind::Bool,
        default: "false",
        doc: "only strip the loop iteration from every annotation",
    },
    OptionSpec {
        name: "run_verification",
        kind: OptionKind::Bool,
        default: "false",
        doc: "first refuse two groups that reach each other both ways",
    },
    OptionSpec {
        name: "keep_start_annotation",
        kind: OptionKind::Bool,
        default: "true",
        doc: "keep the annotations of async-start instructions",
    },
    OptionSpec {
        name: "deannotate_unsupported_groups",
        kind: OptionKind::Bool,
        default: "false",
        doc: "remove a group that has a gap instead of failing",
    },
    OptionSpec {
        name: "check_gap_only",
        kind: OptionKind::Bool,
        default: "false",
        doc: "only check for gaps",
    },
    OptionSpec {
        name: "check_non_mitigatable_gap_only",
        kind: OptionKind::Bool,
        default: "false",
        doc: "with propagate_annotation: only check that propagation could annotate every gap",
    },
    OptionSpec {
        name: "skip_opt_barriers",
        kind: OptionKind::Bool,
        default: "false",
        doc: "the gap check looks through opt-barriers and tuples to the get-tuple-element",
    },
];

/// XLA's `LegalizeSchedulingAnnotations::Config`, with opcode predicates for
/// its `HloPredicate`s.
#[derive(Clone, Debug)]
pub struct Config {
    /// Which synchronous instructions keep their annotations.
    pub keep_sync_annotation: OpcodePredicate,
    /// Which instructions keep an annotation they alone carry in their
    /// computation.
    pub keep_trivial_sync_annotation: OpcodePredicate,
    /// Fill gaps by annotating them, instead of refusing them.
    pub propagate_annotation: bool,
    /// Refuse a done whose operand is not in its annotation.
    pub check_start_done_annotation_consistency: bool,
    /// Only strip loop iterations from annotations.
    pub remove_loop_iteration_annotation_only: bool,
    /// First refuse groups that reach each other both ways.
    pub run_verification: bool,
    /// Keep the annotations of `async-start`s.
    pub keep_start_annotation: bool,
    /// Remove a group with a gap instead of failing.
    pub deannotate_unsupported_groups: bool,
    /// Only check for gaps.
    pub check_gap_only: bool,
    /// Make propagation a dry run that only finds conflicts.
    pub check_non_mitigatable_gap_only: bool,
    /// Let the gap check look through opt-barriers and tuples.
    pub skip_opt_barriers: bool,
}

impl Default for Config {
    /// XLA's defaults.
    fn default() -> Config {
        Config {
            keep_sync_annotation: OpcodePredicate::Always,
            keep_trivial_sync_annotation: OpcodePredicate::Always,
            propagate_annotation: false,
            check_start_done_annotation_consistency: true,
            remove_loop_iteration_annotation_only: false,
            run_verification: false,
            keep_start_annotation: true,
            deannotate_unsupported_groups: false,
            check_gap_only: false,
            check_non_mitigatable_gap_only: false,
            skip_opt_barriers: false,
        }
    }
}

/// Legalizes the scheduling annotations of `module` (see the module docs);
/// whether any annotation changed.
pub fn legalize(module: &mut Module, config: &Config) -> Result<bool, PassError> {
    let fusion_callers = fusion_callers(module);
    let computations: Vec<Comp> = module
        .computations()
        .filter(|comp| !fusion_callers.contains_key(comp))
        .collect();
    let mut editor = module.edit();
    if config.check_gap_only {
        let annotated = Annotated::collect(editor.module(), &computations)?;
        return check_gaps(&mut editor, &annotated, config);
    }
    if config.run_verification {
        refuse_cycles(editor.module(), &computations, config)?;
    }
    if config.remove_loop_iteration_annotation_only {
        return remove_loop_iterations(&mut editor, &computations);
    }
    let mut changed = drop_unkept_annotations(&mut editor, &computations, config);
    let mut annotated = Annotated::collect(editor.module(), &computations)?;
    changed |= hoist_into_fusions(
        &mut editor,
        &annotated,
        &fusion_callers,
        &config.keep_sync_annotation,
    )?;
    if annotated.is_empty() {
        return Ok(changed);
    }
    if config.check_start_done_annotation_consistency {
        check_start_done_consistency(editor.module(), &annotated)?;
    }
    changed |= remove_trivial_groups(&mut editor, &mut annotated, config);
    changed |= fill_simple_gaps(&mut editor, &mut annotated)?;
    changed |= if config.propagate_annotation {
        propagate(
            &mut editor,
            &annotated,
            &computations,
            config.check_non_mitigatable_gap_only,
        )?
    } else {
        check_gaps(&mut editor, &annotated, config)?
    };
    Ok(changed)
}

/// The annotated instructions both ways (XLA's `annotation_to_instruction`
/// and `instruction_to_annotation`).
#[derive(Default)]
struct Annotated {
    /// By annotation, then by computation in module order; each list in body
    /// order, then in the order instructions joined.
    by_annotation: BTreeMap<Annotation, Vec<(Comp, Vec<Instr>)>>,
    /// The annotation of each instruction in `by_annotation`.
    annotation_of: FxHashMap<Instr, Annotation>,
}

impl Annotated {
    /// The annotated instructions of `computations`.
    fn collect(module: &Module, computations: &[Comp]) -> Result<Annotated, PassError> {
        let mut annotated = Annotated::default();
        for &comp in computations {
            for &instr in module.comp(comp).body() {
                if let Some(annotation) = annotation(module, instr)? {
                    annotated.add(comp, instr, annotation);
                }
            }
        }
        Ok(annotated)
    }

    fn add(&mut self, comp: Comp, instr: Instr, annotation: Annotation) {
        let per_comp = self.by_annotation.entry(annotation).or_default();
        match per_comp.iter_mut().find(|(c, _)| *c == comp) {
            Some((_, instrs)) => instrs.push(instr),
            None => per_comp.push((comp, vec![instr])),
        }
        self.annotation_of.insert(instr, annotation);
    }

    /// Forgets `gone`, and the computations and annotations left empty.
    fn forget(&mut self, gone: &FxHashSet<Instr>) {
        for per_comp in self.by_annotation.values_mut() {
            for (_, instrs) in per_comp.iter_mut() {
                instrs.retain(|instr| !gone.contains(instr));
            }
            per_comp.retain(|(_, instrs)| !instrs.is_empty());
        }
        self.by_annotation
            .retain(|_, per_comp| !per_comp.is_empty());
        self.annotation_of.retain(|instr, _| !gone.contains(instr));
    }

    fn is_empty(&self) -> bool {
        self.by_annotation.is_empty()
    }

    fn is(&self, instr: Instr, annotation: Annotation) -> bool {
        self.annotation_of.get(&instr) == Some(&annotation)
    }
}

/// The annotation of `instr`, a malformed one being the pass's error.
fn annotation(module: &Module, instr: Instr) -> Result<Option<Annotation>, PassError> {
    scheduling_annotation::get(module.instr(instr)).map_err(PassError::new)
}

/// Each fused computation with the fusions that call it.
fn fusion_callers(module: &Module) -> FxHashMap<Comp, Vec<Instr>> {
    let mut callers: FxHashMap<Comp, Vec<Instr>> = FxHashMap::default();
    for instr in module.all_instrs() {
        let data = module.instr(instr);
        if data.opcode == Opcode::Fusion {
            for &callee in &data.callees {
                callers.entry(callee).or_default().push(instr);
            }
        }
    }
    callers
}

/// The computation an async op wraps: its own callee, or its chain start's.
fn wrapped_computation(module: &Module, async_op: Instr) -> Option<Comp> {
    if let Some(&comp) = module.instr(async_op).callees.first() {
        return Some(comp);
    }
    let start = weft_ir::async_chain::ChainTracer::new(module).chain_start(async_op)?;
    module.instr(start).callees.first().copied()
}

/// Whether a generic async op moves data around and nothing more: its
/// wrapped computation (or the computation its root calls) holds only
/// copies, parameters and async ops that are themselves formatting. Such an
/// op has nothing to overlap, so its annotation would only get in the way.
fn contains_only_formatting_ops(module: &Module, async_op: Instr) -> bool {
    let data = module.instr(async_op);
    if data.opcode == Opcode::AsyncDone {
        return data
            .operands
            .first()
            .is_some_and(|&start| contains_only_formatting_ops(module, start));
    }
    let Some(mut comp) = wrapped_computation(module, async_op) else {
        return false;
    };
    // A wrapper may hold a call (or another call-like op) at its root: the
    // work is in its callee.
    if let Some(root) = module.comp(comp).root()
        && let Some(&callee) = module.instr(root).callees.first()
    {
        comp = callee;
    }
    module
        .comp(comp)
        .body()
        .iter()
        .all(|&instr| match module.instr(instr).opcode {
            Opcode::AsyncStart | Opcode::AsyncDone => contains_only_formatting_ops(module, instr),
            Opcode::Copy | Opcode::Parameter => true,
            _ => false,
        })
}

/// XLA's `IsSupportedAsyncOp`: whether `instr` is an async op a scheduling
/// group can be built around. `supports_async_start` says whether an
/// `async-start` may be; `check_sync_versions` counts the synchronous
/// collectives (and send/recv) too, as the async ops they will become.
fn is_supported_async_op(
    module: &Module,
    instr: Instr,
    supports_async_start: bool,
    check_sync_versions: bool,
) -> bool {
    let opcode = module.instr(instr).opcode;
    if opcode == Opcode::AsyncStart && !supports_async_start {
        return false;
    }
    if check_sync_versions
        && matches!(
            opcode,
            Opcode::AllGather
                | Opcode::AllReduce
                | Opcode::ReduceScatter
                | Opcode::RaggedAllToAll
                | Opcode::CollectivePermute
                | Opcode::SendDone
                | Opcode::Send
                | Opcode::RecvDone
                | Opcode::Recv
        )
    {
        return true;
    }
    match opcode {
        Opcode::AsyncStart | Opcode::AsyncDone => !contains_only_formatting_ops(module, instr),
        Opcode::AllGatherDone
        | Opcode::AllGatherStart
        | Opcode::AllReduceDone
        | Opcode::AllReduceStart
        | Opcode::CollectivePermuteDone
        | Opcode::CollectivePermuteStart
        | Opcode::SendDone
        | Opcode::Send
        | Opcode::RecvDone
        | Opcode::Recv => true,
        _ => false,
    }
}

/// `run_verification`: refuses two annotations of one computation where a
/// member of each reaches a member of the other (only the members that are
/// async ops or that `keep_sync_annotation` holds for count). Malformed
/// annotations are passed over here; the later steps refuse them.
fn refuse_cycles(module: &Module, computations: &[Comp], config: &Config) -> Result<(), PassError> {
    for &comp in computations {
        let mut groups: BTreeMap<Annotation, Vec<Instr>> = BTreeMap::new();
        for &instr in module.comp(comp).body() {
            let Ok(Some(annotation)) = scheduling_annotation::get(module.instr(instr)) else {
                continue;
            };
            if !is_supported_async_op(module, instr, config.keep_start_annotation, true)
                && !config
                    .keep_sync_annotation
                    .holds(module.instr(instr).opcode)
            {
                continue;
            }
            groups.entry(annotation).or_default().push(instr);
        }
        if groups.len() < 2 {
            continue;
        }
        let reach = Reachability::of(module, comp);
        let reaches_any = |from: &[Instr], to: &[Instr]| {
            from.iter()
                .any(|&a| to.iter().any(|&b| reach.reaches(a, b)))
        };
        for (a, members_a) in &groups {
            for (b, members_b) in &groups {
                if a < b && reaches_any(members_a, members_b) && reaches_any(members_b, members_a) {
                    return Err(PassError::new(format!(
                        "ERROR: Detected scheduling group annotation cycle between scheduling_group_id: {a} and scheduling_group_id: {b}"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// `remove_loop_iteration_annotation_only`: strips the iteration from
/// every annotation (an annotation with no group goes whole).
fn remove_loop_iterations(
    editor: &mut Editor<'_>,
    computations: &[Comp],
) -> Result<bool, PassError> {
    let mut changed = false;
    for &comp in computations {
        let body = editor.module().comp(comp).body().to_vec();
        for instr in body {
            let has_iteration = annotation(editor.module(), instr)?
                .is_some_and(|annotation| annotation.iteration.is_some());
            if has_iteration {
                changed |= scheduling_annotation::remove_iteration(&mut editor.data_mut(instr))
                    .map_err(PassError::new)?;
            }
        }
    }
    Ok(changed)
}

/// Step 1: removes the annotations that are `noop`, or on an instruction
/// that is neither a supported async op nor kept by `keep_sync_annotation`.
fn drop_unkept_annotations(
    editor: &mut Editor<'_>,
    computations: &[Comp],
    config: &Config,
) -> bool {
    let module = editor.module();
    let unkept: Vec<Instr> = computations
        .iter()
        .flat_map(|&comp| module.comp(comp).body().iter().copied())
        .filter(|&instr| {
            let data = module.instr(instr);
            match scheduling_annotation::raw(data) {
                None => false,
                Some(scheduling_annotation::NO_OP_GROUP) => true,
                Some(_) => {
                    !is_supported_async_op(module, instr, config.keep_start_annotation, false)
                        && !config.keep_sync_annotation.holds(data.opcode)
                }
            }
        })
        .collect();
    for &instr in &unkept {
        scheduling_annotation::remove(&mut editor.data_mut(instr));
    }
    !unkept.is_empty()
}

/// Step 3: gives a fusion that has no annotation, and that
/// `keep_sync_annotation` holds for, the annotation of its fused
/// instructions. The tables stay as they were collected, as in XLA: the
/// hoisted annotation is not checked or trimmed by the later steps.
fn hoist_into_fusions(
    editor: &mut Editor<'_>,
    annotated: &Annotated,
    fusion_callers: &FxHashMap<Comp, Vec<Instr>>,
    keep_sync_annotation: &OpcodePredicate,
) -> Result<bool, PassError> {
    let mut changed = false;
    let computations: Vec<Comp> = editor.module().computations().collect();
    for comp in computations {
        let Some(callers) = fusion_callers.get(&comp) else {
            continue;
        };
        let module = editor.module();
        let &[fusion] = callers.as_slice() else {
            return Err(PassError::new(format!(
                "fused computation %{} is called by {} fusions; each fused computation must have one caller",
                module.comp(comp).name,
                callers.len()
            )));
        };
        if !keep_sync_annotation.holds(module.instr(fusion).opcode)
            || annotated.annotation_of.contains_key(&fusion)
        {
            continue;
        }
        let mut seen: Option<Annotation> = None;
        for &instr in module.comp(comp).body() {
            let Some(found) = annotation(module, instr)? else {
                continue;
            };
            match seen {
                None => seen = Some(found),
                Some(first) if first != found => {
                    return Err(PassError::new(format!(
                        "Found a fusion with multiple annotations in the fused computation. fusion: {}, annotations: {first} and {found}",
                        module.instr(fusion).name
                    )));
                }
                Some(_) => {}
            }
        }
        if let Some(found) = seen {
            scheduling_annotation::set(&mut editor.data_mut(fusion), found);
            changed = true;
        }
    }
    Ok(changed)
}

/// Step 4: refuses a done whose operand (its start) is not in its
/// annotation.
fn check_start_done_consistency(module: &Module, annotated: &Annotated) -> Result<(), PassError> {
    for (&annotation, per_comp) in &annotated.by_annotation {
        for (_, instrs) in per_comp {
            for &instr in instrs {
                let data = module.instr(instr);
                if !matches!(
                    data.opcode,
                    Opcode::AllGatherDone
                        | Opcode::AllReduceDone
                        | Opcode::CollectivePermuteDone
                        | Opcode::AsyncDone
                ) {
                    continue;
                }
                let Some(&start) = data.operands.first() else {
                    continue;
                };
                if !annotated.is(start, annotation) {
                    return Err(PassError::new(format!(
                        "Done instruction's operand is not annotated with the same id: {}, annotation: {annotation}",
                        module.instr(start).name
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Step 5: removes a group's lone member in a computation unless
/// `keep_trivial_sync_annotation` holds for it, then every annotation of a
/// group left without an async op in any computation. Annotations without
/// a group are left alone.
fn remove_trivial_groups(
    editor: &mut Editor<'_>,
    annotated: &mut Annotated,
    config: &Config,
) -> bool {
    let module = editor.module();
    let mut by_group: BTreeMap<i64, Vec<(Comp, Vec<Instr>)>> = BTreeMap::new();
    for (annotation, per_comp) in &annotated.by_annotation {
        let Some(group) = annotation.group else {
            continue;
        };
        let group_per_comp = by_group.entry(group).or_default();
        for (comp, instrs) in per_comp {
            match group_per_comp.iter_mut().find(|(c, _)| c == comp) {
                Some((_, members)) => members.extend(instrs),
                None => group_per_comp.push((*comp, instrs.clone())),
            }
        }
    }
    let mut removed: Vec<Instr> = Vec::new();
    for per_comp in by_group.into_values() {
        let mut across_computations = Vec::new();
        for (_, members) in per_comp {
            if let [alone] = members[..]
                && !config
                    .keep_trivial_sync_annotation
                    .holds(module.instr(alone).opcode)
            {
                // A synchronous op alone in its group has nothing to be
                // scheduled with; its annotation would only constrain.
                removed.push(alone);
                continue;
            }
            across_computations.extend(members);
        }
        if !across_computations
            .iter()
            .any(|&instr| is_supported_async_op(module, instr, true, true))
        {
            removed.extend(across_computations);
        }
    }
    let mut changed = false;
    for &instr in &removed {
        changed |= scheduling_annotation::remove(&mut editor.data_mut(instr));
    }
    annotated.forget(&removed.into_iter().collect());
    changed
}

/// Sets `annotation` on `instr`, which must have none (`dry_run`: only
/// checks that).
fn attach(
    editor: &mut Editor<'_>,
    annotation: Annotation,
    instr: Instr,
    dry_run: bool,
) -> Result<(), PassError> {
    if let Some(existing) = self::annotation(editor.module(), instr)? {
        return Err(PassError::new(format!(
            "Trying to propagate scheduling annotation {annotation} to {} but it has an existing annotation: {existing}",
            editor.data(instr).name
        )));
    }
    if !dry_run {
        scheduling_annotation::set(&mut editor.data_mut(instr), annotation);
    }
    Ok(())
}

/// Step 6: a member whose only user starts a chain of single-operand,
/// single-user instructions that ends at a member of the same group (any
/// iteration) gives its annotation to the chain.
fn fill_simple_gaps(editor: &mut Editor<'_>, annotated: &mut Annotated) -> Result<bool, PassError> {
    let members: Vec<(Annotation, Instr)> = annotated
        .by_annotation
        .iter()
        .flat_map(|(&annotation, per_comp)| {
            per_comp
                .iter()
                .flat_map(move |(_, instrs)| instrs.iter().map(move |&instr| (annotation, instr)))
        })
        .collect();
    let mut filled: Vec<(Annotation, Instr)> = Vec::new();
    for (annotation, member) in members {
        let single_operand =
            |editor: &Editor<'_>, instr: Instr| editor.data(instr).operands.len() == 1;
        let &[first] = editor.users(member).as_slice() else {
            continue;
        };
        if annotated.annotation_of.contains_key(&first) || !single_operand(editor, first) {
            continue;
        }
        let mut gap = Vec::new();
        let mut current = first;
        let reaches_group = loop {
            if annotated
                .annotation_of
                .get(&current)
                .is_some_and(|other| other.group == annotation.group)
            {
                break true;
            }
            gap.push(current);
            let users = editor.users(current);
            if users.len() != 1 || !single_operand(editor, current) {
                break false;
            }
            current = users[0];
        };
        if reaches_group {
            for instr in gap {
                attach(editor, annotation, instr, false)?;
                filled.push((annotation, instr));
            }
        }
    }
    let changed = !filled.is_empty();
    for (annotation, instr) in filled {
        let comp = editor.module().parent(instr);
        annotated.add(comp, instr, annotation);
    }
    Ok(changed)
}

/// The users, then the control successors, of `instr` (XLA's order).
fn successors(editor: &mut Editor<'_>, instr: Instr) -> Vec<Instr> {
    let mut successors = editor.users(instr);
    successors.extend(editor.control_successors(instr));
    successors
}

/// Step 7: annotates, computation by computation and annotation by
/// annotation, what lies between members of each annotation; with
/// `dry_run`, only refuses what could not be annotated.
fn propagate(
    editor: &mut Editor<'_>,
    annotated: &Annotated,
    computations: &[Comp],
    dry_run: bool,
) -> Result<bool, PassError> {
    let mut changed = false;
    for &comp in computations {
        let sources_by_annotation: Vec<(Annotation, Vec<Instr>)> = annotated
            .by_annotation
            .iter()
            .filter_map(|(&annotation, per_comp)| {
                let (_, sources) = per_comp.iter().find(|(c, _)| *c == comp)?;
                Some((annotation, sources.clone()))
            })
            .collect();
        if sources_by_annotation.is_empty() {
            continue;
        }
        let reach = Reachability::of(editor.module(), comp);
        for (annotation, sources) in sources_by_annotation {
            let between = between_sources(editor, &reach, &sources);
            changed |= !dry_run && !between.is_empty();
            for instr in between {
                attach(editor, annotation, instr, dry_run)?;
            }
        }
    }
    Ok(changed)
}

/// The instructions, not sources themselves, on a path from one source to
/// another: a breadth-first walk through users and control successors from
/// the sources that reach another source, entering only instructions that
/// reach some source.
fn between_sources(editor: &mut Editor<'_>, reach: &Reachability, sources: &[Instr]) -> Vec<Instr> {
    let reaches_a_source =
        |instr: Instr| sources.iter().any(|&source| reach.reaches(instr, source));
    let mut queue = std::collections::VecDeque::new();
    let mut visited: FxHashSet<Instr> = FxHashSet::default();
    for &source in sources {
        if sources
            .iter()
            .any(|&other| other != source && reach.reaches(source, other))
        {
            queue.push_back(source);
            visited.insert(source);
        }
    }
    let mut between = Vec::new();
    while let Some(instr) = queue.pop_front() {
        if !sources.contains(&instr) {
            between.push(instr);
        }
        for next in successors(editor, instr) {
            if !visited.contains(&next) && reaches_a_source(next) {
                queue.push_back(next);
                visited.insert(next);
            }
        }
    }
    between
}

/// Step 8 (and `check_gap_only`): refuses a gap, or with
/// `deannotate_unsupported_groups` removes every annotation that has one;
/// whether any annotation went.
fn check_gaps(
    editor: &mut Editor<'_>,
    annotated: &Annotated,
    config: &Config,
) -> Result<bool, PassError> {
    let mut unsupported: Vec<Annotation> = Vec::new();
    for (&annotation, per_comp) in &annotated.by_annotation {
        for (_, members) in per_comp {
            if let Some(gap) = find_gap(editor, annotated, annotation, members, config) {
                if !config.deannotate_unsupported_groups {
                    let module = editor.module();
                    let path: Vec<String> = gap
                        .iter()
                        .map(|&instr| format!("%{}", module.instr(instr).name))
                        .collect();
                    return Err(PassError::new(format!(
                        "Support for annotation groups with gaps doesn't exist yet, annotation: {annotation}, instr: {} has the same annotation in its operand tree but has gaps on the way from that operand to itself (path: {})",
                        module.instr(gap[gap.len() - 1]).name,
                        path.join(" -> ")
                    ))
                    .with_hint("deannotate_unsupported_groups=true removes the annotations of such groups instead"));
                }
                if !unsupported.contains(&annotation) {
                    unsupported.push(annotation);
                }
            }
        }
    }
    let mut changed = false;
    for annotation in unsupported {
        for (_, members) in &annotated.by_annotation[&annotation] {
            for &instr in members {
                changed |= scheduling_annotation::remove(&mut editor.data_mut(instr));
            }
        }
    }
    Ok(changed)
}

/// A path that leaves `annotation`'s `members` (of one computation) and
/// comes back to a member, from the member it leaves to the one it reaches;
/// `None` when the members have no gap.
fn find_gap(
    editor: &mut Editor<'_>,
    annotated: &Annotated,
    annotation: Annotation,
    members: &[Instr],
    config: &Config,
) -> Option<Vec<Instr>> {
    // Where each visited instruction was entered from, to report the path.
    let mut parent: FxHashMap<Instr, Instr> = FxHashMap::default();
    let mut stack = Vec::new();
    let mut visited: FxHashSet<Instr> = FxHashSet::default();
    // The frontier: users and control successors outside the annotation.
    for &member in members {
        for next in successors(editor, member) {
            if !visited.contains(&next) && !annotated.is(next, annotation) {
                stack.push(next);
                parent.insert(next, member);
                visited.insert(next);
            }
        }
    }
    while let Some(instr) = stack.pop() {
        for next in successors(editor, instr) {
            let Some(next) = skip_barriers(editor, instr, next, config) else {
                continue;
            };
            if annotated.is(next, annotation) {
                let mut path = vec![next, instr];
                let mut current = instr;
                while let Some(&from) = parent.get(&current) {
                    path.push(from);
                    current = from;
                }
                path.reverse();
                return Some(path);
            }
            if visited.insert(next) {
                stack.push(next);
                parent.insert(next, instr);
            }
        }
    }
    None
}

/// With `skip_opt_barriers`, where the gap walk goes from `instr` to its
/// successor `next`: nowhere into an opt-barrier; from a tuple that has
/// several users, or one user that is an opt-barrier, straight to the
/// get-tuple-element of the tuple's slot `instr` fills, when there is one
/// (barriers and the tuples around them would otherwise show gaps that
/// scheduling does not have).
fn skip_barriers(
    editor: &mut Editor<'_>,
    instr: Instr,
    next: Instr,
    config: &Config,
) -> Option<Instr> {
    if !config.skip_opt_barriers {
        return Some(next);
    }
    match editor.data(next).opcode {
        Opcode::OptimizationBarrier => None,
        Opcode::Tuple => {
            let tuple_users = editor.users(next);
            let through = match tuple_users[..] {
                [] => return Some(next),
                [only] if editor.data(only).opcode == Opcode::OptimizationBarrier => only,
                [_] => return Some(next),
                _ => next,
            };
            let Some(slot) = editor.data(next).operands.iter().position(|&o| o == instr) else {
                return Some(next);
            };
            let gte = editor.users(through).into_iter().find(|&user| {
                let data = editor.data(user);
                data.opcode == Opcode::GetTupleElement
                    && matches!(data.attrs, Attrs::GetTupleElement { index } if index == slot as i64)
            });
            Some(gte.unwrap_or(next))
        }
        _ => Some(next),
    }
}

struct LegalizeSchedulingAnnotations {
    config: Config,
}

impl Pass for LegalizeSchedulingAnnotations {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        legalize(module, &self.config)
    }
}

pub(crate) fn make(options: &Options) -> Box<dyn Pass> {
    let defaults = Config::default();
    Box::new(LegalizeSchedulingAnnotations {
        config: Config {
            keep_sync_annotation: options
                .opcode_predicate("keep_sync_annotation", defaults.keep_sync_annotation),
            keep_trivial_sync_annotation: options.opcode_predicate(
                "keep_trivial_sync_annotation",
                defaults.keep_trivial_sync_annotation,
            ),
            propagate_annotation: options
                .bool("propagate_annotation", defaults.propagate_annotation),
            check_start_done_annotation_consistency: options.bool(
                "check_start_done_annotation_consistency",
                defaults.check_start_done_annotation_consistency,
            ),
            remove_loop_iteration_annotation_only: options.bool(
                "remove_loop_iteration_annotation_only",
                defaults.remove_loop_iteration_annotation_only,
            ),
            run_verification: options.bool("run_verification", defaults.run_verification),
            keep_start_annotation: options
                .bool("keep_start_annotation", defaults.keep_start_annotation),
            deannotate_unsupported_groups: options.bool(
                "deannotate_unsupported_groups",
                defaults.deannotate_unsupported_groups,
            ),
            check_gap_only: options.bool("check_gap_only", defaults.check_gap_only),
            check_non_mitigatable_gap_only: options.bool(
                "check_non_mitigatable_gap_only",
                defaults.check_non_mitigatable_gap_only,
            ),
            skip_opt_barriers: options.bool("skip_opt_barriers", defaults.skip_opt_barriers),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::find;

    /// Runs the pass on `text`: whether it changed the module, and the
    /// module (which must still verify), or the pass's error message.
    fn run(text: &str, config: &Config) -> Result<(bool, Module), String> {
        let mut module = weft_ir::text::parse(text).expect("parses");
        let changed = legalize(&mut module, config).map_err(|e| e.message)?;
        weft_ir::verify(&module).expect("verifies");
        Ok((changed, module))
    }

    /// The raw annotation of the instruction named `name`.
    fn annotation_of(module: &Module, name: &str) -> Option<String> {
        scheduling_annotation::raw(module.instr(find(module, name))).map(str::to_string)
    }

    fn module(body: &str) -> String {
        format!(
            "HloModule m, is_scheduled=true\n\n%add (x: f32[], y: f32[]) -> f32[] {{\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %add = f32[] add(%x, %y)\n}}\n\nENTRY %e (p0: f32[16], p1: f32[16]) -> f32[16] {{\n  %p0 = f32[16] parameter(0)\n  %p1 = f32[16] parameter(1)\n{body}}}\n"
        )
    }

    const GROUP_1: &str = "frontend_attributes={_scheduling_group_id=\"1\"}";
    const PAIRS: &str = "source_target_pairs={{0,1},{1,0}}";

    #[test]
    fn a_chain_between_two_members_joins_their_group() {
        let text = module(&format!(
            "  %a0 = f32[16] collective-permute(%p0), {PAIRS}, {GROUP_1}\n  %b1 = f32[16] negate(%a0)\n  %c1 = f32[16] copy(%b1)\n  ROOT %a1 = f32[16] collective-permute(%c1), {PAIRS}, {GROUP_1}\n"
        ));
        let config = Config {
            keep_sync_annotation: OpcodePredicate::AnyOf(vec![Opcode::CollectivePermute]),
            ..Config::default()
        };
        let (changed, module) = run(&text, &config).unwrap();
        assert!(changed);
        assert_eq!(annotation_of(&module, "b1").as_deref(), Some("1"));
        assert_eq!(annotation_of(&module, "c1").as_deref(), Some("1"));
    }

    #[test]
    fn groups_without_an_async_op_and_unkept_lone_members_lose_their_annotations() {
        let text = module(&format!(
            "  %n0 = f32[16] negate(%p0), {GROUP_1}\n  %n1 = f32[16] negate(%n0), {GROUP_1}\n  %ar = f32[16] all-reduce(%n1), replica_groups={{}}, to_apply=%add, frontend_attributes={{_scheduling_group_id=\"2\"}}\n  ROOT %n2 = f32[16] negate(%ar), frontend_attributes={{_scheduling_group_id=\"3\"}}\n"
        ));
        let config = Config {
            keep_trivial_sync_annotation: OpcodePredicate::NoneOf(vec![Opcode::Negate]),
            ..Config::default()
        };
        let (changed, module) = run(&text, &config).unwrap();
        assert!(changed);
        assert_eq!(annotation_of(&module, "n0"), None);
        assert_eq!(annotation_of(&module, "n1"), None);
        assert_eq!(annotation_of(&module, "ar").as_deref(), Some("2"));
        assert_eq!(annotation_of(&module, "n2"), None);
    }

    /// A group whose members are joined by a path through an instruction
    /// outside it (`add` uses both `n` and `a0`).
    fn with_gap() -> String {
        module(&format!(
            "  %a0 = f32[16] collective-permute(%p0), {PAIRS}, {GROUP_1}\n  %n = f32[16] negate(%a0)\n  %sum = f32[16] add(%n, %p1)\n  ROOT %a1 = f32[16] add(%sum, %a0), {GROUP_1}\n"
        ))
    }

    #[test]
    fn a_gap_is_refused_or_deannotated_or_filled() {
        let error = run(&with_gap(), &Config::default()).err().unwrap();
        assert!(
            error.starts_with(
                "Support for annotation groups with gaps doesn't exist yet, annotation: 1, instr: a1"
            ),
            "{error}"
        );
        assert!(
            error.contains("(path: %a0 -> %n -> %sum -> %a1)"),
            "{error}"
        );

        let deannotate = Config {
            deannotate_unsupported_groups: true,
            ..Config::default()
        };
        let (changed, module) = run(&with_gap(), &deannotate).unwrap();
        assert!(changed);
        assert_eq!(annotation_of(&module, "a0"), None);
        assert_eq!(annotation_of(&module, "a1"), None);

        let propagate = Config {
            propagate_annotation: true,
            ..Config::default()
        };
        let (changed, module) = run(&with_gap(), &propagate).unwrap();
        assert!(changed);
        assert_eq!(annotation_of(&module, "n").as_deref(), Some("1"));
        assert_eq!(annotation_of(&module, "sum").as_deref(), Some("1"));

        let dry_run = Config {
            check_non_mitigatable_gap_only: true,
            ..propagate
        };
        assert!(!run(&with_gap(), &dry_run).unwrap().0);
    }

    #[test]
    fn propagation_follows_control_edges_and_refuses_other_annotations() {
        let text = module(&format!(
            "  %a0 = f32[16] collective-permute(%p0), {PAIRS}, {GROUP_1}\n  %n = f32[16] collective-permute(%p1), {PAIRS}, control-predecessors={{%a0}}\n  ROOT %a1 = f32[16] collective-permute(%p1), {PAIRS}, {GROUP_1}, control-predecessors={{%n}}\n"
        ));
        let propagate = Config {
            propagate_annotation: true,
            ..Config::default()
        };
        let (_, module) = run(&text, &propagate).unwrap();
        assert_eq!(annotation_of(&module, "n").as_deref(), Some("1"));

        // `n` alone in group 7 stays annotated: it is a collective.
        let taken = text.replace(
            "control-predecessors={%a0}",
            "frontend_attributes={_scheduling_group_id=\"7\"}, control-predecessors={%a0}",
        );
        let error = run(&taken, &propagate).err().unwrap();
        assert_eq!(
            error,
            "Trying to propagate scheduling annotation 1 to n but it has an existing annotation: 7"
        );
    }

    #[test]
    fn skipping_opt_barriers_follows_the_tuple_slot() {
        let text = module(&format!(
            "  %a0 = f32[16] collective-permute(%p0), {PAIRS}, {GROUP_1}\n  %n = f32[16] negate(%a0)\n  %t = (f32[16], f32[16]) tuple(%n, %p1)\n  %barrier = (f32[16], f32[16]) opt-barrier(%t)\n  %g0 = f32[16] get-tuple-element(%barrier), index=0\n  %g1 = f32[16] get-tuple-element(%barrier), index=1\n  %a1 = f32[16] collective-permute(%g1), {PAIRS}, {GROUP_1}\n  ROOT %out = f32[16] add(%a1, %g0)\n"
        ));
        assert!(run(&text, &Config::default()).is_err());
        let skip = Config {
            skip_opt_barriers: true,
            ..Config::default()
        };
        let (changed, _) = run(&text, &skip).unwrap();
        assert!(!changed);
    }

    #[test]
    fn groups_reaching_each_other_both_ways_are_a_cycle() {
        let text = module(&format!(
            "  %a0 = f32[16] collective-permute(%p0), {PAIRS}, {GROUP_1}\n  %a1 = f32[16] collective-permute(%a0), {PAIRS}, frontend_attributes={{_scheduling_group_id=\"2\"}}\n  ROOT %a2 = f32[16] collective-permute(%a1), {PAIRS}, {GROUP_1}\n"
        ));
        let verify = Config {
            run_verification: true,
            ..Config::default()
        };
        assert_eq!(
            run(&text, &verify).err().unwrap(),
            "ERROR: Detected scheduling group annotation cycle between scheduling_group_id: 1 and scheduling_group_id: 2"
        );
    }

    #[test]
    fn a_done_needs_its_start_in_its_group() {
        let text = module(&format!(
            "  %start = f32[16] all-reduce-start(%p0), replica_groups={{}}, to_apply=%add\n  ROOT %done = f32[16] all-reduce-done(%start), {GROUP_1}\n"
        ));
        assert_eq!(
            run(&text, &Config::default()).err().unwrap(),
            "Done instruction's operand is not annotated with the same id: start, annotation: 1"
        );
        let lenient = Config {
            check_start_done_annotation_consistency: false,
            ..Config::default()
        };
        assert!(run(&text, &lenient).is_ok());
    }

    const FUSION: &str = "HloModule m\n\n%fused (x: f32[16]) -> f32[16] {\n  %x = f32[16] parameter(0)\n  %n = f32[16] negate(%x), frontend_attributes={_scheduling_group_id=\"4\"}\n  ROOT %c = f32[16] copy(%n), frontend_attributes={_scheduling_group_id=\"4\"}\n}\n\nENTRY %e (p: f32[16]) -> f32[16] {\n  %p = f32[16] parameter(0)\n  ROOT %f = f32[16] fusion(%p), kind=kLoop, calls=%fused\n}\n";

    #[test]
    fn a_fusion_takes_the_annotation_of_its_fused_instructions() {
        let (changed, module) = run(FUSION, &Config::default()).unwrap();
        assert!(changed);
        assert_eq!(annotation_of(&module, "f").as_deref(), Some("4"));
        let not_kept = Config {
            keep_sync_annotation: OpcodePredicate::Never,
            ..Config::default()
        };
        assert!(!run(FUSION, &not_kept).unwrap().0);
        let two = FUSION.replacen("\"4\"", "\"5\"", 1);
        assert_eq!(
            run(&two, &Config::default()).err().unwrap(),
            "Found a fusion with multiple annotations in the fused computation. fusion: f, annotations: 5 and 4"
        );
    }

    #[test]
    fn noop_and_loop_iterations_are_removed() {
        let text = module(&format!(
            "  %a0 = f32[16] collective-permute(%p0), {PAIRS}, frontend_attributes={{_scheduling_group_id=\"3:1\"}}\n  ROOT %n = f32[16] negate(%a0), frontend_attributes={{_scheduling_group_id=\"noop\"}}\n"
        ));
        let (changed, module) = run(&text, &Config::default()).unwrap();
        assert!(changed);
        assert_eq!(annotation_of(&module, "n"), None);
        assert_eq!(annotation_of(&module, "a0").as_deref(), Some("3:1"));
        let iterations_only = Config {
            remove_loop_iteration_annotation_only: true,
            ..Config::default()
        };
        let (changed, module) = run(&text, &iterations_only).unwrap();
        assert!(changed);
        assert_eq!(annotation_of(&module, "a0").as_deref(), Some("3"));
        assert_eq!(annotation_of(&module, "n").as_deref(), Some("noop"));
    }

    #[test]
    fn a_generic_async_op_that_only_copies_is_not_async() {
        let text = "HloModule m\n\n%wrapped (x: f32[16]) -> f32[16] {\n  %x = f32[16] parameter(0)\n  ROOT %c = f32[16] copy(%x)\n}\n\nENTRY %e (p: f32[16]) -> f32[16] {\n  %p = f32[16] parameter(0)\n  %start = ((f32[16]), f32[16], u32[]) async-start(%p), calls=%wrapped, frontend_attributes={_scheduling_group_id=\"1\"}\n  ROOT %done = f32[16] async-done(%start), frontend_attributes={_scheduling_group_id=\"1\"}\n}\n";
        let (changed, module) = run(text, &Config::default()).unwrap();
        assert!(changed);
        assert_eq!(annotation_of(&module, "start"), None);
        assert_eq!(annotation_of(&module, "done"), None);
    }
}

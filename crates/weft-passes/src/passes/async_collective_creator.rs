//! `async-collective-creator` (XLA's `AsyncCollectiveCreator`).
//!
//! **Problem.** JAX and XLA's front ends write collectives synchronously: the
//! device stops at an all-reduce until the whole group has reduced. To
//! overlap communication with compute, each collective must become a start,
//! which hands the transfer off, and a done, which waits for it, so that a
//! scheduler can move independent work between them.
//!
//! **Algorithm.** In every computation but fusion bodies and the
//! computations async ops wrap (whose collectives are already
//! asynchronous), each collective whose kind `convert` lists is replaced, in
//! body order:
//! - all-reduce and all-gather (when their result has at least
//!   `all_reduce_min_threshold_in_bytes` / `all_gather_min_threshold_in_bytes`
//!   bytes, unless `should_ignore_size_check`) and collective-permute become
//!   XLA's first-class pairs: `all-reduce-start`/`-done` (the start has the
//!   all-reduce's shape), `all-gather-start`/`-done` (the start's shape is
//!   `(operands, result)`, the operands a tuple when there are several),
//!   `collective-permute-start`/`-done` (`(operand, result)`, the operands
//!   a tuple when there are several; `(input, output buffer)` for the
//!   in-place form);
//! - every other kind — collective-broadcast, all-to-all, reduce-scatter
//!   (with its threshold), ragged-all-to-all — and every kind with
//!   `use_generic_async_start_done`, becomes `async-start`/`async-done` around
//!   a new computation `async_computation` holding the collective on
//!   parameters `param_0`, `param_1`, …; the start's shape is
//!   `((operands), result)`.
//!
//! The start shapes come from shape inference (`weft_ir::infer::asynchronous`),
//! the rules the verifier checks starts against, with no context elements.
//!
//! As XLA does: the start and the done take the collective's metadata,
//! backend config and frontend attributes; the collective's control
//! predecessors move to the start and its control successors to the done;
//! the done replaces every use (and the root). New instructions are named as
//! XLA names them (`all-reduce-start`, `reduce-scatter-done`, made unique
//! with `.N`). In a scheduled computation the start and the done take the
//! collective's place in the sequence, one after the other, and a new
//! wrapped computation is scheduled in post order.
//!
//! **Invariants.** Before: a module that verifies. After: it computes the
//! same values; no converted collective runs synchronously outside an async
//! computation; every start has exactly one done, right after it in a
//! schedule (a scheduler may then move them apart).
//!
//! ```text
//! before                                          after (convert=all-reduce)
//!   ROOT %ar = f32[8] all-reduce(%p),               %all-reduce-start = f32[8] all-reduce-start(%p), …
//!       replica_groups={{0,1}}, to_apply=%add       ROOT %all-reduce-done = f32[8] all-reduce-done(%all-reduce-start)
//! ```

use rustc_hash::FxHashSet;
use weft_ir::attrs::{Attrs, ParameterAttrs};
use weft_ir::infer::{self, InferError, InferredShape};
use weft_ir::{Callees, Comp, Editor, Instr, InstrData, Module, Opcode, Shape};

use crate::analysis::side_effects::SideEffects;
use crate::pass::{OptionKind, OptionSpec, Options, Pass, PassError};

/// The pass's name.
pub const NAME: &str = "async-collective-creator";

/// Its options.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "convert",
        kind: OptionKind::Opcodes,
        default: "",
        doc: "the collectives to convert: all-reduce, all-gather, collective-broadcast, collective-permute, all-to-all, reduce-scatter, ragged-all-to-all (XLA's convert_* predicates)",
    },
    OptionSpec {
        name: "use_generic_async_start_done",
        kind: OptionKind::Bool,
        default: "false",
        doc: "use async-start/async-done for every kind, also those with first-class start/done opcodes",
    },
    OptionSpec {
        name: "all_reduce_min_threshold_in_bytes",
        kind: OptionKind::Int,
        default: "0",
        doc: "convert only all-reduces whose result has at least this many bytes",
    },
    OptionSpec {
        name: "all_gather_min_threshold_in_bytes",
        kind: OptionKind::Int,
        default: "0",
        doc: "convert only all-gathers whose result has at least this many bytes",
    },
    OptionSpec {
        name: "reduce_scatter_min_threshold_in_bytes",
        kind: OptionKind::Int,
        default: "0",
        doc: "convert only reduce-scatters whose result has at least this many bytes",
    },
    OptionSpec {
        name: "should_ignore_size_check",
        kind: OptionKind::Bool,
        default: "false",
        doc: "convert whatever the size (the thresholds do not apply)",
    },
];

/// The pass's configuration, by XLA's field names.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The collective opcodes to convert.
    pub convert: Vec<Opcode>,
    /// Generic async ops for every kind.
    pub use_generic_async_start_done: bool,
    /// The all-reduce size threshold.
    pub all_reduce_min_threshold_in_bytes: i64,
    /// The all-gather size threshold.
    pub all_gather_min_threshold_in_bytes: i64,
    /// The reduce-scatter size threshold.
    pub reduce_scatter_min_threshold_in_bytes: i64,
    /// Ignore the thresholds.
    pub should_ignore_size_check: bool,
}

/// The kinds of collective the pass knows.
const KINDS: &[Opcode] = &[
    Opcode::AllReduce,
    Opcode::AllGather,
    Opcode::CollectiveBroadcast,
    Opcode::CollectivePermute,
    Opcode::AllToAll,
    Opcode::ReduceScatter,
    Opcode::RaggedAllToAll,
];

/// Converts `module`'s collectives as `config` says; returns whether any
/// was converted.
pub fn create_async_collectives(module: &mut Module, config: &Config) -> Result<bool, PassError> {
    let skipped = wrapped_computations(module);
    let effects = SideEffects::of(module);
    let computations: Vec<Comp> = module
        .computations()
        .filter(|comp| !skipped.contains(comp))
        .collect();
    let mut changed = false;
    let mut editor = module.edit();
    for comp in computations {
        let matched: Vec<Instr> = editor
            .module()
            .comp(comp)
            .body()
            .iter()
            .copied()
            .filter(|&instr| matches(editor.module(), instr, config))
            .collect();
        for collective in matched {
            convert(&mut editor, collective, config, &effects)?;
            changed = true;
        }
    }
    Ok(changed)
}

/// Fusion bodies and the computations async ops wrap.
fn wrapped_computations(module: &Module) -> FxHashSet<Comp> {
    module
        .all_instrs()
        .filter(|&instr| {
            matches!(
                module.instr(instr).opcode,
                Opcode::Fusion | Opcode::AsyncStart | Opcode::AsyncUpdate | Opcode::AsyncDone
            )
        })
        .flat_map(|instr| module.instr(instr).callees.iter().copied())
        .collect()
}

/// Whether `config` converts `instr`.
fn matches(module: &Module, instr: Instr, config: &Config) -> bool {
    let opcode = module.instr(instr).opcode;
    if !KINDS.contains(&opcode) || !config.convert.contains(&opcode) {
        return false;
    }
    let threshold = match opcode {
        Opcode::AllReduce => config.all_reduce_min_threshold_in_bytes,
        Opcode::AllGather => config.all_gather_min_threshold_in_bytes,
        Opcode::ReduceScatter => config.reduce_scatter_min_threshold_in_bytes,
        _ => return true,
    };
    config.should_ignore_size_check || result_bytes(module, module.shape_of(instr)) >= threshold
}

/// The bytes of every array in `shape` (XLA's `ByteSizeOfElements`, summed
/// over a tuple's elements).
fn result_bytes(module: &Module, shape: Shape) -> i64 {
    if let Some(elements) = module.shapes.tuple_elements(shape) {
        return elements.iter().map(|&e| result_bytes(module, e)).sum();
    }
    module
        .shapes
        .as_array(shape)
        .and_then(|array| array.byte_size().ok())
        .and_then(|size| i64::try_from(size.get()).ok())
        .unwrap_or(0)
}

/// Replaces `collective` by a start and a done (see the module docs).
fn convert(
    editor: &mut Editor<'_>,
    collective: Instr,
    config: &Config,
    effects: &SideEffects,
) -> Result<(), PassError> {
    let data = editor.data(collective).clone();
    let first_class = if config.use_generic_async_start_done {
        None
    } else {
        match data.opcode {
            Opcode::AllReduce => Some((Opcode::AllReduceStart, Opcode::AllReduceDone)),
            Opcode::AllGather => Some((Opcode::AllGatherStart, Opcode::AllGatherDone)),
            Opcode::CollectivePermute => Some((
                Opcode::CollectivePermuteStart,
                Opcode::CollectivePermuteDone,
            )),
            _ => None,
        }
    };
    let (start_data, done_data) = match first_class {
        Some((start_opcode, done_opcode)) => {
            first_class_pair(editor, &data, start_opcode, done_opcode)?
        }
        None => generic_pair(editor, &data),
    };
    let start = editor.insert_before(collective, start_data);
    let mut done_data = done_data;
    done_data.operands = [start].into_iter().collect();
    let done = editor.insert_before(collective, done_data);
    super::move_control_edges(editor, collective, start, done);
    editor.replace_all_uses(collective, done);
    // The collective's sharding goes to the done, as XLA's
    // ReplaceInstruction gives it.
    if let Some(sharding) = &data.common().sharding {
        editor.data_mut(done).common_mut().sharding = Some(sharding.clone());
    }
    super::remove_with_unused_operands(editor, collective, effects)?;
    Ok(())
}

/// What the start and the done carry of the collective: its metadata,
/// backend config and frontend attributes.
fn carried(data: &InstrData, name: &str, opcode: Opcode, shape: Shape) -> InstrData {
    let common = data.common();
    let mut carried = InstrData {
        name: name.into(),
        opcode,
        shape,
        operands: Default::default(),
        callees: Callees::new(),
        attrs: Attrs::plain(),
        common: None,
        metadata: data.metadata.clone(),
    };
    if common.backend_config.is_some() || common.frontend_attributes.is_some() {
        let into = carried.common_mut();
        into.backend_config = common.backend_config.clone();
        into.frontend_attributes = common.frontend_attributes.clone();
    }
    carried
}

fn first_class_pair(
    editor: &mut Editor<'_>,
    data: &InstrData,
    start_opcode: Opcode,
    done_opcode: Opcode,
) -> Result<(InstrData, InstrData), PassError> {
    let module = editor.module();
    let operand_shapes: Vec<Shape> = data.operands.iter().map(|&o| module.shape_of(o)).collect();
    let start_shape = match start_opcode {
        Opcode::AllReduceStart => infer::asynchronous::all_reduce_start(data.shape),
        Opcode::AllGatherStart => infer::asynchronous::all_gather_start(
            &operand_shapes,
            InferredShape::Existing(data.shape),
        ),
        _ => {
            // No context: weft's runtime keeps none between start and done.
            let in_place =
                matches!(&data.attrs, Attrs::CollectivePermute(c) if c.slice_sizes.is_some());
            infer::asynchronous::collective_permute_start(
                &module.shapes,
                &operand_shapes,
                in_place,
                &[],
            )
            .map_err(|error| inference_failed(data, start_opcode, error))?
        }
    };
    let start_shape = start_shape.intern(editor.shapes_mut());
    let start_name = editor.unique_instr_name(start_opcode.name());
    let done_name = editor.unique_instr_name(done_opcode.name());
    let mut start = carried(data, &start_name, start_opcode, start_shape);
    start.operands = data.operands.clone();
    start.callees = data.callees.clone();
    start.attrs = data.attrs.clone();
    let done = carried(data, &done_name, done_opcode, data.shape);
    Ok((start, done))
}

/// The error for a collective whose start has no shape: the module did not
/// verify.
fn inference_failed(data: &InstrData, start_opcode: Opcode, error: InferError) -> PassError {
    PassError::new(format!(
        "cannot build the {start_opcode} of %{}: {}",
        data.name, error.message
    ))
    .with_hint("the pass expects a module that verifies")
}

fn generic_pair(editor: &mut Editor<'_>, data: &InstrData) -> (InstrData, InstrData) {
    let operand_shapes: Vec<Shape> = data
        .operands
        .iter()
        .map(|&o| editor.module().shape_of(o))
        .collect();
    let comp_name = editor.unique_comp_name("async_computation");
    let wrapped = editor.add_comp(comp_name);
    let mut parameters = Vec::with_capacity(operand_shapes.len());
    for (number, &shape) in operand_shapes.iter().enumerate() {
        let name = editor.unique_instr_name(&format!("param_{number}"));
        parameters.push(editor.append(
            wrapped,
            InstrData {
                name,
                opcode: Opcode::Parameter,
                shape,
                operands: Default::default(),
                callees: Callees::new(),
                attrs: Attrs::Parameter(ParameterAttrs {
                    number: number as i64,
                    replication: None,
                }),
                common: None,
                metadata: None,
            },
        ));
    }
    let clone_name = editor.unique_instr_name(&data.name);
    let mut clone = data.clone();
    clone.name = clone_name;
    clone.operands = parameters.into_iter().collect();
    if let Some(common) = clone.common.as_deref_mut() {
        common.control_predecessors.clear();
    }
    let root = editor.append(wrapped, clone);
    editor.set_root(wrapped, root);
    editor.schedule_like_body(wrapped);
    // ((operands), result) with no context, the wrapped computation's result
    // being the collective's.
    let start_shape =
        infer::asynchronous::async_start(&operand_shapes, InferredShape::Existing(data.shape), &[])
            .intern(editor.shapes_mut());
    let start_name = editor.unique_instr_name(&format!("{}-start", data.opcode.name()));
    let done_name = editor.unique_instr_name(&format!("{}-done", data.opcode.name()));
    let mut start = carried(data, &start_name, Opcode::AsyncStart, start_shape);
    start.operands = data.operands.clone();
    start.callees = Callees::from([wrapped]);
    start.attrs = Attrs::Async(Box::default());
    let mut done = carried(data, &done_name, Opcode::AsyncDone, data.shape);
    done.attrs = Attrs::Async(Box::default());
    (start, done)
}

struct AsyncCollectiveCreator {
    config: Config,
}

impl Pass for AsyncCollectiveCreator {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        create_async_collectives(module, &self.config)
    }
}

pub(crate) fn make(options: &Options) -> Box<dyn Pass> {
    Box::new(AsyncCollectiveCreator {
        config: Config {
            convert: options.opcodes("convert").unwrap_or_default(),
            use_generic_async_start_done: options.bool("use_generic_async_start_done", false),
            all_reduce_min_threshold_in_bytes: options.int("all_reduce_min_threshold_in_bytes", 0),
            all_gather_min_threshold_in_bytes: options.int("all_gather_min_threshold_in_bytes", 0),
            reduce_scatter_min_threshold_in_bytes: options
                .int("reduce_scatter_min_threshold_in_bytes", 0),
            should_ignore_size_check: options.bool("should_ignore_size_check", false),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::text::{PrintOptions, parse, print};

    const ALL_REDUCE: &str = "HloModule m, is_scheduled=true\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %add = f32[] add(%x, %y)\n}\n\nENTRY %main (p: f32[1024]) -> f32[1024] {\n  %p = f32[1024] parameter(0)\n  %ar = f32[1024] all-reduce(%p), replica_groups={{0,1}}, to_apply=%add, frontend_attributes={_scheduling_group_id=\"0\"}, metadata={op_name=\"psum\"}\n  ROOT %n = f32[1024] negate(%ar)\n}\n";

    fn run(text: &str, config: &Config) -> (bool, String) {
        let mut module = parse(text).expect("parses");
        let changed = create_async_collectives(&mut module, config).expect("runs");
        weft_ir::verify(&module).expect("verifies");
        (changed, print(&module, &PrintOptions::long()))
    }

    fn converting(opcodes: &[Opcode]) -> Config {
        Config {
            convert: opcodes.to_vec(),
            ..Config::default()
        }
    }

    #[test]
    fn an_all_reduce_becomes_a_first_class_pair_in_its_place() {
        let (changed, text) = run(ALL_REDUCE, &converting(&[Opcode::AllReduce]));
        assert!(changed);
        assert!(
            text.contains("%all-reduce-start = f32[1024]{0} all-reduce-start(f32[1024]{0} %p), replica_groups={{0,1}}, to_apply=%add, frontend_attributes={_scheduling_group_id=\"0\"}, metadata={op_name=\"psum\"}\n  %all-reduce-done = f32[1024]{0} all-reduce-done(f32[1024]{0} %all-reduce-start), frontend_attributes={_scheduling_group_id=\"0\"}, metadata={op_name=\"psum\"}\n  ROOT %n = f32[1024]{0} negate(f32[1024]{0} %all-reduce-done)"),
            "{text}"
        );
    }

    #[test]
    fn thresholds_and_the_kind_list_decide() {
        let mut config = converting(&[Opcode::AllReduce]);
        config.all_reduce_min_threshold_in_bytes = 4097;
        assert!(!run(ALL_REDUCE, &config).0);
        config.should_ignore_size_check = true;
        assert!(run(ALL_REDUCE, &config).0);
        assert!(!run(ALL_REDUCE, &converting(&[Opcode::AllGather])).0);
    }

    #[test]
    fn the_generic_form_wraps_the_collective() {
        let mut config = converting(&[Opcode::AllReduce]);
        config.use_generic_async_start_done = true;
        let (changed, text) = run(ALL_REDUCE, &config);
        assert!(changed);
        assert!(text.contains("%async_computation"), "{text}");
        // All-reduce has a first-class pair, so XLA prints no sugar for it.
        assert!(
            text.contains("%all-reduce-start = ((f32[1024]{0}), f32[1024]{0}) async-start(f32[1024]{0} %p), calls=%async_computation"),
            "{text}"
        );
        assert!(
            text.contains("%all-reduce-done = f32[1024]{0} async-done("),
            "{text}"
        );
    }
}

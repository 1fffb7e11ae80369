//! Lowering: StableHLO (the op model of [`crate::ir`]) to an HLO [`Module`], as
//! XLA's StableHLO→HLO translation does, producing the program **each device
//! runs**.
//!
//! The mapping:
//! - the entry function (`@main`, else the only public function) becomes the
//!   `ENTRY` computation; a `func.call` becomes a `call` of the callee's
//!   computation (lowered once, however many callers it has); several results
//!   travel as a tuple;
//! - a region becomes a called computation: reducers (`reduce`, `sort`,
//!   `scatter`, collectives, …) take their block arguments as parameters; the
//!   regions of `while`, `if` and `case` may use values defined outside them, so
//!   those values (their *captures*) travel in the loop state or in each
//!   branch's operand tuple; a captured constant is simply re-created inside;
//! - one op becomes one instruction where HLO has the op, and the few-op
//!   expansion XLA's translation uses otherwise (`broadcast_in_dim` expanding a
//!   size-1 dimension, `all_to_all` with different split and concat
//!   dimensions, `dot`);
//! - the three async encodings — `async_start`/`async_done` with a collective in
//!   the region, the explicit `*_start`/`*_done` pairs, and JAX's
//!   `custom_call @all-reduce-start`/`@…-done` — become one HLO async chain: the
//!   first-class pair where XLA has one (all-reduce, all-gather,
//!   collective-permute), else an `async-start`/`async-done` wrapping the
//!   collective (`collectives`);
//! - sharded programs become per-device programs (`partition`): every entry
//!   parameter and result has its per-device (local) shape, the body of an
//!   `sdy.manual_computation` (or of the legacy `@SPMDFullToShardShape` /
//!   `@SPMDShardToFullShape` bracket) is inlined, and values change
//!   distribution with `dynamic-slice` (replicated → sharded) or `all-gather`
//!   (sharded → replicated) where the program asks for it;
//! - `check.*` and `interpreter.*` ops become side-effecting custom-calls
//!   (`check.expect_eq`, …) that the runtime gives meaning to (`testing`);
//!   `interpreter.run_parallel` becomes one naming the computations of the
//!   programs it runs on a grid (`run_parallel`).
//!
//! Invariants of the result: every instruction has a name unique in the module
//! and the default layout unless the op carried an `xla_shape`; callees come
//! before their callers in the computation order; the module passes
//! [`weft_ir::verify`](fn@weft_ir::verify). That last one is checked, not
//! assumed: StableHLO's verifier does not infer every op's shapes, so an op
//! whose types disagree (an `add` of `tensor<2xf32>` and `tensor<3xf32>`)
//! lowers to an instruction HLO's verifier rejects. Each instruction remembers
//! the op it was lowered from, and such an error is reported at that op.
//! (The tests check every corpus program.)

mod boolean_bitcast;
mod captures;
mod chlo;
mod collectives;
pub(crate) use collectives::synchronous_name;
mod control;
mod decompositions;
mod dynamic;
mod ops;
mod partition;
mod refine;
mod result_shapes;
mod run_parallel;
mod shape_folding;
mod shapes;
mod testing;

use rustc_hash::FxHashMap;
use weft_ir::attrs::{Attrs, ParameterAttrs, Sharding};
use weft_ir::entity::SecondaryMap;
use weft_ir::literal::ArrayLiteral;
use weft_ir::names::NameUniquer;
use weft_ir::{
    Callees, Comp, Diagnostic, Instr, InstrData, MAX_CALL_DEPTH, Module, Opcode, Shape, Span,
};

use crate::future_origin::FutureOrigins;
use crate::ir::dialect_attr::SdyMesh;
use crate::ir::{Attribute, Block, Body, LocationNames, Op, Type, Value};
use crate::ops::OpKind;

/// A lowering error, located at the op it is about.
pub type LowerResult<T> = Result<T, Box<Diagnostic>>;

/// Lowers `body` to the HLO module each device runs. Its shapes must be
/// static, or follow from constants (see `docs/dynamic-shapes.md`). The
/// module verifies ([`Lowered::verify`]).
pub fn lower(body: &Body) -> LowerResult<Module> {
    let lowered = lower_unverified(body, None)?;
    lowered.verify(body).map_err(first_error)?;
    Ok(lowered.module)
}

/// Lowers `body` for a run whose entry function takes `arguments`: the
/// entry's `?` dimensions take the arguments' shapes, and shapes computed from
/// integer arguments fold with their values (`docs/dynamic-shapes.md`). The module is for
/// these arguments: other shapes or shape-giving values need another lowering.
pub fn lower_for_arguments(body: &Body, arguments: &[ArrayLiteral]) -> LowerResult<Module> {
    let lowered = lower_unverified(body, Some(arguments))?;
    lowered.verify(body).map_err(first_error)?;
    Ok(lowered.module)
}

/// The first of several errors, saying how many others there are.
fn first_error(mut errors: Vec<Diagnostic>) -> Box<Diagnostic> {
    let others = errors.len() - 1;
    let mut first = errors.swap_remove(0);
    match others {
        0 => {}
        1 => first.message.push_str(" (and 1 more error)"),
        n => first.message.push_str(&format!(" (and {n} more errors)")),
    }
    Box::new(first)
}

/// A lowered module that has not been verified yet, and the op each of its
/// instructions was lowered from.
pub struct Lowered {
    /// The module.
    pub module: Module,
    origins: SecondaryMap<Instr, Option<Op>>,
}

impl Lowered {
    /// Checks the module with HLO's verifier. The StableHLO verifier passed,
    /// so what HLO's finds is a rule it does not check yet (most often an
    /// op's shapes); each error is reported at the op of `body` its
    /// instruction was lowered from, in module order.
    pub fn verify(&self, body: &Body) -> Result<(), Vec<Diagnostic>> {
        weft_ir::verify(&self.module).map_err(|errors| {
            errors
                .iter()
                .map(|error| blame(body, &self.module, &self.origins, error))
                .collect()
        })
    }
}

/// Lowers `body` (for `arguments`, as [`lower_for_arguments`] does, when
/// given) without verifying the result: to verify it separately
/// ([`Lowered::verify`]), or to look at a lowering that does not verify
/// (`weft convert --no-verify`).
pub fn lower_unverified(body: &Body, arguments: Option<&[ArrayLiteral]>) -> LowerResult<Lowered> {
    let entry_func = entry_function(body)?;
    let mut known_values = arguments
        .map(|arguments| refine::known_arguments(body, entry_func, arguments))
        .unwrap_or_default();
    // Only a program with `?` dimensions pays for a copy. Refinement changes
    // types only, so the copy's ops are the original's.
    let refined;
    let body = if refine::needs_refinement(body) {
        let mut copy = body.clone();
        refine::refine(&mut copy, entry_func, &mut known_values, arguments)?;
        refined = copy;
        &refined
    } else {
        body
    };
    let mut lowering = Lowering::new(body)?;
    lowering.known_values = known_values;
    let entry = lowering.lower_function(entry_func, true)?;
    lowering.module.entry = Some(entry);
    lowering.finish(entry);
    lowering.module.fill_entry_computation_layout();
    Ok(Lowered {
        module: lowering.module,
        origins: lowering.origins,
    })
}

/// An HLO verifier error of the lowered `module` as a diagnostic at the op
/// its instruction was lowered from (at the top of the file for one the
/// lowering made for no op in particular).
fn blame(
    body: &Body,
    module: &Module,
    origins: &SecondaryMap<Instr, Option<Op>>,
    error: &weft_ir::verify::VerifyError,
) -> Diagnostic {
    let rule = error.rule.code();
    let hint = match error.instr {
        // Not a rule StableHLO lacks: HLO text cannot say what this op's
        // types (or the tuples the lowering adds around them) become.
        _ if error.rule == weft_ir::Rule::ShapeDepth => error.hint.clone().unwrap_or_default(),
        None => "weft's StableHLO verifier does not check this rule yet; HLO's verifier found it in the lowered module".to_string(),
        Some(instr) => format!(
            "weft's StableHLO verifier does not check this rule yet; HLO's verifier found it at %{} of the lowered module: check the op's operand and result types",
            module.instr(instr).name
        ),
    };
    let (span, what) = match error.instr.and_then(|i| *origins.get(i)) {
        Some(op) => (
            body.span(op).unwrap_or_default(),
            format!("'{}' op", body.ops[op].name.as_str()),
        ),
        None => (Span::default(), "the program".to_string()),
    };
    Diagnostic::error(
        span,
        format!(
            "{what} is not valid: its HLO form breaks [{rule}] {}",
            error.message
        ),
    )
    .with_hint(hint)
}

/// The state of one lowering.
pub(crate) struct Lowering<'b> {
    pub(crate) body: &'b Body,
    pub(crate) module: Module,
    instr_names: NameUniquer,
    comp_names: NameUniquer,
    /// `func.func` ops by symbol.
    functions: FxHashMap<String, Op>,
    /// Functions already lowered, and their computations.
    function_comps: FxHashMap<Op, Comp>,
    /// The instruction holding each lowered value.
    pub(crate) values: FxHashMap<Value, Instr>,
    /// `sdy.mesh` definitions by symbol.
    pub(crate) meshes: FxHashMap<String, SdyMesh>,
    /// Whether the program is partitioned over devices (it declares
    /// `mhlo.num_partitions` > 1): shardings then decide per-device shapes.
    /// Otherwise they are annotations of a program that is already per device
    /// (as XLA's conversion of a partitioned module writes it).
    pub(crate) partitioned: bool,
    /// How values outside manual computations are distributed.
    pub(crate) distribution: partition::Distribution,
    /// The next channel id free for collectives the lowering adds.
    pub(crate) next_channel: i64,
    /// What must follow the done of an async start (an all-to-all's
    /// reshape and transpose).
    pub(crate) after_done: FxHashMap<Instr, collectives::AfterDone>,
    /// The contents of the entry arguments the caller supplied, for folding
    /// shapes that depend on them.
    pub(crate) known_values: FxHashMap<Value, shape_folding::Folded>,
    /// The op being lowered (the innermost, as ops lower their regions'
    /// ops), or the function whose parameters and root are being made.
    pub(crate) lowering: Option<Op>,
    /// The op each instruction was lowered from, for locating errors in the
    /// lowered module.
    origins: SecondaryMap<Instr, Option<Op>>,
    /// Where the program's futures started.
    pub(crate) future_origins: FutureOrigins<'b>,
    /// What each region captures.
    captures: captures::Captures,
    /// The names the program's locations give its ops.
    location_names: LocationNames<'b>,
    /// How many blocks are being lowered, one inside the other: the level
    /// of the computation being filled ([`MAX_CALL_DEPTH`]).
    depth: usize,
}

impl<'b> Lowering<'b> {
    fn new(body: &'b Body) -> LowerResult<Lowering<'b>> {
        let mut lowering = Lowering {
            body,
            module: Module::new(module_name(body)),
            instr_names: NameUniquer::default(),
            comp_names: NameUniquer::default(),
            functions: FxHashMap::default(),
            function_comps: FxHashMap::default(),
            values: FxHashMap::default(),
            meshes: FxHashMap::default(),
            partitioned: false,
            distribution: partition::Distribution::default(),
            next_channel: 1,
            after_done: FxHashMap::default(),
            known_values: FxHashMap::default(),
            lowering: None,
            origins: SecondaryMap::with_default(None),
            future_origins: FutureOrigins::new(body),
            captures: captures::Captures::new(body),
            location_names: body.location_names(),
            depth: 0,
        };
        let module_op = body.module;
        let replicas = integer_attribute(body.attribute(module_op, "mhlo.num_replicas"));
        let partitions = integer_attribute(body.attribute(module_op, "mhlo.num_partitions"));
        if let Some(replicas) = replicas.filter(|&r| r > 1) {
            lowering.module.config.replica_count = Some(replicas);
        }
        if let Some(partitions) = partitions.filter(|&p| p > 1) {
            lowering.module.config.num_partitions = Some(partitions);
            lowering.partitioned = true;
        }
        for &op in &body.blocks[body.module_block()].ops {
            match body.ops[op].name.kind() {
                Some(OpKind::Func) => {
                    if let Some(name) = body.symbol_name(op) {
                        lowering.functions.insert(name.to_string(), op);
                    }
                }
                Some(OpKind::SdyMesh) => {
                    let name = body.symbol_name(op).unwrap_or_default().to_string();
                    let mesh = SdyMesh::read(body.attribute(op, "mesh")).ok_or_else(|| {
                        lowering.error(op, "cannot read this mesh (sub-axes are not supported)")
                    })?;
                    lowering.meshes.insert(name, mesh);
                }
                _ => {}
            }
        }
        // Channels the lowering adds must not collide with the program's.
        let mut highest = 0;
        body.walk(module_op, &mut |op| {
            if let Some(id) =
                crate::ir::dialect_attr::channel_id(body.attribute(op, "channel_handle"))
            {
                highest = highest.max(id);
            }
        });
        lowering.next_channel = highest + 1;
        Ok(lowering)
    }

    /// Orders computations so callees come first, from the entry.
    fn finish(&mut self, entry: Comp) {
        let mut order = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        post_order(&self.module, entry, &mut seen, &mut order);
        // Computations nothing reaches (there should be none) keep their place.
        let unreached: Vec<Comp> = self
            .module
            .computations()
            .filter(|comp| !seen.contains(comp))
            .collect();
        for comp in unreached {
            order.insert(0, comp);
        }
        self.module.set_computation_order(order);
    }

    // ----- computations and functions -----

    /// A new computation with a unique name.
    pub(crate) fn new_computation(&mut self, wanted: &str) -> Comp {
        let name = self.comp_names.unique(&sanitize(wanted));
        self.module.add_comp(name)
    }

    /// The computation of function `func`, lowering it on first use (at the
    /// call being lowered, which a call chain too deep to run is blamed on).
    pub(crate) fn function_computation(&mut self, func: Op) -> LowerResult<Comp> {
        if let Some(&comp) = self.function_comps.get(&func) {
            return Ok(comp);
        }
        self.check_depth("the function")?;
        self.lower_function(func, false)
    }

    /// Refuses to go one computation level deeper than [`MAX_CALL_DEPTH`],
    /// at the op being lowered, which would make `what` a computation there.
    /// The lowering recurses once per level, and the evaluator runs no
    /// deeper, so a deeper program is refused here rather than by a stack
    /// overflow or at its run.
    fn check_depth(&self, what: &str) -> LowerResult<()> {
        if self.depth < MAX_CALL_DEPTH {
            return Ok(());
        }
        let message =
            format!("{what} would be a computation nested more than {MAX_CALL_DEPTH} levels deep");
        let hint = format!(
            "weft runs computations nested at most {MAX_CALL_DEPTH} deep: each function call and each region of a loop, branch or reducer is one level below its caller"
        );
        Err(match self.lowering {
            Some(op) => self.error_with_hint(op, message, hint),
            None => Box::new(Diagnostic::error(Span::default(), message).with_hint(hint)),
        })
    }

    /// The function named `symbol`.
    pub(crate) fn function_named(&self, op: Op, symbol: &str) -> LowerResult<Op> {
        self.functions
            .get(symbol)
            .copied()
            .ok_or_else(|| self.error(op, format!("no function named @{symbol}")))
    }

    fn lower_function(&mut self, func: Op, is_entry: bool) -> LowerResult<Comp> {
        let caller = self.lowering.replace(func);
        let comp = self.lower_function_body(func, is_entry);
        self.lowering = caller;
        comp
    }

    fn lower_function_body(&mut self, func: Op, is_entry: bool) -> LowerResult<Comp> {
        let body = self.body;
        let name = body.symbol_name(func).unwrap_or("main").to_string();
        let comp = self.new_computation(&name);
        self.function_comps.insert(func, comp);
        let region = body.ops[func].regions.first().copied();
        let Some(block) = region.and_then(|r| body.entry_block(r)) else {
            return Err(self.error(func, "cannot lower a function without a body"));
        };
        if body.regions[region.expect("checked")].blocks.len() > 1 {
            return Err(self.error(func, "cannot lower a function with more than one block"));
        }
        if is_entry
            && let Some(&future) = body.blocks[block]
                .arguments
                .iter()
                .find(|&&a| matches!(body.ty(a), Type::Future(_)))
        {
            let name = body.value_name(future).unwrap_or("an argument");
            return Err(self.error_with_hint(
                func,
                format!(
                    "the entry function takes a future ({name}), which no start of the program made"
                ),
                "start the collective inside the program and pass its operand in instead",
            ));
        }
        let arg_attrs = body
            .attribute(func, "arg_attrs")
            .and_then(Attribute::as_array);
        for (index, &argument) in body.blocks[block].arguments.clone().iter().enumerate() {
            let attrs = arg_attrs
                .and_then(|a| a.get(index))
                .and_then(Attribute::as_dictionary)
                .unwrap_or(&[]);
            let ty = body.ty(argument).clone();
            let (shape, sharding) = if is_entry {
                self.entry_parameter(func, argument, &ty, attrs)?
            } else {
                (self.shape(&ty).map_err(|m| self.error(func, m))?, None)
            };
            let name = self
                .location_names
                .name(body.values[argument].location.as_ref())
                .unwrap_or_else(|| format!("Arg_{index}"));
            let parameter = self.emit(
                comp,
                &name,
                Opcode::Parameter,
                shape,
                Vec::new(),
                Attrs::Parameter(ParameterAttrs {
                    number: index as i64,
                    replication: None,
                }),
            );
            if let Some(sharding) = sharding {
                self.module.instrs[parameter].common_mut().sharding = Some(sharding);
            }
            self.values.insert(argument, parameter);
        }
        let results = self.lower_block(comp, block)?;
        let terminator = *body.blocks[block]
            .ops
            .last()
            .expect("lowered blocks end in a return");
        let (results, result_shardings) = if is_entry {
            self.entry_results(comp, func, terminator, results)?
        } else {
            (results, Vec::new())
        };
        let mut root = self.root_of(comp, &results, terminator);
        if !result_shardings.is_empty() {
            root = self.with_result_sharding(comp, root, result_shardings);
        }
        self.module.set_root(comp, root);
        Ok(comp)
    }

    /// Records the entry's result shardings on its root, as XLA writes them:
    /// the sharding of the one result, or a tuple sharding. A root that
    /// already carries another sharding (a parameter returned as is, with a
    /// different annotation) is copied first, so its own annotation stays.
    fn with_result_sharding(&mut self, comp: Comp, root: Instr, shardings: Vec<Sharding>) -> Instr {
        // One result is the root itself (root_of adds no tuple for it).
        let sharding = match <[Sharding; 1]>::try_from(shardings) {
            Ok([only]) => only,
            Err(many) => Sharding::Tuple(many),
        };
        let root = match &self.module.instrs[root].common().sharding {
            Some(existing) if *existing != sharding => {
                let shape = self.module.shape_of(root);
                let name = format!("{}.result", self.module.instrs[root].name);
                self.emit(comp, &name, Opcode::Copy, shape, vec![root], Attrs::plain())
            }
            _ => root,
        };
        self.module.instrs[root].common_mut().sharding = Some(sharding);
        root
    }

    /// The root of a computation returning `results`: the one value, or a tuple.
    pub(crate) fn root_of(&mut self, comp: Comp, results: &[Instr], terminator: Op) -> Instr {
        if let [only] = results {
            return *only;
        }
        let shapes: Vec<Shape> = results.iter().map(|&r| self.module.shape_of(r)).collect();
        let shape = self.module.shapes.tuple(&shapes);
        let name = self.name_for(terminator, "tuple");
        self.emit(
            comp,
            &name,
            Opcode::Tuple,
            shape,
            results.to_vec(),
            Attrs::plain(),
        )
    }

    /// Lowers the ops of `block` into `comp`; returns the instructions of the
    /// values its terminator returns.
    pub(crate) fn lower_block(&mut self, comp: Comp, block: Block) -> LowerResult<Vec<Instr>> {
        self.check_depth("its region")?;
        self.depth += 1;
        let results = self.lower_block_here(comp, block);
        self.depth -= 1;
        results
    }

    fn lower_block_here(&mut self, comp: Comp, block: Block) -> LowerResult<Vec<Instr>> {
        let ops = self.body.blocks[block].ops.clone();
        let Some((&terminator, rest)) = ops.split_last() else {
            return Err(Box::new(Diagnostic::error(
                Span::default(),
                "cannot lower an empty block",
            )));
        };
        for &op in rest {
            self.lower_op(comp, op)?;
        }
        match self.body.ops[terminator].name.kind() {
            Some(OpKind::FuncReturn | OpKind::Return | OpKind::SdyReturn) => {}
            _ => {
                return Err(self.error(terminator, "expected a return at the end of the block"));
            }
        }
        self.operands(terminator)
    }

    // ----- values -----

    /// The instruction of `value`.
    pub(crate) fn value(&self, op: Op, value: Value) -> LowerResult<Instr> {
        self.values.get(&value).copied().ok_or_else(|| {
            self.error(op, "uses a value the lowering has not produced (is it defined later, or in a region HLO cannot see?)")
        })
    }

    /// The instructions of `op`'s operands.
    pub(crate) fn operands(&self, op: Op) -> LowerResult<Vec<Instr>> {
        self.body.ops[op]
            .operands
            .iter()
            .map(|&v| self.value(op, v))
            .collect()
    }

    /// The HLO shape of `op`'s results: the one result's, or a tuple of them.
    pub(crate) fn result_shape(&mut self, op: Op) -> LowerResult<Shape> {
        // A future's shape is its payload's: the lowering gives an async
        // start the shape of the op it starts. A distributed result has its
        // per-device shape.
        let mut shapes = Vec::new();
        for result in self.body.ops[op].results.clone() {
            let types = match self.body.ty(result) {
                Type::Future(payload) => payload.clone(),
                other => vec![other.clone()],
            };
            for ty in types {
                let shape = self.shape(&ty).map_err(|m| self.error(op, m))?;
                let shape = self
                    .localize(result, shape)
                    .map_err(|m| self.error(op, m))?;
                shapes.push(shape);
            }
        }
        let mut shape = match shapes.as_slice() {
            [only] => *only,
            _ => self.module.shapes.tuple(&shapes),
        };
        // XLA's translation honours a result layout carried as `xla_shape`.
        if let Some(text) = self
            .body
            .attribute(op, "xla_shape")
            .and_then(Attribute::as_str)
            && let Ok(with_layout) = weft_ir::text::parse_shape(text, &mut self.module.shapes)
            && weft_ir::shape_util::compatible(&self.module.shapes, with_layout, shape)
        {
            shape = with_layout;
        }
        Ok(shape)
    }

    /// Records `instr` as the value of `op`'s results: directly for one result,
    /// through `get-tuple-element`s for several.
    pub(crate) fn bind_results(&mut self, comp: Comp, op: Op, instr: Instr) {
        let results = self.body.ops[op].results.clone();
        if let [only] = results.as_slice() {
            self.values.insert(*only, instr);
            return;
        }
        let name = self.module.instrs[instr].name.clone();
        for (index, result) in results.into_iter().enumerate() {
            let element = self.get_tuple_element(comp, instr, index, &name);
            self.values.insert(result, element);
        }
    }

    /// `get-tuple-element(tuple), index=index`.
    pub(crate) fn get_tuple_element(
        &mut self,
        comp: Comp,
        tuple: Instr,
        index: usize,
        base_name: &str,
    ) -> Instr {
        let tuple_shape = self.module.shape_of(tuple);
        let shape = self
            .module
            .shapes
            .tuple_elements(tuple_shape)
            .and_then(|e| e.get(index).copied())
            .expect("get-tuple-element of a tuple element that exists");
        self.emit(
            comp,
            &format!("{base_name}.gte{index}"),
            Opcode::GetTupleElement,
            shape,
            vec![tuple],
            Attrs::GetTupleElement {
                index: index as i64,
            },
        )
    }

    /// A tuple of `elements`.
    pub(crate) fn tuple(&mut self, comp: Comp, elements: Vec<Instr>, name: &str) -> Instr {
        let shapes: Vec<Shape> = elements.iter().map(|&e| self.module.shape_of(e)).collect();
        let shape = self.module.shapes.tuple(&shapes);
        self.emit(comp, name, Opcode::Tuple, shape, elements, Attrs::plain())
    }

    // ----- instructions -----

    /// Adds an instruction to `comp` with a unique name based on `wanted`.
    pub(crate) fn emit(
        &mut self,
        comp: Comp,
        wanted: &str,
        opcode: Opcode,
        shape: Shape,
        operands: Vec<Instr>,
        attrs: Attrs,
    ) -> Instr {
        let name = self.instr_names.unique(&sanitize(wanted));
        let instr = self.module.add_instr(
            comp,
            InstrData {
                name: name.into(),
                opcode,
                shape,
                operands: operands.into(),
                callees: Callees::new(),
                attrs,
                common: None,
                metadata: None,
            },
        );
        self.origins.set(instr, self.lowering);
        instr
    }

    /// Adds a side-effecting `custom-call` to `target` (the interpreter's check
    /// and probe ops, `run_parallel`), with `backend_config` as its options.
    pub(crate) fn emit_side_effect_call(
        &mut self,
        comp: Comp,
        wanted: &str,
        target: &str,
        shape: Shape,
        operands: Vec<Instr>,
        backend_config: Option<String>,
    ) -> Instr {
        let attrs = weft_ir::attrs::CustomCallAttrs {
            target: target.to_string(),
            has_side_effect: true,
            ..Default::default()
        };
        let instr = self.emit(
            comp,
            wanted,
            Opcode::CustomCall,
            shape,
            operands,
            Attrs::CustomCall(Box::new(attrs)),
        );
        if let Some(config) = backend_config {
            self.module.instrs[instr].common_mut().backend_config =
                Some(weft_ir::attrs::BackendConfig(config));
        }
        instr
    }

    /// The name for `op`'s instruction: its location's name when it has one
    /// (as XLA's translation does), else `fallback`.
    pub(crate) fn name_for(&self, op: Op, fallback: &str) -> String {
        self.location_names
            .name(self.body.ops[op].location.as_ref())
            .unwrap_or_else(|| fallback.to_string())
    }

    /// An error located at `op`.
    pub(crate) fn error(&self, op: Op, message: impl Into<String>) -> Box<Diagnostic> {
        Box::new(op_error(self.body, op, message))
    }

    /// An error located at `op`, with a hint.
    pub(crate) fn error_with_hint(
        &self,
        op: Op,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Box<Diagnostic> {
        let error = self.error(op, message);
        Box::new(error.with_hint(hint))
    }

    /// The next free channel id.
    pub(crate) fn fresh_channel(&mut self) -> i64 {
        let id = self.next_channel;
        self.next_channel += 1;
        id
    }
}

/// The entry function ([`Body::entry_function`]).
fn entry_function(body: &Body) -> LowerResult<Op> {
    body.entry_function().ok_or_else(|| {
        Box::new(
            Diagnostic::error(Span::default(), "no entry function to lower")
                .with_hint("name the entry function @main"),
        )
    })
}

/// A lowering error located at `op` of `body`, naming it.
pub(crate) fn op_error(body: &Body, op: Op, message: impl Into<String>) -> Diagnostic {
    let span = body.span(op).unwrap_or_default();
    let name = body.ops[op].name.as_str();
    Diagnostic::error(span, format!("cannot lower '{name}': {}", message.into()))
}

/// The module's name: `@jit_f` gives `jit_f`.
fn module_name(body: &Body) -> String {
    body.symbol_name(body.module)
        .map(sanitize)
        .unwrap_or_else(|| "main".to_string())
}

/// An integer attribute's value.
pub(crate) fn integer_attribute(attribute: Option<&Attribute>) -> Option<i64> {
    attribute?.as_integer().and_then(|v| i64::try_from(v).ok())
}

/// Makes `text` a valid HLO name: letters, digits, `_`, `.` and `-`.
fn sanitize(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '-') {
        out.insert(0, '_');
    }
    out
}

/// Appends the computations `comp` reaches to `order`, callees first, in the
/// order their callers name them; iterative, as call chains may be long.
fn post_order(
    module: &Module,
    comp: Comp,
    seen: &mut rustc_hash::FxHashSet<Comp>,
    order: &mut Vec<Comp>,
) {
    if !seen.insert(comp) {
        return;
    }
    let callees = |comp: Comp| {
        module.comps[comp]
            .body()
            .iter()
            .flat_map(|&instr| module.instrs[instr].callees.iter().copied())
    };
    let mut stack = vec![(comp, callees(comp))];
    while let Some((_, pending)) = stack.last_mut() {
        match pending.find(|&callee| seen.insert(callee)) {
            Some(callee) => stack.push((callee, callees(callee))),
            None => {
                let (done, _) = stack.pop().expect("a computation on the stack");
                order.push(done);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `add` whose operand types disagree passes the StableHLO verifier
    /// (it does not infer this op's shapes) but not HLO's.
    const MISMATCHED_ADD: &str = "func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n  %0 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";

    #[test]
    fn an_instruction_that_does_not_verify_is_blamed_on_its_op() {
        let body = crate::text::parse(MISMATCHED_ADD).expect("parses");
        let error = lower(&body).expect_err("HLO's verifier rejects the add");
        let at = error.line_col(MISMATCHED_ADD);
        assert_eq!((at.line, at.col), (2, 8), "{}", error.message);
        assert!(
            error.message.starts_with(
                "'stablehlo.add' op is not valid: its HLO form breaks [shape.elementwise]"
            ),
            "{}",
            error.message
        );
        assert!(
            lower_unverified(&body, None).is_ok(),
            "the unverified lowering still shows the module"
        );
    }
}

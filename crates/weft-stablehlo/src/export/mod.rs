//! Export: an HLO module ([`weft_ir::Module`]) as a StableHLO file, as XLA's
//! HLO importer (`hlo_to_mhlo`, then the StableHLO legalization) writes it.
//!
//! - The entry computation becomes the public `@main`; a computation reached by
//!   `call` or `fusion` becomes a private function of its own name (a fusion is
//!   called like a function: StableHLO has no fusion op). Every other called
//!   computation (reducers, comparators, loop bodies and conditions, branches,
//!   async-wrapped ops) becomes the region of the op that calls it.
//! - A function whose root is a tuple returns the tuple's elements, as the
//!   importer's flattening does; `while` carries its tuple state as separate
//!   values. Tuples that only feed `get-tuple-element`s are never built: a
//!   tuple-shaped value is tracked element by element (`Val::Tuple`) and a
//!   `stablehlo.tuple` is written only where a single value is needed.
//! - **Async**: the first-class pairs (`all-reduce-start`/`-done`,
//!   `all-gather-start`/`-done`, `collective-permute-start`/`-done`) and generic
//!   `async-start`/`async-done` wrapping a collective or slice op become
//!   `stablehlo.async_start` holding the synchronous op in its region, returning
//!   `!stablehlo.future<T>`, and `stablehlo.async_done`, as XLA's
//!   `async_importer` does; `async-update`s disappear. StableHLO's
//!   `async_start` holds only collectives and slices, so an async op wrapping
//!   anything else is exported synchronously at its start, with a warning.
//! - A computation that several instructions call, and that itself calls
//!   computations as regions, is written once, as a private function that
//!   its regions call: written into every region, it would repeat its own
//!   regions once per caller, exponentially in how deep such sharing goes.
//!   A computation that calls none (a reducer like `%add`) is written into
//!   each region, as XLA's importer does.
//! - Layouts, schedules, shardings and metadata are not carried over; each op
//!   gets `loc("<instruction name>")`, so lowering the result back gives the
//!   original names.
//!
//! Invariant: every value an instruction produces is recorded before any user
//! is exported (instructions are visited in a topological order of each
//! computation), and every op is created with its final types.

mod attributes;
mod instructions;
mod linalg;
mod types;

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::{Comp, Instr, MAX_CALL_DEPTH, Module, Opcode, Shape};

use crate::ir::attribute::NamedAttribute;
use crate::ir::{Attribute, Block, Body, Location, Op, OpData, Type, Value};
use crate::ops::{OpKind, OpName};

/// The exported file and what it could not say exactly.
#[derive(Debug)]
pub struct Exported {
    /// The StableHLO file.
    pub body: Body,
    /// Instructions exported with a loss (e.g. an async op made synchronous).
    pub warnings: Vec<ExportMessage>,
}

/// A message about one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportMessage {
    /// The instruction's computation and name, e.g. `main/%all-reduce-start`.
    pub instruction: String,
    /// The instruction, when the message is about one (not a computation), for
    /// finding it in the source.
    pub instr: Option<Instr>,
    /// What happened.
    pub message: String,
}

impl std::fmt::Display for ExportMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.instruction, self.message)
    }
}

type ExportResult<T> = Result<T, ExportMessage>;

/// `module` as a StableHLO file.
pub fn export(module: &Module) -> Result<Exported, ExportMessage> {
    let entry = module.entry.ok_or_else(|| ExportMessage {
        instruction: module.name.clone(),
        instr: None,
        message: "the module has no entry computation".into(),
    })?;
    let mut exporter = Exporter {
        module,
        body: Body::new(),
        values: FxHashMap::default(),
        functions: FxHashMap::default(),
        symbols: FxHashSet::default(),
        outlined: outlined(module),
        pending: Vec::new(),
        warnings: Vec::new(),
        exporting: None,
        depth: 0,
        users: std::cell::OnceCell::new(),
    };
    exporter.module_attributes();
    exporter.functions.insert(entry, "main".to_string());
    exporter.symbols.insert("main".to_string());
    exporter.function(entry, "main", true)?;
    while let Some((comp, name)) = exporter.pending.pop() {
        exporter.function(comp, &name, false)?;
    }
    debug_assert_eq!(exporter.depth, 0);
    Ok(Exported {
        body: exporter.body,
        warnings: exporter.warnings,
    })
}

/// What an HLO instruction's value is on the StableHLO side: one value, or a
/// tuple tracked element by element.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    One(Value),
    Tuple(Vec<Val>),
}

pub(crate) struct Exporter<'m> {
    pub(crate) module: &'m Module,
    pub(crate) body: Body,
    pub(crate) values: FxHashMap<Instr, Val>,
    /// Computations exported as functions, by symbol name.
    functions: FxHashMap<Comp, String>,
    /// The symbols of `functions`.
    symbols: FxHashSet<String>,
    /// Computations regions call as functions rather than hold (see the
    /// module documentation).
    outlined: FxHashSet<Comp>,
    /// Functions still to write.
    pending: Vec<(Comp, String)>,
    pub(crate) warnings: Vec<ExportMessage>,
    /// The instruction being exported (the innermost, as instructions export
    /// the computations they call).
    exporting: Option<Instr>,
    /// How many computations are being exported, one inside the other.
    depth: usize,
    /// The users of every instruction, found when first needed.
    users: std::cell::OnceCell<FxHashMap<Instr, Vec<Instr>>>,
}

impl<'m> Exporter<'m> {
    fn module_attributes(&mut self) {
        let module = self.body.module;
        let data = &mut self.body.ops[module];
        data.properties.push(NamedAttribute {
            name: "sym_name".into(),
            value: Attribute::String(symbol(&self.module.name)),
        });
        let config = &self.module.config;
        let mut attributes = Vec::new();
        if let Some(partitions) = config.num_partitions {
            attributes.push(("mhlo.num_partitions", partitions));
        }
        if let Some(replicas) = config.replica_count {
            attributes.push(("mhlo.num_replicas", replicas));
        }
        for (name, value) in attributes {
            data.attributes.push(NamedAttribute {
                name: name.into(),
                value: Attribute::Integer {
                    value: i128::from(value),
                    ty: Type::Element(crate::ir::ElementKind::int(32)),
                },
            });
        }
    }

    /// The message for a problem at `instr`.
    pub(crate) fn error(&self, instr: Instr, message: impl Into<String>) -> ExportMessage {
        let data = self.module.instr(instr);
        ExportMessage {
            instruction: format!(
                "{}/%{}",
                self.module.comp(self.module.parent(instr)).name,
                data.name
            ),
            instr: Some(instr),
            message: message.into(),
        }
    }

    /// `[#stablehlo<precision …>, …]` for the operand precisions of `instr`.
    /// StableHLO's precisions are DEFAULT, HIGH and HIGHEST: XLA's
    /// `packed_nibble` (int4 values packed two to a byte) has no StableHLO
    /// form, and dropping it would change what the op computes.
    pub(crate) fn precision_config(
        &self,
        instr: Instr,
        precision: &[weft_ir::attrs::Precision],
    ) -> ExportResult<Attribute> {
        precision
            .iter()
            .map(|p| match p {
                weft_ir::attrs::Precision::PackedNibble => Err(self.error(
                    instr,
                    "operand precision packed_nibble has no StableHLO form (its precisions are DEFAULT, HIGH and HIGHEST)",
                )),
                _ => Ok(attributes::keyword(
                    "precision",
                    &p.name().to_ascii_uppercase(),
                )),
            })
            .collect::<ExportResult<_>>()
            .map(Attribute::Array)
    }

    /// Notes a loss at `instr`.
    pub(crate) fn warn(&mut self, instr: Instr, message: impl Into<String>) {
        let warning = self.error(instr, message);
        self.warnings.push(warning);
    }

    /// The symbol of the function `comp` is exported as, queuing it if new.
    pub(crate) fn function_symbol(&mut self, comp: Comp) -> String {
        if let Some(name) = self.functions.get(&comp) {
            return name.clone();
        }
        let base = symbol(&self.module.comp(comp).name);
        let mut name = base.clone();
        let mut n = 1;
        while self.symbols.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.symbols.insert(name.clone());
        self.functions.insert(comp, name.clone());
        self.pending.push((comp, name.clone()));
        name
    }

    /// Writes `comp` as `func.func @name`.
    fn function(&mut self, comp: Comp, name: &str, public: bool) -> ExportResult<()> {
        let module_block = self.body.module_block();
        let mut data = OpData::new(OpName::Known(OpKind::Func));
        let params = self.module.comp(comp).params().to_vec();
        let mut inputs = Vec::new();
        for &param in &params {
            inputs.push(self.ty(param, self.module.shape_of(param))?);
        }
        let root = self.root(comp)?;
        let outputs = self.flat_types(root, self.module.shape_of(root))?;
        data.properties.push(NamedAttribute {
            name: "function_type".into(),
            value: Attribute::Type(Type::Function(crate::ir::FunctionType {
                inputs: inputs.clone(),
                results: outputs,
            })),
        });
        data.properties.push(NamedAttribute {
            name: "sym_name".into(),
            value: Attribute::String(name.to_string()),
        });
        if !public {
            data.properties.push(NamedAttribute {
                name: "sym_visibility".into(),
                value: Attribute::String("private".into()),
            });
        }
        let func = self.body.add_op(Some(module_block), data, Vec::new());
        let region = self.body.add_region(func);
        let block = self.body.add_block(region);
        let arguments: Vec<Val> = inputs
            .into_iter()
            .map(|ty| Val::One(self.body.add_argument(block, ty, None)))
            .collect();
        let result = self.computation(comp, block, arguments)?;
        let returned = self.flatten(block, root, &result)?;
        self.terminator(block, OpKind::FuncReturn, returned);
        Ok(())
    }

    pub(crate) fn root(&self, comp: Comp) -> ExportResult<Instr> {
        self.module.comp(comp).root().ok_or_else(|| ExportMessage {
            instruction: self.module.comp(comp).name.to_string(),
            instr: None,
            message: "the computation has no root".into(),
        })
    }

    /// Exports the instructions of `comp` into `block`, its parameters bound to
    /// `params`; returns the root's value.
    ///
    /// A computation an instruction calls becomes a region inside the
    /// instruction's op (or its ops are written in place), one level deeper:
    /// [`MAX_CALL_DEPTH`] levels at most, as many as weft runs, so that the
    /// recursion stays bounded and the file nests within what the parser
    /// reads ([`MAX_DEPTH`](crate::text::MAX_DEPTH)). Functions start again at
    /// the first level.
    pub(crate) fn computation(
        &mut self,
        comp: Comp,
        block: Block,
        params: Vec<Val>,
    ) -> ExportResult<Val> {
        if self.depth >= MAX_CALL_DEPTH {
            let message = format!(
                "its computation %{} would be a region nested more than {MAX_CALL_DEPTH} levels deep",
                self.module.comp(comp).name
            );
            return Err(match self.exporting {
                Some(instr) => self.error(instr, message),
                None => ExportMessage {
                    instruction: self.module.comp(comp).name.to_string(),
                    instr: None,
                    message,
                },
            });
        }
        self.depth += 1;
        let value = self.computation_here(comp, block, params);
        self.depth -= 1;
        value
    }

    fn computation_here(
        &mut self,
        comp: Comp,
        block: Block,
        params: Vec<Val>,
    ) -> ExportResult<Val> {
        let data = self.module.comp(comp);
        if params.len() != data.params().len() {
            return Err(ExportMessage {
                instruction: data.name.to_string(),
                instr: None,
                message: format!(
                    "{} parameter(s) but {} value(s) to bind",
                    data.params().len(),
                    params.len()
                ),
            });
        }
        for (&param, value) in data.params().iter().zip(params) {
            self.values.insert(param, value);
        }
        for instr in topological_order(self.module, comp) {
            if self.module.instr(instr).opcode != Opcode::Parameter {
                self.instruction(block, instr)?;
            }
        }
        let root = self.root(comp)?;
        self.val(root)
    }

    /// The value recorded for `instr`.
    pub(crate) fn val(&self, instr: Instr) -> ExportResult<Val> {
        self.values
            .get(&instr)
            .cloned()
            .ok_or_else(|| self.error(instr, "used before it is defined (a cycle?)"))
    }

    /// `val` as one value, building a `stablehlo.tuple` if it is tracked by
    /// element.
    pub(crate) fn one(&mut self, block: Block, val: &Val) -> ExportResult<Value> {
        match val {
            Val::One(value) => Ok(*value),
            Val::Tuple(elements) => {
                let mut values = Vec::new();
                for element in elements {
                    values.push(self.one(block, element)?);
                }
                let types = values.iter().map(|&v| self.body.ty(v).clone()).collect();
                let op = self.emit(
                    block,
                    OpKind::Tuple,
                    values,
                    vec![Type::Tuple(types)],
                    Vec::new(),
                    None,
                );
                Ok(self.body.ops[op].results[0])
            }
        }
    }

    /// The value of operand `index` of `instr` as one value.
    pub(crate) fn operand(
        &mut self,
        block: Block,
        instr: Instr,
        index: usize,
    ) -> ExportResult<Value> {
        let operand = *self
            .module
            .instr(instr)
            .operands
            .get(index)
            .ok_or_else(|| self.error(instr, format!("has no operand {index}")))?;
        let val = self.val(operand)?;
        self.one(block, &val)
    }

    /// Every operand of `instr`, each as one value.
    pub(crate) fn operands(&mut self, block: Block, instr: Instr) -> ExportResult<Vec<Value>> {
        (0..self.module.instr(instr).operands.len())
            .map(|i| self.operand(block, instr, i))
            .collect()
    }

    /// Element `index` of a tuple-shaped value.
    pub(crate) fn element(
        &mut self,
        block: Block,
        instr: Instr,
        val: &Val,
        index: usize,
    ) -> ExportResult<Val> {
        match val {
            Val::Tuple(elements) => elements
                .get(index)
                .cloned()
                .ok_or_else(|| self.error(instr, format!("tuple index {index} out of range"))),
            Val::One(value) => {
                let Type::Tuple(types) = self.body.ty(*value).clone() else {
                    return Err(
                        self.error(instr, "get-tuple-element of a value that is not a tuple")
                    );
                };
                let ty = types.get(index).cloned().ok_or_else(|| {
                    self.error(instr, format!("tuple index {index} out of range"))
                })?;
                let op = self.emit(
                    block,
                    OpKind::GetTupleElement,
                    vec![*value],
                    vec![ty],
                    vec![("index", attributes::i32(index as i64))],
                    None,
                );
                Ok(Val::One(self.body.ops[op].results[0]))
            }
        }
    }

    /// A tuple-shaped `val` (of `instr`'s shape) as its elements; any other as
    /// itself.
    pub(crate) fn flatten(
        &mut self,
        block: Block,
        instr: Instr,
        val: &Val,
    ) -> ExportResult<Vec<Value>> {
        let shape = self.module.shape_of(instr);
        let Some(count) = self.module.shapes.tuple_elements(shape).map(<[Shape]>::len) else {
            return Ok(vec![self.one(block, val)?]);
        };
        let mut values = Vec::new();
        for index in 0..count {
            let element = self.element(block, instr, val, index)?;
            values.push(self.one(block, &element)?);
        }
        Ok(values)
    }

    /// The types [`Exporter::flatten`] gives for a value of `shape`.
    pub(crate) fn flat_types(&self, instr: Instr, shape: Shape) -> ExportResult<Vec<Type>> {
        match self.module.shapes.tuple_elements(shape) {
            Some(elements) => elements.iter().map(|&e| self.ty(instr, e)).collect(),
            None => Ok(vec![self.ty(instr, shape)?]),
        }
    }

    /// Results of an op as the [`Val`] of an instruction of `shape`: one
    /// result as itself, several as a tuple of them.
    pub(crate) fn results_val(&self, op: Op, shape: Shape) -> Val {
        let results = &self.body.ops[op].results;
        if self.module.shapes.is_tuple(shape) {
            Val::Tuple(results.iter().map(|&r| Val::One(r)).collect())
        } else {
            Val::One(results[0])
        }
    }

    /// Appends an op to `block`; `attributes` are sorted into inherent
    /// properties and discardable attributes by the op table.
    pub(crate) fn emit(
        &mut self,
        block: Block,
        kind: OpKind,
        operands: Vec<Value>,
        result_types: Vec<Type>,
        attributes: Vec<(&str, Attribute)>,
        name: Option<&str>,
    ) -> Op {
        let op_name = OpName::Known(kind);
        let mut data = OpData::new(op_name.clone());
        data.operands = operands;
        for (attribute_name, value) in attributes {
            let entry = NamedAttribute {
                name: attribute_name.to_string(),
                value,
            };
            if op_name.is_inherent(attribute_name) {
                data.properties.push(entry);
            } else {
                data.attributes.push(entry);
            }
        }
        data.properties.sort_by(|a, b| a.name.cmp(&b.name));
        data.attributes.sort_by(|a, b| a.name.cmp(&b.name));
        data.location = name.map(|name| Location::Name {
            name: name.to_string(),
            child: None,
        });
        self.body.add_op(Some(block), data, result_types)
    }

    /// Ends `block` with a `kind` terminator returning `values`.
    pub(crate) fn terminator(&mut self, block: Block, kind: OpKind, values: Vec<Value>) {
        self.emit(block, kind, values, Vec::new(), Vec::new(), None);
    }

    /// A region on `op` with one block whose arguments have `types`.
    pub(crate) fn region_block(&mut self, op: Op, types: Vec<Type>) -> (Block, Vec<Value>) {
        let region = self.body.add_region(op);
        let block = self.body.add_block(region);
        let arguments = types
            .into_iter()
            .map(|ty| self.body.add_argument(block, ty, None))
            .collect();
        (block, arguments)
    }

    /// `comp` as the body of a region's `block`, its parameters bound to
    /// `params`: its instructions in place, or a call of it as a function
    /// when it is outlined (see the module documentation); returns the
    /// root's value.
    pub(crate) fn region_computation(
        &mut self,
        comp: Comp,
        block: Block,
        params: Vec<Val>,
    ) -> ExportResult<Val> {
        if !self.outlined.contains(&comp) {
            return self.computation(comp, block, params);
        }
        let mut operands = Vec::new();
        for (param, value) in self.module.comp(comp).params().iter().zip(&params) {
            let operand = self.one(block, value)?;
            // A future carried in a loop's state has no HLO shape to type a
            // function parameter with: such a body stays in place.
            if *self.body.ty(operand) != self.ty(*param, self.module.shape_of(*param))? {
                return self.computation(comp, block, params);
            }
            operands.push(operand);
        }
        let symbol = self.function_symbol(comp);
        let root = self.root(comp)?;
        let shape = self.module.shape_of(root);
        let results = self.flat_types(root, shape)?;
        let op = self.emit(
            block,
            OpKind::Call,
            operands,
            results,
            vec![("callee", Attribute::SymbolRef(vec![symbol]))],
            None,
        );
        Ok(self.results_val(op, shape))
    }

    /// Adds to `op` a region holding `comp` with its parameters as block
    /// arguments (scalars become rank-0 tensors), ended by `stablehlo.return`
    /// of the root (flattened when `flatten_root`).
    pub(crate) fn called_region(
        &mut self,
        instr: Instr,
        op: Op,
        comp: Comp,
        flatten_root: bool,
    ) -> ExportResult<()> {
        let params = self.module.comp(comp).params().to_vec();
        let mut types = Vec::new();
        for &param in &params {
            types.push(self.ty(instr, self.module.shape_of(param))?);
        }
        let (block, arguments) = self.region_block(op, types);
        let bound = arguments.into_iter().map(Val::One).collect();
        let root_val = self.region_computation(comp, block, bound)?;
        let root = self.root(comp)?;
        let returned = if flatten_root {
            self.flatten(block, root, &root_val)?
        } else {
            vec![self.one(block, &root_val)?]
        };
        self.terminator(block, OpKind::Return, returned);
        Ok(())
    }
}

/// The computations regions call as functions: those that more than one
/// instruction calls and that call computations as regions themselves.
/// (An async op's wrapped computation is always written in place.)
fn outlined(module: &Module) -> FxHashSet<Comp> {
    let holds_regions = |instr: Instr| {
        let data = module.instr(instr);
        !data.callees.is_empty()
            && !matches!(
                data.opcode,
                Opcode::Call
                    | Opcode::Fusion
                    | Opcode::CustomCall
                    | Opcode::AsyncStart
                    | Opcode::AsyncUpdate
                    | Opcode::AsyncDone
            )
    };
    let mut callers: FxHashMap<Comp, usize> = FxHashMap::default();
    let mut with_regions: FxHashSet<Comp> = FxHashSet::default();
    for comp in module.computations() {
        for &instr in module.comp(comp).body() {
            let data = module.instr(instr);
            if matches!(
                data.opcode,
                Opcode::AsyncStart | Opcode::AsyncUpdate | Opcode::AsyncDone
            ) {
                continue;
            }
            for &callee in &data.callees {
                *callers.entry(callee).or_default() += 1;
            }
            if holds_regions(instr) {
                with_regions.insert(comp);
            }
        }
    }
    callers
        .into_iter()
        .filter(|&(comp, count)| count > 1 && with_regions.contains(&comp))
        .map(|(comp, _)| comp)
        .collect()
}

/// The instructions of `comp` with every operand before its users, in text
/// order where the text already respects that.
pub(crate) fn topological_order(module: &Module, comp: Comp) -> Vec<Instr> {
    let data = module.comp(comp);
    let order: &[Instr] = module.schedule().sequence(comp).unwrap_or(data.body());
    let mut placed = rustc_hash::FxHashSet::default();
    let mut on_stack = rustc_hash::FxHashSet::default();
    let mut out = Vec::with_capacity(order.len());
    for &start in order.iter().chain(data.root().iter()) {
        // Iterative depth-first post-order: deep chains must not overflow the
        // stack. An operand already on the stack (a cycle) is skipped; the
        // export then reports it as used before it is defined.
        let mut stack = vec![(start, 0usize)];
        on_stack.insert(start);
        while let Some((instr, next)) = stack.pop() {
            if placed.contains(&instr) {
                on_stack.remove(&instr);
                continue;
            }
            let operands = &module.instr(instr).operands;
            if let Some(&operand) = operands.get(next) {
                stack.push((instr, next + 1));
                if !placed.contains(&operand) && on_stack.insert(operand) {
                    stack.push((operand, 0));
                }
            } else {
                on_stack.remove(&instr);
                placed.insert(instr);
                out.push(instr);
            }
        }
    }
    out
}

/// An MLIR symbol for an HLO name: kept when it is a bare identifier, else
/// its other characters become `_`.
pub(crate) fn symbol(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

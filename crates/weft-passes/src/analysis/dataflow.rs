//! Dataflow (XLA's `HloDataflowAnalysis`, in its non-SSA form): which
//! *values* exist and which values each *position* may hold.
//!
//! A position is an instruction and an index into its shape (`%t{1,0}`); a
//! value is defined at one position and flows to others unchanged. Most
//! instructions define a value at every index of their shape. The others
//! pass values on, and that is where aliasing comes from:
//! - `tuple` defines only its top-level index table, its elements are its
//!   operands' values; `get-tuple-element` defines nothing, it is the element
//!   it reads; `bitcast`, `opt-barrier` and `add-dependency` pass their
//!   (first) operand on;
//! - control flow defines nothing: a `call` is its callee's root; a `while`
//!   is its initial value or its body's root, and so are its body's and
//!   condition's parameters; a `conditional` is any branch's root, and each
//!   branch's parameter is its operand;
//! - async ops: an `async-start`'s operand element `{0,i}` *is* its operand
//!   `i` (a forwarded value, not a new definition) and so is the wrapped
//!   computation's parameter `i`; its output element `{1}` is the wrapped
//!   computation's root, and the `async-done` is that element; updates pass
//!   everything on but what they bind late — an operand element beyond those
//!   bound before is the update's own operand, an output bound there (`()`
//!   before) is the wrapped root, as it is at a done that binds it; the
//!   context elements `{2…}` are the start's own. The
//!   first-class pairs likewise: `all-gather-start{0}` and
//!   `collective-permute-start{0}` are their operands, `copy-start{1}` its
//!   source, `send{0}` its data, and each done is the element the start
//!   produced (`all-reduce-done` is its start);
//! - parameters of embedded computations (fusion bodies, reducers) and of
//!   the entry define their own values.
//!
//! Values flow through loops, so value sets are computed to a fixed point:
//! each position's set is its definition, or the union of the sets it is
//! fed from, recomputed until nothing changes (sets only grow, so it ends).
//!
//! Invariants: every position of every live instruction has a set; a value's
//! defining position holds exactly that value; sets are sorted and without
//! repeats.

use rustc_hash::FxHashMap;
use weft_ir::attrs::Attrs;
use weft_ir::{Comp, Instr, Module, Opcode, Shape};

use super::call_graph::{CallContext, CallGraph, call_context};

/// An index into a shape: `{}` is the whole, `{1,0}` element 0 of element 1.
pub type ShapeIndex = Vec<i64>;

/// A value's handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

/// One value: defined once, at one position.
#[derive(Clone, Debug)]
pub struct Value {
    /// The defining instruction.
    pub instruction: Instr,
    /// The index it defines.
    pub index: ShapeIndex,
    /// The value's shape.
    pub shape: Shape,
}

/// One position of an instruction and the values it may hold.
#[derive(Clone, Debug)]
pub struct Position {
    /// The index into the instruction's shape.
    pub index: ShapeIndex,
    /// The subshape there.
    pub shape: Shape,
    /// The values it may hold, sorted.
    pub values: Vec<ValueId>,
}

/// The dataflow of a module (see the module docs).
pub struct Dataflow {
    values: Vec<Value>,
    positions: FxHashMap<Instr, Vec<Position>>,
}

/// `index` written as XLA writes it: `{}`, `{1,0}`.
pub fn index_text(index: &[i64]) -> String {
    let parts: Vec<String> = index.iter().map(i64::to_string).collect();
    format!("{{{}}}", parts.join(","))
}

/// Every index of `shape`, in pre-order (the whole first).
fn indices(module: &Module, shape: Shape) -> Vec<(ShapeIndex, Shape)> {
    let mut out = Vec::new();
    let mut pending = vec![(Vec::new(), shape)];
    while let Some((index, shape)) = pending.pop() {
        if let Some(elements) = module.shapes.tuple_elements(shape) {
            for (i, &element) in elements.iter().enumerate().rev() {
                let mut child = index.clone();
                child.push(i as i64);
                pending.push((child, element));
            }
        }
        out.push((index, shape));
    }
    out
}

/// Where a position's values come from when it defines none: positions of
/// other instructions (index into their shapes).
type Sources = Vec<(Instr, ShapeIndex)>;

/// `rest` under `prefix`.
fn under(prefix: &[i64], rest: &[i64]) -> ShapeIndex {
    prefix.iter().chain(rest).copied().collect()
}

impl Dataflow {
    /// The dataflow of `module`.
    pub fn of(module: &Module) -> Dataflow {
        let graph = CallGraph::of(module);
        let parameter_sources = parameter_feeds(module, &graph);
        let mut flow = Dataflow {
            values: Vec::new(),
            positions: FxHashMap::default(),
        };
        // Positions and definitions.
        let mut feeds: Vec<(Instr, usize, Sources)> = Vec::new();
        for instr in module.all_instrs() {
            let mut positions = Vec::new();
            for (slot, (index, shape)) in indices(module, module.shape_of(instr))
                .into_iter()
                .enumerate()
            {
                let sources = sources(module, &graph, &parameter_sources, instr, &index);
                let values = match sources {
                    None => {
                        let id = ValueId(flow.values.len() as u32);
                        flow.values.push(Value {
                            instruction: instr,
                            index: index.clone(),
                            shape,
                        });
                        vec![id]
                    }
                    Some(sources) => {
                        feeds.push((instr, slot, sources));
                        Vec::new()
                    }
                };
                positions.push(Position {
                    index,
                    shape,
                    values,
                });
            }
            flow.positions.insert(instr, positions);
        }
        // Values flow to a fixed point.
        loop {
            let mut changed = false;
            for (instr, slot, sources) in &feeds {
                let mut gathered: Vec<ValueId> = Vec::new();
                for (source, index) in sources {
                    if let Some(position) = flow.position(*source, index) {
                        gathered.extend_from_slice(&position.values);
                    }
                }
                gathered.sort_unstable();
                gathered.dedup();
                let position = &mut flow
                    .positions
                    .get_mut(instr)
                    .expect("every instruction has positions")[*slot];
                if gathered.len() != position.values.len() {
                    position.values = gathered;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        flow
    }

    /// Every value, by id.
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// The value `id`.
    pub fn value(&self, id: ValueId) -> &Value {
        &self.values[id.0 as usize]
    }

    /// The positions of `instr`, in pre-order.
    pub fn positions(&self, instr: Instr) -> &[Position] {
        self.positions.get(&instr).map_or(&[], Vec::as_slice)
    }

    /// The position `index` of `instr`.
    pub fn position(&self, instr: Instr, index: &[i64]) -> Option<&Position> {
        self.positions
            .get(&instr)?
            .iter()
            .find(|position| position.index == index)
    }

    /// The values `instr` may hold at `index`.
    pub fn value_set(&self, instr: Instr, index: &[i64]) -> &[ValueId] {
        self.position(instr, index)
            .map_or(&[], |p| p.values.as_slice())
    }

    /// A value as the dumps name it: `%name{index}`.
    pub fn describe(&self, module: &Module, id: ValueId) -> String {
        let value = self.value(id);
        format!(
            "%{}{}",
            module.instr(value.instruction).name,
            index_text(&value.index)
        )
    }

    /// The analysis as text: every position that holds another position's
    /// values, with the values it may hold.
    pub fn dump(&self, module: &Module) -> String {
        let mut out = String::new();
        for instr in module.all_instrs() {
            for position in self.positions(instr) {
                let values: Vec<String> = position
                    .values
                    .iter()
                    .map(|&v| self.describe(module, v))
                    .collect();
                out.push_str(&format!(
                    "%{}{}: {}\n",
                    module.instr(instr).name,
                    index_text(&position.index),
                    values.join(", ")
                ));
            }
        }
        out
    }
}

/// For each parameter of a control-flow callee, the positions that feed
/// it: a call's or async-start's operand, a while's own value (its initial
/// value or its body's root), a conditional's branch operand.
fn parameter_feeds(module: &Module, graph: &CallGraph) -> FxHashMap<(Comp, i64), Sources> {
    let mut feeds: FxHashMap<(Comp, i64), Sources> = FxHashMap::default();
    for callee in module.computations() {
        for site in graph.callers_of(callee) {
            if call_context(module.instr(site.instr).opcode) != CallContext::ControlFlow {
                continue;
            }
            let data = module.instr(site.instr);
            let params = module.comp(callee).params().len() as i64;
            for number in 0..params {
                let source: Option<(Instr, ShapeIndex)> = match data.opcode {
                    Opcode::Call => data.operands.get(number as usize).map(|&o| (o, Vec::new())),
                    Opcode::AsyncStart => Some((site.instr, vec![0, number])),
                    Opcode::While => Some((site.instr, Vec::new())),
                    Opcode::Conditional => {
                        let branch = data.callees.iter().position(|&c| c == callee);
                        branch
                            .and_then(|b| data.operands.get(b + 1))
                            .map(|&o| (o, Vec::new()))
                    }
                    _ => None,
                };
                if let Some(source) = source {
                    let sources = feeds.entry((callee, number)).or_default();
                    if !sources.contains(&source) {
                        sources.push(source);
                    }
                }
            }
        }
    }
    // Operands bound late: a wrapped computation's parameter is fed by
    // every update of its chains too (at the elements the update binds).
    for instr in module.all_instrs() {
        if module.instr(instr).opcode != Opcode::AsyncUpdate {
            continue;
        }
        let Some(wrapped) = wrapped_computation(module, instr) else {
            continue;
        };
        for number in 0..module.comp(wrapped).params().len() as i64 {
            let sources = feeds.entry((wrapped, number)).or_default();
            let source = (instr, vec![0, number]);
            if !sources.contains(&source) {
                sources.push(source);
            }
        }
    }
    feeds
}

/// Where the values at `index` of `instr` come from, or `None` when `instr`
/// defines a value there.
fn sources(
    module: &Module,
    graph: &CallGraph,
    parameter_feeds: &FxHashMap<(Comp, i64), Sources>,
    instr: Instr,
    index: &[i64],
) -> Option<Sources> {
    let data = module.instr(instr);
    let operand = |k: usize, at: ShapeIndex| data.operands.get(k).map(|&o| vec![(o, at)]);
    let root_of = |comp: Comp, at: ShapeIndex| module.comp(comp).root().map(|r| (r, at));
    match data.opcode {
        Opcode::Parameter => {
            let comp = module.parent(instr);
            let number = match &data.attrs {
                Attrs::Parameter(p) => p.number,
                _ => return None,
            };
            if graph.context(comp) == CallContext::ControlFlow {
                let feeds = parameter_feeds.get(&(comp, number))?;
                Some(
                    feeds
                        .iter()
                        .map(|(source, at)| (*source, under(at, index)))
                        .collect(),
                )
            } else {
                None
            }
        }
        Opcode::Tuple => match index.split_first() {
            None => None,
            Some((&element, rest)) => operand(element as usize, rest.to_vec()),
        },
        Opcode::GetTupleElement => {
            let element = match &data.attrs {
                Attrs::GetTupleElement { index } => *index,
                _ => return None,
            };
            operand(0, under(&[element], index))
        }
        Opcode::Bitcast | Opcode::OptimizationBarrier | Opcode::AddDependency => {
            operand(0, index.to_vec())
        }
        Opcode::Call => {
            let callee = *data.callees.first()?;
            Some(root_of(callee, index.to_vec()).into_iter().collect())
        }
        Opcode::While => {
            // The body comes first among a while's callees, then the
            // condition.
            let body = *data.callees.first()?;
            let mut sources = operand(0, index.to_vec()).unwrap_or_default();
            sources.extend(root_of(body, index.to_vec()));
            Some(sources)
        }
        Opcode::Conditional => Some(
            data.callees
                .iter()
                .filter_map(|&branch| root_of(branch, index.to_vec()))
                .collect(),
        ),
        Opcode::AsyncStart => match index {
            [0, operand_number, rest @ ..] => operand(*operand_number as usize, rest.to_vec()),
            [1, rest @ ..] => {
                let wrapped = *data.callees.first()?;
                Some(root_of(wrapped, rest.to_vec()).into_iter().collect())
            }
            _ => None,
        },
        Opcode::AsyncUpdate => late_bound_update(module, instr, index),
        Opcode::AsyncDone => {
            // An output still unbound (`()` at `{1}`) is bound by the done:
            // it is the wrapped computation's root.
            if output_unbound(module, data.operands[0]) {
                let wrapped = wrapped_computation(module, instr)?;
                Some(root_of(wrapped, index.to_vec()).into_iter().collect())
            } else {
                operand(0, under(&[1], index))
            }
        }
        Opcode::AllGatherStart | Opcode::CollectivePermuteStart => match index {
            [0, rest @ ..] if data.operands.len() == 1 => operand(0, rest.to_vec()),
            [0, operand_number, rest @ ..]
                if data.opcode == Opcode::AllGatherStart || !is_in_place_permute(data) =>
            {
                operand(*operand_number as usize, rest.to_vec())
            }
            [0, rest @ ..] if is_in_place_permute(data) => operand(0, rest.to_vec()),
            _ => None,
        },
        Opcode::AllReduceDone => operand(0, index.to_vec()),
        Opcode::AllGatherDone | Opcode::CollectivePermuteDone => operand(0, under(&[1], index)),
        Opcode::CopyStart => match index {
            [1, rest @ ..] => operand(0, rest.to_vec()),
            _ => None,
        },
        Opcode::CopyDone => operand(0, under(&[0], index)),
        Opcode::Send => match index {
            [0, rest @ ..] => operand(0, rest.to_vec()),
            _ => None,
        },
        Opcode::RecvDone => match index {
            [0, rest @ ..] => operand(0, under(&[0], rest)),
            _ => None,
        },
        _ => None,
    }
}

/// Where an `async-update`'s values come from. It passes its chain's value
/// on, except what it binds late: an operand element `{0,i}` beyond those
/// bound before it is its own operand `1 + (i - bound before)`, and an
/// output bound here (`()` before) is the wrapped computation's root. An
/// operand tuple that grew is a new index table.
fn late_bound_update(module: &Module, update: Instr, index: &[i64]) -> Option<Sources> {
    let data = module.instr(update);
    let chain = *data.operands.first()?;
    let bound_before = operands_bound(module, chain);
    let bound_now = operands_bound(module, update);
    let from_chain = |at: ShapeIndex| Some(vec![(chain, at)]);
    match index {
        [] | [0] if bound_now != bound_before => None,
        [0, element, rest @ ..] if *element >= bound_before => {
            let own = 1 + (element - bound_before) as usize;
            data.operands.get(own).map(|&o| vec![(o, rest.to_vec())])
        }
        [1, rest @ ..] if output_unbound(module, chain) && !output_unbound(module, update) => {
            let wrapped = wrapped_computation(module, update)?;
            Some(
                module
                    .comp(wrapped)
                    .root()
                    .map(|r| (r, rest.to_vec()))
                    .into_iter()
                    .collect(),
            )
        }
        _ => from_chain(index.to_vec()),
    }
}

/// How many elements the tuple at `element` of the async value `instr`
/// has (`None` when it is not a tuple).
fn tuple_arity(module: &Module, instr: Instr, element: i64) -> Option<usize> {
    let shape = module.shapes.subshape(module.shape_of(instr), &[element])?;
    module.shapes.tuple_elements(shape).map(<[_]>::len)
}

/// How many operands the async value `instr` has bound (`{0}`'s arity).
fn operands_bound(module: &Module, instr: Instr) -> i64 {
    tuple_arity(module, instr, 0).unwrap_or(0) as i64
}

/// Whether the async value `instr` has no output bound yet (`()` at `{1}`).
fn output_unbound(module: &Module, instr: Instr) -> bool {
    tuple_arity(module, instr, 1) == Some(0)
}

/// The computation the async chain of `instr` wraps.
fn wrapped_computation(module: &Module, instr: Instr) -> Option<Comp> {
    weft_ir::async_chain::ChainTracer::new(module).wrapped_computation(instr)
}

/// A collective-permute(-start) in XLA's in-place form (four operands,
/// with slice sizes).
pub(crate) fn is_in_place_permute(data: &weft_ir::InstrData) -> bool {
    data.operands.len() == 4
        && matches!(&data.attrs, Attrs::CollectivePermute(c) if c.slice_sizes.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::value_names;

    #[test]
    fn async_operands_are_forwarded_and_the_done_is_the_output() {
        let module = weft_ir::text::parse(
            "HloModule m\n\n%wrapped (x: f32[4]) -> f32[4] {\n  %x = f32[4] parameter(0)\n  ROOT %n = f32[4] negate(%x)\n}\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %start = ((f32[4]), f32[4], s32[]) async-start(%p), calls=%wrapped\n  ROOT %done = f32[4] async-done(%start), calls=%wrapped\n}\n",
        )
        .expect("parses");
        let flow = Dataflow::of(&module);
        let describe = |instr: &str, index: &[i64]| value_names(&flow, &module, instr, index);
        assert_eq!(describe("start", &[0, 0]), ["%p{}"]);
        assert_eq!(describe("x", &[]), ["%p{}"]);
        assert_eq!(describe("start", &[1]), ["%n{}"]);
        assert_eq!(describe("done", &[]), ["%n{}"]);
        assert_eq!(describe("start", &[2]), ["%start{2}"]);
    }

    #[test]
    fn late_bound_operands_and_outputs_flow_from_where_they_are_bound() {
        let module = weft_ir::text::parse(
            "HloModule m\n\n%foo (p0: f32[], p1: f32[]) -> f32[] {\n  %p0 = f32[] parameter(0)\n  %p1 = f32[] parameter(1)\n  ROOT %add = f32[] add(%p0, %p1)\n}\n\nENTRY %main (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  %start = ((f32[]), (), s32[]) call-start(%a), to_apply=%foo\n  %update = ((f32[], f32[]), f32[], s32[]) call-update(%start, %b)\n  ROOT %done = f32[] call-done(%update)\n}\n",
        )
        .expect("parses");
        let flow = Dataflow::of(&module);
        let describe = |instr: &str, index: &[i64]| value_names(&flow, &module, instr, index);
        assert_eq!(describe("update", &[0, 0]), ["%a{}"]);
        assert_eq!(describe("update", &[0, 1]), ["%b{}"]);
        assert_eq!(describe("p1", &[]), ["%b{}"]);
        assert_eq!(describe("p0", &[]), ["%a{}"]);
        assert_eq!(describe("update", &[1]), ["%add{}"]);
        assert_eq!(describe("done", &[]), ["%add{}"]);
    }

    #[test]
    fn a_while_holds_its_initial_value_and_its_body_root() {
        let module = weft_ir::text::parse(
            "HloModule m\n\n%cond (c: s32[]) -> pred[] {\n  %c = s32[] parameter(0)\n  %ten = s32[] constant(10)\n  ROOT %lt = pred[] compare(%c, %ten), direction=LT\n}\n\n%body (b: s32[]) -> s32[] {\n  %b = s32[] parameter(0)\n  %one = s32[] constant(1)\n  ROOT %next = s32[] add(%b, %one)\n}\n\nENTRY %main () -> s32[] {\n  %zero = s32[] constant(0)\n  ROOT %loop = s32[] while(%zero), condition=%cond, body=%body\n}\n",
        )
        .expect("parses");
        let flow = Dataflow::of(&module);
        for name in ["loop", "b", "c"] {
            assert_eq!(
                value_names(&flow, &module, name, &[]),
                ["%next{}", "%zero{}"],
                "{name}"
            );
        }
    }
}

//! Where a future comes from.
//!
//! A `!stablehlo.future` is made by an `async_start` or an explicit
//! `*_start` (JAX's encoding makes a plain tensor with a
//! `stablehlo.custom_call @<collective>-start`, which stands for one) and may
//! travel before its done takes it: through `while` loop
//! state (a collective started in one iteration and finished in the next,
//! seed 003's ring), `optimization_barrier`, the results of `if`/`case`, and
//! the results of `func.call`. [`FutureOrigins`] follows it back; the
//! verifier uses it to match a done with its start, the async-style rewrite
//! to name a done's kind, and the lowering to finish the right HLO start.

use std::cell::RefCell;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::{Attribute, Body, Op, Value, ValueDef};
use crate::ops::{ExplicitPair, OpKind};

/// The starts of futures, found on demand and remembered: a pass that asks
/// about many values (every call's operands, every done) walks each value's
/// way back once, so a chain of N calls costs O(N), not O(N²) per question.
/// The walk is iterative, so a long chain cannot overflow the stack.
pub struct FutureOrigins<'b> {
    body: &'b Body,
    /// `func.func` ops by symbol.
    functions: FxHashMap<&'b str, Op>,
    /// The answer for every value looked at so far.
    sources: RefCell<FxHashMap<Value, Option<Op>>>,
}

/// What one value says about its future's start.
enum Step {
    /// It is the start's result.
    Start(Op),
    /// It passes on one of these values (tried in order, the first that has
    /// a start wins: branches that disagree are not followed further).
    From(Vec<Value>),
    /// It comes from nowhere a start can be told (a function argument).
    Unknown,
}

impl<'b> FutureOrigins<'b> {
    /// Origins in `body`, none looked up yet.
    pub fn new(body: &'b Body) -> FutureOrigins<'b> {
        let functions = body
            .functions()
            .into_iter()
            .filter_map(|f| Some((body.symbol_name(f)?, f)))
            .collect();
        FutureOrigins {
            body,
            functions,
            sources: RefCell::default(),
        }
    }

    /// The op that started the future `value`, or `None` when it cannot be
    /// told (a function argument, or branches that disagree are not followed
    /// further; a way that comes back round, through a recursive function,
    /// leads nowhere).
    pub fn source(&self, value: Value) -> Option<Op> {
        let mut sources = self.sources.borrow_mut();
        if let Some(&known) = sources.get(&value) {
            return known;
        }
        // Depth-first, in the order the values are tried; every value on the
        // path takes the answer of the first start found below it.
        let mut path: Vec<(Value, Vec<Value>, usize)> = Vec::new();
        let mut on_path: FxHashSet<Value> = FxHashSet::default();
        let mut next = Some(value);
        loop {
            if let Some(value) = next.take() {
                match self.step(value) {
                    Step::Start(op) => {
                        sources.insert(value, Some(op));
                        for (on, _, _) in path {
                            sources.insert(on, Some(op));
                        }
                        return Some(op);
                    }
                    Step::Unknown => {
                        sources.insert(value, None);
                    }
                    Step::From(values) => {
                        on_path.insert(value);
                        path.push((value, values, 0));
                    }
                }
            }
            let Some((_, values, tried)) = path.last_mut() else {
                return sources.get(&value).copied().flatten();
            };
            if let Some(&candidate) = values.get(*tried) {
                *tried += 1;
                match sources.get(&candidate) {
                    Some(&Some(op)) => {
                        for (on, _, _) in path {
                            sources.insert(on, Some(op));
                        }
                        return Some(op);
                    }
                    Some(None) => {}
                    None if on_path.contains(&candidate) => {}
                    None => next = Some(candidate),
                }
            } else {
                let (done, _, _) = path.pop().expect("a value on the path");
                sources.insert(done, None);
            }
        }
    }

    /// What `value` says about where its future started.
    fn step(&self, value: Value) -> Step {
        let body = self.body;
        match body.values[value].def {
            ValueDef::Result(op, index) => {
                let index = index as usize;
                let data = &body.ops[op];
                let Some(kind) = data.name.kind() else {
                    return Step::Unknown;
                };
                match kind {
                    OpKind::AsyncStart => Step::Start(op),
                    OpKind::CustomCall if is_custom_call_start(body, op) => Step::Start(op),
                    kind if ExplicitPair::of(kind).is_some_and(|p| p.start == kind) => {
                        Step::Start(op)
                    }
                    OpKind::While | OpKind::OptimizationBarrier => {
                        Step::From(data.operands.get(index).copied().into_iter().collect())
                    }
                    OpKind::If | OpKind::Case => Step::From(
                        data.regions
                            .iter()
                            .filter_map(|&region| {
                                let block = *body.regions[region].blocks.last()?;
                                let terminator = *body.blocks[block].ops.last()?;
                                body.ops[terminator].operands.get(index).copied()
                            })
                            .collect(),
                    ),
                    OpKind::Call => {
                        let Some(function) = self.callee(op) else {
                            return Step::Unknown;
                        };
                        let Some(&region) = body.ops[function].regions.first() else {
                            return Step::Unknown;
                        };
                        Step::From(
                            body.regions[region]
                                .blocks
                                .iter()
                                .filter_map(|&block| {
                                    let terminator = *body.blocks[block].ops.last()?;
                                    (body.ops[terminator].name.kind() == Some(OpKind::FuncReturn))
                                        .then_some(())?;
                                    body.ops[terminator].operands.get(index).copied()
                                })
                                .collect(),
                        )
                    }
                    _ => Step::Unknown,
                }
            }
            ValueDef::Argument(block, index) => match body.parent_op(block) {
                Some(owner) if body.ops[owner].name.kind() == Some(OpKind::While) => Step::From(
                    body.ops[owner]
                        .operands
                        .get(index as usize)
                        .copied()
                        .into_iter()
                        .collect(),
                ),
                _ => Step::Unknown,
            },
        }
    }

    /// The function a `func.call` calls.
    fn callee(&self, call: Op) -> Option<Op> {
        match self.body.attribute(call, "callee")? {
            Attribute::SymbolRef(path) => self.functions.get(path.last()?.as_str()).copied(),
            _ => None,
        }
    }
}

/// JAX's custom-call targets that start an async collective.
pub const CUSTOM_CALL_STARTS: &[&str] = &[
    "all-gather-start",
    "all-reduce-start",
    "all-to-all-start",
    "collective-permute-start",
    "reduce-scatter-start",
];

fn is_custom_call_start(body: &Body, op: Op) -> bool {
    body.attribute(op, "call_target_name")
        .and_then(Attribute::as_str)
        .is_some_and(|target| CUSTOM_CALL_STARTS.contains(&target))
}

//! SSA value and block names for printing, assigned exactly as MLIR's
//! `SSANameState` does, so weft prints what `stablehlo-opt` prints:
//!
//! - regions are numbered from a work stack; each region starts from the
//!   counters its parent region had when the parent was fully numbered, so
//!   sibling regions reuse the same numbers (every function starts at `%0` and
//!   `%arg0` because the module body defines no values);
//! - entry block arguments are `%argN`; other values are `%N` (one number per
//!   op, results of a multi-result op are `%N#i`);
//! - ops that suggest a name get it (`%cst` for float constants, `%c` for
//!   integer ones, `%iterArg` for while-loop arguments), made unique against the
//!   names visible from the region with a suffix `_K` from a counter shared by
//!   all names of the region. In the generic form MLIR asks no op for names
//!   (`OpAsmOpInterface` belongs to the custom form), so there every value is
//!   numbered.

use rustc_hash::FxHashSet;
use weft_ir::entity::EntityRef;

use crate::ir::{Block, Body, ElementKind, Op, Region, Type, Value};
use crate::ops::OpKind;

/// How a value prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ValueName {
    /// `%N`, or `%N#i` for result `i` of a multi-result op.
    Numbered { number: u32, result: Option<u32> },
    /// `%name`.
    Named(String),
}

/// Names of every value and block of a body.
pub(crate) struct Names {
    values: Vec<Option<ValueName>>,
    blocks: Vec<Option<u32>>,
}

#[derive(Copy, Clone)]
struct Counters {
    next_value: u32,
    next_argument: u32,
    next_conflict: u32,
}

struct Namer<'a> {
    body: &'a Body,
    names: Names,
    counters: Counters,
    /// One set of used names per active region scope, outermost first.
    used: Vec<FxHashSet<String>>,
    /// Whether ops may suggest names (`%cst`, `%iterArg`): not in the
    /// generic form.
    suggest_names: bool,
}

impl Names {
    /// Names for everything under `body`'s module; `generic` when every op
    /// prints in the generic form.
    pub(crate) fn assign(body: &Body, generic: bool) -> Names {
        let mut namer = Namer {
            body,
            suggest_names: !generic,
            names: Names {
                values: vec![None; body.values.len()],
                blocks: vec![None; body.blocks.len()],
            },
            counters: Counters {
                next_value: 0,
                next_argument: 0,
                next_conflict: 0,
            },
            used: vec![FxHashSet::default()],
        };
        namer.number_op(body.module);
        let mut work: Vec<(Region, Counters, usize)> = body.ops[body.module]
            .regions
            .iter()
            .map(|&r| (r, namer.counters, 1))
            .collect();
        while let Some((region, counters, depth)) = work.pop() {
            namer.counters = counters;
            namer.used.truncate(depth);
            namer.used.push(FxHashSet::default());
            namer.number_region(region);
            let depth = namer.used.len();
            for &block in &body.regions[region].blocks {
                for &op in &body.blocks[block].ops {
                    for &inner in &body.ops[op].regions {
                        work.push((inner, namer.counters, depth));
                    }
                }
            }
        }
        namer.names
    }

    /// How `value` prints, without `%`.
    pub(crate) fn value(&self, value: Value) -> Option<&ValueName> {
        self.values.get(value.index()).and_then(Option::as_ref)
    }

    /// The number of `block` within its region (`^bbN`).
    pub(crate) fn block(&self, block: Block) -> u32 {
        self.blocks
            .get(block.index())
            .copied()
            .flatten()
            .unwrap_or(0)
    }
}

impl Namer<'_> {
    fn number_region(&mut self, region: Region) {
        let body = self.body;
        if let Some(parent) = body.regions[region].parent
            && self.suggest_names
            && body.ops[parent].name.kind() == Some(OpKind::While)
            && let Some(&entry) = body.regions[region].blocks.first()
        {
            for &argument in &body.blocks[entry].arguments {
                self.set_name(argument, "iterArg");
            }
        }
        for (index, &block) in body.regions[region].blocks.iter().enumerate() {
            self.names.blocks[block.index()] = Some(index as u32);
            let entry = index == 0;
            for &argument in &body.blocks[block].arguments {
                if self.names.values[argument.index()].is_some() {
                    continue;
                }
                if entry {
                    let name = format!("arg{}", self.counters.next_argument);
                    self.counters.next_argument += 1;
                    self.set_name(argument, &name);
                } else {
                    self.number(argument, None);
                }
            }
            for &op in &body.blocks[block].ops {
                self.number_op(op);
            }
        }
    }

    fn number_op(&mut self, op: Op) {
        let data = &self.body.ops[op];
        let Some(&first) = data.results.first() else {
            return;
        };
        if let Some(hint) = result_name_hint(self.body, op).filter(|_| self.suggest_names) {
            self.set_name(first, hint);
            return;
        }
        let multi = data.results.len() > 1;
        let number = self.counters.next_value;
        self.counters.next_value += 1;
        for (i, &result) in data.results.iter().enumerate() {
            self.names.values[result.index()] = Some(ValueName::Numbered {
                number,
                result: multi.then_some(i as u32),
            });
        }
    }

    fn number(&mut self, value: Value, result: Option<u32>) {
        let number = self.counters.next_value;
        self.counters.next_value += 1;
        self.names.values[value.index()] = Some(ValueName::Numbered { number, result });
    }

    fn set_name(&mut self, value: Value, name: &str) {
        let unique = if self.is_used(name) {
            loop {
                let candidate = format!("{name}_{}", self.counters.next_conflict);
                self.counters.next_conflict += 1;
                if !self.is_used(&candidate) {
                    break candidate;
                }
            }
        } else {
            name.to_string()
        };
        self.used
            .last_mut()
            .expect("a scope")
            .insert(unique.clone());
        self.names.values[value.index()] = Some(ValueName::Named(unique));
    }

    fn is_used(&self, name: &str) -> bool {
        self.used.iter().any(|scope| scope.contains(name))
    }
}

/// The name an op suggests for its result (MLIR's `getAsmResultNames`).
fn result_name_hint(body: &Body, op: Op) -> Option<&'static str> {
    let data = &body.ops[op];
    if data.name.kind() != Some(OpKind::Constant) || data.results.len() != 1 {
        return None;
    }
    match body.ty(data.results[0]) {
        Type::Tensor(tensor) if matches!(tensor.element, ElementKind::Integer { .. }) => Some("c"),
        _ => Some("cst"),
    }
}

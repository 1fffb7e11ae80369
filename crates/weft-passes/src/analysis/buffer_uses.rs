//! What each instruction of a computation allocates and reads, in bytes:
//! the memory model a scheduler keeps its accounts with (XLA's memory
//! scheduler and latency-hiding scheduler count memory this way).
//!
//! **Values, not buffers.** The unit is a dataflow value ([`ValueId`]), as
//! XLA's schedulers count `HloValue`s: an instruction *defines* the values
//! defined at its positions (a tuple only its index table, a
//! get-tuple-element or a while nothing), and *uses* every value any
//! position of any of its operands may hold (the operand's flattened value
//! set: a get-tuple-element reads its whole tuple, as XLA counts it). The
//! values its computation's root may hold are *live out*: they have one more
//! use, at the end, which no instruction of the computation takes.
//!
//! **Sizes.** A value takes [`value_bytes`]: its shape's bytes, a tuple's
//! index table at 8 bytes per element, nothing for a token (XLA's size
//! function with 8-byte pointers; see [`super::alias::shape_bytes`]).
//! Values defined by a parameter or a constant are *free*: the caller or the
//! program owns them, so scheduling never allocates or frees them; an
//! instruction that defines only free values defines no bytes.
//!
//! **Use.** A plain value computed once per computation from the module's
//! [`Dataflow`]; a scheduler keeps its own counts of the uses not yet
//! placed ([`BufferUses::use_counts`] gives the starting counts): scheduling
//! an instruction top-down frees each value whose last remaining use it is
//! and allocates [`BufferUses::bytes_defined`]; scheduling bottom-up
//! mirrors it (a value comes alive at its last use, and goes at its
//! definition).
//!
//! Invariants: `used` lists each value once per instruction; every value
//! defined or used in the computation has a size; instructions are
//! numbered densely in body order.

use rustc_hash::FxHashMap;
use weft_ir::{Comp, Instr, Module, Opcode};

use super::alias::shape_bytes;
use super::dataflow::{Dataflow, ValueId};

/// The bytes `value` takes (see the module docs).
pub fn value_bytes(module: &Module, flow: &Dataflow, value: ValueId) -> u64 {
    shape_bytes(module, flow.value(value).shape)
}

/// Whether the values `instr` defines are free: parameters and constants
/// (XLA's `IgnoreInstruction`).
pub fn defines_free_values(module: &Module, instr: Instr) -> bool {
    matches!(
        module.instr(instr).opcode,
        Opcode::Parameter | Opcode::Constant
    )
}

/// Facts about one value the computation defines or uses.
#[derive(Clone, Copy, Debug)]
struct ValueFacts {
    bytes: u64,
    free: bool,
}

/// The memory model of one computation (see the module docs).
#[derive(Clone, Debug)]
pub struct BufferUses {
    instructions: Vec<Instr>,
    number: FxHashMap<Instr, usize>,
    defined: Vec<Vec<ValueId>>,
    used: Vec<Vec<ValueId>>,
    bytes_defined: Vec<u64>,
    values: FxHashMap<ValueId, ValueFacts>,
    live_out: Vec<ValueId>,
}

impl BufferUses {
    /// The model of `comp`, from the module's dataflow.
    pub fn of(module: &Module, flow: &Dataflow, comp: Comp) -> BufferUses {
        let instructions: Vec<Instr> = module.comp(comp).body().to_vec();
        let number: FxHashMap<Instr, usize> = instructions
            .iter()
            .enumerate()
            .map(|(at, &instr)| (instr, at))
            .collect();
        let mut values: FxHashMap<ValueId, ValueFacts> = FxHashMap::default();
        let note = |value: ValueId, values: &mut FxHashMap<ValueId, ValueFacts>| {
            values.entry(value).or_insert_with(|| ValueFacts {
                bytes: value_bytes(module, flow, value),
                free: defines_free_values(module, flow.value(value).instruction),
            });
        };
        let mut defined = Vec::with_capacity(instructions.len());
        let mut bytes_defined = Vec::with_capacity(instructions.len());
        // Flattened value sets, once per operand: many users share one.
        let mut flattened: FxHashMap<Instr, Vec<ValueId>> = FxHashMap::default();
        let mut used = Vec::with_capacity(instructions.len());
        for &instr in &instructions {
            let own: Vec<ValueId> = flow
                .positions(instr)
                .iter()
                .flat_map(|position| position.values.iter().copied())
                .filter(|&value| flow.value(value).instruction == instr)
                .collect();
            let free = defines_free_values(module, instr);
            let mut bytes = 0;
            for &value in &own {
                note(value, &mut values);
                if !free {
                    bytes += values[&value].bytes;
                }
            }
            defined.push(own);
            bytes_defined.push(bytes);

            let mut reads: Vec<ValueId> = Vec::new();
            for &operand in module.instr(instr).operands.iter() {
                let set = flattened
                    .entry(operand)
                    .or_insert_with(|| flattened_value_set(flow, operand));
                reads.extend_from_slice(set);
            }
            reads.sort_unstable();
            reads.dedup();
            for &value in &reads {
                note(value, &mut values);
            }
            used.push(reads);
        }
        let live_out = module
            .comp(comp)
            .root()
            .map(|root| flattened_value_set(flow, root))
            .unwrap_or_default();
        for &value in &live_out {
            note(value, &mut values);
        }
        BufferUses {
            instructions,
            number,
            defined,
            used,
            bytes_defined,
            values,
            live_out,
        }
    }

    /// The computation's instructions in body order; an instruction's
    /// number is its place here.
    pub fn instructions(&self) -> &[Instr] {
        &self.instructions
    }

    /// The number of `instr`, when it belongs to the computation.
    pub fn number(&self, instr: Instr) -> Option<usize> {
        self.number.get(&instr).copied()
    }

    /// The values instruction `number` defines.
    pub fn defined(&self, number: usize) -> &[ValueId] {
        &self.defined[number]
    }

    /// The bytes instruction `number` allocates: its defined values' sizes,
    /// or nothing when they are free.
    pub fn bytes_defined(&self, number: usize) -> u64 {
        self.bytes_defined[number]
    }

    /// The values instruction `number` reads, each once.
    pub fn used(&self, number: usize) -> &[ValueId] {
        &self.used[number]
    }

    /// The values the computation's root may hold.
    pub fn live_out(&self) -> &[ValueId] {
        &self.live_out
    }

    /// The bytes `value` takes (0 for a value the computation neither
    /// defines nor uses).
    pub fn bytes(&self, value: ValueId) -> u64 {
        self.values.get(&value).map_or(0, |facts| facts.bytes)
    }

    /// Whether `value` is free (defined by a parameter or a constant).
    pub fn is_free(&self, value: ValueId) -> bool {
        self.values.get(&value).is_some_and(|facts| facts.free)
    }

    /// Per value, its uses in the computation: one per instruction that
    /// reads it, and one more when it is live out. A value defined here
    /// that nothing uses has 0.
    pub fn use_counts(&self) -> FxHashMap<ValueId, u32> {
        let mut counts: FxHashMap<ValueId, u32> =
            self.values.keys().map(|&value| (value, 0)).collect();
        for value in self.used.iter().flatten().chain(&self.live_out) {
            *counts.entry(*value).or_default() += 1;
        }
        counts
    }
}

/// Every value any position of `instr` may hold, sorted, each once (XLA's
/// `GetFlattenedValueSet`).
pub fn flattened_value_set(flow: &Dataflow, instr: Instr) -> Vec<ValueId> {
    let mut set: Vec<ValueId> = flow
        .positions(instr)
        .iter()
        .flat_map(|position| position.values.iter().copied())
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::find;

    #[test]
    fn tuples_define_their_table_and_elements_are_read_whole() {
        let module = weft_ir::text::parse(
            "HloModule m\n\nENTRY %main (p: f32[4]) -> (f32[4], f32[4]) {\n  %p = f32[4] parameter(0)\n  %a = f32[4] negate(%p)\n  %t = (f32[4], f32[4]) tuple(%a, %p)\n  %g = f32[4] get-tuple-element(%t), index=0\n  ROOT %r = (f32[4], f32[4]) tuple(%g, %g)\n}\n",
        )
        .expect("parses");
        let flow = Dataflow::of(&module);
        let entry = module.entry().unwrap();
        let uses = BufferUses::of(&module, &flow, entry);
        let number = |name: &str| uses.number(find(&module, name)).unwrap();
        // The parameter's value is free, the negate's is 16 bytes, the
        // tuple's index table is 2 × 8 bytes, a get-tuple-element defines
        // nothing.
        assert_eq!(uses.bytes_defined(number("p")), 0);
        assert_eq!(uses.bytes_defined(number("a")), 16);
        assert_eq!(uses.bytes_defined(number("t")), 16);
        assert_eq!(uses.bytes_defined(number("g")), 0);
        // %g reads all of %t: its table, %a and %p.
        assert_eq!(uses.used(number("g")).len(), 3);
        let p = uses.defined(number("p"))[0];
        assert!(uses.is_free(p));
        // %a: read by %t and %g (through the tuple), by %r (as %g), and
        // live out: 4 uses.
        let a = uses.defined(number("a"))[0];
        assert_eq!(uses.use_counts()[&a], 4);
    }
}

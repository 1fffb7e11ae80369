//! Buffers (XLA's `HloAliasAnalysis`): values that must share storage.
//!
//! Two values share a buffer when one position may hold either (a loop's
//! initial value and its body's result are the same loop state), and when an
//! instruction writes its result into an operand's storage:
//! `dynamic-update-slice` and `scatter` update in place, a custom call,
//! fusion or async-start says so with `output_to_operand_aliasing`, an
//! in-place `collective-permute-start` writes into its output operand, and
//! the module's `input_output_alias` makes an entry output share a
//! parameter's storage. Sharing is transitive, so buffers are the classes of
//! a union-find over values. A `buffer_donor` only *allows* an output to
//! reuse a parameter's storage (buffer assignment decides, as in XLA), so it
//! shares nothing here.
//!
//! A buffer's size is its largest value's: an array's bytes, a tuple's index
//! table (8 bytes per element, as XLA counts pointers), nothing for tokens.
//!
//! Invariants: every value is in exactly one buffer; buffers are numbered in
//! the order of their first value.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;
use weft_ir::attrs::Attrs;
use weft_ir::{Instr, Module, Opcode, Shape};

use super::dataflow::{Dataflow, ShapeIndex, ValueId};

/// A buffer's handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u32);

/// Values that share storage.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// Its values, by id.
    pub values: Vec<ValueId>,
    /// Its size in bytes.
    pub bytes: u64,
}

/// The buffers of a module.
pub struct Aliases {
    buffers: Vec<Buffer>,
    of_value: Vec<BufferId>,
}

/// The bytes storage for `shape` takes (see the module docs).
pub fn shape_bytes(module: &Module, shape: Shape) -> u64 {
    if let Some(elements) = module.shapes.tuple_elements(shape) {
        return 8 * elements.len() as u64;
    }
    module
        .shapes
        .as_array(shape)
        .and_then(|array| array.byte_size().ok())
        .map_or(0, |size| size.get())
}

struct UnionFind(Vec<u32>);

impl UnionFind {
    fn find(&mut self, mut x: u32) -> u32 {
        while self.0[x as usize] != x {
            let parent = self.0[x as usize];
            self.0[x as usize] = self.0[parent as usize];
            x = parent;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        // The smaller root wins: a buffer is named by its first value.
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        self.0[high as usize] = low;
    }
}

impl Aliases {
    /// The buffers of `module`, from its dataflow.
    pub fn of(module: &Module, flow: &Dataflow) -> Aliases {
        Aliases::build(module, flow, true)
    }

    /// The buffers `module` would have once copy insertion gave every
    /// value a position may hold its own storage: only the sharing an
    /// instruction asks for stays — in-place updates, output-to-operand
    /// aliasing, `input_output_alias` — while loop state, a conditional's
    /// result and other merged positions no longer make their values one
    /// buffer. XLA runs copy insertion before its scheduler; a schedule that
    /// relies on this needs those copies when XLA runs it.
    pub fn in_place_only(module: &Module, flow: &Dataflow) -> Aliases {
        Aliases::build(module, flow, false)
    }

    fn build(module: &Module, flow: &Dataflow, merge_positions: bool) -> Aliases {
        let count = flow.values().len() as u32;
        let mut sets = UnionFind((0..count).collect());
        let merge_all = |values: &[ValueId], sets: &mut UnionFind| {
            if let Some((first, rest)) = values.split_first() {
                for other in rest {
                    sets.union(first.0, other.0);
                }
            }
        };
        for instr in module.all_instrs() {
            if merge_positions {
                for position in flow.positions(instr) {
                    merge_all(&position.values, &mut sets);
                }
            }
            for (output, operand, operand_index) in in_place_pairs(module, instr) {
                let mut both: Vec<ValueId> = flow.value_set(instr, &output).to_vec();
                both.extend_from_slice(flow.value_set(operand, &operand_index));
                merge_all(&both, &mut sets);
            }
        }
        if let Some(entry) = module.entry {
            let data = module.comp(entry);
            for alias in &module.config.input_output_alias {
                let parameter = data.params().get(alias.parameter as usize);
                if let (Some(&parameter), Some(root)) = (parameter, data.root()) {
                    let mut both: Vec<ValueId> = flow.value_set(root, &alias.output_index).to_vec();
                    both.extend_from_slice(flow.value_set(parameter, &alias.parameter_index));
                    merge_all(&both, &mut sets);
                }
            }
        }
        let mut numbering: FxHashMap<u32, BufferId> = FxHashMap::default();
        let mut buffers: Vec<Buffer> = Vec::new();
        let mut of_value = Vec::with_capacity(count as usize);
        for value in 0..count {
            let root = sets.find(value);
            let id = *numbering.entry(root).or_insert_with(|| {
                buffers.push(Buffer {
                    values: Vec::new(),
                    bytes: 0,
                });
                BufferId(buffers.len() as u32 - 1)
            });
            let buffer = &mut buffers[id.0 as usize];
            buffer.values.push(ValueId(value));
            buffer.bytes = buffer
                .bytes
                .max(shape_bytes(module, flow.value(ValueId(value)).shape));
            of_value.push(id);
        }
        Aliases { buffers, of_value }
    }

    /// Every buffer, by id.
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// The buffer holding `value`.
    pub fn buffer_of(&self, value: ValueId) -> BufferId {
        self.of_value[value.0 as usize]
    }

    /// The buffer `id`.
    pub fn buffer(&self, id: BufferId) -> &Buffer {
        &self.buffers[id.0 as usize]
    }

    /// The analysis as text: each buffer that holds more than one value,
    /// with its size and values.
    pub fn dump(&self, module: &Module, flow: &Dataflow) -> String {
        let mut out = String::new();
        for (id, buffer) in self.buffers.iter().enumerate() {
            if buffer.values.len() < 2 {
                continue;
            }
            let values: Vec<String> = buffer
                .values
                .iter()
                .map(|&v| flow.describe(module, v))
                .collect();
            let _ = writeln!(
                out,
                "buffer {id} ({} B): {}",
                buffer.bytes,
                values.join(", ")
            );
        }
        out
    }
}

/// The (output index, operand, operand index) pairs `instr` writes in
/// place.
fn in_place_pairs(module: &Module, instr: Instr) -> Vec<(ShapeIndex, Instr, ShapeIndex)> {
    let data = module.instr(instr);
    let explicit = match &data.attrs {
        Attrs::CustomCall(c) => c.output_to_operand_aliasing.as_slice(),
        Attrs::Fusion(f) => f.output_to_operand_aliasing.as_slice(),
        Attrs::Async(a) => a.output_to_operand_aliasing.as_slice(),
        _ => &[],
    };
    let mut pairs: Vec<(ShapeIndex, Instr, ShapeIndex)> = explicit
        .iter()
        .filter_map(|alias| {
            let operand = *data.operands.get(alias.operand as usize)?;
            Some((alias.output.clone(), operand, alias.operand_index.clone()))
        })
        .collect();
    match data.opcode {
        Opcode::DynamicUpdateSlice => pairs.push((Vec::new(), data.operands[0], Vec::new())),
        Opcode::Scatter => {
            // Operands first, then indices, then updates: as many operands
            // as updates.
            let count = (data.operands.len().saturating_sub(1)) / 2;
            if count == 1 {
                pairs.push((Vec::new(), data.operands[0], Vec::new()));
            } else {
                for k in 0..count {
                    pairs.push((vec![k as i64], data.operands[k], Vec::new()));
                }
            }
        }
        Opcode::CollectivePermuteStart if super::dataflow::is_in_place_permute(data) => {
            pairs.push((vec![1], data.operands[1], Vec::new()));
        }
        _ => {}
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_state_and_in_place_updates_share_a_buffer() {
        let module = weft_ir::text::parse(
            "HloModule m\n\n%cond (c: f32[8]) -> pred[] {\n  %c = f32[8] parameter(0)\n  ROOT %t = pred[] constant(false)\n}\n\n%body (b: f32[8]) -> f32[8] {\n  %b = f32[8] parameter(0)\n  %u = f32[1] constant({1})\n  %i = s32[] constant(0)\n  ROOT %next = f32[8] dynamic-update-slice(%b, %u, %i)\n}\n\nENTRY %main (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n  %copy = f32[8] copy(%p)\n  ROOT %loop = f32[8] while(%copy), condition=%cond, body=%body\n}\n",
        )
        .expect("parses");
        let flow = Dataflow::of(&module);
        let aliases = Aliases::of(&module, &flow);
        assert_eq!(
            aliases.dump(&module, &flow),
            "buffer 3 (32 B): %next{}, %copy{}\n"
        );
    }
}

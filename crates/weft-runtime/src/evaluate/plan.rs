//! A computation's run plan: the order its instructions run in, when each
//! value is last read, and which instructions may write into their operand
//! instead of copying it.
//!
//! Why: a value kept until its computation returns pins its bytes, so an
//! update of it must copy them (tensors share bytes copy-on-write,
//! [`crate::tensor::Bytes`]). A loop that writes one row of a large buffer
//! per step — a scan stacking its outputs, a collective matmul placing its
//! blocks — then copied the whole buffer every step, where XLA updates it
//! in place. Dropping each value after its last reader, and handing a
//! `dynamic-update-slice` its operand when nothing reads it afterwards,
//! lets the bytes be owned once and written where they are.
//!
//! Invariants: `released_after[p]` names each value of the computation
//! (parameters included, the root excepted) exactly once, at the position
//! of its last reader, or at its own position when nothing reads it;
//! `updates_in_place[p]` holds only when the instruction at `p` is a
//! `dynamic-update-slice` that is the last reader of its operand 0 and
//! reads it only as operand 0.

use rustc_hash::FxHashMap;
use weft_ir::{Comp, Instr, Module, Opcode};

/// How to run one computation.
pub(crate) struct Plan {
    /// The instructions in the order they run.
    pub order: Vec<Instr>,
    /// The values to drop once the instruction at each position has run.
    pub released_after: Vec<Vec<Instr>>,
    /// Whether the instruction at each position may take its operand 0
    /// out of the environment and update it in place.
    pub updates_in_place: Vec<bool>,
}

impl Plan {
    /// The plan of `comp` run in `order`.
    pub(crate) fn new(module: &Module, comp: Comp, order: Vec<Instr>) -> Plan {
        let data = module.comp(comp);
        let root = data.root();
        let mut last_read: FxHashMap<Instr, usize> = FxHashMap::default();
        for (position, &instr) in order.iter().enumerate() {
            for &operand in &module.instr(instr).operands {
                last_read.insert(operand, position);
            }
        }
        let mut released_after = vec![Vec::new(); order.len()];
        let mut updates_in_place = vec![false; order.len()];
        for (position, &instr) in order.iter().enumerate() {
            if Some(instr) == root {
                continue;
            }
            let at = last_read.get(&instr).copied().unwrap_or(position);
            released_after[at].push(instr);
        }
        // A parameter a schedule leaves out is bound all the same.
        let ordered_params: rustc_hash::FxHashSet<Instr> = order
            .iter()
            .copied()
            .filter(|&i| module.instr(i).opcode == Opcode::Parameter)
            .collect();
        for &param in data.params() {
            if !ordered_params.contains(&param)
                && let Some(&at) = last_read.get(&param)
            {
                released_after[at].push(param);
            }
        }
        for (position, &instr) in order.iter().enumerate() {
            let data = module.instr(instr);
            if data.opcode != Opcode::DynamicUpdateSlice {
                continue;
            }
            let Some(&buffer) = data.operands.first() else {
                continue;
            };
            updates_in_place[position] = Some(buffer) != root
                && last_read.get(&buffer) == Some(&position)
                && data.operands[1..].iter().all(|&other| other != buffer);
        }
        Plan {
            order,
            released_after,
            updates_in_place,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> (Module, Plan) {
        let module = weft_ir::text::parse(text).expect("parses");
        let entry = module.entry.expect("entry");
        let order = module.comp(entry).body().to_vec();
        let plan = Plan::new(&module, entry, order);
        (module, plan)
    }

    fn names(module: &Module, instrs: &[Instr]) -> Vec<String> {
        instrs
            .iter()
            .map(|&i| module.instr(i).name.to_string())
            .collect()
    }

    #[test]
    fn each_value_goes_after_its_last_reader() {
        let (module, plan) = plan(
            "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  b = f32[4] negate(a)\n  unused = f32[4] negate(a)\n  c = f32[4] add(b, a)\n  ROOT d = f32[4] negate(c)\n}\n",
        );
        let released: Vec<Vec<String>> = plan
            .released_after
            .iter()
            .map(|r| names(&module, r))
            .collect();
        assert_eq!(
            released,
            vec![
                vec![],
                vec![],
                vec!["unused".to_string()],
                vec!["a".to_string(), "b".to_string()],
                vec!["c".to_string()],
            ]
        );
    }

    #[test]
    fn an_update_is_in_place_only_as_the_last_reader() {
        let (_, plan) = plan(
            "HloModule m\nENTRY e {\n  buffer = f32[8] parameter(0)\n  row = f32[2] parameter(1)\n  at = s32[] parameter(2)\n  first = f32[8] dynamic-update-slice(buffer, row, at)\n  second = f32[8] dynamic-update-slice(first, row, at)\n  ROOT both = (f32[8], f32[8]) tuple(buffer, second)\n}\n",
        );
        // `buffer` is read again by the tuple: `first` must copy it.
        // `second` is the last reader of `first`: it may write in place.
        assert_eq!(
            plan.updates_in_place,
            vec![false, false, false, false, true, false]
        );
    }

    /// Runs `text` on a zero f32[1024] buffer, a 2-element update and
    /// index 0: whether the result's bytes are the buffer's own.
    fn written_in_place(text: &str) -> bool {
        use crate::tensor::{Tensor, Value};
        use weft_ir::ElementType;
        let module = weft_ir::text::parse(text).expect("parses");
        let buffer = Tensor::zeros(ElementType::F32, &[1024]);
        let address = buffer.bytes.as_ptr();
        let arguments = vec![
            Value::Tensor(buffer),
            Value::Tensor(Tensor::zeros(ElementType::F32, &[2])),
            Value::Tensor(Tensor::zeros(ElementType::S32, &[])),
        ];
        let result = crate::evaluate(&module, arguments).expect("runs");
        let first = match &result {
            Value::Tuple(elements) => elements[0].as_tensor(),
            value => value.as_tensor(),
        };
        first.expect("an array").bytes.as_ptr() == address
    }

    #[test]
    fn the_last_reader_writes_into_the_buffer_itself() {
        assert!(written_in_place(
            "HloModule m\nENTRY e {\n  b = f32[1024] parameter(0)\n  u = f32[2] parameter(1)\n  i = s32[] parameter(2)\n  ROOT d = f32[1024] dynamic-update-slice(b, u, i)\n}\n"
        ));
        // The buffer is returned too: the update writes into a copy.
        assert!(!written_in_place(
            "HloModule m\nENTRY e {\n  b = f32[1024] parameter(0)\n  u = f32[2] parameter(1)\n  i = s32[] parameter(2)\n  d = f32[1024] dynamic-update-slice(b, u, i)\n  ROOT t = (f32[1024], f32[1024]) tuple(d, b)\n}\n"
        ));
    }
}

//! Where parsed entities came from in the source text: a side table filled by the
//! parser, so diagnostics can point at text without the IR carrying spans.
//! Handles are never reused, so the map stays valid through passes (entities a pass
//! creates simply have no span).

use rustc_hash::FxHashMap;

use crate::diagnostic::Span;
use crate::module::{Comp, Instr};

/// Spans of parsed entities.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// The name of each parsed instruction (or, for nested instructions, its
    /// opcode).
    pub instr_names: FxHashMap<Instr, Span>,
    /// The opcode of each parsed instruction.
    pub instr_opcodes: FxHashMap<Instr, Span>,
    /// Each attribute written on an instruction: name and span of `name=value`.
    pub instr_attrs: FxHashMap<Instr, Vec<(String, Span)>>,
    /// Each operand written on an instruction, in order.
    pub instr_operands: FxHashMap<Instr, Vec<Span>>,
    /// The name of each parsed computation.
    pub comp_names: FxHashMap<Comp, Span>,
}

impl SourceMap {
    /// The span of an instruction's name, if it was parsed.
    pub fn instr(&self, instr: Instr) -> Option<Span> {
        self.instr_names.get(&instr).copied()
    }

    /// The span of attribute `name` of `instr`, if it was written.
    pub fn attr(&self, instr: Instr, name: &str) -> Option<Span> {
        self.instr_attrs
            .get(&instr)?
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, s)| s)
    }

    /// The span of operand `index` of `instr`, if it was written.
    pub fn operand(&self, instr: Instr, index: usize) -> Option<Span> {
        self.instr_operands.get(&instr)?.get(index).copied()
    }

    /// The span of a computation's name, if it was parsed.
    pub fn comp(&self, comp: Comp) -> Option<Span> {
        self.comp_names.get(&comp).copied()
    }
}

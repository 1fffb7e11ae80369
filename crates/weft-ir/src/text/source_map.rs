//! Where parsed entities came from in the source text: a side table filled by the
//! parser, so diagnostics can point at text without the IR carrying spans.
//! Handles are never reused, so the map stays valid through passes (entities a pass
//! creates simply have no span).
//!
//! The table is dense (indexed by handle) and keeps attribute and operand spans
//! in two flat lists, so recording spans costs the parser no allocation per
//! instruction.

use crate::diagnostic::Span;
use crate::entity::EntityRef;
use crate::module::{Comp, Instr};

#[derive(Clone, Copy, Debug, Default)]
struct InstrSpans {
    name: Span,
    opcode: Span,
    operands: (u32, u32),
    attrs: (u32, u32),
    known: bool,
}

/// Spans of parsed entities.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    instrs: Vec<InstrSpans>,
    operand_spans: Vec<Span>,
    attr_spans: Vec<Span>,
    comps: Vec<Option<Span>>,
}

impl SourceMap {
    /// An empty map with room for `instrs` instructions.
    pub fn with_capacity(instrs: usize) -> Self {
        SourceMap {
            instrs: Vec::with_capacity(instrs),
            operand_spans: Vec::with_capacity(instrs * 2),
            ..SourceMap::default()
        }
    }

    /// Records the spans of a parsed instruction: its name (or, for a nested
    /// instruction, its opcode), opcode, operands and `name=value` attributes.
    pub fn record_instr(
        &mut self,
        instr: Instr,
        name: Span,
        opcode: Span,
        operands: &[Span],
        attrs: impl Iterator<Item = Span>,
    ) {
        let index = instr.index();
        let operand_start = self.operand_spans.len() as u32;
        self.operand_spans.extend_from_slice(operands);
        let attr_start = self.attr_spans.len() as u32;
        self.attr_spans.extend(attrs);
        let spans = InstrSpans {
            name,
            opcode,
            operands: (operand_start, operands.len() as u32),
            attrs: (attr_start, self.attr_spans.len() as u32 - attr_start),
            known: true,
        };
        // Instructions are nearly always recorded in handle order.
        if self.instrs.len() == index {
            self.instrs.push(spans);
            return;
        }
        if self.instrs.len() < index {
            self.instrs.resize(index + 1, InstrSpans::default());
        }
        self.instrs[index] = spans;
    }

    /// Records for `to` the spans `other` has for `from` (an instruction moved
    /// from another module parsed from the same text).
    pub(crate) fn copy_instr(&mut self, other: &SourceMap, from: Instr, to: Instr) {
        let Some(spans) = other.spans_of(from) else {
            return;
        };
        let (operands, operand_count) = (spans.operands.0 as usize, spans.operands.1 as usize);
        let (attrs, attr_count) = (spans.attrs.0 as usize, spans.attrs.1 as usize);
        self.record_instr(
            to,
            spans.name,
            spans.opcode,
            &other.operand_spans[operands..operands + operand_count],
            other.attr_spans[attrs..attrs + attr_count].iter().copied(),
        );
    }

    /// Records the span of a computation's name.
    pub fn record_comp(&mut self, comp: Comp, name: Span) {
        let index = comp.index();
        if self.comps.len() <= index {
            self.comps.resize(index + 1, None);
        }
        self.comps[index] = Some(name);
    }

    fn spans_of(&self, instr: Instr) -> Option<&InstrSpans> {
        self.instrs.get(instr.index()).filter(|s| s.known)
    }

    /// The span of an instruction's name, if it was parsed.
    pub fn instr(&self, instr: Instr) -> Option<Span> {
        self.spans_of(instr).map(|s| s.name)
    }

    /// The span of an instruction's opcode, if it was parsed.
    pub fn opcode(&self, instr: Instr) -> Option<Span> {
        self.spans_of(instr).map(|s| s.opcode)
    }

    /// The span of `name=value` for attribute `name` of `instr`, if it was
    /// written; `source` is the text that was parsed.
    pub fn attr(&self, instr: Instr, name: &str, source: &str) -> Option<Span> {
        let s = self.spans_of(instr)?;
        let (start, len) = (s.attrs.0 as usize, s.attrs.1 as usize);
        self.attr_spans[start..start + len]
            .iter()
            .copied()
            .find(|span| {
                source
                    .get(span.start as usize..span.end as usize)
                    .and_then(|text| text.strip_prefix(name))
                    .is_some_and(|rest| rest.starts_with('='))
            })
    }

    /// The span of operand `index` of `instr`, if it was written.
    pub fn operand(&self, instr: Instr, index: usize) -> Option<Span> {
        let s = self.spans_of(instr)?;
        (index < s.operands.1 as usize).then(|| self.operand_spans[s.operands.0 as usize + index])
    }

    /// The span of a computation's name, if it was parsed.
    pub fn comp(&self, comp: Comp) -> Option<Span> {
        self.comps.get(comp.index()).copied().flatten()
    }
}

//! Verifier errors: which rule, which instruction, what is wrong, and where in
//! the text to point.

use crate::diagnostic::{Diagnostic, Severity, Span};
use crate::module::{Comp, Instr, Module};
use crate::text::SourceMap;

macro_rules! rules {
    ($( $(#[$doc:meta])* $variant:ident => $code:literal, )*) => {
        /// The rule a [`VerifyError`] breaks. Each has a stable code (`R4`,
        /// `shape.dot`, …) used in JSON output and filetests.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Rule {
            $( $(#[$doc])* $variant, )*
        }

        impl Rule {
            /// Every rule.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The rule's stable code.
            pub fn code(self) -> &'static str {
                match self {
                    $( Rule::$variant => $code, )*
                }
            }
        }
    };
}

rules! {
    /// Operands, callees and control predecessors exist and are in the right
    /// computation; each instruction carries its opcode's attribute family.
    Handles => "handles",
    /// The call graph has no cycles.
    CallGraph => "call-graph",
    /// Computation and instruction names are unique in the module.
    UniqueNames => "unique-names",
    /// The module has an entry computation; computations have a root in their
    /// body and parameters numbered 0..n.
    Computation => "computation",
    /// Called computations have the signature their caller needs (to_apply,
    /// while body and condition, conditional branches, map, fusion, call).
    CalleeSignature => "callee-signature",
    /// Every array shape is valid as XLA's `ValidateShape` says: dimensions
    /// non-negative (or unbounded) and a size in bytes that fits in int64.
    ShapeSize => "shape.size",
    /// Operand counts.
    OperandCount => "operand-count",
    /// Elementwise, compare, select, clamp and their element-type rules.
    Elementwise => "shape.elementwise",
    /// convert, bitcast-convert, reduce-precision, stochastic-convert, bitcast.
    Convert => "shape.convert",
    /// broadcast.
    Broadcast => "shape.broadcast",
    /// reshape and dynamic-reshape.
    Reshape => "shape.reshape",
    /// transpose and reverse.
    Transpose => "shape.transpose",
    /// slice.
    Slice => "shape.slice",
    /// dynamic-slice and dynamic-update-slice.
    DynamicSlice => "shape.dynamic-slice",
    /// concatenate.
    Concatenate => "shape.concatenate",
    /// pad.
    Pad => "shape.pad",
    /// iota.
    Iota => "shape.iota",
    /// dot, ragged-dot and scaled-dot.
    Dot => "shape.dot",
    /// convolution.
    Convolution => "shape.convolution",
    /// reduce.
    Reduce => "shape.reduce",
    /// reduce-window.
    ReduceWindow => "shape.reduce-window",
    /// select-and-scatter.
    SelectAndScatter => "shape.select-and-scatter",
    /// gather.
    Gather => "shape.gather",
    /// scatter.
    Scatter => "shape.scatter",
    /// sort and topk.
    Sort => "shape.sort",
    /// while, conditional, call, fusion, map and scan against their computations.
    ControlFlow => "shape.control-flow",
    /// tuple and get-tuple-element.
    Tuple => "shape.tuple",
    /// Shapes nest no deeper than HLO text reads back
    /// ([`MAX_SHAPE_DEPTH`](crate::shape::MAX_SHAPE_DEPTH)).
    ShapeDepth => "shape.depth",
    /// all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute,
    /// collective-broadcast, ragged-all-to-all and their first-class start/done.
    Collective => "shape.collective",
    /// send, recv and their dones; infeed and outfeed.
    SendRecv => "shape.send-recv",
    /// rng, rng-bit-generator, rng-get-and-update-state.
    Rng => "shape.rng",
    /// custom-call.
    CustomCall => "shape.custom-call",
    /// Every other opcode's shape rule (constant, parameter, iota, fft, batch
    /// norm, triangular-solve, cholesky, domain, …).
    Other => "shape.other",
    /// R1: an async-start or async-update shape is `((operands…), output, context…)`.
    AsyncOutputForm => "R1",
    /// R2: the async shape's operands and output are prefixes of the wrapped
    /// computation's parameters and result; a done's shape is the result.
    AsyncComputationShapes => "R2",
    /// R3: the async op's thread is its wrapped computation's thread.
    AsyncThread => "R3",
    /// R4: start, update and done operands.
    AsyncOperands => "R4",
    /// R5: output-to-operand aliasing of async ops.
    AsyncAliasing => "R5",
    /// R6: who may use an async-start or async-update value.
    AsyncUses => "R6",
    /// R7: first-class start/done pairs.
    AsyncPairs => "R7",
    /// R8: every async-done traces back through its chain to one async-start.
    AsyncChains => "R8",
    /// R9: every async-start has a done (unless carried across a while loop).
    AsyncUnmatchedStart => "R9",
    /// R10: every async-update belongs to a chain (same loop exception).
    AsyncOrphanUpdate => "R10",
    /// R11: a main-thread async computation is one instruction and parameters.
    AsyncComputation => "R11",
    /// R12: buffers (`b(…)` shapes) are created, pinned and written only as XLA allows; inside async computations only a root custom-call is checked.
    AsyncBuffers => "R12",
    /// R13: callers run on their callee's thread.
    CallerThread => "R13",
    /// R14: in a scheduled module, sends and receives pair up without deadlock (XLA's collective-deadlock state machine, grouped transfers included).
    AsyncDeadlock => "R14",
    /// A scheduled module lists each live instruction once, after its operands.
    Schedule => "schedule",
}

/// Where in an instruction's text an error points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Focus {
    /// The instruction's name.
    Name,
    /// The instruction's opcode.
    Opcode,
    /// Operand `i`.
    Operand(usize),
    /// The `name=value` attribute `name`.
    Attribute(&'static str),
}

/// One verifier error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The rule broken.
    pub rule: Rule,
    /// The computation the error is in, when known.
    pub comp: Option<Comp>,
    /// The instruction the error is about, when there is one.
    pub instr: Option<Instr>,
    /// What is wrong.
    pub message: String,
    /// How to fix it (the expected shape, say).
    pub hint: Option<String>,
    /// The part of the instruction to point at.
    pub focus: Focus,
}

impl VerifyError {
    /// An error about `instr`.
    pub fn at_instr(m: &Module, rule: Rule, instr: Instr, message: impl Into<String>) -> Self {
        VerifyError {
            rule,
            comp: m.parents.get(instr).copied(),
            instr: Some(instr),
            message: message.into(),
            hint: None,
            focus: Focus::Name,
        }
    }

    /// An error about computation `comp` as a whole.
    pub fn at_comp(rule: Rule, comp: Comp, message: impl Into<String>) -> Self {
        VerifyError {
            rule,
            comp: Some(comp),
            instr: None,
            message: message.into(),
            hint: None,
            focus: Focus::Name,
        }
    }

    /// An error about the module as a whole.
    pub fn at_module(rule: Rule, message: impl Into<String>) -> Self {
        VerifyError {
            rule,
            comp: None,
            instr: None,
            message: message.into(),
            hint: None,
            focus: Focus::Name,
        }
    }

    /// The span to point at, when the entity came from parsed text.
    pub fn span(&self, source: &str, map: &SourceMap) -> Option<Span> {
        if let Some(instr) = self.instr {
            let span = match &self.focus {
                Focus::Name => None,
                Focus::Opcode => map.opcode(instr),
                Focus::Operand(i) => map.operand(instr, *i),
                Focus::Attribute(name) => map.attr(instr, name, source),
            };
            if let Some(span) = span.or_else(|| map.instr(instr)) {
                return Some(span);
            }
        }
        self.comp.and_then(|c| map.comp(c))
    }

    /// The error as a located diagnostic in `source` (the text `map` was
    /// recorded from). Entities without a span (made by the parser or a pass)
    /// point at their computation, or at the start of the text, and the message
    /// names them.
    pub fn to_diagnostic(&self, m: &Module, source: &str, map: &SourceMap) -> Diagnostic {
        let span = self.span(source, map);
        let mut message = format!("[{}] {}", self.rule.code(), self.message);
        if span.is_none() || self.instr.is_some_and(|i| map.instr(i).is_none()) {
            message.push_str(&self.context(m));
        }
        Diagnostic {
            severity: Severity::Error,
            span: span.unwrap_or_default(),
            message,
            label: None,
            hint: self.hint.clone(),
        }
    }

    /// The error in one line without source text, for modules a pass made:
    /// `[rule] message (in instruction %x of computation %c)`.
    pub fn describe(&self, m: &Module) -> String {
        format!("[{}] {}{}", self.rule.code(), self.message, self.context(m))
    }

    /// ` (in instruction %x of computation %c)` for messages without a span.
    fn context(&self, m: &Module) -> String {
        let comp = self
            .comp
            .and_then(|c| m.comps.get(c))
            .map(|c| c.name.as_str());
        let instr = self
            .instr
            .and_then(|i| m.instrs.get(i))
            .map(|d| d.name.as_str());
        match (instr, comp) {
            (Some(i), Some(c)) => format!(" (in instruction %{i} of computation %{c})"),
            (Some(i), None) => format!(" (in instruction %{i})"),
            (None, Some(c)) => format!(" (in computation %{c})"),
            (None, None) => String::new(),
        }
    }
}

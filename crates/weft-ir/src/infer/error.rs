//! [`InferError`]: why no result shape follows from an instruction's operands
//! and attributes, worded as XLA's `ShapeInference` words it.

/// The part of an instruction an inference error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InferFocus {
    /// The instruction as a whole.
    Instruction,
    /// Its opcode.
    Opcode,
    /// Operand `i`.
    Operand(usize),
    /// The `name=value` attribute `name`.
    Attribute(&'static str),
}

/// Why inference found no shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferError {
    /// What is wrong, in XLA's words where XLA has them.
    pub message: String,
    /// How to fix it, when there is something useful to say.
    pub hint: Option<String>,
    /// What the message is about.
    pub focus: InferFocus,
}

impl InferError {
    /// An error about the instruction as a whole.
    pub fn new(message: impl Into<String>) -> InferError {
        InferError {
            message: message.into(),
            hint: None,
            focus: InferFocus::Instruction,
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> InferError {
        self.hint = Some(hint.into());
        self
    }

    /// Points the error at operand `index`.
    pub fn at_operand(mut self, index: usize) -> InferError {
        self.focus = InferFocus::Operand(index);
        self
    }

    /// Points the error at attribute `name`.
    pub fn at_attribute(mut self, name: &'static str) -> InferError {
        self.focus = InferFocus::Attribute(name);
        self
    }

    /// Points the error at the opcode.
    pub fn at_opcode(mut self) -> InferError {
        self.focus = InferFocus::Opcode;
        self
    }
}

impl std::fmt::Display for InferError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InferError {}

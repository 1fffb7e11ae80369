//! weft's IR for XLA HLO programs, and HLO text (the IR's own format).
//!
//! A [`Module`] owns computations and one module-wide instruction store; handles
//! ([`Instr`], [`Comp`], [`Shape`]) are small typed indices that are never reused.
//! Instruction data is separate from order: a computation's body order and the
//! module's [`Schedule`] are side tables. Every opcode of XLA's `hlo_opcode.h` is
//! in one [opcode table](opcode), and every opcode carries one typed attribute
//! [family](attrs). Async operations are modelled as XLA does today
//! (`async-start` → `async-update`* → `async-done` around a wrapped computation,
//! with late binding); `<op>-start` sugar is a text concern only, and async chains
//! are derived ([`async_chain`]), never stored as links. Passes change a module
//! through an [`Editor`], which keeps body, schedule and the users
//! of every instruction in step; a module's [`Phase`] only moves forward.
//!
//! ```
//! let text = "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n";
//! let module = weft_ir::text::parse(text).unwrap();
//! let short = weft_ir::text::print(&module, &weft_ir::text::PrintOptions::short());
//! assert!(short.contains("ROOT n = f32[4]{0} negate(p)"));
//! ```

#![deny(missing_docs)]

pub mod async_chain;
pub mod attrs;
pub mod diagnostic;
pub mod edit;
pub mod element_type;
pub mod entity;
pub mod infer;
pub mod interpreter_calls;
pub mod literal;
pub mod load;
pub mod module;
pub mod module_config;
pub mod names;
pub mod opcode;
pub mod operands;
pub mod order;
pub mod partitioner;
pub mod pinned_order;
pub mod shape;
pub mod shape_util;
pub mod size;
pub mod stack_frames;
pub mod text;
pub mod verify;

pub use diagnostic::{Diagnostic, Span};
pub use edit::{EditError, Editor};
pub use element_type::ElementType;
pub use module::{
    Callees, Comp, CompData, Instr, InstrData, MAIN_THREAD, MAX_CALL_DEPTH, Module, Phase, Schedule,
};
pub use opcode::Opcode;
pub use operands::Operands;
pub use shape::{Shape, ShapeData};
pub use verify::{Rule, VerifyError, verify};

//! weft's compiler passes over HLO modules, laid out to be read in order:
//!
//! 1. [`analysis`]: values computed from a `&Module` (which instructions have
//!    side effects, …), never cached inside it;
//! 2. [`pass`]: what a pass is — a kebab-case name (XLA's, where XLA has the
//!    pass), options under XLA's config field names, and `run`, which edits
//!    the module through weft-ir's [`Editor`](weft_ir::Editor) and says
//!    whether it changed anything;
//! 3. [`passes`]: one file per pass, each opening with an essay (the
//!    problem, the algorithm, the invariants before and after, a tiny
//!    before/after);
//! 4. [`spec`]: the text that names a pipeline, `name{key=value key=v1,v2},name2`;
//! 5. [`registry`]: the sorted table of every pass, for the command line and
//!    the file tests;
//! 6. [`pipeline`]: runs a list of passes, verifying after each when asked
//!    (always in debug builds) and naming the pass that broke the module,
//!    with dumps after chosen passes and each pass's time.

#![deny(missing_docs)]

pub mod analysis;
pub mod opcode_predicate;
pub mod pass;
pub mod passes;
pub mod pipeline;
pub mod registry;
pub mod scheduling_annotation;
pub mod spec;

pub use pass::{Options, Pass, PassError};
pub use pipeline::{Pipeline, PipelineOptions, PipelineReport};

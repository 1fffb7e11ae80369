//! weft's runtime: executing HLO modules.
//!
//! - [`tensor`]: values — a tensor is an element type, dimensions and
//!   contiguous little-endian bytes; a value is a tensor, a tuple or a token;
//! - [`numbers`]: tensors decoded into the arithmetic domain of their element
//!   type (floats as `f64`, integers as `i64`/`u64`, complex as pairs) and
//!   encoded back with XLA's rounding;
//! - [`npy`]: NumPy `.npy` files in and out (bf16 and the f8 family as their
//!   bit patterns, the element type given by the caller);
//! - [`evaluate`](mod@evaluate): the evaluator, one device, every instruction in order;
//! - [`devices`]: a grid of devices as threads, their collectives and their
//!   point-to-point transfers;
//! - [`random`]: seeded inputs for programs run without any;
//! - [`simulate`](mod@simulate): a grid's timeline under virtual timing
//!   without computing values, each equivalence class of devices once.

#![deny(missing_docs)]

pub mod devices;
pub mod evaluate;
pub mod npy;
pub mod numbers;
pub mod random;
pub mod simulate;
pub mod tensor;

pub use evaluate::{Evaluation, Limits, RunError, evaluate, run, run_with, set_kernel_threads};
pub use tensor::{Tensor, Value};

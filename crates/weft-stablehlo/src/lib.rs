//! weft's StableHLO front end: MLIR text with futures and async ops.
//!
//! - [`ir`]: the op model — MLIR's operations, values, blocks and regions in one
//!   arena ([`ir::Body`]), with types, attributes and locations;
//! - [`ops`]: the op table (names, custom syntax, inherent attributes);
//! - [`text`]: the MLIR text reader and writer;
//! - [`verify`](mod@verify): the verifier (structure, async ops, collectives);
//! - [`lower`]: the lowering to an HLO module, per device;
//! - [`export`]: an HLO module as StableHLO, async chains as `async_start`;
//! - [`future_origin`]: following a future back to its start;
//! - [`async_style`]: rewriting between `async_start`/`async_done` and the
//!   explicit `*_start`/`*_done` pairs.
//!
//! ```
//! let text = "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %x, %x : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
//! let body = weft_stablehlo::text::parse(text).unwrap();
//! let printed = weft_stablehlo::text::print(&body, &Default::default());
//! assert!(printed.contains("%0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>"));
//! ```

#![deny(missing_docs)]

pub mod async_style;
pub mod dot_algorithm;
pub mod export;
pub mod future_origin;
pub mod ir;
pub mod load;
pub mod lower;
pub mod ops;
pub mod text;
pub mod verify;

pub use verify::{VerifyError, verify};

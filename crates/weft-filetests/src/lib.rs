//! The home of weft's file-based tests (`tests/filetests.rs` in this crate).
//!
//! They live in a crate of their own because one harness reads both text
//! formats, HLO (`weft-ir`) and StableHLO (`weft-stablehlo`), and the library
//! crates must not depend on each other the wrong way round to share it.

//! Analyses: plain values computed from a `&Module`. A pass computes what it
//! needs when it runs; nothing here is cached inside the module, so nothing
//! can go stale when the module changes. Read them in order: the call graph,
//! then dataflow (values and the positions that hold them), aliasing
//! (buffers: values that share storage), then live ranges and memory under
//! a schedule.

pub mod alias;
pub mod call_graph;
pub mod dataflow;
pub mod live_range;
pub mod side_effects;

//! Analyses: plain values computed from a `&Module`. A pass computes what it
//! needs when it runs; nothing here is cached inside the module, so nothing
//! can go stale when the module changes.

pub mod call_graph;
pub mod side_effects;
pub mod while_loop;

//! weft's cost model: how long an instruction or a transfer takes on a
//! modelled machine.
//!
//! Three pieces, each a plain value:
//!
//! - [`work`]: what an instruction asks of a device — its floating-point and
//!   integer operations, transcendental evaluations and bytes moved — counted
//!   from its shapes and attributes alone (XLA's `HloCostAnalysis`), so the
//!   same instruction always costs the same;
//! - [`profile`]: a device's speeds (operations per second by element class,
//!   memory bandwidth, per-instruction overhead), read from a TOML file that
//!   `weft calibrate` writes by timing weft's own kernels, or built in;
//! - [`link`]: one link, `latency + bytes / bandwidth` per transfer, and
//!   the bytes each device receives under the ring algorithm of each
//!   collective;
//! - [`topology`]: which devices share which links — flat (every pair one
//!   link, the default), nodes of several devices, rings, 2-D and 3-D tori
//!   and meshes — with a text form for the command line;
//! - [`collective`]: the time of each collective under an algorithm (ring,
//!   tree, direct) on a topology, and the fastest algorithm.
//!
//! The runtime's virtual clock charges every instruction
//! [`Profile::time`]`(`[`work::of`]`(…))` and every transfer
//! [`Link::transfer_time`] (or, given a topology,
//! [`Interconnect::collective_time`], which equals it on the flat topology
//! under the ring); the scheduler will rank schedules with the same
//! numbers, so what a run reports and what the scheduler optimises agree.

pub mod collective;
pub mod link;
pub mod profile;
pub mod topology;
pub mod work;

pub use collective::{Algorithm, Collective, Interconnect, Selection};
pub use link::{CollectiveKind, Link};
pub use profile::Profile;
pub use topology::Topology;
pub use work::Work;

//! The text form of the structured attribute values, one file per family of
//! [`crate::attrs`], each with its parse (an `impl Parser` block) beside its
//! print, in XLA's attribute order, so that round-tripping can be checked by
//! reading the two side by side.
//!
//! The flat attributes (`dimensions={…}`, `direction=EQ`, `kind=kLoop`, …) are
//! read from the instruction's attribute bag in `family.rs` and printed by the
//! module printer; the spellings of the small enumerations are data, kept with
//! them in [`crate::attrs`].

mod collective;
mod common_attrs;
mod convolution;
mod dot;
mod gather_scatter;
mod sharding;
mod window;

pub use common_attrs::{lexes_as_dict, print_string_or_dict};
pub use dot::print_precision;
pub use window::print_slice_ranges;

//! TODO

use crate::verify::checker::Checker;

pub(super) fn check(_cx: &mut Checker) {}

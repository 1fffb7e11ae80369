//! TODO(helper)

use crate::module::Instr;
use crate::verify::checker::Checker;

pub(super) fn check(_cx: &mut Checker, _instr: Instr) {}

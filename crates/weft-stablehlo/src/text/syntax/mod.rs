//! Custom (pretty) op forms, one family per file, each form's parser next to
//! its printer so that print∘parse round-trips by construction.
//!
//! A parser is called after the op name and returns the op without results;
//! a printer is called after `%results = ` and returns `false` when the op
//! cannot be written in its custom form (then it prints in the generic form,
//! as MLIR does for ops whose attributes don't fit the custom syntax).

mod elementwise;
mod operands;
mod structure;

use crate::ir::Op;
use crate::ops::{OpName, Syntax};
use crate::text::cursor::PResult;
use crate::text::parser::{ParsedOp, Parser};
use crate::text::printer::Printer;

pub(crate) fn parse_custom(p: &mut Parser<'_>, name: OpName, syntax: Syntax) -> PResult<ParsedOp> {
    match syntax {
        Syntax::Module => structure::parse_module(p, name),
        Syntax::Func => structure::parse_func(p, name),
        Syntax::Return => structure::parse_return(p, name),
        Syntax::Call => structure::parse_call(p, name),
        Syntax::SameOperandsAndResultType => elementwise::parse_same_type(p, name),
        Syntax::Constant => elementwise::parse_constant(p, name),
        Syntax::Compare => elementwise::parse_compare(p, name),
        Syntax::ChloUnary => elementwise::parse_chlo_unary(p, name),
        Syntax::FunctionalType => operands::parse_functional(p, name),
        Syntax::ResultTypes => operands::parse_result_types(p, name),
        Syntax::Generic | Syntax::Unimplemented => {
            unreachable!("the parser reads ops without a custom form generically")
        }
    }
}

pub(crate) fn print_custom(pr: &mut Printer<'_>, op: Op, syntax: Syntax) -> bool {
    match syntax {
        Syntax::Module => structure::print_module(pr, op),
        Syntax::Func => structure::print_func(pr, op),
        Syntax::Return => structure::print_return(pr, op),
        Syntax::Call => structure::print_call(pr, op),
        Syntax::SameOperandsAndResultType => elementwise::print_same_type(pr, op),
        Syntax::Constant => elementwise::print_constant(pr, op),
        Syntax::Compare => elementwise::print_compare(pr, op),
        Syntax::ChloUnary => elementwise::print_chlo_unary(pr, op),
        Syntax::FunctionalType => operands::print_functional(pr, op),
        Syntax::ResultTypes => operands::print_result_types(pr, op),
        Syntax::Generic | Syntax::Unimplemented => false,
    }
}

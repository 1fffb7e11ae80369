//! Custom (pretty) op forms, one family per file, each form's parser next to
//! its printer so that print∘parse round-trips by construction.
//!
//! A parser is called after the op name and returns the op without results;
//! a printer is called after `%results = ` and returns `false` when the op
//! cannot be written in its custom form (then it prints in the generic form,
//! as MLIR does for ops whose attributes don't fit the custom syntax).

mod control;
mod data_movement;
mod elementwise;
pub(crate) mod linalg;
mod misc;
mod operands;
mod shardy;
mod structure;
#[cfg(test)]
mod test_support;
mod testing;

use crate::ir::Op;
use crate::ops::{OpName, Syntax};
use crate::text::cursor::PResult;
use crate::text::parser::{ParsedOp, Parser};
use crate::text::printer::Printer;

/// The keyword of an enum attribute written `#stablehlo<kind KEYWORD>`.
pub(super) fn stablehlo_enum<'a>(
    attribute: &'a crate::ir::Attribute,
    kind: &str,
) -> Option<&'a str> {
    let crate::ir::Attribute::Opaque(text) = attribute else {
        return None;
    };
    text.strip_prefix("#stablehlo<")?
        .strip_suffix('>')?
        .strip_prefix(kind)?
        .strip_prefix(' ')
}

pub(crate) fn parse_custom(p: &mut Parser<'_>, name: OpName, syntax: Syntax) -> PResult<ParsedOp> {
    match syntax {
        Syntax::Module => structure::parse_module(p, name),
        Syntax::Func => structure::parse_func(p, name),
        Syntax::Return => structure::parse_return(p, name),
        Syntax::Call => structure::parse_call(p, name),
        Syntax::SameOperandsAndResultType => elementwise::parse_same_type(p, name),
        Syntax::Constant => misc::parse_constant(p, name),
        Syntax::BroadcastInDim
        | Syntax::DynamicBroadcastInDim
        | Syntax::Iota
        | Syntax::DynamicIota
        | Syntax::Transpose
        | Syntax::Reverse
        | Syntax::Concatenate
        | Syntax::Slice
        | Syntax::DynamicSlice
        | Syntax::Pad
        | Syntax::GetDimensionSize
        | Syntax::SetDimensionSize
        | Syntax::Tuple
        | Syntax::GetTupleElement => data_movement::parse(p, name, syntax),
        Syntax::Select
        | Syntax::ComplexOpType
        | Syntax::ReducePrecision
        | Syntax::OptimizationBarrier
        | Syntax::CustomCall
        | Syntax::Composite
        | Syntax::Rng
        | Syntax::RngBitGenerator
        | Syntax::Fft
        | Syntax::Cholesky => misc::parse(p, name, syntax),
        Syntax::Compare => elementwise::parse_compare(p, name),
        Syntax::ChloUnary => elementwise::parse_chlo_unary(p, name),
        Syntax::ChloBinary => elementwise::parse_chlo_binary(p, name),
        Syntax::FunctionalType | Syntax::ChloBroadcast => operands::parse_functional(p, name),
        Syntax::ResultTypes => operands::parse_result_types(p, name),
        Syntax::Dot => linalg::parse_dot(p, name),
        Syntax::DotGeneral => linalg::parse_dot_general(p, name),
        Syntax::Convolution => linalg::parse_convolution(p, name),
        Syntax::Reduce => control::parse_reduce(p, name),
        Syntax::While => control::parse_while(p, name),
        Syntax::ChloScan => control::parse_chlo_scan(p, name),
        Syntax::ChloTopK => control::parse_chlo_top_k(p, name),
        Syntax::CheckOperands => testing::parse_check_operands(p, name),
        Syntax::CheckConstant => testing::parse_check_constant(p, name),
        Syntax::CheckClose => testing::parse_check_close(p, name),
        Syntax::CheckSerializedEq => testing::parse_check_serialized_eq(p, name),
        Syntax::Probe => testing::parse_probe(p, name),
        Syntax::OperandTypes => testing::parse_operand_types(p, name),
        Syntax::SdyMesh => shardy::parse_mesh(p, name),
        Syntax::SdyShardingConstraint => shardy::parse_sharding_constraint(p, name),
        Syntax::SdyManualComputation => shardy::parse_manual_computation(p, name),
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
        Syntax::Constant => misc::print_constant(pr, op),
        Syntax::BroadcastInDim
        | Syntax::DynamicBroadcastInDim
        | Syntax::Iota
        | Syntax::DynamicIota
        | Syntax::Transpose
        | Syntax::Reverse
        | Syntax::Concatenate
        | Syntax::Slice
        | Syntax::DynamicSlice
        | Syntax::Pad
        | Syntax::GetDimensionSize
        | Syntax::SetDimensionSize
        | Syntax::Tuple
        | Syntax::GetTupleElement => data_movement::print(pr, op, syntax),
        Syntax::Select
        | Syntax::ComplexOpType
        | Syntax::ReducePrecision
        | Syntax::OptimizationBarrier
        | Syntax::CustomCall
        | Syntax::Composite
        | Syntax::Rng
        | Syntax::RngBitGenerator
        | Syntax::Fft
        | Syntax::Cholesky => misc::print(pr, op, syntax),
        Syntax::Compare => elementwise::print_compare(pr, op),
        Syntax::ChloUnary => elementwise::print_chlo_unary(pr, op),
        Syntax::ChloBinary => elementwise::print_chlo_binary(pr, op),
        Syntax::FunctionalType | Syntax::ChloBroadcast => operands::print_functional(pr, op),
        Syntax::ResultTypes => operands::print_result_types(pr, op),
        Syntax::Dot => linalg::print_dot(pr, op),
        Syntax::DotGeneral => linalg::print_dot_general(pr, op),
        Syntax::Convolution => linalg::print_convolution(pr, op),
        Syntax::Reduce => control::print_reduce(pr, op),
        Syntax::While => control::print_while(pr, op),
        Syntax::ChloScan => control::print_chlo_scan(pr, op),
        Syntax::ChloTopK => control::print_chlo_top_k(pr, op),
        Syntax::CheckOperands => testing::print_check_operands(pr, op),
        Syntax::CheckConstant => testing::print_check_constant(pr, op),
        Syntax::CheckClose => testing::print_check_close(pr, op),
        Syntax::CheckSerializedEq => testing::print_check_serialized_eq(pr, op),
        Syntax::Probe => testing::print_probe(pr, op),
        Syntax::OperandTypes => testing::print_operand_types(pr, op),
        Syntax::SdyMesh => shardy::print_mesh(pr, op),
        Syntax::SdyShardingConstraint => shardy::print_sharding_constraint(pr, op),
        Syntax::SdyManualComputation => shardy::print_manual_computation(pr, op),
        Syntax::Generic | Syntax::Unimplemented => false,
    }
}

//! Shape rules, one file per opcode family: for each instruction, the result
//! shape follows from its operands and attributes (XLA's `ShapeInference`), and
//! the operands have the element types, ranks and dimensions the opcode needs.
//!
//! The generic async ops are checked by [`super::async_rules`]. Every other
//! opcode is owned by exactly one family file; [`check`] dispatches on the
//! opcode, so adding an opcode to the table without a rule is a compile error
//! (the match has no wildcard).

mod collectives;
mod control;
mod data_movement;
mod dot_conv;
mod elementwise;
mod gather_scatter;
mod misc;
mod reduce;

use crate::module::Instr;
use crate::opcode::Opcode;
use crate::shape::MAX_SHAPE_DEPTH;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

/// A shape nested deeper than HLO text reads back (tuples in tuples).
fn check_depth(cx: &mut Checker, instr: Instr) {
    let depth = cx.m.shapes.depth(cx.data(instr).shape);
    if depth > MAX_SHAPE_DEPTH {
        cx.report(
            Rule::ShapeDepth,
            instr,
            format!("the shape nests {depth} levels deep; HLO text nests shapes at most {MAX_SHAPE_DEPTH} levels"),
        )
        .with_hint(format!(
            "weft reads shapes nested at most {MAX_SHAPE_DEPTH} levels (a tuple is one level around its elements), so it writes none deeper"
        ));
    }
}

/// Runs the shape rule of every live instruction.
pub(super) fn check(cx: &mut Checker) {
    for comp in cx.computations() {
        for &instr in cx.body(comp) {
            check_depth(cx, instr);
            use Opcode as O;
            let opcode = cx.data(instr).opcode;
            match opcode {
                O::Abs
                | O::Acos
                | O::Acosh
                | O::Add
                | O::And
                | O::Asin
                | O::Asinh
                | O::Atan
                | O::Atan2
                | O::Atanh
                | O::Cbrt
                | O::Ceil
                | O::Clamp
                | O::CountLeadingZeros
                | O::Compare
                | O::Complex
                | O::Cosine
                | O::Cosh
                | O::Divide
                | O::Erf
                | O::Exponential
                | O::ExponentialMinusOne
                | O::Floor
                | O::Imag
                | O::IsFinite
                | O::Log
                | O::LogPlusOne
                | O::Logistic
                | O::Maximum
                | O::Minimum
                | O::Mulhi
                | O::Multiply
                | O::Negate
                | O::Not
                | O::Or
                | O::PopulationCount
                | O::Power
                | O::Real
                | O::Remainder
                | O::RoundNearestAfz
                | O::RoundNearestEven
                | O::Rsqrt
                | O::Select
                | O::ShiftLeft
                | O::ShiftRightArithmetic
                | O::ShiftRightLogical
                | O::Sign
                | O::Sine
                | O::Sinh
                | O::Sqrt
                | O::Subtract
                | O::Tan
                | O::Tanh
                | O::Xor
                | O::Convert
                | O::BitcastConvert
                | O::ReducePrecision
                | O::StochasticConvert
                | O::Bitcast => elementwise::check(cx, instr),
                O::Broadcast
                | O::Reshape
                | O::DynamicReshape
                | O::Transpose
                | O::Reverse
                | O::Slice
                | O::DynamicSlice
                | O::DynamicUpdateSlice
                | O::Concatenate
                | O::Pad
                | O::Iota
                | O::GetDimensionSize
                | O::SetDimensionSize => data_movement::check(cx, instr),
                O::Dot | O::RaggedDot | O::ScaledDot | O::Convolution => dot_conv::check(cx, instr),
                O::Reduce
                | O::ReduceWindow
                | O::SelectAndScatter
                | O::Map
                | O::Sort
                | O::TopK
                | O::Scan => reduce::check(cx, instr),
                O::Gather | O::Scatter => gather_scatter::check(cx, instr),
                O::While
                | O::Conditional
                | O::Call
                | O::Fusion
                | O::Tuple
                | O::GetTupleElement
                | O::OptimizationBarrier
                | O::AddDependency
                | O::AfterAll
                | O::Domain
                | O::Parameter
                | O::Constant => control::check(cx, instr),
                O::AllGather
                | O::AllGatherStart
                | O::AllGatherDone
                | O::AllReduce
                | O::AllReduceStart
                | O::AllReduceDone
                | O::AllToAll
                | O::RaggedAllToAll
                | O::CollectiveBroadcast
                | O::CollectivePermute
                | O::CollectivePermuteStart
                | O::CollectivePermuteDone
                | O::CollectiveReduce
                | O::ReduceScatter
                | O::Send
                | O::SendDone
                | O::Recv
                | O::RecvDone
                | O::Infeed
                | O::Outfeed => collectives::check(cx, instr),
                O::Rng
                | O::RngBitGenerator
                | O::RngGetAndUpdateState
                | O::CustomCall
                | O::Fft
                | O::TriangularSolve
                | O::Cholesky
                | O::BatchNormGrad
                | O::BatchNormInference
                | O::BatchNormTraining
                | O::Copy
                | O::CopyStart
                | O::CopyDone
                | O::ReplicaId
                | O::PartitionId
                | O::Shuffle => misc::check(cx, instr),
                O::AsyncStart | O::AsyncUpdate | O::AsyncDone => {}
            }
        }
    }
}

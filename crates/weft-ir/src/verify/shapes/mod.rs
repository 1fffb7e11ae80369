//! Shape rules, one file per opcode family: for each instruction, the result
//! shape follows from its operands and attributes, and the operands have the
//! element types, ranks and dimensions the opcode needs.
//!
//! The expected result comes from [`crate::infer`] (XLA's `ShapeInference`),
//! whose family files mirror these; an inference error is reported under the
//! family's rule, with inference's message, hint and focus. What is left here
//! is what only a verifier does: comparing the declared shape with the
//! inferred one (layouts aside unless layout-sensitive), reporting each
//! operand that is not an array, and XLA's verifier-only checks (replica
//! groups, mixed precision, operand precision, callee signatures).
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
use crate::shape::{MAX_SHAPE_DEPTH, Shape, ShapeData};
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

/// Runs the shape rule of every live instruction. An instruction whose
/// shape, or an operand's, has no valid size (rule `shape.size`) gets no
/// opcode rule: those compute with sizes, and a size that wraps would only
/// produce a second, misleading error.
pub(super) fn check(cx: &mut Checker) {
    let invalid = check_sizes(cx);
    for comp in cx.computations() {
        for &instr in cx.body(comp) {
            check_depth(cx, instr);
            if invalid.contains(&instr)
                || cx.data(instr).operands.iter().any(|o| invalid.contains(o))
            {
                continue;
            }
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

/// XLA's `ValidateShape` on every array in every instruction's shape;
/// returns the instructions whose shape failed it.
fn check_sizes(cx: &mut Checker) -> rustc_hash::FxHashSet<Instr> {
    let mut invalid = rustc_hash::FxHashSet::default();
    for comp in cx.computations() {
        for &instr in cx.body(comp) {
            if let Some(error) = first_size_error(cx, cx.shape_of(instr)) {
                cx.report(Rule::ShapeSize, instr, error.to_string())
                    .with_hint("an array's size in bytes must fit in int64, as in XLA");
                invalid.insert(instr);
            }
        }
    }
    invalid
}

/// The first array in `shape` (depth first) whose size is invalid.
fn first_size_error(cx: &Checker, shape: Shape) -> Option<crate::size::SizeError> {
    match cx.shape(shape) {
        ShapeData::Array(array) => array.validate().err(),
        ShapeData::Tuple(elements) => elements.iter().find_map(|&e| first_size_error(cx, e)),
        ShapeData::Buffer(inner) => first_size_error(cx, *inner),
        ShapeData::Token | ShapeData::Opaque => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::ElementType;
    use crate::verify::{Rule, verify};

    /// The parsers reject such shapes; a module built otherwise (a lowered
    /// program, a pass) meets the same rule here, and no opcode rule then
    /// computes with the wrapped size.
    #[test]
    fn a_shape_whose_size_overflows_is_an_error_of_its_own() {
        let text = "HloModule m\nENTRY e {\n  c = f32[] constant(1)\n  b = f32[2,2] broadcast(c), dimensions={}\n  ROOT r = f32[] copy(c)\n}\n";
        let mut module = crate::text::parse(text).unwrap();
        let entry = module.entry.unwrap();
        let b = module.instr_by_name(entry, "b").unwrap();
        module.instrs[b].shape = module
            .shapes
            .array_with_default_layout(ElementType::F32, &[1 << 32, 1 << 32]);
        let errors = verify(&module).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].rule, Rule::ShapeSize);
        assert!(
            errors[0].message.contains("overflows int64"),
            "{}",
            errors[0].message
        );
    }
}

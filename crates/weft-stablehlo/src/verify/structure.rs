//! Structure: registered ops, operand/result/region counts, terminators,
//! functions, calls, symbols, and isolated regions.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::attribute;
use crate::ir::{Attribute, Body, Op, Region, Type, ValueDef};
use crate::ops::{OpKind, OpName, Syntax};
use crate::verify::{Checker, type_text};

/// How many of something an op has.
#[derive(Copy, Clone, Debug)]
enum Count {
    Exactly(usize),
    AtLeast(usize),
    /// Any number, equal to the number of operands (results of `while`,
    /// `optimization_barrier`).
    SameAsOperands,
    Any,
}

impl Count {
    fn admits(self, n: usize, operands: usize) -> bool {
        match self {
            Count::Exactly(k) => n == k,
            Count::AtLeast(k) => n >= k,
            Count::SameAsOperands => n == operands,
            Count::Any => true,
        }
    }

    fn describe(self, operands: usize) -> String {
        match self {
            Count::Exactly(k) => k.to_string(),
            Count::AtLeast(k) => format!("at least {k}"),
            Count::SameAsOperands => operands.to_string(),
            Count::Any => "any number of".to_string(),
        }
    }
}

/// Operands, results and regions of a known op.
fn shape_of(kind: OpKind) -> (Count, Count, Count) {
    use Count::{Any, AtLeast, Exactly, SameAsOperands};
    use OpKind as K;
    let one = Exactly(1);
    // The elementwise chlo ops have the operands their syntax family writes.
    match kind.syntax() {
        Syntax::ChloUnary => return (one, one, Exactly(0)),
        Syntax::ChloBinary => return (Exactly(2), one, Exactly(0)),
        Syntax::ChloBroadcast if kind == K::ChloBroadcastSelect => {
            return (Exactly(3), one, Exactly(0));
        }
        Syntax::ChloBroadcast => return (Exactly(2), one, Exactly(0)),
        _ => {}
    }
    match kind {
        K::Module => (Exactly(0), Exactly(0), one),
        K::Func => (Exactly(0), Exactly(0), Any),
        K::FuncReturn | K::Return | K::SdyReturn => (Any, Exactly(0), Exactly(0)),
        K::Call => (Any, Any, Exactly(0)),
        K::Abs
        | K::Cbrt
        | K::Ceil
        | K::CountLeadingZeros
        | K::Convert
        | K::Cosine
        | K::Exponential
        | K::ExponentialMinusOne
        | K::Floor
        | K::Imag
        | K::IsFinite
        | K::Log
        | K::LogPlusOne
        | K::Logistic
        | K::Negate
        | K::Not
        | K::PopulationCount
        | K::Real
        | K::RoundNearestAfz
        | K::RoundNearestEven
        | K::Rsqrt
        | K::Sign
        | K::Sine
        | K::Sqrt
        | K::Tan
        | K::Tanh
        | K::BitcastConvert
        | K::Reshape
        | K::BroadcastInDim
        | K::Transpose
        | K::Reverse
        | K::Slice
        | K::ReducePrecision
        | K::Fft
        | K::UniformQuantize
        | K::UniformDequantize
        | K::GetTupleElement
        | K::MhloCopy
        | K::Cholesky
        | K::GetDimensionSize
        | K::DynamicIota
        | K::SdyShardingConstraint => (one, one, Exactly(0)),
        K::Add
        | K::And
        | K::Atan2
        | K::Complex
        | K::Divide
        | K::Maximum
        | K::Minimum
        | K::Multiply
        | K::Or
        | K::Power
        | K::Remainder
        | K::ShiftLeft
        | K::ShiftRightArithmetic
        | K::ShiftRightLogical
        | K::Subtract
        | K::Xor
        | K::Compare
        | K::Dot
        | K::DotGeneral
        | K::Convolution
        | K::DynamicReshape
        | K::Pad
        | K::DynamicBroadcastInDim
        | K::TriangularSolve => (Exactly(2), one, Exactly(0)),
        K::Clamp | K::Select => (Exactly(3), one, Exactly(0)),
        K::Rng => (Exactly(3), one, Exactly(0)),
        K::RngBitGenerator => (one, Exactly(2), Exactly(0)),
        K::Constant | K::Iota | K::ReplicaId | K::PartitionId | K::CreateToken => {
            (Exactly(0), one, Exactly(0))
        }
        K::Concatenate => (AtLeast(1), one, Exactly(0)),
        K::DynamicSlice => (AtLeast(1), one, Exactly(0)),
        K::DynamicUpdateSlice => (AtLeast(2), one, Exactly(0)),
        K::RealDynamicSlice => (Exactly(4), one, Exactly(0)),
        K::DynamicPad => (Exactly(5), one, Exactly(0)),
        K::Gather => (Exactly(2), one, Exactly(0)),
        K::DynamicGather | K::DynamicConv => (Exactly(3), one, Exactly(0)),
        K::SetDimensionSize => (Exactly(2), one, Exactly(0)),
        K::Scatter => (AtLeast(3), AtLeast(1), one),
        K::Tuple => (Any, one, Exactly(0)),
        K::AfterAll => (Any, one, Exactly(0)),
        K::OptimizationBarrier => (Any, SameAsOperands, Exactly(0)),
        K::CustomCall | K::Composite => (Any, Any, Exactly(0)),
        K::Reduce | K::ReduceWindow => (AtLeast(2), AtLeast(1), one),
        K::SelectAndScatter => (Exactly(3), one, Exactly(2)),
        K::Sort => (AtLeast(1), AtLeast(1), one),
        K::Map => (AtLeast(1), one, one),
        K::While => (Any, SameAsOperands, Exactly(2)),
        K::If => (one, Any, Exactly(2)),
        K::Case => (one, Any, AtLeast(1)),
        K::BatchNormGrad => (Exactly(5), Exactly(3), Exactly(0)),
        K::BatchNormInference => (Exactly(5), one, Exactly(0)),
        K::BatchNormTraining => (Exactly(3), Exactly(3), Exactly(0)),
        K::AllGather | K::AllToAll | K::CollectiveBroadcast => (AtLeast(1), AtLeast(1), Exactly(0)),
        K::AllReduce | K::CollectiveReduce => (AtLeast(1), AtLeast(1), one),
        K::ReduceScatter => (one, one, one),
        K::CollectivePermute => (one, one, Exactly(0)),
        // The async verifier reports region counts with the dialect's words.
        K::AsyncStart => (Any, one, Any),
        K::AsyncDone => (one, one, Exactly(0)),
        K::AllGatherStart | K::AllToAllStart | K::CollectiveBroadcastStart => {
            (AtLeast(1), one, Exactly(0))
        }
        K::AllReduceStart => (AtLeast(1), one, one),
        K::ReduceScatterStart => (one, one, one),
        K::CollectivePermuteStart => (one, one, Exactly(0)),
        K::AllGatherDone
        | K::AllReduceDone
        | K::AllToAllDone
        | K::CollectiveBroadcastDone
        | K::CollectivePermuteDone
        | K::ReduceScatterDone => (one, one, Exactly(0)),
        K::Send => (AtLeast(1), one, Exactly(0)),
        K::Recv => (one, AtLeast(1), Exactly(0)),
        K::Infeed => (one, AtLeast(1), Exactly(0)),
        K::Outfeed => (AtLeast(1), one, Exactly(0)),
        K::ChloRaggedDot => (Exactly(3), one, Exactly(0)),
        K::ChloScan => (AtLeast(1), AtLeast(1), one),
        K::ChloTopK => (one, Exactly(2), Exactly(0)),
        K::ChloConstant => (Exactly(0), one, Exactly(0)),
        K::ChloConstantLike => (one, one, Exactly(0)),
        K::SdyMesh => (Exactly(0), Exactly(0), Exactly(0)),
        K::SdyManualComputation => (Any, Any, one),
        K::CheckExpectEq | K::CheckExpectAlmostEq | K::CheckExpectClose => {
            (Exactly(2), Exactly(0), Exactly(0))
        }
        K::CheckExpectEqConst | K::CheckExpectAlmostEqConst | K::CheckExpectSerializedEq => {
            (one, Exactly(0), Exactly(0))
        }
        K::InterpreterRunParallel => (Any, Any, Exactly(0)),
        K::InterpreterPrint | K::InterpreterProbe => (one, Any, Exactly(0)),
        // Counted by their syntax family above.
        _ => (Any, Any, Any),
    }
}

/// The terminator a region of `kind` must end with.
fn terminator_of(kind: OpKind) -> Option<OpKind> {
    match kind {
        OpKind::Func => Some(OpKind::FuncReturn),
        OpKind::SdyManualComputation => Some(OpKind::SdyReturn),
        OpKind::Module => None,
        _ if kind.name().starts_with("stablehlo.") || kind.name().starts_with("chlo.") => {
            Some(OpKind::Return)
        }
        _ => None,
    }
}

/// Ops whose regions may not use values defined outside them.
fn is_isolated_from_above(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::Func | OpKind::Module | OpKind::AsyncStart | OpKind::SdyManualComputation
    )
}

pub(super) fn check(cx: &mut Checker, ops: &[Op]) {
    let body = cx.body;
    let functions = function_table(cx);
    for &op in ops {
        let data = &body.ops[op];
        let Some(kind) = data.name.kind() else {
            cx.report(op, "is not an operation weft knows").with_hint(
                "weft reads the func, stablehlo, chlo, sdy, check and interpreter dialects",
            );
            continue;
        };
        let (operands, results, regions) = shape_of(kind);
        let n = data.operands.len();
        if !operands.admits(n, n) {
            cx.report(
                op,
                format!("requires {} operands, but found {n}", operands.describe(n)),
            );
        }
        if !results.admits(data.results.len(), n) {
            cx.report(
                op,
                format!(
                    "requires {} results, but found {}",
                    results.describe(n),
                    data.results.len()
                ),
            );
        }
        if !regions.admits(data.regions.len(), n) {
            cx.report(
                op,
                format!(
                    "requires {} regions, but found {}",
                    regions.describe(n),
                    data.regions.len()
                ),
            );
        }
        if let Some(terminator) = terminator_of(kind) {
            for &region in &data.regions {
                check_terminator(cx, op, region, terminator);
            }
        }
        if is_isolated_from_above(kind) {
            check_isolated(cx, op);
        }
        match kind {
            OpKind::Func => check_function(cx, op),
            OpKind::Call => check_call(cx, op, &functions),
            _ => {}
        }
    }
}

/// Functions by name, reporting redefinitions.
fn function_table(cx: &mut Checker) -> FxHashMap<String, Op> {
    let body = cx.body;
    let mut table = FxHashMap::default();
    let mut seen = FxHashSet::default();
    for &op in &body.blocks[body.module_block()].ops {
        let Some(name) = body.symbol_name(op) else {
            continue;
        };
        if !seen.insert(name.to_string()) {
            cx.report(op, format!("redefinition of symbol named '{name}'"));
            continue;
        }
        if body.ops[op].name == OpName::func() {
            table.insert(name.to_string(), op);
        }
    }
    table
}

fn function_type(body: &Body, op: Op) -> Option<&crate::ir::FunctionType> {
    match attribute::find(&body.ops[op].properties, "function_type") {
        Some(Attribute::Type(Type::Function(function))) => Some(function),
        _ => None,
    }
}

fn check_terminator(cx: &mut Checker, op: Op, region: Region, expected: OpKind) {
    let body = cx.body;
    for &block in &body.regions[region].blocks {
        let last = body.blocks[block].ops.last().copied();
        let found = last.and_then(|t| body.ops[t].name.kind());
        if found != Some(expected) {
            let what = last.map_or("nothing".to_string(), |t| {
                format!("'{}'", body.ops[t].name.as_str())
            });
            let at = last.unwrap_or(op);
            cx.report(at, format!(
                "is not a valid end of a region of '{}': expects regions to end with '{}', found {what}",
                body.ops[op].name.as_str(),
                expected.name()
            ))
            .with_hint(format!("end the region with `{}`", expected.name()));
        }
    }
}

fn check_isolated(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let mut inside = FxHashSet::default();
    body.walk(op, &mut |inner| {
        inside.insert(inner);
    });
    let mut own_blocks = FxHashSet::default();
    for &inner in &inside {
        for &region in &body.ops[inner].regions {
            own_blocks.extend(body.regions[region].blocks.iter().copied());
        }
    }
    for &inner in &inside {
        if inner == op {
            continue;
        }
        for (i, &value) in body.ops[inner].operands.iter().enumerate() {
            let defined_inside = match body.values[value].def {
                ValueDef::Result(def, _) => inside.contains(&def) && def != op,
                ValueDef::Argument(block, _) => own_blocks.contains(&block),
            };
            if !defined_inside {
                cx.report(
                    inner,
                    format!(
                        "uses a value defined outside the isolated region of '{}' (operand {i})",
                        body.ops[op].name.as_str()
                    ),
                )
                .with_hint("pass the value in as an operand and use the region's block argument");
            }
        }
    }
}

fn check_function(cx: &mut Checker, op: Op) {
    let body = cx.body;
    let Some(function) = function_type(body, op) else {
        cx.report(
            op,
            "requires a 'function_type' attribute that is a function type",
        );
        return;
    };
    let name = body.symbol_name(op).unwrap_or("?").to_string();
    let Some(&region) = body.ops[op].regions.first() else {
        return;
    };
    let Some(entry) = body.entry_block(region) else {
        return;
    };
    let arguments = &body.blocks[entry].arguments;
    if arguments.len() != function.inputs.len() {
        cx.report(
            op,
            format!(
                "entry block must have {} arguments to match function signature",
                function.inputs.len()
            ),
        );
    }
    for &block in &body.regions[region].blocks {
        let Some(&last) = body.blocks[block].ops.last() else {
            continue;
        };
        if body.ops[last].name.kind() != Some(OpKind::FuncReturn) {
            continue;
        }
        let returned = &body.ops[last].operands;
        if returned.len() != function.results.len() {
            cx.report(
                last,
                format!(
                    "has {} operands, but enclosing function (@{name}) returns {}",
                    returned.len(),
                    function.results.len()
                ),
            );
            continue;
        }
        for (i, (&value, expected)) in returned.iter().zip(&function.results).enumerate() {
            if body.ty(value) != expected {
                cx.report(last, format!(
                    "type of return operand {i} ('{}') doesn't match function result type ('{}') in function @{name}",
                    type_text(body.ty(value)),
                    type_text(expected)
                ));
            }
        }
    }
}

fn check_call(cx: &mut Checker, op: Op, functions: &FxHashMap<String, Op>) {
    let body = cx.body;
    let Some(Attribute::SymbolRef(path)) = attribute::find(&body.ops[op].properties, "callee")
    else {
        cx.report(op, "requires a 'callee' symbol reference attribute");
        return;
    };
    let callee_name = path.join("::");
    let Some(function) = functions
        .get(&callee_name)
        .and_then(|&f| function_type(body, f))
    else {
        cx.report(
            op,
            format!("'{callee_name}' does not reference a valid function"),
        );
        return;
    };
    let data = &body.ops[op];
    if data.operands.len() != function.inputs.len() {
        cx.report(op, "incorrect number of operands for callee");
        return;
    }
    for (i, (&value, expected)) in data.operands.iter().zip(&function.inputs).enumerate() {
        if body.ty(value) != expected {
            cx.report(op, format!(
                "operand type mismatch: expected operand type '{}', but provided '{}' for operand number {i}",
                type_text(expected),
                type_text(body.ty(value))
            ));
        }
    }
    if data.results.len() != function.results.len() {
        cx.report(op, "incorrect number of results for callee");
        return;
    }
    for (i, (&value, expected)) in data.results.iter().zip(&function.results).enumerate() {
        if body.ty(value) != expected {
            cx.report(
                op,
                format!(
                    "result type mismatch at index {i}: expected '{}', but the call produces '{}'",
                    type_text(expected),
                    type_text(body.ty(value))
                ),
            );
        }
    }
}

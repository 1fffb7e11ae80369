//! What can be known about a while loop before it runs (XLA's
//! `while_loop_analysis`): which element of the loop state is its induction
//! variable, the range that variable walks, and how many times the body
//! runs.
//!
//! The loops recognised are the counted loops front ends write:
//!
//! ```text
//! init:       tuple(…, constant(a), …)               element i starts at a
//! body:       tuple(…, add(get-tuple-element(p, i), constant(s)), …)
//! condition:  compare(get-tuple-element(p, i), constant(b)), direction=LT
//! ```
//!
//! - [`induction_variable_index`] finds `i`: the condition must depend on
//!   exactly one element of its parameter, through scalar arithmetic only,
//!   and the body's new value of that element must depend on that same
//!   element alone (XLA's `GetLoopInductionVarTupleIdx`). Fusions and calls
//!   on the way are looked through, as XLA does.
//! - [`trivial_loop_range`] reads `a`, `s` and `b` as constants and gives
//!   the first and last values of the variable (XLA's
//!   `MatchTrivialLoopRange`): LT and GT bounds lose one, LE and GE keep
//!   theirs, and the last value is rounded down onto the step.
//! - [`trip_count`] counts the iterations (XLA's `ComputeWhileLoopTripCount`):
//!   by formula for `i < b` and `i <= b`, else by running the condition and
//!   the update on the variable alone, up to 128 iterations, which also
//!   covers GT, GE and NE loops and steps that go down.
//!
//! The initial value must be a constant (through copies and
//! get-tuple-element-of-tuple pairs); XLA would also evaluate a constant
//! expression there.

use std::collections::BTreeSet;

use weft_ir::attrs::{Attrs, Direction};
use weft_ir::literal::Literal;
use weft_ir::opcode::Flags;
use weft_ir::{Comp, ElementType, Instr, Module, Opcode, Shape};

/// How many iterations [`trip_count`] runs a loop for before giving up
/// (XLA's default `max_brute_force_iters`).
pub const MAX_BRUTE_FORCE_ITERATIONS: i64 = 128;

/// The parts of a while loop.
struct Loop {
    init: Instr,
    condition: Comp,
    body: Comp,
}

fn parts(module: &Module, while_instr: Instr) -> Option<Loop> {
    let data = module.instr(while_instr);
    // A while's callees are its body, then its condition (XLA's order).
    match (
        data.opcode,
        data.operands.as_slice(),
        data.callees.as_slice(),
    ) {
        (Opcode::While, &[init], &[body, condition]) => Some(Loop {
            init,
            condition,
            body,
        }),
        _ => None,
    }
}

fn parameter(module: &Module, comp: Comp) -> Option<Instr> {
    module.comp(comp).params().first().copied()
}

fn root(module: &Module, comp: Comp) -> Option<Instr> {
    module.comp(comp).root()
}

fn tuple_index(module: &Module, instr: Instr) -> Option<i64> {
    match module.instr(instr).attrs {
        Attrs::GetTupleElement { index } => Some(index),
        _ => None,
    }
}

fn is_scalar(module: &Module, shape: Shape) -> bool {
    module
        .shapes
        .as_array(shape)
        .is_some_and(|array| array.rank() == 0)
}

/// The value of a constant holding one integer (XLA's
/// `LiteralAsScalarInt64`, which refuses a `u64` beyond `i64::MAX`).
pub fn scalar_int(module: &Module, instr: Instr) -> Option<i64> {
    scalar_literal(module, instr).and_then(|(_, value)| i64::try_from(value).ok())
}

/// The element type and value of a constant holding one integer or `pred`.
fn scalar_literal(module: &Module, instr: Instr) -> Option<(ElementType, i128)> {
    let data = module.instr(instr);
    let Attrs::Constant(literal) = &data.attrs else {
        return None;
    };
    let Literal::Array(array) = literal.as_ref() else {
        return None;
    };
    let integral = array.elem.is_integer() || array.elem == ElementType::Pred;
    (integral && array.dims.iter().all(|&d| d == 1) && array.len() == 1)
        .then(|| (array.elem, array.get_int(0)))
}

fn is_constant(module: &Module, instr: Instr) -> bool {
    module.instr(instr).opcode == Opcode::Constant
}

/// Follows copies, and get-tuple-elements of tuple instructions, to the
/// value they pass on.
fn trace_copies_and_tuples(module: &Module, mut instr: Instr) -> Instr {
    for _ in 0..module.instr_count() + 1 {
        let data = module.instr(instr);
        instr = match data.opcode {
            Opcode::GetTupleElement if module.instr(data.operands[0]).opcode == Opcode::Tuple => {
                let tuple = module.instr(data.operands[0]);
                match tuple_index(module, instr)
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| tuple.operands.get(i))
                {
                    Some(&element) => element,
                    None => return instr,
                }
            }
            Opcode::Copy | Opcode::CopyStart | Opcode::CopyDone if !data.operands.is_empty() => {
                data.operands[0]
            }
            _ => return instr,
        };
    }
    instr
}

/// The one operand of `instr` that is not a constant (possibly used
/// several times), if there is exactly one.
fn non_constant_operand(module: &Module, instr: Instr) -> Option<Instr> {
    let mut found = None;
    for &operand in module.instr(instr).operands.iter() {
        if is_constant(module, operand) {
            continue;
        }
        if found.is_some_and(|f| f != operand) {
            return None;
        }
        found = Some(operand);
    }
    found
}

/// The only get-tuple-element of `tuple` at `index` in its computation
/// (XLA's `GetUniqueGteInstruction`).
fn unique_gte(module: &Module, tuple: Instr, index: i64) -> Option<Instr> {
    let mut found = None;
    for user in super::users_in_computation(module, tuple) {
        if module.instr(user).opcode == Opcode::GetTupleElement
            && tuple_index(module, user) == Some(index)
        {
            if found.is_some() {
                return None;
            }
            found = Some(user);
        }
    }
    found
}

fn is_collective(module: &Module, instr: Instr) -> bool {
    let data = module.instr(instr);
    if data.opcode.flags().contains(Flags::COLLECTIVE) {
        return true;
    }
    matches!(
        data.opcode,
        Opcode::AsyncStart | Opcode::AsyncUpdate | Opcode::AsyncDone
    ) && data.callees.iter().any(|&wrapped| {
        root(module, wrapped)
            .is_some_and(|r| module.instr(r).opcode.flags().contains(Flags::COLLECTIVE))
    })
}

/// Whether `instr` is scalar arithmetic the analysis may run at compile
/// time (XLA's `IsScalarOp`): a scalar result, no communication, and only
/// such instructions in what it calls.
fn is_scalar_op(module: &Module, instr: Instr, depth: usize) -> bool {
    if depth > weft_ir::MAX_CALL_DEPTH || is_collective(module, instr) {
        return false;
    }
    let data = module.instr(instr);
    if matches!(
        data.opcode,
        Opcode::Send | Opcode::SendDone | Opcode::Recv | Opcode::RecvDone | Opcode::CustomCall
    ) {
        return false;
    }
    data.callees.iter().all(|&callee| {
        module
            .comp(callee)
            .body()
            .iter()
            .all(|&inner| is_scalar_op(module, inner, depth + 1))
    }) && is_scalar(module, data.shape)
}

/// A parameter of a computation that reaches its output: its number, and
/// the tuple element read when it is a tuple.
type ReachingParameter = (usize, Option<i64>);

/// Which parameters of `comp` its root (or element `output` of its root)
/// depends on (XLA's `GetReachingParameters`).
fn reaching_parameters(
    module: &Module,
    comp: Comp,
    output: Option<i64>,
    scalar_verified: bool,
    depth: usize,
) -> Option<Vec<ReachingParameter>> {
    if depth > weft_ir::MAX_CALL_DEPTH {
        return None;
    }
    let mut reached: Vec<ReachingParameter> = Vec::new();
    let mut visited: BTreeSet<(Instr, Option<i64>)> = BTreeSet::new();
    let mut worklist = vec![(root(module, comp)?, output)];
    while let Some((instr, index)) = worklist.pop() {
        if !visited.insert((instr, index)) {
            continue;
        }
        let data = module.instr(instr);
        let shape_fits = match index {
            Some(_) => module.shapes.is_tuple(data.shape),
            None => is_scalar(module, data.shape),
        };
        if !shape_fits {
            return None;
        }
        match data.opcode {
            Opcode::Parameter => {
                let number = module
                    .comp(comp)
                    .params()
                    .iter()
                    .position(|&p| p == instr)?;
                if !reached.contains(&(number, index)) {
                    reached.push((number, index));
                }
            }
            Opcode::Tuple => {
                let element = usize::try_from(index?).ok()?;
                worklist.push((*data.operands.get(element)?, None));
            }
            Opcode::GetTupleElement => {
                worklist.push((data.operands[0], tuple_index(module, instr)));
            }
            Opcode::Copy => worklist.push((*data.operands.first()?, index)),
            Opcode::Fusion | Opcode::Call => {
                let callee = *data.callees.first()?;
                let inner = reaching_parameters(module, callee, index, scalar_verified, depth + 1)?;
                for (number, inner_index) in inner {
                    worklist.push((*data.operands.get(number)?, inner_index));
                }
            }
            _ => {
                if index.is_some() || (!scalar_verified && !is_scalar_op(module, instr, depth)) {
                    return None;
                }
                worklist.extend(data.operands.iter().map(|&operand| (operand, None)));
            }
        }
    }
    Some(reached)
}

/// The elements of the tuple `input` that `output` is a scalar function of,
/// when it depends on nothing else (XLA's `GetGTEDependenceIndices`).
fn gte_dependence_indices(module: &Module, output: Instr, input: Instr) -> Option<BTreeSet<i64>> {
    if module.parent(output) != module.parent(input)
        || !module.shapes.is_tuple(module.shape_of(input))
    {
        return None;
    }
    let strip_copies = |mut instr: Instr| {
        while module.instr(instr).opcode == Opcode::Copy {
            instr = module.instr(instr).operands[0];
        }
        instr
    };
    let mut indices = BTreeSet::new();
    let mut visited: BTreeSet<Instr> = BTreeSet::new();
    let mut worklist = vec![output];
    // Maps the parameters a called computation's output depends on back to
    // the caller's operands.
    let called = |caller: Instr,
                  output_index: Option<i64>,
                  scalar_verified: bool,
                  worklist: &mut Vec<Instr>,
                  indices: &mut BTreeSet<i64>| {
        let data = module.instr(caller);
        let callee = *data.callees.first()?;
        for (number, index) in
            reaching_parameters(module, callee, output_index, scalar_verified, 0)?
        {
            let argument = *data.operands.get(number)?;
            match index {
                Some(index) if strip_copies(argument) == input => {
                    indices.insert(index);
                }
                Some(_) => return None,
                None => worklist.push(argument),
            }
        }
        Some(())
    };
    while let Some(instr) = worklist.pop() {
        if !visited.insert(instr) {
            continue;
        }
        let data = module.instr(instr);
        if instr == input || data.opcode == Opcode::Parameter {
            return None;
        }
        match data.opcode {
            Opcode::GetTupleElement => {
                if !is_scalar(module, data.shape) {
                    return None;
                }
                let operand = strip_copies(data.operands[0]);
                let operand_data = module.instr(operand);
                if operand == input {
                    indices.insert(tuple_index(module, instr)?);
                } else if operand_data.opcode == Opcode::Tuple {
                    worklist.extend(operand_data.operands.iter().copied());
                } else if matches!(operand_data.opcode, Opcode::Fusion | Opcode::Call) {
                    called(
                        operand,
                        tuple_index(module, instr),
                        false,
                        &mut worklist,
                        &mut indices,
                    )?;
                } else {
                    return None;
                }
            }
            Opcode::Copy => worklist.push(*data.operands.first()?),
            Opcode::Fusion | Opcode::Call => {
                if !is_scalar_op(module, instr, 0) {
                    return None;
                }
                called(instr, None, true, &mut worklist, &mut indices)?;
            }
            _ => {
                if !is_scalar_op(module, instr, 0) {
                    return None;
                }
                worklist.extend(data.operands.iter().copied());
            }
        }
    }
    (!indices.is_empty()).then_some(indices)
}

/// The tuple index of `while_instr`'s induction variable (XLA's
/// `GetLoopInductionVarTupleIdx`).
pub fn induction_variable_index(module: &Module, while_instr: Instr) -> Option<usize> {
    let parts = parts(module, while_instr)?;
    let condition_root = root(module, parts.condition)?;
    let condition_parameter = parameter(module, parts.condition)?;
    let indices = gte_dependence_indices(module, condition_root, condition_parameter)?;
    if module.instr(parts.init).opcode != Opcode::Tuple || indices.len() != 1 {
        return None;
    }
    let index = *indices.first()?;
    let body_root = root(module, parts.body)?;
    let body_root_data = module.instr(body_root);
    if body_root_data.opcode != Opcode::Tuple {
        return None;
    }
    let position = usize::try_from(index).ok()?;
    let increment = trace_copies_and_tuples(module, *body_root_data.operands.get(position)?);
    let body_parameter = parameter(module, parts.body)?;
    let body_indices = gte_dependence_indices(module, increment, body_parameter)?;
    (body_indices.len() == 1 && body_indices.first() == Some(&index)).then_some(position)
}

/// The induction variable's initial value: its element type and value
/// (XLA's `EvaluateIndvarInit`, for a constant).
fn initial_value(module: &Module, parts: &Loop, index: usize) -> Option<(ElementType, i128)> {
    let init = module.instr(parts.init);
    if init.opcode != Opcode::Tuple {
        return None;
    }
    scalar_literal(
        module,
        trace_copies_and_tuples(module, *init.operands.get(index)?),
    )
}

/// The values an induction variable takes: `min`, `min + step`, …, up to
/// `max`, each as XLA's `ConstantValue` holds it (wrapped to the width and
/// signedness of the constant it came from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopRange {
    /// The first value.
    pub min: i64,
    /// The last value the condition lets through, rounded onto the step.
    pub max: i64,
    /// The increment, greater than zero.
    pub step: i64,
}

/// `value` as a constant of `elem` holds it: cut to the type's width,
/// sign-extended for a signed type.
fn as_width(value: i64, elem: ElementType) -> i64 {
    let bits = elem.bit_width();
    if bits == 0 || bits >= 64 {
        return value;
    }
    let shift = 64 - bits;
    if elem.class() == weft_ir::element_type::ElementClass::Signed {
        (value << shift) >> shift
    } else {
        ((value as u64) << shift >> shift) as i64
    }
}

/// `add(variable, constant)` in either order: the constant's value.
fn constant_increment(module: &Module, update: Instr, variable: Instr) -> Option<i64> {
    let data = module.instr(update);
    let step = match (data.opcode, data.operands.as_slice()) {
        (Opcode::Add, &[a, b]) if a == variable && is_constant(module, b) => b,
        (Opcode::Add, &[a, b]) if b == variable && is_constant(module, a) => a,
        _ => return None,
    };
    scalar_int(module, step).filter(|&step| step > 0)
}

fn direction(module: &Module, instr: Instr) -> Option<Direction> {
    match module.instr(instr).attrs {
        Attrs::Compare { direction, .. } => Some(direction),
        _ => None,
    }
}

/// The range of `while_instr`'s induction variable when the loop is
/// `for (i = a; i < b; i += s)` with constants (XLA's
/// `MatchTrivialLoopRange`; see the module docs).
pub fn trivial_loop_range(module: &Module, while_instr: Instr) -> Option<LoopRange> {
    let index = induction_variable_index(module, while_instr)?;
    let parts = parts(module, while_instr)?;
    let (init_elem, init) = initial_value(module, &parts, index)?;
    let init = i64::try_from(init).ok()?;
    let body_root = root(module, parts.body)?;
    let update = *module.instr(body_root).operands.get(index)?;
    let variable = non_constant_operand(module, update)?;
    let wanted = i64::try_from(index).ok()?;
    if Some(variable) != unique_gte(module, parameter(module, parts.body)?, wanted) {
        return None;
    }
    let step = constant_increment(module, update, variable)?;
    let condition_variable = unique_gte(module, parameter(module, parts.condition)?, wanted)?;
    let condition_root = root(module, parts.condition)?;
    let bound = match *module.instr(condition_root).operands.as_slice() {
        [a, b] if a == condition_variable => b,
        [a, b] if b == condition_variable => a,
        _ => return None,
    };
    let mut last = scalar_int(module, bound)?;
    match direction(module, condition_root)? {
        Direction::Lt | Direction::Gt => last = last.wrapping_sub(1),
        Direction::Le | Direction::Ge => {}
        _ => return None,
    }
    // Round the last value down so that it is init plus a multiple of the
    // step, without overflowing on the way.
    let mut remainder = (last % step - init % step) % step;
    if remainder < 0 {
        remainder += step;
    }
    last = last.wrapping_sub(remainder);
    let bound_elem = module
        .shapes
        .as_array(module.shape_of(bound))
        .map(|array| array.elem)?;
    Some(LoopRange {
        min: as_width(init, init_elem),
        max: as_width(last, bound_elem),
        step,
    })
}

/// The number of iterations of `while_instr`, when it can be known (XLA's
/// `ComputeWhileLoopTripCount`; see the module docs).
pub fn trip_count(module: &Module, while_instr: Instr) -> Option<i64> {
    let index = induction_variable_index(module, while_instr)?;
    let parts = parts(module, while_instr)?;
    let init = initial_value(module, &parts, index)?;
    if let Some(count) = counted_trip_count(module, &parts, index, init.1) {
        return Some(count);
    }
    brute_force_trip_count(module, &parts, index, init)
}

/// `i < b` and `i <= b` loops, by formula (XLA's `MatchTrivialLoopTripCount`).
fn counted_trip_count(module: &Module, parts: &Loop, index: usize, init: i128) -> Option<i64> {
    let init = i64::try_from(init).ok()?;
    let wanted = i64::try_from(index).ok()?;
    let body_root = root(module, parts.body)?;
    let update = trace_copies_and_tuples(module, *module.instr(body_root).operands.get(index)?);
    let variable = non_constant_operand(module, update)?;
    if Some(trace_copies_and_tuples(module, variable))
        != unique_gte(module, parameter(module, parts.body)?, wanted)
    {
        return None;
    }
    let step = constant_increment(module, update, variable)?;
    let condition_root = root(module, parts.condition)?;
    let condition_variable = non_constant_operand(module, condition_root)?;
    if Some(condition_variable) != unique_gte(module, parameter(module, parts.condition)?, wanted) {
        return None;
    }
    let &[first, second] = module.instr(condition_root).operands.as_slice() else {
        return None;
    };
    let bound = if first == condition_variable {
        second
    } else if second == condition_variable {
        first
    } else {
        return None;
    };
    let bound = scalar_int(module, bound)?;
    let trips = bound.checked_sub(init)?;
    match direction(module, condition_root)? {
        Direction::Lt if first == condition_variable => {
            if trips <= 0 {
                return Some(0);
            }
            ((trips - 1) / step).checked_add(1)
        }
        Direction::Le if first == condition_variable => {
            if trips < 0 {
                return Some(0);
            }
            (trips / step).checked_add(1)
        }
        _ => None,
    }
}

/// Runs the condition and the update on the induction variable alone.
fn brute_force_trip_count(
    module: &Module,
    parts: &Loop,
    index: usize,
    init: (ElementType, i128),
) -> Option<i64> {
    let wanted = i64::try_from(index).ok()?;
    let body_root = root(module, parts.body)?;
    let update = *module.instr(body_root).operands.get(index)?;
    let variable = non_constant_operand(module, update)?;
    if Some(variable) != unique_gte(module, parameter(module, parts.body)?, wanted) {
        return None;
    }
    let condition_root = root(module, parts.condition)?;
    let condition_variable = non_constant_operand(module, condition_root)?;
    if Some(condition_variable) != unique_gte(module, parameter(module, parts.condition)?, wanted) {
        return None;
    }
    let mut value = init;
    for count in 0..=MAX_BRUTE_FORCE_ITERATIONS {
        let (_, go_on) = evaluate(module, condition_root, condition_variable, value)?;
        if go_on == 0 {
            return Some(count);
        }
        value = evaluate(module, update, variable, value)?;
    }
    None
}

/// Evaluates the scalar integer instruction `instr`, whose operands are
/// constants or `variable` (holding `value`).
fn evaluate(
    module: &Module,
    instr: Instr,
    variable: Instr,
    value: (ElementType, i128),
) -> Option<(ElementType, i128)> {
    let data = module.instr(instr);
    let operands: Vec<(ElementType, i128)> = data
        .operands
        .iter()
        .map(|&operand| {
            if operand == variable {
                Some(value)
            } else {
                scalar_literal(module, operand)
            }
        })
        .collect::<Option<_>>()?;
    let elem = module.shapes.as_array(data.shape).map(|array| array.elem)?;
    let signed = |elem: ElementType| elem.class() == weft_ir::element_type::ElementClass::Signed;
    let result = match (data.opcode, operands.as_slice()) {
        (Opcode::Add, &[(_, a), (_, b)]) => a.wrapping_add(b),
        (Opcode::Subtract, &[(_, a), (_, b)]) => a.wrapping_sub(b),
        (Opcode::Multiply, &[(_, a), (_, b)]) => a.wrapping_mul(b),
        (Opcode::Divide, &[(_, a), (_, b)]) if b != 0 => a.wrapping_div(b),
        (Opcode::Maximum, &[(_, a), (_, b)]) => a.max(b),
        (Opcode::Minimum, &[(_, a), (_, b)]) => a.min(b),
        (Opcode::Negate, &[(_, a)]) => a.wrapping_neg(),
        (Opcode::And, &[(_, a), (_, b)]) => a & b,
        (Opcode::Or, &[(_, a), (_, b)]) => a | b,
        (Opcode::Not, &[(ElementType::Pred, a)]) => i128::from(a == 0),
        (Opcode::Copy, &[(_, a)]) => a,
        (Opcode::Compare, &[(_, a), (_, b)]) => i128::from(match direction(module, instr)? {
            Direction::Eq => a == b,
            Direction::Ne => a != b,
            Direction::Lt => a < b,
            Direction::Le => a <= b,
            Direction::Gt => a > b,
            Direction::Ge => a >= b,
        }),
        _ => return None,
    };
    if elem == ElementType::Pred {
        return Some((elem, i128::from(result != 0)));
    }
    if !elem.is_integer() {
        return None;
    }
    // Wrap to the result type, as the device would.
    let bits = elem.bit_width().min(127);
    let shift = 128 - bits;
    let wrapped = if signed(elem) {
        (result << shift) >> shift
    } else {
        ((result as u128) << shift >> shift) as i128
    };
    Some((elem, wrapped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::text::parse;

    fn counted_loop(init: &str, step: &str, direction: &str, bound: &str) -> String {
        format!(
            "HloModule m\n\n%body (p: (s32[], f32[4])) -> (s32[], f32[4]) {{\n  %p = (s32[], f32[4]) parameter(0)\n  %i = s32[] get-tuple-element(%p), index=0\n  %x = f32[4] get-tuple-element(%p), index=1\n  %s = s32[] constant({step})\n  %next = s32[] add(%i, %s)\n  ROOT %t = (s32[], f32[4]) tuple(%next, %x)\n}}\n\n%cond (p: (s32[], f32[4])) -> pred[] {{\n  %p = (s32[], f32[4]) parameter(0)\n  %i = s32[] get-tuple-element(%p), index=0\n  %b = s32[] constant({bound})\n  ROOT %c = pred[] compare(%i, %b), direction={direction}\n}}\n\nENTRY %main (x: f32[4]) -> (s32[], f32[4]) {{\n  %x = f32[4] parameter(0)\n  %a = s32[] constant({init})\n  %init = (s32[], f32[4]) tuple(%a, %x)\n  ROOT %w = (s32[], f32[4]) while(%init), condition=%cond, body=%body\n}}\n"
        )
    }

    fn analyse(text: &str) -> (Option<usize>, Option<LoopRange>, Option<i64>) {
        let module = parse(text).expect("parses");
        let entry = module.entry.unwrap();
        let w = module.comp(entry).root().unwrap();
        (
            induction_variable_index(&module, w),
            trivial_loop_range(&module, w),
            trip_count(&module, w),
        )
    }

    #[test]
    fn counted_loops_are_known() {
        let (index, range, count) = analyse(&counted_loop("0", "1", "LT", "10"));
        assert_eq!(index, Some(0));
        assert_eq!(
            range,
            Some(LoopRange {
                min: 0,
                max: 9,
                step: 1
            })
        );
        assert_eq!(count, Some(10));
        let (_, range, count) = analyse(&counted_loop("10", "2", "LE", "1000000"));
        assert_eq!(range.map(|r| (r.max - r.min) / r.step + 1), Some(499996));
        assert_eq!(count, Some(499996));
    }

    #[test]
    fn downward_and_not_equal_loops_are_run() {
        // for (i = 10; i > 0; i += -1): no range (the step is not positive),
        // but running it counts 10.
        let (index, range, count) = analyse(&counted_loop("10", "-1", "GT", "0"));
        assert_eq!((index, range, count), (Some(0), None, Some(10)));
        let (_, _, count) = analyse(&counted_loop("0", "3", "NE", "9"));
        assert_eq!(count, Some(3));
        // Never reaching the bound within the limit: unknown.
        let (_, _, count) = analyse(&counted_loop("0", "1", "NE", "1000"));
        assert_eq!(count, None);
    }
}

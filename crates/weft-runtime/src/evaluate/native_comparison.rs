//! Comparators evaluated natively, for `sort` and `select-and-scatter`'s
//! `select`.
//!
//! A comparator that is one `compare` of the same elementwise function of
//! an operand's lhs and rhs parameters (`compare(f(lhsₖ), f(rhsₖ))`, `f`
//! often the identity; JAX writes float comparators so, to canonicalize NaN
//! and −0) is not called once per comparison: `f` runs once over the whole
//! operand and the keys are compared natively with the same predicate,
//! deciding exactly as the `compare` instruction would. A comparator of
//! any other form is not recognised, and its caller calls it once per
//! comparison.
//!
//! The key function may use only elementwise ops whose kernels take their
//! dimensions from their operands, and the conversions; it calls no
//! computation and has at most [`KEY_FUNCTION_LIMIT`] instructions. Keys
//! without a native order (complex numbers) are not compared natively.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;
use weft_ir::attrs::{Attrs, CompareType, Direction};
use weft_ir::{Comp, Instr, Opcode};

use super::Evaluator;
use crate::numbers::{Numbers, convert_numbers, decode, encode};
use crate::tensor::{Tensor, Value};

impl Evaluator<'_> {
    /// A comparator that is one `compare` of the same elementwise function
    /// of an operand's lhs and rhs parameters (`compare(f(p₂ₖ), f(p₂ₖ₊₁))`,
    /// `f` often the identity; JAX wraps float keys so to canonicalize NaN
    /// and −0), evaluated natively: `f` runs once over the whole operand and
    /// the keys are compared as the `compare` would. `None` when the
    /// comparator has another form; `only_operand` restricts `k`.
    pub(super) fn keyed_comparison(
        &mut self,
        comparator: Comp,
        operands: &[&Tensor],
        only_operand: Option<usize>,
    ) -> Option<NativeComparison> {
        let module = self.module;
        let data = module.comp(comparator);
        let root = module.instr(data.root()?);
        let Attrs::Compare {
            direction,
            compare_type,
        } = &root.attrs
        else {
            return None;
        };
        if root.opcode != Opcode::Compare {
            return None;
        }
        let [lhs, rhs] = root.operands[..] else {
            return None;
        };
        let single_parameter = |key: Instr| -> Option<usize> {
            let mut found = None;
            let mut seen = Vec::new();
            let mut stack = vec![key];
            while let Some(at) = stack.pop() {
                if seen.contains(&at) || seen.len() > KEY_FUNCTION_LIMIT {
                    continue;
                }
                seen.push(at);
                let node = module.instr(at);
                if node.opcode == Opcode::Parameter {
                    let number = data.params().iter().position(|&p| p == at)?;
                    if found.is_some_and(|f| f != number) {
                        return None;
                    }
                    found = Some(number);
                } else if !is_key_op(node.opcode) || !node.callees.is_empty() {
                    return None;
                }
                stack.extend(node.operands.iter().copied());
            }
            (seen.len() <= KEY_FUNCTION_LIMIT)
                .then_some(found)
                .flatten()
        };
        let (left, right) = (single_parameter(lhs)?, single_parameter(rhs)?);
        let operand = left / 2;
        if right / 2 != operand || left == right || only_operand.is_some_and(|k| k != operand) {
            return None;
        }
        let (left_param, right_param) = (data.params()[left], data.params()[right]);
        if !same_function(module, lhs, rhs, left_param, right_param, &mut 0) {
            return None;
        }
        let keys = self.key_values(lhs, left_param, operands.get(operand)?)?;
        NativeComparison::new(&keys, left % 2 == 1, *direction, *compare_type)
    }

    /// The elementwise function rooted at `key` of `parameter`, applied to
    /// every element of `values` at once (scalar constants broadcast).
    fn key_values(&mut self, key: Instr, parameter: Instr, values: &Tensor) -> Option<Tensor> {
        let module = self.module;
        let mut order = Vec::new();
        let mut stack = vec![(key, false)];
        while let Some((at, expanded)) = stack.pop() {
            if order.contains(&at) {
                continue;
            }
            if expanded {
                order.push(at);
            } else {
                stack.push((at, true));
                stack.extend(module.instr(at).operands.iter().map(|&o| (o, false)));
            }
        }
        let mut environment: FxHashMap<Instr, Value> = FxHashMap::default();
        for at in order {
            let node = module.instr(at);
            let operand = |i: usize| -> Option<&Tensor> {
                environment.get(node.operands.get(i)?)?.as_tensor()
            };
            let value = match (node.opcode, &node.attrs) {
                (Opcode::Parameter, _) if at == parameter => values.clone(),
                (Opcode::Constant, Attrs::Constant(literal)) => {
                    let constant = Value::from_constant(literal)?;
                    let scalar = constant.as_tensor().filter(|t| t.len() == 1)?;
                    super::data_movement::broadcast(scalar, &values.dims, &[])
                }
                (Opcode::Convert, _) => {
                    let (elem, _) = self.result_array(at, None).ok()?;
                    let input = operand(0)?;
                    encode(elem, &input.dims, &convert_numbers(&decode(input), elem))
                }
                (Opcode::BitcastConvert, _) => {
                    let (elem, _) = self.result_array(at, None).ok()?;
                    let input = operand(0)?;
                    if weft_ir::literal::storage_bytes(elem) != input.element_size() {
                        return None;
                    }
                    Tensor {
                        elem,
                        dims: input.dims.clone(),
                        bytes: input.bytes.clone(),
                    }
                }
                // The remaining key ops take their dimensions from their
                // operands, so the evaluator's own kernels apply.
                _ => match self.instruction(at, &environment).ok()? {
                    Value::Tensor(t) if t.dims == values.dims => t,
                    _ => return None,
                },
            };
            environment.insert(at, Value::Tensor(value));
        }
        match environment.remove(&key)? {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }
}

/// How many instructions a key function of [`Evaluator::keyed_comparison`]
/// may have (comparators are small; this bounds the structural checks).
const KEY_FUNCTION_LIMIT: usize = 64;

/// Whether a key function may use `opcode`: elementwise ops whose kernels
/// take their dimensions from their operands, and the conversions.
fn is_key_op(opcode: Opcode) -> bool {
    use Opcode as O;
    matches!(
        opcode,
        O::Parameter
            | O::Constant
            | O::Convert
            | O::BitcastConvert
            | O::Abs
            | O::Negate
            | O::Sign
            | O::Not
            | O::Floor
            | O::Ceil
            | O::RoundNearestAfz
            | O::RoundNearestEven
            | O::IsFinite
            | O::Real
            | O::Imag
            | O::Add
            | O::Subtract
            | O::Multiply
            | O::Divide
            | O::Maximum
            | O::Minimum
            | O::And
            | O::Or
            | O::Xor
            | O::ShiftLeft
            | O::ShiftRightArithmetic
            | O::ShiftRightLogical
            | O::Compare
            | O::Select
            | O::Clamp
    )
}

/// Whether `lhs` computes from `lhs_param` what `rhs` computes from
/// `rhs_param`: the same instructions with the parameters swapped.
fn same_function(
    module: &weft_ir::Module,
    lhs: Instr,
    rhs: Instr,
    lhs_param: Instr,
    rhs_param: Instr,
    visited: &mut usize,
) -> bool {
    *visited += 1;
    if *visited > KEY_FUNCTION_LIMIT {
        return false;
    }
    if lhs == lhs_param || rhs == rhs_param {
        return lhs == lhs_param && rhs == rhs_param;
    }
    let (a, b) = (module.instr(lhs), module.instr(rhs));
    if lhs == rhs {
        // A shared subexpression; the caller checked each side reads only
        // its own parameter, so a shared one reads none.
        return a.opcode != Opcode::Parameter;
    }
    a.opcode == b.opcode
        && a.opcode != Opcode::Parameter
        && a.shape == b.shape
        && a.attrs == b.attrs
        && a.operands.len() == b.operands.len()
        && a.operands
            .iter()
            .zip(&b.operands)
            .all(|(&x, &y)| same_function(module, x, y, lhs_param, rhs_param, visited))
}

/// A comparator over precomputed keys, deciding exactly as its `compare`
/// instruction would.
pub(super) struct NativeComparison {
    ordering: Box<dyn Fn(usize, usize) -> Option<Ordering>>,
    swapped: bool,
    direction: Direction,
}

impl NativeComparison {
    /// `compare(keys[a], keys[b])` (`swapped`: `compare(keys[b], keys[a])`);
    /// `None` for keys without a native order (complex numbers).
    fn new(
        keys: &Tensor,
        swapped: bool,
        direction: Direction,
        compare_type: Option<CompareType>,
    ) -> Option<NativeComparison> {
        let total_order = compare_type == Some(CompareType::TotalOrder);
        let ordering: Box<dyn Fn(usize, usize) -> Option<Ordering>> = match decode(keys) {
            Numbers::Float(v) if total_order => Box::new(move |a, b| Some(v[a].total_cmp(&v[b]))),
            Numbers::Float(v) => Box::new(move |a, b| v[a].partial_cmp(&v[b])),
            Numbers::Signed(v) => Box::new(move |a, b| Some(v[a].cmp(&v[b]))),
            Numbers::Unsigned(v) => Box::new(move |a, b| Some(v[a].cmp(&v[b]))),
            Numbers::Pred(v) => Box::new(move |a, b| Some(v[a].cmp(&v[b]))),
            Numbers::Complex(_) => return None,
        };
        Some(NativeComparison {
            ordering,
            swapped,
            direction,
        })
    }

    /// What the comparator returns for elements `a` (lhs) and `b` (rhs).
    pub(super) fn holds(&self, a: usize, b: usize) -> bool {
        let ordering = if self.swapped {
            (self.ordering)(b, a)
        } else {
            (self.ordering)(a, b)
        };
        match (self.direction, ordering) {
            (Direction::Ne, None) => true,
            (_, None) => false,
            (Direction::Eq, Some(o)) => o == Ordering::Equal,
            (Direction::Ne, Some(o)) => o != Ordering::Equal,
            (Direction::Lt, Some(o)) => o == Ordering::Less,
            (Direction::Le, Some(o)) => o != Ordering::Greater,
            (Direction::Gt, Some(o)) => o == Ordering::Greater,
            (Direction::Ge, Some(o)) => o != Ordering::Less,
        }
    }
}

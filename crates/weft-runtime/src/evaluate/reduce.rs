//! `reduce`, variadic: each result element folds the reducer over the
//! elements of its reduced dimensions, in row-major order, starting from the
//! init values (accumulators are the reducer's first parameters).
//!
//! A reducer that is one commutative op of its two parameters (add,
//! multiply, maximum, minimum, and, or) runs as a native fold in the
//! arithmetic domain (`f64` for floats, so sums are at least as accurate as
//! XLA's `f32` ones); any other reducer is evaluated element by element.

use weft_ir::{Comp, Instr, Opcode};

use super::data_movement::transpose;
use super::{Evaluator, RunError};
use crate::numbers::{Numbers, decode, encode};
use crate::tensor::{Tensor, Value, element_count};

impl Evaluator<'_> {
    pub(crate) fn reduce(
        &mut self,
        instr: Instr,
        operands: &[&Tensor],
        dimensions: &[i64],
        reducer: Comp,
    ) -> Result<Value, RunError> {
        if !operands.len().is_multiple_of(2) || operands.is_empty() {
            return Err(self.error(instr, "reduce takes inputs and as many init values"));
        }
        let count = operands.len() / 2;
        let (inputs, inits) = operands.split_at(count);
        let dims = &inputs[0].dims;
        let kept: Vec<i64> = (0..dims.len() as i64)
            .filter(|d| !dimensions.contains(d))
            .collect();
        let out_dims: Vec<i64> = kept.iter().map(|&d| dims[d as usize]).collect();
        let order: Vec<i64> = kept.iter().chain(dimensions).copied().collect();
        let block = element_count(
            &dimensions
                .iter()
                .map(|&d| dims[d as usize])
                .collect::<Vec<_>>(),
        );
        let outputs = element_count(&out_dims);
        let in_order = order.iter().enumerate().all(|(i, &d)| d == i as i64);
        let arranged: Vec<std::borrow::Cow<'_, Tensor>> = inputs
            .iter()
            .map(|&t| {
                if in_order {
                    std::borrow::Cow::Borrowed(t)
                } else {
                    std::borrow::Cow::Owned(transpose(t, &order))
                }
            })
            .collect();
        if count == 1
            && let Some(op) = self.simple_reducer(reducer)
            && let Some(result) = fold(op, &arranged[0], inits[0], outputs, block, &out_dims)
        {
            return Ok(Value::Tensor(result));
        }
        let mut results: Vec<Tensor> = inits
            .iter()
            .map(|init| Tensor::zeros(init.elem, &out_dims))
            .collect();
        for output in 0..outputs {
            let mut accumulators: Vec<Value> =
                inits.iter().map(|t| Value::Tensor((*t).clone())).collect();
            for position in 0..block {
                let mut arguments = accumulators;
                for input in &arranged {
                    arguments.push(Value::Tensor(input.element(output * block + position)));
                }
                let value = self.call(reducer, arguments)?;
                accumulators = match value {
                    Value::Tuple(elements) if count > 1 => elements,
                    single => vec![single],
                };
            }
            for (result, accumulator) in results.iter_mut().zip(&accumulators) {
                let scalar = accumulator
                    .as_tensor()
                    .ok_or_else(|| self.error(instr, "the reducer did not return arrays"))?;
                let size = result.element_size();
                result.bytes[output * size..(output + 1) * size].copy_from_slice(&scalar.bytes);
            }
        }
        Ok(if count == 1 {
            Value::Tensor(results.pop().expect("one result"))
        } else {
            Value::Tuple(results.into_iter().map(Value::Tensor).collect())
        })
    }

    /// The binary op a reducer applies to its two parameters, when that is
    /// all it does.
    pub(crate) fn simple_reducer(&self, reducer: Comp) -> Option<Opcode> {
        let comp = self.module.comp(reducer);
        let root = self.module.instr(comp.root()?);
        let [a, b] = comp.params()[..] else {
            return None;
        };
        let reads_both = root.operands[..] == [a, b] || root.operands[..] == [b, a];
        let op = root.opcode;
        (reads_both
            && matches!(
                op,
                Opcode::Add
                    | Opcode::Multiply
                    | Opcode::Maximum
                    | Opcode::Minimum
                    | Opcode::And
                    | Opcode::Or
            ))
        .then_some(op)
    }
}

/// How a native fold groups its input: which elements each result folds.
pub(crate) trait Folder {
    /// One folded value per result, each starting from `init`.
    fn fold<T: Copy>(&self, values: &[T], init: T, combine: impl Fn(T, T) -> T) -> Vec<T>;
}

/// `reduce`'s grouping: contiguous blocks of `block` elements.
struct Blocks {
    outputs: usize,
    block: usize,
}

impl Folder for Blocks {
    fn fold<T: Copy>(&self, values: &[T], init: T, combine: impl Fn(T, T) -> T) -> Vec<T> {
        (0..self.outputs)
            .map(|o| {
                values[o * self.block..(o + 1) * self.block]
                    .iter()
                    .fold(init, |acc, &x| combine(acc, x))
            })
            .collect()
    }
}

/// A native fold of `op` over each contiguous block of `block` elements.
fn fold(
    op: Opcode,
    input: &Tensor,
    init: &Tensor,
    outputs: usize,
    block: usize,
    out_dims: &[i64],
) -> Option<Tensor> {
    fold_natively(op, input, init, out_dims, &Blocks { outputs, block })
}

/// The simple reducer `op` folded natively in the arithmetic domain (`f64`
/// for floats, NaN propagating through maximum and minimum), each result
/// over the elements `folder` gives it; `None` when `op` has no native form
/// for the element type.
pub(crate) fn fold_natively(
    op: Opcode,
    input: &Tensor,
    init: &Tensor,
    out_dims: &[i64],
    folder: &impl Folder,
) -> Option<Tensor> {
    let folded = match (decode(input), decode(init)) {
        (Numbers::Float(v), Numbers::Float(i)) => {
            let combine: fn(f64, f64) -> f64 = match op {
                Opcode::Add => |a, b| a + b,
                Opcode::Multiply => |a, b| a * b,
                Opcode::Maximum => |a, b| {
                    if a.is_nan() || b.is_nan() {
                        f64::NAN
                    } else {
                        a.max(b)
                    }
                },
                Opcode::Minimum => |a, b| {
                    if a.is_nan() || b.is_nan() {
                        f64::NAN
                    } else {
                        a.min(b)
                    }
                },
                _ => return None,
            };
            Numbers::Float(folder.fold(&v, i[0], combine))
        }
        (Numbers::Signed(v), Numbers::Signed(i)) => {
            let combine: fn(i64, i64) -> i64 = match op {
                Opcode::Add => i64::wrapping_add,
                Opcode::Multiply => i64::wrapping_mul,
                Opcode::Maximum => i64::max,
                Opcode::Minimum => i64::min,
                Opcode::And => |a, b| a & b,
                Opcode::Or => |a, b| a | b,
                _ => return None,
            };
            Numbers::Signed(folder.fold(&v, i[0], combine))
        }
        (Numbers::Unsigned(v), Numbers::Unsigned(i)) => {
            let combine: fn(u64, u64) -> u64 = match op {
                Opcode::Add => u64::wrapping_add,
                Opcode::Multiply => u64::wrapping_mul,
                Opcode::Maximum => u64::max,
                Opcode::Minimum => u64::min,
                Opcode::And => |a, b| a & b,
                Opcode::Or => |a, b| a | b,
                _ => return None,
            };
            Numbers::Unsigned(folder.fold(&v, i[0], combine))
        }
        (Numbers::Pred(v), Numbers::Pred(i)) => {
            let combine: fn(bool, bool) -> bool = match op {
                Opcode::And | Opcode::Minimum | Opcode::Multiply => |a, b| a & b,
                Opcode::Or | Opcode::Maximum | Opcode::Add => |a, b| a | b,
                _ => return None,
            };
            Numbers::Pred(folder.fold(&v, i[0], combine))
        }
        _ => return None,
    };
    Some(encode(init.elem, out_dims, &folded))
}

//! `sort` along one dimension, every operand permuted as the comparator
//! orders the lines.
//!
//! Semantics follow XLA's CPU backend where it and the StableHLO spec part:
//! each line is ordered by the algorithm XLA:CPU runs, libstdc++'s
//! `std::stable_sort` when `is_stable` and `std::sort` otherwise
//! ([`super::stl_sort`]), so ties in an unstable sort and comparators that
//! are not strict weak orders (a plain `LT` on NaN) come out as they do
//! there. The comparator runs once per comparison on (lhs₀, rhs₀, lhs₁, rhs₁, …),
//! except one that compares the same elementwise function of an operand's
//! two parameters (`compare(f(lhsₖ), f(rhsₖ))`, `f` often the identity;
//! JAX writes float comparators so): then `f` runs once over the whole
//! operand and the keys are compared natively with the same predicate (see
//! [`super::native_comparison`]).

use weft_ir::Instr;

use super::element_access::{Lines, permuted};
use super::{Evaluator, RunError};
use crate::tensor::{Tensor, Value};

impl Evaluator<'_> {
    pub(super) fn sort(
        &mut self,
        instr: Instr,
        operands: &[&Tensor],
        dimension: i64,
        is_stable: bool,
    ) -> Result<Value, RunError> {
        let first = self.operand(instr, operands, 0)?;
        let dims = first.dims.clone();
        if operands.iter().any(|t| t.dims != dims) {
            return Err(self.error(instr, "sort's operands must have the same dimensions"));
        }
        let comparator = self.callee(instr, 0)?;
        let mut source: Vec<usize> = (0..first.len()).collect();
        if !dims.is_empty() {
            let axis = usize::try_from(dimension)
                .ok()
                .filter(|&d| d < dims.len())
                .ok_or_else(|| {
                    self.error(instr, format!("sort dimension {dimension} is out of range"))
                })?;
            let lines = Lines::new(&dims, axis);
            let native = self.keyed_comparison(comparator, operands, None);
            let order = if is_stable {
                super::stl_sort::stable_sort
            } else {
                super::stl_sort::sort
            };
            let mut line = Vec::with_capacity(lines.length);
            for start in lines.starts() {
                line.clear();
                line.extend((0..lines.length).map(|i| start + i * lines.step));
                match &native {
                    Some(native) => order(&mut line, &mut |a, b| Ok(native.holds(a, b)))?,
                    None => order(&mut line, &mut |a, b| {
                        let mut arguments = Vec::with_capacity(2 * operands.len());
                        for operand in operands {
                            arguments.push(Value::Tensor(operand.element(a)));
                            arguments.push(Value::Tensor(operand.element(b)));
                        }
                        self.call_predicate(instr, comparator, arguments)
                    })?,
                }
                for (i, &from) in line.iter().enumerate() {
                    source[start + i * lines.step] = from;
                }
            }
        }
        let mut results: Vec<Value> = operands
            .iter()
            .map(|t| Value::Tensor(permuted(t, &source)))
            .collect();
        Ok(if results.len() == 1 && !self.returns_tuple(instr) {
            results.pop().expect("one result")
        } else {
            Value::Tuple(results)
        })
    }
}

#[cfg(test)]
mod tests {
    use weft_ir::ElementType;

    use super::*;
    use crate::evaluate::test_support::*;

    #[test]
    fn sort_is_stable_with_ties_and_carries_other_operands() {
        // Keys with ties; the comparator looks only at keys, so the values
        // (their original positions) show the sort is stable.
        let text = r#"
HloModule m
less {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  keys = s32[2,5] constant({{3, 1, 3, 1, 2}, {5, 5, 5, 0, 5}})
  values = s32[2,5] iota(), iota_dimension=1
  ROOT s = (s32[2,5], s32[2,5]) sort(keys, values), dimensions={1}, is_stable=true, to_apply=less
}
"#;
        let result = run(text, vec![]);
        assert_eq!(
            ints(element(&result, 0)),
            vec![1, 1, 2, 3, 3, 0, 5, 5, 5, 5]
        );
        assert_eq!(
            ints(element(&result, 1)),
            vec![1, 3, 4, 0, 2, 3, 0, 1, 2, 4]
        );
    }

    #[test]
    fn sort_with_a_key_canonicalizing_comparator() {
        // JAX's float comparator: NaNs made one NaN, −0 made +0, then a
        // total-order LT. The sorted values are the original ones.
        let text = r#"
HloModule m
less {
  a = f32[] parameter(0)
  a_nan = pred[] compare(a, a), direction=NE
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  a_zero = pred[] compare(a, zero), direction=EQ
  a_signless = f32[] select(a_zero, zero, a)
  a_key = f32[] select(a_nan, nan, a_signless)
  b = f32[] parameter(1)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b_signless = f32[] select(b_zero, zero, b)
  b_key = f32[] select(b_nan, nan, b_signless)
  ROOT lt = pred[] compare(a_key, b_key), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f32[7] parameter(0)
  ROOT s = f32[7] sort(x), dimensions={0}, is_stable=true, to_apply=less
}
"#;
        let input: [f32; 7] = [f32::NAN, -0.0, 1.0, f32::NEG_INFINITY, 0.0, -f32::NAN, -1.0];
        let bytes = input.iter().flat_map(|v| v.to_le_bytes()).collect();
        let x = Value::Tensor(Tensor {
            elem: ElementType::F32,
            dims: vec![7],
            bytes,
        });
        let result = run(text, vec![x]);
        let sorted: Vec<u32> = tensor(&result)
            .bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let expected: Vec<u32> = [f32::NEG_INFINITY, -1.0, -0.0, 0.0, 1.0, f32::NAN, -f32::NAN]
            .iter()
            .map(|v| v.to_bits())
            .collect();
        assert_eq!(sorted, expected);
    }

    #[test]
    fn sort_calls_a_general_comparator() {
        // Descending by absolute value, through a comparator the native path
        // does not recognise.
        let text = r#"
HloModule m
by_magnitude {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  abs_a = f32[] abs(a)
  abs_b = f32[] abs(b)
  ROOT gt = pred[] compare(abs_a, abs_b), direction=GT
}
ENTRY e {
  x = f32[6] constant({-1, 4, -3, 2, -4, 0.5})
  ROOT s = f32[6] sort(x), dimensions={0}, to_apply=by_magnitude
}
"#;
        let result = run(text, vec![]);
        assert_eq!(
            floats(tensor(&result)),
            vec![4.0, -4.0, -3.0, 2.0, -1.0, 0.5]
        );
    }
}

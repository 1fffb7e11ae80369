//! `map` applies its computation to the elements at each index; its
//! operands must have the dimensions of its result.

use weft_ir::Instr;

use super::element_access::store;
use super::{Evaluator, RunError};
use crate::tensor::{Tensor, Value};

impl Evaluator<'_> {
    pub(super) fn map(&mut self, instr: Instr, operands: &[&Tensor]) -> Result<Value, RunError> {
        let (elem, dims) = self.result_array(instr, None)?;
        if operands.iter().any(|t| t.dims != dims) {
            return Err(self.error(
                instr,
                "map's operands must have the dimensions of its result",
            ));
        }
        let computation = self.callee(instr, 0)?;
        let mut result = Tensor::zeros(elem, &dims);
        for index in 0..result.len() {
            let arguments = operands
                .iter()
                .map(|t| Value::Tensor(t.element(index)))
                .collect();
            let value = self.call_for_arrays(instr, computation, arguments, 1)?;
            store(&mut result, index, &value[0]).map_err(|message| self.error(instr, message))?;
        }
        Ok(Value::Tensor(result))
    }
}

#[cfg(test)]
mod tests {
    use crate::evaluate::test_support::*;

    #[test]
    fn map_applies_its_computation_per_element() {
        let text = r#"
HloModule m
fma {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  p = f32[] multiply(a, b)
  one = f32[] constant(1)
  ROOT s = f32[] add(p, one)
}
ENTRY e {
  x = f32[2,2] constant({{1, 2}, {3, 4}})
  y = f32[2,2] constant({{5, 6}, {7, 8}})
  ROOT m = f32[2,2] map(x, y), dimensions={0,1}, to_apply=fma
}
"#;
        assert_eq!(
            floats(tensor(&run(text, vec![]))),
            vec![6.0, 13.0, 22.0, 33.0]
        );
    }
}

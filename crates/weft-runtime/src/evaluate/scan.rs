//! `scan`: runs the computation on each slice along `dimension` (from the
//! end when `is_reverse`), threading the carries; the outputs are stacked
//! along the scanned dimension, followed by the final carries.
//!
//! The stacked outputs are shaped as the result says (which also covers a
//! scan of length zero); an output slice of lower rank than the inputs' is
//! stacked at the end of its output.

use weft_ir::attrs::ScanAttrs;
use weft_ir::{ElementType, Instr, ShapeData};

use super::element_access::Lines;
use super::{Evaluator, RunError};
use crate::tensor::{Tensor, Value};

impl Evaluator<'_> {
    pub(super) fn scan(
        &mut self,
        instr: Instr,
        operands: &[&Tensor],
        attrs: &ScanAttrs,
    ) -> Result<Value, RunError> {
        let carries = usize::try_from(attrs.num_carries)
            .ok()
            .filter(|&c| c <= operands.len())
            .ok_or_else(|| self.error(instr, "num_carries is out of range"))?;
        let (inputs, initial) = operands.split_at(operands.len() - carries);
        let first = inputs
            .first()
            .ok_or_else(|| self.error(instr, "a scan needs at least one input"))?;
        let axis = usize::try_from(attrs.dimension)
            .ok()
            .filter(|&d| d < first.dims.len())
            .ok_or_else(|| self.error(instr, "the scan dimension is out of range"))?;
        let length = first.dims[axis];
        if inputs.iter().any(|t| t.dims.get(axis) != Some(&length)) {
            return Err(self.error(
                instr,
                "scan inputs must have the same size in the scanned dimension",
            ));
        }
        let combiner = self.callee(instr, 0)?;
        let root_is_tuple = {
            let comp = self.module.comp(combiner);
            let root = comp
                .root()
                .ok_or_else(|| self.error(instr, "the scan computation has no root"))?;
            matches!(
                self.module.shapes.get(self.module.shape_of(root)),
                ShapeData::Tuple(_)
            )
        };
        // The stacked outputs, shaped as the result says (which also covers
        // a scan of length zero).
        let output_shapes: Vec<(ElementType, Vec<i64>)> = if root_is_tuple {
            let shape = self.module.instr(instr).shape;
            let elements = self
                .module
                .shapes
                .tuple_elements(shape)
                .ok_or_else(|| self.error(instr, "a scan with a tuple root returns a tuple"))?
                .to_vec();
            let outputs = elements.len().checked_sub(carries).ok_or_else(|| {
                self.error(
                    instr,
                    "the scan computation returns fewer values than carries",
                )
            })?;
            (0..outputs)
                .map(|i| self.result_array(instr, Some(i)))
                .collect::<Result<_, _>>()?
        } else if carries == 0 {
            vec![self.result_array(instr, None)?]
        } else {
            Vec::new()
        };
        let mut outputs: Vec<Tensor> = output_shapes
            .iter()
            .map(|(elem, dims)| Tensor::zeros(*elem, dims))
            .collect();
        let mut carry: Vec<Tensor> = initial.iter().map(|t| (*t).clone()).collect();
        let steps: Vec<i64> = if attrs.is_reverse {
            (0..length).rev().collect()
        } else {
            (0..length).collect()
        };
        let returned = outputs.len() + carries;
        for step in steps {
            let mut arguments: Vec<Value> = inputs
                .iter()
                .map(|t| Value::Tensor(slice_at(t, axis, step)))
                .collect();
            arguments.extend(carry.drain(..).map(Value::Tensor));
            let mut values = self.call_for_arrays(instr, combiner, arguments, returned)?;
            carry = values.split_off(outputs.len());
            for (output, value) in outputs.iter_mut().zip(&values) {
                store_slice(output, axis, step, value)
                    .map_err(|message| self.error(instr, message))?;
            }
        }
        let mut results: Vec<Value> = outputs.into_iter().map(Value::Tensor).collect();
        results.extend(carry.into_iter().map(Value::Tensor));
        Ok(if root_is_tuple {
            Value::Tuple(results)
        } else {
            results
                .pop()
                .ok_or_else(|| self.error(instr, "the scan produced no value"))?
        })
    }
}

/// The slice of `tensor` at `index` along `axis`, that dimension removed.
fn slice_at(tensor: &Tensor, axis: usize, index: i64) -> Tensor {
    let lines = Lines::new(&tensor.dims, axis);
    let size = tensor.element_size();
    let mut dims = tensor.dims.clone();
    dims.remove(axis);
    let mut bytes = Vec::with_capacity(lines.outer * lines.step * size);
    let index = index as usize;
    for o in 0..lines.outer {
        let start = ((o * lines.length + index) * lines.step) * size;
        bytes.extend_from_slice(&tensor.bytes[start..start + lines.step * size]);
    }
    Tensor {
        elem: tensor.elem,
        dims,
        bytes: bytes.into(),
    }
}

/// Writes `slice` into `target` at `index` along `axis` (the inverse of
/// [`slice_at`]).
fn store_slice(target: &mut Tensor, axis: usize, index: i64, slice: &Tensor) -> Result<(), String> {
    if target.dims.is_empty() {
        return Err("a stacked scan output must have a dimension to stack along".into());
    }
    // An output slice of lower rank than the inputs' is stacked at its end.
    let axis = axis.min(target.dims.len() - 1);
    let mut expected = target.dims.clone();
    expected.remove(axis);
    if slice.elem != target.elem || slice.dims != expected {
        return Err(format!(
            "the scan computation returned {} for a slice of {}",
            Value::Tensor(slice.clone()).describe(),
            Value::Tensor(Tensor::zeros(target.elem, &expected)).describe()
        ));
    }
    let lines = Lines::new(&target.dims, axis);
    let index = usize::try_from(index)
        .ok()
        .filter(|&i| i < lines.length)
        .ok_or("the scan result is shorter than the scan")?;
    let size = target.element_size();
    for o in 0..lines.outer {
        let start = ((o * lines.length + index) * lines.step) * size;
        let from = o * lines.step * size;
        target.bytes[start..start + lines.step * size]
            .copy_from_slice(&slice.bytes[from..from + lines.step * size]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::evaluate::test_support::*;

    #[test]
    fn scan_threads_carries_forwards_and_backwards() {
        let text = r#"
HloModule m
step {
  x = s32[2] parameter(0)
  c = s32[2] parameter(1)
  s = s32[2] add(x, c)
  ROOT t = (s32[2], s32[2]) tuple(s, s)
}
ENTRY e {
  x = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  zero = s32[2] constant({0, 0})
  ROOT r = (s32[2,3], s32[2]) scan(x, zero), dimensions={1}, num_carries=1, is_reverse=true, to_apply=step
}
"#;
        let result = run(text, vec![]);
        assert_eq!(ints(element(&result, 0)), vec![6, 5, 3, 15, 11, 6]);
        assert_eq!(ints(element(&result, 1)), vec![6, 15]);
    }
}

//! `reduce-window` and `select-and-scatter`: computations over the windows
//! of an array, both placed by a [`WindowGeometry`].
//!
//! Semantics follow XLA's CPU backend where it and the StableHLO spec part:
//! - `reduce-window` and `select-and-scatter` visit only real elements:
//!   padding and base-dilation holes are skipped, not fed to the computation
//!   as the init value (XLA's emitters skip them; for the usual reducers whose
//!   init is their identity the StableHLO definition agrees). Windows are
//!   visited in row-major order.
//! - `select-and-scatter` keeps the first element and replaces it whenever
//!   `select(kept, next)` is false, then combines with
//!   `scatter(current output, source)`. A `select` that compares the same
//!   elementwise function of its two parameters is evaluated natively, as a
//!   `sort` comparator is (see [`super::native_comparison`]).
//! - `reduce-window` of one input by a simple reducer is folded natively in
//!   the arithmetic domain (as `reduce` does: `f64` for floats).

use weft_ir::attrs::{Window, WindowDim};
use weft_ir::{Instr, Opcode};

use super::element_access::{next_index, store};
use super::{Evaluator, RunError};
use crate::tensor::{Tensor, Value, element_count, strides};

impl Evaluator<'_> {
    pub(super) fn reduce_window(
        &mut self,
        instr: Instr,
        operands: &[&Tensor],
        window: Option<&Window>,
    ) -> Result<Value, RunError> {
        if operands.is_empty() || !operands.len().is_multiple_of(2) {
            return Err(self.error(instr, "reduce-window takes inputs and as many init values"));
        }
        let count = operands.len() / 2;
        let (inputs, inits) = operands.split_at(count);
        let dims = &inputs[0].dims;
        if inputs.iter().any(|t| &t.dims != dims) {
            return Err(self.error(instr, "reduce-window inputs must have the same dimensions"));
        }
        if inits.iter().any(|t| t.len() != 1) {
            return Err(self.error(instr, "reduce-window init values must be scalars"));
        }
        let geometry =
            WindowGeometry::new(dims, window).map_err(|message| self.error(instr, message))?;
        let out_dims = geometry.output_dims.clone();
        let reducer = self.callee(instr, 0)?;
        if count == 1
            && let Some(op) = self.simple_reducer(reducer)
            && let Some(result) = fold_windows(op, inputs[0], inits[0], &geometry)
        {
            return Ok(Value::Tensor(result));
        }
        let mut results: Vec<Tensor> = inits
            .iter()
            .map(|init| Tensor::zeros(init.elem, &out_dims))
            .collect();
        let mut elements = Vec::new();
        let mut failure = None;
        geometry.for_each_output(|output, index| {
            if failure.is_some() {
                return;
            }
            geometry.elements(index, &mut elements);
            let mut accumulators: Vec<Tensor> = inits.iter().map(|t| (*t).clone()).collect();
            for &element in &elements {
                let mut arguments: Vec<Value> = accumulators.drain(..).map(Value::Tensor).collect();
                arguments.extend(
                    inputs
                        .iter()
                        .map(|input| Value::Tensor(input.element(element))),
                );
                match self.call_for_arrays(instr, reducer, arguments, count) {
                    Ok(values) => accumulators = values,
                    Err(error) => {
                        failure = Some(error);
                        return;
                    }
                }
            }
            for (result, accumulator) in results.iter_mut().zip(&accumulators) {
                if let Err(message) = store(result, output, accumulator) {
                    failure = Some(self.error(instr, message));
                    return;
                }
            }
        });
        if let Some(error) = failure {
            return Err(error);
        }
        let mut values: Vec<Value> = results.into_iter().map(Value::Tensor).collect();
        Ok(if values.len() == 1 && !self.returns_tuple(instr) {
            values.pop().expect("one result")
        } else {
            Value::Tuple(values)
        })
    }

    pub(super) fn select_and_scatter(
        &mut self,
        instr: Instr,
        operands: &[&Tensor],
        window: Option<&Window>,
    ) -> Result<Value, RunError> {
        let operand = self.operand(instr, operands, 0)?;
        let source = self.operand(instr, operands, 1)?;
        let init = self.operand(instr, operands, 2)?;
        if init.len() != 1 {
            return Err(self.error(
                instr,
                "the init value of select-and-scatter must be a scalar",
            ));
        }
        let geometry = WindowGeometry::new(&operand.dims, window)
            .map_err(|message| self.error(instr, message))?;
        if geometry.output_dims != source.dims {
            return Err(self.error(
                instr,
                format!(
                    "the source has dimensions {:?} but the windows make {:?}",
                    source.dims, geometry.output_dims
                ),
            ));
        }
        let (select, scatter) = (self.callee(instr, 0)?, self.callee(instr, 1)?);
        let native = self.keyed_comparison(select, &[operand], Some(0));
        let (elem, dims) = self.result_array(instr, None)?;
        if dims != operand.dims {
            return Err(self.error(
                instr,
                "select-and-scatter's result must have its operand's dimensions",
            ));
        }
        let mut result = Tensor::zeros(elem, &dims);
        for index in 0..result.len() {
            store(&mut result, index, init).map_err(|message| self.error(instr, message))?;
        }
        let mut elements = Vec::new();
        let mut failure = None;
        geometry.for_each_output(|source_index, index| {
            if failure.is_some() {
                return;
            }
            geometry.elements(index, &mut elements);
            let Some((&first, rest)) = elements.split_first() else {
                return;
            };
            let mut selected = first;
            for &candidate in rest {
                let keep = match &native {
                    Some(native) => Ok(native.holds(selected, candidate)),
                    None => self.call_predicate(
                        instr,
                        select,
                        vec![
                            Value::Tensor(operand.element(selected)),
                            Value::Tensor(operand.element(candidate)),
                        ],
                    ),
                };
                match keep {
                    Ok(true) => {}
                    Ok(false) => selected = candidate,
                    Err(error) => {
                        failure = Some(error);
                        return;
                    }
                }
            }
            let arguments = vec![
                Value::Tensor(result.element(selected)),
                Value::Tensor(source.element(source_index)),
            ];
            let combined = self
                .call_for_arrays(instr, scatter, arguments, 1)
                .and_then(|values| {
                    store(&mut result, selected, &values[0])
                        .map_err(|message| self.error(instr, message))
                });
            if let Err(error) = combined {
                failure = Some(error);
            }
        });
        match failure {
            Some(error) => Err(error),
            None => Ok(Value::Tensor(result)),
        }
    }
}

/// Where the windows of `reduce-window` and `select-and-scatter` fall.
struct WindowGeometry {
    input_dims: Vec<i64>,
    input_strides: Vec<usize>,
    window: Vec<WindowDim>,
    output_dims: Vec<i64>,
}

impl WindowGeometry {
    /// The geometry of `window` over an input of `input_dims` (no window:
    /// windows of one element).
    fn new(input_dims: &[i64], window: Option<&Window>) -> Result<WindowGeometry, String> {
        let window: Vec<WindowDim> = match window {
            Some(w) => w.dims.to_vec(),
            None => input_dims.iter().map(|_| WindowDim::new(1)).collect(),
        };
        if window.len() != input_dims.len() {
            return Err(format!(
                "the window has {} dimensions but the input has {}",
                window.len(),
                input_dims.len()
            ));
        }
        let mut output_dims = Vec::with_capacity(window.len());
        for (w, &size) in window.iter().zip(input_dims) {
            if w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1 || w.size < 0 {
                return Err(
                    "window sizes must be non-negative and strides and dilations positive".into(),
                );
            }
            // In i128: attributes may be near i64's limits (the verifier
            // checked the result, not every intermediate).
            let wide = |v: i64| i128::from(v);
            let dilated = if size > 0 {
                (wide(size) - 1) * wide(w.base_dilation) + 1
            } else {
                0
            };
            let padded = dilated + wide(w.padding_low) + wide(w.padding_high);
            let extent = if w.size > 0 {
                (wide(w.size) - 1) * wide(w.window_dilation) + 1
            } else {
                0
            };
            let outputs = if padded >= extent {
                (padded - extent) / wide(w.stride) + 1
            } else {
                0
            };
            output_dims.push(
                i64::try_from(outputs)
                    .map_err(|_| "the windows make too many outputs".to_string())?,
            );
        }
        Ok(WindowGeometry {
            input_dims: input_dims.to_vec(),
            input_strides: strides(input_dims),
            window,
            output_dims,
        })
    }

    /// Calls `visit` with each output's linear and multi-index, row-major.
    fn for_each_output(&self, mut visit: impl FnMut(usize, &[i64])) {
        if element_count(&self.output_dims) == 0 {
            return;
        }
        let mut index = vec![0i64; self.output_dims.len()];
        let mut linear = 0;
        loop {
            visit(linear, &index);
            linear += 1;
            if !next_index(&mut index, &self.output_dims) {
                return;
            }
        }
    }

    /// The linear indices of the input elements in the window of `output`,
    /// in row-major window order, padding and dilation holes left out.
    ///
    /// Only real elements are walked, never the padding: per dimension the
    /// positions the window covers are found directly (see [`covered`]), so
    /// the work is bounded by the input, not by the window's size — a window
    /// of 2^40 elements over four real ones visits four.
    fn elements(&self, output: &[i64], elements: &mut Vec<usize>) {
        elements.clear();
        let mut per_dimension: Vec<Vec<usize>> = Vec::with_capacity(self.window.len());
        for (d, w) in self.window.iter().enumerate() {
            let offsets: Vec<usize> = covered(output[d], w, self.input_dims[d])
                .map(|at| at * self.input_strides[d])
                .collect();
            if offsets.is_empty() {
                return;
            }
            per_dimension.push(offsets);
        }
        let lengths: Vec<i64> = per_dimension.iter().map(|o| o.len() as i64).collect();
        let mut position = vec![0i64; lengths.len()];
        loop {
            elements.push(
                per_dimension
                    .iter()
                    .zip(&position)
                    .map(|(offsets, &p)| offsets[p as usize])
                    .sum(),
            );
            if !next_index(&mut position, &lengths) {
                return;
            }
        }
    }
}

/// The input indices along one dimension (of `base` elements) that the
/// window `w` of output position `output` covers, in increasing window
/// position: window position `k` lands on dilated input position
/// `output × stride + k × window_dilation − padding_low`, a real element
/// when that is a multiple of the base dilation inside the input. Walks
/// whichever is shorter: the window positions that can land inside, or the
/// input elements.
fn covered(output: i64, w: &WindowDim, base: i64) -> impl Iterator<Item = usize> {
    let wide = |v: i64| i128::from(v);
    let (stride, low) = (wide(w.stride), wide(w.padding_low));
    let (base_dilation, window_dilation) = (wide(w.base_dilation), wide(w.window_dilation));
    // Window position k lands at origin + k × window_dilation.
    let origin = wide(output) * stride - low;
    let last = (wide(base) - 1) * base_dilation;
    let first_k = if origin >= 0 {
        0
    } else {
        (-origin + window_dilation - 1) / window_dilation
    };
    let last_k = if origin > last {
        -1
    } else {
        ((last - origin) / window_dilation).min(wide(w.size) - 1)
    };
    let positions = (last_k - first_k + 1).max(0);
    let by_position = positions <= wide(base);
    let from_positions = (first_k..=last_k)
        .filter(move |_| by_position)
        .filter_map(move |k| {
            let at = origin + k * window_dilation;
            (at % base_dilation == 0).then(|| (at / base_dilation) as usize)
        });
    let from_elements = (0..base.max(0))
        .filter(move |_| !by_position && positions > 0)
        .filter(move |&i| {
            let offset = wide(i) * base_dilation - origin;
            offset >= 0 && offset % window_dilation == 0 && offset / window_dilation < wide(w.size)
        })
        .map(|i| i as usize);
    from_positions.chain(from_elements)
}

/// `reduce-window`'s grouping: the real elements of each output's window.
impl super::reduce::Folder for WindowGeometry {
    fn fold<T: Copy>(&self, values: &[T], init: T, combine: impl Fn(T, T) -> T) -> Vec<T> {
        let mut out = Vec::with_capacity(element_count(&self.output_dims));
        let mut elements = Vec::new();
        self.for_each_output(|_, index| {
            self.elements(index, &mut elements);
            out.push(
                elements
                    .iter()
                    .fold(init, |acc, &e| combine(acc, values[e])),
            );
        });
        out
    }
}

/// `reduce-window` of one input by a simple reducer, folded natively in the
/// arithmetic domain (as `reduce` does: `f64` for floats).
fn fold_windows(
    op: Opcode,
    input: &Tensor,
    init: &Tensor,
    geometry: &WindowGeometry,
) -> Option<Tensor> {
    super::reduce::fold_natively(op, input, init, &geometry.output_dims, geometry)
}

#[cfg(test)]
mod tests {
    use crate::evaluate::test_support::*;

    #[test]
    fn a_window_of_padding_walks_only_real_elements() {
        // 2^40 window positions per output, all but at most four padding:
        // walked position by position this never ended.
        let text = r#"
HloModule m
add {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT c = s64[] add(a, b)
}
ENTRY e {
  x = s64[4] constant({1, 2, 3, 4})
  zero = s64[] constant(0)
  ROOT r = s64[4] reduce-window(x, zero), window={size=1099511627776 pad=1099511627775_0}, to_apply=add
}
"#;
        assert_eq!(ints(tensor(&run(text, vec![]))), vec![1, 3, 6, 10]);
    }

    #[test]
    fn reduce_window_pads_dilates_and_strides() {
        // StableHLO's reduce_window example: base dilation 2, padding 2 low
        // and 1 high, window dilation 3, stride 4.
        let text = r#"
HloModule m
add {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT c = s64[] add(a, b)
}
ENTRY e {
  x = s64[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  zero = s64[] constant(0)
  ROOT r = s64[2,2] reduce-window(x, zero), window={size=2x1 stride=4x1 pad=2_1x0_0 lhs_dilate=2x1 rhs_dilate=3x1}, to_apply=add
}
"#;
        assert_eq!(ints(tensor(&run(text, vec![]))), vec![0, 0, 3, 4]);
    }

    #[test]
    fn reduce_window_with_a_general_reducer_and_two_inputs() {
        // Argmax over windows of 2 with stride 1 and one element of high
        // padding: (value, index) pairs, the larger value winning.
        let text = r#"
HloModule m
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  ge = pred[] compare(v0, v1), direction=GE
  v = f32[] select(ge, v0, v1)
  i = s32[] select(ge, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[4] constant({1, 5, 2, 7})
  idx = s32[4] iota(), iota_dimension=0
  lowest = f32[] constant(-inf)
  none = s32[] constant(-1)
  ROOT r = (f32[4], s32[4]) reduce-window(x, idx, lowest, none), window={size=2 pad=0_1}, to_apply=argmax
}
"#;
        let result = run(text, vec![]);
        assert_eq!(floats(element(&result, 0)), vec![5.0, 5.0, 7.0, 7.0]);
        assert_eq!(ints(element(&result, 1)), vec![1, 1, 3, 3]);
    }

    #[test]
    fn select_and_scatter_scatters_to_each_window_maximum() {
        // XLA's operation-semantics example, one dimension: windows of 2,
        // stride 2, max selected; a repeated maximum keeps the first.
        let text = r#"
HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[6] constant({7, 2, 5, 5, 1, 9})
  source = f32[3] constant({10, 20, 30})
  zero = f32[] constant(0)
  ROOT s = f32[6] select-and-scatter(x, source, zero), window={size=2 stride=2}, select=ge, scatter=add
}
"#;
        assert_eq!(
            floats(tensor(&run(text, vec![]))),
            vec![10.0, 0.0, 20.0, 0.0, 0.0, 30.0]
        );
    }

    #[test]
    fn select_and_scatter_accumulates_overlapping_windows() {
        // Overlapping windows (size 3, stride 1, padded) can pick the same
        // element; scatter adds each source into it.
        let text = r#"
HloModule m
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GT
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] constant({1, 8, 3, 4})
  source = f32[4] constant({1, 2, 4, 8})
  base = f32[] constant(100)
  ROOT s = f32[4] select-and-scatter(x, source, base), window={size=3 pad=1_1}, select=gt, scatter=add
}
"#;
        assert_eq!(
            floats(tensor(&run(text, vec![]))),
            vec![100.0, 107.0, 100.0, 108.0]
        );
    }
}

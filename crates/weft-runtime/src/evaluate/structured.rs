//! Ops with structure beyond one element at a time: `sort`, `scan`,
//! `reduce-window`, `select-and-scatter`, `reduce-precision`,
//! `rng-bit-generator`, `map`, `fft`, `triangular-solve`, `cholesky`,
//! `topk` and `ragged-dot`.
//!
//! Semantics follow XLA's CPU backend where it and the StableHLO spec part:
//! - `sort` is a stable bottom-up merge sort whatever `is_stable` says (an
//!   unstable sort may order ties any way; a stable one is deterministic).
//!   The comparator runs once per comparison on (lhs₀, rhs₀, lhs₁, rhs₁, …),
//!   except one that compares the same elementwise function of an operand's
//!   two parameters (`compare(f(lhsₖ), f(rhsₖ))`, `f` often the identity;
//!   JAX writes float comparators so): then `f` runs once over the whole
//!   operand and the keys are compared natively with the same predicate.
//!   `select-and-scatter`'s `select` gets the same treatment.
//! - `reduce-window` and `select-and-scatter` visit only real elements:
//!   padding and base-dilation holes are skipped, not fed to the computation
//!   as the init value (XLA's emitters skip them; for the usual reducers whose
//!   init is their identity the StableHLO definition agrees). Windows are
//!   visited in row-major order. `select-and-scatter` keeps the first
//!   element and replaces it whenever `select(kept, next)` is false, then
//!   combines with `scatter(current output, source)`.
//! - `reduce-precision` rounds the mantissa to nearest even on the bit
//!   pattern, sends overflow to ±inf and everything at or below the reduced
//!   format's smallest normal exponent to ±0, and keeps NaN (a NaN becomes
//!   +inf when no mantissa bits are kept). `f16`, `bf16`, `f32` and `f64`
//!   are processed in their own format, narrower floats through `f32`.
//! - `rng-bit-generator` is bit-exact with XLA's `RngBitGeneratorExpander`
//!   (`xla/hlo/builder/lib/prng.cc`): ThreeFry-2x32 with 20 rounds or
//!   Philox-4x32 with 10 rounds; `rng_default` is Philox, as on XLA's CPU
//!   and GPU backends. The state is `u64[…]`: the key, then the counter.
//!   Types narrower than 32 bits keep the low bits of 32-bit outputs;
//!   floating-point and signed outputs are the same bits reinterpreted.
//! - `fft` transforms the trailing `fft_length.len()` dimensions in `f64`
//!   (radix 2 for powers of two, a direct DFT otherwise); `IFFT` and `IRFFT`
//!   divide by the transform size; `IRFFT` completes the spectrum by
//!   Hermitian symmetry, ignoring the imaginary parts that symmetry cannot
//!   hold.
//! - `triangular-solve` reads only the `lower` (or upper) triangle of `a`;
//!   `cholesky` reads only that triangle too, leaves the other one zero and,
//!   like XLA's expander, fills a matrix with NaN when a pivot's square root
//!   is NaN (the matrix is not positive definite). Both compute in `f64`.
//! - `topk` orders floats by total order (−NaN < −inf < … < +inf < +NaN),
//!   as XLA's sort-based expansion does, largest (or smallest) first; ties
//!   keep the lower index first.
//! - `ragged-dot` supports the three modes of `chlo.ragged_dot`: a ragged
//!   non-contracting lhs dimension picks a group of the rhs for each row; a
//!   ragged contracting dimension gives one product per group, each over
//!   its slice of the contraction; a ragged batch dimension is a `dot`.
//!   Rows (or batches) past the last group are zero. `group_sizes` is `[g]`
//!   or carries the lhs dimensions outer to the ragged one first. Products
//!   accumulate in `f64` (integers wrap).
//! - `scan` runs the computation on each slice along `dimension` (from the
//!   end when `is_reverse`), threading the carries; the outputs are stacked
//!   along the scanned dimension, followed by the final carries.
//! - `map` applies its computation to the elements at each index.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;
use weft_ir::attrs::{
    Attrs, CompareType, Direction, DotAttrs, FftType, RngAlgorithm, ScanAttrs,
    TriangularSolveAttrs, Window, WindowDim,
};
use weft_ir::{Comp, ElementType, Instr, Opcode, ShapeData};

use super::{Evaluator, RunError};
use crate::numbers::{Numbers, convert_numbers, decode, encode};
use crate::tensor::{Tensor, Value, element_count, strides};

impl Evaluator<'_> {
    /// Evaluates the ops this module implements (see the module doc).
    pub(crate) fn structured(
        &mut self,
        instr: Instr,
        environment: &FxHashMap<Instr, Value>,
    ) -> Result<Value, RunError> {
        let module = self.module;
        let data = module.instr(instr);
        let operands: Vec<&Tensor> = data
            .operands
            .iter()
            .enumerate()
            .map(|(i, o)| {
                environment
                    .get(o)
                    .and_then(Value::as_tensor)
                    .ok_or_else(|| self.error(instr, format!("operand {i} has no array value")))
            })
            .collect::<Result<_, _>>()?;
        use Opcode as O;
        match (data.opcode, &data.attrs) {
            (O::Sort, Attrs::Sort { dimension, .. }) => self.sort(instr, &operands, *dimension),
            (O::Scan, Attrs::Scan(attrs)) => self.scan(instr, &operands, attrs),
            (O::ReduceWindow, Attrs::Window(window)) => {
                self.reduce_window(instr, &operands, window.as_ref())
            }
            (O::SelectAndScatter, Attrs::Window(window)) => {
                self.select_and_scatter(instr, &operands, window.as_ref())
            }
            (
                O::ReducePrecision,
                Attrs::ReducePrecision {
                    exponent_bits,
                    mantissa_bits,
                },
            ) => self.kernel(
                instr,
                reduce_precision(
                    self.operand(instr, &operands, 0)?,
                    *exponent_bits,
                    *mantissa_bits,
                ),
            ),
            (O::RngBitGenerator, Attrs::RngBitGenerator { algorithm }) => {
                let (elem, dims) = self.result_array(instr, Some(1))?;
                let state = self.operand(instr, &operands, 0)?;
                let (state, bits) = rng_bit_generator(*algorithm, state, elem, &dims)
                    .map_err(|message| self.error(instr, message))?;
                Ok(Value::Tuple(vec![
                    Value::Tensor(state),
                    Value::Tensor(bits),
                ]))
            }
            (O::Map, _) => self.map(instr, &operands),
            (
                O::Fft,
                Attrs::Fft {
                    fft_type,
                    fft_length,
                },
            ) => {
                let (elem, dims) = self.result_array(instr, None)?;
                let input = self.operand(instr, &operands, 0)?;
                self.kernel(instr, fft(input, *fft_type, fft_length, elem, &dims))
            }
            (O::TriangularSolve, Attrs::TriangularSolve(attrs)) => self.kernel(
                instr,
                triangular_solve(
                    self.operand(instr, &operands, 0)?,
                    self.operand(instr, &operands, 1)?,
                    attrs,
                ),
            ),
            (O::Cholesky, Attrs::Cholesky { lower }) => {
                self.kernel(instr, cholesky(self.operand(instr, &operands, 0)?, *lower))
            }
            (O::TopK, Attrs::TopK { k, largest, .. }) => {
                let input = self.operand(instr, &operands, 0)?;
                let (values, indices) =
                    top_k(input, *k, *largest).map_err(|message| self.error(instr, message))?;
                Ok(Value::Tuple(vec![
                    Value::Tensor(values),
                    Value::Tensor(indices),
                ]))
            }
            (O::RaggedDot, Attrs::Dot(attrs)) => {
                let (elem, dims) = self.result_array(instr, None)?;
                self.kernel(
                    instr,
                    ragged_dot(
                        self.operand(instr, &operands, 0)?,
                        self.operand(instr, &operands, 1)?,
                        self.operand(instr, &operands, 2)?,
                        attrs,
                        elem,
                        &dims,
                    ),
                )
            }
            (opcode, _) => Err(self.error(
                instr,
                format!(
                    "{} is not a structured op or has the wrong attributes",
                    opcode.name()
                ),
            )),
        }
    }

    /// A kernel's tensor as the instruction's value, its error located.
    fn kernel(&self, instr: Instr, result: Result<Tensor, String>) -> Result<Value, RunError> {
        result
            .map(Value::Tensor)
            .map_err(|message| self.error(instr, message))
    }

    fn operand<'t>(
        &self,
        instr: Instr,
        operands: &[&'t Tensor],
        index: usize,
    ) -> Result<&'t Tensor, RunError> {
        operands
            .get(index)
            .copied()
            .ok_or_else(|| self.error(instr, format!("operand {index} is missing")))
    }

    /// The element type and dimensions of `instr`'s array result, or of
    /// element `element` of its tuple result.
    fn result_array(
        &self,
        instr: Instr,
        element: Option<usize>,
    ) -> Result<(ElementType, Vec<i64>), RunError> {
        let shapes = &self.module.shapes;
        let mut shape = self.module.instr(instr).shape;
        if let Some(element) = element {
            shape = shapes
                .tuple_elements(shape)
                .and_then(|elements| elements.get(element).copied())
                .ok_or_else(|| {
                    self.error(instr, format!("the result has no tuple element {element}"))
                })?;
        }
        shapes
            .as_array(shape)
            .map(|a| (a.elem, a.dims.to_vec()))
            .ok_or_else(|| self.error(instr, "expected an array result"))
    }

    /// Whether `instr`'s result is a tuple.
    fn returns_tuple(&self, instr: Instr) -> bool {
        matches!(
            self.module.shapes.get(self.module.instr(instr).shape),
            ShapeData::Tuple(_)
        )
    }

    /// Calls `comp` and splits its result into `count` arrays.
    fn call_for_arrays(
        &mut self,
        instr: Instr,
        comp: Comp,
        arguments: Vec<Value>,
        count: usize,
    ) -> Result<Vec<Tensor>, RunError> {
        let value = self.call(comp, arguments)?;
        let values = match value {
            Value::Tuple(elements) => elements,
            single => vec![single],
        };
        if values.len() != count {
            return Err(self.error(
                instr,
                format!(
                    "the called computation returned {} value(s), expected {count}",
                    values.len()
                ),
            ));
        }
        values
            .into_iter()
            .map(|v| match v {
                Value::Tensor(t) => Ok(t),
                _ => Err(self.error(instr, "the called computation did not return arrays")),
            })
            .collect()
    }

    /// Calls a predicate computation (a comparator or a `select`).
    fn call_predicate(
        &mut self,
        instr: Instr,
        comp: Comp,
        arguments: Vec<Value>,
    ) -> Result<bool, RunError> {
        let value = self.call(comp, arguments)?;
        value
            .as_tensor()
            .filter(|t| t.elem == ElementType::Pred && t.bytes.len() == 1)
            .map(|t| t.bytes[0] != 0)
            .ok_or_else(|| self.error(instr, "the called computation did not return a pred"))
    }

    /// A comparator that is one `compare` of the same elementwise function
    /// of an operand's lhs and rhs parameters (`compare(f(p₂ₖ), f(p₂ₖ₊₁))`,
    /// `f` often the identity; JAX wraps float keys so to canonicalize NaN
    /// and −0), evaluated natively: `f` runs once over the whole operand and
    /// the keys are compared as the `compare` would. `None` when the
    /// comparator has another form; `only_operand` restricts `k`.
    fn keyed_comparison(
        &mut self,
        comparator: Comp,
        operands: &[&Tensor],
        only_operand: Option<usize>,
    ) -> Option<NativeComparison> {
        let module = self.module;
        let data = module.comp(comparator);
        let root = module.instr(data.root?);
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
                    let number = data.params.iter().position(|&p| p == at)?;
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
        let (left_param, right_param) = (data.params[left], data.params[right]);
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

    // ----- sort -----

    fn sort(
        &mut self,
        instr: Instr,
        operands: &[&Tensor],
        dimension: i64,
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
            let mut line = Vec::with_capacity(lines.length);
            for start in lines.starts() {
                line.clear();
                line.extend((0..lines.length).map(|i| start + i * lines.step));
                match &native {
                    Some(native) => merge_sort(&mut line, &mut |a, b| Ok(native.holds(a, b)))?,
                    None => merge_sort(&mut line, &mut |a, b| {
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

    // ----- scan -----

    fn scan(
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
                .root
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

    // ----- reduce-window -----

    fn reduce_window(
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

    // ----- select-and-scatter -----

    fn select_and_scatter(
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

    // ----- map -----

    fn map(&mut self, instr: Instr, operands: &[&Tensor]) -> Result<Value, RunError> {
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

// ----- element access -----

/// Writes the scalar `value` at element `index` of `target`.
fn store(target: &mut Tensor, index: usize, value: &Tensor) -> Result<(), String> {
    let size = target.element_size();
    if value.elem != target.elem || value.bytes.len() != size {
        return Err(format!(
            "a computation returned {} where a {} scalar was expected",
            Value::Tensor(value.clone()).describe(),
            target.elem.name()
        ));
    }
    target.bytes[index * size..(index + 1) * size].copy_from_slice(&value.bytes);
    Ok(())
}

/// `tensor`'s elements rearranged: element `i` of the result is element
/// `source[i]` of `tensor`.
fn permuted(tensor: &Tensor, source: &[usize]) -> Tensor {
    let size = tensor.element_size();
    let mut bytes = Vec::with_capacity(tensor.bytes.len());
    for &from in source {
        bytes.extend_from_slice(&tensor.bytes[from * size..(from + 1) * size]);
    }
    Tensor {
        elem: tensor.elem,
        dims: tensor.dims.clone(),
        bytes: bytes.into(),
    }
}

/// The lines of an array along one axis: each starts at a linear index
/// and runs `length` elements `step` apart.
struct Lines {
    outer: usize,
    length: usize,
    step: usize,
}

impl Lines {
    fn new(dims: &[i64], axis: usize) -> Lines {
        Lines {
            outer: element_count(&dims[..axis]),
            length: dims[axis].max(0) as usize,
            step: element_count(&dims[axis + 1..]),
        }
    }

    /// The linear index of each line's first element.
    fn starts(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.outer)
            .flat_map(move |o| (0..self.step).map(move |i| o * self.length * self.step + i))
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

/// Steps `index` to the next multi-index of `dims` in row-major order;
/// false after the last one.
fn next_index(index: &mut [i64], dims: &[i64]) -> bool {
    for d in (0..dims.len()).rev() {
        index[d] += 1;
        if index[d] < dims[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}

// ----- comparisons -----

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
struct NativeComparison {
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
    fn holds(&self, a: usize, b: usize) -> bool {
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

/// Sorts `items` stably by `less` (bottom-up merge sort: an element of the
/// right run goes first only when it is less than the left one).
fn merge_sort(
    items: &mut Vec<usize>,
    less: &mut dyn FnMut(usize, usize) -> Result<bool, RunError>,
) -> Result<(), RunError> {
    let n = items.len();
    let mut buffer = items.clone();
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let middle = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, middle, start);
            while i < middle && j < end {
                if less(items[j], items[i])? {
                    buffer[k] = items[j];
                    j += 1;
                } else {
                    buffer[k] = items[i];
                    i += 1;
                }
                k += 1;
            }
            buffer[k..k + middle - i].copy_from_slice(&items[i..middle]);
            k += middle - i;
            buffer[k..k + end - j].copy_from_slice(&items[j..end]);
            start = end;
        }
        std::mem::swap(items, &mut buffer);
        width *= 2;
    }
    Ok(())
}

// ----- windows -----

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
            Some(w) => w.dims.clone(),
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
            let dilated = if size > 0 {
                (size - 1) * w.base_dilation + 1
            } else {
                0
            };
            let padded = dilated + w.padding_low + w.padding_high;
            let extent = if w.size > 0 {
                (w.size - 1) * w.window_dilation + 1
            } else {
                0
            };
            output_dims.push(if padded >= extent {
                (padded - extent) / w.stride + 1
            } else {
                0
            });
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
    fn elements(&self, output: &[i64], elements: &mut Vec<usize>) {
        elements.clear();
        let sizes: Vec<i64> = self.window.iter().map(|w| w.size).collect();
        if element_count(&sizes) == 0 {
            return;
        }
        let mut position = vec![0i64; sizes.len()];
        loop {
            let mut linear = 0usize;
            let mut inside = true;
            for (d, w) in self.window.iter().enumerate() {
                let dilated =
                    output[d] * w.stride + position[d] * w.window_dilation - w.padding_low;
                if dilated < 0 || dilated % w.base_dilation != 0 {
                    inside = false;
                    break;
                }
                let at = dilated / w.base_dilation;
                if at >= self.input_dims[d] {
                    inside = false;
                    break;
                }
                linear += at as usize * self.input_strides[d];
            }
            if inside {
                elements.push(linear);
            }
            if !next_index(&mut position, &sizes) {
                return;
            }
        }
    }
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

// ----- reduce-precision -----

/// `reduce-precision` to `exponent_bits` and `mantissa_bits`.
fn reduce_precision(
    input: &Tensor,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Tensor, String> {
    if exponent_bits < 1 || mantissa_bits < 0 {
        return Err(format!(
            "reduce-precision needs at least one exponent bit and no negative mantissa bits, got exponent_bits={exponent_bits}, mantissa_bits={mantissa_bits}"
        ));
    }
    let (exponent_bits, mantissa_bits) =
        (exponent_bits.min(64) as u32, mantissa_bits.min(64) as u32);
    let format = |nbits: u32, exponent: u32| FloatFormat {
        bits: nbits,
        exponent,
        mantissa: nbits - 1 - exponent,
    };
    let native = match input.elem {
        ElementType::F64 => Some(format(64, 11)),
        ElementType::F32 => Some(format(32, 8)),
        ElementType::F16 => Some(format(16, 5)),
        ElementType::Bf16 => Some(format(16, 8)),
        _ => None,
    };
    if let Some(format) = native {
        let size = input.element_size();
        let mut out = input.clone();
        for chunk in out.bytes.chunks_exact_mut(size) {
            let mut word = [0u8; 8];
            word[..size].copy_from_slice(chunk);
            let reduced = format.reduce(u64::from_le_bytes(word), exponent_bits, mantissa_bits);
            chunk.copy_from_slice(&reduced.to_le_bytes()[..size]);
        }
        return Ok(out);
    }
    match decode(input) {
        Numbers::Float(values) => {
            // Narrower floats go through f32, as XLA upcasts them.
            let f32_format = format(32, 8);
            let reduced = values
                .iter()
                .map(|&v| {
                    let bits = u64::from((v as f32).to_bits());
                    f64::from(f32::from_bits(
                        f32_format.reduce(bits, exponent_bits, mantissa_bits) as u32,
                    ))
                })
                .collect();
            Ok(encode(input.elem, &input.dims, &Numbers::Float(reduced)))
        }
        _ => Err(format!(
            "reduce-precision needs a floating-point operand, got {}",
            input.elem.name()
        )),
    }
}

/// An IEEE-style binary floating-point format.
struct FloatFormat {
    bits: u32,
    exponent: u32,
    mantissa: u32,
}

impl FloatFormat {
    /// XLA's reduce-precision of the bit pattern `x`.
    fn reduce(&self, x: u64, exponent_bits: u32, mantissa_bits: u32) -> u64 {
        let width_mask = if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        };
        let sign_mask = 1u64 << (self.bits - 1);
        let exponent_mask = ((1u64 << self.exponent) - 1) << self.mantissa;
        let is_nan = (x & !sign_mask & width_mask) > exponent_mask;
        let mut value = x;
        if mantissa_bits < self.mantissa {
            let dropped = self.mantissa - mantissa_bits;
            let last_kept_bit = 1u64 << dropped;
            // Round to nearest, ties to even: add 0111…1, plus one when the
            // last kept bit is set. A carry into the exponent is correct.
            let base_bias = (last_kept_bit >> 1) - 1;
            let bias = ((value & last_kept_bit) >> dropped) + base_bias;
            value = value.wrapping_add(bias) & !(last_kept_bit - 1) & width_mask;
        }
        if exponent_bits < self.exponent {
            let bias = (1u64 << (self.exponent - 1)) - 1;
            let reduced_bias = (1u64 << (exponent_bits - 1)) - 1;
            let max_exponent = (bias + reduced_bias) << self.mantissa;
            let min_exponent = (bias - reduced_bias) << self.mantissa;
            let exponent = value & exponent_mask;
            let signed_zero = value & sign_mask;
            if exponent > max_exponent {
                value = signed_zero | exponent_mask;
            } else if exponent <= min_exponent {
                // Denormals of the reduced format flush to zero too.
                value = signed_zero;
            }
        }
        if is_nan {
            // Rounding may have turned a NaN into an infinity or zero; XLA
            // keeps the NaN unless no mantissa bit survives.
            if mantissa_bits > 0 { x } else { exponent_mask }
        } else {
            value
        }
    }
}

// ----- rng-bit-generator -----

/// `rng-bit-generator(state)`: the new state and `dims` of random bits of
/// `elem`.
fn rng_bit_generator(
    algorithm: RngAlgorithm,
    state: &Tensor,
    elem: ElementType,
    dims: &[i64],
) -> Result<(Tensor, Tensor), String> {
    let words = match decode(state) {
        Numbers::Unsigned(words) if state.elem == ElementType::U64 && state.dims.len() == 1 => {
            words
        }
        _ => {
            return Err(format!(
                "the state of rng-bit-generator must be a u64 vector, got {}",
                Value::Tensor(state.clone()).describe()
            ));
        }
    };
    let width = elem.bit_width();
    let supported = !matches!(elem, ElementType::Pred) && !elem.is_complex();
    if !supported || !matches!(width, 8 | 16 | 32 | 64) {
        return Err(format!("rng-bit-generator cannot generate {}", elem.name()));
    }
    let count = element_count(dims);
    let (new_state, bits) = match algorithm {
        RngAlgorithm::ThreeFry => {
            if words.len() < 2 {
                return Err("the ThreeFry state needs a key and a counter (u64[2])".into());
            }
            let (key, counter) = (words[0], words[1]);
            let (bits, advance) = if width == 64 {
                (threefry_bits_64(key, counter, count), count as u64)
            } else {
                threefry_bits_32(key, counter, dims)
            };
            let mut new_state = words.clone();
            new_state[1] = counter.wrapping_add(advance);
            (new_state, bits)
        }
        RngAlgorithm::Philox | RngAlgorithm::Default => {
            if words.len() < 2 {
                return Err("the Philox state needs a key and a counter (u64[2] or u64[3])".into());
            }
            let key = words[0];
            // A two-word state has a 64-bit counter; XLA reads the key as the
            // counter's high half and returns only the low half.
            let counter = if words.len() >= 3 {
                u128::from(words[1]) | (u128::from(words[2]) << 64)
            } else {
                u128::from(words[1]) | (u128::from(words[0]) << 64)
            };
            let (bits, advance) = if width == 64 {
                philox_bits_64(key, counter, count)
            } else {
                philox_bits_32(key, counter, count)
            };
            let next = counter.wrapping_add(u128::from(advance));
            let mut new_state = words.clone();
            new_state[1] = next as u64;
            if words.len() >= 3 {
                new_state[2] = (next >> 64) as u64;
            }
            (new_state, bits)
        }
    };
    let size = weft_ir::literal::storage_bytes(elem);
    let mut bytes = Vec::with_capacity(count * size);
    for word in bits {
        // Narrow types keep the low bits of each 32-bit output, as XLA's
        // convert does.
        bytes.extend_from_slice(&word.to_le_bytes()[..size]);
    }
    let state = encode(ElementType::U64, &state.dims, &Numbers::Unsigned(new_state));
    Ok((
        state,
        Tensor {
            elem,
            dims: dims.to_vec(),
            bytes: bytes.into(),
        },
    ))
}

/// ThreeFry-2x32 with 20 rounds (Salmon et al., SC 2011), as XLA's
/// `ThreeFry2x32`.
fn threefry_2x32(key: [u32; 2], input: [u32; 2]) -> [u32; 2] {
    const ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
    let schedule = [key[0], key[1], key[0] ^ key[1] ^ 0x1BD1_1BDA];
    let mut x = [
        input[0].wrapping_add(schedule[0]),
        input[1].wrapping_add(schedule[1]),
    ];
    for injection in 1..=5u32 {
        let rotations = if injection % 2 == 1 {
            &ROTATIONS[..4]
        } else {
            &ROTATIONS[4..]
        };
        for &rotation in rotations {
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(rotation) ^ x[0];
        }
        let i = injection as usize;
        x[0] = x[0].wrapping_add(schedule[i % 3]);
        x[1] = x[1]
            .wrapping_add(schedule[(i + 1) % 3])
            .wrapping_add(injection);
    }
    x
}

fn split_u64(word: u64) -> [u32; 2] {
    [word as u32, (word >> 32) as u32]
}

/// XLA's `ThreeFryRngBit64`: counter `counter + i` for element `i`.
fn threefry_bits_64(key: u64, counter: u64, count: usize) -> Vec<u64> {
    (0..count as u64)
        .map(|i| {
            let [lo, hi] = threefry_2x32(split_u64(key), split_u64(counter.wrapping_add(i)));
            u64::from(lo) | (u64::from(hi) << 32)
        })
        .collect()
}

/// XLA's `ThreeFryRngBit32`: the shape is split in halves along its first
/// even dimension (else its largest), each counter giving the two elements
/// `2h` and `2h + 1` of that dimension. Returns the bits and how far the
/// counter moves.
fn threefry_bits_32(key: u64, counter: u64, dims: &[i64]) -> (Vec<u64>, u64) {
    let key = split_u64(key);
    let generate = |h: u64| threefry_2x32(key, split_u64(counter.wrapping_add(h)));
    if dims.is_empty() {
        return (vec![u64::from(generate(0)[0])], 1);
    }
    let split = dims.iter().position(|&d| d % 2 == 0).unwrap_or_else(|| {
        // No even dimension: the first of the largest.
        let mut best = 0;
        for (i, &d) in dims.iter().enumerate() {
            if d > dims[best] {
                best = i;
            }
        }
        best
    });
    let outer = element_count(&dims[..split]);
    let size = dims[split].max(0) as usize;
    let halves = size.div_ceil(2);
    let inner = element_count(&dims[split + 1..]);
    let mut bits = Vec::with_capacity(outer * size * inner);
    for o in 0..outer {
        for s in 0..size {
            for i in 0..inner {
                let h = ((o * halves + s / 2) * inner + i) as u64;
                bits.push(u64::from(generate(h)[s % 2]));
            }
        }
    }
    (bits, (outer * halves * inner) as u64)
}

/// Philox-4x32 with 10 rounds (Salmon et al., SC 2011), as XLA's
/// `Philox4x32`.
fn philox_4x32(key: [u32; 2], counter: [u32; 4]) -> [u32; 4] {
    const W: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];
    const M: [u64; 2] = [0xD251_1F53, 0xCD9E_8D57];
    let (mut key, mut x) = (key, counter);
    for _ in 0..10 {
        let product0 = M[0] * u64::from(x[0]);
        let product1 = M[1] * u64::from(x[2]);
        x = [
            (product1 >> 32) as u32 ^ x[1] ^ key[0],
            product1 as u32,
            (product0 >> 32) as u32 ^ x[3] ^ key[1],
            product0 as u32,
        ];
        key = [key[0].wrapping_add(W[0]), key[1].wrapping_add(W[1])];
    }
    x
}

/// The Philox outputs of counters `counter`, `counter + 1`, … `blocks`.
fn philox_blocks(key: u64, counter: u128, blocks: usize) -> impl Iterator<Item = [u32; 4]> {
    let key = split_u64(key);
    (0..blocks as u128).map(move |j| {
        let c = counter.wrapping_add(j);
        philox_4x32(
            key,
            [
                c as u32,
                (c >> 32) as u32,
                (c >> 64) as u32,
                (c >> 96) as u32,
            ],
        )
    })
}

/// XLA's `PhiloxRngBit32`: four elements per counter, in order.
fn philox_bits_32(key: u64, counter: u128, count: usize) -> (Vec<u64>, u64) {
    let blocks = count.div_ceil(4);
    let mut bits: Vec<u64> = philox_blocks(key, counter, blocks)
        .flat_map(|block| block.map(u64::from))
        .collect();
    bits.truncate(count);
    (bits, blocks as u64)
}

/// XLA's `PhiloxRngBit64`: two elements per counter, words paired low-high.
fn philox_bits_64(key: u64, counter: u128, count: usize) -> (Vec<u64>, u64) {
    let blocks = count.div_ceil(2);
    let mut bits: Vec<u64> = philox_blocks(key, counter, blocks)
        .flat_map(|b| {
            [
                u64::from(b[0]) | (u64::from(b[1]) << 32),
                u64::from(b[2]) | (u64::from(b[3]) << 32),
            ]
        })
        .collect();
    bits.truncate(count);
    (bits, blocks as u64)
}

// ----- fft -----

type C64 = (f64, f64);

fn c_add(a: C64, b: C64) -> C64 {
    (a.0 + b.0, a.1 + b.1)
}

fn c_sub(a: C64, b: C64) -> C64 {
    (a.0 - b.0, a.1 - b.1)
}

fn c_mul(a: C64, b: C64) -> C64 {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

fn c_conj(a: C64) -> C64 {
    (a.0, -a.1)
}

fn c_div(a: C64, b: C64) -> C64 {
    if b.1 == 0.0 {
        // Real divisors divide exactly, so real inputs get real arithmetic.
        return (a.0 / b.0, a.1 / b.0);
    }
    let norm = b.0 * b.0 + b.1 * b.1;
    (
        (a.0 * b.0 + a.1 * b.1) / norm,
        (a.1 * b.0 - a.0 * b.1) / norm,
    )
}

/// The elements as complex numbers, and whether they were complex.
fn complex_values(tensor: &Tensor, what: &str) -> Result<(Vec<C64>, bool), String> {
    match decode(tensor) {
        Numbers::Complex(v) => Ok((v, true)),
        Numbers::Float(v) => Ok((v.into_iter().map(|x| (x, 0.0)).collect(), false)),
        _ => Err(format!(
            "{what} needs floating-point or complex operands, got {}",
            tensor.elem.name()
        )),
    }
}

/// Complex values back in the domain of `elem` (real parts for reals).
fn from_complex(elem: ElementType, dims: &[i64], values: Vec<C64>) -> Tensor {
    let numbers = if elem.is_complex() {
        Numbers::Complex(values)
    } else {
        Numbers::Float(values.into_iter().map(|(re, _)| re).collect())
    };
    encode(elem, dims, &numbers)
}

/// `fft` of `fft_type` over the trailing `fft_length.len()` dimensions.
fn fft(
    input: &Tensor,
    fft_type: FftType,
    fft_length: &[i64],
    result_elem: ElementType,
    result_dims: &[i64],
) -> Result<Tensor, String> {
    let rank = input.dims.len();
    if fft_length.is_empty() || fft_length.len() > rank {
        return Err(format!(
            "fft over {} dimensions of a rank-{rank} operand",
            fft_length.len()
        ));
    }
    let first_axis = rank - fft_length.len();
    let last_axis = rank - 1;
    let (mut values, _) = complex_values(input, "fft")?;
    let mut dims = input.dims.clone();
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            for axis in first_axis..rank {
                transform_axis(&mut values, &dims, axis, fft_type == FftType::Ifft);
            }
        }
        FftType::Rfft => {
            transform_axis(&mut values, &dims, last_axis, false);
            let kept = if dims[last_axis] == 0 {
                0
            } else {
                dims[last_axis] / 2 + 1
            };
            values = resize_last_axis(&values, &dims, kept, |line, _| line.to_vec());
            dims[last_axis] = kept;
            for axis in first_axis..last_axis {
                transform_axis(&mut values, &dims, axis, false);
            }
        }
        FftType::Irfft => {
            for axis in first_axis..last_axis {
                transform_axis(&mut values, &dims, axis, true);
            }
            let length = fft_length[fft_length.len() - 1];
            values = resize_last_axis(&values, &dims, length, |half, n| {
                // The full spectrum of a real signal: X[n − k] = conj(X[k]).
                let mut line: Vec<C64> = (0..n)
                    .map(|k| {
                        if k < half.len() {
                            half[k]
                        } else {
                            half.get(n - k).copied().map_or((0.0, 0.0), c_conj)
                        }
                    })
                    .collect();
                fft_line(&mut line, true);
                line.iter().map(|&(re, _)| (re, 0.0)).collect()
            });
            dims[last_axis] = length;
        }
    }
    if dims != result_dims {
        return Err(format!(
            "the transform gives dimensions {dims:?} but the result has {result_dims:?}"
        ));
    }
    Ok(from_complex(result_elem, &dims, values))
}

/// Replaces each line along the last axis by `make(line, new_length)`.
fn resize_last_axis(
    values: &[C64],
    dims: &[i64],
    new_length: i64,
    make: impl Fn(&[C64], usize) -> Vec<C64>,
) -> Vec<C64> {
    let length = dims[dims.len() - 1].max(0) as usize;
    let new_length = new_length.max(0) as usize;
    let lines = element_count(&dims[..dims.len() - 1]);
    let mut out = Vec::with_capacity(lines * new_length);
    for l in 0..lines {
        let mut line = make(&values[l * length..(l + 1) * length], new_length);
        line.resize(new_length, (0.0, 0.0));
        out.extend(line);
    }
    out
}

/// Transforms every line of `values` (of `dims`) along `axis`.
fn transform_axis(values: &mut [C64], dims: &[i64], axis: usize, inverse: bool) {
    let lines = Lines::new(dims, axis);
    let mut line = Vec::with_capacity(lines.length);
    for start in lines.starts() {
        line.clear();
        line.extend((0..lines.length).map(|i| values[start + i * lines.step]));
        fft_line(&mut line, inverse);
        for (i, &v) in line.iter().enumerate() {
            values[start + i * lines.step] = v;
        }
    }
}

/// The discrete Fourier transform of `line` in place; the inverse divides
/// by the length.
fn fft_line(line: &mut [C64], inverse: bool) {
    let n = line.len();
    if n <= 1 {
        return;
    }
    let sign = if inverse { 1.0 } else { -1.0 };
    if n.is_power_of_two() {
        // Iterative radix-2 Cooley–Tukey.
        let bits = n.trailing_zeros();
        for i in 0..n {
            let j = i.reverse_bits() >> (usize::BITS - bits);
            if j > i {
                line.swap(i, j);
            }
        }
        let mut size = 2;
        while size <= n {
            let half = size / 2;
            let twiddles: Vec<C64> = (0..half)
                .map(|k| {
                    let angle = sign * 2.0 * std::f64::consts::PI * k as f64 / size as f64;
                    (angle.cos(), angle.sin())
                })
                .collect();
            for start in (0..n).step_by(size) {
                for k in 0..half {
                    let even = line[start + k];
                    let odd = c_mul(line[start + k + half], twiddles[k]);
                    line[start + k] = c_add(even, odd);
                    line[start + k + half] = c_sub(even, odd);
                }
            }
            size *= 2;
        }
    } else {
        let twiddles: Vec<C64> = (0..n)
            .map(|m| {
                let angle = sign * 2.0 * std::f64::consts::PI * m as f64 / n as f64;
                (angle.cos(), angle.sin())
            })
            .collect();
        let input = line.to_vec();
        for (k, out) in line.iter_mut().enumerate() {
            *out = input.iter().enumerate().fold((0.0, 0.0), |acc, (j, &x)| {
                c_add(acc, c_mul(x, twiddles[(j * k) % n]))
            });
        }
    }
    if inverse {
        let scale = 1.0 / n as f64;
        for v in line.iter_mut() {
            *v = (v.0 * scale, v.1 * scale);
        }
    }
}

// ----- linear algebra -----

/// The batch count and matrix size of a batch of square matrices.
fn square_batches(a: &Tensor, what: &str) -> Result<(usize, usize), String> {
    let rank = a.dims.len();
    if rank < 2 || a.dims[rank - 1] != a.dims[rank - 2] {
        return Err(format!(
            "{what} needs a batch of square matrices, got {}",
            Value::Tensor(a.clone()).describe()
        ));
    }
    Ok((
        element_count(&a.dims[..rank - 2]),
        a.dims[rank - 1].max(0) as usize,
    ))
}

/// `triangular-solve(a, b)`: `op(a) x = b` (left side) or `x op(a) = b`.
fn triangular_solve(
    a: &Tensor,
    b: &Tensor,
    attrs: &TriangularSolveAttrs,
) -> Result<Tensor, String> {
    let (batches, m) = square_batches(a, "triangular-solve")?;
    let rank = a.dims.len();
    if b.dims.len() != rank || b.dims[..rank - 2] != a.dims[..rank - 2] {
        return Err("triangular-solve's operands must have the same batch dimensions".into());
    }
    let (rows, columns) = (
        b.dims[rank - 2].max(0) as usize,
        b.dims[rank - 1].max(0) as usize,
    );
    let shared = if attrs.left_side { rows } else { columns };
    if shared != m {
        return Err(format!(
            "triangular-solve: a is {m}x{m} but b is {rows}x{columns}"
        ));
    }
    let (transpose, conjugate) = match attrs.transpose_a.as_str() {
        "" | "NO_TRANSPOSE" => (false, false),
        "TRANSPOSE" => (true, false),
        "ADJOINT" => (true, true),
        other => return Err(format!("unknown transpose_a value '{other}'")),
    };
    let (a_values, _) = complex_values(a, "triangular-solve")?;
    let (mut b_values, _) = complex_values(b, "triangular-solve")?;
    for batch in 0..batches {
        let matrix = &a_values[batch * m * m..(batch + 1) * m * m];
        // op(a), reading only the named triangle of a.
        let t = |i: usize, j: usize| -> C64 {
            let (r, c) = if transpose { (j, i) } else { (i, j) };
            let value = if r == c && attrs.unit_diagonal {
                (1.0, 0.0)
            } else if (attrs.lower && c <= r) || (!attrs.lower && c >= r) {
                matrix[r * m + c]
            } else {
                (0.0, 0.0)
            };
            if conjugate { c_conj(value) } else { value }
        };
        let t_is_lower = attrs.lower != transpose;
        let x = &mut b_values[batch * rows * columns..(batch + 1) * rows * columns];
        if attrs.left_side {
            // T X = B, one column at a time.
            for c in 0..columns {
                let order: Vec<usize> = if t_is_lower {
                    (0..m).collect()
                } else {
                    (0..m).rev().collect()
                };
                for (step, &i) in order.iter().enumerate() {
                    let mut sum = x[i * columns + c];
                    for &j in &order[..step] {
                        sum = c_sub(sum, c_mul(t(i, j), x[j * columns + c]));
                    }
                    x[i * columns + c] = c_div(sum, t(i, i));
                }
            }
        } else {
            // X T = B, one row at a time: x_j T_jj = b_j − Σ_{i≠j} x_i T_ij,
            // solved from the end when T is lower.
            for r in 0..rows {
                let order: Vec<usize> = if t_is_lower {
                    (0..m).rev().collect()
                } else {
                    (0..m).collect()
                };
                for (step, &j) in order.iter().enumerate() {
                    let mut sum = x[r * columns + j];
                    for &i in &order[..step] {
                        sum = c_sub(sum, c_mul(x[r * columns + i], t(i, j)));
                    }
                    x[r * columns + j] = c_div(sum, t(j, j));
                }
            }
        }
    }
    Ok(from_complex(b.elem, &b.dims, b_values))
}

/// `cholesky(a)`: `l` with `l lᴴ = a` (lower) or `u` with `uᴴ u = a`.
fn cholesky(a: &Tensor, lower: bool) -> Result<Tensor, String> {
    let (batches, n) = square_batches(a, "cholesky")?;
    let (values, _) = complex_values(a, "cholesky")?;
    let mut out = vec![(0.0, 0.0); values.len()];
    for batch in 0..batches {
        let matrix = &values[batch * n * n..(batch + 1) * n * n];
        // XLA factors the transpose for the upper form and transposes back
        // (no conjugation), so only that triangle of `a` is read.
        let source = |i: usize, j: usize| {
            if lower {
                matrix[i * n + j]
            } else {
                matrix[j * n + i]
            }
        };
        let mut l = vec![(0.0, 0.0); n * n];
        let mut failed = false;
        for j in 0..n {
            let mut pivot = source(j, j).0;
            for k in 0..j {
                let v = l[j * n + k];
                pivot -= v.0 * v.0 + v.1 * v.1;
            }
            let root = pivot.sqrt();
            failed |= root.is_nan();
            l[j * n + j] = (root, 0.0);
            for i in j + 1..n {
                let mut sum = source(i, j);
                for k in 0..j {
                    sum = c_sub(sum, c_mul(l[i * n + k], c_conj(l[j * n + k])));
                }
                l[i * n + j] = c_div(sum, (root, 0.0));
            }
        }
        let target = &mut out[batch * n * n..(batch + 1) * n * n];
        for i in 0..n {
            for j in 0..n {
                target[i * n + j] = if failed {
                    (f64::NAN, f64::NAN)
                } else if lower {
                    l[i * n + j]
                } else {
                    l[j * n + i]
                };
            }
        }
    }
    Ok(from_complex(a.elem, &a.dims, out))
}

// ----- topk -----

/// `topk(operand), k=…`: the `k` largest (or smallest) elements of each row
/// of the last dimension and their indices.
pub(crate) fn top_k(input: &Tensor, k: i64, largest: bool) -> Result<(Tensor, Tensor), String> {
    let rank = input.dims.len();
    if rank == 0 {
        return Err("topk needs an operand of rank 1 or more".into());
    }
    let n = input.dims[rank - 1].max(0) as usize;
    let k = usize::try_from(k)
        .ok()
        .filter(|&k| k <= n)
        .ok_or_else(|| format!("topk's k must be in 0..={n}"))?;
    let order: Box<dyn Fn(usize, usize) -> Ordering> = match decode(input) {
        Numbers::Float(v) => Box::new(move |a, b| v[a].total_cmp(&v[b])),
        Numbers::Signed(v) => Box::new(move |a, b| v[a].cmp(&v[b])),
        Numbers::Unsigned(v) => Box::new(move |a, b| v[a].cmp(&v[b])),
        Numbers::Pred(v) => Box::new(move |a, b| v[a].cmp(&v[b])),
        Numbers::Complex(_) => return Err("topk of complex numbers has no order".into()),
    };
    let rows = element_count(&input.dims[..rank - 1]);
    let mut chosen = Vec::with_capacity(rows * k);
    let mut indices = Vec::with_capacity(rows * k);
    for row in 0..rows {
        let mut line: Vec<usize> = (row * n..(row + 1) * n).collect();
        // A stable sort keeps tied elements in index order.
        if largest {
            line.sort_by(|&a, &b| order(b, a));
        } else {
            line.sort_by(|&a, &b| order(a, b));
        }
        for &at in &line[..k] {
            chosen.push(at);
            indices.push((at - row * n) as i64);
        }
    }
    let mut dims = input.dims.clone();
    dims[rank - 1] = k as i64;
    let mut values = permuted(input, &chosen);
    values.dims = dims.clone();
    Ok((
        values,
        encode(ElementType::S32, &dims, &Numbers::Signed(indices)),
    ))
}

// ----- ragged-dot -----

/// Which kind of lhs dimension is ragged.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RaggedMode {
    /// A free dimension: each row's group picks a slice of the rhs.
    NonContracting,
    /// A contracting dimension: one product per group over its slice.
    Contracting,
    /// A batch dimension: a dot whose batches past the groups are zero.
    Batch,
}

/// `ragged-dot(lhs, rhs, group_sizes)`.
fn ragged_dot(
    lhs: &Tensor,
    rhs: &Tensor,
    group_sizes: &Tensor,
    attrs: &DotAttrs,
    result_elem: ElementType,
    result_dims: &[i64],
) -> Result<Tensor, String> {
    let &[ragged] = &attrs.lhs_ragged[..] else {
        return Err("ragged-dot needs exactly one lhs ragged dimension".into());
    };
    let mode = if attrs.lhs_contracting.contains(&ragged) {
        RaggedMode::Contracting
    } else if attrs.lhs_batch.contains(&ragged) {
        RaggedMode::Batch
    } else {
        RaggedMode::NonContracting
    };
    let rhs_group = match (mode, &attrs.rhs_group[..]) {
        (RaggedMode::NonContracting, &[g]) => Some(
            usize::try_from(g)
                .ok()
                .filter(|&g| g < rhs.dims.len())
                .ok_or("the rhs group dimension is out of range")?,
        ),
        (RaggedMode::NonContracting, _) => {
            return Err("a ragged non-contracting dimension needs one rhs group dimension".into());
        }
        (_, []) => None,
        _ => return Err("only a ragged non-contracting dimension has rhs group dimensions".into()),
    };
    let in_range = |d: i64, rank: usize| usize::try_from(d).ok().filter(|&d| d < rank);
    let lhs_rank = lhs.dims.len();
    let rhs_rank = rhs.dims.len();
    let dims_of = |ds: &[i64], rank: usize| -> Result<Vec<usize>, String> {
        ds.iter()
            .map(|&d| in_range(d, rank).ok_or_else(|| format!("dimension {d} is out of range")))
            .collect()
    };
    let lhs_batch = dims_of(&attrs.lhs_batch, lhs_rank)?;
    let rhs_batch = dims_of(&attrs.rhs_batch, rhs_rank)?;
    let lhs_contracting = dims_of(&attrs.lhs_contracting, lhs_rank)?;
    let rhs_contracting = dims_of(&attrs.rhs_contracting, rhs_rank)?;
    let ragged = in_range(ragged, lhs_rank).ok_or("the ragged dimension is out of range")?;
    if lhs_batch.len() != rhs_batch.len() || lhs_contracting.len() != rhs_contracting.len() {
        return Err(
            "ragged-dot's lhs and rhs batch or contracting dimensions differ in number".into(),
        );
    }
    let lhs_free: Vec<usize> = (0..lhs_rank)
        .filter(|d| !lhs_batch.contains(d) && !lhs_contracting.contains(d))
        .collect();
    let rhs_free: Vec<usize> = (0..rhs_rank)
        .filter(|d| !rhs_batch.contains(d) && !rhs_contracting.contains(d) && Some(*d) != rhs_group)
        .collect();

    // Group boundaries for each combination of the lhs dimensions that
    // `group_sizes` carries before its group dimension.
    let sizes: Vec<i64> = match decode(group_sizes) {
        Numbers::Signed(v) => v,
        Numbers::Unsigned(v) => v
            .into_iter()
            .map(|x| x.min(i64::MAX as u64) as i64)
            .collect(),
        _ => return Err("ragged-dot's group sizes must be integers".into()),
    };
    let groups = group_sizes
        .dims
        .last()
        .map(|&g| g.max(0) as usize)
        .ok_or("ragged-dot's group sizes must have rank 1 or more")?;
    if let Some(g) = rhs_group
        && rhs.dims[g] != groups as i64
    {
        return Err(format!(
            "the rhs group dimension has size {} but there are {groups} groups",
            rhs.dims[g]
        ));
    }
    let outer_dims: Vec<usize> = match mode {
        RaggedMode::NonContracting => lhs_batch
            .iter()
            .copied()
            .chain(lhs_free.iter().copied().filter(|&d| d < ragged))
            .collect(),
        RaggedMode::Contracting => lhs_batch
            .iter()
            .copied()
            .chain(lhs_contracting.iter().copied().filter(|&d| d < ragged))
            .collect(),
        RaggedMode::Batch => lhs_batch.iter().copied().filter(|&d| d < ragged).collect(),
    };
    let prefix = &group_sizes.dims[..group_sizes.dims.len() - 1];
    let group_prefix: Vec<usize> = if prefix.is_empty() {
        Vec::new()
    } else if prefix.len() == outer_dims.len()
        && prefix
            .iter()
            .zip(&outer_dims)
            .all(|(&p, &d)| p == lhs.dims[d])
    {
        outer_dims
    } else {
        return Err(format!(
            "ragged-dot's group sizes {:?} do not fit the lhs dimensions outer to the ragged one",
            group_sizes.dims
        ));
    };
    let group_ends: Vec<Vec<i64>> = sizes
        .chunks(groups.max(1))
        .map(|chunk| {
            chunk
                .iter()
                .scan(0i64, |end, &size| {
                    *end = end.saturating_add(size);
                    Some(*end)
                })
                .collect()
        })
        .collect();
    // The row of `group_sizes` an lhs element uses: the lhs dimensions of
    // the prefix, row-major. Contracting ones vary along the contraction, so
    // the row splits into a part from the output index and one per step.
    let row_multipliers: Vec<(usize, usize)> = group_prefix
        .iter()
        .enumerate()
        .map(|(k, &d)| (d, element_count(&prefix[k + 1..])))
        .collect();
    let group_row = |lhs_index: &[i64], contracted: bool| -> usize {
        row_multipliers
            .iter()
            .filter(|(d, _)| lhs_contracting.contains(d) == contracted)
            .map(|&(d, multiplier)| lhs_index[d] as usize * multiplier)
            .sum()
    };
    // The group holding `position` along the ragged dimension, if any.
    let group_of = |ends: &[i64], position: i64| ends.iter().position(|&end| position < end);

    // Output dimensions: [groups,] batch, lhs free, rhs free.
    let mut out_dims: Vec<i64> = Vec::new();
    if mode == RaggedMode::Contracting {
        out_dims.push(groups as i64);
    }
    out_dims.extend(lhs_batch.iter().map(|&d| lhs.dims[d]));
    out_dims.extend(lhs_free.iter().map(|&d| lhs.dims[d]));
    out_dims.extend(rhs_free.iter().map(|&d| rhs.dims[d]));
    if out_dims != result_dims {
        return Err(format!(
            "ragged-dot gives dimensions {out_dims:?} but the result has {result_dims:?}"
        ));
    }
    let contracting_dims: Vec<i64> = lhs_contracting.iter().map(|&d| lhs.dims[d]).collect();
    if rhs_contracting
        .iter()
        .zip(&contracting_dims)
        .any(|(&d, &size)| rhs.dims[d] != size)
        || lhs_batch
            .iter()
            .zip(&rhs_batch)
            .any(|(&l, &r)| lhs.dims[l] != rhs.dims[r])
    {
        return Err("ragged-dot's contracting or batch dimensions differ in size".into());
    }

    let lhs_strides = strides(&lhs.dims);
    let rhs_strides = strides(&rhs.dims);
    let mut steps: Vec<Step> = Vec::new();
    if element_count(&contracting_dims) > 0 {
        let mut index = vec![0i64; contracting_dims.len()];
        let mut lhs_index = vec![0i64; lhs_rank];
        loop {
            let mut step = Step {
                lhs: 0,
                rhs: 0,
                ragged: 0,
                row: 0,
            };
            for (k, &i) in index.iter().enumerate() {
                lhs_index[lhs_contracting[k]] = i;
                step.lhs += i as usize * lhs_strides[lhs_contracting[k]];
                step.rhs += i as usize * rhs_strides[rhs_contracting[k]];
                if lhs_contracting[k] == ragged {
                    step.ragged = i;
                }
            }
            step.row = group_row(&lhs_index, true);
            steps.push(step);
            if !next_index(&mut index, &contracting_dims) {
                break;
            }
        }
    }

    /// One step of the contraction.
    struct Step {
        /// Offsets from the lhs and rhs elements of the output.
        lhs: usize,
        rhs: usize,
        /// The index along the ragged dimension, when it is contracted.
        ragged: i64,
        /// This step's part of the `group_sizes` row.
        row: usize,
    }
    /// One output element: where its operands start, and for a ragged
    /// contraction its group and the output's part of the `group_sizes`
    /// row; `None` for an element outside every group.
    struct Term {
        lhs_base: usize,
        rhs_base: usize,
        group: Option<(usize, usize)>,
    }
    let mut terms: Vec<Option<Term>> = Vec::with_capacity(element_count(&out_dims));
    if element_count(&out_dims) > 0 {
        let mut out_index = vec![0i64; out_dims.len()];
        let mut lhs_index = vec![0i64; lhs_rank];
        loop {
            let mut position = 0;
            let mut group = None;
            if mode == RaggedMode::Contracting {
                group = Some(out_index[0] as usize);
                position = 1;
            }
            let (mut lhs_base, mut rhs_base) = (0usize, 0usize);
            for (k, (&l, &r)) in lhs_batch.iter().zip(&rhs_batch).enumerate() {
                let i = out_index[position + k];
                lhs_index[l] = i;
                lhs_base += i as usize * lhs_strides[l];
                rhs_base += i as usize * rhs_strides[r];
            }
            position += lhs_batch.len();
            for (k, &l) in lhs_free.iter().enumerate() {
                let i = out_index[position + k];
                lhs_index[l] = i;
                lhs_base += i as usize * lhs_strides[l];
            }
            position += lhs_free.len();
            for (k, &r) in rhs_free.iter().enumerate() {
                rhs_base += out_index[position + k] as usize * rhs_strides[r];
            }
            let term = match mode {
                RaggedMode::NonContracting => {
                    let ends = group_ends.get(group_row(&lhs_index, false));
                    ends.and_then(|ends| group_of(ends, lhs_index[ragged]))
                        .map(|g| Term {
                            lhs_base,
                            rhs_base: rhs_base + g * rhs_strides[rhs_group.unwrap_or(0)],
                            group: None,
                        })
                }
                RaggedMode::Batch => {
                    let ends = group_ends.get(group_row(&lhs_index, false));
                    ends.and_then(|ends| group_of(ends, lhs_index[ragged]))
                        .map(|_| Term {
                            lhs_base,
                            rhs_base,
                            group: None,
                        })
                }
                RaggedMode::Contracting => Some(Term {
                    lhs_base,
                    rhs_base,
                    group: Some((group.unwrap_or(0), group_row(&lhs_index, false))),
                }),
            };
            terms.push(term);
            if !next_index(&mut out_index, &out_dims) {
                break;
            }
        }
    }
    // Whether a step belongs to a term: always, except in a ragged
    // contraction, where its ragged index must fall in the term's group.
    let included = |term: &Term, step: &Step| -> bool {
        let Some((group, row)) = term.group else {
            return true;
        };
        let Some(ends) = group_ends.get(row + step.row) else {
            return false;
        };
        let start = if group == 0 { 0 } else { ends[group - 1] };
        ends.get(group)
            .is_some_and(|&end| start <= step.ragged && step.ragged < end)
    };
    /// Each term's sum of `multiply_add` over its steps (by lhs and rhs
    /// element index); zero for a term outside every group.
    fn contract_with<T: Copy>(
        terms: &[Option<Term>],
        steps: &[Step],
        included: &dyn Fn(&Term, &Step) -> bool,
        zero: T,
        multiply_add: impl Fn(T, usize, usize) -> T,
    ) -> Vec<T> {
        terms
            .iter()
            .map(|term| match term {
                None => zero,
                Some(term) => {
                    steps
                        .iter()
                        .filter(|step| included(term, step))
                        .fold(zero, |sum, step| {
                            multiply_add(sum, term.lhs_base + step.lhs, term.rhs_base + step.rhs)
                        })
                }
            })
            .collect()
    }
    let domain = if result_elem == ElementType::Pred {
        ElementType::S64
    } else {
        result_elem
    };
    let (a, b) = (
        convert_numbers(&decode(lhs), domain),
        convert_numbers(&decode(rhs), domain),
    );
    let out = match (a, b) {
        (Numbers::Float(x), Numbers::Float(y)) => {
            Numbers::Float(contract_with(&terms, &steps, &included, 0.0, |s, l, r| {
                s + x[l] * y[r]
            }))
        }
        (Numbers::Complex(x), Numbers::Complex(y)) => Numbers::Complex(contract_with(
            &terms,
            &steps,
            &included,
            (0.0, 0.0),
            |s, l, r| c_add(s, c_mul(x[l], y[r])),
        )),
        (Numbers::Signed(x), Numbers::Signed(y)) => {
            Numbers::Signed(contract_with(&terms, &steps, &included, 0, |s, l, r| {
                s.wrapping_add(x[l].wrapping_mul(y[r]))
            }))
        }
        (Numbers::Unsigned(x), Numbers::Unsigned(y)) => {
            Numbers::Unsigned(contract_with(&terms, &steps, &included, 0, |s, l, r| {
                s.wrapping_add(x[l].wrapping_mul(y[r]))
            }))
        }
        _ => {
            return Err(format!(
                "ragged-dot of {} and {} into {}",
                lhs.elem.name(),
                rhs.elem.name(),
                result_elem.name()
            ));
        }
    };
    Ok(encode(result_elem, &out_dims, &out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses and runs `text` on `arguments`.
    fn run(text: &str, arguments: Vec<Value>) -> Value {
        let module = weft_ir::text::parse(text).unwrap_or_else(|e| panic!("{e:?}"));
        crate::evaluate(&module, arguments).unwrap_or_else(|e| panic!("{e}"))
    }

    fn tensor(value: &Value) -> &Tensor {
        value.as_tensor().expect("an array")
    }

    fn element(value: &Value, index: usize) -> &Tensor {
        match value {
            Value::Tuple(elements) => tensor(&elements[index]),
            _ => panic!("not a tuple: {}", value.describe()),
        }
    }

    fn ints(t: &Tensor) -> Vec<i64> {
        match decode(t) {
            Numbers::Signed(v) => v,
            Numbers::Unsigned(v) => v.into_iter().map(|x| x as i64).collect(),
            other => panic!("{other:?}"),
        }
    }

    fn floats(t: &Tensor) -> Vec<f64> {
        match decode(t) {
            Numbers::Float(v) => v,
            other => panic!("{other:?}"),
        }
    }

    fn complexes(t: &Tensor) -> Vec<C64> {
        match decode(t) {
            Numbers::Complex(v) => v,
            other => panic!("{other:?}"),
        }
    }

    fn f32s(dims: &[i64], values: &[f64]) -> Value {
        Value::Tensor(encode(
            ElementType::F32,
            dims,
            &Numbers::Float(values.to_vec()),
        ))
    }

    fn assert_close(actual: &[f64], expected: &[f64]) {
        assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
        for (a, e) in actual.iter().zip(expected) {
            assert!(
                (a - e).abs() <= 1e-5 * e.abs().max(1.0),
                "{actual:?} vs {expected:?}"
            );
        }
    }

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

    fn reduce_f64(values: &[u64], exponent_bits: u32, mantissa_bits: u32) -> Vec<u64> {
        let format = FloatFormat {
            bits: 64,
            exponent: 11,
            mantissa: 52,
        };
        values
            .iter()
            .map(|&v| format.reduce(v, exponent_bits, mantissa_bits))
            .collect()
    }

    #[test]
    fn reduce_precision_rounds_overflows_flushes_and_keeps_nan() {
        let bits = |x: f64| x.to_bits();
        let input = [
            bits(f64::INFINITY),
            0x7FFF_FFFF_FFFF_FFFF,
            1,
            bits(0.0),
            bits(65505.0),
            bits(65520.0),
            bits(-65520.0),
            bits(1.0 + 1.0 / 2048.0), // a tie at f16 precision: to even
            bits(1.0 + 3.0 / 2048.0), // a tie: rounds up to even
        ];
        let expected = [
            bits(f64::INFINITY),
            0x7FFF_FFFF_FFFF_FFFF,
            0,
            bits(0.0),
            bits(65504.0),
            bits(f64::INFINITY),
            bits(f64::NEG_INFINITY),
            bits(1.0),
            bits(1.0 + 4.0 / 2048.0),
        ];
        assert_eq!(reduce_f64(&input, 5, 10), expected);
        // With no mantissa bits a NaN becomes +inf.
        assert_eq!(
            reduce_f64(&[0x7FFF_FFFF_FFFF_FFFF], 5, 0),
            vec![bits(f64::INFINITY)]
        );
        // f16's smallest normal survives; half of it flushes to zero.
        let min_normal = 2f64.powi(-14);
        assert_eq!(
            reduce_f64(&[bits(min_normal), bits(-min_normal / 2.0)], 5, 10),
            vec![bits(min_normal), bits(-0.0)]
        );
    }

    #[test]
    fn reduce_precision_of_f32_to_bf16_through_the_evaluator() {
        let text = r#"
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  ROOT r = f32[3] reduce-precision(x), exponent_bits=8, mantissa_bits=7
}
"#;
        let input = f32s(&[3], &[1.0 + 1.0 / 256.0, 3.4e38, 1.0 + 3.0 / 256.0]);
        let result = run(text, vec![input]);
        // 1 + 2⁻⁸ ties to 1; 3.4e38 is nearer 2¹²⁸ than bf16's largest
        // finite value, so it overflows to inf; 1 + 3·2⁻⁸ ties up to 1 + 2⁻⁶.
        assert_eq!(
            floats(tensor(&result)),
            vec![1.0, f64::INFINITY, 1.0 + 4.0 / 256.0]
        );
    }

    #[test]
    fn threefry_and_philox_match_random123_known_answers() {
        // Known-answer vectors of Random123 (threefry2x32_20, philox4x32_10).
        assert_eq!(threefry_2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
        assert_eq!(
            threefry_2x32([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]),
            [0x1cb9_96fc, 0xbb00_2be7]
        );
        assert_eq!(
            threefry_2x32([0x1319_8a2e, 0x0370_7344], [0x243f_6a88, 0x85a3_08d3]),
            [0xc492_3a9c, 0x483d_f7a0]
        );
        assert_eq!(
            philox_4x32([0, 0], [0, 0, 0, 0]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox_4x32([u32::MAX, u32::MAX], [u32::MAX; 4]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox_4x32(
                [0xa409_3822, 0x299f_31d0],
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    #[test]
    fn rng_bit_generator_lays_out_bits_as_xla() {
        let text = r#"
HloModule m
ENTRY e {
  state = u64[2] parameter(0)
  ROOT r = (u64[2], u32[3,2]) rng-bit-generator(state), algorithm=rng_three_fry
}
"#;
        let key: u64 = 0x0370_7344_1319_8a2e;
        let counter: u64 = 0x85a3_08d3_243f_6a88;
        let state = Value::Tensor(encode(
            ElementType::U64,
            &[2],
            &Numbers::Unsigned(vec![key, counter]),
        ));
        let result = run(text, vec![state]);
        // Split along the first even dimension (dimension 1): each row is
        // one counter's two words; the counter moves by 3.
        let mut expected = Vec::new();
        for row in 0..3u64 {
            let [a, b] = threefry_2x32(split_u64(key), split_u64(counter + row));
            expected.extend([i64::from(a), i64::from(b)]);
        }
        assert_eq!(expected[..2], [0xc492_3a9c, 0x483d_f7a0]);
        assert_eq!(ints(element(&result, 1)), expected);
        assert_eq!(
            ints(element(&result, 0)),
            vec![key as i64, (counter + 3) as i64]
        );

        // Philox (also the default): four words per counter; a two-word
        // state's counter has the key as its high half.
        let text = r#"
HloModule m
ENTRY e {
  state = u64[2] parameter(0)
  ROOT r = (u64[2], u32[6]) rng-bit-generator(state), algorithm=rng_default
}
"#;
        let state = Value::Tensor(encode(
            ElementType::U64,
            &[2],
            &Numbers::Unsigned(vec![5, 7]),
        ));
        let result = run(text, vec![state]);
        let block = |c: u128| {
            philox_4x32(
                [5, 0],
                [
                    c as u32,
                    (c >> 32) as u32,
                    (c >> 64) as u32,
                    (c >> 96) as u32,
                ],
            )
        };
        let base = 7u128 | (5u128 << 64);
        let mut expected: Vec<i64> = block(base).iter().map(|&w| i64::from(w)).collect();
        expected.extend(block(base + 1)[..2].iter().map(|&w| i64::from(w)));
        assert_eq!(ints(element(&result, 1)), expected);
        assert_eq!(ints(element(&result, 0)), vec![5, 9]);
    }

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

    #[test]
    fn fft_round_trips_and_matches_a_direct_transform() {
        let text = r#"
HloModule m
ENTRY e {
  x = f32[2,6] parameter(0)
  spectrum = c64[2,4] fft(x), fft_type=RFFT, fft_length={6}
  back = f32[2,6] fft(spectrum), fft_type=IRFFT, fft_length={6}
  full = c64[2,6] convert(x)
  forward = c64[2,6] fft(full), fft_type=FFT, fft_length={2,6}
  inverse = c64[2,6] fft(forward), fft_type=IFFT, fft_length={2,6}
  ROOT t = (c64[2,4], f32[2,6], c64[2,6], c64[2,6]) tuple(spectrum, back, forward, inverse)
}
"#;
        let x = [1.0, 2.0, 0.0, -1.0, 3.0, 0.5, 2.0, -2.0, 1.0, 0.0, 4.0, 1.0];
        let result = run(text, vec![f32s(&[2, 6], &x)]);
        // RFFT of the first row, directly.
        let spectrum = complexes(element(&result, 0));
        for (k, value) in spectrum.iter().take(4).enumerate() {
            let mut expected = (0.0, 0.0);
            for (j, &v) in x[..6].iter().enumerate() {
                let angle = -2.0 * std::f64::consts::PI * (j * k) as f64 / 6.0;
                expected = c_add(expected, (v * angle.cos(), v * angle.sin()));
            }
            assert!((value.0 - expected.0).abs() < 1e-5);
            assert!((value.1 - expected.1).abs() < 1e-5);
        }
        assert_close(&floats(element(&result, 1)), &x);
        // The 2-D transform's DC term is the sum of everything.
        let forward = complexes(element(&result, 2));
        assert!((forward[0].0 - x.iter().sum::<f64>()).abs() < 1e-5);
        let inverse: Vec<f64> = complexes(element(&result, 3)).iter().map(|c| c.0).collect();
        assert_close(&inverse, &x);
    }

    #[test]
    fn fft_of_a_power_of_two_length_matches_the_direct_transform() {
        let mut line: Vec<C64> = (0..8)
            .map(|i| (i as f64 * 0.5 - 1.0, (i % 3) as f64))
            .collect();
        let input = line.clone();
        fft_line(&mut line, false);
        for (k, value) in line.iter().enumerate() {
            let mut expected = (0.0, 0.0);
            for (j, &x) in input.iter().enumerate() {
                let angle = -2.0 * std::f64::consts::PI * (j * k) as f64 / 8.0;
                expected = c_add(expected, c_mul(x, (angle.cos(), angle.sin())));
            }
            assert!((value.0 - expected.0).abs() < 1e-9 && (value.1 - expected.1).abs() < 1e-9);
        }
    }

    #[test]
    fn cholesky_and_triangular_solve() {
        let text = r#"
HloModule m
ENTRY e {
  a = f32[3,3] parameter(0)
  b = f32[3,2] parameter(1)
  l = f32[3,3] cholesky(a), lower=true
  u = f32[3,3] cholesky(a)
  y = f32[3,2] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  x = f32[3,2] triangular-solve(l, y), left_side=true, lower=true, transpose_a=TRANSPOSE
  bt = f32[2,3] transpose(b), dimensions={1,0}
  xr = f32[2,3] triangular-solve(u, bt), lower=false, transpose_a=NO_TRANSPOSE
  ROOT t = (f32[3,3], f32[3,3], f32[3,2], f32[2,3]) tuple(l, u, x, xr)
}
"#;
        // The StableHLO spec's example: a = l lᵀ with l = [[1,0,0],[2,4,0],[3,5,6]].
        // The unused triangle holds garbage that must not be read.
        let a = f32s(
            &[3, 3],
            &[1.0, 99.0, 99.0, 2.0, 20.0, 99.0, 3.0, 26.0, 70.0],
        );
        let b = f32s(&[3, 2], &[1.0, 0.0, 2.0, 1.0, 3.0, -1.0]);
        let result = run(text, vec![a.clone(), b]);
        assert_eq!(
            floats(element(&result, 0)),
            vec![1.0, 0.0, 0.0, 2.0, 4.0, 0.0, 3.0, 5.0, 6.0]
        );
        // The upper form reads the upper triangle: garbage gives NaN.
        assert!(floats(element(&result, 1)).iter().all(|v| v.is_nan()));
        // a x = b with the true symmetric a.
        let full = [1.0, 2.0, 3.0, 2.0, 20.0, 26.0, 3.0, 26.0, 70.0];
        let x = floats(element(&result, 2));
        for row in 0..3 {
            for column in 0..2 {
                let product: f64 = (0..3).map(|k| full[row * 3 + k] * x[k * 2 + column]).sum();
                let expected = [1.0, 0.0, 2.0, 1.0, 3.0, -1.0][row * 2 + column];
                assert!((product - expected).abs() < 1e-5, "{x:?}");
            }
        }
        // x u = bᵀ on the right side, u upper (from the symmetric matrix).
        let symmetric = f32s(&[3, 3], &full);
        let b = f32s(&[3, 2], &[1.0, 0.0, 2.0, 1.0, 3.0, -1.0]);
        let result = run(text, vec![symmetric, b]);
        let u = floats(element(&result, 1));
        assert_eq!(u, vec![1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 0.0, 0.0, 6.0]);
        let xr = floats(element(&result, 3));
        for row in 0..2 {
            for column in 0..3 {
                let product: f64 = (0..3).map(|k| xr[row * 3 + k] * u[k * 3 + column]).sum();
                let expected = [1.0, 2.0, 3.0, 0.0, 1.0, -1.0][row * 3 + column];
                assert!((product - expected).abs() < 1e-5, "{xr:?}");
            }
        }
    }

    #[test]
    fn topk_orders_by_value_then_index() {
        let text = r#"
HloModule m
ENTRY e {
  x = f32[2,5] constant({{1, 3, 3, nan, -inf}, {0, -1, 2, 2, 5}})
  big = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
  small = (f32[2,2], s32[2,2]) topk(x), k=2, largest=false
  ROOT t = ((f32[2,3], s32[2,3]), (f32[2,2], s32[2,2])) tuple(big, small)
}
"#;
        let result = run(text, vec![]);
        let Value::Tuple(parts) = result else {
            panic!("not a tuple")
        };
        let big_values = floats(element(&parts[0], 0));
        assert!(big_values[0].is_nan());
        assert_eq!(big_values[1..], [3.0, 3.0, 5.0, 2.0, 2.0]);
        assert_eq!(ints(element(&parts[0], 1)), vec![3, 1, 2, 4, 2, 3]);
        assert_eq!(
            floats(element(&parts[1], 0)),
            vec![f64::NEG_INFINITY, 1.0, -1.0, 0.0]
        );
        assert_eq!(ints(element(&parts[1], 1)), vec![4, 0, 1, 0]);
    }

    #[test]
    fn ragged_dot_in_all_three_modes() {
        // lhs rows 0..2 use group 0, rows 2..3 group 1, row 3 no group.
        let text = r#"
HloModule m
ENTRY e {
  lhs = f32[4,2] constant({{1, 2}, {3, 4}, {5, 6}, {7, 8}})
  rhs = f32[2,2,1] constant({{{1}, {1}}, {{10}, {0}}})
  sizes = s32[2] constant({2, 1})
  ROOT r = f32[4,1] ragged-dot(lhs, rhs, sizes), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}
"#;
        assert_eq!(
            floats(tensor(&run(text, vec![]))),
            vec![3.0, 7.0, 50.0, 0.0]
        );
        // Ragged contraction: group 0 sums k in 0..1, group 1 sums k in 1..3.
        let text = r#"
HloModule m
ENTRY e {
  lhs = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  rhs = f32[3,1] constant({{1}, {10}, {100}})
  sizes = s32[2] constant({1, 2})
  ROOT r = f32[2,2,1] ragged-dot(lhs, rhs, sizes), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
}
"#;
        assert_eq!(
            floats(tensor(&run(text, vec![]))),
            vec![1.0, 4.0, 320.0, 650.0]
        );
        // Group sizes per outer contracting index: row 0 splits k as 1 + 2,
        // row 1 as 2 + 1.
        let text = r#"
HloModule m
ENTRY e {
  lhs = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  rhs = f32[2,3,1] constant({{{1}, {10}, {100}}, {{1000}, {10000}, {100000}}})
  sizes = s64[2,2] constant({{1, 2}, {2, 1}})
  ROOT r = f32[2,1] ragged-dot(lhs, rhs, sizes), lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}, lhs_ragged_dims={1}
}
"#;
        assert_eq!(floats(tensor(&run(text, vec![]))), vec![54001.0, 600320.0]);
        // Ragged batch: batches past the groups are zero.
        let text = r#"
HloModule m
ENTRY e {
  lhs = f32[3,1,2] constant({{{1, 2}}, {{3, 4}}, {{5, 6}}})
  rhs = f32[3,2,1] constant({{{1}, {1}}, {{1}, {1}}, {{1}, {1}}})
  sizes = s32[1] constant({2})
  ROOT r = f32[3,1,1] ragged-dot(lhs, rhs, sizes), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
}
"#;
        assert_eq!(floats(tensor(&run(text, vec![]))), vec![3.0, 7.0, 0.0]);
    }
}

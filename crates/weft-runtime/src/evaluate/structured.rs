//! Ops with structure beyond one element at a time: `sort`, `scan`,
//! `reduce-window`, `select-and-scatter`, `reduce-precision`,
//! `rng-bit-generator`, `map`, `fft`, `triangular-solve`, `cholesky`,
//! `topk` and `ragged-dot`. This module dispatches each to the module that
//! implements it and holds what they share: reading operands and results,
//! and calling their computations (comparators, reducers, bodies) for
//! arrays or a predicate.
//!
//! Semantics follow XLA's CPU backend where it and the StableHLO spec part;
//! each op's module states the decisions it makes: [`super::sort`],
//! [`super::scan`], [`super::windows`] (`reduce-window` and
//! `select-and-scatter`), [`super::reduce_precision`],
//! [`super::random_bits`] (`rng-bit-generator`), [`super::map`],
//! [`super::fft`], [`super::linear_algebra`] (`triangular-solve` and
//! `cholesky`), [`super::top_k`] and [`super::ragged_dot`].

use rustc_hash::FxHashMap;
use weft_ir::attrs::Attrs;
use weft_ir::{Comp, ElementType, Instr, Opcode, ShapeData};

use super::fft::fft;
use super::linear_algebra::{cholesky, triangular_solve};
use super::ragged_dot::ragged_dot;
use super::random_bits::rng_bit_generator;
use super::reduce_precision::reduce_precision;
use super::top_k::top_k;
use super::{Evaluator, RunError};
use crate::tensor::{Tensor, Value};

impl Evaluator<'_> {
    /// Evaluates the ops this module dispatches (see the module doc).
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
            (
                O::Sort,
                Attrs::Sort {
                    dimension,
                    is_stable,
                },
            ) => self.sort(instr, &operands, *dimension, *is_stable),
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

    pub(super) fn operand<'t>(
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
    pub(super) fn result_array(
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
    pub(super) fn returns_tuple(&self, instr: Instr) -> bool {
        matches!(
            self.module.shapes.get(self.module.instr(instr).shape),
            ShapeData::Tuple(_)
        )
    }

    /// Calls `comp` and splits its result into `count` arrays.
    pub(super) fn call_for_arrays(
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
    pub(super) fn call_predicate(
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
}

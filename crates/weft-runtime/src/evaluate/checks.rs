//! The reference interpreter's checks, as the lowering leaves them:
//! side-effecting custom-calls `check.expect_eq`, `check.expect_almost_eq`,
//! `check.expect_close` and `check.expect_serialized_eq` on (actual,
//! expected), with their options in a JSON `backend_config`; and
//! `interpreter.print` / `interpreter.probe`.
//!
//! Semantics are the `check` dialect's (`stablehlo/tests/CheckOps.td`):
//! - `expect_eq`: elementwise `==`, IEEE for floats (NaN ≠ NaN, +0 = −0);
//! - `expect_almost_eq`: `|actual − expected| ≤ tolerance` (default 1e-4),
//!   NaN matches NaN, infinities must match exactly, complex parts apart;
//! - `expect_close`: the ULP distance of the bit patterns (sign-magnitude)
//!   lies in `[min_ulp_difference, max_ulp_difference]` (defaults 0 and 1);
//!   NaN matches NaN, a non-finite mismatch is the largest distance;
//! - `check.eq` (the custom-call JAX's exported tests use): a `pred[]`
//!   result, true when the values match — exactly for integers and booleans,
//!   within `tolerance` (1e-4) for floats and complex numbers — and a
//!   mismatch is a failed check, as in `stablehlo-translate --interpret`.
//!
//! A failed check does not stop the program: it is recorded, with the first
//! mismatching element, and the run goes on, as the reference interpreter's
//! does.

use weft_ir::interpreter_calls::{self as calls, CheckOptions};
use weft_ir::{ElementType, Instr};

use super::{Evaluator, RunError};
use crate::numbers::{Numbers, decode};
use crate::tensor::{Tensor, Value};

impl Evaluator<'_> {
    /// Runs the check or interpreter custom-call `target`; `None` when
    /// `target` is not one of them.
    pub(crate) fn check_call(
        &mut self,
        instr: Instr,
        target: &str,
        arguments: &[Value],
    ) -> Option<Result<Value, RunError>> {
        let config = self
            .module
            .instr(instr)
            .common()
            .backend_config
            .as_ref()
            .map(|c| c.0.clone());
        let options = match CheckOptions::from_config(config.as_deref()) {
            Ok(options) => options,
            Err(message)
                if calls::driver_options(target).is_some()
                    || [calls::EXPECT_SERIALIZED_EQ, calls::PRINT, calls::PROBE]
                        .contains(&target) =>
            {
                return Some(Err(self.error(instr, message)));
            }
            Err(_) => return None,
        };
        let tensors = || -> Result<(&Tensor, &Tensor), RunError> {
            match arguments {
                [Value::Tensor(actual), Value::Tensor(expected)] => Ok((actual, expected)),
                _ => Err(self.error(instr, format!("{target} takes two arrays"))),
            }
        };
        let outcome = match target {
            calls::EXPECT_EQ => tensors().map(|(a, e)| expect(a, e, Comparison::Exact)),
            calls::EXPECT_ALMOST_EQ => {
                let tolerance = options.tolerance.unwrap_or(calls::DEFAULT_TOLERANCE);
                tensors().map(|(a, e)| expect(a, e, Comparison::Tolerance(tolerance)))
            }
            calls::EXPECT_CLOSE => {
                let max = options
                    .max_ulp_difference
                    .unwrap_or(calls::DEFAULT_MAX_ULP_DIFFERENCE);
                let min = options.min_ulp_difference.unwrap_or(0);
                tensors().map(|(a, e)| expect(a, e, Comparison::Ulps { min, max }))
            }
            calls::EQ => {
                let tolerance = options.tolerance.unwrap_or(calls::DEFAULT_TOLERANCE);
                return Some(tensors().map(|(a, e)| {
                    let comparison = if a.elem.is_float() || a.elem.is_complex() {
                        Comparison::Tolerance(tolerance)
                    } else {
                        Comparison::Exact
                    };
                    let verdict = expect(a, e, comparison);
                    let equal = verdict.is_ok();
                    if let Err(message) = verdict {
                        let at = self.error(instr, message);
                        self.check_failures.push(at.to_string());
                    }
                    Value::Tensor(Tensor::new(
                        ElementType::Pred,
                        Vec::new(),
                        vec![u8::from(equal)],
                    ))
                }));
            }
            calls::EXPECT_SERIALIZED_EQ => {
                let id = options.probe_id.clone().unwrap_or_default();
                let iteration = options.iteration.unwrap_or(0) as usize;
                let recorded = self
                    .probes
                    .get(&id)
                    .and_then(|values| values.get(iteration))
                    .cloned();
                match (arguments, recorded) {
                    ([Value::Tensor(actual)], Some(Value::Tensor(expected))) => {
                        Ok(expect(actual, &expected, Comparison::Bitwise))
                    }
                    (_, None) => Ok(Err(format!(
                        "probe \"{id}\" recorded no value for iteration {iteration}"
                    ))),
                    _ => Err(self.error(instr, "expect_serialized_eq takes one array")),
                }
            }
            calls::PRINT => {
                let text = arguments
                    .iter()
                    .map(Value::describe)
                    .collect::<Vec<_>>()
                    .join(", ");
                self.printed.push(text);
                return Some(Ok(Value::Tuple(Vec::new())));
            }
            calls::PROBE => {
                // The reference interpreter writes each probed value to a
                // file that expect_serialized_eq reads back; weft keeps them.
                let id = options.probe_id.clone().unwrap_or_default();
                return Some(match arguments {
                    [value] => {
                        self.probes.entry(id).or_default().push(value.clone());
                        Ok(value.clone())
                    }
                    _ => Err(self.error(instr, "interpreter.probe takes one value")),
                });
            }
            _ => return None,
        };
        Some(outcome.map(|verdict| {
            if let Err(message) = verdict {
                let at = self.error(instr, message);
                self.check_failures.push(at.to_string());
            }
            Value::Tuple(Vec::new())
        }))
    }
}

#[derive(Clone, Copy)]
enum Comparison {
    /// The same bits (what a serialized value read back must be).
    Bitwise,
    Exact,
    Tolerance(f64),
    Ulps {
        min: u64,
        max: u64,
    },
}

/// `Ok` when every element passes, else the first mismatch in the reference
/// interpreter's words.
fn expect(actual: &Tensor, expected: &Tensor, comparison: Comparison) -> Result<(), String> {
    if actual.dims != expected.dims || actual.elem != expected.elem {
        return Err(format!(
            "the actual value is {}{:?}, the expected {}{:?}",
            actual.elem.name(),
            actual.dims,
            expected.elem.name(),
            expected.dims
        ));
    }
    let mismatch = |index: usize, a: String, e: String| -> Result<(), String> {
        Err(format!(
            "Element values don't match: {a} (actual) vs {e} (expected) at index {index}"
        ))
    };
    if let Comparison::Bitwise = comparison {
        return match actual
            .bytes
            .iter()
            .zip(expected.bytes.iter())
            .position(|(a, e)| a != e)
        {
            None => Ok(()),
            Some(byte) => Err(format!(
                "the value differs from the probed one at element {}",
                byte / actual.element_size().max(1)
            )),
        };
    }
    match (decode(actual), decode(expected), comparison) {
        (Numbers::Float(a), Numbers::Float(e), _) => {
            for (i, (&x, &y)) in a.iter().zip(&e).enumerate() {
                let pass = match comparison {
                    Comparison::Exact | Comparison::Bitwise => x == y,
                    Comparison::Tolerance(t) => close_enough(x, y, t),
                    Comparison::Ulps { min, max } => {
                        let distance = ulp_distance(actual.elem, x, y);
                        (min..=max).contains(&distance)
                    }
                };
                if !pass {
                    return mismatch(i, x.to_string(), y.to_string());
                }
            }
            Ok(())
        }
        (Numbers::Complex(a), Numbers::Complex(e), _) => {
            let part = if actual.elem == ElementType::C64 {
                ElementType::F32
            } else {
                ElementType::F64
            };
            for (i, (&x, &y)) in a.iter().zip(&e).enumerate() {
                let pass = match comparison {
                    Comparison::Exact | Comparison::Bitwise => x == y,
                    Comparison::Tolerance(t) => {
                        close_enough(x.0, y.0, t) && close_enough(x.1, y.1, t)
                    }
                    Comparison::Ulps { min, max } => {
                        let distance =
                            ulp_distance(part, x.0, y.0).max(ulp_distance(part, x.1, y.1));
                        (min..=max).contains(&distance)
                    }
                };
                if !pass {
                    return mismatch(i, format!("{x:?}"), format!("{y:?}"));
                }
            }
            Ok(())
        }
        (a, e, _) => {
            if a == e {
                return Ok(());
            }
            let describe = |n: &Numbers, i: usize| match n {
                Numbers::Pred(v) => v[i].to_string(),
                Numbers::Signed(v) => v[i].to_string(),
                Numbers::Unsigned(v) => v[i].to_string(),
                _ => String::new(),
            };
            let first = (0..a.len())
                .find(|&i| describe(&a, i) != describe(&e, i))
                .unwrap_or(0);
            mismatch(first, describe(&a, first), describe(&e, first))
        }
    }
}

fn close_enough(actual: f64, expected: f64, tolerance: f64) -> bool {
    if actual.is_nan() || expected.is_nan() {
        return actual.is_nan() && expected.is_nan();
    }
    if actual.is_infinite() || expected.is_infinite() {
        return actual == expected;
    }
    (actual - expected).abs() <= tolerance
}

/// The distance between two values in units in the last place of `elem`,
/// on their bit patterns read as sign-magnitude integers.
fn ulp_distance(elem: ElementType, actual: f64, expected: f64) -> u64 {
    if actual.is_nan() && expected.is_nan() {
        return 0;
    }
    if !(actual.is_finite() && expected.is_finite()) {
        return if actual == expected { 0 } else { u64::MAX };
    }
    let ordered = |value: f64| -> i128 {
        let (bits, width) = match elem {
            ElementType::F64 => (value.to_bits(), 64),
            ElementType::F32 => (u64::from((value as f32).to_bits()), 32),
            other => (
                u64::from(weft_ir::literal::minifloat::encode(other, value)),
                other.bit_width(),
            ),
        };
        let sign = bits >> (width - 1) & 1;
        let magnitude = i128::from(bits & ((1u64 << (width - 1)) - 1));
        if sign == 1 { -magnitude } else { magnitude }
    };
    (ordered(actual) - ordered(expected))
        .unsigned_abs()
        .min(u128::from(u64::MAX)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::encode;

    fn floats(values: &[f64]) -> Tensor {
        encode(
            ElementType::F32,
            &[values.len() as i64],
            &Numbers::Float(values.to_vec()),
        )
    }

    #[test]
    fn checks_follow_the_dialect() {
        let a = floats(&[1.0, f64::NAN, 0.0]);
        let b = floats(&[1.0, f64::NAN, -0.0]);
        assert!(
            expect(&a, &b, Comparison::Exact).is_err(),
            "NaN is not equal to NaN"
        );
        assert!(expect(&a, &b, Comparison::Tolerance(1e-4)).is_ok());
        let c = floats(&[1.0 + f64::from(f32::EPSILON)]);
        assert!(expect(&floats(&[1.0]), &c, Comparison::Ulps { min: 0, max: 1 }).is_ok());
        assert!(expect(&floats(&[1.0]), &c, Comparison::Ulps { min: 0, max: 0 }).is_err());
        let message = expect(&floats(&[2.0]), &floats(&[3.0]), Comparison::Exact).unwrap_err();
        assert_eq!(
            message,
            "Element values don't match: 2 (actual) vs 3 (expected) at index 0"
        );
    }
}

//! The reference interpreter's dialects, lowered so a runtime can enforce
//! them: each `check.*` op becomes a side-effecting custom-call named after
//! the op (`check.expect_eq`, `check.expect_almost_eq`, `check.expect_close`,
//! `check.expect_serialized_eq`) whose operands are the actual and expected
//! values (a `*_const` form's expected value becomes a `constant`), with its
//! numeric options as a JSON `backend_config` (`{"tolerance": 0.0001}`,
//! `{"max_ulp_difference": 3, "min_ulp_difference": 0}`, `{"probe_id": "p",
//! "iteration": 1}`). `interpreter.print` becomes `interpreter.print`;
//! `interpreter.probe` becomes `interpreter.probe`, which returns its operand.
//!
//! `interpreter.run_parallel` runs several functions on a process grid; it
//! becomes a custom-call naming them ([`super::run_parallel`]).
//!
//! JAX-exported test files call the checks as custom-calls instead
//! (`stablehlo.custom_call @check.expect_close(%actual, %expected)`), with no
//! options: `stablehlo-translate --interpret` then applies its own, which
//! differ from the check ops' defaults — `expect_close` allows 0 to 3 ULPs
//! (the op: 0 to 1) and `expect_almost_eq` a tolerance of 1e-3 (the op:
//! 1e-4). Such a call is lowered with those options written out, so the
//! runtime sees one contract. `@check.eq` returns a `tensor<i1>`: true when
//! the values match (exactly for integers, within 1e-4 otherwise), and a
//! mismatch fails the case as the driver's does.

use weft_ir::attrs::Attrs;
use weft_ir::interpreter_calls::{self as calls, CheckOptions};
use weft_ir::{Comp, Opcode};

use super::{LowerResult, Lowering};
use crate::ir::{Attribute, Op};
use crate::ops::OpKind;

impl Lowering<'_> {
    pub(crate) fn lower_testing(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        let target = match kind {
            OpKind::CheckExpectEq | OpKind::CheckExpectEqConst => calls::EXPECT_EQ,
            OpKind::CheckExpectAlmostEq | OpKind::CheckExpectAlmostEqConst => {
                calls::EXPECT_ALMOST_EQ
            }
            OpKind::CheckExpectClose => calls::EXPECT_CLOSE,
            OpKind::CheckExpectSerializedEq => calls::EXPECT_SERIALIZED_EQ,
            OpKind::InterpreterPrint => calls::PRINT,
            OpKind::InterpreterProbe => calls::PROBE,
            OpKind::InterpreterRunParallel => return self.lower_run_parallel(comp, op),
            _ => return Err(self.error(op, "not an interpreter or check op")),
        };
        let mut operands = self.operands(op)?;
        let name = self.name_for(op, target);
        if matches!(
            kind,
            OpKind::CheckExpectEqConst | OpKind::CheckExpectAlmostEqConst
        ) {
            let Some(Attribute::DenseElements(dense)) = self.body.attribute(op, "value") else {
                return Err(self.error(op, "missing the expected value"));
            };
            let literal = super::ops::dense_literal(dense).map_err(|e| match e {
                crate::ir::attribute::NotNumbers::Strings => {
                    self.error(op, "string constants have no HLO equivalent")
                }
                other => self.error(op, other.to_string()),
            })?;
            let ty = dense.ty.clone();
            let shape = self.shape(&ty).map_err(|m| self.error(op, m))?;
            let expected = self.emit(
                comp,
                &format!("{name}.expected"),
                Opcode::Constant,
                shape,
                Vec::new(),
                Attrs::Constant(Box::new(literal)),
            );
            operands.push(expected);
        }
        let config = self.check_config(op, kind);
        let shape = if kind == OpKind::InterpreterProbe {
            self.module.shape_of(operands[0])
        } else {
            self.module.shapes.empty_tuple()
        };
        let instr = self.emit_side_effect_call(comp, &name, target, shape, operands, config);
        if kind == OpKind::InterpreterProbe {
            self.bind_results(comp, op, instr);
        }
        Ok(())
    }

    /// A `stablehlo.custom_call` to one of the driver's check targets, with
    /// the driver's options; `false` when `target` is not one.
    pub(crate) fn lower_check_custom_call(
        &mut self,
        comp: Comp,
        op: Op,
        target: &str,
    ) -> LowerResult<bool> {
        let Some(options) = calls::driver_options(target) else {
            return Ok(false);
        };
        let operands = self.operands(op)?;
        if operands.len() != 2 {
            return Err(self.error(
                op,
                format!(
                    "@{target} takes two operands (actual, expected), got {}",
                    operands.len()
                ),
            ));
        }
        let name = self.name_for(op, target);
        let results = self.body.ops[op].results.clone();
        let shape = match results.as_slice() {
            [] => self.module.shapes.empty_tuple(),
            [result] if target == calls::EQ => {
                let ty = self.body.ty(*result).clone();
                self.shape(&ty).map_err(|m| self.error(op, m))?
            }
            _ => {
                return Err(self.error(
                    op,
                    format!("@{target} returns nothing (only @check.eq returns a tensor<i1>)"),
                ));
            }
        };
        let config = options.to_config();
        let instr = self.emit_side_effect_call(comp, &name, target, shape, operands, config);
        if !results.is_empty() {
            self.bind_results(comp, op, instr);
        }
        Ok(true)
    }

    /// The options of a check op, as its call's `backend_config`.
    fn check_config(&self, op: Op, kind: OpKind) -> Option<String> {
        let float = |name: &str| match self.body.attribute(op, name)? {
            Attribute::Float { value, .. } => Some(*value),
            Attribute::Integer { value, .. } => Some(*value as f64),
            _ => None,
        };
        let unsigned = |name: &str| match self.body.attribute(op, name)? {
            Attribute::Integer { value, .. } => u64::try_from(*value).ok(),
            _ => None,
        };
        let string = |name: &str| Some(self.body.attribute(op, name)?.as_str()?.to_string());
        let options = match kind {
            OpKind::CheckExpectAlmostEq | OpKind::CheckExpectAlmostEqConst => CheckOptions {
                tolerance: float("tolerance"),
                ..CheckOptions::default()
            },
            OpKind::CheckExpectClose => CheckOptions {
                max_ulp_difference: unsigned("max_ulp_difference"),
                min_ulp_difference: unsigned("min_ulp_difference"),
                ..CheckOptions::default()
            },
            OpKind::CheckExpectSerializedEq => CheckOptions {
                probe_id: string("probe_id"),
                iteration: unsigned("iteration"),
                ..CheckOptions::default()
            },
            OpKind::InterpreterProbe => CheckOptions {
                probe_id: string("probe_id"),
                ..CheckOptions::default()
            },
            _ => return None,
        };
        options.to_config()
    }
}

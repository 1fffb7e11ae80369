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
use weft_ir::{Comp, Opcode};

use super::{LowerResult, Lowering};
use crate::ir::{Attribute, Op};
use crate::ops::OpKind;

impl Lowering<'_> {
    pub(crate) fn lower_testing(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        let target = match kind {
            OpKind::CheckExpectEq | OpKind::CheckExpectEqConst => "check.expect_eq",
            OpKind::CheckExpectAlmostEq | OpKind::CheckExpectAlmostEqConst => {
                "check.expect_almost_eq"
            }
            OpKind::CheckExpectClose => "check.expect_close",
            OpKind::CheckExpectSerializedEq => "check.expect_serialized_eq",
            OpKind::InterpreterPrint => "interpreter.print",
            OpKind::InterpreterProbe => "interpreter.probe",
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
            let literal = super::ops::dense_literal(dense)
                .ok_or_else(|| self.error(op, "string constants have no HLO equivalent"))?;
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
        let config = match target {
            "check.expect_close" => r#"{"max_ulp_difference": 3, "min_ulp_difference": 0}"#,
            "check.expect_almost_eq" => r#"{"tolerance": 1e-3}"#,
            "check.eq" => r#"{"tolerance": 1e-4}"#,
            "check.expect_eq" => "{}",
            _ => return Ok(false),
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
            [result] if target == "check.eq" => {
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
        let config = (config != "{}").then(|| config.to_string());
        let instr = self.emit_side_effect_call(comp, &name, target, shape, operands, config);
        if !results.is_empty() {
            self.bind_results(comp, op, instr);
        }
        Ok(true)
    }

    /// The JSON options of a check op.
    fn check_config(&self, op: Op, kind: OpKind) -> Option<String> {
        let number = |name: &str| -> Option<String> {
            match self.body.attribute(op, name)? {
                Attribute::Float { value, .. } => Some(format!("{value:e}")),
                Attribute::Integer { value, .. } => Some(value.to_string()),
                _ => None,
            }
        };
        let string = |name: &str| -> Option<String> {
            let text = self.body.attribute(op, name)?.as_str()?;
            Some(format!(
                "\"{}\"",
                text.replace('\\', "\\\\").replace('"', "\\\"")
            ))
        };
        let fields: Vec<(&str, Option<String>)> = match kind {
            OpKind::CheckExpectAlmostEq | OpKind::CheckExpectAlmostEqConst => {
                vec![("tolerance", number("tolerance"))]
            }
            OpKind::CheckExpectClose => vec![
                ("max_ulp_difference", number("max_ulp_difference")),
                ("min_ulp_difference", number("min_ulp_difference")),
            ],
            OpKind::CheckExpectSerializedEq => vec![
                ("probe_id", string("probe_id")),
                ("iteration", number("iteration")),
            ],
            OpKind::InterpreterProbe => vec![("probe_id", string("probe_id"))],
            _ => return None,
        };
        let present: Vec<String> = fields
            .into_iter()
            .filter_map(|(key, value)| value.map(|v| format!("\"{key}\": {v}")))
            .collect();
        (!present.is_empty()).then(|| format!("{{{}}}", present.join(", ")))
    }
}

//! Comparing an instruction's declared shape with the one [`crate::infer`]
//! gives, and reporting a mismatch or an inference error in the verifier's
//! terms (rule, focus, hint).

use crate::infer::{InferError, InferFocus, InferredShape};
use crate::module::Instr;
use crate::shape::{Shape, ShapeData};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

impl Checker<'_> {
    /// Whether `shape` matches `expected` (layouts ignored unless
    /// layout-sensitive and `expected` is an existing shape).
    pub fn matches(&self, shape: Shape, expected: &InferredShape) -> bool {
        match expected {
            InferredShape::Existing(e) => self.same(shape, *e),
            InferredShape::Token => matches!(self.shape(shape), ShapeData::Token),
            InferredShape::Array {
                elem,
                dims,
                dynamic,
            } => self.array(shape).is_some_and(|a| {
                a.elem == *elem
                    && crate::shape_util::same_dims(&a.dims, dims)
                    && (0..a.rank())
                        .all(|d| a.is_dynamic(d) == dynamic.get(d).copied().unwrap_or(false))
            }),
            InferredShape::Retyped { base, elem } => {
                let (Some(a), Some(b)) = (self.array(shape), self.array(*base)) else {
                    return false;
                };
                a.elem == *elem
                    && crate::shape_util::same_dims(&a.dims, &b.dims)
                    && (0..a.rank()).all(|d| a.is_dynamic(d) == b.is_dynamic(d))
            }
            InferredShape::Tuple(elements) => self.tuple(shape).is_some_and(|actual| {
                actual.len() == elements.len()
                    && actual
                        .iter()
                        .zip(elements)
                        .all(|(&a, e)| self.matches(a, e))
            }),
        }
    }

    /// `expected` as HLO shape text (without layouts).
    pub fn expected_text(&self, expected: &InferredShape) -> String {
        let mut out = String::new();
        self.write_expected(&mut out, expected);
        out
    }

    fn write_expected(&self, out: &mut String, expected: &InferredShape) {
        match expected {
            InferredShape::Existing(s) => {
                crate::text::shape::print_shape_without_layout(&self.m.shapes, out, *s)
            }
            InferredShape::Token => out.push_str("token[]"),
            InferredShape::Retyped { .. } => {
                let (elem, dims, dynamic) = expected
                    .array_parts(&self.m.shapes)
                    .expect("a retyped shape is an array");
                self.write_expected(
                    out,
                    &InferredShape::Array {
                        elem,
                        dims,
                        dynamic,
                    },
                );
            }
            InferredShape::Array {
                elem,
                dims,
                dynamic,
            } => {
                out.push_str(elem.name());
                out.push('[');
                for (d, size) in dims.iter().enumerate() {
                    if d > 0 {
                        out.push(',');
                    }
                    if dynamic.get(d).copied().unwrap_or(false) {
                        out.push_str("<=");
                    }
                    out.push_str(&size.to_string());
                }
                out.push(']');
            }
            InferredShape::Tuple(elements) => {
                out.push('(');
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write_expected(out, e);
                }
                out.push(')');
            }
        }
    }

    /// Checks `instr`'s declared shape against the inferred one, reporting a
    /// mismatch under `rule` with the expected shape as the hint. Returns
    /// whether it matched.
    pub fn expect_shape(&mut self, rule: Rule, instr: Instr, expected: &InferredShape) -> bool {
        let declared = self.shape_of(instr);
        if self.matches(declared, expected) {
            return true;
        }
        let want = self.expected_text(expected);
        let mut have = String::new();
        crate::text::shape::print_shape_without_layout(&self.m.shapes, &mut have, declared);
        let opcode = self.data(instr).opcode;
        // XLA's wording (ShapeVerifier::CheckShape), so messages can be compared.
        self.report(
            rule,
            instr,
            format!("Expected instruction to have shape equal to {want}, actual shape is {have}"),
        )
        .with_hint(format!(
            "the operands and attributes of this {opcode} give {want}"
        ));
        false
    }

    /// Reports an inference error about `instr` under `rule`, with its hint
    /// and focus.
    pub fn report_inference(&mut self, rule: Rule, instr: Instr, error: InferError) {
        let reported = self.report(rule, instr, error.message);
        if let Some(hint) = error.hint {
            reported.with_hint(hint);
        }
        match error.focus {
            InferFocus::Instruction => {}
            InferFocus::Opcode => {
                reported.at_opcode();
            }
            InferFocus::Operand(index) => {
                reported.at_operand(index);
            }
            InferFocus::Attribute(name) => {
                reported.at_attribute(name);
            }
        }
    }
}

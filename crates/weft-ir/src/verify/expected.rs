//! Inferred result shapes, built by the shape rules without touching the
//! module's (immutable) shape table, and compared with the declared shape.

use crate::element_type::ElementType;
use crate::module::Instr;
use crate::shape::{Shape, ShapeData};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

/// A shape the rules expect an instruction to have.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expected {
    /// An array; `dynamic[d]` marks a bounded dynamic dimension (`<=N`).
    Array {
        elem: ElementType,
        dims: Vec<i64>,
        dynamic: Vec<bool>,
    },
    /// A tuple of expected shapes.
    Tuple(Vec<Expected>),
    /// Exactly an existing shape (compared with `Checker::same`).
    Existing(Shape),
    /// `token[]`.
    Token,
}

impl Expected {
    /// A static array.
    pub fn array(elem: ElementType, dims: Vec<i64>) -> Expected {
        let dynamic = vec![false; dims.len()];
        Expected::Array {
            elem,
            dims,
            dynamic,
        }
    }

    /// An array with per-dimension dynamic flags.
    pub fn dynamic_array(elem: ElementType, dims: Vec<i64>, dynamic: Vec<bool>) -> Expected {
        Expected::Array {
            elem,
            dims,
            dynamic,
        }
    }
}

impl Checker<'_> {
    /// Whether `shape` matches `expected` (layouts ignored unless
    /// layout-sensitive and `expected` is an existing shape).
    pub fn matches(&self, shape: Shape, expected: &Expected) -> bool {
        match expected {
            Expected::Existing(e) => self.same(shape, *e),
            Expected::Token => matches!(self.shape(shape), ShapeData::Token),
            Expected::Array {
                elem,
                dims,
                dynamic,
            } => self.array(shape).is_some_and(|a| {
                a.elem == *elem
                    && crate::shape_util::same_dims(&a.dims, dims)
                    && (0..a.rank())
                        .all(|d| a.is_dynamic(d) == dynamic.get(d).copied().unwrap_or(false))
            }),
            Expected::Tuple(elements) => self.tuple(shape).is_some_and(|actual| {
                actual.len() == elements.len()
                    && actual
                        .iter()
                        .zip(elements)
                        .all(|(&a, e)| self.matches(a, e))
            }),
        }
    }

    /// `expected` as HLO shape text (without layouts).
    pub fn expected_text(&self, expected: &Expected) -> String {
        let mut out = String::new();
        self.write_expected(&mut out, expected);
        out
    }

    fn write_expected(&self, out: &mut String, expected: &Expected) {
        match expected {
            Expected::Existing(s) => {
                crate::text::shape::print_shape_without_layout(&self.m.shapes, out, *s)
            }
            Expected::Token => out.push_str("token[]"),
            Expected::Array {
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
            Expected::Tuple(elements) => {
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
    pub fn expect_shape(&mut self, rule: Rule, instr: Instr, expected: &Expected) -> bool {
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
}

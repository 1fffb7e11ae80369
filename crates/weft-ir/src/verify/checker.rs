//! The state every verifier stage shares: the module, the options, and the
//! errors found so far, with helpers for reading shapes and reporting.

use crate::module::{Comp, Instr, InstrData, Module};
use crate::shape::{ArrayShape, Shape, ShapeData};
use crate::verify::VerifyOptions;
use crate::verify::error::{Focus, Rule, VerifyError};

/// Verifier state.
pub(crate) struct Checker<'m> {
    pub m: &'m Module,
    pub options: VerifyOptions,
    errors: Vec<VerifyError>,
}

impl<'m> Checker<'m> {
    pub fn new(m: &'m Module, options: VerifyOptions) -> Self {
        Checker {
            m,
            options,
            errors: Vec::new(),
        }
    }

    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    pub fn into_errors(self) -> Vec<VerifyError> {
        self.errors
    }

    /// Reports an error about `instr`; the returned error can be refined
    /// (hint, focus).
    pub fn report(
        &mut self,
        rule: Rule,
        instr: Instr,
        message: impl Into<String>,
    ) -> &mut VerifyError {
        self.push(VerifyError::at_instr(self.m, rule, instr, message))
    }

    /// Reports an error about computation `comp`.
    pub fn report_comp(
        &mut self,
        rule: Rule,
        comp: Comp,
        message: impl Into<String>,
    ) -> &mut VerifyError {
        self.push(VerifyError::at_comp(rule, comp, message))
    }

    /// Reports an error about the module.
    pub fn report_module(&mut self, rule: Rule, message: impl Into<String>) -> &mut VerifyError {
        self.push(VerifyError::at_module(rule, message))
    }

    fn push(&mut self, error: VerifyError) -> &mut VerifyError {
        self.errors.push(error);
        self.errors.last_mut().expect("just pushed")
    }

    // ----- reading the module -----

    /// The live computations, in module order.
    pub fn computations(&self) -> impl Iterator<Item = Comp> + 'm {
        self.m.comp_order.iter().copied()
    }

    /// The instructions of `comp`, in body order.
    pub fn body(&self, comp: Comp) -> &'m [Instr] {
        &self.m.comps[comp].body
    }

    pub fn data(&self, instr: Instr) -> &'m InstrData {
        &self.m.instrs[instr]
    }

    pub fn shape_of(&self, instr: Instr) -> Shape {
        self.m.instrs[instr].shape
    }

    pub fn shape(&self, shape: Shape) -> &'m ShapeData {
        self.m.shapes.get(shape)
    }

    /// The array data of `shape`, if it is an array.
    pub fn array(&self, shape: Shape) -> Option<&'m ArrayShape> {
        self.m.shapes.as_array(shape)
    }

    /// The array data of `instr`'s result, if it is an array.
    pub fn array_of(&self, instr: Instr) -> Option<&'m ArrayShape> {
        self.array(self.shape_of(instr))
    }

    /// The elements of a tuple shape.
    pub fn tuple(&self, shape: Shape) -> Option<&'m [Shape]> {
        self.m.shapes.tuple_elements(shape)
    }

    /// The shape of `comp`'s root.
    pub fn root_shape(&self, comp: Comp) -> Option<Shape> {
        self.m.comps[comp].root.map(|r| self.shape_of(r))
    }

    /// The shapes of `comp`'s parameters, in order.
    pub fn param_shapes(&self, comp: Comp) -> Vec<Shape> {
        self.m.comps[comp]
            .params
            .iter()
            .map(|&p| self.shape_of(p))
            .collect()
    }

    /// XLA's `ShapesSame`: equal when layout-sensitive, else compatible
    /// (same element types and dimensions, layouts ignored).
    pub fn same(&self, a: Shape, b: Shape) -> bool {
        if self.options.layout_sensitive {
            a == b || self.m.shapes.get(a) == self.m.shapes.get(b)
        } else {
            crate::shape_util::compatible(&self.m.shapes, a, b)
        }
    }

    /// `shape` as HLO text (`f32[2,3]{1,0}`), for messages.
    pub fn text(&self, shape: Shape) -> String {
        let mut out = String::new();
        crate::text::shape::print_shape(&self.m.shapes, &mut out, shape);
        out
    }

    /// `%name` of an instruction, for messages.
    pub fn name(&self, instr: Instr) -> String {
        format!("%{}", self.m.instrs[instr].name)
    }
}

impl VerifyError {
    /// Adds a hint.
    pub fn with_hint(&mut self, hint: impl Into<String>) -> &mut Self {
        self.hint = Some(hint.into());
        self
    }

    /// Points the error at attribute `name`.
    pub fn at_attribute(&mut self, name: &'static str) -> &mut Self {
        self.focus = Focus::Attribute(name);
        self
    }

    /// Points the error at operand `index`.
    pub fn at_operand(&mut self, index: usize) -> &mut Self {
        self.focus = Focus::Operand(index);
        self
    }

    /// Points the error at the opcode.
    pub fn at_opcode(&mut self) -> &mut Self {
        self.focus = Focus::Opcode;
        self
    }
}

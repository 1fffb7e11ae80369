//! The instruction builder the CHLO decompositions are written with: one
//! method per HLO elementwise instruction, each taking and giving
//! instructions, so a decomposition reads like the formula it implements.
//!
//! Invariants: every operand of one call has the same dimensions (the
//! decompositions are elementwise; broadcasting happened before); a result
//! has its first operand's shape, except `compare` and `is_finite` (`pred`),
//! `convert` and
//! `bitcast_convert` (the element type asked for); a constant is a scalar
//! broadcast to the dimensions of the value it is "like", as XLA's
//! `getConstantLike`, and is made once per value, type and dimensions.

use rustc_hash::FxHashMap;
use weft_ir::attrs::{Attrs, CompareType, Direction};
use weft_ir::literal::{ArrayLiteral, Literal};
use weft_ir::{Comp, ElementType, Instr, Opcode, Shape};

use crate::lower::Lowering;

/// Emits elementwise instructions into one computation under one name.
pub(crate) struct Arithmetic<'l, 'b> {
    lowering: &'l mut Lowering<'b>,
    comp: Comp,
    name: String,
    /// Constants made so far, by bit pattern, element type and shape.
    constants: FxHashMap<(u64, ElementType, Shape), Instr>,
}

impl<'l, 'b> Arithmetic<'l, 'b> {
    /// A builder emitting into `comp`, naming instructions after `name`.
    pub(crate) fn new(lowering: &'l mut Lowering<'b>, comp: Comp, name: &str) -> Self {
        Arithmetic {
            lowering,
            comp,
            name: name.to_string(),
            constants: FxHashMap::default(),
        }
    }

    /// The element type of `x`.
    pub(crate) fn element(&self, x: Instr) -> ElementType {
        let shape = self.lowering.module.shape_of(x);
        self.lowering
            .module
            .shapes
            .as_array(shape)
            .map_or(ElementType::F32, |array| array.elem)
    }

    /// The dimensions of `x`.
    pub(crate) fn dims(&self, x: Instr) -> Vec<i64> {
        let shape = self.lowering.module.shape_of(x);
        self.lowering
            .module
            .shapes
            .as_array(shape)
            .map(|array| array.dims.to_vec())
            .unwrap_or_default()
    }

    /// `x`'s dimensions with element type `element`.
    pub(crate) fn shape_with(&mut self, x: Instr, element: ElementType) -> Shape {
        let dims = self.dims(x);
        self.lowering
            .module
            .shapes
            .array_with_default_layout(element, &dims)
    }

    /// The array shape of `element` and `dims`, default layout.
    pub(crate) fn shape_of_dims(&mut self, element: ElementType, dims: &[i64]) -> Shape {
        self.lowering
            .module
            .shapes
            .array_with_default_layout(element, dims)
    }

    /// A scalar integer constant of `element`.
    pub(crate) fn scalar(&mut self, value: i128, element: ElementType) -> Instr {
        let shape = self.shape_of_dims(element, &[]);
        self.cached(value as u64, element, shape, |array| {
            array.set_int(0, value)
        })
    }

    /// Makes `callees` the computations `instr` calls (a reduce's reducer).
    pub(crate) fn set_callees(&mut self, instr: Instr, callees: weft_ir::Callees) {
        self.lowering.module.instrs[instr].callees = callees;
    }

    /// An instruction of `opcode` with `shape`.
    pub(crate) fn emit(
        &mut self,
        opcode: Opcode,
        shape: Shape,
        operands: Vec<Instr>,
        attrs: Attrs,
    ) -> Instr {
        self.lowering
            .emit(self.comp, &self.name, opcode, shape, operands, attrs)
    }

    /// `value` (rounded to `like`'s element type) in `like`'s shape; for an
    /// integer type `value` must be integral, for complex it is the real part.
    pub(crate) fn constant_like(&mut self, value: f64, like: Instr) -> Instr {
        let element = self.element(like);
        if element.is_integer() || element == ElementType::Pred {
            return self.integer_like(value as i128, like);
        }
        let shape = self.lowering.module.shape_of(like);
        self.cached(value.to_bits(), element, shape, |array| {
            if element.is_complex() {
                array.set_complex(0, value, 0.0);
            } else {
                array.set_float(0, value);
            }
        })
    }

    /// The integer `value` (truncated to the width) in `like`'s shape.
    pub(crate) fn integer_like(&mut self, value: i128, like: Instr) -> Instr {
        let element = self.element(like);
        let shape = self.lowering.module.shape_of(like);
        self.cached(value as u64, element, shape, |array| {
            array.set_int(0, value)
        })
    }

    /// The largest finite value of `like`'s (real) element type.
    pub(crate) fn max_finite_like(&mut self, like: Instr) -> Instr {
        let value = match self.element(like) {
            ElementType::F64 => f64::MAX,
            ElementType::F32 => f64::from(f32::MAX),
            ElementType::F16 => 65504.0,
            ElementType::Bf16 => f64::from(f32::from_bits(0x7f7f_0000)),
            other => {
                // A narrow float: the largest value below its infinity or NaN.
                let mut array = ArrayLiteral::zeros(other, &[]);
                array.set_float(0, f64::MAX);
                array.get_float(0)
            }
        };
        self.constant_like(value, like)
    }

    /// The smallest positive (subnormal) value of `like`'s element type.
    pub(crate) fn smallest_like(&mut self, like: Instr) -> Instr {
        let value = match self.element(like) {
            ElementType::F64 => f64::from_bits(1),
            ElementType::F32 => f64::from(f32::from_bits(1)),
            ElementType::F16 => 2f64.powi(-24),
            ElementType::Bf16 => f64::from(f32::from_bits(0x0001_0000)),
            _ => f64::MIN_POSITIVE,
        };
        self.constant_like(value, like)
    }

    fn cached(
        &mut self,
        key: u64,
        element: ElementType,
        shape: Shape,
        fill: impl FnOnce(&mut ArrayLiteral),
    ) -> Instr {
        if let Some(&instr) = self.constants.get(&(key, element, shape)) {
            return instr;
        }
        let mut array = ArrayLiteral::zeros(element, &[]);
        fill(&mut array);
        let scalar_shape = self
            .lowering
            .module
            .shapes
            .array_with_default_layout(element, &[]);
        let scalar = self.emit(
            Opcode::Constant,
            scalar_shape,
            Vec::new(),
            Attrs::Constant(Box::new(Literal::Array(array))),
        );
        let name = self.name.clone();
        let instr = self
            .lowering
            .broadcast_scalar(self.comp, scalar, shape, &name);
        self.constants.insert((key, element, shape), instr);
        instr
    }

    /// `opcode(x)`, shaped as `x`.
    pub(crate) fn unary(&mut self, opcode: Opcode, x: Instr) -> Instr {
        let shape = self.lowering.module.shape_of(x);
        self.emit(opcode, shape, vec![x], Attrs::plain())
    }

    /// `opcode(a, b)`, shaped as `a`.
    pub(crate) fn binary(&mut self, opcode: Opcode, a: Instr, b: Instr) -> Instr {
        let shape = self.lowering.module.shape_of(a);
        self.emit(opcode, shape, vec![a, b], Attrs::plain())
    }

    pub(crate) fn add(&mut self, a: Instr, b: Instr) -> Instr {
        self.binary(Opcode::Add, a, b)
    }

    pub(crate) fn subtract(&mut self, a: Instr, b: Instr) -> Instr {
        self.binary(Opcode::Subtract, a, b)
    }

    pub(crate) fn multiply(&mut self, a: Instr, b: Instr) -> Instr {
        self.binary(Opcode::Multiply, a, b)
    }

    pub(crate) fn divide(&mut self, a: Instr, b: Instr) -> Instr {
        self.binary(Opcode::Divide, a, b)
    }

    pub(crate) fn and(&mut self, a: Instr, b: Instr) -> Instr {
        self.binary(Opcode::And, a, b)
    }

    pub(crate) fn or(&mut self, a: Instr, b: Instr) -> Instr {
        self.binary(Opcode::Or, a, b)
    }

    pub(crate) fn negate(&mut self, x: Instr) -> Instr {
        self.unary(Opcode::Negate, x)
    }

    pub(crate) fn abs(&mut self, x: Instr) -> Instr {
        self.unary(Opcode::Abs, x)
    }

    pub(crate) fn floor(&mut self, x: Instr) -> Instr {
        self.unary(Opcode::Floor, x)
    }

    pub(crate) fn sqrt(&mut self, x: Instr) -> Instr {
        self.unary(Opcode::Sqrt, x)
    }

    pub(crate) fn exp(&mut self, x: Instr) -> Instr {
        self.unary(Opcode::Exponential, x)
    }

    pub(crate) fn log(&mut self, x: Instr) -> Instr {
        self.unary(Opcode::Log, x)
    }

    pub(crate) fn log_plus_one(&mut self, x: Instr) -> Instr {
        self.unary(Opcode::LogPlusOne, x)
    }

    /// `is-finite(x)`, a `pred`.
    pub(crate) fn is_finite(&mut self, x: Instr) -> Instr {
        let shape = self.shape_with(x, ElementType::Pred);
        self.emit(Opcode::IsFinite, shape, vec![x], Attrs::plain())
    }

    /// `compare(a, b)` in `direction`, with the comparison type HLO infers
    /// for the element type (what StableHLO's default comparison type means).
    pub(crate) fn compare(&mut self, direction: Direction, a: Instr, b: Instr) -> Instr {
        let element = self.element(a);
        let compare_type = match element {
            e if e.is_float() || e.is_complex() => Some(CompareType::Float),
            e if e.class() == weft_ir::element_type::ElementClass::Signed => {
                Some(CompareType::Signed)
            }
            _ => Some(CompareType::Unsigned),
        };
        let shape = self.shape_with(a, ElementType::Pred);
        self.emit(
            Opcode::Compare,
            shape,
            vec![a, b],
            Attrs::Compare {
                direction,
                compare_type,
            },
        )
    }

    /// `select(predicate, on_true, on_false)`.
    pub(crate) fn select(&mut self, predicate: Instr, on_true: Instr, on_false: Instr) -> Instr {
        let shape = self.lowering.module.shape_of(on_true);
        self.emit(
            Opcode::Select,
            shape,
            vec![predicate, on_true, on_false],
            Attrs::plain(),
        )
    }

    /// `convert(x)` to `element` (nothing when `x` already has it).
    pub(crate) fn convert(&mut self, x: Instr, element: ElementType) -> Instr {
        if self.element(x) == element {
            return x;
        }
        let shape = self.shape_with(x, element);
        self.emit(Opcode::Convert, shape, vec![x], Attrs::plain())
    }

    /// `bitcast-convert(x)` to `element` of the same width.
    pub(crate) fn bitcast_convert(&mut self, x: Instr, element: ElementType) -> Instr {
        let shape = self.shape_with(x, element);
        self.emit(Opcode::BitcastConvert, shape, vec![x], Attrs::plain())
    }

    /// `c[0] x^(n-1) + … + c[n-1]` by Horner's rule, multiplying first and
    /// adding the coefficient second, in XLA's order of operations.
    pub(crate) fn polynomial(&mut self, x: Instr, coefficients: &[f64]) -> Instr {
        let Some((&first, rest)) = coefficients.split_first() else {
            return self.constant_like(0.0, x);
        };
        let mut p = self.constant_like(first, x);
        for &c in rest {
            let scaled = self.multiply(p, x);
            let c = self.constant_like(c, x);
            p = self.add(scaled, c);
        }
        p
    }
}

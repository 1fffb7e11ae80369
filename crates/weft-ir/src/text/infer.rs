//! Result shapes the parser fills in when the text omits them (XLA's
//! `CanInferShape` set): elementwise ops, tuples, get-tuple-element, control flow,
//! and the data-movement ops whose result follows directly from their attributes.
//! Opcodes XLA always prints with a shape (collectives, async ops, …) are not
//! inferred.

use crate::attrs::Attrs;
use crate::diagnostic::Span;
use crate::element_type::ElementType;
use crate::module::{Comp, Instr};
use crate::opcode::{Flags, Opcode};
use crate::shape::{ArrayShape, Layout, Shape, ShapeData};
use crate::text::parser::{PResult, Parser};

impl Parser<'_> {
    pub(crate) fn infer_shape(
        &mut self,
        opcode: Opcode,
        operands: &[Instr],
        attrs: &Attrs,
        callees: &[Comp],
        span: Span,
    ) -> PResult<Shape> {
        let fail = |p: &Self, why: &str| {
            p.error_at(
                span,
                format!(
                    "failed to infer shape for opcode: {}, error: {why}",
                    opcode.name()
                ),
            )
            .with_hint("write the result shape before the opcode")
        };
        let operand_shapes: Vec<Shape> = operands.iter().map(|&o| self.operand_shape(o)).collect();
        let operand = |i: usize| operand_shapes.get(i).copied();
        use Opcode as O;
        let shape = match opcode {
            O::Tuple => self.m.shapes.tuple(&operand_shapes),
            O::OptimizationBarrier | O::AddDependency | O::Copy | O::Domain => {
                operand(0).ok_or_else(|| fail(self, "no operand"))?
            }
            O::AfterAll => self.m.shapes.token(),
            O::ReplicaId | O::PartitionId => self
                .m
                .shapes
                .array_with_default_layout(ElementType::U32, &[]),
            O::GetDimensionSize => self
                .m
                .shapes
                .array_with_default_layout(ElementType::S32, &[]),
            O::GetTupleElement => {
                let Attrs::GetTupleElement { index } = attrs else {
                    return Err(fail(self, "missing index"));
                };
                let tuple = operand(0).ok_or_else(|| fail(self, "no operand"))?;
                self.m
                    .shapes
                    .subshape(tuple, &[*index])
                    .ok_or_else(|| fail(self, "index out of range for the operand's tuple shape"))?
            }
            O::Call | O::Conditional => {
                let callee = callees
                    .first()
                    .ok_or_else(|| fail(self, "no computation"))?;
                self.m.comps[*callee]
                    .root
                    .map(|r| self.operand_shape(r))
                    .ok_or_else(|| fail(self, "the computation has no root"))?
            }
            O::While => operand(0).ok_or_else(|| fail(self, "no operand"))?,
            O::Compare | O::IsFinite => {
                let base = operand(0).ok_or_else(|| fail(self, "no operand"))?;
                self.with_element_type(base, ElementType::Pred)
                    .ok_or_else(|| fail(self, "operand is not an array"))?
            }
            O::Real | O::Imag | O::Abs
                if operand(0)
                    .and_then(|s| self.m.shapes.as_array(s))
                    .is_some_and(|a| a.elem.is_complex()) =>
            {
                let base = operand(0).ok_or_else(|| fail(self, "no operand"))?;
                let elem = match self.m.shapes.as_array(base).map(|a| a.elem) {
                    Some(ElementType::C128) => ElementType::F64,
                    _ => ElementType::F32,
                };
                self.with_element_type(base, elem)
                    .ok_or_else(|| fail(self, "operand is not an array"))?
            }
            O::Complex => {
                let base = operand(0).ok_or_else(|| fail(self, "no operand"))?;
                let elem = match self.m.shapes.as_array(base).map(|a| a.elem) {
                    Some(ElementType::F64) => ElementType::C128,
                    _ => ElementType::C64,
                };
                self.with_element_type(base, elem)
                    .ok_or_else(|| fail(self, "operand is not an array"))?
            }
            O::Select | O::Clamp => operand(1).ok_or_else(|| fail(self, "too few operands"))?,
            O::Map => {
                let base = operand(0).ok_or_else(|| fail(self, "no operand"))?;
                let root_elem = callees
                    .first()
                    .and_then(|&c| self.m.comps[c].root)
                    .and_then(|r| self.m.shapes.as_array(self.operand_shape(r)))
                    .map(|a| a.elem)
                    .ok_or_else(|| fail(self, "the computation has no array root"))?;
                self.with_element_type(base, root_elem)
                    .ok_or_else(|| fail(self, "operand is not an array"))?
            }
            O::Transpose => {
                let base = self
                    .operand_array(operand(0))
                    .ok_or_else(|| fail(self, "no array operand"))?;
                let perm = attrs.dimensions().unwrap_or(&[]);
                let dims: Option<Vec<i64>> = perm
                    .iter()
                    .map(|&p| base.dims.get(usize::try_from(p).ok()?).copied())
                    .collect();
                let dims = dims.ok_or_else(|| fail(self, "permutation out of range"))?;
                self.m.shapes.array_with_default_layout(base.elem, &dims)
            }
            O::Reverse => operand(0).ok_or_else(|| fail(self, "no operand"))?,
            O::Concatenate => {
                let base = self
                    .operand_array(operand(0))
                    .ok_or_else(|| fail(self, "no array operand"))?;
                let d = attrs
                    .dimensions()
                    .and_then(|d| d.first().copied())
                    .ok_or_else(|| fail(self, "no dimension"))? as usize;
                let mut dims = base.dims.to_vec();
                if d >= dims.len() {
                    return Err(fail(self, "dimension out of range"));
                }
                dims[d] = 0;
                for &o in operands {
                    let a = self
                        .operand_array(Some(self.operand_shape(o)))
                        .ok_or_else(|| fail(self, "operand is not an array"))?;
                    dims[d] += a.dims.get(d).copied().unwrap_or(0);
                }
                self.m.shapes.array_with_default_layout(base.elem, &dims)
            }
            O::Reduce => {
                let half = operands.len() / 2;
                let reduced = attrs.dimensions().unwrap_or(&[]).to_vec();
                let mut results = Vec::new();
                for i in 0..half {
                    let a = self
                        .operand_array(operand(i))
                        .ok_or_else(|| fail(self, "operand is not an array"))?;
                    let init = self
                        .operand_array(operand(half + i))
                        .ok_or_else(|| fail(self, "init is not an array"))?;
                    let dims: Vec<i64> = a
                        .dims
                        .iter()
                        .enumerate()
                        .filter(|(d, _)| !reduced.contains(&(*d as i64)))
                        .map(|(_, &s)| s)
                        .collect();
                    results.push(self.m.shapes.array_with_default_layout(init.elem, &dims));
                }
                if results.len() == 1 {
                    results[0]
                } else {
                    self.m.shapes.tuple(&results)
                }
            }
            O::Sort => {
                if operands.len() == 1 {
                    operand(0).ok_or_else(|| fail(self, "no operand"))?
                } else {
                    let elements: Vec<Shape> =
                        operands.iter().map(|&o| self.operand_shape(o)).collect();
                    self.m.shapes.tuple(&elements)
                }
            }
            O::Pad => {
                let base = self
                    .operand_array(operand(0))
                    .ok_or_else(|| fail(self, "no array operand"))?;
                let Attrs::Pad(config) = attrs else {
                    return Err(fail(self, "missing padding"));
                };
                if config.dims.len() != base.dims.len() {
                    return Err(fail(self, "padding rank differs from the operand's"));
                }
                // XLA's ShapeInference::InferPadShape.
                if let Some(dimension) = config.dims.iter().position(|p| p.interior < 0) {
                    let interior = config.dims[dimension].interior;
                    return Err(fail(
                        self,
                        &format!("Interior padding cannot be negative: {interior}"),
                    ));
                }
                let mut dims = Vec::with_capacity(base.dims.len());
                for (dimension, (&size, padding)) in base.dims.iter().zip(&config.dims).enumerate()
                {
                    if size == crate::shape::UNBOUNDED {
                        dims.push(size);
                        continue;
                    }
                    match padding.padded_size(size) {
                        Some(padded) if padded >= 0 => dims.push(padded),
                        _ => {
                            return Err(fail(
                                self,
                                &format!(
                                    "Padding result in negative size for dimension {dimension}"
                                ),
                            ));
                        }
                    }
                }
                // A dynamic dimension stays dynamic (its bound padded).
                self.m.shapes.intern(ShapeData::Array(ArrayShape {
                    elem: base.elem,
                    layout: Some(Box::new(Layout::default_for_rank(dims.len()))),
                    dims: dims.into(),
                    dynamic: base.dynamic,
                }))
            }
            O::Dot => {
                let lhs = self
                    .operand_array(operand(0))
                    .ok_or_else(|| fail(self, "no lhs"))?;
                let rhs = self
                    .operand_array(operand(1))
                    .ok_or_else(|| fail(self, "no rhs"))?;
                let Attrs::Dot(dot) = attrs else {
                    return Err(fail(self, "missing dimension numbers"));
                };
                let mut dims: Vec<i64> = Vec::new();
                for &b in &dot.lhs_batch {
                    dims.push(
                        *lhs.dims
                            .get(b as usize)
                            .ok_or_else(|| fail(self, "batch dim out of range"))?,
                    );
                }
                for (d, &s) in lhs.dims.iter().enumerate() {
                    let d = d as i64;
                    if !dot.lhs_batch.contains(&d) && !dot.lhs_contracting.contains(&d) {
                        dims.push(s);
                    }
                }
                for (d, &s) in rhs.dims.iter().enumerate() {
                    let d = d as i64;
                    if !dot.rhs_batch.contains(&d) && !dot.rhs_contracting.contains(&d) {
                        dims.push(s);
                    }
                }
                self.m.shapes.array_with_default_layout(lhs.elem, &dims)
            }
            O::Scan => {
                let Attrs::Scan(scan) = attrs else {
                    return Err(fail(self, "missing scan attributes"));
                };
                let carries = usize::try_from(scan.num_carries).unwrap_or(0);
                if operands.len() <= carries {
                    return Err(fail(self, "Cannot infer shape for scan with no inputs"));
                }
                let input = self
                    .operand_array(operand(0))
                    .ok_or_else(|| fail(self, "no array input"))?;
                let d = scan.dimension;
                if d < 0 || d as usize >= input.rank() {
                    return Err(fail(
                        self,
                        &format!(
                            "scan dimension {d} is out of range for operand of rank {}",
                            input.rank()
                        ),
                    ));
                }
                let length = input.dims[d as usize];
                let root = callees
                    .first()
                    .and_then(|&c| self.m.comps[c].root)
                    .map(|r| self.operand_shape(r))
                    .ok_or_else(|| fail(self, "the computation has no root"))?;
                let insert = |p: &mut Self, s: Shape| -> Option<Shape> {
                    let mut a = p.m.shapes.as_array(s)?.clone();
                    let mut dims = a.dims.to_vec();
                    dims.insert(d as usize, length);
                    a.dims = dims.into();
                    a.dynamic = Box::new([]);
                    a.layout = Some(Box::new(Layout::default_for_rank(a.dims.len())));
                    Some(p.m.shapes.intern(ShapeData::Array(a)))
                };
                match self.m.shapes.tuple_elements(root).map(|e| e.to_vec()) {
                    Some(elements) => {
                        let count = elements.len();
                        let mut out = Vec::with_capacity(count);
                        for (i, e) in elements.into_iter().enumerate() {
                            if i + carries < count {
                                out.push(
                                    insert(self, e)
                                        .ok_or_else(|| fail(self, "non-array output"))?,
                                );
                            } else {
                                out.push(e);
                            }
                        }
                        self.m.shapes.tuple(&out)
                    }
                    None if carries > 0 => root,
                    None => insert(self, root).ok_or_else(|| fail(self, "non-array output"))?,
                }
            }
            O::Broadcast => {
                return Err(fail(
                    self,
                    "the broadcast result shape cannot be derived from its operand",
                ));
            }
            _ if opcode.has(Flags::ELEMENTWISE) => {
                operand(0).ok_or_else(|| fail(self, "no operand"))?
            }
            _ => {
                return Err(self
                    .error_at(
                        span,
                        format!("cannot infer shape for opcode: {}", opcode.name()),
                    )
                    .with_hint(format!("write the result shape before '{}'", opcode.name())));
            }
        };
        Ok(shape)
    }

    fn operand_array(&self, shape: Option<Shape>) -> Option<ArrayShape> {
        self.m.shapes.as_array(shape?).cloned()
    }

    /// `shape` (an array) with element type `elem`, keeping dims and layout.
    fn with_element_type(&mut self, shape: Shape, elem: ElementType) -> Option<Shape> {
        let ShapeData::Array(mut array) = self.m.shapes.get(shape).clone() else {
            return None;
        };
        array.elem = elem;
        if array.layout.is_none() {
            array.layout = Some(Box::new(Layout::default_for_rank(array.rank())));
        }
        Some(self.m.shapes.intern(ShapeData::Array(array)))
    }
}

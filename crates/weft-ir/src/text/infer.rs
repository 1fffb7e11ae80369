//! Result shapes the parser fills in when the text omits them (XLA's
//! `CanInferShape` set): elementwise ops, tuples, get-tuple-element, control flow,
//! and the data-movement ops whose result follows directly from their attributes.
//! Opcodes XLA always prints with a shape (collectives, async ops, …) are not
//! inferred.
//!
//! Invariants, as in XLA's shape inference: a dimension is dynamic wherever the
//! operand dimension it comes from was (an unbounded one stays unbounded), and
//! sizes are computed with overflow checks, so an inferred shape always prints
//! as text that parses again.

use crate::attrs::Attrs;
use crate::diagnostic::Span;
use crate::element_type::ElementType;
use crate::module::{Comp, Instr};
use crate::opcode::{Flags, Opcode};
use crate::shape::{ArrayShape, Layout, Shape, ShapeData, UNBOUNDED};
use crate::text::parser::{PResult, Parser};

/// One dimension of an inferred shape: its size (or bound, or [`UNBOUNDED`])
/// and whether it is dynamic.
type Dim = (i64, bool);

/// Dimension `d` of `array`, with its dynamic flag.
fn dim(array: &ArrayShape, d: usize) -> Dim {
    (array.dims[d], array.is_dynamic(d))
}

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
                let dims: Option<Vec<Dim>> = perm
                    .iter()
                    .map(|&p| {
                        let p = usize::try_from(p).ok()?;
                        (p < base.rank()).then(|| dim(&base, p))
                    })
                    .collect();
                let dims = dims.ok_or_else(|| fail(self, "permutation out of range"))?;
                self.inferred_array(base.elem, &dims)
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
                if d >= base.rank() {
                    return Err(fail(self, "dimension out of range"));
                }
                let mut dims: Vec<Dim> = (0..base.rank()).map(|k| dim(&base, k)).collect();
                // The sizes add up along `d`; one unbounded operand makes the
                // result unbounded, one dynamic operand makes it dynamic.
                let mut joined = (0i64, false);
                for &o in operands {
                    let a = self
                        .operand_array(Some(self.operand_shape(o)))
                        .ok_or_else(|| fail(self, "operand is not an array"))?;
                    let (size, dynamic) = if d < a.rank() { dim(&a, d) } else { (0, false) };
                    joined.1 |= dynamic;
                    joined.0 = if size == UNBOUNDED || joined.0 == UNBOUNDED {
                        UNBOUNDED
                    } else {
                        joined.0.checked_add(size).ok_or_else(|| {
                            fail(self, &format!("the size of dimension {d} overflows"))
                        })?
                    };
                }
                dims[d] = joined;
                self.inferred_array(base.elem, &dims)
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
                    let dims: Vec<Dim> = (0..a.rank())
                        .filter(|&d| !reduced.contains(&(d as i64)))
                        .map(|d| dim(&a, d))
                        .collect();
                    results.push(self.inferred_array(init.elem, &dims));
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
                for (dimension, padding) in config.dims.iter().enumerate() {
                    let (size, dynamic) = dim(&base, dimension);
                    if size == UNBOUNDED {
                        dims.push((size, dynamic));
                        continue;
                    }
                    match padding.padded_size(size) {
                        Some(padded) if padded >= 0 => dims.push((padded, dynamic)),
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
                self.inferred_array(base.elem, &dims)
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
                let mut dims: Vec<Dim> = Vec::new();
                for &b in &dot.lhs_batch {
                    let b = usize::try_from(b)
                        .ok()
                        .filter(|&b| b < lhs.rank())
                        .ok_or_else(|| fail(self, "batch dim out of range"))?;
                    dims.push(dim(&lhs, b));
                }
                for d in 0..lhs.rank() {
                    let named = d as i64;
                    if !dot.lhs_batch.contains(&named) && !dot.lhs_contracting.contains(&named) {
                        dims.push(dim(&lhs, d));
                    }
                }
                for d in 0..rhs.rank() {
                    let named = d as i64;
                    if !dot.rhs_batch.contains(&named) && !dot.rhs_contracting.contains(&named) {
                        dims.push(dim(&rhs, d));
                    }
                }
                self.inferred_array(lhs.elem, &dims)
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
                let length = dim(&input, d as usize);
                let root = callees
                    .first()
                    .and_then(|&c| self.m.comps[c].root)
                    .map(|r| self.operand_shape(r))
                    .ok_or_else(|| fail(self, "the computation has no root"))?;
                let insert = |p: &mut Self, s: Shape| -> Option<Shape> {
                    let a = p.m.shapes.as_array(s)?.clone();
                    let mut dims: Vec<Dim> = (0..a.rank()).map(|k| dim(&a, k)).collect();
                    dims.insert((d as usize).min(dims.len()), length);
                    Some(p.inferred_array(a.elem, &dims))
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

    /// An inferred array shape with the default layout, dynamic wherever a
    /// dimension it came from was (as XLA's shape inference keeps them).
    fn inferred_array(&mut self, elem: ElementType, dims: &[Dim]) -> Shape {
        let dynamic: Box<[bool]> = if dims.iter().any(|&(_, dynamic)| dynamic) {
            dims.iter().map(|&(_, dynamic)| dynamic).collect()
        } else {
            Box::new([])
        };
        self.m.shapes.intern(ShapeData::Array(ArrayShape {
            elem,
            dims: dims.iter().map(|&(size, _)| size).collect(),
            dynamic,
            layout: Some(Box::new(Layout::default_for_rank(dims.len()))),
        }))
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

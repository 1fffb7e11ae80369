//! [`InferredShape`]: the shape inference gives an instruction, described
//! without touching a [`ShapeTable`], so that a reader holding the table
//! immutably (the verifier) can compare it, and a writer (the parser, a pass)
//! can intern it.

use crate::element_type::ElementType;
use crate::shape::{ArrayShape, Layout, Shape, ShapeData, ShapeTable};

/// The result shape inference gives: a description, not yet interned.
///
/// Invariant: whenever the result equals an operand's (or a callee's) shape,
/// inference says so with [`InferredShape::Existing`] instead of rebuilding
/// it, so interning the common case creates nothing and keeps that shape's
/// layout.
#[derive(Clone, Debug, PartialEq)]
pub enum InferredShape {
    /// An array with the default layout; `dynamic[d]` marks a dynamic
    /// dimension (`<=N`, or `<=?` when unbounded).
    Array {
        /// The element type.
        elem: ElementType,
        /// The size (or bound) of each dimension.
        dims: Vec<i64>,
        /// Per dimension, whether it is dynamic (missing entries are static).
        dynamic: Vec<bool>,
    },
    /// The array `base` with element type `elem`: dimensions, dynamic flags
    /// and layout kept, as XLA's `ShapeUtil::ChangeElementType` keeps them.
    Retyped {
        /// An array shape.
        base: Shape,
        /// The new element type.
        elem: ElementType,
    },
    /// Exactly an existing shape, layout included.
    Existing(Shape),
    /// A tuple of inferred shapes.
    Tuple(Vec<InferredShape>),
    /// `token[]`.
    Token,
}

impl InferredShape {
    /// A static array.
    pub fn array(elem: ElementType, dims: Vec<i64>) -> InferredShape {
        let dynamic = vec![false; dims.len()];
        InferredShape::Array {
            elem,
            dims,
            dynamic,
        }
    }

    /// An array with per-dimension dynamic flags.
    pub fn dynamic_array(elem: ElementType, dims: Vec<i64>, dynamic: Vec<bool>) -> InferredShape {
        InferredShape::Array {
            elem,
            dims,
            dynamic,
        }
    }

    /// `array`'s dimensions and dynamic flags with element type `elem`, as a
    /// fresh array (default layout).
    pub fn like(array: &ArrayShape, elem: ElementType) -> InferredShape {
        InferredShape::Array {
            elem,
            dims: array.dims.to_vec(),
            dynamic: (0..array.rank()).map(|d| array.is_dynamic(d)).collect(),
        }
    }

    /// One shape as itself, several as a tuple (the result of a collective
    /// over one or several operands).
    pub fn one_or_tuple(mut shapes: Vec<InferredShape>) -> InferredShape {
        if shapes.len() == 1 {
            shapes.remove(0)
        } else {
            InferredShape::Tuple(shapes)
        }
    }

    /// The tuple of `shapes`, each as itself.
    pub fn tuple_of(shapes: &[Shape]) -> InferredShape {
        InferredShape::Tuple(shapes.iter().map(|&s| InferredShape::Existing(s)).collect())
    }

    /// The element type, dimensions and dynamic flags of an array result;
    /// `None` for tuples, tokens and non-array existing shapes.
    pub fn array_parts(&self, shapes: &ShapeTable) -> Option<(ElementType, Vec<i64>, Vec<bool>)> {
        let flags = |a: &ArrayShape| (0..a.rank()).map(|d| a.is_dynamic(d)).collect();
        match self {
            InferredShape::Array {
                elem,
                dims,
                dynamic,
            } => Some((*elem, dims.clone(), dynamic.clone())),
            InferredShape::Retyped { base, elem } => {
                let a = shapes.as_array(*base)?;
                Some((*elem, a.dims.to_vec(), flags(a)))
            }
            InferredShape::Existing(s) => {
                let a = shapes.as_array(*s)?;
                Some((a.elem, a.dims.to_vec(), flags(a)))
            }
            InferredShape::Tuple(_) | InferredShape::Token => None,
        }
    }

    /// Interns the description into `shapes` and returns its handle. Arrays
    /// built by inference get the default layout; a dimension is dynamic
    /// exactly where the description says.
    pub fn intern(&self, shapes: &mut ShapeTable) -> Shape {
        match self {
            InferredShape::Existing(s) => *s,
            InferredShape::Token => shapes.token(),
            InferredShape::Array {
                elem,
                dims,
                dynamic,
            } => {
                // The table stores "no dynamic dimension" as an empty list, so
                // equal shapes intern to one handle.
                let dynamic: Box<[bool]> = if dynamic.iter().any(|&d| d) {
                    (0..dims.len())
                        .map(|d| dynamic.get(d).copied().unwrap_or(false))
                        .collect()
                } else {
                    Box::new([])
                };
                shapes.intern(ShapeData::Array(ArrayShape {
                    elem: *elem,
                    dims: dims.as_slice().into(),
                    dynamic,
                    layout: Some(Box::new(Layout::default_for_rank(dims.len()))),
                }))
            }
            InferredShape::Retyped { base, elem } => {
                let ShapeData::Array(mut array) = shapes.get(*base).clone() else {
                    // Inference makes a retyped shape only of an array.
                    return *base;
                };
                if array.elem == *elem && array.layout.is_some() {
                    return *base;
                }
                array.elem = *elem;
                if array.layout.is_none() {
                    array.layout = Some(Box::new(Layout::default_for_rank(array.rank())));
                }
                shapes.intern(ShapeData::Array(array))
            }
            InferredShape::Tuple(elements) => {
                let elements: Vec<Shape> = elements.iter().map(|e| e.intern(shapes)).collect();
                shapes.tuple(&elements)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_a_static_array_gives_the_default_layout_handle() {
        let mut shapes = ShapeTable::new();
        let expected = shapes.array_with_default_layout(ElementType::F32, &[2, 3]);
        let inferred = InferredShape::array(ElementType::F32, vec![2, 3]);
        assert_eq!(inferred.intern(&mut shapes), expected);
    }

    #[test]
    fn a_retyped_array_keeps_its_layout_and_dynamic_flags() {
        let mut shapes = ShapeTable::new();
        let base = shapes.intern(ShapeData::Array(ArrayShape {
            elem: ElementType::F32,
            dims: Box::new([4, 5]),
            dynamic: Box::new([true, false]),
            layout: Some(Box::new(Layout {
                minor_to_major: vec![0, 1],
                ..Layout::default_for_rank(2)
            })),
        }));
        let retyped = InferredShape::Retyped {
            base,
            elem: ElementType::Pred,
        }
        .intern(&mut shapes);
        let array = shapes.as_array(retyped).unwrap();
        assert_eq!(array.elem, ElementType::Pred);
        assert_eq!(&*array.dynamic, &[true, false]);
        assert_eq!(array.layout, shapes.as_array(base).unwrap().layout);
    }
}

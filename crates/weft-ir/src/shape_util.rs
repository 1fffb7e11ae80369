//! Shape relations used across the crate: compatibility (equal ignoring layouts),
//! XLA's prefix relation for late-bound async shapes, and leaf counts.

use crate::shape::{Shape, ShapeData, ShapeTable};

/// Whether `a` and `b` are the same shape ignoring layouts (XLA's
/// `ShapeUtil::Compatible`): same element types and dimensions (dynamic flags
/// included), tuples elementwise.
pub fn compatible(shapes: &ShapeTable, a: Shape, b: Shape) -> bool {
    if a == b {
        return true;
    }
    match (shapes.get(a), shapes.get(b)) {
        (ShapeData::Array(x), ShapeData::Array(y)) => {
            x.elem == y.elem
                && same_dims(&x.dims, &y.dims)
                && (0..x.rank()).all(|d| x.is_dynamic(d) == y.is_dynamic(d))
        }
        (ShapeData::Tuple(x), ShapeData::Tuple(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(&p, &q)| compatible(shapes, p, q))
        }
        (ShapeData::Buffer(x), ShapeData::Buffer(y)) => compatible(shapes, *x, *y),
        (ShapeData::Token, ShapeData::Token) | (ShapeData::Opaque, ShapeData::Opaque) => true,
        _ => false,
    }
}

/// Whether two dimension lists are equal, compared element by element: `==`
/// calls `memcmp`, which on some machines (glibc's AVX-512 `memcmp` on AMD
/// processors) takes a slow path for the empty list of a scalar, whose
/// pointer is not a readable address.
pub(crate) fn same_dims(a: &[i64], b: &[i64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// XLA's `ShapeUtil::IsPrefix`: `prefix` equals `shape`; or is the empty tuple
/// (a prefix of anything); or is a tuple with no more elements than `shape`
/// whose elements are prefixes of `shape`'s, element by element.
pub fn is_prefix(shapes: &ShapeTable, prefix: Shape, shape: Shape, layout_sensitive: bool) -> bool {
    if prefix == shape {
        return true;
    }
    match (shapes.get(prefix), shapes.get(shape)) {
        (ShapeData::Tuple(p), _) if p.is_empty() => true,
        (ShapeData::Tuple(p), ShapeData::Tuple(s)) => {
            p.len() <= s.len()
                && p.iter()
                    .zip(s.iter())
                    .all(|(&a, &b)| is_prefix(shapes, a, b, layout_sensitive))
        }
        _ => !layout_sensitive && compatible(shapes, prefix, shape),
    }
}

/// The number of array leaves of `shape` (tuples flattened).
pub fn leaf_count(shapes: &ShapeTable, shape: Shape) -> usize {
    match shapes.get(shape) {
        ShapeData::Tuple(elements) => elements.iter().map(|&e| leaf_count(shapes, e)).sum(),
        _ => 1,
    }
}

//! Sizes never wrap: element counts and byte sizes of arrays as checked
//! arithmetic, and XLA's rule for which array shapes are valid.
//!
//! XLA's `ShapeUtil::ValidateShape` accepts an array shape when every
//! dimension is non-negative (or unbounded dynamic, `?`) and the product of
//! the sized dimensions (a bounded dynamic dimension counts at its bound)
//! times the element's byte width fits in `int64`; everything downstream
//! may then compute sizes and offsets in `int64` without overflowing.
//! [`validate`] is that rule: both parsers apply it to every shape they
//! read and the verifier to every instruction, so a module that parsed or
//! verified has no shape whose size wraps.
//!
//! Sizes that must exist as memory — an input, a constant, a value — go
//! through [`element_count`] and [`byte_size`], which also refuse unbounded
//! dimensions: an unbounded dimension has no size, and its stored sentinel
//! ([`UNBOUNDED`]) must never be read as one.
//!
//! Invariant: a [`Size`] is at most `i64::MAX`, so it converts losslessly to
//! `i64` and to `usize` (weft needs a 64-bit target), and a sum of two sizes
//! cannot wrap `u64`.

use crate::element_type::ElementType;
use crate::literal::storage_bytes;
use crate::shape::UNBOUNDED;

// Sizes below `i64::MAX` are used as `usize` lengths and indices.
const _: () = assert!(usize::BITS >= 64, "weft needs a 64-bit target");

/// An element count or a byte size, at most `i64::MAX` (XLA's bound on any
/// array's size).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Size(u64);

impl Size {
    /// Nothing.
    pub const ZERO: Size = Size(0);
    /// The largest size: `i64::MAX`.
    pub const MAX: Size = Size(i64::MAX as u64);

    /// `n`, if it is at most [`Size::MAX`].
    pub fn new(n: u64) -> Option<Size> {
        (n <= Size::MAX.0).then_some(Size(n))
    }

    /// `n`, if it is non-negative.
    pub fn from_i64(n: i64) -> Option<Size> {
        u64::try_from(n).ok().map(Size)
    }

    /// The size as `u64`.
    pub fn get(self) -> u64 {
        self.0
    }

    /// The size as `i64` (lossless by the invariant).
    pub fn as_i64(self) -> i64 {
        self.0 as i64
    }

    /// The size as `usize` (lossless by the invariant on a 64-bit target).
    pub fn as_usize(self) -> usize {
        self.0 as usize
    }

    /// `self × n`, if it is at most [`Size::MAX`].
    pub fn checked_mul(self, n: u64) -> Option<Size> {
        self.0.checked_mul(n).and_then(Size::new)
    }

    /// `self + other`, if it is at most [`Size::MAX`].
    pub fn checked_add(self, other: Size) -> Option<Size> {
        Size::new(self.0 + other.0)
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// What is wrong with a shape's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeProblem {
    /// A dimension below zero (other than the unbounded sentinel).
    NegativeDimension {
        /// The dimension's index.
        index: usize,
        /// Its size.
        size: i64,
    },
    /// An unbounded dynamic dimension where a size is needed.
    Unbounded {
        /// The dimension's index.
        index: usize,
    },
    /// The element count or the byte size exceeds `i64::MAX`.
    Overflow,
}

/// A shape whose size cannot be had, naming the shape as HLO text writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeError {
    /// The shape, `f32[4294967296,4294967296]`.
    pub shape: String,
    /// What is wrong with it.
    pub problem: SizeProblem,
}

impl std::fmt::Display for SizeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shape = &self.shape;
        match self.problem {
            SizeProblem::NegativeDimension { index, size } => {
                write!(
                    f,
                    "shape {shape} has a negative dimension ({size} at index {index})"
                )
            }
            SizeProblem::Unbounded { index } => write!(
                f,
                "shape {shape} has an unbounded dynamic dimension (index {index}), which has no size"
            ),
            SizeProblem::Overflow => write!(
                f,
                "shape {shape} is too large: its size in bytes overflows int64"
            ),
        }
    }
}

impl std::error::Error for SizeError {}

/// `elem[dims]` as HLO text writes it, `?` for an unbounded dimension (the
/// dynamic flags of bounded ones are not known here).
pub fn shape_text(elem: ElementType, dims: &[i64]) -> String {
    let dims: Vec<String> = dims
        .iter()
        .map(|&d| match d {
            UNBOUNDED => "?".to_string(),
            d => d.to_string(),
        })
        .collect();
    format!("{}[{}]", elem.name(), dims.join(","))
}

/// The bytes one element of `elem` takes in memory: XLA's byte width (a
/// sub-byte type takes a byte), as weft stores arrays.
pub fn element_bytes(elem: ElementType) -> u64 {
    storage_bytes(elem) as u64
}

/// The number of elements of an array of `dims`; an unbounded dimension is
/// skipped when `skip_unbounded` (XLA's rule for validity), else a problem.
fn count_of(dims: &[i64], skip_unbounded: bool) -> Result<Size, SizeProblem> {
    let mut count = Size(1);
    let mut overflow = false;
    for (index, &size) in dims.iter().enumerate() {
        let size = match size {
            UNBOUNDED if skip_unbounded => continue,
            UNBOUNDED => return Err(SizeProblem::Unbounded { index }),
            size if size < 0 => return Err(SizeProblem::NegativeDimension { index, size }),
            size => size as u64,
        };
        // A later zero does not rescue an overflow: XLA checks the running
        // product, and so does every loop that walks the dimensions.
        match count.checked_mul(size) {
            Some(next) => count = next,
            None => overflow = true,
        }
    }
    if overflow {
        Err(SizeProblem::Overflow)
    } else {
        Ok(count)
    }
}

/// The number of elements of an `elem[dims]` array.
pub fn element_count(elem: ElementType, dims: &[i64]) -> Result<Size, SizeError> {
    checked_count(elem, dims, false)
}

fn checked_count(elem: ElementType, dims: &[i64], skip_unbounded: bool) -> Result<Size, SizeError> {
    let count = count_of(dims, skip_unbounded).map_err(|problem| SizeError {
        shape: shape_text(elem, dims),
        problem,
    })?;
    // The count of a valid shape also has a byte size that fits.
    count
        .checked_mul(element_bytes(elem).max(1))
        .map(|_| count)
        .ok_or_else(|| SizeError {
            shape: shape_text(elem, dims),
            problem: SizeProblem::Overflow,
        })
}

/// The bytes an `elem[dims]` array takes, [`element_bytes`] per element.
pub fn byte_size(elem: ElementType, dims: &[i64]) -> Result<Size, SizeError> {
    let count = element_count(elem, dims)?;
    Ok(count
        .checked_mul(element_bytes(elem))
        .expect("element_count checked the byte size"))
}

/// XLA's `ValidateShape` for an array: dimensions non-negative or
/// unbounded, and the size in bytes of the sized dimensions (bounds
/// included) fits in `i64`. Unlike [`byte_size`], an unbounded dimension is
/// allowed: it is skipped, as XLA skips it.
pub fn validate(elem: ElementType, dims: &[i64]) -> Result<(), SizeError> {
    checked_count(elem, dims, true).map(|_| ())
}

/// The product of `values` (an attribute's list of sizes: an iota's
/// dimensions, a tile assignment), if none is negative and it fits in
/// [`Size`].
pub fn product(values: &[i64]) -> Option<Size> {
    values
        .iter()
        .try_fold(Size(1), |acc, &v| acc.checked_mul(u64::try_from(v).ok()?))
}

/// The number of elements of a slice dimension `[start:limit:stride]`,
/// `ceil((limit - start) / stride)`, without the overflow of adding
/// `stride - 1` first; `None` when `stride` is not positive. An empty or
/// reversed range has no elements.
pub fn slice_count(start: i64, limit: i64, stride: i64) -> Option<i64> {
    if stride <= 0 {
        return None;
    }
    let span = i128::from(limit) - i128::from(start);
    if span <= 0 {
        return Some(0);
    }
    let stride = i128::from(stride);
    // span < 2^64 and stride ≥ 1, so the quotient fits in i64 unless span
    // does not: that needs start < 0, which no valid slice has.
    i64::try_from(span / stride + i128::from(span % stride != 0)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ElementType::{F32, Pred, S4, Token};

    #[test]
    fn counts_and_bytes_of_ordinary_shapes() {
        assert_eq!(element_count(F32, &[2, 3]).unwrap().get(), 6);
        assert_eq!(byte_size(F32, &[2, 3]).unwrap().get(), 24);
        assert_eq!(byte_size(F32, &[]).unwrap().get(), 4);
        assert_eq!(byte_size(F32, &[0, 1 << 40]).unwrap().get(), 0);
        // Sub-byte types and pred take a byte each, as XLA's byte width says.
        assert_eq!(byte_size(S4, &[3]).unwrap().get(), 3);
        assert_eq!(byte_size(Pred, &[3]).unwrap().get(), 3);
        assert_eq!(byte_size(Token, &[]).unwrap().get(), 0);
    }

    #[test]
    fn a_size_past_int64_is_an_error_naming_the_shape() {
        // 2^62 elements of 4 bytes wrap u64 to 0; 2^32 × 2^32 wraps the count.
        for dims in [&[1i64 << 62][..], &[1 << 32, 1 << 32], &[i64::MAX, 2]] {
            let error = byte_size(F32, dims).unwrap_err();
            assert_eq!(error.problem, SizeProblem::Overflow, "{dims:?}");
            assert!(error.to_string().contains("overflows int64"), "{error}");
        }
        assert_eq!(
            byte_size(F32, &[1 << 32, 1 << 32]).unwrap_err().to_string(),
            "shape f32[4294967296,4294967296] is too large: its size in bytes overflows int64"
        );
        // The largest byte size that fits.
        assert!(byte_size(ElementType::U8, &[i64::MAX]).is_ok());
        assert!(byte_size(ElementType::S16, &[i64::MAX / 2]).is_ok());
        assert!(byte_size(ElementType::S16, &[i64::MAX / 2 + 1]).is_err());
        // An overflow followed by a zero is still an overflow (XLA's rule).
        assert!(validate(F32, &[1 << 62, 1 << 62, 0]).is_err());
    }

    #[test]
    fn unbounded_dimensions_are_valid_but_have_no_size() {
        assert!(validate(F32, &[UNBOUNDED, 3]).is_ok());
        assert!(validate(F32, &[UNBOUNDED, 1 << 62]).is_err());
        let error = element_count(F32, &[UNBOUNDED, 3]).unwrap_err();
        assert_eq!(error.problem, SizeProblem::Unbounded { index: 0 });
        assert_eq!(error.shape, "f32[?,3]");
    }

    #[test]
    fn negative_dimensions_are_errors() {
        let error = validate(F32, &[2, -1]).unwrap_err();
        assert_eq!(
            error.problem,
            SizeProblem::NegativeDimension { index: 1, size: -1 }
        );
        assert!(element_count(F32, &[-5]).is_err());
    }

    #[test]
    fn products_of_attribute_lists() {
        assert_eq!(
            product(&[100_000, 100_000]).map(Size::get),
            Some(10_000_000_000)
        );
        assert_eq!(product(&[]).map(Size::get), Some(1));
        assert_eq!(product(&[1 << 32, 1 << 32]), None);
        assert_eq!(product(&[-1, 2]), None);
    }

    #[test]
    fn slice_counts_do_not_wrap() {
        assert_eq!(slice_count(0, 3, i64::MAX), Some(1));
        assert_eq!(slice_count(0, 3, 2), Some(2));
        assert_eq!(slice_count(1, 1, 5), Some(0));
        assert_eq!(slice_count(3, 1, 1), Some(0));
        assert_eq!(slice_count(0, i64::MAX, 1), Some(i64::MAX));
        assert_eq!(slice_count(0, 3, 0), None);
    }

    #[test]
    fn sizes_stay_below_int64() {
        assert_eq!(Size::new(i64::MAX as u64), Some(Size::MAX));
        assert_eq!(Size::new(i64::MAX as u64 + 1), None);
        assert_eq!(Size::MAX.checked_add(Size(1)), None);
        assert_eq!(Size(3).checked_mul(4), Some(Size(12)));
        assert_eq!(Size::from_i64(-1), None);
    }
}

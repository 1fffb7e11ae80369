//! `get-dimension-size` and `set-dimension-size`, as XLA's evaluator runs them
//! on static dimensions.
//!
//! Invariant: a tensor at run time always has its full size — a dimension HLO
//! marks dynamic (`<=N`) holds all `N` elements. So `get-dimension-size`
//! reads the tensor's own size, and `set-dimension-size` runs only when it
//! sets a dimension to that size (an identity); setting a smaller size would
//! need run-time sizes, which weft does not track, and is refused by name.

use weft_ir::ElementType;

use crate::numbers::{Numbers, encode};
use crate::tensor::Tensor;

/// The size of `dimension` of `input`, as an `s32` scalar.
pub(crate) fn get_dimension_size(input: &Tensor, dimension: i64) -> Result<Tensor, String> {
    let size = dimension_of(input, dimension)?;
    Ok(encode(ElementType::S32, &[], &Numbers::Signed(vec![size])))
}

/// `input` with `dimension` set to `size`: `input` itself when `size` is the
/// dimension's size.
pub(crate) fn set_dimension_size(
    input: &Tensor,
    size: i64,
    dimension: i64,
) -> Result<Tensor, String> {
    let bound = dimension_of(input, dimension)?;
    if size != bound {
        return Err(format!(
            "set-dimension-size sets dimension {dimension} of size {bound} to {size}; \
             the evaluator runs every dimension at its full size"
        ));
    }
    Ok(input.clone())
}

fn dimension_of(input: &Tensor, dimension: i64) -> Result<i64, String> {
    usize::try_from(dimension)
        .ok()
        .and_then(|d| input.dims.get(d).copied())
        .ok_or_else(|| {
            format!(
                "dimension {dimension} is out of range for an operand of rank {}",
                input.dims.len()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::decode;

    fn zeros(dims: &[i64]) -> Tensor {
        let count = dims.iter().product::<i64>() as usize;
        encode(ElementType::F32, dims, &Numbers::Float(vec![0.0; count]))
    }

    #[test]
    fn reads_the_size_of_a_dimension() {
        let size = get_dimension_size(&zeros(&[2, 3]), 1).unwrap();
        assert_eq!(size.elem, ElementType::S32);
        assert!(size.dims.is_empty());
        assert!(matches!(decode(&size), Numbers::Signed(v) if v == [3]));
    }

    #[test]
    fn setting_the_full_size_is_the_identity() {
        let input = zeros(&[4, 2]);
        let output = set_dimension_size(&input, 2, 1).unwrap();
        assert_eq!(output.dims, [4, 2]);
    }

    #[test]
    fn a_smaller_size_and_a_missing_dimension_are_refused() {
        let input = zeros(&[4, 2]);
        let smaller = set_dimension_size(&input, 1, 1).unwrap_err();
        assert!(
            smaller.contains("sets dimension 1 of size 2 to 1"),
            "{smaller}"
        );
        let missing = get_dimension_size(&input, 2).unwrap_err();
        assert!(missing.contains("out of range"), "{missing}");
    }
}

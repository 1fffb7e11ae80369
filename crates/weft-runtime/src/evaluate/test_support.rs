//! Helpers of the structured ops' unit tests: running HLO text and reading
//! the arrays of its result.

use weft_ir::ElementType;

use crate::numbers::{Numbers, decode, encode};
use crate::tensor::{Tensor, Value};

/// Parses and runs `text` on `arguments`.
pub(super) fn run(text: &str, arguments: Vec<Value>) -> Value {
    let module = weft_ir::text::parse(text).unwrap_or_else(|e| panic!("{e:?}"));
    crate::evaluate(&module, arguments).unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn tensor(value: &Value) -> &Tensor {
    value.as_tensor().expect("an array")
}

pub(super) fn element(value: &Value, index: usize) -> &Tensor {
    match value {
        Value::Tuple(elements) => tensor(&elements[index]),
        _ => panic!("not a tuple: {}", value.describe()),
    }
}

pub(super) fn ints(t: &Tensor) -> Vec<i64> {
    match decode(t) {
        Numbers::Signed(v) => v,
        Numbers::Unsigned(v) => v.into_iter().map(|x| x as i64).collect(),
        other => panic!("{other:?}"),
    }
}

pub(super) fn floats(t: &Tensor) -> Vec<f64> {
    match decode(t) {
        Numbers::Float(v) => v,
        other => panic!("{other:?}"),
    }
}

pub(super) fn f32s(dims: &[i64], values: &[f64]) -> Value {
    Value::Tensor(encode(
        ElementType::F32,
        dims,
        &Numbers::Float(values.to_vec()),
    ))
}

/// The s32 tensor `0, 1, 2, …` of `dims`, row-major.
pub(super) fn counting(dims: &[i64]) -> Tensor {
    let n = crate::tensor::element_count(dims) as i64;
    encode(ElementType::S32, dims, &Numbers::Signed((0..n).collect()))
}

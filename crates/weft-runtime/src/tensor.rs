//! Runtime values.
//!
//! Invariant: a [`Tensor`]'s `bytes` hold exactly `element count ×
//! storage size` bytes, row-major (the last dimension varies fastest),
//! little-endian, in the encoding of `weft_ir`'s literals (`pred` one byte,
//! narrow floats and `s4`/`u4` one byte each, complex as real then imaginary).
//! Layouts do not matter at run time: values are always logically row-major.

use weft_ir::ElementType;
use weft_ir::literal::{ArrayLiteral, Literal, storage_bytes};

/// A dense array.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// The element type.
    pub elem: ElementType,
    /// The size of each dimension.
    pub dims: Vec<i64>,
    /// The elements, row-major.
    pub bytes: Bytes,
}

/// A tensor's elements, shared between the values that hold them and copied
/// only when one of them writes (copy-on-write).
///
/// Why: values flow through tuples, loop state, collectives and async
/// streams; each of those used to clone every byte, and on a machine with
/// fewer cores than devices those copies competed with the compute the
/// asynchronous collectives are meant to overlap. Cloning a `Bytes` is a
/// reference-count increment; `DerefMut` copies only while another holder
/// still shares the buffer.
#[derive(Clone, Default, PartialEq)]
pub struct Bytes(std::sync::Arc<Vec<u8>>);

impl Bytes {
    /// Whether `self` and `other` are the same buffer (not merely equal).
    pub fn shares_buffer_with(&self, other: &Bytes) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Bytes {
        Bytes(std::sync::Arc::new(bytes))
    }
}

impl FromIterator<u8> for Bytes {
    fn from_iter<I: IntoIterator<Item = u8>>(bytes: I) -> Bytes {
        Bytes::from(bytes.into_iter().collect::<Vec<u8>>())
    }
}

impl std::ops::Deref for Bytes {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl std::ops::DerefMut for Bytes {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        std::sync::Arc::make_mut(&mut self.0)
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// What an instruction produces.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An array.
    Tensor(Tensor),
    /// A tuple of values.
    Tuple(Vec<Value>),
    /// `token[]`: orders side effects, carries no data.
    Token,
    /// The result of an asynchronous operation still running on a device's
    /// async stream; its done waits for it.
    InFlight(InFlight),
}

/// A result being computed on another thread: set once, waited for by any
/// number of readers.
#[derive(Clone, Debug)]
pub struct InFlight(std::sync::Arc<InFlightSlot>);

/// The result slot of an [`InFlight`] (with when it was ready, on the
/// run's clock) and the signal that it was.
type InFlightSlot = (
    std::sync::Mutex<Option<(Result<Value, String>, std::time::Duration)>>,
    std::sync::Condvar,
);

impl InFlight {
    /// A result not computed yet.
    pub fn new() -> InFlight {
        InFlight(std::sync::Arc::new((
            std::sync::Mutex::new(None),
            std::sync::Condvar::new(),
        )))
    }

    /// Sets the result, ready at `at` on the run's clock, and wakes every
    /// waiter.
    pub fn fulfil(&self, result: Result<Value, String>, at: std::time::Duration) {
        let (slot, ready) = &*self.0;
        if let Ok(mut slot) = slot.lock() {
            *slot = Some((result, at));
        }
        ready.notify_all();
    }

    /// Waits for the result.
    pub fn wait(&self) -> Result<Value, String> {
        self.wait_timed().0
    }

    /// Waits for the result; also returns when it was ready on the run's
    /// clock (a waiter that gets a core only later should not count that
    /// delay as waiting for the result).
    pub fn wait_timed(&self) -> (Result<Value, String>, std::time::Duration) {
        let (slot, ready) = &*self.0;
        let poisoned = || {
            (
                Err("an async result's lock was poisoned".to_string()),
                std::time::Duration::ZERO,
            )
        };
        let Ok(mut slot) = slot.lock() else {
            return poisoned();
        };
        loop {
            if let Some((result, at)) = slot.as_ref() {
                return (result.clone(), *at);
            }
            slot = match ready.wait(slot) {
                Ok(slot) => slot,
                Err(_) => return poisoned(),
            };
        }
    }

    /// An identity of this result shared by its clones, for bookkeeping of
    /// which asynchronous operations are still unfinished.
    pub fn id(&self) -> usize {
        std::sync::Arc::as_ptr(&self.0) as usize
    }
}

impl Default for InFlight {
    fn default() -> InFlight {
        InFlight::new()
    }
}

impl PartialEq for InFlight {
    fn eq(&self, other: &InFlight) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Tensor {
    /// A tensor of `dims` holding `bytes` (row-major, see the module docs).
    pub fn new(elem: ElementType, dims: Vec<i64>, bytes: Vec<u8>) -> Tensor {
        debug_assert_eq!(bytes.len(), element_count(&dims) * storage_bytes(elem));
        Tensor {
            elem,
            dims,
            bytes: bytes.into(),
        }
    }

    /// A tensor of zeros.
    pub fn zeros(elem: ElementType, dims: &[i64]) -> Tensor {
        let count = element_count(dims);
        Tensor {
            elem,
            dims: dims.to_vec(),
            bytes: vec![0; count * storage_bytes(elem)].into(),
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        element_count(&self.dims)
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per element.
    pub fn element_size(&self) -> usize {
        storage_bytes(self.elem)
    }

    /// The tensor of an HLO constant.
    pub fn from_literal(array: &ArrayLiteral) -> Tensor {
        Tensor {
            elem: array.elem,
            dims: array.dims.clone(),
            bytes: array.data.clone().into(),
        }
    }

    /// The tensor as an HLO literal (for element access and printing).
    pub fn to_literal(&self) -> ArrayLiteral {
        ArrayLiteral {
            elem: self.elem,
            dims: self.dims.clone(),
            data: self.bytes.to_vec(),
        }
    }

    /// Element `index` as a scalar tensor (what a reducer or comparator
    /// computation receives).
    pub fn element(&self, index: usize) -> Tensor {
        let size = self.element_size();
        Tensor {
            elem: self.elem,
            dims: Vec::new(),
            bytes: self.bytes[index * size..(index + 1) * size].to_vec().into(),
        }
    }

    /// The same elements under other dimensions of the same element count.
    pub fn reshaped(mut self, dims: &[i64]) -> Tensor {
        debug_assert_eq!(element_count(dims), self.len());
        self.dims = dims.to_vec();
        self
    }
}

/// The bytes as `f32`s without copying, when they are 4-byte aligned (as
/// the allocator gives large buffers) and the machine is little-endian.
pub fn as_f32(bytes: &[u8]) -> Option<&[f32]> {
    if cfg!(target_endian = "big") || !bytes.len().is_multiple_of(4) {
        return None;
    }
    // SAFETY: every bit pattern is a valid f32, and `align_to` only returns
    // a middle slice that is properly aligned.
    let (prefix, values, suffix) = unsafe { bytes.align_to::<f32>() };
    (prefix.is_empty() && suffix.is_empty()).then_some(values)
}

/// [`as_f32`] for writing.
pub fn as_f32_mut(bytes: &mut [u8]) -> Option<&mut [f32]> {
    if cfg!(target_endian = "big") || !bytes.len().is_multiple_of(4) {
        return None;
    }
    // SAFETY: as in `as_f32`; any f32 written is valid bytes.
    let (prefix, values, suffix) = unsafe { bytes.align_to_mut::<f32>() };
    (prefix.is_empty() && suffix.is_empty()).then_some(values)
}

/// Little-endian `f32` bytes as values.
pub fn f32_values(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `f32` values as little-endian bytes.
pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(values.len() * 4);
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes
}

/// Row-major strides, in elements, of a value's `dims` (see
/// [`element_count`]: they cannot wrap).
pub fn strides(dims: &[i64]) -> Vec<usize> {
    let mut strides = vec![1usize; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].saturating_mul(dims[d + 1].max(0) as usize);
    }
    strides
}

/// The number of elements of an array with `dims`.
///
/// The dims of a value: of a tensor that exists, or of a result the
/// evaluator checked against its limit (`weft_ir::size::byte_size`) before
/// computing it; inputs are checked the same way before they are read or
/// drawn. Their count fits in `i64` by then, so this does not check again;
/// it saturates rather than wraps, so a missed check asks for an impossible
/// allocation instead of a wrong small one.
pub fn element_count(dims: &[i64]) -> usize {
    dims.iter()
        .try_fold(1usize, |count, &d| count.checked_mul(d.max(0) as usize))
        .unwrap_or(usize::MAX)
}

impl Value {
    /// The value of an HLO constant.
    pub fn from_constant(literal: &Literal) -> Option<Value> {
        match literal {
            Literal::Array(array) => Some(Value::Tensor(Tensor::from_literal(array))),
            Literal::Tuple(elements) => elements
                .iter()
                .map(Value::from_constant)
                .collect::<Option<Vec<_>>>()
                .map(Value::Tuple),
            Literal::Elided => None,
        }
    }

    /// The tensor, if this is one.
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// A one-line description: `f32[4,6]`, `(f32[2], s32[])`, `token[]`.
    pub fn describe(&self) -> String {
        match self {
            Value::Tensor(t) => {
                let dims: Vec<String> = t.dims.iter().map(i64::to_string).collect();
                format!("{}[{}]", t.elem.name(), dims.join(","))
            }
            Value::Tuple(elements) => {
                let parts: Vec<String> = elements.iter().map(Value::describe).collect();
                format!("({})", parts.join(", "))
            }
            Value::Token => "token[]".to_string(),
            Value::InFlight(_) => "(in flight)".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_are_row_major() {
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(strides(&[]), Vec::<usize>::new());
        assert_eq!(element_count(&[2, 0, 4]), 0);
    }
}

//! Attributes: MLIR's builtin kinds (unit, bool, typed integers and floats,
//! strings, types, arrays, dictionaries, symbol references, `dense<…>` elements,
//! `array<…>` dense arrays) and dialect attributes.
//!
//! Invariants: a [`DenseElements`] holds exactly as many elements as its type's
//! static shape has, stored row-major in an HLO [`ArrayLiteral`] of the element
//! type's storage type — except a splat of more than one element, which holds
//! its one element ([`DenseValues::Splat`]) so that a short text never becomes
//! a large allocation; an attribute dictionary is sorted by name with no name
//! twice (as MLIR's `DictionaryAttr` is), so printing is canonical.

use weft_ir::literal::ArrayLiteral;

use crate::ir::types::{ElementKind, Type};

/// An attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// `unit`: present or absent.
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// `42 : i64` (a bare integer is an `i64`).
    Integer {
        /// The value.
        value: i128,
        /// Its type.
        ty: Type,
    },
    /// `1.5 : f32` (a bare float is an `f64`).
    Float {
        /// The value.
        value: f64,
        /// Its type.
        ty: Type,
    },
    /// `"text"`.
    String(String),
    /// A type used as an attribute.
    Type(Type),
    /// `[a, b, …]`.
    Array(Vec<Attribute>),
    /// `{name = value, …}`.
    Dictionary(Vec<NamedAttribute>),
    /// `@root::@nested`.
    SymbolRef(Vec<String>),
    /// `dense<…> : tensor<…>`.
    DenseElements(Box<DenseElements>),
    /// `array<i64: 1, 2>`.
    DenseArray(DenseArray),
    /// A dialect attribute (`#stablehlo.channel_handle<…>`, `#sdy.sharding<…>`, …),
    /// kept as its text.
    Opaque(String),
}

/// A name and its attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedAttribute {
    /// The name.
    pub name: String,
    /// The value.
    pub value: Attribute,
}

/// `dense<…>`: a constant tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseElements {
    /// The (static, ranked) tensor type.
    pub ty: Type,
    /// What the elements are.
    pub values: DenseValues,
}

/// The elements of a `dense<…>` attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseValues {
    /// Numbers and booleans, row-major.
    Array(ArrayLiteral),
    /// One number or boolean (a scalar literal) standing for every element of
    /// a type with more than one: `dense<1.0> : tensor<3000000000xf32>`.
    /// Expanded only by a consumer that needs the bytes
    /// ([`DenseElements::numbers`]), under a bound it chooses.
    Splat(ArrayLiteral),
    /// Strings (`dense<"a"> : tensor<!foo.string>` and the like).
    Strings(Vec<String>),
}

/// Why a `dense<…>` attribute gives no array of numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotNumbers {
    /// It holds strings.
    Strings,
    /// Its type has no static shape.
    NotStatic,
    /// It is a splat whose expansion would take more than `limit` bytes
    /// (`bytes` is `None` past `i64::MAX`).
    TooLarge {
        /// The bytes the expansion would take.
        bytes: Option<u64>,
        /// The most bytes the consumer expands.
        limit: u64,
    },
}

impl std::fmt::Display for NotNumbers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotNumbers::Strings => f.write_str("the dense value holds strings"),
            NotNumbers::NotStatic => f.write_str("the dense value has no static shape"),
            NotNumbers::TooLarge { bytes, limit } => {
                match bytes {
                    Some(bytes) => write!(f, "the splat would expand to {bytes} bytes")?,
                    None => f.write_str("the splat would expand past int64 bytes")?,
                }
                write!(f, ", more than the {limit} expanded here")
            }
        }
    }
}

impl DenseElements {
    /// The numbers as an array of the type's static shape; a splat is
    /// expanded when that takes at most `max_bytes`, and refused (before
    /// allocating) otherwise.
    pub fn numbers(
        &self,
        max_bytes: u64,
    ) -> Result<std::borrow::Cow<'_, ArrayLiteral>, NotNumbers> {
        match &self.values {
            DenseValues::Array(array) => Ok(std::borrow::Cow::Borrowed(array)),
            DenseValues::Strings(_) => Err(NotNumbers::Strings),
            DenseValues::Splat(one) => {
                let dims = self.ty.static_dims().ok_or(NotNumbers::NotStatic)?;
                let bytes = weft_ir::size::byte_size(one.elem, &dims)
                    .ok()
                    .map(|b| b.get());
                if bytes.is_none_or(|b| b > max_bytes) {
                    return Err(NotNumbers::TooLarge {
                        bytes,
                        limit: max_bytes,
                    });
                }
                let mut array = ArrayLiteral::zeros(one.elem, &dims);
                for chunk in array.data.chunks_mut(one.data.len().max(1)) {
                    chunk.copy_from_slice(&one.data[..chunk.len()]);
                }
                Ok(std::borrow::Cow::Owned(array))
            }
        }
    }
}

/// `array<T: …>`.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseArray {
    /// The element type.
    pub element: ElementKind,
    /// The values.
    pub values: DenseArrayValues,
}

/// The values of a dense array.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseArrayValues {
    /// Integers and booleans.
    Integers(Vec<i64>),
    /// Floats.
    Floats(Vec<f64>),
}

impl Attribute {
    /// An `i64` integer attribute.
    pub fn i64(value: i64) -> Attribute {
        Attribute::Integer {
            value: i128::from(value),
            ty: Type::Element(ElementKind::int(64)),
        }
    }

    /// The integer value, if this is an integer attribute.
    pub fn as_integer(&self) -> Option<i128> {
        match self {
            Attribute::Integer { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// The string, if this is a string attribute.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attribute::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, if this is an array attribute.
    pub fn as_array(&self) -> Option<&[Attribute]> {
        match self {
            Attribute::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The entries, if this is a dictionary attribute.
    pub fn as_dictionary(&self) -> Option<&[NamedAttribute]> {
        match self {
            Attribute::Dictionary(entries) => Some(entries),
            _ => None,
        }
    }

    /// The integers of an `array<i64: …>` attribute.
    pub fn as_i64_array(&self) -> Option<&[i64]> {
        match self {
            Attribute::DenseArray(DenseArray {
                values: DenseArrayValues::Integers(v),
                ..
            }) => Some(v),
            _ => None,
        }
    }
}

/// Looks `name` up in a sorted attribute list.
pub fn find<'a>(attributes: &'a [NamedAttribute], name: &str) -> Option<&'a Attribute> {
    attributes
        .binary_search_by(|a| a.name.as_str().cmp(name))
        .ok()
        .map(|i| &attributes[i].value)
}

/// Inserts or replaces `name` in a sorted attribute list.
pub fn set(attributes: &mut Vec<NamedAttribute>, name: &str, value: Attribute) {
    match attributes.binary_search_by(|a| a.name.as_str().cmp(name)) {
        Ok(i) => attributes[i].value = value,
        Err(i) => attributes.insert(
            i,
            NamedAttribute {
                name: name.to_string(),
                value,
            },
        ),
    }
}

/// Removes `name` from a sorted attribute list, returning its value.
pub fn remove(attributes: &mut Vec<NamedAttribute>, name: &str) -> Option<Attribute> {
    let i = attributes
        .binary_search_by(|a| a.name.as_str().cmp(name))
        .ok()?;
    Some(attributes.remove(i).value)
}

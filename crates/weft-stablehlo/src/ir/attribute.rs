//! Attributes: MLIR's builtin kinds (unit, bool, typed integers and floats,
//! strings, types, arrays, dictionaries, symbol references, `dense<…>` elements,
//! `array<…>` dense arrays) and dialect attributes.
//!
//! Invariants: a [`DenseElements`] holds exactly as many elements as its type's
//! static shape has, stored row-major in an HLO [`ArrayLiteral`] of the element
//! type's storage type; an attribute dictionary is sorted by name with no name
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
    /// Strings (`dense<"a"> : tensor<!foo.string>` and the like).
    Strings(Vec<String>),
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

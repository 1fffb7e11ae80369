//! Element (primitive) types: every type XLA's `PrimitiveType` has that can appear in
//! HLO text, with its text name, bit width and class.

use std::fmt;

macro_rules! element_types {
    ($( $variant:ident, $text:literal, $bits:expr, $class:ident; )*) => {
        /// The element type of an array, or one of the non-array leaf types
        /// (`token`, `opaque`).
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum ElementType {
            $( $variant, )*
        }

        impl ElementType {
            /// Every element type, in declaration order.
            pub const ALL: &'static [ElementType] = &[$(ElementType::$variant,)*];

            /// The name used in HLO text (`f32`, `bf16`, `f8e4m3fn`, …).
            pub fn name(self) -> &'static str {
                match self {
                    $( ElementType::$variant => $text, )*
                }
            }

            /// The storage width of one element in bits (0 for token and opaque).
            pub fn bit_width(self) -> u32 {
                match self {
                    $( ElementType::$variant => $bits, )*
                }
            }

            /// Which family of numbers the type belongs to.
            pub fn class(self) -> ElementClass {
                match self {
                    $( ElementType::$variant => ElementClass::$class, )*
                }
            }
        }
    };
}

element_types! {
    Pred, "pred", 8, Pred;
    S1, "s1", 1, Signed;
    S2, "s2", 2, Signed;
    S4, "s4", 4, Signed;
    S8, "s8", 8, Signed;
    S16, "s16", 16, Signed;
    S32, "s32", 32, Signed;
    S64, "s64", 64, Signed;
    U1, "u1", 1, Unsigned;
    U2, "u2", 2, Unsigned;
    U4, "u4", 4, Unsigned;
    U8, "u8", 8, Unsigned;
    U16, "u16", 16, Unsigned;
    U32, "u32", 32, Unsigned;
    U64, "u64", 64, Unsigned;
    F16, "f16", 16, Float;
    Bf16, "bf16", 16, Float;
    F32, "f32", 32, Float;
    F64, "f64", 64, Float;
    F8E5M2, "f8e5m2", 8, Float;
    F8E4M3, "f8e4m3", 8, Float;
    F8E4M3Fn, "f8e4m3fn", 8, Float;
    F8E4M3B11Fnuz, "f8e4m3b11fnuz", 8, Float;
    F8E3M4, "f8e3m4", 8, Float;
    F8E5M2Fnuz, "f8e5m2fnuz", 8, Float;
    F8E4M3Fnuz, "f8e4m3fnuz", 8, Float;
    F4E2M1Fn, "f4e2m1fn", 4, Float;
    F8E8M0Fnu, "f8e8m0fnu", 8, Float;
    F6E3M2Fn, "f6e3m2fn", 6, Float;
    F6E2M3Fn, "f6e2m3fn", 6, Float;
    C64, "c64", 64, Complex;
    C128, "c128", 128, Complex;
    Token, "token", 0, Token;
    Opaque, "opaque", 0, Opaque;
}

/// The broad class of an element type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ElementClass {
    /// `pred`.
    Pred,
    /// Two's complement integers.
    Signed,
    /// Unsigned integers.
    Unsigned,
    /// IEEE and IEEE-like floating point, including the narrow f8/f6/f4 families.
    Float,
    /// Complex numbers made of two floats.
    Complex,
    /// `token`.
    Token,
    /// `opaque`.
    Opaque,
}

impl ElementType {
    /// Looks a type up by its HLO text name; `opaque_type` is accepted as `opaque`.
    pub fn from_name(name: &str) -> Option<ElementType> {
        // This runs for every shape and every instruction name the parser checks:
        // the common types are matched directly, and names that cannot be a type
        // (too long, or starting with another letter) are rejected before any
        // string comparison.
        let ty = match name {
            "f32" => ElementType::F32,
            "s32" => ElementType::S32,
            "pred" => ElementType::Pred,
            "bf16" => ElementType::Bf16,
            "u32" => ElementType::U32,
            "f16" => ElementType::F16,
            "s64" => ElementType::S64,
            "u8" => ElementType::U8,
            "s8" => ElementType::S8,
            "f64" => ElementType::F64,
            "u64" => ElementType::U64,
            "token" => ElementType::Token,
            "opaque_type" => ElementType::Opaque,
            _ => {
                let first = *name.as_bytes().first()?;
                if name.len() > 13
                    || !matches!(first, b'b' | b'c' | b'f' | b'o' | b'p' | b's' | b't' | b'u')
                {
                    return None;
                }
                return ElementType::ALL.iter().copied().find(|t| t.name() == name);
            }
        };
        Some(ty)
    }

    /// Whether this is an integer type (signed or unsigned, not `pred`).
    pub fn is_integer(self) -> bool {
        matches!(self.class(), ElementClass::Signed | ElementClass::Unsigned)
    }

    /// Whether this is a real floating-point type.
    pub fn is_float(self) -> bool {
        self.class() == ElementClass::Float
    }

    /// Whether this is a complex type.
    pub fn is_complex(self) -> bool {
        self.class() == ElementClass::Complex
    }

    /// Whether values of this type are arrays of numbers (everything but token and
    /// opaque).
    pub fn is_array_type(self) -> bool {
        !matches!(self, ElementType::Token | ElementType::Opaque)
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips() {
        for &ty in ElementType::ALL {
            assert_eq!(ElementType::from_name(ty.name()), Some(ty));
        }
        assert_eq!(
            ElementType::from_name("opaque_type"),
            Some(ElementType::Opaque)
        );
        assert_eq!(ElementType::from_name("f31"), None);
    }
}

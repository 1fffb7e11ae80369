//! MLIR types as StableHLO programs use them: ranked and unranked tensors of every
//! element type (integers of every width and signedness, every float format,
//! complex, index, uniform quantized), `!stablehlo.token`, `tuple<…>`,
//! `!stablehlo.future<…>`, function types, and — so that no input is lost — any
//! other dialect type kept as its text.
//!
//! Invariants: a [`Dim::Static`] size is non-negative; a tensor's `encoding` is the
//! attribute written after its element type (`#stablehlo.bounds<…>`), never a
//! layout.

use crate::ir::attribute::Attribute;

/// A type.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `tensor<2x?xf32>`, `tensor<f32>` (rank 0) or `tensor<*xf32>` (unranked).
    Tensor(TensorType),
    /// A bare element type: `f32`, `i64`, `index`, `complex<f32>`, `!quant.uniform<…>`.
    Element(ElementKind),
    /// `!stablehlo.token`.
    Token,
    /// `tuple<t0, t1, …>`.
    Tuple(Vec<Type>),
    /// `!stablehlo.future<t0, …>`: the value an `async_start` will produce.
    Future(Vec<Type>),
    /// `(inputs) -> results`.
    Function(FunctionType),
    /// `none`.
    None,
    /// A type of a dialect weft does not model, kept as written (`!foo.bar<…>`).
    Opaque(String),
}

/// A tensor type.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorType {
    /// The dimensions; `None` for an unranked tensor.
    pub dims: Option<Vec<Dim>>,
    /// The element type.
    pub element: ElementKind,
    /// The encoding attribute, e.g. `#stablehlo.bounds<4, ?>`.
    pub encoding: Option<Box<Attribute>>,
}

/// One dimension of a ranked tensor.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A known size.
    Static(i64),
    /// `?`: known only at run time.
    Dynamic,
}

/// A function type.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FunctionType {
    /// Argument types.
    pub inputs: Vec<Type>,
    /// Result types.
    pub results: Vec<Type>,
}

/// How an integer type treats its sign bit.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Signedness {
    /// `i32`: the operation decides (StableHLO treats it as signed).
    Signless,
    /// `si32`.
    Signed,
    /// `ui32`.
    Unsigned,
}

macro_rules! float_kinds {
    ($( $variant:ident, $text:literal, $hlo:ident; )*) => {
        /// A floating-point format.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum FloatKind {
            $( $variant, )*
        }

        impl FloatKind {
            /// Every format, in declaration order.
            pub const ALL: &'static [FloatKind] = &[$(FloatKind::$variant,)*];

            /// The MLIR spelling (`f32`, `bf16`, `f8E4M3FN`, …).
            pub fn name(self) -> &'static str {
                match self {
                    $( FloatKind::$variant => $text, )*
                }
            }

            /// The matching HLO element type (`tf32` is stored as `f32`).
            pub fn hlo(self) -> weft_ir::ElementType {
                match self {
                    $( FloatKind::$variant => weft_ir::ElementType::$hlo, )*
                }
            }

            /// The format spelled `text`, if any.
            pub fn from_name(text: &str) -> Option<FloatKind> {
                match text {
                    $( $text => Some(FloatKind::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

float_kinds! {
    F16, "f16", F16;
    Bf16, "bf16", Bf16;
    F32, "f32", F32;
    F64, "f64", F64;
    Tf32, "tf32", F32;
    F8E5M2, "f8E5M2", F8E5M2;
    F8E4M3, "f8E4M3", F8E4M3;
    F8E4M3Fn, "f8E4M3FN", F8E4M3Fn;
    F8E4M3B11Fnuz, "f8E4M3B11FNUZ", F8E4M3B11Fnuz;
    F8E3M4, "f8E3M4", F8E3M4;
    F8E5M2Fnuz, "f8E5M2FNUZ", F8E5M2Fnuz;
    F8E4M3Fnuz, "f8E4M3FNUZ", F8E4M3Fnuz;
    F4E2M1Fn, "f4E2M1FN", F4E2M1Fn;
    F8E8M0Fnu, "f8E8M0FNU", F8E8M0Fnu;
    F6E3M2Fn, "f6E3M2FN", F6E3M2Fn;
    F6E2M3Fn, "f6E2M3FN", F6E2M3Fn;
}

/// An element type: what a tensor holds.
#[derive(Clone, Debug, PartialEq)]
pub enum ElementKind {
    /// `iN`, `siN`, `uiN`.
    Integer {
        /// Bits, 1 or more.
        width: u32,
        /// Sign treatment.
        signedness: Signedness,
    },
    /// A float format.
    Float(FloatKind),
    /// `index`.
    Index,
    /// `complex<f32>` or `complex<f64>`.
    Complex(FloatKind),
    /// `!quant.uniform<…>`.
    Quantized(Box<QuantizedType>),
}

/// `!quant.uniform<storage<min:max>:expressed[:axis], scale:zero_point | {…}>`.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantizedType {
    /// The integer type values are stored in.
    pub storage: ElementKind,
    /// An explicit storage range `<min:max>`, if written.
    pub storage_range: Option<(i64, i64)>,
    /// The float type the values stand for.
    pub expressed: ElementKind,
    /// The quantized dimension of a per-axis type.
    pub axis: Option<i64>,
    /// `(scale, zero_point)`: one for per-tensor, one per slice for per-axis.
    pub parameters: Vec<(f64, i64)>,
}

impl ElementKind {
    /// A signless integer of `width` bits.
    pub fn int(width: u32) -> ElementKind {
        ElementKind::Integer {
            width,
            signedness: Signedness::Signless,
        }
    }

    /// The HLO element type that stores this element type, if there is one
    /// (quantized types are stored as their storage type).
    pub fn hlo(&self) -> Option<weft_ir::ElementType> {
        use weft_ir::ElementType as E;
        Some(match self {
            ElementKind::Integer { width: 1, .. } => E::Pred,
            ElementKind::Integer { width, signedness } => {
                let unsigned = *signedness == Signedness::Unsigned;
                match (width, unsigned) {
                    (2, false) => E::S2,
                    (4, false) => E::S4,
                    (8, false) => E::S8,
                    (16, false) => E::S16,
                    (32, false) => E::S32,
                    (64, false) => E::S64,
                    (2, true) => E::U2,
                    (4, true) => E::U4,
                    (8, true) => E::U8,
                    (16, true) => E::U16,
                    (32, true) => E::U32,
                    (64, true) => E::U64,
                    _ => return None,
                }
            }
            ElementKind::Float(kind) => kind.hlo(),
            ElementKind::Index => E::S64,
            ElementKind::Complex(FloatKind::F32) => E::C64,
            ElementKind::Complex(FloatKind::F64) => E::C128,
            ElementKind::Complex(_) => return None,
            ElementKind::Quantized(q) => return q.storage.hlo(),
        })
    }

    /// Whether this is a float format.
    pub fn is_float(&self) -> bool {
        matches!(self, ElementKind::Float(_))
    }

    /// Whether this is an integer (including `i1`) or `index`.
    pub fn is_integer(&self) -> bool {
        matches!(self, ElementKind::Integer { .. } | ElementKind::Index)
    }
}

impl Type {
    /// A ranked tensor type with static dimensions.
    pub fn tensor(dims: &[i64], element: ElementKind) -> Type {
        Type::Tensor(TensorType {
            dims: Some(dims.iter().map(|&d| Dim::Static(d)).collect()),
            element,
            encoding: None,
        })
    }

    /// The tensor type this is, if it is one.
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// A tensor's rank (a scalar element type has rank 0).
    pub fn rank(&self) -> Option<usize> {
        match self {
            Type::Tensor(t) => t.rank(),
            Type::Element(_) => Some(0),
            _ => None,
        }
    }

    /// A tensor's static sizes.
    pub fn static_dims(&self) -> Option<Vec<i64>> {
        match self {
            Type::Tensor(t) => t.static_dims(),
            Type::Element(_) => Some(Vec::new()),
            _ => None,
        }
    }
}

impl TensorType {
    /// The rank, if ranked.
    pub fn rank(&self) -> Option<usize> {
        self.dims.as_ref().map(Vec::len)
    }

    /// The static sizes, if the tensor is ranked and every dimension is static.
    pub fn static_dims(&self) -> Option<Vec<i64>> {
        self.dims
            .as_ref()?
            .iter()
            .map(|d| match d {
                Dim::Static(n) => Some(*n),
                Dim::Dynamic => None,
            })
            .collect()
    }

    /// The number of elements, if the shape is static and the count fits in
    /// `i64`.
    pub fn element_count(&self) -> Option<i64> {
        weft_ir::size::product(&self.static_dims()?).map(weft_ir::size::Size::as_i64)
    }
}

//! Dot dimension numbers and precision configs (their text form is in
//! `text/attrs/dot.rs`).

/// An operand's precision.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// `default`.
    Default,
    /// `high`.
    High,
    /// `highest`.
    Highest,
    /// `packed_nibble`.
    PackedNibble,
}

impl Precision {
    /// The spelling in text.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Default => "default",
            Precision::High => "high",
            Precision::Highest => "highest",
            Precision::PackedNibble => "packed_nibble",
        }
    }
}

/// Dot, ragged-dot and scaled-dot attributes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DotAttrs {
    /// `lhs_batch_dims`.
    pub lhs_batch: Vec<i64>,
    /// `lhs_contracting_dims`.
    pub lhs_contracting: Vec<i64>,
    /// `rhs_batch_dims`.
    pub rhs_batch: Vec<i64>,
    /// `rhs_contracting_dims`.
    pub rhs_contracting: Vec<i64>,
    /// ragged-dot's `lhs_ragged_dims`.
    pub lhs_ragged: Vec<i64>,
    /// ragged-dot's `rhs_group_dims`.
    pub rhs_group: Vec<i64>,
    /// `operand_precision={…}` (empty when all default).
    pub precision: Vec<Precision>,
    /// `algorithm=…` (a dot precision algorithm such as `dot_bf16_bf16_f32`,
    /// one of [`PRECISION_ALGORITHMS`]).
    pub algorithm: Option<String>,
}

/// XLA's `PrecisionConfig::Algorithm`s as HLO text spells them (the enum's
/// name without `ALG_`, lower case): what a dot's or a convolution's
/// `algorithm=` may say.
pub const PRECISION_ALGORITHMS: &[&str] = &[
    "unset",
    "dot_any_f8_any_f8_f32",
    "dot_any_f8_any_f8_f32_fast_accum",
    "dot_f16_f16_f16",
    "dot_f16_f16_f32",
    "dot_bf16_bf16_bf16",
    "dot_bf16_bf16_f32",
    "dot_bf16_bf16_f32_x3",
    "dot_bf16_bf16_f32_x6",
    "dot_bf16_bf16_f32_x9",
    "dot_tf32_tf32_f32",
    "dot_tf32_tf32_f32_x3",
    "dot_f32_f32_f32",
    "dot_f64_f64_f64",
];

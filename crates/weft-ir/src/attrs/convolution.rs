//! Convolution attributes and the roles of each operand's dimensions (their
//! text form, `dim_labels=b01f_01io->b01f`, is in `text/attrs/convolution.rs`).

use super::dot::Precision;
use super::window::Window;

/// Which dimension of each operand plays which role.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ConvolutionDims {
    /// Input batch dimension.
    pub input_batch: i64,
    /// Input feature dimension.
    pub input_feature: i64,
    /// Input spatial dimensions, by spatial index.
    pub input_spatial: Vec<i64>,
    /// Kernel input-feature dimension.
    pub kernel_input_feature: i64,
    /// Kernel output-feature dimension.
    pub kernel_output_feature: i64,
    /// Kernel spatial dimensions.
    pub kernel_spatial: Vec<i64>,
    /// Output batch dimension.
    pub output_batch: i64,
    /// Output feature dimension.
    pub output_feature: i64,
    /// Output spatial dimensions.
    pub output_spatial: Vec<i64>,
    /// The rank of input, kernel and output (the label lengths).
    pub ranks: [usize; 3],
}

/// Convolution attributes, in XLA's print order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ConvolutionAttrs {
    /// `window={…}`.
    pub window: Option<Window>,
    /// `dim_labels=…`.
    pub dims: ConvolutionDims,
    /// `feature_group_count=` (default 1).
    pub feature_group_count: i64,
    /// `batch_group_count=` (default 1).
    pub batch_group_count: i64,
    /// `operand_precision={…}` (empty when all default).
    pub precision: Vec<Precision>,
    /// `algorithm=…`, when written.
    pub algorithm: Option<String>,
    /// `convolution_kind=…`, when written (one of [`CONVOLUTION_KINDS`]).
    pub convolution_kind: Option<String>,
    /// `sparsity_config=…`, kept as written.
    pub sparsity_config: Option<String>,
}

/// XLA's `ConvKind`s as HLO text spells them: forward, backward to the
/// input, backward to the filter.
pub const CONVOLUTION_KINDS: &[&str] = &["fprop", "dgrad", "wgrad"];

//! Gather and scatter dimension numbers, in XLA's print order (their text form
//! is in `text/attrs/gather_scatter.rs`).

/// Gather attributes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GatherAttrs {
    /// `offset_dims`.
    pub offset_dims: Vec<i64>,
    /// `collapsed_slice_dims`.
    pub collapsed_slice_dims: Vec<i64>,
    /// `start_index_map`.
    pub start_index_map: Vec<i64>,
    /// `operand_batching_dims`.
    pub operand_batching_dims: Vec<i64>,
    /// `start_indices_batching_dims`.
    pub start_indices_batching_dims: Vec<i64>,
    /// `index_vector_dim`.
    pub index_vector_dim: i64,
    /// `slice_sizes`.
    pub slice_sizes: Vec<i64>,
    /// `indices_are_sorted=true`.
    pub indices_are_sorted: bool,
}

/// Scatter attributes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ScatterAttrs {
    /// `update_window_dims`.
    pub update_window_dims: Vec<i64>,
    /// `inserted_window_dims`.
    pub inserted_window_dims: Vec<i64>,
    /// `scatter_dims_to_operand_dims`.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// `input_batching_dims`.
    pub input_batching_dims: Vec<i64>,
    /// `scatter_indices_batching_dims`.
    pub scatter_indices_batching_dims: Vec<i64>,
    /// `index_vector_dim`.
    pub index_vector_dim: i64,
    /// `indices_are_sorted=true`.
    pub indices_are_sorted: bool,
    /// `unique_indices=true`.
    pub unique_indices: bool,
}

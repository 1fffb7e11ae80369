//! Module-level attributes: what the `HloModule name, …` line carries.

use crate::shape::Shape;

/// Whether an aliased output may or must reuse the parameter's buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AliasKind {
    /// `may-alias`.
    May,
    /// `must-alias`.
    Must,
}

/// One `input_output_alias` entry: output `{output_index}` aliases parameter
/// `parameter` at `{parameter_index}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputOutputAlias {
    /// Index into the entry result.
    pub output_index: Vec<i64>,
    /// The parameter number.
    pub parameter: i64,
    /// Index into that parameter.
    pub parameter_index: Vec<i64>,
    /// The alias kind, when written.
    pub kind: Option<AliasKind>,
}

/// One `buffer_donor` entry: parameter `parameter` at `{parameter_index}` may be
/// donated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferDonor {
    /// The parameter number.
    pub parameter: i64,
    /// Index into that parameter.
    pub parameter_index: Vec<i64>,
}

/// The entry computation's layout: parameter shapes and result shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramShape {
    /// Parameter shapes.
    pub parameters: Vec<Shape>,
    /// Result shape.
    pub result: Shape,
}

/// The module attributes, in the order XLA prints them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModuleConfig {
    /// `input_output_alias={…}`.
    pub input_output_alias: Vec<InputOutputAlias>,
    /// `buffer_donor={…}`.
    pub buffer_donor: Vec<BufferDonor>,
    /// `alias_passthrough_params=true`.
    pub alias_passthrough_params: bool,
    /// `entry_computation_layout={…}`.
    pub entry_computation_layout: Option<ProgramShape>,
    /// `allow_spmd_sharding_propagation_to_parameters={…}`.
    pub allow_spmd_sharding_propagation_to_parameters: Option<Vec<bool>>,
    /// `allow_spmd_sharding_propagation_to_output={…}`.
    pub allow_spmd_sharding_propagation_to_output: Option<Vec<bool>>,
    /// `replica_count=N` (1 when absent).
    pub replica_count: Option<i64>,
    /// `num_partitions=N` (1 when absent).
    pub num_partitions: Option<i64>,
    /// `frontend_attributes={…}`.
    pub frontend_attributes: Option<crate::attrs::FrontendAttributes>,
    /// Attributes XLA keeps as opaque structured text
    /// (`origin_recovery_table`, `debug_attributes`): name and value text, in order.
    pub raw: Vec<(String, String)>,
}

impl ModuleConfig {
    /// The number of replicas (1 when not given).
    pub fn replicas(&self) -> i64 {
        self.replica_count.unwrap_or(1)
    }

    /// The number of partitions (1 when not given).
    pub fn partitions(&self) -> i64 {
        self.num_partitions.unwrap_or(1)
    }
}

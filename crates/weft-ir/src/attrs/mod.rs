//! Instruction attributes: one typed family per kind of opcode, plus the common
//! attributes any instruction may carry.
//!
//! Every opcode names its family in the [opcode table](crate::opcode); an
//! instruction's [`Attrs`] variant must be that family (the verifier checks it).
//! This module holds the data, its invariants and the methods that do not
//! depend on text; each family's text form — parse and print side by side, in
//! XLA's attribute order — is in the file of the same name under `text/attrs/`.
//!
//! Values XLA itself treats as opaque (`backend_config`, frontend attribute values,
//! a few rarely used structured attributes) are kept as text, so printing loses
//! nothing.

mod collective;
mod common_attrs;
mod convolution;
mod dot;
mod gather_scatter;
mod named_enums;
mod sharding;
mod window;

pub(crate) use collective::canonicalize_iota;
pub use collective::{
    CollectiveAttrs, CollectivePermuteAttrs, IotaReplicaGroups, MAX_EXPANDED_DEVICES, Mesh,
    MeshAxesGroups, MeshDevices, ReplicaGroups, TooManyDevices,
};
pub use common_attrs::{
    BackendConfig, CommonAttrs, FrontendAttributes, Metadata, MoreMetadata, ResultAccuracy,
    Statistics,
};
pub use convolution::{CONVOLUTION_KINDS, ConvolutionAttrs, ConvolutionDims};
pub use dot::{DotAttrs, PRECISION_ALGORITHMS, Precision};
pub use gather_scatter::{GatherAttrs, ScatterAttrs};
pub use named_enums::*;
pub use sharding::{
    AxisRef, DimSharding, NamedSharding, ReductionOp, Sharding, ShardingKind, ShardingMesh,
    SingleSharding, SubAxis, TileAssignment,
};
pub use window::{PaddingConfig, PaddingDim, SliceRange, Window, WindowDim};

use crate::literal::Literal;
use crate::module::Instr;
use crate::shape::Shape;

/// Which attribute family an opcode carries (see [`Attrs`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
#[allow(missing_docs)]
pub enum Family {
    Plain,
    Parameter,
    Constant,
    GetTupleElement,
    Dimensions,
    Sort,
    Compare,
    Slice,
    DynamicSlice,
    Pad,
    Iota,
    ReducePrecision,
    Convolution,
    Dot,
    Gather,
    Scatter,
    Window,
    Collective,
    CollectivePermute,
    SendRecv,
    CustomCall,
    Fusion,
    Call,
    Async,
    CopyStart,
    Rng,
    RngBitGenerator,
    RngGetAndUpdateState,
    Fft,
    TriangularSolve,
    Cholesky,
    BatchNorm,
    Infeed,
    Outfeed,
    TopK,
    Scan,
    Domain,
}

/// The family-specific attributes of an instruction.
///
/// Kept to 24 bytes, as part of the instruction's 96 (see
/// [`InstrData`](crate::InstrData)): lists are boxed slices rather than
/// vectors, and the families that would need more room and are rare
/// (outfeed, triangular-solve, scan, and the big ones like dot and
/// convolution) are boxed whole.
#[derive(Clone, Debug, PartialEq)]
pub enum Attrs {
    /// No family attributes (elementwise ops, tuple, while, conditional, …);
    /// `reshape`'s optional `inferred_dimension` and `all-to-all`-less extras are
    /// kept in [`PlainAttrs`].
    Plain(PlainAttrs),
    /// `parameter(N)`.
    Parameter(ParameterAttrs),
    /// `constant(literal)`.
    Constant(Box<Literal>),
    /// `get-tuple-element`'s `index=`.
    GetTupleElement {
        /// The tuple element read.
        index: i64,
    },
    /// `dimensions={…}` (broadcast, transpose, reverse, concatenate, reduce, map,
    /// get/set-dimension-size).
    Dimensions {
        /// The dimension numbers.
        dimensions: Box<[i64]>,
    },
    /// `sort`'s `dimensions={d}, is_stable=…`.
    Sort {
        /// The sort dimension.
        dimension: i64,
        /// Whether equal elements keep their order.
        is_stable: bool,
    },
    /// `compare`'s direction and optional comparison type.
    Compare {
        /// `direction=`.
        direction: Direction,
        /// `type=`, when written.
        compare_type: Option<CompareType>,
    },
    /// `slice={[start:limit:stride], …}`.
    Slice(Box<[SliceRange]>),
    /// `dynamic_slice_sizes={…}`.
    DynamicSlice {
        /// The size of the slice in each dimension.
        sizes: Box<[i64]>,
    },
    /// `padding=lo_hi_int x …`.
    Pad(PaddingConfig),
    /// `iota_dimension=`.
    Iota {
        /// The dimension that counts up.
        dimension: i64,
    },
    /// `exponent_bits=`, `mantissa_bits=`.
    ReducePrecision {
        /// Exponent bits kept.
        exponent_bits: i64,
        /// Mantissa bits kept.
        mantissa_bits: i64,
    },
    /// Convolution attributes.
    Convolution(Box<ConvolutionAttrs>),
    /// Dot, ragged-dot and scaled-dot attributes.
    Dot(Box<DotAttrs>),
    /// Gather attributes.
    Gather(Box<GatherAttrs>),
    /// Scatter attributes.
    Scatter(Box<ScatterAttrs>),
    /// `window={…}` of reduce-window and select-and-scatter.
    Window(Option<Window>),
    /// Collectives with replica groups.
    Collective(Box<CollectiveAttrs>),
    /// collective-permute and its start.
    CollectivePermute(Box<CollectivePermuteAttrs>),
    /// send, recv and their dones.
    SendRecv {
        /// `channel_id=`.
        channel_id: Option<i64>,
        /// `is_host_transfer=true`.
        is_host_transfer: bool,
    },
    /// Custom-call attributes.
    CustomCall(Box<CustomCallAttrs>),
    /// Fusion attributes.
    Fusion(Box<FusionAttrs>),
    /// `call`'s `is_composite=`.
    Call {
        /// Whether the call is a composite (its frontend attributes describe it).
        is_composite: bool,
    },
    /// async-start / async-update / async-done.
    Async(Box<AsyncAttrs>),
    /// copy-start's `cross_program_prefetch_index=`.
    CopyStart {
        /// The prefetch index, when the copy is a cross-program prefetch.
        cross_program_prefetch_index: Option<i64>,
    },
    /// `distribution=`.
    Rng {
        /// The distribution sampled.
        distribution: Distribution,
    },
    /// `algorithm=`.
    RngBitGenerator {
        /// The generator.
        algorithm: RngAlgorithm,
    },
    /// `delta=`.
    RngGetAndUpdateState {
        /// How far the state advances.
        delta: i64,
    },
    /// `fft_type=`, `fft_length=`.
    Fft {
        /// The transform.
        fft_type: FftType,
        /// The transform lengths.
        fft_length: Box<[i64]>,
    },
    /// Triangular-solve options.
    TriangularSolve(Box<TriangularSolveAttrs>),
    /// `lower=`.
    Cholesky {
        /// Whether the lower triangle is used.
        lower: bool,
    },
    /// `epsilon=`, `feature_index=`.
    BatchNorm {
        /// The epsilon, as written (printed back exactly).
        epsilon: f32,
        /// The feature dimension.
        feature_index: i64,
    },
    /// `infeed_config=`.
    Infeed {
        /// The backend configuration string.
        config: Box<str>,
    },
    /// `outfeed_shape=`, `outfeed_config=` (rare, so kept behind a pointer).
    Outfeed(Box<OutfeedAttrs>),
    /// `k=`, `largest=`, `is_stable=`.
    TopK {
        /// How many elements.
        k: i64,
        /// Largest (true) or smallest.
        largest: bool,
        /// Whether ties keep their order.
        is_stable: bool,
    },
    /// Scan attributes.
    Scan(Box<ScanAttrs>),
    /// `domain={kind=…, entry=…, exit=…}`.
    Domain(Box<DomainAttrs>),
}

impl Attrs {
    /// The family of these attributes.
    pub fn family(&self) -> Family {
        match self {
            Attrs::Plain(_) => Family::Plain,
            Attrs::Parameter(_) => Family::Parameter,
            Attrs::Constant(_) => Family::Constant,
            Attrs::GetTupleElement { .. } => Family::GetTupleElement,
            Attrs::Dimensions { .. } => Family::Dimensions,
            Attrs::Sort { .. } => Family::Sort,
            Attrs::Compare { .. } => Family::Compare,
            Attrs::Slice(_) => Family::Slice,
            Attrs::DynamicSlice { .. } => Family::DynamicSlice,
            Attrs::Pad(_) => Family::Pad,
            Attrs::Iota { .. } => Family::Iota,
            Attrs::ReducePrecision { .. } => Family::ReducePrecision,
            Attrs::Convolution(_) => Family::Convolution,
            Attrs::Dot(_) => Family::Dot,
            Attrs::Gather(_) => Family::Gather,
            Attrs::Scatter(_) => Family::Scatter,
            Attrs::Window(_) => Family::Window,
            Attrs::Collective(_) => Family::Collective,
            Attrs::CollectivePermute(_) => Family::CollectivePermute,
            Attrs::SendRecv { .. } => Family::SendRecv,
            Attrs::CustomCall(_) => Family::CustomCall,
            Attrs::Fusion(_) => Family::Fusion,
            Attrs::Call { .. } => Family::Call,
            Attrs::Async(_) => Family::Async,
            Attrs::CopyStart { .. } => Family::CopyStart,
            Attrs::Rng { .. } => Family::Rng,
            Attrs::RngBitGenerator { .. } => Family::RngBitGenerator,
            Attrs::RngGetAndUpdateState { .. } => Family::RngGetAndUpdateState,
            Attrs::Fft { .. } => Family::Fft,
            Attrs::TriangularSolve(_) => Family::TriangularSolve,
            Attrs::Cholesky { .. } => Family::Cholesky,
            Attrs::BatchNorm { .. } => Family::BatchNorm,
            Attrs::Infeed { .. } => Family::Infeed,
            Attrs::Outfeed(_) => Family::Outfeed,
            Attrs::TopK { .. } => Family::TopK,
            Attrs::Scan(_) => Family::Scan,
            Attrs::Domain(_) => Family::Domain,
        }
    }

    /// Plain attributes with nothing set.
    pub fn plain() -> Attrs {
        Attrs::Plain(PlainAttrs::default())
    }

    /// The `dimensions` of a Dimensions-family instruction.
    pub fn dimensions(&self) -> Option<&[i64]> {
        match self {
            Attrs::Dimensions { dimensions } => Some(dimensions),
            _ => None,
        }
    }

    /// The async attributes of an async-start/update/done.
    pub fn as_async(&self) -> Option<&AsyncAttrs> {
        match self {
            Attrs::Async(a) => Some(a),
            _ => None,
        }
    }

    /// The collective attributes, if this is a replica-group collective.
    pub fn as_collective(&self) -> Option<&CollectiveAttrs> {
        match self {
            Attrs::Collective(c) => Some(c),
            _ => None,
        }
    }
}

/// Attributes of [`Family::Plain`] opcodes that a few of them accept.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PlainAttrs {
    /// `reshape`'s `inferred_dimension=` (not printed by XLA; kept for passes).
    pub inferred_dimension: Option<i64>,
}

/// A parameter's number and replication.
#[derive(Clone, Debug, PartialEq)]
pub struct ParameterAttrs {
    /// The parameter number.
    pub number: i64,
    /// `parameter_replication={…}`: per leaf buffer, whether it is replicated.
    pub replication: Option<thin_vec::ThinVec<bool>>,
}

/// One `output_to_operand_aliasing` entry: output `{output}` aliases operand
/// `operand` at `{operand_index}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputOperandAlias {
    /// Index into the instruction's output.
    pub output: Vec<i64>,
    /// The operand number.
    pub operand: i64,
    /// Index into the operand.
    pub operand_index: Vec<i64>,
}

/// Async-start / update / done attributes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AsyncAttrs {
    /// `async_execution_thread="…"` as written on this op (starts own the thread;
    /// updates and dones may repeat it).
    pub thread: Option<String>,
    /// `output_to_operand_aliasing={…}` (start and update).
    pub output_to_operand_aliasing: Vec<OutputOperandAlias>,
    /// For an update or done written with sugar (`custom-call-done`), the wrapped
    /// opcode the text named; used to print it back the same way when no start is
    /// reachable.
    pub sugar_opcode: Option<crate::opcode::Opcode>,
}

/// Custom-call attributes, in XLA's print order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CustomCallAttrs {
    /// `custom_call_target="…"`.
    pub target: String,
    /// `window={…}`.
    pub window: Option<Window>,
    /// `dim_labels=…`.
    pub dim_labels: Option<ConvolutionDims>,
    /// `feature_group_count=` (1 when absent).
    pub feature_group_count: Option<i64>,
    /// `batch_group_count=` (1 when absent).
    pub batch_group_count: Option<i64>,
    /// `operand_layout_constraints={…}`.
    pub operand_layout_constraints: Option<Vec<Shape>>,
    /// `custom_call_has_side_effect=true`.
    pub has_side_effect: bool,
    /// `output_to_operand_aliasing={…}`.
    pub output_to_operand_aliasing: Vec<OutputOperandAlias>,
    /// `padding_type=…`.
    pub padding_type: Option<String>,
    /// `literal=…`.
    pub literal: Option<Box<Literal>>,
    /// `operand_precision={…}`.
    pub precision: Vec<Precision>,
    /// `schedule=…`.
    pub schedule: Option<String>,
    /// `api_version=…`.
    pub api_version: Option<String>,
    /// Whether the callees were written as `to_apply=` (one) rather than
    /// `called_computations={…}`.
    pub callee_is_to_apply: bool,
}

/// Fusion attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct FusionAttrs {
    /// `kind=kLoop` etc.
    pub kind: FusionKind,
    /// `output_to_operand_aliasing={…}`.
    pub output_to_operand_aliasing: Vec<OutputOperandAlias>,
}

/// Scan attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanAttrs {
    /// The scanned dimension.
    pub dimension: i64,
    /// How many leading operands are carries.
    pub num_carries: i64,
    /// Whether the scan runs backwards.
    pub is_reverse: bool,
    /// Whether the combiner is associative.
    pub is_associative: bool,
}

/// An outfeed's attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct OutfeedAttrs {
    /// The shape fed out (defaults to operand 0's).
    pub outfeed_shape: Option<Shape>,
    /// The backend configuration string.
    pub config: Box<str>,
}

/// Triangular-solve options.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TriangularSolveAttrs {
    /// `left_side=true`.
    pub left_side: bool,
    /// `lower=true`.
    pub lower: bool,
    /// `unit_diagonal=true`.
    pub unit_diagonal: bool,
    /// `transpose_a=…` (`NO_TRANSPOSE`, `TRANSPOSE`, `ADJOINT`).
    pub transpose_a: Box<str>,
}

/// `domain={kind="…", entry=…, exit=…}`.
#[derive(Clone, Debug, PartialEq)]
pub struct DomainAttrs {
    /// The domain kind (only `"sharding"` is known).
    pub kind: String,
    /// The sharding on entry.
    pub entry: Sharding,
    /// The sharding on exit.
    pub exit: Sharding,
}

/// Instructions a list attribute refers to.
pub type InstrList = Vec<Instr>;

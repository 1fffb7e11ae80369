//! Shardings (their text form, shown here, is in `text/attrs/sharding.rs`).
//!
//! ```text
//! {replicated}  {manual}  {unknown}  {unreduced}  {maximal device=0}
//! {devices=[2,1]0,1}  {devices=[2,2]<=[4]}  {devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
//! {devices=[2,2]<=[4] last_tile_dims={manual}}  {replicated shard_as 0}
//! {{replicated}, {maximal device=0}}          (a tuple sharding)
//! ```
//!
//! Sharding metadata (`metadata={…}` inside the braces) prints only in the long
//! form, as XLA prints it only with metadata.
//!
//! Named (mesh-based) shardings, XLA's `NamedSharding`:
//!
//! ```text
//! {mesh['a'=2,'b'=4], [{'a'}, {'b':(2)2, ?}], replicated={…}, unreduced=max{…}, manual={…}}
//! {mesh['x'=2,'y'=2], device_ids=(0,2,1,3), [{'x'}]}     {mesh['a'=2,'b'=4], replicated}
//! {mesh['a'=2,'b'=4], unreduced}  {mesh['a'=2,'b'=4], manual}  {mesh[], replicated}
//! {maximal_mesh[device_id=5]}     …, metadata={{op_name="foo"}, {op_name="bar"}}}
//! ```
//!
//! They print as XLA's `NamedSharding::ToString` does, which is a function of
//! the sharding, not of its spelling: a fully replicated, unreduced or manual
//! sharding of no dimensions prints as `replicated`, `unreduced` or `manual`
//! however it was written (`{mesh['x'=2], []}` prints `{mesh['x'=2], replicated}`).
//! What XLA would reject when building the sharding (an axis used twice, unsorted
//! replicated axes, a bad sub-axis, …) is a parse error located at the axis.

use super::collective::{IotaReplicaGroups, Mesh};
use super::common_attrs::Metadata;

/// Which devices hold which tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TileAssignment {
    /// `devices=[dims]id,id,…`.
    Explicit {
        /// The tile grid.
        dims: Vec<i64>,
        /// Device of each tile, row-major.
        devices: Vec<i64>,
    },
    /// `devices=[dims]<=[reshape]T(perm)`.
    Iota(IotaReplicaGroups),
}

/// What a non-tuple sharding says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardingKind {
    /// `replicated`.
    Replicated,
    /// `manual`.
    Manual,
    /// `unknown`.
    Unknown,
    /// `unreduced`.
    Unreduced,
    /// `maximal device=N`.
    Maximal(i64),
    /// A tiled sharding.
    Tiled(TileAssignment),
    /// A named (mesh-based) sharding: `mesh[…], […]` or `maximal_mesh[…]`. It
    /// carries none of the modifiers but metadata.
    Named(Box<NamedSharding>),
}

/// A named sharding (XLA's `NamedSharding`), without its metadata (kept in
/// [`SingleSharding::metadata`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedSharding {
    /// The mesh.
    pub mesh: ShardingMesh,
    /// One entry per array dimension; empty when none are written (`[]`, or the
    /// `replicated` / `unreduced` / `manual` forms).
    pub dims: Vec<DimSharding>,
    /// `replicated={…}`: axes the array is explicitly replicated over.
    pub replicated: Vec<AxisRef>,
    /// `unreduced={…}`: axes holding partial results still to be reduced.
    pub unreduced: Vec<AxisRef>,
    /// How the unreduced axes reduce (`unreduced=max{…}`).
    pub unreduced_op: ReductionOp,
    /// `manual={…}`: axes the computation is manually partitioned over.
    pub manual: Vec<AxisRef>,
}

/// The mesh of a named sharding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardingMesh {
    /// `maximal_mesh[device_id=N]`: the whole array on one device.
    Maximal(i64),
    /// `mesh[…]`, possibly with no axes (`mesh[]`).
    Mesh(Mesh),
}

/// How the partial results along unreduced axes combine.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ReductionOp {
    /// `sum` (the default, not printed).
    #[default]
    Sum,
    /// `max`.
    Max,
    /// `min`.
    Min,
}

/// The sharding of one array dimension: `{'a', 'b':(2)2}` or, open to further
/// sharding, `{'a', ?}`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DimSharding {
    /// The axes, major to minor.
    pub axes: Vec<AxisRef>,
    /// Whether the dimension is open (`?`).
    pub open: bool,
}

/// A mesh axis or a sub-axis of one: `'b'` or `'b':(2)2`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AxisRef {
    /// The mesh axis, by index.
    pub axis: usize,
    /// `:(pre_size)size`: the part of the axis of `size` devices whose stride is
    /// `pre_size`; `None` for the whole axis.
    pub sub: Option<SubAxis>,
}

/// The `(pre_size)size` of a sub-axis.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SubAxis {
    /// The product of the sizes of the sub-axes before this one.
    pub pre_size: i64,
    /// The size of this sub-axis.
    pub size: i64,
}

impl AxisRef {
    /// `(axis, pre_size, size)`, a whole axis being `(axis, 1, axis size)`: the
    /// order XLA requires of replicated, unreduced and manual axes.
    pub(crate) fn key(&self, mesh: &Mesh) -> (usize, i64, i64) {
        match self.sub {
            Some(s) => (self.axis, s.pre_size, s.size),
            None => (self.axis, 1, mesh.axes[self.axis].1),
        }
    }

    /// Whether `self` and `other` may both shard an array (XLA's
    /// `CanCoexistWithoutOverlap`).
    pub(crate) fn coexists_with(&self, other: &AxisRef) -> bool {
        if self.axis != other.axis {
            return true;
        }
        let (Some(a), Some(b)) = (self.sub, other.sub) else {
            return false;
        };
        let (a_next, b_next) = (a.pre_size * a.size, b.pre_size * b.size);
        if a_next > b.pre_size && b_next > a.pre_size {
            return false;
        }
        a.pre_size.max(b.pre_size) % a_next.min(b_next) == 0
    }

    /// Whether `other` continues `self` on the same axis (XLA's `CanMerge`).
    pub(crate) fn merges_with(&self, other: &AxisRef) -> bool {
        match (self.sub, other.sub) {
            (Some(a), Some(b)) => self.axis == other.axis && a.pre_size * a.size == b.pre_size,
            _ => false,
        }
    }
}

/// A sharding.
#[derive(Clone, Debug, PartialEq)]
pub enum Sharding {
    /// One sharding per tuple element.
    Tuple(Vec<Sharding>),
    /// A sharding of an array (or of a whole tuple).
    Single(Box<SingleSharding>),
}

/// A non-tuple sharding with its modifiers.
#[derive(Clone, Debug, PartialEq)]
pub struct SingleSharding {
    /// The kind.
    pub kind: ShardingKind,
    /// ` last_tile_dim_replicate`.
    pub last_tile_dim_replicate: bool,
    /// ` last_tile_dims={manual, replicated}`.
    pub last_tile_dims: Vec<String>,
    /// ` shard_as N` (`true`) or ` shard_like N` (`false`).
    pub shard_group: Option<(bool, i64)>,
    /// ` metadata={…}` entries.
    pub metadata: Vec<Metadata>,
}

impl Sharding {
    /// `{replicated}`.
    pub fn replicated() -> Sharding {
        Sharding::single(ShardingKind::Replicated)
    }

    /// A sharding of `kind` with no modifiers.
    pub fn single(kind: ShardingKind) -> Sharding {
        Sharding::Single(Box::new(SingleSharding {
            kind,
            last_tile_dim_replicate: false,
            last_tile_dims: Vec::new(),
            shard_group: None,
            metadata: Vec::new(),
        }))
    }
}

impl NamedSharding {
    /// A sharding over `mesh` with no dimensions and no axes: replicated, or on
    /// one device for a maximal mesh.
    pub fn new(mesh: ShardingMesh) -> NamedSharding {
        NamedSharding {
            mesh,
            dims: Vec::new(),
            replicated: Vec::new(),
            unreduced: Vec::new(),
            unreduced_op: ReductionOp::Sum,
            manual: Vec::new(),
        }
    }

    /// Whether every dimension is unsharded and nothing is unreduced or manual
    /// (XLA's `IsReplicated`).
    pub(crate) fn is_replicated(&self) -> bool {
        !matches!(self.mesh, ShardingMesh::Maximal(_))
            && self.dims.iter().all(|d| d.axes.is_empty())
            && self.unreduced.is_empty()
            && self.manual.is_empty()
    }
}

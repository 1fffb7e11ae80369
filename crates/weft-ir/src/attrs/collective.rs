//! Collective attributes and replica groups (their text form is in
//! `text/attrs/collective.rs`).
//!
//! Replica groups come in three forms and each prints back as written:
//! - a list: `{{0,1},{2,3}}` (or `{}` for "all devices in one group");
//! - iota: `[2,4]<=[8]` or `[2,4]<=[4,2]T(1,0)` — `dims` groups of devices taken
//!   from `iota(product(reshape))` reshaped to `reshape` and transposed by `perm`;
//!   stored canonically (size-1 reshape dimensions dropped, runs of consecutive
//!   permutation entries merged), as XLA stores it;
//! - mesh axes: `mesh['x'=2,'y'=2] {'y'}` — one group per combination of the
//!   axes not named, over the named axes.
//!
//! The [`Mesh`] (`mesh['x'=2,'y'=2]`, optionally `, device_ids=(…)`) and the
//! resolution of an axis reference against it are shared with named shardings
//! (`sharding={mesh[…], […]}`, see `sharding.rs`), as XLA shares `Mesh`
//! between `MeshAxesReplicaGroupList` and `NamedSharding`.

/// The most device ids weft expands a compact device list (an iota list, a
/// mesh) into: far more devices than any machine has, yet few enough that a
/// short text cannot ask for gigabytes of ids.
pub const MAX_EXPANDED_DEVICES: u64 = 1 << 24;

/// A compact device list that names more devices than weft expands
/// ([`MAX_EXPANDED_DEVICES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyDevices {
    /// How many devices it names; `None` past `i64::MAX`.
    pub devices: Option<u64>,
}

impl std::fmt::Display for TooManyDevices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.devices {
            Some(n) => write!(f, "the device list names {n} devices"),
            None => write!(f, "the device list names more devices than fit in int64"),
        }?;
        write!(f, ", more than the {MAX_EXPANDED_DEVICES} weft expands")
    }
}

impl std::error::Error for TooManyDevices {}

/// `count` devices, if weft expands that many.
fn expandable(count: Option<crate::size::Size>) -> Result<usize, TooManyDevices> {
    match count {
        Some(n) if n.get() <= MAX_EXPANDED_DEVICES => Ok(n.as_usize()),
        _ => Err(TooManyDevices {
            devices: count.map(|n| n.get()),
        }),
    }
}

/// An iota tile assignment: `[dims]<=[reshape]T(perm)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IotaReplicaGroups {
    /// The shape of the result (`[groups, group size]` for replica groups).
    pub dims: Vec<i64>,
    /// The shape `iota` is reshaped to before transposing.
    pub reshape: Vec<i64>,
    /// The transpose permutation (identity when not written).
    pub perm: Vec<i64>,
}

impl IotaReplicaGroups {
    /// Builds a canonical iota assignment.
    pub fn new(dims: Vec<i64>, reshape: Vec<i64>, perm: Vec<i64>) -> IotaReplicaGroups {
        let (reshape, perm) = canonicalize_iota(reshape, perm);
        IotaReplicaGroups {
            dims,
            reshape,
            perm,
        }
    }

    /// How many devices the list names (the product of `reshape`), if it
    /// fits in `i64`; nothing is expanded.
    pub fn device_count(&self) -> Option<crate::size::Size> {
        crate::size::product(&self.reshape)
    }

    /// The device ids in row-major order of `dims`; an error, before
    /// allocating, when there are more than [`MAX_EXPANDED_DEVICES`].
    pub fn device_ids(&self) -> Result<Vec<i64>, TooManyDevices> {
        let total = expandable(self.device_count())?;
        let rank = self.reshape.len();
        // Strides of the reshaped iota.
        let mut strides = vec![1i64; rank];
        for d in (0..rank.saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * self.reshape[d + 1];
        }
        let transposed: Vec<i64> = self
            .perm
            .iter()
            .map(|&p| self.reshape[p as usize])
            .collect();
        let mut ids = Vec::with_capacity(total);
        let mut index = vec![0i64; rank];
        for _ in 0..total {
            let id: i64 = (0..rank)
                .map(|d| index[d] * strides[self.perm[d] as usize])
                .sum();
            ids.push(id);
            for d in (0..rank).rev() {
                index[d] += 1;
                if index[d] < transposed[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Ok(ids)
    }
}

/// Drops size-1 dimensions and merges runs of consecutive permutation entries,
/// until nothing changes (XLA's `IotaTileAssignment` canonical form).
pub(crate) fn canonicalize_iota(mut reshape: Vec<i64>, mut perm: Vec<i64>) -> (Vec<i64>, Vec<i64>) {
    loop {
        let before = (reshape.clone(), perm.clone());
        // Drop size-1 dimensions.
        if reshape.contains(&1) && reshape.len() > 1 {
            let keep: Vec<usize> = (0..reshape.len()).filter(|&i| reshape[i] != 1).collect();
            let renumber = |old: usize| keep.iter().position(|&k| k == old);
            perm = perm
                .iter()
                .filter_map(|&p| renumber(p as usize).map(|n| n as i64))
                .collect();
            reshape = keep.iter().map(|&k| reshape[k]).collect();
        }
        // Merge runs perm[i+1] == perm[i] + 1.
        let mut i = 0;
        while i + 1 < perm.len() {
            if perm[i + 1] == perm[i] + 1 {
                let a = perm[i] as usize;
                reshape[a] *= reshape[a + 1];
                reshape.remove(a + 1);
                perm.remove(i + 1);
                for p in perm.iter_mut() {
                    if *p > a as i64 {
                        *p -= 1;
                    }
                }
            } else {
                i += 1;
            }
        }
        if reshape.is_empty() {
            return (vec![1], vec![0]);
        }
        if (reshape.clone(), perm.clone()) == before {
            return (reshape, perm);
        }
    }
}

/// A device mesh: `mesh['x'=2,'y'=4]`, optionally followed by
/// `, device_ids=(…)` when the devices are not in row-major order (XLA's
/// `Mesh::ToString`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    /// The axes with their sizes, major to minor.
    pub axes: Vec<(String, i64)>,
    /// Which device sits at each mesh position.
    pub devices: MeshDevices,
}

/// The device order of a [`Mesh`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MeshDevices {
    /// Devices `0..n` in row-major order (no `device_ids=`).
    Iota,
    /// `device_ids=([reshape]T(perm))`: `iota(n)` reshaped and transposed, kept in
    /// XLA's canonical form with more than one reshape dimension (a form that
    /// canonicalizes to one dimension is [`MeshDevices::Iota`]).
    Transposed {
        /// The shape `iota` is reshaped to.
        reshape: Vec<i64>,
        /// The transpose permutation.
        perm: Vec<i64>,
    },
    /// `device_ids=(d,d,…)`: a permutation of `0..n` other than the identity.
    List(Vec<i64>),
}

impl Mesh {
    /// The number of devices, if it fits `i64`.
    pub fn num_devices(&self) -> Option<i64> {
        self.axes
            .iter()
            .try_fold(1i64, |acc, (_, size)| acc.checked_mul(*size))
    }

    /// The device ids in row-major order of the mesh axes; an error, before
    /// allocating, when there are more than [`MAX_EXPANDED_DEVICES`].
    pub fn device_ids(&self) -> Result<Vec<i64>, TooManyDevices> {
        let count = self.num_devices().and_then(crate::size::Size::from_i64);
        match &self.devices {
            MeshDevices::Iota => Ok((0..expandable(count)? as i64).collect()),
            MeshDevices::Transposed { reshape, perm } => IotaReplicaGroups {
                dims: self.axes.iter().map(|(_, s)| *s).collect(),
                reshape: reshape.clone(),
                perm: perm.clone(),
            }
            .device_ids(),
            MeshDevices::List(ids) => Ok(ids.clone()),
        }
    }

    /// The index of the axis named `name`.
    pub fn axis_index(&self, name: &str) -> Option<usize> {
        self.axes.iter().position(|(n, _)| n == name)
    }
}

/// Mesh-axes replica groups: `mesh['x'=2,'y'=2] {'y'}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeshAxesGroups {
    /// The mesh.
    pub mesh: Mesh,
    /// The axes the collective runs over, by index into the mesh axes.
    pub selected: Vec<usize>,
}

/// Replica groups in any of their three forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplicaGroups {
    /// `{{0,1},{2,3}}`.
    List(Vec<Vec<i64>>),
    /// `[2,4]<=[8]`.
    Iota(IotaReplicaGroups),
    /// `mesh[…] {…}`.
    Mesh(MeshAxesGroups),
}

impl Default for ReplicaGroups {
    fn default() -> Self {
        ReplicaGroups::List(Vec::new())
    }
}

impl ReplicaGroups {
    /// The groups as explicit device lists (an empty list means one group of
    /// every device); an error, before allocating, when a compact form names
    /// more than [`MAX_EXPANDED_DEVICES`] devices.
    pub fn groups(&self) -> Result<Vec<Vec<i64>>, TooManyDevices> {
        match self {
            ReplicaGroups::List(groups) => Ok(groups.clone()),
            ReplicaGroups::Iota(iota) => {
                let ids = iota.device_ids()?;
                let size = iota.dims.last().copied().unwrap_or(1).max(1) as usize;
                Ok(ids.chunks(size).map(|c| c.to_vec()).collect())
            }
            ReplicaGroups::Mesh(mesh) => mesh.groups(),
        }
    }
}

impl MeshAxesGroups {
    /// The explicit groups: for each combination of the unselected axes, the
    /// devices along the selected axes.
    pub fn groups(&self) -> Result<Vec<Vec<i64>>, TooManyDevices> {
        let sizes: Vec<i64> = self.mesh.axes.iter().map(|(_, s)| *s).collect();
        let ids = self.mesh.device_ids()?;
        let total = expandable(
            self.mesh
                .num_devices()
                .and_then(crate::size::Size::from_i64),
        )?;
        let rank = sizes.len();
        let mut groups: Vec<(Vec<i64>, Vec<i64>)> = Vec::new();
        let mut index = vec![0i64; rank];
        for linear in 0..total {
            let key: Vec<i64> = (0..rank)
                .filter(|d| !self.selected.contains(d))
                .map(|d| index[d])
                .collect();
            let device = ids.get(linear).copied().unwrap_or(linear as i64);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, g)) => g.push(device),
                None => groups.push((key, vec![device])),
            }
            for d in (0..rank).rev() {
                index[d] += 1;
                if index[d] < sizes[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Ok(groups.into_iter().map(|(_, g)| g).collect())
    }
}

/// Attributes of all-reduce, all-gather, reduce-scatter, all-to-all,
/// ragged-all-to-all, collective-broadcast, collective-reduce and the
/// all-reduce/all-gather starts.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CollectiveAttrs {
    /// `channel_id=`.
    pub channel_id: Option<i64>,
    /// `replica_groups=`.
    pub replica_groups: ReplicaGroups,
    /// `constrain_layout=true`.
    pub constrain_layout: bool,
    /// `use_global_device_ids=true`.
    pub use_global_device_ids: bool,
    /// `dimensions={d}`: the gather / scatter / split dimension.
    pub dimension: Option<i64>,
    /// collective-broadcast and collective-reduce's `has_dynamic_root=`.
    pub has_dynamic_root: Option<bool>,
}

/// collective-permute(-start) attributes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CollectivePermuteAttrs {
    /// `channel_id=`.
    pub channel_id: Option<i64>,
    /// `source_target_pairs={{s,t},…}`.
    pub source_target_pairs: Vec<(i64, i64)>,
    /// `slice_sizes={{…},…}` of the in-place form.
    pub slice_sizes: Option<Vec<Vec<i64>>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iota_canonical_form() {
        let c = |r: Vec<i64>, p: Vec<i64>| canonicalize_iota(r, p);
        assert_eq!(c(vec![3, 4, 5], vec![0, 1, 2]), (vec![60], vec![0]));
        assert_eq!(c(vec![3, 4, 5], vec![1, 2, 0]), (vec![3, 20], vec![1, 0]));
        assert_eq!(c(vec![2, 2], vec![0, 1]), (vec![4], vec![0]));
        assert_eq!(c(vec![2, 8], vec![1, 0]), (vec![2, 8], vec![1, 0]));
        assert_eq!(c(vec![1, 1], vec![1, 0]), (vec![1], vec![0]));
    }

    #[test]
    fn iota_device_ids_follow_the_transpose() {
        let iota = IotaReplicaGroups::new(vec![2, 4], vec![4, 2], vec![1, 0]);
        assert_eq!(iota.device_ids().unwrap(), vec![0, 2, 4, 6, 1, 3, 5, 7]);
        let groups = ReplicaGroups::Iota(iota).groups().unwrap();
        assert_eq!(groups, vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]]);
    }

    #[test]
    fn huge_device_lists_are_refused_before_expanding() {
        let iota = IotaReplicaGroups::new(vec![100_000, 100_000], vec![10_000_000_000], vec![0]);
        let error = ReplicaGroups::Iota(iota).groups().unwrap_err();
        assert_eq!(error.devices, Some(10_000_000_000));
        assert!(error.to_string().contains("names 10000000000 devices"));
    }

    #[test]
    fn mesh_groups_run_over_selected_axes() {
        let mesh = MeshAxesGroups {
            mesh: Mesh {
                axes: vec![("a".into(), 2), ("b".into(), 2)],
                devices: MeshDevices::Iota,
            },
            selected: vec![1],
        };
        assert_eq!(mesh.groups().unwrap(), vec![vec![0, 1], vec![2, 3]]);
        let mesh = MeshAxesGroups {
            selected: vec![0],
            ..mesh
        };
        assert_eq!(mesh.groups().unwrap(), vec![vec![0, 2], vec![1, 3]]);
    }
}

//! Collective attributes and replica groups, parse and print side by side.
//!
//! Replica groups come in three forms and each prints back as written:
//! - a list: `{{0,1},{2,3}}` (or `{}` for "all devices in one group");
//! - iota: `[2,4]<=[8]` or `[2,4]<=[4,2]T(1,0)` — `dims` groups of devices taken
//!   from `iota(product(reshape))` reshaped to `reshape` and transposed by `perm`;
//!   stored canonically (size-1 reshape dimensions dropped, runs of consecutive
//!   permutation entries merged), as XLA stores it;
//! - mesh axes: `mesh['x'=2,'y'=2] {'y'}` — one group per combination of the
//!   axes not named, over the named axes.

use crate::text::lexer::Tok;
use crate::text::parser::{PResult, Parser};
use crate::text::printer::push_int_list;
use crate::text::shape::push_int;

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

    /// The device ids in row-major order of `dims`.
    pub fn device_ids(&self) -> Vec<i64> {
        let total: i64 = self.reshape.iter().product();
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
        let mut ids = Vec::with_capacity(total.max(0) as usize);
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
        ids
    }
}

/// Drops size-1 dimensions and merges runs of consecutive permutation entries,
/// until nothing changes (XLA's `IotaTileAssignment` canonical form).
fn canonicalize_iota(mut reshape: Vec<i64>, mut perm: Vec<i64>) -> (Vec<i64>, Vec<i64>) {
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

/// Mesh-axes replica groups: `mesh['x'=2,'y'=2, device_ids=(…)] {'y'}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeshAxesGroups {
    /// The mesh axes with their sizes.
    pub axes: Vec<(String, i64)>,
    /// Explicit device ids of the mesh, in row-major order.
    pub device_ids: Option<Vec<i64>>,
    /// The axes the collective runs over, by index into `axes`.
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
    /// every device).
    pub fn groups(&self) -> Vec<Vec<i64>> {
        match self {
            ReplicaGroups::List(groups) => groups.clone(),
            ReplicaGroups::Iota(iota) => {
                let ids = iota.device_ids();
                let size = iota.dims.last().copied().unwrap_or(1).max(1) as usize;
                ids.chunks(size).map(|c| c.to_vec()).collect()
            }
            ReplicaGroups::Mesh(mesh) => mesh.groups(),
        }
    }
}

impl MeshAxesGroups {
    /// The explicit groups: for each combination of the unselected axes, the
    /// devices along the selected axes.
    pub fn groups(&self) -> Vec<Vec<i64>> {
        let sizes: Vec<i64> = self.axes.iter().map(|(_, s)| *s).collect();
        let total: i64 = sizes.iter().product();
        let ids: Vec<i64> = match &self.device_ids {
            Some(ids) => ids.clone(),
            None => (0..total).collect(),
        };
        let rank = sizes.len();
        let mut groups: Vec<(Vec<i64>, Vec<i64>)> = Vec::new();
        let mut index = vec![0i64; rank];
        for linear in 0..total as usize {
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
        groups.into_iter().map(|(_, g)| g).collect()
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

impl Parser<'_> {
    /// Any of the three replica-group forms.
    pub(crate) fn replica_groups(&mut self) -> PResult<ReplicaGroups> {
        match self.kind() {
            Tok::LBrace => Ok(ReplicaGroups::List(self.int_list_list()?)),
            Tok::LSquare => {
                let span = self.span();
                let iota = self.iota_assignment()?;
                let groups: i64 = iota.dims.iter().product();
                let devices: i64 = iota.reshape.iter().product();
                if groups != devices {
                    return Err(self.error_at(
                        span,
                        format!(
                            "collective device list iota size {devices} does not match the tile assignment dimensions product {groups}"
                        ),
                    ));
                }
                Ok(ReplicaGroups::Iota(iota))
            }
            Tok::Ident if self.cur_text() == "mesh" => Ok(ReplicaGroups::Mesh(self.mesh_axes()?)),
            _ => Err(self
                .error(format!("expected replica groups, found {}", self.found()))
                .with_hint(
                    "replica groups are {{0,1},{2,3}}, an iota [2,2]<=[4], or mesh['x'=2] {'x'}",
                )),
        }
    }

    /// `[d,…]<=[r,…]` optionally followed by `T(p,…)`.
    pub(crate) fn iota_assignment(&mut self) -> PResult<IotaReplicaGroups> {
        let dims = self.square_int_list()?;
        self.expect(Tok::Leq, "'<=' in an iota list")?;
        let reshape_span = self.span();
        let reshape = self.square_int_list()?;
        let perm = if self.at(Tok::Ident) && self.cur_text() == "T" {
            self.bump();
            let span = self.span();
            self.expect(Tok::LParen, "'(' after T")?;
            let mut perm = Vec::new();
            loop {
                perm.push(self.int()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "')' closing T(...)")?;
            let mut sorted = perm.clone();
            sorted.sort_unstable();
            if sorted != (0..reshape.len() as i64).collect::<Vec<_>>() {
                return Err(self.error_at(
                    span,
                    format!(
                        "T({}) is not a permutation of the {} reshape dimensions",
                        perm.iter()
                            .map(|p| p.to_string())
                            .collect::<Vec<_>>()
                            .join(","),
                        reshape.len()
                    ),
                ));
            }
            perm
        } else {
            (0..reshape.len() as i64).collect()
        };
        if reshape.iter().any(|&d| d <= 0) {
            return Err(self.error_at(reshape_span, "iota reshape dimensions must be positive"));
        }
        Ok(IotaReplicaGroups::new(dims, reshape, perm))
    }

    fn square_int_list(&mut self) -> PResult<Vec<i64>> {
        self.expect(Tok::LSquare, "'['")?;
        let mut values = Vec::new();
        if self.eat(Tok::RSquare) {
            return Ok(values);
        }
        loop {
            values.push(self.int()?);
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RSquare, "',' or ']'")?;
            return Ok(values);
        }
    }

    fn mesh_axes(&mut self) -> PResult<MeshAxesGroups> {
        self.bump(); // mesh
        self.expect(Tok::LSquare, "'[' after mesh")?;
        let mut axes: Vec<(String, i64)> = Vec::new();
        let mut device_ids = None;
        loop {
            if self.at(Tok::AttrName) && self.cur_text() == "device_ids" {
                self.bump();
                self.expect(Tok::LParen, "'(' after device_ids=")?;
                let mut ids = Vec::new();
                loop {
                    ids.push(self.int()?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen, "')' closing device_ids")?;
                device_ids = Some(ids);
            } else {
                let name = self.string()?;
                self.expect(Tok::Equal, "'=' after the axis name")?;
                let size = self.uint()?;
                axes.push((name, size));
            }
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RSquare, "',' or ']' in the mesh")?;
            break;
        }
        let total: i64 = axes.iter().map(|(_, s)| *s).product();
        if let Some(ids) = &device_ids
            && ids.len() as i64 != total
        {
            return Err(self.error(format!(
                "Expected {total} device_ids based on mesh axes, but got {}",
                ids.len()
            )));
        }
        let mesh_text = format!(
            "mesh[{}]",
            axes.iter()
                .map(|(n, s)| format!("'{n}'={s}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let selected = self.braced_list(|p| {
            let span = p.span();
            let name = p.string()?;
            if let Some(i) = axes.iter().position(|(n, _)| *n == name) {
                return Ok(i);
            }
            match name.parse::<usize>() {
                Ok(i) if i < axes.len() => Ok(i),
                Ok(i) => Err(p.error_at(
                    span,
                    format!("axis index {i} is out of bounds for mesh {mesh_text}"),
                )),
                Err(_) => Err(p.error_at(
                    span,
                    format!("axis '{name}' is not a valid axis name or index in mesh {mesh_text}"),
                )),
            }
        })?;
        Ok(MeshAxesGroups {
            axes,
            device_ids,
            selected,
        })
    }
}

impl ReplicaGroups {
    /// Appends the groups as written.
    pub fn print(&self, out: &mut String) {
        match self {
            ReplicaGroups::List(groups) => {
                out.push('{');
                for (i, g) in groups.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_int_list(out, g);
                }
                out.push('}');
            }
            ReplicaGroups::Iota(iota) => iota.print(out),
            ReplicaGroups::Mesh(mesh) => {
                out.push_str("mesh[");
                for (i, (name, size)) in mesh.axes.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('\'');
                    out.push_str(name);
                    out.push_str("'=");
                    push_int(out, *size);
                }
                if let Some(ids) = &mesh.device_ids {
                    out.push_str(", device_ids=(");
                    for (i, id) in ids.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        push_int(out, *id);
                    }
                    out.push(')');
                }
                out.push_str("] {");
                for (i, &axis) in mesh.selected.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('\'');
                    out.push_str(&mesh.axes[axis].0);
                    out.push('\'');
                }
                out.push('}');
            }
        }
    }
}

impl IotaReplicaGroups {
    /// Appends `[dims]<=[reshape]` and `T(perm)` when there is more than one
    /// reshape dimension.
    pub fn print(&self, out: &mut String) {
        let square = |out: &mut String, values: &[i64]| {
            out.push('[');
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_int(out, *v);
            }
            out.push(']');
        };
        square(out, &self.dims);
        out.push_str("<=");
        square(out, &self.reshape);
        if self.reshape.len() > 1 {
            out.push_str("T(");
            for (i, v) in self.perm.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_int(out, *v);
            }
            out.push(')');
        }
    }
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
        assert_eq!(iota.device_ids(), vec![0, 2, 4, 6, 1, 3, 5, 7]);
        let groups = ReplicaGroups::Iota(iota).groups();
        assert_eq!(groups, vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]]);
    }

    #[test]
    fn mesh_groups_run_over_selected_axes() {
        let mesh = MeshAxesGroups {
            axes: vec![("a".into(), 2), ("b".into(), 2)],
            device_ids: None,
            selected: vec![1],
        };
        assert_eq!(mesh.groups(), vec![vec![0, 1], vec![2, 3]]);
        let mesh = MeshAxesGroups {
            selected: vec![0],
            ..mesh
        };
        assert_eq!(mesh.groups(), vec![vec![0, 2], vec![1, 3]]);
    }
}

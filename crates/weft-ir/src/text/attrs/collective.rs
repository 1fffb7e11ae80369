//! Replica groups and meshes in HLO text, parse and print side by side.
//!
//! Replica groups come in three forms and each prints back as written:
//! - a list: `{{0,1},{2,3}}` (or `{}` for "all devices in one group");
//! - iota: `[2,4]<=[8]` or `[2,4]<=[4,2]T(1,0)`;
//! - mesh axes: `mesh['x'=2,'y'=2] {'y'}`.
//!
//! The mesh (`mesh['x'=2,'y'=2]`, optionally `, device_ids=(…)`) and the
//! resolution of an axis reference against it are shared with named shardings
//! (`sharding.rs`), as XLA shares `Mesh` between `MeshAxesReplicaGroupList` and
//! `NamedSharding`.

use crate::attrs::{IotaReplicaGroups, Mesh, MeshAxesGroups, MeshDevices, ReplicaGroups};
use crate::diagnostic::Span;
use crate::text::integers::{push_int, push_int_list, push_int_list_compact};
use crate::text::lexer::{Tok, escape_into};
use crate::text::parser::{PResult, Parser};

impl Mesh {
    /// Appends `'name'` of axis `axis`.
    pub fn push_axis_name(&self, out: &mut String, axis: usize) {
        out.push('\'');
        escape_into(out, &self.axes[axis].0);
        out.push('\'');
    }

    /// Appends the mesh as XLA's `Mesh::ToString` prints it.
    pub fn print(&self, out: &mut String) {
        out.push_str("mesh[");
        for i in 0..self.axes.len() {
            if i > 0 {
                out.push(',');
            }
            self.push_axis_name(out, i);
            out.push('=');
            push_int(out, self.axes[i].1);
        }
        out.push(']');
        match &self.devices {
            MeshDevices::Iota => {}
            MeshDevices::Transposed { reshape, perm } => {
                out.push_str(", device_ids=([");
                push_int_list_compact(out, reshape);
                out.push_str("]T(");
                push_int_list_compact(out, perm);
                out.push_str("))");
            }
            MeshDevices::List(ids) => {
                out.push_str(", device_ids=(");
                push_int_list_compact(out, ids);
                out.push(')');
            }
        }
    }

    /// The mesh as text, for messages.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.print(&mut out);
        out
    }
}

impl Parser<'_> {
    /// Any of the three replica-group forms.
    pub(crate) fn replica_groups(&mut self) -> PResult<ReplicaGroups> {
        match self.kind() {
            Tok::LBrace => Ok(ReplicaGroups::List(self.int_list_list()?)),
            Tok::LSquare => {
                let span = self.span();
                let iota = self.iota_assignment()?;
                let product = |list: &[i64]| crate::size::product(list).map_or(0, |n| n.get());
                let (groups, devices) = (product(&iota.dims), product(&iota.reshape));
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
        let perm = if self.at_word("T") {
            self.transpose_perm(reshape.len())?
        } else {
            (0..reshape.len() as i64).collect()
        };
        if reshape.iter().any(|&d| d <= 0) {
            return Err(self.error_at(reshape_span, "iota reshape dimensions must be positive"));
        }
        // The list is expanded (and canonicalized by multiplying dimensions)
        // later: its sizes must not wrap.
        if crate::size::product(&dims).is_none() || crate::size::product(&reshape).is_none() {
            return Err(self.error_at(
                reshape_span,
                "the iota list names more devices than fit in int64",
            ));
        }
        Ok(IotaReplicaGroups::new(dims, reshape, perm))
    }

    /// `T(p,…)`, a permutation of `rank` dimensions (the current token is `T`).
    pub(crate) fn transpose_perm(&mut self, rank: usize) -> PResult<Vec<i64>> {
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
        if sorted != (0..rank as i64).collect::<Vec<_>>() {
            return Err(self.error_at(
                span,
                format!(
                    "T({}) is not a permutation of the {rank} reshape dimensions",
                    perm.iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                ),
            ));
        }
        Ok(perm)
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

    /// Mesh-axes replica groups: a [`Mesh`] and the braced axes to run over.
    fn mesh_axes(&mut self) -> PResult<MeshAxesGroups> {
        let mesh = self.mesh(false)?;
        let selected = self.braced_list(|p| p.mesh_axis(&mesh))?;
        Ok(MeshAxesGroups { mesh, selected })
    }

    /// `mesh['x'=2,'y'=2]`, then an optional `, device_ids=(…)` (the current token
    /// is `mesh`). `allow_empty` admits `mesh[]`, which named shardings accept.
    ///
    /// `device_ids=(…)` is also read inside the brackets, the form weft printed
    /// for replica groups before; XLA only reads (and prints) it after `]`.
    pub(crate) fn mesh(&mut self, allow_empty: bool) -> PResult<Mesh> {
        self.bump(); // mesh
        self.expect(Tok::LSquare, "'[' after mesh")?;
        let mut axes: Vec<(String, i64)> = Vec::new();
        if self.at(Tok::RSquare) {
            if !allow_empty {
                return Err(self
                    .error("expected a mesh axis such as 'x'=2, found ']'")
                    .with_hint("the mesh of replica groups needs at least one axis"));
            }
            self.bump();
            return Ok(Mesh {
                axes,
                devices: MeshDevices::Iota,
            });
        }
        let mut device_ids = None;
        loop {
            if device_ids.is_none() && self.at(Tok::AttrName) && self.cur_text() == "device_ids" {
                device_ids = Some(self.raw_device_ids()?);
            } else {
                let span = self.span();
                let name = self.mesh_axis_name()?;
                if axes.iter().any(|(n, _)| *n == name) {
                    return Err(
                        self.error_at(span, format!("the mesh has two axes named '{name}'"))
                    );
                }
                if name.trim().parse::<i64>().is_ok() {
                    return Err(self
                        .error_at(span, format!("mesh axis name '{name}' is an integer"))
                        .with_hint("an integer names an axis by index in axis references, so XLA rejects it as an axis name"));
                }
                self.expect(Tok::Equal, "'=' after the axis name")?;
                let size_span = self.span();
                let size = self.int()?;
                if size < 1 {
                    return Err(self.error_at(
                        size_span,
                        format!("mesh axis size must be positive, found {size}"),
                    ));
                }
                axes.push((name, size));
            }
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RSquare, "',' or ']' in the mesh")?;
            break;
        }
        if axes.is_empty() {
            return Err(self.error_at(
                device_ids.as_ref().map_or(self.span(), |(span, _)| *span),
                "a mesh with device_ids needs at least one axis",
            ));
        }
        if device_ids.is_none()
            && self.at(Tok::Comma)
            && let next = self.peek()
            && next.kind == Tok::AttrName
            && self.text(next) == "device_ids"
        {
            self.bump();
            device_ids = Some(self.raw_device_ids()?);
        }
        let mut mesh = Mesh {
            axes,
            devices: MeshDevices::Iota,
        };
        if let Some((span, ids)) = device_ids {
            mesh.devices = self.mesh_devices(&mesh, span, ids)?;
        }
        Ok(mesh)
    }

    /// A quoted mesh axis name.
    fn mesh_axis_name(&mut self) -> PResult<String> {
        if !self.at(Tok::Str) {
            return Err(self.error(format!(
                "expected a quoted axis name such as 'x', found {}",
                self.found()
            )));
        }
        self.string()
    }

    /// `device_ids=(…)` as written (the current token is `device_ids=`).
    fn raw_device_ids(&mut self) -> PResult<(Span, RawDeviceIds)> {
        let span = self.span();
        self.bump();
        self.expect(Tok::LParen, "'(' after device_ids=")?;
        if self.at(Tok::LSquare) {
            let reshape_span = self.span();
            let reshape = self.square_int_list()?;
            if reshape.is_empty() {
                return Err(
                    self.error_at(reshape_span, "expected non-empty iota reshape dimensions")
                );
            }
            if reshape.iter().any(|&d| d <= 0) {
                return Err(self.error_at(reshape_span, "iota reshape dimensions must be positive"));
            }
            let perm = if reshape.len() == 1 {
                vec![0]
            } else {
                if !self.at_word("T") {
                    return Err(self.error(format!(
                        "expected 'T(' after the iota reshape dimensions, found {}",
                        self.found()
                    )));
                }
                self.transpose_perm(reshape.len())?
            };
            self.expect(Tok::RParen, "')' closing device_ids")?;
            return Ok((span, RawDeviceIds::Iota { reshape, perm }));
        }
        let mut ids = Vec::new();
        if !self.at(Tok::RParen) {
            loop {
                ids.push(self.int()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')' closing device_ids")?;
        Ok((span, RawDeviceIds::List(ids)))
    }

    /// Checks `device_ids` against the mesh axes (as XLA's parser and
    /// `Mesh::ValidateMesh` do) and puts them in canonical form.
    fn mesh_devices(&self, mesh: &Mesh, span: Span, ids: RawDeviceIds) -> PResult<MeshDevices> {
        let Some(total) = mesh.num_devices() else {
            return Err(self.error_at(span, "the mesh has more devices than fit in s64"));
        };
        match ids {
            RawDeviceIds::Iota { reshape, perm } => {
                let size = reshape.iter().try_fold(1i64, |a, &d| a.checked_mul(d));
                if size != Some(total) {
                    let size = size.map_or("out of range".to_string(), |s| s.to_string());
                    return Err(self.error_at(
                        span,
                        format!(
                            "mesh device_ids iota size {size} does not match the product of the mesh axis sizes {total}"
                        ),
                    ));
                }
                let (reshape, perm) = crate::attrs::canonicalize_iota(reshape, perm);
                if reshape.len() == 1 {
                    Ok(MeshDevices::Iota)
                } else {
                    Ok(MeshDevices::Transposed { reshape, perm })
                }
            }
            RawDeviceIds::List(ids) => {
                if ids.len() as i64 != total {
                    return Err(self.error_at(
                        span,
                        format!(
                            "Expected {total} device_ids based on mesh axes, but got {}",
                            ids.len()
                        ),
                    ));
                }
                let mut sorted = ids.clone();
                sorted.sort_unstable();
                if sorted.iter().enumerate().any(|(i, &d)| d != i as i64) {
                    return Err(self.error_at(
                        span,
                        format!("device_ids must be a permutation of 0..{total}"),
                    ));
                }
                if ids == sorted {
                    return Err(self
                        .error_at(span, "device_ids list the devices in their default order")
                        .with_hint(
                            "XLA rejects an explicit identity device list; leave device_ids out",
                        ));
                }
                Ok(MeshDevices::List(ids))
            }
        }
    }

    /// A quoted axis name, or an axis index in quotes, of `mesh`; errors are
    /// located at the reference and name the mesh (as XLA's `ParseAxisRef`).
    pub(crate) fn mesh_axis(&mut self, mesh: &Mesh) -> PResult<usize> {
        let span = self.span();
        let name = self.mesh_axis_name()?;
        if let Some(i) = mesh.axis_index(&name) {
            return Ok(i);
        }
        match name.parse::<i64>() {
            Ok(i) if (0..mesh.axes.len() as i64).contains(&i) => Ok(i as usize),
            Ok(i) => Err(self.error_at(
                span,
                format!(
                    "axis index {i} is out of bounds for mesh {} which has {} axes",
                    mesh.to_text(),
                    mesh.axes.len()
                ),
            )),
            Err(_) => Err(self.error_at(
                span,
                format!(
                    "axis '{name}' is not a valid axis name or index in mesh {}",
                    mesh.to_text()
                ),
            )),
        }
    }
}

/// `device_ids=(…)` before it is checked against the mesh.
enum RawDeviceIds {
    Iota { reshape: Vec<i64>, perm: Vec<i64> },
    List(Vec<i64>),
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
            ReplicaGroups::Mesh(groups) => {
                groups.mesh.print(out);
                out.push_str(" {");
                for (i, &axis) in groups.selected.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    groups.mesh.push_axis_name(out, axis);
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

    fn parse_groups(text: &str) -> Result<ReplicaGroups, crate::diagnostic::Diagnostic> {
        let mut p = Parser::new(text);
        let g = p.replica_groups()?;
        if !p.at(Tok::Eof) {
            return Err(p.error("trailing text").into());
        }
        Ok(g)
    }

    fn printed(g: &ReplicaGroups) -> String {
        let mut out = String::new();
        g.print(&mut out);
        out
    }

    /// Mesh replica groups print their mesh as XLA's `Mesh::ToString`:
    /// `device_ids=(…)` after the brackets (the inside form, which weft printed
    /// before, still parses).
    #[test]
    fn mesh_groups_print_device_ids_after_the_mesh() {
        for (text, out, groups) in [
            (
                "mesh['axis_0'=2,'axis_1'=2] {'axis_1'}",
                "mesh['axis_0'=2,'axis_1'=2] {'axis_1'}",
                vec![vec![0, 1], vec![2, 3]],
            ),
            (
                "mesh['x'=2,'y'=2], device_ids=(0,2,1,3) {'x'}",
                "mesh['x'=2,'y'=2], device_ids=(0,2,1,3) {'x'}",
                vec![vec![0, 1], vec![2, 3]],
            ),
            (
                "mesh['x'=2,'y'=2, device_ids=(0,2,1,3)] {'x'}",
                "mesh['x'=2,'y'=2], device_ids=(0,2,1,3) {'x'}",
                vec![vec![0, 1], vec![2, 3]],
            ),
            (
                "mesh['x'=2,'y'=2], device_ids=([2,2]T(1,0)) {'y'}",
                "mesh['x'=2,'y'=2], device_ids=([2,2]T(1,0)) {'y'}",
                vec![vec![0, 2], vec![1, 3]],
            ),
            (
                "mesh['x'=2,'y'=2], device_ids=([4]) {'0','1'}",
                "mesh['x'=2,'y'=2] {'x','y'}",
                vec![vec![0, 1, 2, 3]],
            ),
        ] {
            let g = parse_groups(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
            assert_eq!(printed(&g), out, "{text}");
            assert_eq!(g.groups(), Ok(groups), "{text}");
            assert_eq!(printed(&parse_groups(out).unwrap()), out);
        }
    }

    #[test]
    fn mesh_group_errors_name_the_mesh() {
        for (text, at, message) in [
            (
                "mesh['a'=2,'b'=2] {'bogus'}",
                "'bogus'",
                "axis 'bogus' is not a valid axis name or index in mesh mesh['a'=2,'b'=2]",
            ),
            (
                "mesh['a'=2,'b'=2], device_ids=(1,0,3,2) {'5'}",
                "'5'",
                "axis index 5 is out of bounds for mesh mesh['a'=2,'b'=2], device_ids=(1,0,3,2) which has 2 axes",
            ),
            (
                "mesh['axis_0'=2,'axis_1'=2, device_ids=(0,1,2)] {'axis_0'}",
                "device_ids",
                "Expected 4 device_ids based on mesh axes, but got 3",
            ),
            ("mesh[] {}", "]", "expected a mesh axis"),
            ("mesh['a'=2] {'a':(1)2}", ":", "expected ',' or '}'"),
        ] {
            let d = parse_groups(text).unwrap_err();
            assert_eq!(d.span.start as usize, text.find(at).unwrap(), "{text}");
            assert!(d.message.contains(message), "{text}: {}", d.message);
        }
    }
}

//! Shardings in HLO text, parse and print side by side.
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

use crate::attrs::{
    AxisRef, DimSharding, IotaReplicaGroups, Mesh, Metadata, NamedSharding, ReductionOp, Sharding,
    ShardingKind, ShardingMesh, SingleSharding, SubAxis, TileAssignment,
};
use crate::diagnostic::Span;
use crate::text::integers::{push_int, push_int_list_compact};
use crate::text::lexer::Tok;
use crate::text::parser::{PResult, Parser};

impl AxisRef {
    /// Appends `'name'` or `'name':(pre)size`.
    pub fn print(&self, out: &mut String, mesh: &Mesh) {
        mesh.push_axis_name(out, self.axis);
        if let Some(s) = self.sub {
            out.push_str(":(");
            push_int(out, s.pre_size);
            out.push(')');
            push_int(out, s.size);
        }
    }

    fn to_text(self, mesh: &Mesh) -> String {
        let mut out = String::new();
        self.print(&mut out, mesh);
        out
    }
}

impl Parser<'_> {
    /// A sharding in braces.
    pub(crate) fn sharding(&mut self) -> PResult<Sharding> {
        self.expect(Tok::LBrace, "'{' starting a sharding")?;
        if self.at(Tok::LBrace) {
            let mut elements = vec![self.nested(|p| p.sharding())?];
            while self.eat(Tok::Comma) {
                elements.push(self.nested(|p| p.sharding())?);
            }
            self.expect(Tok::RBrace, "'}' closing the tuple sharding")?;
            return Ok(Sharding::Tuple(elements));
        }
        if self.eat(Tok::RBrace) {
            return Ok(Sharding::Tuple(Vec::new()));
        }
        self.single_sharding_body()
    }

    /// The inside of a non-tuple sharding, up to and including its `}`.
    fn single_sharding_body(&mut self) -> PResult<Sharding> {
        if self.at_word("mesh") || self.at_word("maximal_mesh") {
            return self.named_sharding_body();
        }
        let mut kind: Option<ShardingKind> = None;
        let mut single = SingleSharding {
            kind: ShardingKind::Replicated,
            last_tile_dim_replicate: false,
            last_tile_dims: Vec::new(),
            shard_group: None,
            metadata: Vec::new(),
        };
        let start = self.span();
        let mut device_count_span = None;
        loop {
            let span = self.span();
            match self.kind() {
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Ident => {
                    let word = self.cur_text();
                    self.bump();
                    match word {
                        "replicated" => kind = Some(ShardingKind::Replicated),
                        "manual" => kind = Some(ShardingKind::Manual),
                        "unknown" => kind = Some(ShardingKind::Unknown),
                        "unreduced" => kind = Some(ShardingKind::Unreduced),
                        "maximal" => {
                            if !(self.at(Tok::AttrName) && self.cur_text() == "device") {
                                return Err(self.error("expected 'device=' after 'maximal'"));
                            }
                            self.bump();
                            kind = Some(ShardingKind::Maximal(self.int()?));
                        }
                        "last_tile_dim_replicate" => single.last_tile_dim_replicate = true,
                        "shard_as" | "shard_like" => {
                            single.shard_group = Some((word == "shard_as", self.int()?));
                        }
                        _ => {
                            return Err(self
                                .error_at(span, format!("unknown sharding attribute '{word}'"))
                                .with_hint("shardings are {replicated}, {manual}, {maximal device=N}, {devices=[…]…} and tuples of these"));
                        }
                    }
                }
                Tok::AttrName => {
                    let name = self.cur_text();
                    self.bump();
                    match name {
                        "devices" => {
                            device_count_span = Some(span);
                            kind = Some(ShardingKind::Tiled(self.tile_assignment()?));
                        }
                        "last_tile_dims" => {
                            single.last_tile_dims = self.braced_list(|p| {
                                let span = p.span();
                                let w = p.ident("a sharding type")?;
                                match w {
                                    "manual" | "replicated" | "maximal" | "unreduced" => {
                                        Ok(w.to_string())
                                    }
                                    _ => Err(p.error_at(
                                        span,
                                        format!("unknown subgroup sharding type '{w}'"),
                                    )),
                                }
                            })?;
                        }
                        "metadata" => single.metadata = self.sharding_metadata()?,
                        _ => {
                            return Err(self
                                .error_at(span, format!("unknown sharding attribute '{name}='")));
                        }
                    }
                }
                _ => {
                    return Err(self.error(format!(
                        "expected a sharding attribute or '}}', found {}",
                        self.found()
                    )));
                }
            }
        }
        let Some(kind) = kind else {
            return Err(self
                .error_at(
                    start,
                    "sharding says neither replicated, manual, maximal nor devices=",
                )
                .with_hint("write e.g. {replicated} or {devices=[2,1]0,1}"));
        };
        if let (ShardingKind::Tiled(TileAssignment::Explicit { dims, devices }), Some(span)) =
            (&kind, device_count_span)
        {
            let size = crate::size::product(dims);
            if size.map(|n| n.get()) != Some(devices.len() as u64) {
                let size = size.map_or_else(|| "past int64".to_string(), |n| n.to_string());
                return Err(self.error_at(
                    span,
                    format!(
                        "sharding device count {} does not match the tile assignment size {size}",
                        devices.len()
                    ),
                ));
            }
        }
        if let (ShardingKind::Tiled(TileAssignment::Iota(iota)), Some(span)) =
            (&kind, device_count_span)
        {
            let product = |list: &[i64]| crate::size::product(list).map_or(0, |n| n.get());
            let (dims, reshape) = (product(&iota.dims), product(&iota.reshape));
            if dims != reshape {
                return Err(self.error_at(
                    span,
                    format!(
                        "sharding iota size {reshape} does not match the tile assignment dimensions product {dims}"
                    ),
                ));
            }
        }
        single.kind = kind;
        Ok(Sharding::Single(Box::new(single)))
    }

    /// `metadata=`'s value: one `{…}` or a braced list of them.
    fn sharding_metadata(&mut self) -> PResult<Vec<Metadata>> {
        if self.at(Tok::LBrace) && self.peek().kind == Tok::LBrace {
            self.braced_list(|p| p.metadata())
        } else {
            Ok(vec![self.metadata()?])
        }
    }

    /// A named sharding after its `{`, up to and including its `}` (XLA's
    /// `ParseSingleSharding(std::optional<NamedSharding>&)`).
    fn named_sharding_body(&mut self) -> PResult<Sharding> {
        let mut metadata = Vec::new();
        if self.at_word("maximal_mesh") {
            self.bump();
            self.expect(Tok::LSquare, "'[' after maximal_mesh")?;
            if !(self.at(Tok::AttrName) && self.cur_text() == "device_id") {
                return Err(self.error(format!(
                    "expected device_id= in maximal_mesh[…], found {}",
                    self.found()
                )));
            }
            self.bump();
            let device = self.int()?;
            self.expect(Tok::RSquare, "']' closing maximal_mesh")?;
            self.named_metadata_then_close(&mut metadata)?;
            return Ok(named(
                NamedSharding::new(ShardingMesh::Maximal(device)),
                metadata,
            ));
        }
        let mesh = self.mesh(true)?;
        self.eat(Tok::Comma);
        // Everything but the mesh, which the axis references borrow meanwhile.
        let mut sharding = NamedSharding::new(ShardingMesh::Maximal(0));
        let all_axes = |mesh: &Mesh| -> Vec<AxisRef> {
            (0..mesh.axes.len())
                .map(|axis| AxisRef { axis, sub: None })
                .collect()
        };
        let mut spans = AxisSpans::default();
        if self.at_word("replicated") {
            self.bump();
            self.named_metadata_then_close(&mut metadata)?;
        } else if self.at_word("unreduced")
            || (self.at(Tok::AttrName) && self.cur_text() == "unreduced")
        {
            // `unreduced`, `unreduced=op`, each optionally followed by `{axes}`.
            let assign = self.at(Tok::AttrName);
            self.bump();
            if assign || self.eat(Tok::Equal) {
                sharding.unreduced_op = self.reduction_op()?;
            }
            if self.at(Tok::LBrace) {
                sharding.unreduced = self.axis_ref_list(&mesh, &mut spans.unreduced)?;
            } else {
                sharding.unreduced = all_axes(&mesh);
            }
            self.named_metadata_then_close(&mut metadata)?;
        } else if self.at_word("manual") {
            let span = self.span();
            self.bump();
            if mesh.axes.is_empty() {
                return Err(self.error_at(
                    span,
                    "a manual sharding needs a mesh with at least one axis",
                ));
            }
            sharding.manual = all_axes(&mesh);
            self.named_metadata_then_close(&mut metadata)?;
        } else {
            if !self.at(Tok::LSquare) {
                return Err(self
                    .error(format!(
                        "expected the dimension shardings '[…]', replicated, unreduced or manual, found {}",
                        self.found()
                    ))
                    .with_hint("write e.g. {mesh['x'=2], [{'x'}, {}]} or {mesh['x'=2], replicated}"));
            }
            sharding.dims = self.dim_shardings(&mesh, &mut spans.dims)?;
            while !self.eat(Tok::RBrace) {
                if !self.eat(Tok::Comma) {
                    return Err(self.error(format!("expected ',' or '}}', found {}", self.found())));
                }
                let span = self.span();
                if !self.at(Tok::AttrName) {
                    return Err(self.error(format!(
                        "expected replicated=, unreduced=, manual= or metadata=, found {}",
                        self.found()
                    )));
                }
                let name = self.cur_text();
                self.bump();
                match name {
                    "replicated" => {
                        let axes = self.axis_ref_list(&mesh, &mut spans.replicated)?;
                        sharding.replicated.extend(axes);
                    }
                    "unreduced" => {
                        if self.at(Tok::Ident) {
                            sharding.unreduced_op = self.reduction_op()?;
                        }
                        let axes = self.axis_ref_list(&mesh, &mut spans.unreduced)?;
                        sharding.unreduced.extend(axes);
                    }
                    "manual" => {
                        let axes = self.axis_ref_list(&mesh, &mut spans.manual)?;
                        sharding.manual.extend(axes);
                    }
                    "metadata" => metadata = self.sharding_metadata()?,
                    _ => {
                        return Err(self
                            .error_at(span, format!("unknown attribute '{name}=' in a named sharding"))
                            .with_hint("a named sharding takes replicated=, unreduced=, manual= and metadata="));
                    }
                }
            }
        }
        self.verify_named(&mesh, &spans)?;
        sharding.mesh = ShardingMesh::Mesh(mesh);
        Ok(named(sharding, metadata))
    }

    /// `, metadata=…` if present, then `}`.
    fn named_metadata_then_close(&mut self, metadata: &mut Vec<Metadata>) -> PResult<()> {
        if self.eat(Tok::Comma) {
            if !(self.at(Tok::AttrName) && self.cur_text() == "metadata") {
                return Err(self.error(format!(
                    "expected metadata= or '}}', found {}",
                    self.found()
                )));
            }
            self.bump();
            *metadata = self.sharding_metadata()?;
        }
        self.expect(Tok::RBrace, "'}' closing the sharding")?;
        Ok(())
    }

    /// `sum`, `max` or `min`.
    fn reduction_op(&mut self) -> PResult<ReductionOp> {
        let op = match self.cur_text() {
            "sum" if self.at(Tok::Ident) => ReductionOp::Sum,
            "max" if self.at(Tok::Ident) => ReductionOp::Max,
            "min" if self.at(Tok::Ident) => ReductionOp::Min,
            _ => {
                return Err(self.error(format!(
                    "expected sum, max or min for the unreduced axes, found {}",
                    self.found()
                )));
            }
        };
        self.bump();
        Ok(op)
    }

    /// `'a'` or `'a':(pre)size`, checked against the mesh (XLA's `AxisRef`
    /// constructor and `AxisRef::Validate`); returns the reference's span too.
    fn axis_ref(&mut self, mesh: &Mesh) -> PResult<(AxisRef, Span)> {
        let start = self.span();
        let axis = self.mesh_axis(mesh)?;
        let mut r = AxisRef { axis, sub: None };
        if self.eat(Tok::Colon) {
            self.expect(Tok::LParen, "'(' before the sub-axis pre-size")?;
            let pre_size = self.int()?;
            self.expect(Tok::RParen, "')' after the sub-axis pre-size")?;
            let size = self.int()?;
            r.sub = Some(SubAxis { pre_size, size });
        }
        let span = Span {
            start: start.start,
            end: self.prev_end(),
        };
        if let Some(SubAxis { pre_size, size }) = r.sub {
            let axis_size = mesh.axes[axis].1;
            let text = r.to_text(mesh);
            let problem = if pre_size < 1 {
                Some("its pre-size must be at least 1".to_string())
            } else if size <= 1 {
                Some("its size must be greater than 1".to_string())
            } else if size >= axis_size {
                Some(format!(
                    "its size must be less than the axis size {axis_size}"
                ))
            } else if pre_size
                .checked_mul(size)
                .is_none_or(|next| axis_size % next != 0)
            {
                Some(format!(
                    "pre-size × size must divide the axis size {axis_size}"
                ))
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(self.error_at(span, format!("invalid sub-axis {text}: {problem}")));
            }
        }
        Ok((r, span))
    }

    /// `{axis, …}`.
    fn axis_ref_list(
        &mut self,
        mesh: &Mesh,
        spans: &mut Vec<Vec<(AxisRef, Span)>>,
    ) -> PResult<Vec<AxisRef>> {
        let refs = self.braced_list(|p| p.axis_ref(mesh))?;
        let axes = refs.iter().map(|(r, _)| *r).collect();
        spans.push(refs);
        Ok(axes)
    }

    /// `[{…}, {…, ?}, …]`.
    fn dim_shardings(
        &mut self,
        mesh: &Mesh,
        spans: &mut Vec<Vec<(AxisRef, Span)>>,
    ) -> PResult<Vec<DimSharding>> {
        self.expect(Tok::LSquare, "'['")?;
        let mut dims = Vec::new();
        if self.eat(Tok::RSquare) {
            return Ok(dims);
        }
        loop {
            self.expect(Tok::LBrace, "'{' starting a dimension sharding")?;
            let mut dim = DimSharding::default();
            let mut refs = Vec::new();
            if !self.eat(Tok::RBrace) {
                loop {
                    if dim.open {
                        return Err(
                            self.error("expected '}' after '?'; '?' ends a dimension sharding")
                        );
                    }
                    if self.eat(Tok::Question) {
                        dim.open = true;
                    } else {
                        let (r, span) = self.axis_ref(mesh)?;
                        dim.axes.push(r);
                        refs.push((r, span));
                    }
                    if self.eat(Tok::Comma) {
                        continue;
                    }
                    self.expect(Tok::RBrace, "',' or '}' in a dimension sharding")?;
                    break;
                }
            }
            spans.push(refs);
            dims.push(dim);
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RSquare, "',' or ']' closing the dimension shardings")?;
            return Ok(dims);
        }
    }

    /// XLA's `VerifyNamedSharding`: no axis overlaps another, no two adjacent
    /// axes of a list could be merged, and the replicated, unreduced and manual
    /// axes are sorted.
    fn verify_named(&self, mesh: &Mesh, spans: &AxisSpans) -> PResult<()> {
        let mut seen: Vec<AxisRef> = Vec::new();
        let lists = spans
            .dims
            .iter()
            .map(|l| ("a dimension sharding", false, l))
            .chain(
                spans
                    .replicated
                    .iter()
                    .map(|l| ("the replicated axes", true, l)),
            )
            .chain(
                spans
                    .unreduced
                    .iter()
                    .map(|l| ("the unreduced axes", true, l)),
            )
            .chain(spans.manual.iter().map(|l| ("the manual axes", true, l)));
        for (what, sorted, list) in lists {
            for (i, (r, span)) in list.iter().enumerate() {
                if let Some(other) = seen.iter().find(|o| !r.coexists_with(o)) {
                    return Err(self.error_at(
                        *span,
                        format!(
                            "axis {} overlaps axis {} used before in this sharding",
                            r.to_text(mesh),
                            other.to_text(mesh)
                        ),
                    ));
                }
                seen.push(*r);
                if i == 0 {
                    continue;
                }
                let prev = list[i - 1].0;
                if prev.merges_with(r) {
                    return Err(self.error_at(
                        *span,
                        format!(
                            "adjacent axes {} and {} in {what} can be merged",
                            prev.to_text(mesh),
                            r.to_text(mesh)
                        ),
                    ));
                }
                if sorted && prev.key(mesh) > r.key(mesh) {
                    return Err(self
                        .error_at(*span, format!("{what} are not sorted"))
                        .with_hint(
                            "XLA requires them sorted by mesh axis, then sub-axis pre-size",
                        ));
                }
            }
        }
        Ok(())
    }

    /// `[dims]id,id,…` or `[dims]<=[reshape]T(perm)`.
    fn tile_assignment(&mut self) -> PResult<TileAssignment> {
        let dims = {
            self.expect(Tok::LSquare, "'[' after devices=")?;
            let mut dims = Vec::new();
            loop {
                dims.push(self.int()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RSquare, "']' closing the tile dimensions")?;
            dims
        };
        if self.at(Tok::Leq) {
            self.bump();
            let reshape_span = self.span();
            let reshape = {
                self.expect(Tok::LSquare, "'[' after '<='")?;
                let mut r = Vec::new();
                loop {
                    r.push(self.int()?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RSquare, "']'")?;
                r
            };
            if reshape.iter().any(|&d| d <= 0) {
                return Err(self.error_at(reshape_span, "iota reshape dimensions must be positive"));
            }
            let perm = if self.at_word("T") {
                self.transpose_perm(reshape.len())?
            } else {
                (0..reshape.len() as i64).collect()
            };
            return Ok(TileAssignment::Iota(IotaReplicaGroups::new(
                dims, reshape, perm,
            )));
        }
        let mut devices = Vec::new();
        loop {
            devices.push(self.int()?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        Ok(TileAssignment::Explicit { dims, devices })
    }
}

/// A [`Sharding`] of `sharding` with `metadata`.
fn named(sharding: NamedSharding, metadata: Vec<Metadata>) -> Sharding {
    Sharding::Single(Box::new(SingleSharding {
        kind: ShardingKind::Named(Box::new(sharding)),
        last_tile_dim_replicate: false,
        last_tile_dims: Vec::new(),
        shard_group: None,
        metadata,
    }))
}

/// The axis references of a named sharding being parsed, with their spans, list
/// by list, for [`Parser::verify_named`].
#[derive(Default)]
struct AxisSpans {
    dims: Vec<Vec<(AxisRef, Span)>>,
    replicated: Vec<Vec<(AxisRef, Span)>>,
    unreduced: Vec<Vec<(AxisRef, Span)>>,
    manual: Vec<Vec<(AxisRef, Span)>>,
}

impl Sharding {
    /// Appends the sharding; `metadata` says whether sharding metadata is printed.
    pub fn print(&self, out: &mut String, metadata: bool) {
        match self {
            Sharding::Tuple(elements) => {
                out.push('{');
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                        if i % 5 == 0 {
                            out.push_str("/*index=");
                            push_int(out, i as i64);
                            out.push_str("*/");
                        }
                    }
                    e.print(out, metadata);
                }
                out.push('}');
            }
            Sharding::Single(s) => {
                if let ShardingKind::Named(n) = &s.kind {
                    n.print(out, if metadata { &s.metadata } else { &[] });
                    return;
                }
                out.push('{');
                match &s.kind {
                    ShardingKind::Replicated => out.push_str("replicated"),
                    ShardingKind::Manual => out.push_str("manual"),
                    ShardingKind::Unknown => out.push_str("unknown"),
                    ShardingKind::Unreduced => out.push_str("unreduced"),
                    ShardingKind::Maximal(d) => {
                        out.push_str("maximal device=");
                        push_int(out, *d);
                    }
                    ShardingKind::Tiled(TileAssignment::Explicit { dims, devices }) => {
                        out.push_str("devices=[");
                        push_int_list_compact(out, dims);
                        out.push(']');
                        push_int_list_compact(out, devices);
                    }
                    ShardingKind::Tiled(TileAssignment::Iota(iota)) => {
                        out.push_str("devices=");
                        iota.print(out);
                    }
                    ShardingKind::Named(_) => unreachable!("printed above"),
                }
                if s.last_tile_dim_replicate {
                    out.push_str(" last_tile_dim_replicate");
                }
                if !s.last_tile_dims.is_empty() {
                    out.push_str(" last_tile_dims={");
                    out.push_str(&s.last_tile_dims.join(", "));
                    out.push('}');
                }
                if let Some((as_, group)) = s.shard_group {
                    out.push_str(if as_ { " shard_as " } else { " shard_like " });
                    push_int(out, group);
                }
                if metadata && !s.metadata.is_empty() {
                    out.push_str(" metadata={");
                    if s.metadata.len() == 1 {
                        s.metadata[0].print_fields(out);
                    } else {
                        print_braced_metadata(out, &s.metadata);
                    }
                    out.push('}');
                }
                out.push('}');
            }
        }
    }
}

/// Appends `{fields}, {fields}, …`, one braced entry per metadata, the list form
/// both sharding printers use.
fn print_braced_metadata(out: &mut String, metadata: &[Metadata]) {
    for (i, m) in metadata.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('{');
        m.print_fields(out);
        out.push('}');
    }
}

impl NamedSharding {
    /// Appends the sharding as XLA's `NamedSharding::ToString` prints it, with
    /// `metadata` (empty when metadata is not printed).
    pub fn print(&self, out: &mut String, metadata: &[Metadata]) {
        let push_metadata = |out: &mut String| {
            if metadata.is_empty() {
                return;
            }
            out.push_str(", metadata={");
            print_braced_metadata(out, metadata);
            out.push('}');
        };
        out.push('{');
        let mesh = match &self.mesh {
            ShardingMesh::Maximal(device) => {
                out.push_str("maximal_mesh[device_id=");
                push_int(out, *device);
                out.push(']');
                push_metadata(out);
                out.push('}');
                return;
            }
            ShardingMesh::Mesh(mesh) => mesh,
        };
        mesh.print(out);
        let all_axes = |axes: &[AxisRef]| {
            !mesh.axes.is_empty()
                && axes.len() == mesh.axes.len()
                && axes
                    .iter()
                    .enumerate()
                    .all(|(i, a)| a.axis == i && a.sub.is_none())
        };
        let op = match self.unreduced_op {
            ReductionOp::Sum => "",
            ReductionOp::Max => "max",
            ReductionOp::Min => "min",
        };
        let special = if !self.dims.is_empty() {
            None
        } else if self.is_replicated() && self.replicated.is_empty() {
            Some(("replicated", ""))
        } else if all_axes(&self.unreduced) {
            Some(("unreduced", op))
        } else if all_axes(&self.manual) {
            Some(("manual", ""))
        } else {
            None
        };
        if let Some((word, op)) = special {
            out.push_str(", ");
            out.push_str(word);
            if !op.is_empty() {
                out.push('=');
                out.push_str(op);
            }
            push_metadata(out);
            out.push('}');
            return;
        }
        let push_axes = |out: &mut String, axes: &[AxisRef]| {
            for (i, a) in axes.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                a.print(out, mesh);
            }
        };
        out.push_str(", [");
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push('{');
            push_axes(out, &d.axes);
            if d.open {
                out.push_str(if d.axes.is_empty() { "?" } else { ", ?" });
            }
            out.push('}');
        }
        out.push(']');
        for (word, op, axes) in [
            ("replicated", "", &self.replicated),
            ("unreduced", op, &self.unreduced),
            ("manual", "", &self.manual),
        ] {
            if axes.is_empty() {
                continue;
            }
            out.push_str(", ");
            out.push_str(word);
            out.push('=');
            out.push_str(op);
            out.push('{');
            push_axes(out, axes);
            out.push('}');
        }
        push_metadata(out);
        out.push('}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Diagnostic;

    fn parse(text: &str) -> Result<Sharding, Diagnostic> {
        let mut p = Parser::new(text);
        let s = p.sharding()?;
        if !p.at(Tok::Eof) {
            return Err(p.error("trailing text").into());
        }
        Ok(s)
    }

    fn print(text: &str, metadata: bool) -> String {
        let s = parse(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
        let mut out = String::new();
        s.print(&mut out, metadata);
        out
    }

    /// `text` prints back as itself (with metadata) and is a fixed point.
    fn round_trip(text: &str) {
        assert_eq!(print(text, true), text);
    }

    /// XLA's own round-trip strings: `HloParserTest.ParseNamedSharding*` and
    /// `ParseMixedShardingTuple*` in `xla/hlo/parser/hlo_parser_test.cc`.
    #[test]
    fn xla_parser_test_strings_round_trip() {
        for text in [
            "{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'a'}, {'b'}]}",
            "{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'a'}, {'c', 'b'}]}",
            "{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'b', 'a'}, {'c', 'd', ?}]}",
            "{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'a'}, {'b':(2)2}]}",
            "{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'b':(2)2}, {'d':(4)2, 'c'}]}",
            "{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'b':(2)2}, {'d':(4)2, 'c', ?}]}",
            "{mesh['a'=2,'b'=4,'c'=4,'d'=2], device_ids=([4,16]T(1,0)), [{'a'}]}",
            "{mesh['x'=2,'y'=2], device_ids=(0,2,1,3), [{'x'}]}",
            "{mesh[], replicated}",
            "{mesh['a'=2,'b'=4], replicated}",
            "{mesh['a'=2,'b'=4], [{'a'}], replicated={'b'}}",
            "{maximal_mesh[device_id=5]}",
            "{mesh['a.b'=2,'<axis> def'=4,'z/w'=2], [{'a.b'}, {'<axis> def':(2)2, 'z/w'}]}",
            "{mesh['a'=2,'b'=4], unreduced}",
            "{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{}, {'b'}], unreduced={'d':(4)2}}",
            "{mesh['a'=2,'b'=4], manual}",
            "{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'a'}], manual={'d':(4)2}}",
            "{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'a'}], replicated={'c'}, unreduced={'d':(4)2}, manual={'b':(2)2}, metadata={{op_name=\"foo\"}, {op_name=\"bar\"}}}",
            "{mesh['a'=2,'b'=4], replicated, metadata={{op_name=\"foo\"}}}",
            "{{mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'d', 'c'}, {'a', 'b'}]}, {mesh['a'=2,'b'=4,'c'=3,'d'=8], replicated}, {mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'d':(2)2, 'b'}, {'a', ?}], unreduced={'c'}}, {mesh['a'=2,'b'=4,'c'=3,'d'=8], [{'d', 'c'}, {'a', 'b'}], metadata={{op_name=\"foo\"}, {op_name=\"bar\"}}}}",
            "{{replicated}, {mesh['a'=2,'b'=4], replicated}, {maximal device=5}, {maximal_mesh[device_id=5]}}",
            "{{mesh['a'=2,'b'=2], [{'a'}, {}]}, {devices=[2,2]<=[4] last_tile_dim_replicate}}",
            // `ParseNamedShardingUnreducedMax`.
            "{mesh['x'=2], [{}], unreduced=max{'x'}}",
        ] {
            round_trip(text);
        }
    }

    /// `HloParserTest.ParseNamedShardingScalarUnreducedMax`: fully unreduced with
    /// no dimensions prints the short form.
    #[test]
    fn scalar_unreduced_max_prints_short_form() {
        assert_eq!(
            print("{mesh['x'=2,'y'=2], unreduced=max{'x', 'y'}}", true),
            "{mesh['x'=2,'y'=2], unreduced=max}"
        );
        round_trip("{mesh['x'=2,'y'=2], unreduced=max}");
        round_trip("{mesh['x'=2,'y'=2], unreduced=min}");
        round_trip("{mesh['x'=2,'y'=2], [], unreduced=min{'y'}}");
    }

    /// The print is a function of the sharding, as XLA's `ToString`.
    #[test]
    fn print_is_canonical() {
        for (text, printed) in [
            // No dimensions and nothing else: replicated.
            ("{mesh['x'=2], []}", "{mesh['x'=2], replicated}"),
            ("{mesh['x'=2] []}", "{mesh['x'=2], replicated}"),
            // A partial unreduced list without dimensions keeps `[]`.
            (
                "{mesh['x'=2,'y'=2], unreduced {'x'}}",
                "{mesh['x'=2,'y'=2], [], unreduced={'x'}}",
            ),
            (
                "{mesh['x'=2,'y'=2], unreduced=sum{'x', 'y'}}",
                "{mesh['x'=2,'y'=2], unreduced}",
            ),
            (
                "{mesh['x'=2,'y'=2], [], unreduced={'x', 'y'}}",
                "{mesh['x'=2,'y'=2], unreduced}",
            ),
            (
                "{mesh['x'=2,'y'=2], [], manual={'x', 'y'}}",
                "{mesh['x'=2,'y'=2], manual}",
            ),
            // Only an empty mesh's `unreduced` has nothing to reduce.
            ("{mesh[], unreduced}", "{mesh[], replicated}"),
            // Trailing attributes print in XLA's order; metadata as a list.
            (
                "{mesh['a'=2,'b'=2,'c'=2], [{'a'}], metadata={op_name=\"m\"}, manual={'c'}, replicated={'b'}}",
                "{mesh['a'=2,'b'=2,'c'=2], [{'a'}], replicated={'b'}, manual={'c'}, metadata={{op_name=\"m\"}}}",
            ),
            // Axes by index.
            (
                "{mesh['a'=2,'b'=2], [{'1'}, {'0'}]}",
                "{mesh['a'=2,'b'=2], [{'b'}, {'a'}]}",
            ),
            // Open empty dimension.
            ("{mesh['a'=2], [{?}, {'a'}]}", "{mesh['a'=2], [{?}, {'a'}]}"),
            // device_ids: canonical iota, a transposed iota, double quotes.
            (
                "{mesh['a'=2,'b'=2], device_ids=([2,2]T(0,1)), [{'a'}]}",
                "{mesh['a'=2,'b'=2], [{'a'}]}",
            ),
            (
                "{mesh['a'=2,'b'=2], device_ids=([4]), [{'a'}]}",
                "{mesh['a'=2,'b'=2], [{'a'}]}",
            ),
            (
                "{mesh[\"a\"=2, \"b\"=2], device_ids=([1,2,1,2]T(3,2,1,0)), [{\"a\"}]}",
                "{mesh['a'=2,'b'=2], device_ids=([2,2]T(1,0)), [{'a'}]}",
            ),
            (
                "{maximal_mesh[device_id=3], metadata={op_name=\"x\"}}",
                "{maximal_mesh[device_id=3], metadata={{op_name=\"x\"}}}",
            ),
        ] {
            assert_eq!(print(text, true), printed, "{text}");
            round_trip(printed);
        }
    }

    #[test]
    fn metadata_prints_only_when_asked() {
        let text = "{{mesh['a'=2], manual, metadata={{op_name=\"foo\"}}}, {replicated metadata={op_name=\"bar\"}}}";
        assert_eq!(print(text, true), text);
        assert_eq!(print(text, false), "{{mesh['a'=2], manual}, {replicated}}");
    }

    #[test]
    fn named_sharding_is_typed() {
        let s = parse("{mesh['x'=2,'y'=4], device_ids=(0,2,4,6,1,3,5,7), [{'y':(2)2, 'x'}, {?}], replicated={'y':(1)2}, unreduced=max{}}").unwrap();
        let Sharding::Single(single) = s else {
            panic!("not single")
        };
        let ShardingKind::Named(n) = single.kind else {
            panic!("not named")
        };
        let ShardingMesh::Mesh(mesh) = &n.mesh else {
            panic!("maximal")
        };
        assert_eq!(mesh.axes, vec![("x".to_string(), 2), ("y".to_string(), 4)]);
        assert_eq!(
            mesh.devices,
            crate::attrs::MeshDevices::List(vec![0, 2, 4, 6, 1, 3, 5, 7])
        );
        assert_eq!(n.dims.len(), 2);
        assert_eq!(
            n.dims[0].axes,
            vec![
                AxisRef {
                    axis: 1,
                    sub: Some(SubAxis {
                        pre_size: 2,
                        size: 2
                    })
                },
                AxisRef { axis: 0, sub: None }
            ]
        );
        assert!(!n.dims[0].open && n.dims[1].open && n.dims[1].axes.is_empty());
        assert_eq!(n.replicated.len(), 1);
        assert!(n.unreduced.is_empty());
        assert_eq!(n.unreduced_op, ReductionOp::Max);
    }

    /// Errors: (text, where the error starts, a piece of the message).
    #[test]
    fn errors_are_located() {
        for (text, at, message) in [
            (
                "{mesh['a'=2,'b'=4], [{'a'}, {'c'}]}",
                "'c'}",
                "axis 'c' is not a valid axis name or index in mesh mesh['a'=2,'b'=4]",
            ),
            (
                "{mesh['a'=2,'b'=4], device_ids=(0,2,4,6,1,3,5,7), replicated={'q'}}",
                "",
                "expected the dimension shardings",
            ),
            (
                "{mesh['a'=2,'b'=4], [{'a'}], replicated={'x'}}",
                "'x'",
                "in mesh mesh['a'=2,'b'=4]",
            ),
            (
                "{mesh['a'=2], [{'5'}]}",
                "'5'",
                "axis index 5 is out of bounds for mesh mesh['a'=2] which has 1 axes",
            ),
            (
                "{mesh['a'=2,'b'=4], [{'b':(3)2}]}",
                "'b':(3)2",
                "invalid sub-axis 'b':(3)2: pre-size × size must divide the axis size 4",
            ),
            (
                "{mesh['b'=4], [{'b':(1)4}]}",
                "'b':(1)4",
                "less than the axis size 4",
            ),
            ("{mesh['b'=4], [{'b':(2)1}]}", "'b':(2)1", "greater than 1"),
            ("{mesh['b'=4], [{'b':(0)2}]}", "'b':(0)2", "at least 1"),
            (
                "{mesh['a'=2,'b'=4], [{'a'}, {'b', 'a'}]}",
                "'a'}]",
                "axis 'a' overlaps axis 'a' used before",
            ),
            (
                "{mesh['b'=8], [{'b':(1)4}, {'b':(2)2}]}",
                "'b':(2)2",
                "overlaps",
            ),
            (
                "{mesh['b'=8], [{'b':(1)2, 'b':(2)2}]}",
                "'b':(2)2",
                "adjacent axes 'b':(1)2 and 'b':(2)2 in a dimension sharding can be merged",
            ),
            (
                "{mesh['a'=2,'b'=2,'c'=2], [], replicated={'b', 'a'}}",
                "'a'}",
                "the replicated axes are not sorted",
            ),
            (
                "{mesh['a'=2,'a'=2], replicated}",
                "'a'=2]",
                "the mesh has two axes named 'a'",
            ),
            ("{mesh['a'=2,'0'=2], replicated}", "'0'", "is an integer"),
            (
                "{mesh['a'=0], replicated}",
                "0]",
                "mesh axis size must be positive",
            ),
            (
                "{mesh['a'=2,'b'=2], device_ids=(0,1,2), replicated}",
                "device_ids",
                "Expected 4 device_ids based on mesh axes, but got 3",
            ),
            (
                "{mesh['a'=2,'b'=2], device_ids=(0,1,2,2), replicated}",
                "device_ids",
                "device_ids must be a permutation of 0..4",
            ),
            (
                "{mesh['a'=2,'b'=2], device_ids=(0,1,2,3), replicated}",
                "device_ids",
                "default order",
            ),
            (
                "{mesh['a'=2,'b'=2], device_ids=([8]), replicated}",
                "device_ids",
                "mesh device_ids iota size 8 does not match the product of the mesh axis sizes 4",
            ),
            (
                "{mesh['a'=2,'b'=2], device_ids=([2,2]), replicated}",
                "), repl",
                "expected 'T(' after the iota reshape dimensions",
            ),
            (
                "{mesh['a'=2], [{'a', ?, 'a'}]}",
                "'a'}]",
                "'?' ends a dimension sharding",
            ),
            (
                "{mesh['a'=2], [{'a'}], shards={'a'}}",
                "shards",
                "unknown attribute 'shards='",
            ),
            (
                "{mesh[], manual}",
                "manual",
                "needs a mesh with at least one axis",
            ),
            (
                "{mesh['a'=2], unreduced=avg}",
                "avg",
                "expected sum, max or min",
            ),
            (
                "{mesh['a'=2], [{'a'}], unreduced=avg{}}",
                "avg",
                "expected sum, max or min",
            ),
            ("{maximal_mesh[5]}", "5]", "expected device_id="),
            (
                "{mesh['a'=2], replicated, manual}",
                "manual",
                "expected metadata= or '}'",
            ),
            (
                "{mesh['a'=2], [{'a'}] replicated={}}",
                "replicated",
                "expected ',' or '}'",
            ),
            (
                "{mesh[a=2], replicated}",
                "a=2",
                "expected a quoted axis name",
            ),
            // Classic iota tile assignments check their transpose (this once
            // panicked) and reshape.
            (
                "{devices=[2,2]<=[2,2]T(5,6)}",
                "(5,6)",
                "T(5,6) is not a permutation of the 2 reshape dimensions",
            ),
            ("{devices=[2,2]<=[0,4]}", "[0,4]", "must be positive"),
        ] {
            let d = match parse(text) {
                Ok(s) => panic!("{text} parsed as {s:?}"),
                Err(d) => d,
            };
            let expected_at = if at.is_empty() {
                text.find("replicated=").unwrap()
            } else {
                text.find(at)
                    .unwrap_or_else(|| panic!("{at} not in {text}"))
            };
            assert_eq!(
                d.span.start as usize,
                expected_at,
                "{text}: {}",
                d.render("t", text)
            );
            assert!(
                d.message.contains(message)
                    || d.hint.as_deref().is_some_and(|h| h.contains(message)),
                "{text}: {}",
                d.render("t", text)
            );
        }
    }
}

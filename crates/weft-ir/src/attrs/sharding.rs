//! Shardings, parse and print side by side.
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

use super::collective::IotaReplicaGroups;
use super::common::Metadata;
use crate::text::lexer::Tok;
use crate::text::parser::{PResult, Parser};
use crate::text::printer::push_int_list_compact;
use crate::text::shape::push_int;

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

impl Parser<'_> {
    /// A sharding in braces.
    pub(crate) fn sharding(&mut self) -> PResult<Sharding> {
        self.expect(Tok::LBrace, "'{' starting a sharding")?;
        if self.at(Tok::LBrace) {
            let mut elements = vec![self.sharding()?];
            while self.eat(Tok::Comma) {
                elements.push(self.sharding()?);
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
                        "metadata" => {
                            if self.at(Tok::LBrace) && self.peek().kind == Tok::LBrace {
                                single.metadata = self.braced_list(|p| p.metadata())?;
                            } else {
                                single.metadata = vec![self.metadata()?];
                            }
                        }
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
            let size: i64 = dims.iter().product();
            if size != devices.len() as i64 {
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
            let dims: i64 = iota.dims.iter().product();
            let reshape: i64 = iota.reshape.iter().product();
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
            let perm = if self.at(Tok::Ident) && self.cur_text() == "T" {
                self.bump();
                self.expect(Tok::LParen, "'(' after T")?;
                let mut p = Vec::new();
                loop {
                    p.push(self.int()?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen, "')'")?;
                p
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
                    e.print(out, false);
                }
                out.push('}');
            }
            Sharding::Single(s) => {
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
                        for (i, m) in s.metadata.iter().enumerate() {
                            if i > 0 {
                                out.push_str(", ");
                            }
                            out.push('{');
                            m.print_fields(out);
                            out.push('}');
                        }
                    }
                    out.push('}');
                }
                out.push('}');
            }
        }
    }
}

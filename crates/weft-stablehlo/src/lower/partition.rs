//! Per-device programs from sharded ones.
//!
//! A value of the entry function, or a result of a manual computation, may be
//! *distributed*: split over mesh axes along some dimensions ([`Tiling`]).
//! Each device holds its tile — the lowering gives such values their local
//! shape — and the distribution is tracked per value ([`Distribution`]); a
//! value with no entry is whole on every device (replicated, or local to a
//! manual computation).
//!
//! Where the program fixes a distribution — the entry's argument and result
//! shardings, `sdy.manual_computation`'s in and out shardings,
//! `sdy.sharding_constraint`, the legacy `@Sharding` custom call — a value
//! moves between distributions: sharded → whole with one `all-gather` per split
//! dimension, whole → sharded with a `dynamic-slice` at offsets looked up by
//! `partition-id` (both as XLA's SPMD partitioner emits them). The body of a
//! manual computation (or of an `@SPMDFullToShardShape` …
//! `@SPMDShardToFullShape` bracket) then runs on the local values as written.
//!
//! Outside manual computations only elementwise ops may read distributed
//! values, all with the same distribution; anything else would need automatic
//! SPMD partitioning, which the lowering does not do (the error says so and
//! points at shard_map, and at the per-device HLO XLA compiles).

use rustc_hash::FxHashMap;
use weft_ir::attrs::{
    Attrs, CollectiveAttrs, IotaReplicaGroups, ReplicaGroups, Sharding, ShardingKind,
    SingleSharding, TileAssignment,
};
use weft_ir::literal::{ArrayLiteral, Literal};
use weft_ir::{Callees, Comp, ElementType, Instr, Opcode, Shape};

use super::{LowerResult, Lowering};
use crate::ir::dialect_attr::{SdySharding, manual_axes};
use crate::ir::{Attribute, NamedAttribute, Op, Type, Value, attribute};
use crate::ops::OpKind;

/// How a value is split over the devices of a mesh.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tiling {
    /// The size of each mesh axis.
    axis_sizes: Vec<i64>,
    /// The device ids, row-major over the mesh.
    device_ids: Vec<i64>,
    /// Per tensor dimension, the mesh axes it is split over (major first).
    dims: Vec<Vec<usize>>,
}

impl Tiling {
    /// How many tiles dimension `dim` is split into.
    fn tiles(&self, dim: usize) -> i64 {
        self.dims
            .get(dim)
            .map_or(1, |axes| axes.iter().map(|&a| self.axis_sizes[a]).product())
    }

    /// Whether every device holds the whole value.
    fn is_whole(&self) -> bool {
        (0..self.dims.len()).all(|d| self.tiles(d) == 1)
    }

    /// The tile index of `device` along `dim`.
    fn tile_index(&self, device: i64, dim: usize) -> Option<i64> {
        let position = self.device_ids.iter().position(|&d| d == device)? as i64;
        let mut coordinates = vec![0i64; self.axis_sizes.len()];
        let mut rest = position;
        for axis in (0..self.axis_sizes.len()).rev() {
            coordinates[axis] = rest % self.axis_sizes[axis];
            rest /= self.axis_sizes[axis];
        }
        Some(self.dims[dim].iter().fold(0, |index, &axis| {
            index * self.axis_sizes[axis] + coordinates[axis]
        }))
    }

    /// The local dimensions of a value whose global ones are `global`.
    fn local_dims(&self, global: &[i64]) -> Result<Vec<i64>, String> {
        global
            .iter()
            .enumerate()
            .map(|(d, &size)| {
                let tiles = self.tiles(d);
                if size % tiles != 0 {
                    Err(format!(
                        "dimension {d} (size {size}) does not split evenly into {tiles} tiles"
                    ))
                } else {
                    Ok(size / tiles)
                }
            })
            .collect()
    }

    /// Whether `self` and `other` give every device the same tile of a value
    /// of rank `rank`.
    fn same_layout(&self, other: &Tiling, rank: usize) -> bool {
        (0..rank).all(|d| self.tiles(d) == other.tiles(d))
            && self.device_ids.iter().all(|&device| {
                (0..rank).all(|d| self.tile_index(device, d) == other.tile_index(device, d))
            })
    }

    /// The HLO sharding: `{devices=[tiles…]<=[N]}`, with a last replicated
    /// dimension when devices share tiles.
    fn hlo_sharding(&self, rank: usize) -> Sharding {
        if (0..rank).all(|d| self.tiles(d) == 1) {
            return Sharding::replicated();
        }
        let mut tile_dims: Vec<i64> = (0..rank).map(|d| self.tiles(d)).collect();
        let tiles: i64 = tile_dims.iter().product();
        let devices = self.device_ids.len() as i64;
        let replication = devices / tiles.max(1);
        if replication > 1 {
            tile_dims.push(replication);
        }
        // Row-major over the tile dimensions (and the replica within a tile).
        let mut assignment = vec![-1i64; devices as usize];
        let mut replicas: FxHashMap<i64, i64> = FxHashMap::default();
        for &device in &self.device_ids {
            let mut linear = 0;
            for (d, &size) in tile_dims.iter().enumerate().take(rank) {
                linear = linear * size + self.tile_index(device, d).unwrap_or(0);
            }
            let replica = replicas.entry(linear).or_insert(0);
            let slot = linear * replication.max(1) + *replica;
            *replica += 1;
            if let Some(entry) = assignment.get_mut(slot as usize) {
                *entry = device;
            }
        }
        let tile_assignment = if assignment.iter().copied().eq(0..devices) {
            TileAssignment::Iota(IotaReplicaGroups::new(tile_dims, vec![devices], vec![0]))
        } else {
            TileAssignment::Explicit {
                dims: tile_dims,
                devices: assignment,
            }
        };
        Sharding::Single(Box::new(SingleSharding {
            kind: ShardingKind::Tiled(tile_assignment),
            last_tile_dim_replicate: replication > 1,
            last_tile_dims: Vec::new(),
            shard_group: None,
            metadata: Vec::new(),
        }))
    }

    /// The tiling of an HLO sharding (`None` when it is replicated).
    fn from_hlo(sharding: &Sharding, rank: usize) -> Result<Option<Tiling>, String> {
        let Sharding::Single(single) = sharding else {
            return Err("tuple shardings are not supported here".into());
        };
        match &single.kind {
            ShardingKind::Replicated => Ok(None),
            ShardingKind::Tiled(assignment) => {
                let (dims, devices) = match assignment {
                    TileAssignment::Explicit { dims, devices } => (dims.clone(), devices.clone()),
                    TileAssignment::Iota(iota) => (
                        iota.dims.clone(),
                        iota.device_ids().map_err(|e| e.to_string())?,
                    ),
                };
                if dims.len() < rank {
                    return Err("the sharding has fewer dimensions than the value".into());
                }
                Ok(Some(Tiling {
                    axis_sizes: dims.clone(),
                    device_ids: devices,
                    dims: (0..rank)
                        .map(|d| if dims[d] > 1 { vec![d] } else { Vec::new() })
                        .collect(),
                }))
            }
            other => Err(format!("cannot partition a value with sharding {other:?}")),
        }
    }
}

/// A group of devices gathering along one dimension: its key (the other
/// tile coordinates and the replica) and its members with their tile index.
type GatherGroup = (Vec<i64>, Vec<(i64, i64)>);

/// The distribution of the values that have one.
#[derive(Clone, Debug, Default)]
pub(crate) struct Distribution {
    tilings: FxHashMap<Value, Tiling>,
}

impl Lowering<'_> {
    /// The tiling a Shardy sharding gives a value of rank `rank`.
    fn sdy_tiling(&self, op: Op, sharding: &SdySharding) -> LowerResult<Option<Tiling>> {
        let mesh = self.meshes.get(&sharding.mesh).ok_or_else(|| {
            self.error(
                op,
                format!(
                    "the sharding refers to @{}, which is not an sdy.mesh of this module",
                    sharding.mesh
                ),
            )
        })?;
        let mut dims = Vec::new();
        for axes in &sharding.dims {
            let mut indices = Vec::new();
            for name in axes {
                indices.push(mesh.axis(name).ok_or_else(|| {
                    self.error(
                        op,
                        format!("the mesh @{} has no axis \"{name}\"", sharding.mesh),
                    )
                })?);
            }
            dims.push(indices);
        }
        let total = mesh.size();
        let tiling = Tiling {
            axis_sizes: mesh.axes.iter().map(|(_, s)| *s).collect(),
            device_ids: mesh
                .device_ids
                .clone()
                .unwrap_or_else(|| (0..total).collect()),
            dims,
        };
        Ok((!tiling.is_whole()).then_some(tiling))
    }

    /// The tiling an argument or result attribute dictionary asks for:
    /// `sdy.sharding` or `mhlo.sharding`.
    fn declared_tiling(
        &self,
        op: Op,
        attrs: &[NamedAttribute],
        rank: usize,
    ) -> LowerResult<(Option<Tiling>, bool)> {
        if let Some(sdy) = attribute::find(attrs, "sdy.sharding") {
            let sharding = SdySharding::read(Some(sdy))
                .ok_or_else(|| self.error(op, "unreadable sdy.sharding"))?;
            return Ok((self.sdy_tiling(op, &sharding)?, true));
        }
        if let Some(text) = attribute::find(attrs, "mhlo.sharding").and_then(Attribute::as_str) {
            return Ok((self.hlo_tiling(op, text, rank)?, true));
        }
        Ok((None, false))
    }

    fn hlo_tiling(&self, op: Op, text: &str, rank: usize) -> LowerResult<Option<Tiling>> {
        let sharding = weft_ir::text::parse_sharding(text).map_err(|d| {
            self.error(
                op,
                format!("unreadable mhlo.sharding \"{text}\": {}", d.message),
            )
        })?;
        Tiling::from_hlo(&sharding, rank).map_err(|m| self.error(op, m))
    }

    /// An entry parameter: its per-device shape, the HLO sharding to print on
    /// it, and its distribution.
    pub(crate) fn entry_parameter(
        &mut self,
        func: Op,
        argument: Value,
        ty: &Type,
        attrs: &[NamedAttribute],
    ) -> LowerResult<(Shape, Option<Sharding>)> {
        let global = self.shape(ty).map_err(|m| self.error(func, m))?;
        let rank = ty.rank().unwrap_or(0);
        if !self.partitioned {
            // Already per device: an HLO sharding is kept as the annotation.
            let sharding = attribute::find(attrs, "mhlo.sharding")
                .and_then(Attribute::as_str)
                .and_then(|text| weft_ir::text::parse_sharding(text).ok());
            return Ok((global, sharding));
        }
        let (tiling, declared) = self.declared_tiling(func, attrs, rank)?;
        let Some(tiling) = tiling else {
            return Ok((global, declared.then(Sharding::replicated)));
        };
        let dims = ty.static_dims().unwrap_or_default();
        let local = tiling.local_dims(&dims).map_err(|m| self.error(func, m))?;
        let element = self.module.shapes.as_array(global).expect("a tensor").elem;
        let shape = self
            .module
            .shapes
            .array_with_default_layout(element, &local);
        let sharding = tiling.hlo_sharding(rank);
        self.distribution.tilings.insert(argument, tiling);
        Ok((shape, Some(sharding)))
    }

    /// The entry's results, moved to the distributions its result attributes
    /// declare, and the HLO sharding of each (empty when the program says
    /// nothing about them).
    ///
    /// A partitioned program always knows its results' distributions: a
    /// result without a declared sharding keeps the one it has (replicated
    /// when whole). A program already per device records the `mhlo.sharding`
    /// annotations of its results when any has one, the others replicated
    /// (as XLA's export to HLO fills a tuple sharding).
    pub(crate) fn entry_results(
        &mut self,
        comp: Comp,
        func: Op,
        terminator: Op,
        results: Vec<Instr>,
    ) -> LowerResult<(Vec<Instr>, Vec<Sharding>)> {
        let res_attrs = self
            .body
            .attribute(func, "res_attrs")
            .and_then(Attribute::as_array)
            .map(<[Attribute]>::to_vec);
        let attrs_of = |index: usize| -> Vec<NamedAttribute> {
            res_attrs
                .as_ref()
                .and_then(|a| a.get(index))
                .and_then(Attribute::as_dictionary)
                .unwrap_or(&[])
                .to_vec()
        };
        if !self.partitioned {
            let annotations: Vec<Option<Sharding>> = (0..results.len())
                .map(|index| {
                    let attrs = attrs_of(index);
                    let text = attribute::find(&attrs, "mhlo.sharding").and_then(Attribute::as_str);
                    text.map(|text| {
                        weft_ir::text::parse_sharding(text).map_err(|d| {
                            self.error(
                                func,
                                format!(
                                    "unreadable mhlo.sharding \"{text}\" of result {index}: {}",
                                    d.message
                                ),
                            )
                        })
                    })
                    .transpose()
                })
                .collect::<LowerResult<_>>()?;
            let shardings = if annotations.iter().any(Option::is_some) {
                annotations
                    .into_iter()
                    .map(|s| s.unwrap_or_else(Sharding::replicated))
                    .collect()
            } else {
                Vec::new()
            };
            return Ok((results, shardings));
        }
        let values = self.body.ops[terminator].operands.clone();
        let mut out = Vec::new();
        let mut shardings = Vec::new();
        for (index, (&value, instr)) in values.iter().zip(results).enumerate() {
            let attrs = attrs_of(index);
            let rank = self.body.ty(value).rank().unwrap_or(0);
            let (target, declared) = self.declared_tiling(func, &attrs, rank)?;
            let current = self.distribution.tilings.get(&value).cloned();
            if !declared {
                // Undeclared results keep whatever distribution they have.
                shardings.push(current.map_or_else(Sharding::replicated, |t| t.hlo_sharding(rank)));
                out.push(instr);
                continue;
            }
            shardings.push(
                target
                    .as_ref()
                    .map_or_else(Sharding::replicated, |t| t.hlo_sharding(rank)),
            );
            out.push(self.reshard(
                comp,
                terminator,
                value,
                instr,
                current.as_ref(),
                target.as_ref(),
            )?);
        }
        Ok((out, shardings))
    }

    /// Checks that `op` may read its operands' distributions, and gives its
    /// results theirs (elementwise ops). A dot whose contracting dimensions
    /// are split the same way on both sides (and nothing else is split)
    /// computes partial sums on each device: the returned groups must then
    /// add them up ([`Self::sum_partials`]).
    pub(crate) fn check_distribution(
        &mut self,
        op: Op,
        kind: OpKind,
    ) -> LowerResult<Option<Vec<Vec<i64>>>> {
        if self.distribution.tilings.is_empty() {
            return Ok(None);
        }
        let operands = self.body.ops[op].operands.clone();
        let tiled: Vec<(Value, Tiling)> = operands
            .iter()
            .filter_map(|v| self.distribution.tilings.get(v).map(|t| (*v, t.clone())))
            .collect();
        let Some((_, first)) = tiled.first().cloned() else {
            return Ok(None);
        };
        let handled = matches!(
            kind,
            OpKind::SdyManualComputation | OpKind::SdyShardingConstraint
        ) || (kind == OpKind::CustomCall && self.sharding_custom_call(op).is_some());
        if handled {
            return Ok(None);
        }
        if matches!(kind, OpKind::DotGeneral | OpKind::Dot)
            && let Some(groups) = self.contracting_split(op, kind)
        {
            return Ok(Some(groups));
        }
        let elementwise = weft_ir_elementwise(kind);
        let rank = self.body.ty(operands[0]).rank().unwrap_or(0);
        let uniform =
            tiled.len() == operands.len() && tiled.iter().all(|(_, t)| t.same_layout(&first, rank));
        if elementwise && uniform {
            for &result in &self.body.ops[op].results.clone() {
                self.distribution.tilings.insert(result, first.clone());
            }
            return Ok(None);
        }
        Err(self.error_with_hint(
            op,
            "it reads a sharded value outside a manual computation, which would need automatic SPMD partitioning",
            "put the computation inside shard_map (sdy.manual_computation), or run the per-device HLO XLA compiles for it: `jax.jit(f).lower(…).compile().as_text()` (weft's README, \"From JAX\")",
        ))
    }

    /// For a dot whose only split dimensions are contracting ones, split
    /// over the same mesh axes on both sides: the groups of devices whose
    /// partial sums add up to the whole result.
    fn contracting_split(&self, op: Op, kind: OpKind) -> Option<Vec<Vec<i64>>> {
        let operands = &self.body.ops[op].operands;
        let lhs = self.distribution.tilings.get(&operands[0])?;
        let rhs = self.distribution.tilings.get(&operands[1])?;
        if lhs.axis_sizes != rhs.axis_sizes || lhs.device_ids != rhs.device_ids {
            return None;
        }
        let (lhs_contracting, rhs_contracting) = if kind == OpKind::Dot {
            let rank = self.body.ty(operands[0]).rank()? as i64;
            (vec![rank - 1], vec![0])
        } else {
            let dims = crate::ir::dialect_attr::Structured::read(
                self.body.attribute(op, "dot_dimension_numbers"),
                "stablehlo.dot",
            )?;
            (
                dims.ints("lhs_contracting_dimensions")?,
                dims.ints("rhs_contracting_dimensions")?,
            )
        };
        let mut axes = Vec::new();
        for (&l, &r) in lhs_contracting.iter().zip(&rhs_contracting) {
            let (l, r) = (lhs.dims.get(l as usize)?, rhs.dims.get(r as usize)?);
            if l != r {
                return None;
            }
            axes.extend(l.iter().copied());
        }
        let split_elsewhere = |tiling: &Tiling, contracting: &[i64]| {
            tiling
                .dims
                .iter()
                .enumerate()
                .any(|(d, a)| !a.is_empty() && !contracting.contains(&(d as i64)))
        };
        if axes.is_empty()
            || split_elsewhere(lhs, &lhs_contracting)
            || split_elsewhere(rhs, &rhs_contracting)
        {
            return None;
        }
        let mesh = crate::ir::dialect_attr::SdyMesh {
            axes: lhs.axis_sizes.iter().map(|&s| (String::new(), s)).collect(),
            device_ids: Some(lhs.device_ids.clone()),
        };
        Some(super::collectives::flatten_mesh_axes(&mesh, &axes))
    }

    /// Adds up the partial sums of `op`'s result over `groups` (an
    /// all-reduce, as XLA's partitioner emits for a split contraction).
    pub(crate) fn sum_partials(
        &mut self,
        comp: Comp,
        op: Op,
        groups: Vec<Vec<i64>>,
    ) -> LowerResult<()> {
        let result = self.body.ops[op].results[0];
        let partial = self.value(op, result)?;
        let element = self.element_of(partial);
        let reducer = self.new_computation("add");
        let scalar = self.module.shapes.array_with_default_layout(element, &[]);
        let x = self.parameter(reducer, 0, scalar, "x");
        let y = self.parameter(reducer, 1, scalar, "y");
        let sum = self.emit(
            reducer,
            "add",
            Opcode::Add,
            scalar,
            vec![x, y],
            Attrs::plain(),
        );
        self.module.set_root(reducer, sum);
        let shape = self.module.shape_of(partial);
        let channel = self.fresh_channel();
        let total = self.emit(
            comp,
            "all-reduce",
            Opcode::AllReduce,
            shape,
            vec![partial],
            Attrs::Collective(Box::new(CollectiveAttrs {
                channel_id: Some(channel),
                replica_groups: ReplicaGroups::List(groups),
                constrain_layout: false,
                use_global_device_ids: true,
                dimension: None,
                has_dynamic_root: None,
            })),
        );
        self.module.instrs[total].callees = Callees::from([reducer]);
        self.values.insert(result, total);
        Ok(())
    }

    /// The per-device shape of `value` given its global `shape`.
    pub(crate) fn localize(&mut self, value: Value, shape: Shape) -> Result<Shape, String> {
        let Some(tiling) = self.distribution.tilings.get(&value) else {
            return Ok(shape);
        };
        let Some(array) = self.module.shapes.as_array(shape).cloned() else {
            return Ok(shape);
        };
        let local = tiling.local_dims(&array.dims)?;
        Ok(self
            .module
            .shapes
            .array_with_default_layout(array.elem, &local))
    }

    pub(crate) fn lower_sharding_op(
        &mut self,
        comp: Comp,
        op: Op,
        kind: OpKind,
    ) -> LowerResult<()> {
        if kind == OpKind::SdyShardingConstraint {
            let value = self.body.ops[op].operands[0];
            let instr = self.value(op, value)?;
            let sharding = SdySharding::read(self.body.attribute(op, "sharding"))
                .ok_or_else(|| self.error(op, "unreadable sharding"))?;
            let target = self.sdy_tiling(op, &sharding)?;
            let current = self.distribution.tilings.get(&value).cloned();
            let moved = self.reshard(comp, op, value, instr, current.as_ref(), target.as_ref())?;
            let result = self.body.ops[op].results[0];
            self.values.insert(result, moved);
            if let Some(target) = target {
                self.distribution.tilings.insert(result, target);
            }
            return Ok(());
        }
        self.manual_computation(comp, op)
    }

    /// `sdy.manual_computation`: operands moved to the in-shardings, the body
    /// inlined on the local values, results distributed per the out-shardings.
    fn manual_computation(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        if !self.partitioned {
            return Err(self.error_with_hint(
                op,
                "a manual computation needs a partitioned program",
                "declare the number of devices: module attributes {mhlo.num_partitions = 8 : i32}",
            ));
        }
        let in_shardings = SdySharding::read_per_value(self.body.attribute(op, "in_shardings"))
            .ok_or_else(|| self.error(op, "unreadable in_shardings"))?;
        let out_shardings = SdySharding::read_per_value(self.body.attribute(op, "out_shardings"))
            .ok_or_else(|| self.error(op, "unreadable out_shardings"))?;
        let manual = manual_axes(self.body.attribute(op, "manual_axes"))
            .ok_or_else(|| self.error(op, "unreadable manual_axes"))?;
        for sharding in in_shardings.iter().chain(&out_shardings) {
            let mesh = self
                .meshes
                .get(&sharding.mesh)
                .ok_or_else(|| self.error(op, format!("no sdy.mesh @{}", sharding.mesh)))?;
            if let Some((axis, _)) = mesh
                .axes
                .iter()
                .find(|(name, size)| *size > 1 && !manual.contains(name))
            {
                return Err(self.error_with_hint(
                    op,
                    format!("axis \"{axis}\" is not manual, and partially manual computations need automatic partitioning"),
                    "make every mesh axis of size > 1 manual",
                ));
            }
        }
        let operands = self.body.ops[op].operands.clone();
        if in_shardings.len() != operands.len() {
            return Err(self.error(op, "one in_sharding per operand is required"));
        }
        let Some(block) = self.body.ops[op]
            .regions
            .first()
            .and_then(|&r| self.body.entry_block(r))
        else {
            return Err(self.error(op, "manual computation without a body"));
        };
        let arguments = self.body.blocks[block].arguments.clone();
        for (index, &value) in operands.iter().enumerate() {
            let instr = self.value(op, value)?;
            let target = self.sdy_tiling(op, &in_shardings[index])?;
            let current = self.distribution.tilings.get(&value).cloned();
            let local = self.reshard(comp, op, value, instr, current.as_ref(), target.as_ref())?;
            self.values.insert(arguments[index], local);
        }
        let results = self.lower_block(comp, block)?;
        let op_results = self.body.ops[op].results.clone();
        if out_shardings.len() != op_results.len() {
            return Err(self.error(op, "one out_sharding per result is required"));
        }
        for (index, (&result, instr)) in op_results.iter().zip(results).enumerate() {
            self.values.insert(result, instr);
            if let Some(tiling) = self.sdy_tiling(op, &out_shardings[index])? {
                self.distribution.tilings.insert(result, tiling);
            }
        }
        Ok(())
    }

    /// The legacy GSPMD custom calls' targets, when `op` is one.
    fn sharding_custom_call(&self, op: Op) -> Option<&'static str> {
        let target = self
            .body
            .attribute(op, "call_target_name")
            .and_then(Attribute::as_str)?;
        ["Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"]
            .into_iter()
            .find(|t| *t == target)
    }

    /// Custom calls the lowering gives meaning to: JAX's async pairs and the
    /// legacy GSPMD sharding calls. Returns whether `target` was one.
    pub(crate) fn lower_special_custom_call(
        &mut self,
        comp: Comp,
        op: Op,
        target: &str,
    ) -> LowerResult<bool> {
        if self.lower_async_custom_call(comp, op, target)? {
            return Ok(true);
        }
        let Some(target) = self.sharding_custom_call(op) else {
            return Ok(false);
        };
        let value = self.body.ops[op].operands[0];
        let instr = self.value(op, value)?;
        let result = self.body.ops[op].results[0];
        let rank = self.body.ty(result).rank().unwrap_or(0);
        let text = self
            .body
            .attribute(op, "mhlo.sharding")
            .and_then(Attribute::as_str)
            .unwrap_or("{replicated}")
            .to_string();
        let current = self.distribution.tilings.get(&value).cloned();
        match target {
            // `{manual}` marks the edges of the manual region: nothing moves.
            "Sharding" if text.trim() == "{manual}" => {
                self.values.insert(result, instr);
                if let Some(current) = current {
                    self.distribution.tilings.insert(result, current);
                }
            }
            "Sharding" => {
                let target = self.hlo_tiling(op, &text, rank)?;
                let moved =
                    self.reshard(comp, op, value, instr, current.as_ref(), target.as_ref())?;
                self.values.insert(result, moved);
                if let Some(target) = target {
                    self.distribution.tilings.insert(result, target);
                }
            }
            // The local value is the operand's tile.
            "SPMDFullToShardShape" => {
                self.values.insert(result, instr);
            }
            // The result is the global value, distributed as the call says.
            _ => {
                self.values.insert(result, instr);
                if let Some(target) = self.hlo_tiling(op, &text, rank)? {
                    self.distribution.tilings.insert(result, target);
                }
            }
        }
        Ok(true)
    }

    /// Moves `instr` (the value `value`, distributed as `from`) to the
    /// distribution `to`: all-gathers then a dynamic-slice, as needed.
    fn reshard(
        &mut self,
        comp: Comp,
        op: Op,
        value: Value,
        instr: Instr,
        from: Option<&Tiling>,
        to: Option<&Tiling>,
    ) -> LowerResult<Instr> {
        let rank = self.body.ty(value).rank().unwrap_or(0);
        match (from, to) {
            (None, None) => return Ok(instr),
            (Some(a), Some(b)) if a.same_layout(b, rank) => return Ok(instr),
            _ => {}
        }
        let global = self
            .body
            .ty(value)
            .static_dims()
            .ok_or_else(|| self.error(op, "a distributed value needs a static shape"))?;
        let mut current = instr;
        if let Some(from) = from {
            current = self.gather_whole(comp, op, current, from, &global)?;
        }
        if let Some(to) = to {
            current = self.slice_tile(comp, op, current, to, &global)?;
        }
        Ok(current)
    }

    /// Sharded → whole: one all-gather per split dimension.
    fn gather_whole(
        &mut self,
        comp: Comp,
        op: Op,
        instr: Instr,
        tiling: &Tiling,
        global: &[i64],
    ) -> LowerResult<Instr> {
        let element = self.element_of(instr);
        let mut local = tiling.local_dims(global).map_err(|m| self.error(op, m))?;
        let mut current = instr;
        let coordinates: Vec<Vec<i64>> = tiling
            .device_ids
            .iter()
            .map(|&d| {
                (0..global.len())
                    .map(|dim| tiling.tile_index(d, dim).unwrap_or(0))
                    .collect()
            })
            .collect();
        for dim in 0..global.len() {
            if tiling.tiles(dim) == 1 {
                continue;
            }
            // Devices holding the same tile of the other dimensions (and the
            // same replica of it) gather along `dim`, in tile order.
            // (key, [(tile index along dim, device)]) per group.
            let mut groups: Vec<GatherGroup> = Vec::new();
            let mut replica_of: FxHashMap<Vec<i64>, i64> = FxHashMap::default();
            for (position, &device) in tiling.device_ids.iter().enumerate() {
                let coords = &coordinates[position];
                let replica = replica_of.entry(coords.clone()).or_insert(0);
                let mut key: Vec<i64> = coords
                    .iter()
                    .enumerate()
                    .filter(|(d, _)| *d != dim)
                    .map(|(_, c)| *c)
                    .collect();
                key.push(*replica);
                *replica += 1;
                match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, members)) => members.push((coords[dim], device)),
                    None => groups.push((key, vec![(coords[dim], device)])),
                }
            }
            let replica_groups = groups
                .into_iter()
                .map(|(_, mut members)| {
                    members.sort();
                    members.into_iter().map(|(_, d)| d).collect()
                })
                .collect();
            local[dim] = global[dim];
            let shape = self
                .module
                .shapes
                .array_with_default_layout(element, &local);
            let channel = self.fresh_channel();
            current = self.emit(
                comp,
                "all-gather",
                Opcode::AllGather,
                shape,
                vec![current],
                Attrs::Collective(Box::new(CollectiveAttrs {
                    channel_id: Some(channel),
                    replica_groups: ReplicaGroups::List(replica_groups),
                    constrain_layout: false,
                    use_global_device_ids: true,
                    dimension: Some(dim as i64),
                    has_dynamic_root: None,
                })),
            );
        }
        Ok(current)
    }

    /// Whole → sharded: each device slices its tile, at offsets looked up by
    /// its partition id.
    fn slice_tile(
        &mut self,
        comp: Comp,
        op: Op,
        instr: Instr,
        tiling: &Tiling,
        global: &[i64],
    ) -> LowerResult<Instr> {
        let element = self.element_of(instr);
        let local = tiling.local_dims(global).map_err(|m| self.error(op, m))?;
        let devices = tiling.device_ids.iter().copied().max().unwrap_or(0) + 1;
        let u32_scalar = self
            .module
            .shapes
            .array_with_default_layout(ElementType::U32, &[]);
        let partition = self.emit(
            comp,
            "partition-id",
            Opcode::PartitionId,
            u32_scalar,
            Vec::new(),
            Attrs::plain(),
        );
        let s32_scalar = self
            .module
            .shapes
            .array_with_default_layout(ElementType::S32, &[]);
        let mut indices = Vec::new();
        for (dim, &local_size) in local.iter().enumerate() {
            if tiling.tiles(dim) == 1 {
                indices.push(self.scalar_constant(comp, ElementType::S32, 0.0, "constant"));
                continue;
            }
            let mut table = ArrayLiteral::zeros(ElementType::S32, &[devices]);
            for &device in &tiling.device_ids {
                let offset = tiling.tile_index(device, dim).unwrap_or(0) * local_size;
                table.set_int(device as usize, i128::from(offset));
            }
            let table_shape = self
                .module
                .shapes
                .array_with_default_layout(ElementType::S32, &[devices]);
            let table = self.emit(
                comp,
                "constant",
                Opcode::Constant,
                table_shape,
                Vec::new(),
                Attrs::Constant(Box::new(Literal::Array(table))),
            );
            let one = self
                .module
                .shapes
                .array_with_default_layout(ElementType::S32, &[1]);
            let entry = self.emit(
                comp,
                "dynamic-slice",
                Opcode::DynamicSlice,
                one,
                vec![table, partition],
                Attrs::DynamicSlice {
                    sizes: vec![1].into(),
                },
            );
            indices.push(self.emit(
                comp,
                "reshape",
                Opcode::Reshape,
                s32_scalar,
                vec![entry],
                Attrs::plain(),
            ));
        }
        let shape = self
            .module
            .shapes
            .array_with_default_layout(element, &local);
        let mut operands = vec![instr];
        operands.extend(indices);
        Ok(self.emit(
            comp,
            "dynamic-slice",
            Opcode::DynamicSlice,
            shape,
            operands,
            Attrs::DynamicSlice {
                sizes: local.into(),
            },
        ))
    }

    /// The element type of `instr`'s (array) shape.
    pub(crate) fn element_of(&self, instr: Instr) -> ElementType {
        let shape = self.module.shape_of(instr);
        self.module
            .shapes
            .as_array(shape)
            .map_or(ElementType::F32, |a| a.elem)
    }
}

/// Whether a StableHLO op is elementwise (its HLO opcode says so).
fn weft_ir_elementwise(kind: OpKind) -> bool {
    use OpKind as K;
    matches!(
        kind,
        K::Abs
            | K::Add
            | K::And
            | K::Atan2
            | K::Cbrt
            | K::Ceil
            | K::Clamp
            | K::CountLeadingZeros
            | K::Complex
            | K::Convert
            | K::Cosine
            | K::Divide
            | K::Exponential
            | K::ExponentialMinusOne
            | K::Floor
            | K::Imag
            | K::IsFinite
            | K::Log
            | K::LogPlusOne
            | K::Logistic
            | K::Maximum
            | K::Minimum
            | K::Multiply
            | K::Negate
            | K::Not
            | K::Or
            | K::PopulationCount
            | K::Power
            | K::Real
            | K::Remainder
            | K::RoundNearestAfz
            | K::RoundNearestEven
            | K::Rsqrt
            | K::ShiftLeft
            | K::ShiftRightArithmetic
            | K::ShiftRightLogical
            | K::Sign
            | K::Sine
            | K::Sqrt
            | K::Subtract
            | K::Tan
            | K::Tanh
            | K::Xor
            | K::Select
            | K::Compare
            | K::MhloCopy
    )
}

//! Collectives, point-to-point transfers and feeds, and the three async
//! encodings.
//!
//! Every collective is first read into a [`CollectiveSpec`] — from the op's
//! properties, or from the `async_collective_config` JSON of JAX's custom-call
//! pairs — and emitted by one function, so the sync op, `async_start`, the
//! explicit `*_start` pairs and the custom calls lower identically.
//!
//! An async start becomes, as XLA's `AsyncCollectiveCreator` makes it:
//! - `all-reduce-start` (shape of the all-reduce), `all-gather-start`
//!   (`(operand, result)`) or `collective-permute-start`
//!   (`(operand, result, u32[], u32[])`) — the first-class pairs;
//! - otherwise `async-start` calling a computation that holds the collective
//!   alone, shape `((operands…), result)`.
//!
//! The done reads the start. An `all_to_all` whose split and concat dimensions
//! differ is XLA's array all-to-all on the split dimension followed by a
//! reshape, a transpose and a reshape; for an async one those follow the done.
//!
//! Replica groups in the mesh-axes form are flattened as StableHLO's
//! `flattenReplicaGroupMeshAxes` does (notes: non-communication axes first in
//! mesh order, then the communication axes in the order listed).

use weft_ir::attrs::{Attrs, CollectiveAttrs, CollectivePermuteAttrs, OutfeedAttrs, ReplicaGroups};
use weft_ir::{Callees, Comp, ElementType, Instr, Opcode, Shape};

use super::{LowerResult, Lowering};
use crate::ir::dialect_attr::{Param, SdyMesh, Structured, channel_id};
use crate::ir::{Attribute, Op};
use crate::ops::OpKind;
use serde_json::Value as Json;

/// A collective, whatever encoding it came from.
#[derive(Clone, Debug)]
pub(crate) struct CollectiveSpec {
    /// The synchronous op kind (`AllReduce`, `AllGather`, …).
    pub kind: OpKind,
    pub channel_id: Option<i64>,
    pub groups: Vec<Vec<i64>>,
    pub use_global_device_ids: bool,
    /// all-gather / reduce-scatter dimension.
    pub dimension: Option<i64>,
    /// all-to-all split, concat and count.
    pub split: Option<(i64, i64, i64)>,
    /// collective-permute pairs.
    pub pairs: Vec<(i64, i64)>,
    /// The reducer, for reducing collectives.
    pub reducer: Option<Comp>,
    /// collective-broadcast and collective-reduce: the last operand holds
    /// each result's root (its position in the group).
    pub dynamic_root: bool,
}

/// What follows the done of an async all-to-all whose split and concat
/// dimensions differ.
#[derive(Clone, Debug)]
pub(crate) struct AfterDone {
    spec: CollectiveSpec,
    result: Shape,
    name: String,
}

impl Lowering<'_> {
    pub(crate) fn lower_communication(
        &mut self,
        comp: Comp,
        op: Op,
        kind: OpKind,
    ) -> LowerResult<()> {
        match kind {
            OpKind::Send => self.send(comp, op),
            OpKind::Recv => self.recv(comp, op),
            OpKind::Infeed => self.infeed(comp, op),
            OpKind::Outfeed => self.outfeed(comp, op),
            _ => {
                let spec = self.collective_spec(op, kind)?;
                let operands = self.operands(op)?;
                let shape = self.result_shape(op)?;
                let name = self.name_for(op, collective_opcode(kind).name());
                if spec.kind == OpKind::AllToAll && operands.len() > 1 {
                    let result = self.variadic_all_to_all(comp, &spec, operands, shape, &name)?;
                    self.bind_results(comp, op, result);
                    return Ok(());
                }
                let core = self.emit_collective(comp, &spec, operands, shape, &name)?;
                let result = self.finish_all_to_all(comp, &spec, core, shape, &name);
                self.bind_results(comp, op, result);
                Ok(())
            }
        }
    }

    /// Reads the collective attributes of a StableHLO collective op.
    fn collective_spec(&mut self, op: Op, kind: OpKind) -> LowerResult<CollectiveSpec> {
        let kind = synchronous_kind(kind);
        let mut spec = CollectiveSpec {
            kind,
            channel_id: channel_id(self.body.attribute(op, "channel_handle")).filter(|&c| c > 0),
            groups: Vec::new(),
            use_global_device_ids: self.flag(op, "use_global_device_ids"),
            dimension: None,
            split: None,
            pairs: Vec::new(),
            reducer: None,
            dynamic_root: self.flag(op, "has_dynamic_root"),
        };
        if kind != OpKind::CollectivePermute {
            spec.groups = self.replica_groups(op)?;
        }
        match kind {
            OpKind::AllGather => spec.dimension = Some(self.int(op, "all_gather_dim")?),
            OpKind::ReduceScatter => spec.dimension = Some(self.int(op, "scatter_dimension")?),
            OpKind::AllToAll => {
                spec.split = Some((
                    self.int(op, "split_dimension")?,
                    self.int(op, "concat_dimension")?,
                    self.int(op, "split_count")?,
                ))
            }
            OpKind::CollectivePermute => {
                let flat = self.ints(op, "source_target_pairs")?;
                spec.pairs = flat.chunks(2).map(|p| (p[0], p[1])).collect();
            }
            _ => {}
        }
        if matches!(
            kind,
            OpKind::AllReduce | OpKind::ReduceScatter | OpKind::CollectiveReduce
        ) {
            spec.reducer = Some(self.reducer(op, 0, "region")?);
        }
        Ok(spec)
    }

    /// `replica_groups`: a dense `N×M` tensor (with `-1` padding), or the
    /// mesh-axes form.
    fn replica_groups(&self, op: Op) -> LowerResult<Vec<Vec<i64>>> {
        let Some(attribute) = self.body.attribute(op, "replica_groups") else {
            return Ok(Vec::new());
        };
        if let Attribute::DenseElements(dense) = attribute {
            let dims = dense.ty.static_dims().unwrap_or_default();
            let values = super::ops::integer_list(attribute)
                .ok_or_else(|| self.error(op, "replica_groups must be integers"))?;
            let width = dims.get(1).copied().unwrap_or(0).max(1) as usize;
            if values.is_empty() {
                return Ok(Vec::new());
            }
            return Ok(values
                .chunks(width)
                .map(|g| g.iter().copied().filter(|&id| id >= 0).collect())
                .collect());
        }
        let groups = Structured::read(Some(attribute), "stablehlo.replica_group_mesh_axes")
            .ok_or_else(|| self.error(op, "unreadable replica_groups"))?;
        let mesh = match groups.get("mesh") {
            Some(Param::Symbol(name)) => self.meshes.get(name).cloned().ok_or_else(|| {
                self.error(
                    op,
                    format!(
                        "replica groups refer to @{name}, which is not an sdy.mesh of this module"
                    ),
                )
            })?,
            Some(Param::Structured(inline)) => {
                inline_mesh(inline).ok_or_else(|| self.error(op, "unreadable inline mesh"))?
            }
            _ => return Err(self.error(op, "replica groups without a mesh")),
        };
        let mut axes = Vec::new();
        if let Some(Param::List(items)) = groups.get("axes") {
            for item in items {
                let Param::Structured(axis) = item else {
                    return Err(self.error(op, "unreadable axis_ref"));
                };
                if axis.get("sub_axis_info").is_some() {
                    return Err(self.error(op, "sub-axes in replica groups are not supported"));
                }
                let Some(Param::String(name)) = axis.get("name") else {
                    return Err(self.error(op, "axis_ref without a name"));
                };
                let index = mesh
                    .axis(name)
                    .ok_or_else(|| self.error(op, format!("the mesh has no axis \"{name}\"")))?;
                axes.push(index);
            }
        }
        Ok(flatten_mesh_axes(&mesh, &axes))
    }

    /// Emits the collective of `spec`: for an all-to-all, the array
    /// all-to-all on the split dimension (see [`Self::finish_all_to_all`]).
    pub(crate) fn emit_collective(
        &mut self,
        comp: Comp,
        spec: &CollectiveSpec,
        operands: Vec<Instr>,
        shape: Shape,
        name: &str,
    ) -> LowerResult<Instr> {
        let opcode = collective_opcode(spec.kind);
        let collective = |dimension| {
            Attrs::Collective(Box::new(CollectiveAttrs {
                channel_id: spec.channel_id,
                replica_groups: ReplicaGroups::List(spec.groups.clone()),
                constrain_layout: false,
                use_global_device_ids: spec.use_global_device_ids,
                dimension,
                has_dynamic_root: spec.dynamic_root.then_some(true),
            }))
        };
        let (attrs, shape) = match spec.kind {
            OpKind::CollectivePermute => (
                Attrs::CollectivePermute(Box::new(CollectivePermuteAttrs {
                    channel_id: spec.channel_id,
                    source_target_pairs: spec.pairs.clone(),
                    slice_sizes: None,
                })),
                shape,
            ),
            OpKind::AllToAll => {
                let (split, _, _) = spec.split.expect("all-to-all has a split");
                if operands.len() != 1 {
                    return Err(Box::new(weft_ir::Diagnostic::error(
                        weft_ir::Span::default(),
                        "cannot lower an all_to_all of several operands",
                    )));
                }
                // The array all-to-all keeps the operand's shape.
                (collective(Some(split)), self.module.shape_of(operands[0]))
            }
            _ => (collective(spec.dimension), shape),
        };
        let instr = self.emit(comp, name, opcode, shape, operands, attrs);
        if let Some(reducer) = spec.reducer {
            self.module.instrs[instr].callees = Callees::from([reducer]);
        }
        Ok(instr)
    }

    /// An all-to-all of several operands: each operand is split, exchanged
    /// and concatenated on its own, so it becomes one array all-to-all per
    /// operand (same groups and channel), their results in a tuple.
    fn variadic_all_to_all(
        &mut self,
        comp: Comp,
        spec: &CollectiveSpec,
        operands: Vec<Instr>,
        shape: Shape,
        name: &str,
    ) -> LowerResult<Instr> {
        let results = self
            .module
            .shapes
            .tuple_elements(shape)
            .map(<[Shape]>::to_vec)
            .filter(|results| results.len() == operands.len())
            .ok_or_else(|| {
                Box::new(weft_ir::Diagnostic::error(
                    weft_ir::Span::default(),
                    "an all_to_all has as many results as operands",
                ))
            })?;
        let mut parts = Vec::with_capacity(operands.len());
        for (operand, result) in operands.into_iter().zip(results) {
            let core = self.emit_collective(comp, spec, vec![operand], result, name)?;
            parts.push(self.finish_all_to_all(comp, spec, core, result, name));
        }
        Ok(self.tuple(comp, parts, name))
    }

    /// XLA's all-to-all with different split and concat dimensions: reshape
    /// the split dimension into `[count, size/count]`, move the count next to
    /// the concat dimension, reshape to the result.
    fn finish_all_to_all(
        &mut self,
        comp: Comp,
        spec: &CollectiveSpec,
        core: Instr,
        result: Shape,
        name: &str,
    ) -> Instr {
        let Some((split, concat, count)) = spec.split else {
            return core;
        };
        if split == concat {
            return core;
        }
        let core_shape = self.module.shape_of(core);
        let array = self
            .module
            .shapes
            .as_array(core_shape)
            .expect("all-to-all of an array")
            .clone();
        let (split, concat) = (split as usize, concat as usize);
        let mut sizes = Vec::new();
        for (i, &d) in array.dims.iter().enumerate() {
            if i == split {
                sizes.push(count);
                sizes.push(d / count.max(1));
            } else {
                sizes.push(d);
            }
        }
        let mut permutation = Vec::new();
        for i in 0..array.dims.len() {
            let after_reshape = if i >= split { i + 1 } else { i };
            if i == concat {
                permutation.push(split as i64);
            }
            permutation.push(after_reshape as i64);
        }
        let reshaped_shape = self
            .module
            .shapes
            .array_with_default_layout(array.elem, &sizes);
        let reshaped = self.emit(
            comp,
            name,
            Opcode::Reshape,
            reshaped_shape,
            vec![core],
            Attrs::plain(),
        );
        let transposed_dims: Vec<i64> = permutation.iter().map(|&p| sizes[p as usize]).collect();
        let transposed_shape = self
            .module
            .shapes
            .array_with_default_layout(array.elem, &transposed_dims);
        let transposed = self.emit(
            comp,
            name,
            Opcode::Transpose,
            transposed_shape,
            vec![reshaped],
            Attrs::Dimensions {
                dimensions: permutation.into(),
            },
        );
        self.emit(
            comp,
            name,
            Opcode::Reshape,
            result,
            vec![transposed],
            Attrs::plain(),
        )
    }

    // ----- point to point and feeds -----

    /// The attributes of a send or recv: its channel and whether it talks to
    /// the host.
    fn transfer_attrs(&self, op: Op) -> Attrs {
        Attrs::SendRecv {
            channel_id: channel_id(self.body.attribute(op, "channel_handle")),
            is_host_transfer: self.flag(op, "is_host_transfer"),
        }
    }

    /// A send's or recv's shape: `(data, u32[] context, token)`.
    fn transfer_shape(&mut self, data: Shape) -> Shape {
        let context = self
            .module
            .shapes
            .array_with_default_layout(ElementType::U32, &[]);
        let token = self.module.shapes.token();
        self.module.shapes.tuple(&[data, context, token])
    }

    /// The HLO shapes of `values`.
    fn value_shapes(&mut self, op: Op, values: &[crate::ir::Value]) -> LowerResult<Vec<Shape>> {
        let mut shapes = Vec::new();
        for &value in values {
            let ty = self.body.ty(value).clone();
            shapes.push(self.shape(&ty).map_err(|m| self.error(op, m))?);
        }
        Ok(shapes)
    }

    fn send(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let mut operands = self.operands(op)?;
        let token = operands
            .pop()
            .ok_or_else(|| self.error(op, "send needs a token"))?;
        let name = self.name_for(op, "send");
        let data = match operands.as_slice() {
            [only] => *only,
            _ => self.tuple(comp, operands, &name),
        };
        let attrs = self.transfer_attrs(op);
        let data_shape = self.module.shape_of(data);
        let token_shape = self.module.shapes.token();
        let send_shape = self.transfer_shape(data_shape);
        let send = self.emit(
            comp,
            &name,
            Opcode::Send,
            send_shape,
            vec![data, token],
            attrs.clone(),
        );
        let done = self.emit(
            comp,
            &format!("{name}-done"),
            Opcode::SendDone,
            token_shape,
            vec![send],
            attrs,
        );
        self.bind_results(comp, op, done);
        Ok(())
    }

    fn recv(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let token = self.operands(op)?[0];
        let name = self.name_for(op, "recv");
        let results = self.body.ops[op].results.clone();
        let Some((&token_result, data_results)) = results.split_last() else {
            return Err(self.error(op, "recv needs a token result"));
        };
        let data_shapes = self.value_shapes(op, data_results)?;
        let data_shape = match data_shapes.as_slice() {
            [only] => *only,
            _ => self.module.shapes.tuple(&data_shapes),
        };
        let attrs = self.transfer_attrs(op);
        let token_shape = self.module.shapes.token();
        let recv_shape = self.transfer_shape(data_shape);
        let recv = self.emit(
            comp,
            &name,
            Opcode::Recv,
            recv_shape,
            vec![token],
            attrs.clone(),
        );
        let done_shape = self.module.shapes.tuple(&[data_shape, token_shape]);
        let done = self.emit(
            comp,
            &format!("{name}-done"),
            Opcode::RecvDone,
            done_shape,
            vec![recv],
            attrs,
        );
        let data = self.get_tuple_element(comp, done, 0, &name);
        if let [only] = data_results {
            self.values.insert(*only, data);
        } else {
            for (index, &result) in data_results.iter().enumerate() {
                let element = self.get_tuple_element(comp, data, index, &name);
                self.values.insert(result, element);
            }
        }
        let token = self.get_tuple_element(comp, done, 1, &name);
        self.values.insert(token_result, token);
        Ok(())
    }

    fn infeed(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let token = self.operands(op)?[0];
        let name = self.name_for(op, "infeed");
        let results = self.body.ops[op].results.clone();
        let Some((&token_result, data_results)) = results.split_last() else {
            return Err(self.error(op, "infeed needs a token result"));
        };
        let data_shapes = self.value_shapes(op, data_results)?;
        let data_shape = self.module.shapes.tuple(&data_shapes);
        let token_shape = self.module.shapes.token();
        let shape = self.module.shapes.tuple(&[data_shape, token_shape]);
        let config = self
            .body
            .attribute(op, "infeed_config")
            .and_then(Attribute::as_str)
            .unwrap_or_default()
            .to_string();
        let infeed = self.emit(
            comp,
            &name,
            Opcode::Infeed,
            shape,
            vec![token],
            Attrs::Infeed {
                config: config.into(),
            },
        );
        let data = self.get_tuple_element(comp, infeed, 0, &name);
        for (index, &result) in data_results.iter().enumerate() {
            let element = self.get_tuple_element(comp, data, index, &name);
            self.values.insert(result, element);
        }
        let token = self.get_tuple_element(comp, infeed, 1, &name);
        self.values.insert(token_result, token);
        Ok(())
    }

    fn outfeed(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let mut operands = self.operands(op)?;
        let token = operands
            .pop()
            .ok_or_else(|| self.error(op, "outfeed needs a token"))?;
        let name = self.name_for(op, "outfeed");
        let data = self.tuple(comp, operands, &name);
        let config = self
            .body
            .attribute(op, "outfeed_config")
            .and_then(Attribute::as_str)
            .unwrap_or_default()
            .to_string();
        let shape = self.module.shapes.token();
        let outfeed = self.emit(
            comp,
            &name,
            Opcode::Outfeed,
            shape,
            vec![data, token],
            Attrs::Outfeed(Box::new(OutfeedAttrs {
                outfeed_shape: None,
                config: config.into(),
            })),
        );
        self.bind_results(comp, op, outfeed);
        Ok(())
    }

    // ----- async -----

    pub(crate) fn lower_async(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        match kind {
            OpKind::AsyncStart => {
                let (inner, inner_kind) = self.async_wrapped_op(op)?;
                if matches!(
                    inner_kind,
                    OpKind::Slice | OpKind::DynamicSlice | OpKind::DynamicUpdateSlice
                ) {
                    return self.start_slice(comp, op, inner);
                }
                let operands = self.operands(op)?;
                let spec = self.collective_spec(inner, inner_kind)?;
                let shape = self.result_shape(inner)?;
                let name = self.name_for(
                    op,
                    &format!("{}-start", collective_opcode(spec.kind).name()),
                );
                let start = self.start_collective(comp, &spec, operands, shape, &name)?;
                self.bind_results(comp, op, start);
                Ok(())
            }
            OpKind::AsyncDone
            | OpKind::AllGatherDone
            | OpKind::AllReduceDone
            | OpKind::AllToAllDone
            | OpKind::CollectiveBroadcastDone
            | OpKind::CollectivePermuteDone
            | OpKind::ReduceScatterDone => {
                let start = self.operands(op)?[0];
                let name = self.name_for(op, "done");
                let done = self.done_of(comp, op, start, &name)?;
                self.bind_results(comp, op, done);
                Ok(())
            }
            _ => {
                // An explicit `*_start`: the op carries the collective.
                let spec = self.collective_spec(op, kind)?;
                let operands = self.operands(op)?;
                let shape = self.result_shape(op)?;
                let name = self.name_for(
                    op,
                    &format!("{}-start", collective_opcode(spec.kind).name()),
                );
                let start = self.start_collective(comp, &spec, operands, shape, &name)?;
                self.bind_results(comp, op, start);
                Ok(())
            }
        }
    }

    /// A slice op in an `async_start`: a generic `async-start` calling a
    /// computation that holds the op on parameters (`dynamic-slice-start` in
    /// XLA's sugar).
    fn start_slice(&mut self, comp: Comp, op: Op, inner: Op) -> LowerResult<()> {
        let operands = self.operands(op)?;
        let opcode = match self.body.ops[inner].name.kind() {
            Some(OpKind::Slice) => Opcode::Slice,
            Some(OpKind::DynamicSlice) => Opcode::DynamicSlice,
            _ => Opcode::DynamicUpdateSlice,
        };
        let name = self.name_for(op, &format!("{}-start", opcode.name()));
        let wrapped = self.new_computation(&format!("{name}.async"));
        let arguments = self.body.ops[inner].operands.clone();
        let mut operand_shapes = Vec::new();
        for (number, (&argument, &operand)) in arguments.iter().zip(&operands).enumerate() {
            let shape = self.module.shape_of(operand);
            operand_shapes.push(shape);
            let parameter = self.parameter(wrapped, number, shape, &format!("{name}.p{number}"));
            self.values.insert(argument, parameter);
        }
        self.lower_op(wrapped, inner)?;
        let result = self.value(inner, self.body.ops[inner].results[0])?;
        self.module.set_root(wrapped, result);
        let bound = self.module.shapes.tuple(&operand_shapes);
        let result_shape = self.module.shape_of(result);
        let start_shape = self.module.shapes.tuple(&[bound, result_shape]);
        let start = self.emit(
            comp,
            &name,
            Opcode::AsyncStart,
            start_shape,
            operands,
            Attrs::Async(Box::default()),
        );
        self.module.instrs[start].callees = Callees::from([wrapped]);
        self.bind_results(comp, op, start);
        Ok(())
    }

    /// The collective inside an `async_start`'s region.
    fn async_wrapped_op(&self, op: Op) -> LowerResult<(Op, OpKind)> {
        let region = self.body.ops[op].regions.first().copied();
        let block = region.and_then(|r| self.body.entry_block(r));
        let Some(block) = block else {
            return Err(self.error(op, "async_start without a region"));
        };
        let arguments = &self.body.blocks[block].arguments;
        let ops = &self.body.blocks[block].ops;
        let [inner, _return] = ops.as_slice() else {
            return Err(self.error(op, "the region must hold one op and a return"));
        };
        let kind = self.body.ops[*inner].name.kind();
        let Some(kind) = kind.filter(|k| {
            matches!(
                k,
                OpKind::Slice
                    | OpKind::DynamicSlice
                    | OpKind::DynamicUpdateSlice
                    | OpKind::AllGather
                    | OpKind::AllReduce
                    | OpKind::AllToAll
                    | OpKind::CollectiveBroadcast
                    | OpKind::CollectivePermute
                    | OpKind::CollectiveReduce
                    | OpKind::ReduceScatter
            )
        }) else {
            return Err(self.error(
                op,
                "only collectives and slice ops can be lowered inside async_start",
            ));
        };
        // The wrapped op must read the region's arguments, in order.
        if self.body.ops[*inner].operands != *arguments {
            return Err(self.error(
                op,
                "the wrapped op must take the region's arguments, in order",
            ));
        }
        Ok((*inner, kind))
    }

    /// Starts the collective of `spec`: the first-class start where XLA has
    /// one, else `async-start` around a computation holding the collective.
    pub(crate) fn start_collective(
        &mut self,
        comp: Comp,
        spec: &CollectiveSpec,
        operands: Vec<Instr>,
        result: Shape,
        name: &str,
    ) -> LowerResult<Instr> {
        let operand_shapes: Vec<Shape> =
            operands.iter().map(|&o| self.module.shape_of(o)).collect();
        match spec.kind {
            OpKind::AllReduce => {
                let start = self.emit_collective(comp, spec, operands, result, name)?;
                self.module.instrs[start].opcode = Opcode::AllReduceStart;
                Ok(start)
            }
            OpKind::AllGather => {
                let operand_shape = match operand_shapes.as_slice() {
                    [only] => *only,
                    _ => self.module.shapes.tuple(&operand_shapes),
                };
                let start_shape = self.module.shapes.tuple(&[operand_shape, result]);
                let start = self.emit_collective(comp, spec, operands, start_shape, name)?;
                self.module.instrs[start].opcode = Opcode::AllGatherStart;
                Ok(start)
            }
            OpKind::CollectivePermute if operands.len() == 1 => {
                let context = self
                    .module
                    .shapes
                    .array_with_default_layout(ElementType::U32, &[]);
                let start_shape =
                    self.module
                        .shapes
                        .tuple(&[operand_shapes[0], result, context, context]);
                let start = self.emit_collective(comp, spec, operands, start_shape, name)?;
                self.module.instrs[start].opcode = Opcode::CollectivePermuteStart;
                Ok(start)
            }
            _ => {
                let wrapped = self.new_computation(&format!("{name}.async"));
                let mut parameters = Vec::new();
                for (number, &shape) in operand_shapes.iter().enumerate() {
                    parameters.push(self.parameter(
                        wrapped,
                        number,
                        shape,
                        &format!("{name}.p{number}"),
                    ));
                }
                // The wrapped op is named as the synchronous op it is
                // (`all-to-all.1` inside `all-to-all-start.1`), as XLA names it.
                let wrapped_name = synchronous_name(name);
                let collective =
                    self.emit_collective(wrapped, spec, parameters, result, &wrapped_name)?;
                self.module.set_root(wrapped, collective);
                let collective_shape = self.module.shape_of(collective);
                let bound = self.module.shapes.tuple(&operand_shapes);
                let start_shape = self.module.shapes.tuple(&[bound, collective_shape]);
                let start = self.emit(
                    comp,
                    name,
                    Opcode::AsyncStart,
                    start_shape,
                    operands,
                    Attrs::Async(Box::default()),
                );
                self.module.instrs[start].callees = Callees::from([wrapped]);
                if spec.split.is_some_and(|(split, concat, _)| split != concat) {
                    self.after_done.insert(
                        start,
                        AfterDone {
                            spec: spec.clone(),
                            result,
                            name: name.to_string(),
                        },
                    );
                }
                Ok(start)
            }
        }
    }

    /// The done of `start`.
    fn done_of(&mut self, comp: Comp, op: Op, start: Instr, name: &str) -> LowerResult<Instr> {
        let start_shape = self.module.shape_of(start);
        // A future that travelled through loop state or a call arrives as a
        // get-tuple-element of the start's value; the start it came from
        // decides which done finishes it.
        let start_opcode = match self.module.instrs[start].opcode {
            Opcode::AllReduceStart
            | Opcode::AllGatherStart
            | Opcode::CollectivePermuteStart
            | Opcode::AsyncStart => self.module.instrs[start].opcode,
            _ => self
                .future_origins
                .source(self.body.ops[op].operands[0])
                .and_then(|source| self.values.get(&self.body.ops[source].results[0]))
                .map(|&origin| self.module.instrs[origin].opcode)
                .unwrap_or(self.module.instrs[start].opcode),
        };
        let (opcode, shape, attrs) = match start_opcode {
            Opcode::AllReduceStart => (Opcode::AllReduceDone, start_shape, Attrs::plain()),
            Opcode::AllGatherStart => (
                Opcode::AllGatherDone,
                self.tuple_element_shape(op, start_shape, 1)?,
                Attrs::plain(),
            ),
            Opcode::CollectivePermuteStart => (
                Opcode::CollectivePermuteDone,
                self.tuple_element_shape(op, start_shape, 1)?,
                Attrs::plain(),
            ),
            Opcode::AsyncStart => (
                Opcode::AsyncDone,
                self.tuple_element_shape(op, start_shape, 1)?,
                Attrs::Async(Box::default()),
            ),
            _ => return Err(self.error(op, "the operand is not an async start")),
        };
        let done = self.emit(comp, name, opcode, shape, vec![start], attrs);
        if let Some(after) = self.after_done.remove(&start) {
            return Ok(self.finish_all_to_all(comp, &after.spec, done, after.result, &after.name));
        }
        Ok(done)
    }

    /// Element `index` of the start's tuple shape. A start's value is a
    /// tuple by construction; anything else did not come from one.
    fn tuple_element_shape(&self, op: Op, tuple: Shape, index: usize) -> LowerResult<Shape> {
        self.module
            .shapes
            .tuple_elements(tuple)
            .and_then(|elements| elements.get(index).copied())
            .ok_or_else(|| self.error(op, "the operand is not an async start"))
    }

    // ----- JAX's custom-call pairs -----

    /// `@all-reduce-start` … `@…-done` custom calls with their
    /// `async_collective_config`. Returns whether `target` was one of them.
    pub(crate) fn lower_async_custom_call(
        &mut self,
        comp: Comp,
        op: Op,
        target: &str,
    ) -> LowerResult<bool> {
        if let Some(kind) = target.strip_suffix("-start").and_then(custom_call_kind) {
            let config = self
                .body
                .attribute(op, "mhlo.frontend_attributes")
                .and_then(Attribute::as_dictionary)
                .and_then(|d| crate::ir::attribute::find(d, "async_collective_config"))
                .and_then(Attribute::as_str)
                .ok_or_else(|| {
                    self.error(op, format!("@{target} needs its async_collective_config"))
                })?;
            let json: Json = serde_json::from_str(config).map_err(|m| {
                self.error(
                    op,
                    format!("async_collective_config is not valid JSON: {m}"),
                )
            })?;
            let mut spec = spec_from_json(kind, &json).map_err(|m| self.error(op, m))?;
            if matches!(kind, OpKind::AllReduce | OpKind::ReduceScatter) {
                let Some(list) = self
                    .body
                    .attribute(op, "called_computations")
                    .and_then(Attribute::as_array)
                else {
                    return Err(self.error(
                        op,
                        format!("@{target} needs its reducer in called_computations"),
                    ));
                };
                let Some(Attribute::SymbolRef(path)) = list.first() else {
                    return Err(self.error(op, "unreadable called_computations"));
                };
                let func = self.function_named(op, &path[0].clone())?;
                spec.reducer = Some(self.function_computation(func)?);
            }
            let operands = self.operands(op)?;
            let shape = self.result_shape(op)?;
            let name = self.name_for(op, target);
            let start = self.start_collective(comp, &spec, operands, shape, &name)?;
            self.bind_results(comp, op, start);
            return Ok(true);
        }
        if target
            .strip_suffix("-done")
            .and_then(custom_call_kind)
            .is_some()
        {
            let start = self.operands(op)?[0];
            let name = self.name_for(op, target);
            let done = self.done_of(comp, op, start, &name)?;
            self.bind_results(comp, op, done);
            return Ok(true);
        }
        Ok(false)
    }
}

/// The collective kind a start op or a sync op stands for.
fn synchronous_kind(kind: OpKind) -> OpKind {
    match kind {
        OpKind::AllGatherStart => OpKind::AllGather,
        OpKind::AllReduceStart => OpKind::AllReduce,
        OpKind::AllToAllStart => OpKind::AllToAll,
        OpKind::CollectiveBroadcastStart => OpKind::CollectiveBroadcast,
        OpKind::CollectivePermuteStart => OpKind::CollectivePermute,
        OpKind::ReduceScatterStart => OpKind::ReduceScatter,
        other => other,
    }
}

/// The HLO opcode of a synchronous collective kind.
pub(crate) fn collective_opcode(kind: OpKind) -> Opcode {
    match synchronous_kind(kind) {
        OpKind::AllGather => Opcode::AllGather,
        OpKind::AllReduce => Opcode::AllReduce,
        OpKind::AllToAll => Opcode::AllToAll,
        OpKind::CollectiveBroadcast => Opcode::CollectiveBroadcast,
        OpKind::CollectivePermute => Opcode::CollectivePermute,
        OpKind::CollectiveReduce => Opcode::CollectiveReduce,
        _ => Opcode::ReduceScatter,
    }
}

/// `all-reduce` (of `@all-reduce-start`) to its kind.
fn custom_call_kind(stem: &str) -> Option<OpKind> {
    Some(match stem {
        "all-reduce" => OpKind::AllReduce,
        "all-gather" => OpKind::AllGather,
        "reduce-scatter" => OpKind::ReduceScatter,
        "all-to-all" => OpKind::AllToAll,
        "collective-permute" => OpKind::CollectivePermute,
        _ => return None,
    })
}

/// A collective from JAX's `async_collective_config`.
fn spec_from_json(kind: OpKind, json: &Json) -> Result<CollectiveSpec, String> {
    let int = |key: &str| -> Result<i64, String> {
        json.get(key)
            .and_then(Json::as_i64)
            .ok_or_else(|| format!("async_collective_config needs an integer \"{key}\""))
    };
    let groups = match json.get("replica_groups") {
        None => Vec::new(),
        Some(list) => list
            .as_array()
            .ok_or("\"replica_groups\" must be a list of lists")?
            .iter()
            .map(|group| {
                group
                    .as_array()
                    .and_then(|ids| ids.iter().map(Json::as_i64).collect::<Option<Vec<i64>>>())
                    .ok_or_else(|| {
                        "\"replica_groups\" must be a list of lists of integers".to_string()
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    let mut spec = CollectiveSpec {
        kind,
        channel_id: json
            .get("channel_id")
            .and_then(Json::as_i64)
            .filter(|&c| c > 0),
        groups,
        use_global_device_ids: json
            .get("use_global_device_ids")
            .and_then(Json::as_bool)
            .unwrap_or(false),
        dimension: None,
        split: None,
        pairs: Vec::new(),
        reducer: None,
        dynamic_root: false,
    };
    match kind {
        OpKind::AllGather => spec.dimension = Some(int("all_gather_dimension")?),
        OpKind::ReduceScatter => {
            spec.dimension = Some(int("scatter_dimension")?);
            if json.get("tiled").and_then(Json::as_bool) == Some(false) {
                return Err("untiled reduce-scatter is not lowered".into());
            }
        }
        OpKind::AllToAll => {
            spec.split = Some((
                int("split_dimension")?,
                int("concat_dimension")?,
                int("split_count")?,
            ))
        }
        OpKind::CollectivePermute => {
            let pairs = json
                .get("permutation")
                .and_then(Json::as_array)
                .ok_or("async_collective_config needs a \"permutation\" list")?;
            spec.pairs = pairs
                .iter()
                .map(|pair| match pair.as_array().map(Vec::as_slice) {
                    Some([source, target]) => source.as_i64().zip(target.as_i64()),
                    _ => None,
                })
                .collect::<Option<_>>()
                .ok_or("\"permutation\" must be a list of [source, target] pairs")?;
        }
        _ => {}
    }
    Ok(spec)
}

/// An inline `#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, …], device_ids = …>`
/// or `#sdy.mesh<…>`.
fn inline_mesh(inline: &Structured) -> Option<SdyMesh> {
    let mut mesh = SdyMesh::default();
    let Some(Param::List(axes)) = inline.get("axes") else {
        return None;
    };
    for axis in axes {
        let Param::Structured(axis) = axis else {
            return None;
        };
        let Some(Param::String(name)) = axis.get("name") else {
            return None;
        };
        mesh.axes.push((name.clone(), axis.int("size")?));
    }
    if inline.get("device_ids").is_some() {
        mesh.device_ids = Some(inline.ints("device_ids")?);
    }
    Some(mesh)
}

/// StableHLO's `flattenReplicaGroupMeshAxes`: devices laid out row-major over
/// the mesh, the other axes first (mesh order), then the communication axes
/// (in the order given), chunked into groups.
pub(crate) fn flatten_mesh_axes(mesh: &SdyMesh, axes: &[usize]) -> Vec<Vec<i64>> {
    let sizes: Vec<i64> = mesh.axes.iter().map(|(_, s)| *s).collect();
    let total: i64 = sizes.iter().product();
    let ids: Vec<i64> = mesh
        .device_ids
        .clone()
        .unwrap_or_else(|| (0..total).collect());
    let mut order: Vec<usize> = (0..sizes.len()).filter(|a| !axes.contains(a)).collect();
    order.extend_from_slice(axes);
    let group_size: i64 = axes.iter().map(|&a| sizes[a]).product();
    // Strides of the row-major layout.
    let mut strides = vec![1i64; sizes.len()];
    for a in (0..sizes.len().saturating_sub(1)).rev() {
        strides[a] = strides[a + 1] * sizes[a + 1];
    }
    let mut flat = Vec::with_capacity(total as usize);
    let mut index = vec![0i64; order.len()];
    for _ in 0..total {
        let linear: i64 = order
            .iter()
            .zip(&index)
            .map(|(&a, &i)| i * strides[a])
            .sum();
        flat.push(ids.get(linear as usize).copied().unwrap_or(linear));
        for position in (0..order.len()).rev() {
            index[position] += 1;
            if index[position] < sizes[order[position]] {
                break;
            }
            index[position] = 0;
        }
    }
    flat.chunks(group_size.max(1) as usize)
        .map(<[i64]>::to_vec)
        .collect()
}

/// The name of the synchronous op an async start named `start_name` wraps:
/// `all-to-all-start.1` → `all-to-all.1`; any other name gets `.wrapped`.
pub(crate) fn synchronous_name(start_name: &str) -> String {
    match start_name.replacen("-start", "", 1) {
        name if name != start_name && !name.is_empty() => name,
        _ => format!("{start_name}.wrapped"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesh_axes_flatten_like_stablehlo() {
        let mesh = SdyMesh {
            axes: vec![("x".into(), 2), ("y".into(), 4)],
            device_ids: None,
        };
        assert_eq!(
            flatten_mesh_axes(&mesh, &[1]),
            vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]
        );
        assert_eq!(
            flatten_mesh_axes(&mesh, &[0]),
            vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]
        );
        // The first listed axis is the most significant within a group.
        assert_eq!(
            flatten_mesh_axes(&mesh, &[1, 0]),
            vec![vec![0, 4, 1, 5, 2, 6, 3, 7]]
        );
        assert_eq!(
            flatten_mesh_axes(&mesh, &[0, 1]),
            vec![(0..8).collect::<Vec<i64>>()]
        );
        let permuted = SdyMesh {
            axes: vec![("x".into(), 2)],
            device_ids: Some(vec![1, 0]),
        };
        assert_eq!(flatten_mesh_axes(&permuted, &[0]), vec![vec![1, 0]]);
    }

    #[test]
    fn json_configs_become_specs() {
        let json: Json = serde_json::from_str(
            r#"{"replica_groups": [[0, 1], [2, 3]], "channel_id": 1, "use_global_device_ids": true, "all_gather_dimension": 0}"#,
        )
        .unwrap();
        let spec = spec_from_json(OpKind::AllGather, &json).unwrap();
        assert_eq!(spec.groups, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(spec.dimension, Some(0));
        assert!(spec.use_global_device_ids);
        let json: Json =
            serde_json::from_str(r#"{"permutation": [[0, 1], [1, 0]], "channel_id": 2}"#).unwrap();
        let spec = spec_from_json(OpKind::CollectivePermute, &json).unwrap();
        assert_eq!(spec.pairs, vec![(0, 1), (1, 0)]);
        let empty: Json = serde_json::from_str("{}").unwrap();
        let error = spec_from_json(OpKind::AllGather, &empty).unwrap_err();
        assert!(error.contains("all_gather_dimension"), "{error}");
    }
}

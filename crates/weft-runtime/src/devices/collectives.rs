//! What each collective computes from its group's contributions
//! (`notes/stablehlo.md` §2.6), on one device of a grid.
//!
//! Reduction order is fixed and documented: an all-reduce folds the
//! contributions left to right in **group order** (`((c₀ ⊕ c₁) ⊕ c₂) …`), on
//! every member, so every member gets the same bits and a run is
//! reproducible. A reducer that is one binary op of its two parameters runs
//! as a whole-tensor kernel; any other is evaluated element by element.

use std::sync::Arc;

use weft_ir::attrs::Attrs;
use weft_ir::{Comp, Instr, Opcode};

use super::fabric::{Key, Signature};
use super::groups::{GroupMode, device_groups, group_of};
use crate::evaluate::{Evaluator, RunError};
use crate::tensor::{Tensor, Value};

impl Evaluator<'_> {
    /// The synchronous result of the collective `instr` (or the collective a
    /// first-class start begins) over `operands`, exchanging data with the
    /// other devices of its group.
    pub(crate) fn grid_collective(
        &mut self,
        instr: Instr,
        opcode: Opcode,
        operands: Vec<Value>,
    ) -> Result<Value, RunError> {
        let Some(device) = self.device.clone() else {
            return Err(self.error(instr, "a collective outside a device grid"));
        };
        if matches!(
            opcode,
            Opcode::CollectivePermute | Opcode::CollectivePermuteStart
        ) {
            return self.grid_permute(instr, &device, operands);
        }
        let data = self.module.instr(instr);
        let (groups, channel) = match &data.attrs {
            Attrs::Collective(attrs) => {
                let mode = match opcode {
                    Opcode::AllToAll | Opcode::RaggedAllToAll | Opcode::CollectiveBroadcast => {
                        GroupMode::of_exchange(attrs.channel_id)
                    }
                    _ => GroupMode::of_reduction(attrs),
                };
                let groups = attrs
                    .replica_groups
                    .groups()
                    .map_err(|e| self.error(instr, e.to_string()))?;
                (device_groups(device.grid, mode, &groups), attrs.channel_id)
            }
            _ => return Err(self.error(instr, "a collective without its attributes")),
        };
        let Some((group_index, group, position)) = group_of(&groups, device.id) else {
            return match opcode {
                // Devices outside every group receive zeros (the spec's rule).
                Opcode::CollectiveBroadcast | Opcode::CollectiveReduce => {
                    let data = collective_data(self.module, instr, &operands);
                    self.zeros_like(instr, data)
                }
                _ => Err(self.error(
                    instr,
                    format!(
                        "device (replica {}, partition {}) is in none of its replica groups",
                        device.id.replica, device.id.partition
                    ),
                )),
            };
        };
        let group = group.to_vec();
        let occurrence = self.next_occurrence(instr);
        let key = self.instance_key(&device, channel, &group);
        let signature = self.signature(instr, opcode);
        let contribution = pack(operands);
        if let Some(clock) = self.clock.as_mut() {
            clock.charge_cpu();
        }
        let arrived = self.now();
        let exchanged = device
            .fabric
            .exchange(key, position, contribution, arrived, signature)
            .map_err(|message| self.error(instr, message))?;
        let contributions = exchanged.contributions;
        let met = self.group_met(&exchanged.arrivals);
        // Borrowed from the shared contributions: no copies of other
        // devices' data until a result needs one.
        let parts: Vec<Vec<&Tensor>> = contributions
            .iter()
            .map(unpack)
            .collect::<Option<_>>()
            .ok_or_else(|| self.error(instr, "a collective's operands must be arrays"))?;
        // The link model: the data this device receives arrives a transfer
        // time after the group met; the collective's host work (reducing,
        // concatenating, placing) starts only then, as a receiver can only
        // combine what it has received.
        let operand_bytes: Vec<f64> = parts
            .first()
            .map(|p| p.iter().map(|t| t.bytes.len() as f64).collect())
            .unwrap_or_default();
        let (collective, contributed) = priced(opcode, &operand_bytes);
        let received = collective.kind().received_bytes(contributed, group.len());
        let members: Vec<usize> = group.iter().map(|&member| device.grid.id(member)).collect();
        let transfer = device.transfer_time(collective, contributed, &members);
        self.transfer_until(instr, met.saturating_add(transfer))?;
        let host_began = self.now();
        let result = match opcode {
            // Every member gets the same result: computed once for the group,
            // by all members together when the reducer has a native kernel.
            Opcode::AllReduce | Opcode::AllReduceStart
                if let Some(op) = self.shared_fold_op(instr, &parts) =>
            {
                let first = parts[0][0];
                // Shared among the members on this rank (all of them in one
                // process); the bits do not depend on how it is split.
                let fold = exchanged.shared_fold.get_or_init(|| {
                    super::shared_fold::SharedFold::new(
                        first.bytes.len(),
                        4,
                        exchanged.fold_members,
                    )
                });
                let inputs: Vec<&[f32]> = parts
                    .iter()
                    .map(|p| crate::tensor::as_f32(&p[0].bytes))
                    .collect::<Option<_>>()
                    .ok_or_else(|| self.error(instr, "unaligned all-reduce operands"))?;
                let bytes = fold
                    .fill(
                        exchanged.fold_member,
                        device.fabric.timeout(),
                        |elements, out| {
                            let share: Vec<&[f32]> = inputs
                                .iter()
                                .map(|input| &input[elements.clone()])
                                .collect();
                            if let Some(out) = crate::tensor::as_f32_mut(out) {
                                crate::evaluate::fold_f32(op, &share, out);
                            }
                        },
                    )
                    .map_err(|message| self.error(instr, message))?;
                vec![Tensor {
                    elem: first.elem,
                    dims: first.dims.clone(),
                    bytes,
                }]
            }
            Opcode::AllReduce | Opcode::AllReduceStart => exchanged
                .group_result
                .get_or_init(|| {
                    let reducer = self.callee(instr, 0).map_err(|e| e.message)?;
                    (0..parts[0].len())
                        .map(|operand| {
                            self.fold(instr, reducer, parts.iter().map(|p| p[operand]))
                                .map_err(|e| e.message)
                        })
                        .collect()
                })
                .clone()
                .map_err(|message| self.error(instr, message))?,
            Opcode::AllGather | Opcode::AllGatherStart => {
                let dimension = self.collective_dimension(instr)?;
                exchanged
                    .group_result
                    .get_or_init(|| {
                        Ok((0..parts[0].len())
                            .map(|operand| {
                                let pieces: Vec<&Tensor> =
                                    parts.iter().map(|p| p[operand]).collect();
                                crate::evaluate::concatenate(&pieces, dimension)
                            })
                            .collect())
                    })
                    .clone()
                    .map_err(|message| self.error(instr, message))?
            }
            Opcode::ReduceScatter => {
                let dimension = self.collective_dimension(instr)?;
                let reducer = self.callee(instr, 0)?;
                let mut scattered = Vec::new();
                for operand in 0..parts[0].len() {
                    let whole = self.fold(instr, reducer, parts.iter().map(|p| p[operand]))?;
                    scattered.push(split(&whole, dimension, group.len()).swap_remove(position));
                }
                scattered
            }
            Opcode::AllToAll => match self.collective_dimension(instr) {
                Ok(dimension) => (0..parts[0].len())
                    .map(|operand| {
                        let received: Vec<Tensor> = parts
                            .iter()
                            .map(|p| {
                                split(p[operand], dimension, group.len()).swap_remove(position)
                            })
                            .collect();
                        let refs: Vec<&Tensor> = received.iter().collect();
                        crate::evaluate::concatenate(&refs, dimension)
                    })
                    .collect(),
                // The tuple form: operand k goes to member k.
                Err(_) => parts.iter().map(|p| p[position].clone()).collect(),
            },
            Opcode::CollectiveBroadcast => self.broadcast_from_roots(instr, &parts, position)?,
            Opcode::CollectiveReduce => self.collective_reduce(instr, &parts, position)?,
            Opcode::RaggedAllToAll => {
                let contributions = parts
                    .iter()
                    .map(|p| self.ragged_contribution(instr, p))
                    .collect::<Result<Vec<_>, _>>()?;
                let output = parts[position]
                    .get(1)
                    .ok_or_else(|| self.error(instr, "ragged-all-to-all without its output"))?;
                vec![self.ragged_all_to_all(instr, output, &contributions, position)?]
            }
            other => return Err(self.error(instr, format!("{} is not a collective", other.name()))),
        };
        let host = self.charge_host_work(opcode, &parts, host_began);
        let peers = group.iter().map(|&member| device.grid.id(member)).collect();
        self.record_collective(
            &device,
            super::timeline::CollectiveRecord {
                instr,
                occurrence,
                group: group_index,
                peers,
                bytes: received,
                arrived,
                met,
                transfer,
                host,
                ready: self.now(),
                asynchronous: device.stream.is_none(),
            },
        );
        Ok(collective_value(result))
    }

    /// When a group whose members arrived at `arrivals` met: on modelled
    /// clocks the latest arrival; on the wall clock, now (the rendezvous
    /// has just completed).
    fn group_met(&self, arrivals: &[std::time::Duration]) -> std::time::Duration {
        let modelled = self
            .clock
            .as_ref()
            .is_some_and(|c| c.timing().is_modelled());
        match arrivals.iter().max() {
            Some(&latest) if modelled => latest.max(self.now()),
            _ => self.now(),
        }
    }

    /// Charges the reduction work of a collective whose host work began at
    /// `began` and returns its time: modelled (virtual timing: one vector
    /// operation per element and extra contribution, for the collectives
    /// that reduce), or as it passed (measured: this thread's CPU time;
    /// wall: the wall clock).
    fn charge_host_work(
        &mut self,
        opcode: Opcode,
        parts: &[Vec<&Tensor>],
        began: std::time::Duration,
    ) -> std::time::Duration {
        let Some(clock) = self.clock.as_mut() else {
            return std::time::Duration::ZERO;
        };
        match clock.timing() {
            super::clock::Timing::Virtual(_) => {
                let operands = parts.first().map(Vec::as_slice).unwrap_or_default();
                let work = host_work(
                    opcode,
                    operands.iter().map(|t| (t.elem, t.len() as f64)),
                    parts.len(),
                );
                if work.is_free() {
                    return std::time::Duration::ZERO;
                }
                clock.charge_work(&work)
            }
            _ => {
                clock.charge_cpu();
                clock.now().saturating_sub(began)
            }
        }
    }

    /// Puts a collective instance on the timeline; on the compute stream,
    /// where the device waited all along, all of it is exposed.
    pub(crate) fn record_collective(
        &mut self,
        device: &super::DeviceContext,
        record: super::timeline::CollectiveRecord,
    ) {
        if let Some(timeline) = self.timeline.as_mut() {
            if device.stream.is_some() {
                timeline.exposed += record.communication();
            }
            timeline.add_collective(record);
        }
    }

    /// A collective-permute: this device leaves its operands for every
    /// target it sends to, then waits only for the device that sends to it
    /// (zeros when none does). The pairs' ids index the device's line: its
    /// replica's partitions (cross-partition) or its partition's replicas.
    fn grid_permute(
        &mut self,
        instr: Instr,
        device: &super::DeviceContext,
        operands: Vec<Value>,
    ) -> Result<Value, RunError> {
        let Attrs::CollectivePermute(attrs) = &self.module.instr(instr).attrs else {
            return Err(self.error(instr, "a collective-permute without its pairs"));
        };
        let pairs = attrs.source_target_pairs.clone();
        let mode = GroupMode::of_exchange(attrs.channel_id);
        let grid = device.grid;
        let (me, line_length) = match mode {
            GroupMode::CrossPartition => (device.id.partition as i64, grid.partitions as i64),
            _ => (device.id.replica as i64, grid.replicas as i64),
        };
        let line_device = |index: i64| {
            let id = match mode {
                GroupMode::CrossPartition => super::groups::DeviceId {
                    replica: device.id.replica,
                    partition: index as usize,
                },
                _ => super::groups::DeviceId {
                    replica: index as usize,
                    partition: device.id.partition,
                },
            };
            grid.id(id)
        };
        if let Some(&(source, target)) = pairs.iter().find(|&&(source, target)| {
            !(0..line_length).contains(&source) || !(0..line_length).contains(&target)
        }) {
            return Err(self.error(
                instr,
                format!(
                    "the pair {{{source},{target}}} names a device outside the grid's {line_length}"
                ),
            ));
        }
        let occurrence = self.next_occurrence(instr);
        let key = self.instance_key(device, attrs.channel_id, &[]);
        let what = self.place(instr);
        let own: Vec<Tensor> = operands
            .iter()
            .map(|v| v.as_tensor().cloned())
            .collect::<Option<_>>()
            .ok_or_else(|| self.error(instr, "a collective's operands must be arrays"))?;
        if let Some(clock) = self.clock.as_mut() {
            clock.charge_cpu();
        }
        let arrived = self.now();
        let contribution = Arc::new(pack(operands));
        for &(_, target) in pairs.iter().filter(|&&(source, _)| source == me) {
            device
                .fabric
                .deliver(
                    key.clone(),
                    line_device(me),
                    line_device(target),
                    contribution.clone(),
                    arrived,
                )
                .map_err(|message| self.error(instr, message))?;
        }
        let mut record = super::timeline::CollectiveRecord {
            instr,
            occurrence,
            group: 0,
            peers: vec![line_device(me)],
            bytes: 0.0,
            arrived,
            met: arrived,
            transfer: std::time::Duration::ZERO,
            host: std::time::Duration::ZERO,
            ready: arrived,
            asynchronous: device.stream.is_none(),
        };
        let result: Vec<Tensor> = match pairs.iter().find(|&&(_, target)| target == me) {
            Some(&(source, _)) => {
                let delivered = device
                    .fabric
                    .collect(key, line_device(source), line_device(me), &what)
                    .map_err(|message| self.error(instr, message))?;
                let received = unpack(&delivered.value)
                    .ok_or_else(|| self.error(instr, "a collective's operands must be arrays"))?;
                let describe = |tensors: &[&Tensor]| {
                    tensors
                        .iter()
                        .map(|t| Value::Tensor((*t).clone()).describe())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let own_refs: Vec<&Tensor> = own.iter().collect();
                let agree = received.len() == own.len()
                    && received
                        .iter()
                        .zip(&own)
                        .all(|(r, o)| r.elem == o.elem && r.dims == o.dims);
                if !agree {
                    return Err(self.error(
                        instr,
                        format!(
                            "device {} sent {} but this device's operands are {}: the devices disagree about this collective-permute",
                            line_device(source),
                            describe(&received),
                            describe(&own_refs)
                        ),
                    ));
                }
                let result: Vec<Tensor> = received.into_iter().cloned().collect();
                // The link model: the data arrives a transfer time after it
                // was sent.
                let bytes: usize = result.iter().map(|t| t.bytes.len()).sum();
                let sent = self.sent_time(device, &delivered);
                let pair = [(line_device(source), line_device(me))];
                let transfer = device.transfer_time(
                    weft_cost::Collective::Permute(&pair),
                    bytes as f64,
                    &[pair[0].0, pair[0].1],
                );
                let data_arrived = sent.saturating_add(transfer);
                self.transfer_until(instr, data_arrived)?;
                record.peers = vec![line_device(source), line_device(me)];
                record.bytes = bytes as f64;
                record.met = arrived.max(sent);
                record.transfer = data_arrived.saturating_sub(record.met);
                result
            }
            // No pair sends here: zeros.
            None => own.iter().map(|t| Tensor::zeros(t.elem, &t.dims)).collect(),
        };
        record.ready = self.now().max(record.met + record.transfer);
        self.record_collective(device, record);
        Ok(collective_value(result))
    }

    /// When the message `delivered` was sent, on this device's clock: the
    /// sender's clock (modelled timing) or the moment it reached this
    /// process (wall clock).
    pub(crate) fn sent_time(
        &self,
        device: &super::DeviceContext,
        delivered: &super::fabric::Delivered,
    ) -> std::time::Duration {
        let modelled = self
            .clock
            .as_ref()
            .is_some_and(|c| c.timing().is_modelled());
        if modelled {
            delivered.clock
        } else {
            delivered.sent.saturating_duration_since(device.origin)
        }
    }

    /// The reducer's op when the members of this all-reduce can fold it
    /// together ([`super::shared_fold`]): one aligned f32 operand of the
    /// same shape from every member of a group of at least two, and a
    /// reducer that is add, multiply, maximum or minimum of its parameters.
    fn shared_fold_op(&self, instr: Instr, parts: &[Vec<&Tensor>]) -> Option<Opcode> {
        let first = *parts.first()?.first()?;
        let uniform = parts.len() >= 2
            && parts.iter().all(|p| {
                p.len() == 1
                    && p[0].elem == weft_ir::ElementType::F32
                    && p[0].dims == first.dims
                    && crate::tensor::as_f32(&p[0].bytes).is_some()
            });
        if !uniform {
            return None;
        }
        let reducer = self.callee(instr, 0).ok()?;
        self.simple_reducer(reducer).filter(|op| {
            matches!(
                op,
                Opcode::Add | Opcode::Multiply | Opcode::Maximum | Opcode::Minimum
            )
        })
    }

    /// The rendezvous of this device's next collective on `channel` with
    /// `group` ([`Key`]): counted per channel and group, on this evaluator's
    /// thread.
    fn instance_key(
        &mut self,
        device: &super::DeviceContext,
        channel: Option<i64>,
        group: &[super::groups::DeviceId],
    ) -> Key {
        let members: Vec<usize> = group.iter().map(|&d| device.grid.id(d)).collect();
        let count = self
            .instances
            .entry((channel, members.clone()))
            .or_insert(0);
        let occurrence = *count;
        *count += 1;
        Key {
            channel,
            // The stream's own context has no stream of its own.
            on_stream: device.stream.is_none(),
            members,
            occurrence,
        }
    }

    /// What this device says about the collective `instr` (of `opcode`)
    /// when it comes to its rendezvous.
    fn signature(&self, instr: Instr, opcode: Opcode) -> Signature {
        let name = opcode.name();
        let kind = name.strip_suffix("-start").unwrap_or(name).to_string();
        let reduces = matches!(
            opcode,
            Opcode::AllReduce
                | Opcode::AllReduceStart
                | Opcode::ReduceScatter
                | Opcode::CollectiveReduce
        );
        let reducer = reduces
            .then(|| self.callee(instr, 0).ok())
            .flatten()
            .and_then(|reducer| self.simple_reducer(reducer))
            .map(|op| op.name().to_string());
        let dimension = match &self.module.instr(instr).attrs {
            Attrs::Collective(attrs) => attrs.dimension,
            _ => None,
        };
        Signature {
            kind,
            reducer,
            dimension,
            at: self.place(instr),
        }
    }

    /// How many times this device has run `instr` before (then counts this
    /// run).
    pub(crate) fn next_occurrence(&mut self, instr: Instr) -> u64 {
        let count = self.occurrences.entry(instr).or_insert(0);
        let occurrence = *count;
        *count += 1;
        occurrence
    }

    fn collective_dimension(&self, instr: Instr) -> Result<usize, RunError> {
        match &self.module.instr(instr).attrs {
            Attrs::Collective(attrs) => attrs
                .dimension
                .map(|d| d as usize)
                .ok_or_else(|| self.error(instr, "the collective has no dimensions=")),
            _ => Err(self.error(instr, "the collective has no dimensions=")),
        }
    }

    /// What a collective-broadcast gives this member (at `position` of its
    /// group): result `j` is operand `j` of result `j`'s root member.
    fn broadcast_from_roots(
        &self,
        instr: Instr,
        parts: &[Vec<&Tensor>],
        position: usize,
    ) -> Result<Vec<Tensor>, RunError> {
        let roots = self.result_roots(instr, parts, position)?;
        Ok(roots
            .iter()
            .enumerate()
            .map(|(result, &root)| parts[root][result].clone())
            .collect())
    }

    /// The group position of each result's root for a collective-broadcast
    /// or collective-reduce whose contributions are `parts`: the first
    /// member, or — with `has_dynamic_root` — the member that this device's
    /// last operand (`s32[N]`, one root per result) names.
    pub(super) fn result_roots(
        &self,
        instr: Instr,
        parts: &[Vec<&Tensor>],
        position: usize,
    ) -> Result<Vec<usize>, RunError> {
        let own = &parts[position];
        if !has_dynamic_root(self.module, instr) {
            return Ok(vec![0; own.len()]);
        }
        let Some((roots, data)) = own.split_last() else {
            return Err(self.error(instr, "a dynamic root needs the roots as the last operand"));
        };
        // XLA's own tests pass roots as f32; any integral number will do.
        let roots: Vec<i64> = match crate::numbers::decode(roots) {
            crate::numbers::Numbers::Signed(values) => values,
            crate::numbers::Numbers::Unsigned(values) => values
                .iter()
                .map(|&v| i64::try_from(v).unwrap_or(i64::MAX))
                .collect(),
            crate::numbers::Numbers::Float(values) if values.iter().all(|v| v.fract() == 0.0) => {
                values.iter().map(|&v| v as i64).collect()
            }
            _ => return Err(self.error(instr, "the roots must be integral numbers")),
        };
        if roots.len() != data.len() {
            return Err(self.error(
                instr,
                format!("{} root(s) for {} result(s)", roots.len(), data.len()),
            ));
        }
        roots
            .iter()
            .enumerate()
            .map(|(result, &root)| {
                usize::try_from(root)
                    .ok()
                    .filter(|&member| member < parts.len())
                    .ok_or_else(|| {
                        self.error(
                            instr,
                            format!(
                                "root {root} of result {result} is outside the group of {} device(s)",
                                parts.len()
                            ),
                        )
                    })
            })
            .collect()
    }

    fn zeros_like(&self, instr: Instr, operands: &[Value]) -> Result<Value, RunError> {
        let zeros: Vec<Value> = operands
            .iter()
            .map(|v| {
                v.as_tensor()
                    .map(|t| Value::Tensor(Tensor::zeros(t.elem, &t.dims)))
            })
            .collect::<Option<_>>()
            .ok_or_else(|| self.error(instr, "a collective's operands must be arrays"))?;
        Ok(if zeros.len() == 1 {
            zeros.into_iter().next().expect("one")
        } else {
            Value::Tuple(zeros)
        })
    }

    /// `c₀ ⊕ c₁ ⊕ …` left to right with the reducer computation.
    pub(super) fn fold<'t>(
        &mut self,
        instr: Instr,
        reducer: Comp,
        mut values: impl Iterator<Item = &'t Tensor>,
    ) -> Result<Tensor, RunError> {
        let mut accumulator = values
            .next()
            .cloned()
            .ok_or_else(|| self.error(instr, "an empty group"))?;
        let simple = self.simple_reducer(reducer);
        for value in values {
            accumulator = match simple {
                Some(op) => crate::evaluate::binary(op, &accumulator, value, accumulator.elem)
                    .map_err(|m| self.error(instr, m))?,
                None => self.fold_by_element(instr, reducer, &accumulator, value)?,
            };
        }
        Ok(accumulator)
    }

    /// `reducer(a[i], b[i])` for every element, evaluating the computation.
    fn fold_by_element(
        &mut self,
        instr: Instr,
        reducer: Comp,
        a: &Tensor,
        b: &Tensor,
    ) -> Result<Tensor, RunError> {
        let size = a.element_size();
        let mut out = a.clone();
        for i in 0..a.len() {
            let scalar = |t: &Tensor| Value::Tensor(t.element(i));
            let combined = self.call(reducer, vec![scalar(a), scalar(b)])?;
            let combined = combined
                .as_tensor()
                .ok_or_else(|| self.error(instr, "the reducer did not return an array"))?;
            out.bytes[i * size..(i + 1) * size].copy_from_slice(&combined.bytes);
        }
        Ok(out)
    }
}

/// The pattern the cost model prices `opcode` as, and the bytes each
/// member contributes, from the byte sizes of one member's operands (every
/// member's are the same size; for ragged-all-to-all, its input, not the
/// output buffer or the offsets). Shared with the simulator, which knows
/// sizes from shapes alone.
pub(crate) fn priced(
    opcode: Opcode,
    operand_bytes: &[f64],
) -> (weft_cost::Collective<'static>, f64) {
    use weft_cost::Collective;
    let sent = operand_bytes.iter().sum::<f64>();
    match opcode {
        Opcode::AllReduce | Opcode::AllReduceStart => (Collective::AllReduce, sent),
        Opcode::AllGather | Opcode::AllGatherStart => (Collective::AllGather, sent),
        Opcode::ReduceScatter => (Collective::ReduceScatter, sent),
        Opcode::AllToAll => (Collective::AllToAll, sent),
        Opcode::RaggedAllToAll => (
            Collective::AllToAll,
            operand_bytes.first().copied().unwrap_or(0.0),
        ),
        Opcode::CollectiveReduce => (Collective::Reduce, sent),
        // A broadcast: one contribution travels to each receiver.
        _ => (Collective::Broadcast, sent),
    }
}

/// The modelled host work of a collective of `opcode` over a group of
/// `members`, whose member contributes arrays of `operands` (element type,
/// element count): one reduction per operand for the collectives that
/// reduce, none for the others. Shared with the simulator.
pub(crate) fn host_work(
    opcode: Opcode,
    operands: impl Iterator<Item = (weft_ir::ElementType, f64)>,
    members: usize,
) -> weft_cost::Work {
    let reduces = matches!(
        opcode,
        Opcode::AllReduce
            | Opcode::AllReduceStart
            | Opcode::ReduceScatter
            | Opcode::CollectiveReduce
    );
    if !reduces {
        return weft_cost::Work::FREE;
    }
    operands.fold(weft_cost::Work::FREE, |sum, (elem, elements)| {
        sum.plus(&weft_cost::Work::reduction(elem, elements, members))
    })
}

/// A collective's results as its value: the array, or a tuple of several.
fn collective_value(result: Vec<Tensor>) -> Value {
    if result.len() == 1 {
        Value::Tensor(result.into_iter().next().expect("one result"))
    } else {
        Value::Tuple(result.into_iter().map(Value::Tensor).collect())
    }
}

/// The operands of a collective as one value to exchange.
fn pack(operands: Vec<Value>) -> Value {
    Value::Tuple(operands)
}

/// A contribution back as its arrays.
fn unpack(value: &Arc<Value>) -> Option<Vec<&Tensor>> {
    match value.as_ref() {
        Value::Tuple(elements) => elements.iter().map(Value::as_tensor).collect(),
        Value::Tensor(t) => Some(vec![t]),
        Value::Token | Value::InFlight(_) => None,
    }
}

/// `tensor` cut into `parts` equal pieces along `dimension`.
fn split(tensor: &Tensor, dimension: usize, parts: usize) -> Vec<Tensor> {
    let size = tensor.dims[dimension] / parts.max(1) as i64;
    (0..parts)
        .map(|k| {
            let ranges: Vec<weft_ir::attrs::SliceRange> = tensor
                .dims
                .iter()
                .enumerate()
                .map(|(d, &extent)| {
                    if d == dimension {
                        weft_ir::attrs::SliceRange {
                            start: k as i64 * size,
                            limit: (k as i64 + 1) * size,
                            stride: 1,
                        }
                    } else {
                        weft_ir::attrs::SliceRange {
                            start: 0,
                            limit: extent,
                            stride: 1,
                        }
                    }
                })
                .collect();
            crate::evaluate::slice(tensor, &ranges)
        })
        .collect()
}

/// Whether the collective `instr` takes its roots as its last operand.
pub(super) fn has_dynamic_root(module: &weft_ir::Module, instr: Instr) -> bool {
    matches!(&module.instr(instr).attrs, Attrs::Collective(attrs) if attrs.has_dynamic_root == Some(true))
}

/// The operands a collective-broadcast or collective-reduce sends: all of
/// them, or all but the roots.
pub(super) fn collective_data<'v>(
    module: &weft_ir::Module,
    instr: Instr,
    operands: &'v [Value],
) -> &'v [Value] {
    match operands.split_last() {
        Some((_, data)) if has_dynamic_root(module, instr) => data,
        _ => operands,
    }
}

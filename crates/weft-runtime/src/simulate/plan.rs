//! What each collective instruction means for each device, before anything
//! runs: its group, what the cost model charges that group's transfer, the
//! bytes a member receives and its host work. None of it depends on values
//! or on time, so it is worked out once per instruction (not per execution)
//! and is what the equivalence classes ([`super::classes`]) are refined by.
//!
//! The rules are the runtime's: groups by [`crate::devices::groups`], the
//! transfer by the runtime's one pricing seam (`devices::transfer_time`),
//! the bytes and host work by the same functions a run calls
//! (`devices::collectives::{priced, host_work}`), from the operands' shapes
//! instead of their values.

use std::time::Duration;

use weft_cost::{Collective, Profile};
use weft_ir::attrs::Attrs;
use weft_ir::{Instr, Module, Opcode, ShapeData};

use crate::devices::collectives::{host_work, priced};
use crate::devices::groups::{DeviceId, Grid, GroupMode, device_groups};
use crate::evaluate::RunError;

/// The link model the plan prices transfers by.
#[derive(Clone, Copy)]
pub(super) struct Pricing<'a> {
    pub(super) link: weft_cost::Link,
    pub(super) interconnect: Option<&'a weft_cost::Interconnect>,
    pub(super) profile: &'a Profile,
}

/// One group of a group collective.
#[derive(Clone, Debug)]
pub(super) struct Group {
    /// Its members, flattened ids, in group order.
    pub(super) members: Vec<usize>,
    /// The link model's time for the data a member receives.
    pub(super) transfer: Duration,
    /// The bytes a member receives.
    pub(super) received: f64,
    /// The modelled reduction once the data arrived.
    pub(super) host: Duration,
}

/// What a device does at a collective-permute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Receipt {
    /// It receives from `source` (a flattened id), the transfer taking
    /// `transfer`.
    From { source: usize, transfer: Duration },
    /// No pair sends to it: it gets zeros at once.
    Nothing,
}

/// A collective instruction's meaning on every device.
#[derive(Clone, Debug)]
pub(super) enum Plan {
    /// A collective whose group meets: `group_of[d]` is the index in
    /// `groups` of device `d`'s group, `None` for a device outside every
    /// group (a collective-broadcast's or collective-reduce's, which gets
    /// zeros and takes no time).
    Groups {
        groups: Vec<Group>,
        group_of: Vec<Option<usize>>,
    },
    /// A collective-permute: what each device receives, and the bytes.
    Permute { receipts: Vec<Receipt>, bytes: f64 },
}

/// The plan of the collective `instr` (or of the collective a first-class
/// start begins) on `grid`; an error, worded as a run's, when a device
/// belongs to no group of a collective that needs one, or a group names a
/// device outside the grid.
pub(super) fn plan(
    module: &Module,
    instr: Instr,
    grid: Grid,
    pricing: Pricing<'_>,
) -> Result<Plan, RunError> {
    let data = module.instr(instr);
    let error = |message: String| RunError {
        instruction: Some(place(module, instr)),
        instr: Some(instr),
        message,
    };
    let operand_arrays: Vec<(weft_ir::ElementType, f64, f64)> = data
        .operands
        .iter()
        .filter_map(|&operand| array_of(module, module.shape_of(operand)))
        .collect();
    let operand_bytes: Vec<f64> = operand_arrays.iter().map(|a| a.2).collect();
    let opcode = data.opcode;
    if matches!(
        opcode,
        Opcode::CollectivePermute | Opcode::CollectivePermuteStart
    ) {
        let Attrs::CollectivePermute(attrs) = &data.attrs else {
            return Err(error("a collective-permute without its pairs".into()));
        };
        let mode = GroupMode::of_exchange(attrs.channel_id);
        let line_length = match mode {
            GroupMode::CrossPartition => grid.partitions,
            _ => grid.replicas,
        } as i64;
        if let Some(&(source, target)) = attrs
            .source_target_pairs
            .iter()
            .find(|&&(s, t)| !(0..line_length).contains(&s) || !(0..line_length).contains(&t))
        {
            return Err(error(format!(
                "the pair {{{source},{target}}} names a device outside the grid's {line_length}"
            )));
        }
        let bytes: f64 = operand_bytes.iter().sum();
        let receipts = (0..grid.len())
            .map(|id| {
                let device = grid.device(id);
                let (me, on_line): (i64, Box<dyn Fn(i64) -> usize>) = match mode {
                    GroupMode::CrossPartition => (
                        device.partition as i64,
                        Box::new(move |p| {
                            grid.id(DeviceId {
                                replica: device.replica,
                                partition: p as usize,
                            })
                        }),
                    ),
                    _ => (
                        device.replica as i64,
                        Box::new(move |r| {
                            grid.id(DeviceId {
                                replica: r as usize,
                                partition: device.partition,
                            })
                        }),
                    ),
                };
                match attrs.source_target_pairs.iter().find(|&&(_, t)| t == me) {
                    Some(&(source, _)) => {
                        let pair = [(on_line(source), id)];
                        let transfer = crate::devices::transfer_time(
                            pricing.link,
                            pricing.interconnect,
                            Collective::Permute(&pair),
                            bytes,
                            &[pair[0].0, id],
                        );
                        Receipt::From {
                            source: pair[0].0,
                            transfer,
                        }
                    }
                    None => Receipt::Nothing,
                }
            })
            .collect();
        return Ok(Plan::Permute { receipts, bytes });
    }
    let Attrs::Collective(attrs) = &data.attrs else {
        return Err(error("a collective without its attributes".into()));
    };
    let mode = match opcode {
        Opcode::AllToAll | Opcode::RaggedAllToAll | Opcode::CollectiveBroadcast => {
            GroupMode::of_exchange(attrs.channel_id)
        }
        _ => GroupMode::of_reduction(attrs),
    };
    let listed = attrs
        .replica_groups
        .groups()
        .map_err(|e| error(e.to_string()))?;
    let named = device_groups(grid, mode, &listed);
    let (collective, contributed) = priced(opcode, &operand_bytes);
    let mut group_of = vec![None; grid.len()];
    let mut groups = Vec::with_capacity(named.len());
    for (index, group) in named.iter().enumerate() {
        let mut members = Vec::with_capacity(group.len());
        for &member in group {
            if member.replica >= grid.replicas || member.partition >= grid.partitions {
                return Err(error(format!(
                    "its replica groups name (replica {}, partition {}), outside the grid of {} replica(s) x {} partition(s)",
                    member.replica, member.partition, grid.replicas, grid.partitions
                )));
            }
            let id = grid.id(member);
            // A device in two groups takes the first, as a run's lookup does.
            group_of[id].get_or_insert(index);
            members.push(id);
        }
        let transfer = crate::devices::transfer_time(
            pricing.link,
            pricing.interconnect,
            collective,
            contributed,
            &members,
        );
        let received = collective.kind().received_bytes(contributed, members.len());
        let work = host_work(
            opcode,
            operand_arrays
                .iter()
                .map(|&(elem, elements, _)| (elem, elements)),
            members.len(),
        );
        let host = if work.is_free() {
            Duration::ZERO
        } else {
            pricing.profile.time(&work)
        };
        groups.push(Group {
            members,
            transfer,
            received,
            host,
        });
    }
    if !matches!(
        opcode,
        Opcode::CollectiveBroadcast | Opcode::CollectiveReduce
    ) && let Some(outside) = group_of.iter().position(Option::is_none)
    {
        let device = grid.device(outside);
        return Err(error(format!(
            "device (replica {}, partition {}) is in none of its replica groups",
            device.replica, device.partition
        )));
    }
    Ok(Plan::Groups { groups, group_of })
}

/// An array's element type, element count and bytes (`None` for a token or
/// a tuple, which no collective sends).
fn array_of(module: &Module, shape: weft_ir::Shape) -> Option<(weft_ir::ElementType, f64, f64)> {
    match module.shapes.get(shape) {
        ShapeData::Array(array) => {
            let elements: f64 = array.dims.iter().map(|&d| d.max(0) as f64).product();
            Some((
                array.elem,
                elements,
                weft_cost::work::shape_bytes(module, shape),
            ))
        }
        _ => None,
    }
}

/// `computation/%instruction`, as a run's errors name `instr`.
pub fn place(module: &Module, instr: Instr) -> String {
    format!(
        "{}/%{}",
        module.comp(module.parent(instr)).name,
        module.instr(instr).name
    )
}

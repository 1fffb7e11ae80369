//! Equivalence classes of devices: devices whose timelines must be
//! identical, so the simulator runs each class once.
//!
//! Every device runs the same instructions (SPMD, no values), each at a
//! cost that does not depend on the device. Two devices' clocks can only
//! part at a collective, where a device's completion is the latest arrival
//! of its group's members plus its group's transfer and host work (a
//! permute's: its source's arrival plus the transfer). So the partition is
//! refined as bisimulation is: start from one class; give each device, for
//! every collective instruction, a signature — its group's size, transfer
//! and host work and the *set* of classes of its members (a permute's:
//! whether it receives, its source's class and the transfer) — and split
//! each class by signature; repeat until no class splits.
//!
//! Invariant (by induction over the instructions every device runs in
//! lockstep): when the partition is stable, devices of one class arrive at
//! every collective at the same time and leave it at the same time, since
//! the latest arrival over a set of classes depends only on the set. The
//! classes are numbered in the order of their first device, so device 0 is
//! in class 0 and the numbering is the same on every run.

use rustc_hash::FxHashMap;

use super::plan::{Plan, Receipt};

/// A partition of a grid's devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classes {
    /// The class of each device (flattened id).
    pub class_of: Vec<usize>,
    /// Each class's devices, ascending.
    pub devices: Vec<Vec<usize>>,
}

impl Classes {
    /// The coarsest partition of `devices` devices that the collectives'
    /// `plans` keep stable.
    pub(super) fn refine(devices: usize, plans: &[&Plan]) -> Classes {
        let mut class_of = vec![0usize; devices];
        let mut count = usize::from(devices > 0);
        loop {
            let signatures = signatures(&class_of, plans);
            let mut numbers: FxHashMap<&[u64], usize> = FxHashMap::default();
            let refined: Vec<usize> = signatures
                .iter()
                .map(|signature| {
                    let next = numbers.len();
                    *numbers.entry(signature.as_slice()).or_insert(next)
                })
                .collect();
            let refined_count = numbers.len();
            class_of = refined;
            // Each round's classes refine the last's (the old class is part
            // of the signature), so an equal count means nothing split.
            if refined_count == count {
                break;
            }
            count = refined_count;
        }
        let mut members = vec![Vec::new(); count];
        for (device, &class) in class_of.iter().enumerate() {
            members[class].push(device);
        }
        Classes {
            class_of,
            devices: members,
        }
    }

    /// How many classes.
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// Whether there are none (a grid of no devices).
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    /// The devices of `class` in words: `0-511, 1024`.
    pub fn describe(&self, class: usize) -> String {
        describe_devices(&self.devices[class])
    }
}

/// Ascending device ids as runs: `0-3, 8, 10-11`.
pub fn describe_devices(devices: &[usize]) -> String {
    let mut runs: Vec<String> = Vec::new();
    let mut index = 0;
    while index < devices.len() {
        let first = devices[index];
        let mut last = first;
        while index + 1 < devices.len() && devices[index + 1] == last + 1 {
            index += 1;
            last = devices[index];
        }
        runs.push(if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        });
        index += 1;
    }
    runs.join(", ")
}

/// Each device's signature under the partition `class_of`: its class,
/// then what it meets at every collective.
fn signatures(class_of: &[usize], plans: &[&Plan]) -> Vec<Vec<u64>> {
    let mut signatures: Vec<Vec<u64>> = class_of.iter().map(|&c| vec![c as u64]).collect();
    // Sets of classes, numbered, so a signature holds one number per set.
    let mut sets: FxHashMap<Vec<usize>, u64> = FxHashMap::default();
    let mut number_of = |mut classes: Vec<usize>| -> u64 {
        classes.sort_unstable();
        classes.dedup();
        let next = sets.len() as u64;
        *sets.entry(classes).or_insert(next)
    };
    for plan in plans {
        match plan {
            Plan::Groups { groups, group_of } => {
                let group_sets: Vec<u64> = groups
                    .iter()
                    .map(|group| number_of(group.members.iter().map(|&m| class_of[m]).collect()))
                    .collect();
                for (device, signature) in signatures.iter_mut().enumerate() {
                    match group_of[device] {
                        Some(index) => {
                            let group = &groups[index];
                            signature.extend([
                                1,
                                group.members.len() as u64,
                                group.transfer.as_nanos() as u64,
                                group.host.as_nanos() as u64,
                                group_sets[index],
                            ]);
                        }
                        None => signature.push(2),
                    }
                }
            }
            Plan::Permute { receipts, .. } => {
                for (device, signature) in signatures.iter_mut().enumerate() {
                    match receipts[device] {
                        Receipt::From { source, transfer } => signature.extend([
                            3,
                            class_of[source] as u64,
                            transfer.as_nanos() as u64,
                        ]),
                        Receipt::Nothing => signature.push(4),
                    }
                }
            }
        }
    }
    signatures
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::plan::Group;
    use super::*;

    fn groups(members: Vec<Vec<usize>>, transfer: impl Fn(&[usize]) -> u64) -> Plan {
        let devices: usize = members.iter().map(Vec::len).sum();
        let mut group_of = vec![None; devices];
        for (index, group) in members.iter().enumerate() {
            for &m in group {
                group_of[m] = Some(index);
            }
        }
        Plan::Groups {
            groups: members
                .into_iter()
                .map(|m| Group {
                    transfer: Duration::from_nanos(transfer(&m)),
                    members: m,
                    received: 0.0,
                    host: Duration::ZERO,
                })
                .collect(),
            group_of,
        }
    }

    #[test]
    fn symmetric_groups_keep_one_class() {
        let tp = groups(
            (0..4).map(|g| (4 * g..4 * g + 4).collect()).collect(),
            |_| 7,
        );
        let dp = groups(
            (0..4).map(|g| (g..16).step_by(4).collect()).collect(),
            |_| 9,
        );
        let classes = Classes::refine(16, &[&tp, &dp]);
        assert_eq!(classes.len(), 1);
        assert_eq!(classes.describe(0), "0-15");
    }

    #[test]
    fn a_slower_group_splits_and_the_split_spreads_to_its_peers() {
        // Group {0,1} is slower; devices 2 and 3 then meet 0 and 1 in a
        // second collective, so they split from 4 and 5.
        let first = groups(vec![vec![0, 1], vec![2, 3], vec![4, 5]], |m| {
            if m[0] == 0 { 10 } else { 1 }
        });
        let second = groups(vec![vec![0, 2], vec![1, 3], vec![4, 5]], |_| 1);
        let classes = Classes::refine(6, &[&first, &second]);
        assert_eq!(
            classes.devices,
            vec![vec![0, 1], vec![2, 3], vec![4, 5]],
            "{classes:?}"
        );
    }

    #[test]
    fn a_permute_splits_receivers_from_the_others() {
        let plan = Plan::Permute {
            receipts: vec![
                Receipt::Nothing,
                Receipt::From {
                    source: 0,
                    transfer: Duration::from_nanos(5),
                },
                Receipt::From {
                    source: 1,
                    transfer: Duration::from_nanos(5),
                },
            ],
            bytes: 4.0,
        };
        let classes = Classes::refine(3, &[&plan]);
        assert_eq!(classes.devices, vec![vec![0], vec![1], vec![2]]);
        assert_eq!(describe_devices(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8");
    }
}

//! Which devices a collective talks to, exactly as XLA and the StableHLO
//! spec choose them (`notes/stablehlo.md` §2.3–2.4).
//!
//! A device is `(replica, partition)`; its flattened id is
//! `replica × partitions + partition`. A collective's `replica_groups` hold
//! ids whose meaning depends on its mode:
//! - **cross-replica** (no channel): replica ids; each group is repeated for
//!   every partition;
//! - **cross-partition** (a channel, and for all-to-all, collective-permute
//!   and collective-broadcast): partition ids; repeated for every replica;
//! - **cross-replica-and-partition** (a channel, no global ids): replica ids,
//!   each group spanning every partition, partitions outermost;
//! - **flattened ids** (a channel and `use_global_device_ids`): device ids.
//!
//! Empty `replica_groups` mean one group of every id of the mode. The order
//! of a group's members is kept: it is the order data is concatenated and
//! reduced in.

use weft_ir::attrs::CollectiveAttrs;

/// A device of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceId {
    /// The replica.
    pub replica: usize,
    /// The partition.
    pub partition: usize,
}

/// The replicas × partitions grid of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// How many replicas.
    pub replicas: usize,
    /// How many partitions.
    pub partitions: usize,
}

impl Grid {
    /// The number of devices.
    pub fn len(&self) -> usize {
        self.replicas * self.partitions
    }

    /// Whether the grid has no devices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The device with flattened id `id`.
    pub fn device(&self, id: usize) -> DeviceId {
        DeviceId {
            replica: id / self.partitions,
            partition: id % self.partitions,
        }
    }

    /// The flattened id of `device`.
    pub fn id(&self, device: DeviceId) -> usize {
        device.replica * self.partitions + device.partition
    }
}

/// How a collective's ids name devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupMode {
    /// Replica ids, within each partition.
    CrossReplica,
    /// Partition ids, within each replica.
    CrossPartition,
    /// Replica ids, across every partition.
    CrossReplicaAndPartition,
    /// Device ids.
    FlattenedIds,
}

impl GroupMode {
    /// The mode of all-reduce, all-gather and reduce-scatter.
    pub fn of_reduction(attrs: &CollectiveAttrs) -> GroupMode {
        match (
            attrs.channel_id.is_some_and(|c| c > 0),
            attrs.use_global_device_ids,
        ) {
            (false, _) => GroupMode::CrossReplica,
            (true, false) => GroupMode::CrossReplicaAndPartition,
            (true, true) => GroupMode::FlattenedIds,
        }
    }

    /// The mode of all-to-all, collective-permute and collective-broadcast.
    pub fn of_exchange(channel_id: Option<i64>) -> GroupMode {
        if channel_id.is_some_and(|c| c > 0) {
            GroupMode::CrossPartition
        } else {
            GroupMode::CrossReplica
        }
    }
}

/// Every group of devices `groups` names under `mode` on `grid`, in order.
pub fn device_groups(grid: Grid, mode: GroupMode, groups: &[Vec<i64>]) -> Vec<Vec<DeviceId>> {
    let all = |count: usize| -> Vec<Vec<i64>> { vec![(0..count as i64).collect()] };
    let groups: Vec<Vec<i64>> = if groups.is_empty() {
        match mode {
            GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => all(grid.replicas),
            GroupMode::CrossPartition => all(grid.partitions),
            GroupMode::FlattenedIds => all(grid.len()),
        }
    } else {
        // -1 pads ragged groups in StableHLO's dense form.
        groups
            .iter()
            .map(|g| g.iter().copied().filter(|&id| id >= 0).collect())
            .collect()
    };
    let at = |replica: i64, partition: i64| DeviceId {
        replica: replica as usize,
        partition: partition as usize,
    };
    let mut out = Vec::new();
    match mode {
        GroupMode::CrossReplica => {
            for group in &groups {
                for partition in 0..grid.partitions as i64 {
                    out.push(group.iter().map(|&r| at(r, partition)).collect());
                }
            }
        }
        GroupMode::CrossPartition => {
            for group in &groups {
                for replica in 0..grid.replicas as i64 {
                    out.push(group.iter().map(|&p| at(replica, p)).collect());
                }
            }
        }
        GroupMode::CrossReplicaAndPartition => {
            for group in &groups {
                let mut members = Vec::new();
                for partition in 0..grid.partitions as i64 {
                    members.extend(group.iter().map(|&r| at(r, partition)));
                }
                out.push(members);
            }
        }
        GroupMode::FlattenedIds => {
            for group in &groups {
                out.push(group.iter().map(|&id| grid.device(id as usize)).collect());
            }
        }
    }
    out
}

/// The group `device` belongs to, and its index there and among all groups.
pub fn group_of(groups: &[Vec<DeviceId>], device: DeviceId) -> Option<(usize, &[DeviceId], usize)> {
    groups.iter().enumerate().find_map(|(index, group)| {
        group
            .iter()
            .position(|&d| d == device)
            .map(|position| (index, group.as_slice(), position))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(grid: Grid, groups: &[Vec<DeviceId>]) -> Vec<Vec<usize>> {
        groups
            .iter()
            .map(|g| g.iter().map(|&d| grid.id(d)).collect())
            .collect()
    }

    #[test]
    fn the_four_strategies_of_the_spec() {
        let grid = Grid {
            replicas: 4,
            partitions: 2,
        };
        let groups = vec![vec![0, 1], vec![2, 3]];
        // [[(0,0),(1,0)], [(0,1),(1,1)], [(2,0),(3,0)], [(2,1),(3,1)]]
        assert_eq!(
            ids(grid, &device_groups(grid, GroupMode::CrossReplica, &groups)),
            vec![vec![0, 2], vec![1, 3], vec![4, 6], vec![5, 7]]
        );
        // [[(0,0),(1,0),(0,1),(1,1)], [(2,0),(3,0),(2,1),(3,1)]]
        assert_eq!(
            ids(
                grid,
                &device_groups(grid, GroupMode::CrossReplicaAndPartition, &groups)
            ),
            vec![vec![0, 2, 1, 3], vec![4, 6, 5, 7]]
        );
        assert_eq!(
            ids(grid, &device_groups(grid, GroupMode::FlattenedIds, &groups)),
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(
            ids(
                grid,
                &device_groups(grid, GroupMode::CrossPartition, &[vec![1, 0]])
            ),
            vec![vec![1, 0], vec![3, 2], vec![5, 4], vec![7, 6]]
        );
    }

    #[test]
    fn empty_groups_mean_everyone_of_the_mode() {
        let grid = Grid {
            replicas: 1,
            partitions: 4,
        };
        assert_eq!(
            ids(grid, &device_groups(grid, GroupMode::CrossPartition, &[])),
            vec![vec![0, 1, 2, 3]]
        );
        assert_eq!(
            ids(grid, &device_groups(grid, GroupMode::CrossReplica, &[])),
            vec![vec![0], vec![1], vec![2], vec![3]]
        );
    }
}

//! The interconnect model: a transfer of `n` bytes takes `latency + n /
//! bandwidth`, and each device of a collective is charged the bytes it
//! receives under the collective's ring algorithm.
//!
//! With `S` the bytes each member contributes and `n` the group size, a
//! member receives:
//!
//! | collective | bytes received |
//! |---|---|
//! | all-reduce | `2 (n−1)/n · S` (reduce-scatter then all-gather) |
//! | all-gather | `(n−1)/n · n·S` (every other member's piece) |
//! | reduce-scatter, all-to-all | `(n−1)/n · S` |
//! | ragged-all-to-all | `(n−1)/n` of its input |
//! | collective-permute, send/recv, collective-broadcast, collective-reduce | `S` (a group of one receives nothing) |
//!
//! The runtime sleeps (wall-clock timing) or advances its clock (virtual
//! timing) by [`Link::transfer_time`] of those bytes, counted from the
//! moment the whole group has arrived (a permute's or a send's from the
//! send).

use std::time::Duration;

/// The link between devices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Bytes per second; `None` means unpaced (transfers are instant).
    pub bandwidth: Option<f64>,
    /// Per-transfer latency.
    pub latency: Duration,
}

impl Link {
    /// No pacing.
    pub const UNPACED: Link = Link {
        bandwidth: None,
        latency: Duration::ZERO,
    };

    /// How long moving `bytes` takes.
    pub fn transfer_time(&self, bytes: f64) -> Duration {
        match self.bandwidth {
            Some(bandwidth) if bandwidth > 0.0 => {
                let seconds = bytes.max(0.0) / bandwidth;
                // Beyond a Duration's range is "for ever", not a panic.
                self.latency
                    .saturating_add(Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
            }
            _ => Duration::ZERO,
        }
    }
}

impl Default for Link {
    /// 25 GB/s and 5 µs, a modest accelerator interconnect.
    fn default() -> Link {
        Link {
            bandwidth: Some(25e9),
            latency: Duration::from_micros(5),
        }
    }
}

/// The collective patterns the link model tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectiveKind {
    /// all-reduce (and its start).
    AllReduce,
    /// all-gather (and its start).
    AllGather,
    /// reduce-scatter.
    ReduceScatter,
    /// all-to-all.
    AllToAll,
    /// ragged-all-to-all.
    RaggedAllToAll,
    /// One contribution travels to each receiver: collective-permute,
    /// send/recv, collective-broadcast, collective-reduce.
    PointToPoint,
}

impl CollectiveKind {
    /// The kind of a collective opcode, `None` for any other.
    pub fn of(opcode: weft_ir::Opcode) -> Option<CollectiveKind> {
        use weft_ir::Opcode::*;
        Some(match opcode {
            AllReduce | AllReduceStart => CollectiveKind::AllReduce,
            AllGather | AllGatherStart => CollectiveKind::AllGather,
            ReduceScatter => CollectiveKind::ReduceScatter,
            AllToAll => CollectiveKind::AllToAll,
            RaggedAllToAll => CollectiveKind::RaggedAllToAll,
            CollectivePermute
            | CollectivePermuteStart
            | CollectiveBroadcast
            | CollectiveReduce
            | Send
            | Recv => CollectiveKind::PointToPoint,
            _ => return None,
        })
    }

    /// The bytes one member receives when each of `members` contributes
    /// `contributed` bytes (for ragged-all-to-all: its input's bytes).
    pub fn received_bytes(self, contributed: f64, members: usize) -> f64 {
        let share = members.saturating_sub(1) as f64 / members.max(1) as f64;
        match self {
            CollectiveKind::AllReduce => 2.0 * share * contributed,
            CollectiveKind::AllGather => share * contributed * members as f64,
            CollectiveKind::ReduceScatter
            | CollectiveKind::AllToAll
            | CollectiveKind::RaggedAllToAll => share * contributed,
            CollectiveKind::PointToPoint if members <= 1 => 0.0,
            CollectiveKind::PointToPoint => contributed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_all_reduce_moves_twice_the_share() {
        let bytes = CollectiveKind::AllReduce.received_bytes(800.0, 8);
        assert_eq!(bytes, 1400.0);
        assert_eq!(CollectiveKind::AllGather.received_bytes(100.0, 4), 300.0);
        assert_eq!(CollectiveKind::PointToPoint.received_bytes(100.0, 1), 0.0);
    }

    #[test]
    fn transfer_time_is_latency_plus_bytes_over_bandwidth() {
        let link = Link::default();
        assert_eq!(
            link.transfer_time(25e9 / 1e3),
            Duration::from_micros(5) + Duration::from_millis(1)
        );
        assert_eq!(Link::UNPACED.transfer_time(1e12), Duration::ZERO);
        let slow = Link {
            bandwidth: Some(1e-300),
            latency: Duration::ZERO,
        };
        assert_eq!(slow.transfer_time(1e10), Duration::MAX);
    }
}

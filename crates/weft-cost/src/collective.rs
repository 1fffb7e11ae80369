//! How long a collective takes: its algorithm on a [`Topology`].
//!
//! Every formula is the α-β model of the collective-communication
//! literature: a step that sends `m` bytes over a link of latency `α` and
//! bandwidth `B` takes `α + m / B`. With `S` the bytes each of the `n`
//! members contributes (all-gather: the piece each member gathers from;
//! collective-broadcast: the root's buffer), `⌈log₂ n⌉` written `L`:
//!
//! **Ring** — reduce-scatter and all-gather as `n − 1` steps of `S/n` (all-gather: of `S`)
//! round a ring, all-reduce as the two in turn, all-to-all as `n − 1`
//! pairwise exchanges of `S/n` ([Thakur, Rabenseifner & Gropp 2005],
//! §4–§5; bandwidth-optimal: [Patarasuk & Yuan 2009]); broadcast and reduce
//! as a pipelined chain, `(n − 1) α + S / B`.
//!
//! **Tree** — all-reduce as a pipelined (double) binary tree reduce then
//! broadcast, `2 L α + 2 S / B`; broadcast and reduce as one tree, `L α +
//! S / B` ([Sanders, Speck & Träff 2009], the double binary trees NCCL
//! uses). Not defined for all-gather, reduce-scatter or all-to-all.
//!
//! **Direct** — one step: every member sends each other member its piece
//! at once, the transfers sharing the sender's injection bandwidth: `α +
//! (n − 1) m / B`, with `m = S/n` (reduce-scatter, all-to-all), `S`
//! (all-gather, the root of a broadcast or reduce); all-reduce is a direct
//! reduce-scatter then a direct all-gather of `S/n`.
//!
//! On each topology:
//!
//! - **flat** (the runtime's original model): a collective is *one
//!   transfer*, the latency paid once, of the bytes a member receives
//!   through the bottleneck: ring `α + R / B` with `R` from
//!   [`CollectiveKind::received_bytes`] — exactly what the runtime charges
//!   with its flat link, so `weft run` and a simulation agree —, tree
//!   all-reduce `α + 2S/B`, direct `α + (bytes a member sends)/B`. A group of
//!   one still pays `α`, as the runtime does. Every other topology charges
//!   each step's latency.
//! - **nodes**: the group is split into *levels*, the `k` members of a node
//!   (intra link) and the `m` nodes (inter link, one interface per device),
//!   and priced hierarchically, as NCCL and Horovod do: a ring all-reduce
//!   is a reduce-scatter within each node, `m`-member all-reduces of `S/k`
//!   across nodes (one per local index, concurrently, each device on its
//!   own interface), then an all-gather within each node:
//!   `2(k−1)(α_intra + S/(k B_intra)) + 2(m−1)(α_inter + S/(k m B_inter))`.
//! - **ring, torus, mesh** ([Chan, Heimlich, Purkayastha & van de Geijn
//!   2007]): when the group is a sub-grid (the product of its coordinates
//!   along each dimension), each dimension holding `nᵢ > 1` of its members
//!   is a level, and the collective runs as rings along one dimension after
//!   another, the data shrinking (reduce-scatter) or growing (all-gather)
//!   by `nᵢ` each time. A torus ring of more than two points that goes
//!   round the torus sends half the data each way, so its steps move at
//!   `2B`; a mesh — or part of a torus ring — closes its ring back along
//!   the line (a zig-zag), so its steps cross two gaps, one way. A step's
//!   latency is `α` per link crossed (the largest gap between consecutive
//!   members; two of them in a zig-zag). A
//!   group that is no sub-grid is one ring through its members in id
//!   order.
//!
//! The general formulas over levels `i = 1 … D` (innermost first) with `nᵢ`
//! members, step latency `αᵢ` and step bandwidth `Bᵢ`:
//!
//! ```text
//! reduce-scatter (ring)   Σᵢ (nᵢ−1)(αᵢ + Dᵢ / (nᵢ Bᵢ)),  D₁ = S, Dᵢ₊₁ = Dᵢ / nᵢ
//! all-gather (ring)       Σᵢ (nᵢ−1)(αᵢ + Pᵢ / Bᵢ),       outermost first, P = S, then P·nᵢ
//! all-reduce (ring)       reduce-scatter of S + all-gather of S / Πnᵢ
//! all-to-all (ring)       Σᵢ Σⱼ₌₁..nᵢ₋₁ cᵢⱼ (αᵢ + S / (nᵢ Bᵢ)),  cᵢⱼ = 1 (switched level),
//!                         min(j, nᵢ−j) (torus ring: a shift by j crosses, and shares, that many links), j (mesh)
//! broadcast, reduce       ring: Σᵢ (nᵢ−1) αᵢ + S / minᵢ Bᵢ;  tree: Σᵢ tᵢ + S / minᵢ Bᵢ
//! all-reduce (tree)       2 Σᵢ tᵢ + 2 S / minᵢ Bᵢ,  tᵢ = Σₗ₌₀..⌈log₂nᵢ⌉₋₁ spanₗ αᵢ
//!                         (spanₗ = 1 on a switched level, the 2ˡ positions a level-l edge spans on a ring)
//! direct (one step)       maxᵢ (diameterᵢ αᵢ + rᵢ m / (Bᵢ · linksᵢ)),  rᵢ = (nᵢ−1) Πⱼ<ᵢ nⱼ
//! ```
//!
//! (`rᵢ` counts the members reached over level `i`; `linksᵢ` is the
//! member's links on it — 1 switched, 2 on a ring of more than two.)
//! Direct on a grid counts only injection bandwidth, not links shared
//! further along multi-hop routes: an optimistic bound. Links shared by
//! concurrent collectives are not modelled.
//!
//! A collective-permute (and send/recv) is point to point whatever the
//! algorithm: each pair's message takes `hops · α + S / B` over the link
//! between them (flat: `α + S / B`, the runtime's), the permute the slowest
//! pair's.
//!
//! [`best`] picks the fastest applicable algorithm, as NCCL's tuner does
//! from its own model (ties go to the ring).
//!
//! [Thakur, Rabenseifner & Gropp 2005]: https://doi.org/10.1177/1094342005051521
//! [Patarasuk & Yuan 2009]: https://doi.org/10.1016/j.jpdc.2008.09.002
//! [Sanders, Speck & Träff 2009]: https://doi.org/10.1016/j.parco.2009.09.001
//! [Chan, Heimlich, Purkayastha & van de Geijn 2007]: https://doi.org/10.1002/cpe.1206

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::link::{CollectiveKind, Link};
use crate::topology::{Topology, distance};

/// How a collective moves its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Neighbour steps round a ring (per level, per dimension).
    Ring,
    /// A pipelined (double) binary tree.
    Tree,
    /// One step, every member to every other at once.
    Direct,
}

impl Algorithm {
    /// Every algorithm, in the order ties are broken.
    pub const ALL: [Algorithm; 3] = [Algorithm::Ring, Algorithm::Tree, Algorithm::Direct];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Ring => "ring",
            Algorithm::Tree => "tree",
            Algorithm::Direct => "direct",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which algorithm prices a collective: one for all, or the fastest for
/// each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Selection {
    /// This algorithm, or the ring where it does not apply.
    Fixed(Algorithm),
    /// The fastest that applies ([`best`]).
    Best,
}

impl Default for Selection {
    /// The ring: the runtime's original model.
    fn default() -> Selection {
        Selection::Fixed(Algorithm::Ring)
    }
}

impl FromStr for Selection {
    type Err = String;

    fn from_str(text: &str) -> Result<Selection, String> {
        if text == "best" {
            return Ok(Selection::Best);
        }
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == text)
            .map(Selection::Fixed)
            .ok_or_else(|| {
                format!(
                    "unknown algorithm `{text}`; the algorithms are ring, tree, direct and best"
                )
            })
    }
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selection::Fixed(algorithm) => algorithm.fmt(f),
            Selection::Best => f.write_str("best"),
        }
    }
}

/// A collective pattern, with what its time depends on beyond its group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective<'a> {
    /// all-reduce.
    AllReduce,
    /// all-gather.
    AllGather,
    /// reduce-scatter.
    ReduceScatter,
    /// all-to-all and ragged-all-to-all (`S`: its input).
    AllToAll,
    /// collective-broadcast from the group's first member.
    Broadcast,
    /// collective-reduce to one member.
    Reduce,
    /// collective-permute and send/recv: (source, target) device ids.
    Permute(&'a [(usize, usize)]),
}

impl Collective<'_> {
    /// The runtime's kind, whose ring bytes price the flat topology.
    pub fn kind(&self) -> CollectiveKind {
        match self {
            Collective::AllReduce => CollectiveKind::AllReduce,
            Collective::AllGather => CollectiveKind::AllGather,
            Collective::ReduceScatter => CollectiveKind::ReduceScatter,
            Collective::AllToAll => CollectiveKind::AllToAll,
            Collective::Broadcast | Collective::Reduce | Collective::Permute(_) => {
                CollectiveKind::PointToPoint
            }
        }
    }

    /// Whether `algorithm` is defined for this collective.
    pub fn allows(&self, algorithm: Algorithm) -> bool {
        match algorithm {
            Algorithm::Ring | Algorithm::Direct => true,
            Algorithm::Tree => matches!(
                self,
                Collective::AllReduce
                    | Collective::Broadcast
                    | Collective::Reduce
                    | Collective::Permute(_)
            ),
        }
    }
}

/// A topology and the way collectives are priced on it: what the runtime
/// charges and a simulator reads.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Interconnect {
    /// The links.
    pub topology: Topology,
    /// The algorithm of every collective.
    pub selection: Selection,
}

impl Interconnect {
    /// How long `collective` takes when each member of `group` (device ids)
    /// contributes `bytes`, under the selected algorithm (the ring where the
    /// chosen one does not apply).
    pub fn collective_time(
        &self,
        collective: Collective<'_>,
        bytes: f64,
        group: &[usize],
    ) -> Duration {
        match self.selection {
            Selection::Best => best(collective, bytes, group, &self.topology).1,
            Selection::Fixed(algorithm) => {
                time(collective, bytes, group, &self.topology, algorithm)
                    .or_else(|| time(collective, bytes, group, &self.topology, Algorithm::Ring))
                    .expect("the ring applies to every collective")
            }
        }
    }

    /// How long `bytes` take from device `source` to device `target`.
    pub fn point_to_point_time(&self, source: usize, target: usize, bytes: f64) -> Duration {
        point_to_point_time(&self.topology, source, target, bytes)
    }
}

/// How long `collective` takes under `algorithm` when each member of
/// `group` (device ids) contributes `bytes` (see the module docs); `None`
/// when the algorithm does not apply to the collective.
pub fn time(
    collective: Collective<'_>,
    bytes: f64,
    group: &[usize],
    topology: &Topology,
    algorithm: Algorithm,
) -> Option<Duration> {
    if !collective.allows(algorithm) {
        return None;
    }
    let bytes = bytes.max(0.0);
    if let Collective::Permute(pairs) = collective {
        return Some(
            pairs
                .iter()
                .map(|&(source, target)| point_to_point_time(topology, source, target, bytes))
                .max()
                .unwrap_or_default(),
        );
    }
    let members = group.len();
    if let Topology::Flat { link } = topology {
        return Some(flat_time(collective, bytes, members, *link, algorithm));
    }
    if members <= 1 {
        return Some(Duration::ZERO);
    }
    let levels = levels(group, topology);
    Some(seconds(levels_time(collective, bytes, &levels, algorithm)))
}

/// The fastest algorithm for `collective` and its time (ties go to the
/// earlier of [`Algorithm::ALL`]).
pub fn best(
    collective: Collective<'_>,
    bytes: f64,
    group: &[usize],
    topology: &Topology,
) -> (Algorithm, Duration) {
    Algorithm::ALL
        .into_iter()
        .filter_map(|algorithm| {
            Some((
                algorithm,
                time(collective, bytes, group, topology, algorithm)?,
            ))
        })
        .min_by_key(|&(_, time)| time)
        .expect("the ring applies to every collective")
}

/// How long `bytes` take from `source` to `target`: `hops · α + bytes /
/// B` over the link between them; the flat link's `α + bytes / B` even to
/// itself, as the runtime charges.
pub fn point_to_point_time(
    topology: &Topology,
    source: usize,
    target: usize,
    bytes: f64,
) -> Duration {
    let link = topology.link_between(source, target);
    if let Topology::Flat { .. } = topology {
        return link.transfer_time(bytes);
    }
    let hops = topology.hops(source, target);
    if hops == 0 {
        return Duration::ZERO;
    }
    match link.bandwidth {
        Some(bandwidth) if bandwidth > 0.0 => {
            seconds(hops as f64 * link.latency.as_secs_f64() + bytes.max(0.0) / bandwidth)
        }
        _ => Duration::ZERO,
    }
}

/// The flat topology: one transfer of the bytes through the bottleneck.
fn flat_time(
    collective: Collective<'_>,
    bytes: f64,
    members: usize,
    link: Link,
    algorithm: Algorithm,
) -> Duration {
    let others = members.saturating_sub(1) as f64;
    let share = others / members.max(1) as f64;
    let through = match (algorithm, collective) {
        (Algorithm::Ring, _) => collective.kind().received_bytes(bytes, members),
        (Algorithm::Tree, Collective::AllReduce) => 2.0 * bytes,
        (Algorithm::Tree, _) => bytes,
        (Algorithm::Direct, Collective::AllReduce) => 2.0 * share * bytes,
        (Algorithm::Direct, Collective::ReduceScatter | Collective::AllToAll) => share * bytes,
        (Algorithm::Direct, _) => others * bytes,
    };
    link.transfer_time(through)
}

/// One level of a group on a topology: members that talk over one kind of
/// link.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Level {
    /// Members along the level.
    members: usize,
    /// One step's latency: the link's, once per link crossed.
    latency: f64,
    /// One link's bandwidth in each direction, bytes per second; infinite
    /// when unpaced.
    bandwidth: f64,
    /// Any two members one link apart (a switch), or a ring of links.
    switched: bool,
    /// A ring whose steps send half each way round.
    bidirectional: bool,
}

impl Level {
    /// `members` over `link`, a step crossing `hops` links.
    fn new(members: usize, link: Link, hops: usize, switched: bool, bidirectional: bool) -> Level {
        let (latency, bandwidth) = match link.bandwidth {
            Some(bandwidth) if bandwidth > 0.0 => {
                (link.latency.as_secs_f64() * hops as f64, bandwidth)
            }
            _ => (0.0, f64::INFINITY),
        };
        Level {
            members,
            latency,
            bandwidth,
            switched,
            bidirectional,
        }
    }

    /// The bandwidth of a ring step: both directions on a bidirectional
    /// ring.
    fn ring_bandwidth(&self) -> f64 {
        if self.bidirectional {
            2.0 * self.bandwidth
        } else {
            self.bandwidth
        }
    }

    /// Positions a shift by `j` moves along the ring (1 when switched).
    fn shift_span(&self, j: usize) -> usize {
        if self.switched {
            1
        } else if self.bidirectional {
            j.min(self.members - j)
        } else {
            j
        }
    }

    /// The latency of a ⌈log₂ n⌉-level tree over this level.
    fn tree_latency(&self) -> f64 {
        let depth = self.members.next_power_of_two().trailing_zeros();
        (0..depth)
            .map(|l| {
                let span = 1usize << l;
                let positions = if self.switched {
                    1
                } else if self.bidirectional {
                    span.min(self.members.saturating_sub(span)).max(1)
                } else {
                    span
                };
                positions as f64 * self.latency
            })
            .sum()
    }

    /// The farthest member in steps of this level.
    fn diameter(&self) -> usize {
        if self.switched {
            1
        } else if self.bidirectional {
            self.members / 2
        } else {
            self.members - 1
        }
    }

    /// Links a member has on this level.
    fn links(&self) -> usize {
        if self.switched || self.members <= 2 {
            1
        } else {
            2
        }
    }
}

/// The levels of `group` on `topology` (never flat), innermost first, each
/// of more than one member.
fn levels(group: &[usize], topology: &Topology) -> Vec<Level> {
    match topology {
        Topology::Flat { link } => vec![Level::new(group.len(), *link, 1, true, false)],
        Topology::Nodes {
            devices_per_node,
            intra,
            inter,
        } => {
            let per_node = (*devices_per_node).max(1);
            let mut nodes: Vec<(usize, usize)> = Vec::new();
            for &device in group {
                let node = device / per_node;
                match nodes.iter_mut().find(|(n, _)| *n == node) {
                    Some((_, count)) => *count += 1,
                    None => nodes.push((node, 1)),
                }
            }
            // An uneven group is priced as if every node held as many
            // members as the fullest: an upper bound.
            let within = nodes.iter().map(|&(_, count)| count).max().unwrap_or(1);
            [
                Level::new(within, *intra, 1, true, false),
                Level::new(nodes.len(), *inter, 1, true, false),
            ]
            .into_iter()
            .filter(|level| level.members > 1)
            .collect()
        }
        Topology::Grid {
            dimensions,
            link,
            wraparound,
        } => grid_levels(group, topology, dimensions, *link, *wraparound),
    }
}

/// Per-dimension rings when `group` is a sub-grid, else one ring through
/// the members in id order.
fn grid_levels(
    group: &[usize],
    topology: &Topology,
    dimensions: &[usize],
    link: Link,
    wraparound: bool,
) -> Vec<Level> {
    let coordinates: Vec<Vec<usize>> = group.iter().map(|&d| topology.coordinates(d)).collect();
    let mut per_dimension: Vec<Vec<usize>> = vec![Vec::new(); dimensions.len()];
    for point in &coordinates {
        for (axis, &coordinate) in point.iter().enumerate() {
            per_dimension[axis].push(coordinate);
        }
    }
    for values in &mut per_dimension {
        values.sort_unstable();
        values.dedup();
    }
    let mut distinct = group.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let product: usize = per_dimension.iter().map(Vec::len).product();
    if product == group.len() && distinct.len() == group.len() {
        return per_dimension
            .iter()
            .zip(dimensions)
            .filter(|(values, _)| values.len() > 1)
            .map(|(values, &size)| {
                let gaps = values.windows(2).map(|w| w[1] - w[0]);
                let widest = gaps.max().unwrap_or(0);
                let closing = values[values.len() - 1] - values[0];
                let (hops, bidirectional) = if values.len() == 2 {
                    // Two members: there and back, the short way.
                    (distance(values[0], values[1], size, wraparound), false)
                } else if wraparound && size - closing <= widest {
                    // The members go round the circle: close across the
                    // wrap, half the data each way.
                    (widest, true)
                } else {
                    // The ring closes back along the line: zig-zag, so
                    // each step crosses up to two gaps.
                    (2 * widest, false)
                };
                Level::new(values.len(), link, hops, false, bidirectional)
            })
            .collect();
    }
    let hops = (0..distinct.len())
        .map(|i| topology.hops(distinct[i], distinct[(i + 1) % distinct.len()]))
        .max()
        .unwrap_or(1)
        .max(1);
    vec![Level::new(group.len(), link, hops, false, false)]
}

/// The module docs' formulas over `levels`, in seconds.
fn levels_time(
    collective: Collective<'_>,
    bytes: f64,
    levels: &[Level],
    algorithm: Algorithm,
) -> f64 {
    let everyone: usize = levels.iter().map(|l| l.members).product();
    let slowest = levels
        .iter()
        .map(|l| l.bandwidth)
        .fold(f64::INFINITY, f64::min);
    match (algorithm, collective) {
        (Algorithm::Ring, Collective::ReduceScatter) => reduce_scatter(bytes, levels),
        (Algorithm::Ring, Collective::AllGather) => all_gather(bytes, levels),
        (Algorithm::Ring, Collective::AllReduce) => {
            reduce_scatter(bytes, levels) + all_gather(bytes / everyone as f64, levels)
        }
        (Algorithm::Ring, Collective::AllToAll) => levels
            .iter()
            .map(|level| {
                let step = level.latency + bytes / (level.members as f64 * level.bandwidth);
                (1..level.members)
                    .map(|j| level.shift_span(j) as f64 * step)
                    .sum::<f64>()
            })
            .sum(),
        (Algorithm::Ring, Collective::Broadcast | Collective::Reduce) => {
            levels
                .iter()
                .map(|l| (l.members - 1) as f64 * l.latency)
                .sum::<f64>()
                + bytes / slowest
        }
        (Algorithm::Tree, Collective::AllReduce) => {
            2.0 * levels.iter().map(Level::tree_latency).sum::<f64>() + 2.0 * bytes / slowest
        }
        (Algorithm::Tree, _) => {
            levels.iter().map(Level::tree_latency).sum::<f64>() + bytes / slowest
        }
        (Algorithm::Direct, collective) => {
            let piece = bytes / everyone as f64;
            match collective {
                Collective::AllReduce => 2.0 * direct_step(piece, levels),
                Collective::ReduceScatter | Collective::AllToAll => direct_step(piece, levels),
                _ => direct_step(bytes, levels),
            }
        }
        (Algorithm::Ring, Collective::Permute(_)) => unreachable!("a permute is point to point"),
    }
}

/// Σᵢ (nᵢ−1)(αᵢ + Dᵢ / (nᵢ Bᵢ)), innermost first, the data shrinking.
fn reduce_scatter(bytes: f64, levels: &[Level]) -> f64 {
    let mut data = bytes;
    let mut total = 0.0;
    for level in levels {
        let n = level.members as f64;
        total += (n - 1.0) * (level.latency + data / (n * level.ring_bandwidth()));
        data /= n;
    }
    total
}

/// Σᵢ (nᵢ−1)(αᵢ + Pᵢ / Bᵢ), outermost first, the pieces growing.
fn all_gather(piece: f64, levels: &[Level]) -> f64 {
    let mut piece = piece;
    let mut total = 0.0;
    for level in levels.iter().rev() {
        let n = level.members as f64;
        total += (n - 1.0) * (level.latency + piece / level.ring_bandwidth());
        piece *= n;
    }
    total
}

/// One direct step sending `piece` to every other member: the slowest
/// level's latency to its farthest member plus its injection time.
fn direct_step(piece: f64, levels: &[Level]) -> f64 {
    let mut inner = 1usize;
    let mut slowest: f64 = 0.0;
    for level in levels {
        let reached = ((level.members - 1) * inner) as f64;
        let time = level.diameter() as f64 * level.latency
            + reached * piece / (level.bandwidth * level.links() as f64);
        slowest = slowest.max(time);
        inner *= level.members;
    }
    slowest
}

/// Seconds as a duration; beyond a duration's range is "for ever".
fn seconds(seconds: f64) -> Duration {
    Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(gigabytes: f64, microseconds: u64) -> Link {
        Link {
            bandwidth: Some(gigabytes * 1e9),
            latency: Duration::from_micros(microseconds),
        }
    }

    fn topology(text: &str) -> Topology {
        Topology::parse(text, link(25.0, 5)).expect(text)
    }

    /// `time` is `micros` microseconds, to the nanosecond of a `Duration`.
    #[track_caller]
    fn assert_micros(time: Option<Duration>, micros: f64) {
        let time = time.expect("the algorithm applies").as_secs_f64() * 1e6;
        assert!(
            (time - micros).abs() <= 1e-3,
            "{time} µs, expected {micros} µs"
        );
    }

    fn first(n: usize) -> Vec<usize> {
        (0..n).collect()
    }

    #[test]
    fn flat_ring_is_what_the_runtime_charges() {
        let flat = Topology::flat(link(25.0, 5));
        let collectives = [
            Collective::AllReduce,
            Collective::AllGather,
            Collective::ReduceScatter,
            Collective::AllToAll,
            Collective::Broadcast,
            Collective::Reduce,
        ];
        for collective in collectives {
            for members in 1..=9 {
                for bytes in [0.0, 1.0, 4096.0, 3e7] {
                    let group = first(members);
                    let charged = link(25.0, 5)
                        .transfer_time(collective.kind().received_bytes(bytes, members));
                    let time = time(collective, bytes, &group, &flat, Algorithm::Ring);
                    assert_eq!(time, Some(charged), "{collective:?} of {members}");
                }
            }
        }
        // By hand: 2·7/8 of 8 MB at 25 GB/s is 560 µs, plus 5 µs.
        assert_eq!(
            time(
                Collective::AllReduce,
                8e6,
                &first(8),
                &flat,
                Algorithm::Ring
            ),
            Some(Duration::from_micros(565))
        );
        let pairs = [(0, 1), (1, 0)];
        assert_eq!(
            time(
                Collective::Permute(&pairs),
                25e3,
                &first(2),
                &flat,
                Algorithm::Ring
            ),
            Some(Duration::from_micros(6))
        );
    }

    #[test]
    fn nodes_reduce_within_then_across() {
        let nodes = topology("nodes:4:intra=100GB/s,1us:inter=10GB/s,10us");
        // 2(k−1)(α + S/(kB)) within + 2(m−1)(α + S/(kmB)) across, k = 4, m = 2:
        // 6 · (1 + 20) + 2 · (10 + 100) = 346 µs.
        assert_micros(
            time(
                Collective::AllReduce,
                8e6,
                &first(8),
                &nodes,
                Algorithm::Ring,
            ),
            346.0,
        );
        // Within one node only the fast link: 2 · 3 · (1 + 20).
        assert_micros(
            time(
                Collective::AllReduce,
                8e6,
                &first(4),
                &nodes,
                Algorithm::Ring,
            ),
            126.0,
        );
        // One member per node: a plain ring over the slow links.
        assert_micros(
            time(
                Collective::AllGather,
                1e6,
                &[0, 4, 8],
                &nodes,
                Algorithm::Ring,
            ),
            2.0 * (10.0 + 100.0),
        );
        // Tree: 2 (2·1 + 10) µs + 2 S / B_inter = 24 + 1600.
        assert_micros(
            time(
                Collective::AllReduce,
                8e6,
                &first(8),
                &nodes,
                Algorithm::Tree,
            ),
            1624.0,
        );
        // Direct: 2 × max(1 + 3·1e6/100e9 s, 10 + 4·1e6/10e9 s) = 820 µs.
        assert_micros(
            time(
                Collective::AllReduce,
                8e6,
                &first(8),
                &nodes,
                Algorithm::Direct,
            ),
            820.0,
        );
        // A slow inter-node link costs more than the flat model's one link.
        let flat = Topology::flat(link(100.0, 1));
        assert!(
            time(
                Collective::AllReduce,
                8e6,
                &first(8),
                &nodes,
                Algorithm::Ring
            ) > time(
                Collective::AllReduce,
                8e6,
                &first(8),
                &flat,
                Algorithm::Ring
            )
        );
    }

    #[test]
    fn best_picks_latency_bound_algorithms_for_small_messages() {
        let nodes = topology("nodes:4:intra=100GB/s,1us:inter=10GB/s,10us");
        let group = first(8);
        assert_eq!(
            best(Collective::AllReduce, 8e6, &group, &nodes).0,
            Algorithm::Ring
        );
        // 8 bytes: ring 2 (3·1 + 10) = 26 µs, tree 2 (2 + 10) = 24 µs, direct 2 · 10 = 20 µs.
        let (algorithm, fastest) = best(Collective::AllReduce, 8.0, &group, &nodes);
        assert_eq!(algorithm, Algorithm::Direct);
        assert_micros(Some(fastest), 20.0 + 2.0 * 4.0 / 10e9 * 1e6);
        // Tree does not apply to an all-gather; the choice falls back to the ring.
        assert_eq!(
            time(Collective::AllGather, 8.0, &group, &nodes, Algorithm::Tree),
            None
        );
        let tree = Interconnect {
            topology: nodes.clone(),
            selection: Selection::Fixed(Algorithm::Tree),
        };
        assert_eq!(
            Some(tree.collective_time(Collective::AllGather, 8e3, &group)),
            time(Collective::AllGather, 8e3, &group, &nodes, Algorithm::Ring)
        );
        // On the flat topology the ring is never beaten.
        let flat = Topology::flat(link(25.0, 5));
        for collective in [
            Collective::AllReduce,
            Collective::AllGather,
            Collective::AllToAll,
        ] {
            assert_eq!(best(collective, 1e6, &group, &flat).0, Algorithm::Ring);
        }
    }

    #[test]
    fn a_torus_runs_bidirectional_rings_dimension_by_dimension() {
        let torus = topology("torus:4x4:link=10GB/s,1us");
        let ring = topology("ring:8:link=10GB/s,1us");
        // Per dimension 3 (α + D/(4 · 2B)), D = 16 MB then 4 MB: 603 + 153, twice.
        assert_micros(
            time(
                Collective::AllReduce,
                16e6,
                &first(16),
                &torus,
                Algorithm::Ring,
            ),
            1512.0,
        );
        // One row: one ring of 4.
        assert_micros(
            time(
                Collective::ReduceScatter,
                16e6,
                &first(4),
                &torus,
                Algorithm::Ring,
            ),
            603.0,
        );
        // Half a ring of 8 is no circle: it zig-zags, one way.
        assert_micros(
            time(
                Collective::ReduceScatter,
                4e6,
                &first(4),
                &ring,
                Algorithm::Ring,
            ),
            3.0 * (2.0 + 100.0),
        );
        // Every other point of a ring of 8: each step crosses two links.
        let ring = topology("ring:8:link=10GB/s,1us");
        assert_micros(
            time(
                Collective::AllGather,
                1e6,
                &[0, 2, 4, 6],
                &ring,
                Algorithm::Ring,
            ),
            3.0 * (2.0 + 50.0),
        );
        // No sub-grid: one one-way ring whose longest step crosses 2 links.
        assert_micros(
            time(
                Collective::ReduceScatter,
                3e6,
                &[0, 1, 5],
                &torus,
                Algorithm::Ring,
            ),
            2.0 * (2.0 + 100.0),
        );
        // A mesh zig-zags: steps of two links, one way.
        let mesh = topology("mesh:4:link=10GB/s,1us");
        assert_micros(
            time(
                Collective::ReduceScatter,
                4e6,
                &first(4),
                &mesh,
                Algorithm::Ring,
            ),
            3.0 * (2.0 + 100.0),
        );
        // All-to-all on a ring of 4: shifts by 1, 2, 3 cross 1, 2, 1 links.
        assert_micros(
            time(
                Collective::AllToAll,
                4e6,
                &first(4),
                &torus,
                Algorithm::Ring,
            ),
            4.0 * (1.0 + 100.0),
        );
        // Tree broadcast over a ring of 4: spans 1 and 2, then S / B.
        assert_micros(
            time(
                Collective::Broadcast,
                1e6,
                &first(4),
                &torus,
                Algorithm::Tree,
            ),
            3.0 + 100.0,
        );
        // Ring broadcast: a pipelined chain of 3 steps.
        assert_micros(
            time(
                Collective::Broadcast,
                1e6,
                &first(4),
                &torus,
                Algorithm::Ring,
            ),
            3.0 + 100.0,
        );
    }

    #[test]
    fn a_permute_costs_its_slowest_pair() {
        let torus = topology("torus:4x4:link=10GB/s,1us");
        // (0,0) to (2,2): four links.
        let pairs = [(0, 10), (1, 2)];
        for algorithm in Algorithm::ALL {
            assert_micros(
                time(Collective::Permute(&pairs), 1e6, &[], &torus, algorithm),
                104.0,
            );
        }
        let nodes = topology("nodes:2:intra=100GB/s,1us:inter=10GB/s,10us");
        assert_eq!(
            point_to_point_time(&nodes, 0, 1, 1e6),
            Duration::from_micros(11)
        );
        assert_eq!(
            point_to_point_time(&nodes, 1, 2, 1e6),
            Duration::from_micros(110)
        );
        assert_eq!(point_to_point_time(&nodes, 1, 1, 1e6), Duration::ZERO);
    }

    #[test]
    fn unpaced_links_and_lone_members_take_no_time() {
        for text in [
            "torus:2x2:link=unpaced",
            "nodes:2:intra=unpaced:inter=unpaced",
        ] {
            let topology = topology(text);
            for algorithm in Algorithm::ALL {
                assert_eq!(
                    time(Collective::AllReduce, 1e9, &first(4), &topology, algorithm),
                    Some(Duration::ZERO)
                );
            }
        }
        let nodes = topology("nodes:2");
        assert_eq!(
            time(Collective::AllReduce, 1e9, &[3], &nodes, Algorithm::Ring),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn selections_parse_and_print() {
        for text in ["ring", "tree", "direct", "best"] {
            assert_eq!(text.parse::<Selection>().expect(text).to_string(), text);
        }
        assert!(
            "nccl"
                .parse::<Selection>()
                .unwrap_err()
                .contains("ring, tree, direct and best")
        );
    }
}

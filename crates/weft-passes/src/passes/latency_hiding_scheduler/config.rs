//! The scheduler's configuration: every field of XLA's `SchedulerConfig`,
//! by its XLA name, plus the choice of latency estimator.
//!
//! Defaults are XLA's: every overlap limit is 1 (one collective of each kind
//! in flight), no memory limit, bottom-up scheduling, no aggressive
//! policies.

use crate::pass::{OptionKind, OptionSpec, Options};

/// Which latency estimator prices nodes and edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EstimatorKind {
    /// XLA's `ApproximateLatencyEstimator`: abstract units, a convolution or
    /// output fusion costs 5000, a loop fusion 1000, anything else 1; an
    /// async start→done edge is 5000 long, every other edge 1.
    Approximate,
    /// The estimator of XLA's scheduler tests: like the approximate one, but
    /// fusions and convolutions cost per element of their result and a
    /// collective-permute start→done edge is as long as its operand has
    /// elements.
    Test,
    /// weft's cost model, in microseconds: each node's work on a device
    /// profile, each collective's time on a topology (see
    /// [`estimator`](super::estimator)).
    Analytic,
}

/// The scheduler's configuration (XLA's `SchedulerConfig`).
#[derive(Clone, Debug, PartialEq)]
pub struct SchedulerConfig {
    /// How many collective-broadcasts may be in flight at once.
    pub collective_broadcast_overlap_limit: i64,
    /// How many collective-permutes may be in flight at once.
    pub collective_permute_overlap_limit: i64,
    /// How many all-to-alls may be in flight at once.
    pub all_to_all_overlap_limit: i64,
    /// How many ragged-all-to-alls may be in flight at once.
    pub ragged_all_to_all_overlap_limit: i64,
    /// How many all-gathers may be in flight at once.
    pub all_gather_overlap_limit: i64,
    /// How many all-reduces may be in flight at once.
    pub all_reduce_overlap_limit: i64,
    /// How many reduce-scatters may be in flight at once.
    pub reduce_scatter_overlap_limit: i64,
    /// How many device send/recv pairs may be in flight at once.
    pub send_recv_overlap_limit: i64,
    /// How many host transfers may be in flight at once.
    pub send_recv_host_overlap_limit: i64,
    /// How many copy-start/copy-done pairs may be in flight at once.
    pub copy_overlap_limit: i64,
    /// Bytes the schedule should stay under; `None` is no limit.
    pub memory_limit: Option<u64>,
    /// Selective overlap: how far a valuable node may be from an occupier.
    pub max_hops_to_closest_selective_overlap: i64,
    /// How many times to reschedule with a 10% lower memory limit while the
    /// peak exceeds it.
    pub rerun: i64,
    /// Kept for XLA's configurations (backend trackers use it).
    pub parallel_collective_overlap_limit: i64,
    /// Kept for XLA's configurations (backend trackers use it).
    pub parallel_scale_up_collective_overlap_limit: i64,
    /// Kept for XLA's configurations (backend trackers use it).
    pub parallel_async_compute_limit: i64,
    /// Schedule send/recv as async pairs.
    pub schedule_send_recvs: bool,
    /// Dissolve the smallest blocked scheduling group instead of failing.
    pub deannotate_group_if_blocked: bool,
    /// Host sends and receives share one resource.
    pub force_send_recv_to_use_same_resource: bool,
    /// Kept for XLA's configurations (the backend chooses its estimator).
    pub use_real_cost_model: bool,
    /// Async depth, waste avoidance and ready-node counts join the ranking.
    pub aggressive_scheduling_policies: bool,
    /// With aggressive policies, rank async depth before stall.
    pub prioritize_async_depth_over_stall: bool,
    /// Prefer a ready collective-permute start that frees its resource.
    pub enable_release_start_policy: bool,
    /// Shareable resources (none with the default tracker).
    pub resource_sharing: bool,
    /// Serial resources (none with the default tracker).
    pub resource_serializing: bool,
    /// Over the memory limit, prefer the shallower node.
    pub depth_based_memory_pressure_reduction: bool,
    /// Selective resources (none with the default tracker).
    pub enable_selective_resources: bool,
    /// Leave the async start of a finished group free to move.
    pub flexible_scheduling_annotation_scheduling: bool,
    /// And delay that start as long as possible.
    pub aggressive_flexible_annotation_scheduling: bool,
    /// Rank forced delays before memory pressure.
    pub force_delay_over_memory_pressure: bool,
    /// Kept for XLA's configurations (fragmentation is not simulated).
    pub estimate_fragmentation_size: bool,
    /// A synchronous collective occupies and frees its kind's resource.
    pub track_sync_op_resource_usage: bool,
    /// Schedule from the first instruction down instead of from the root up.
    pub top_down_scheduling: bool,
    /// Prefer async starts (bottom-up) or dones (top-down) last among equals.
    pub enable_schedule_by_structure: bool,
    /// Keep a buffer's readers ahead of an overwriting transfer only for
    /// in-place updates, as if copy insertion had given loop state its own
    /// storage (beyond XLA, which runs copy insertion first; refine tries
    /// it).
    pub assume_copy_insertion: bool,
    /// Inside a transfer's window, prefer work that does not contend with it
    /// for memory bandwidth (beyond XLA; a rule last among the ready-set's).
    pub contention_aware: bool,
    /// After refining, leave synchronous (start directly before done, for
    /// `convert-async-collectives-to-sync` to finish) every collective whose
    /// overlap costs more on the runtime's one async stream than it hides.
    pub sync_unhidden_collectives: bool,
    /// Keep every computation's written order (beyond XLA; a computation
    /// can also ask for it itself, see `weft_ir::pinned_order`).
    pub pin_written_order: bool,
    /// Try XLA's algorithm under several configurations and starting orders
    /// and keep the fastest on the runtime's streams, memory within bounds
    /// (beyond XLA); `None` means "with the analytic estimator".
    pub refine: Option<bool>,
    /// The latency estimator.
    pub estimator: EstimatorKind,
    /// The device profile of the analytic estimator (a built-in name,
    /// `cpu-local`, or a TOML file).
    pub profile: String,
    /// The topology of the analytic estimator; the profile's own, else a
    /// flat link like `weft run`'s default, when absent.
    pub topology: Option<String>,
    /// The collective algorithm of the analytic estimator (`ring`, `tree`,
    /// `direct` or `best`).
    pub collective_algorithm: String,
}

impl Default for SchedulerConfig {
    fn default() -> SchedulerConfig {
        SchedulerConfig {
            collective_broadcast_overlap_limit: 1,
            collective_permute_overlap_limit: 1,
            all_to_all_overlap_limit: 1,
            ragged_all_to_all_overlap_limit: 1,
            all_gather_overlap_limit: 1,
            all_reduce_overlap_limit: 1,
            reduce_scatter_overlap_limit: 1,
            send_recv_overlap_limit: 1,
            send_recv_host_overlap_limit: 1,
            copy_overlap_limit: 1,
            memory_limit: None,
            max_hops_to_closest_selective_overlap: 0,
            rerun: 0,
            parallel_collective_overlap_limit: 1,
            parallel_scale_up_collective_overlap_limit: 1,
            parallel_async_compute_limit: 2,
            schedule_send_recvs: false,
            deannotate_group_if_blocked: false,
            force_send_recv_to_use_same_resource: false,
            use_real_cost_model: false,
            aggressive_scheduling_policies: false,
            prioritize_async_depth_over_stall: false,
            enable_release_start_policy: false,
            resource_sharing: false,
            resource_serializing: false,
            depth_based_memory_pressure_reduction: false,
            enable_selective_resources: false,
            flexible_scheduling_annotation_scheduling: false,
            aggressive_flexible_annotation_scheduling: false,
            force_delay_over_memory_pressure: false,
            estimate_fragmentation_size: false,
            track_sync_op_resource_usage: false,
            top_down_scheduling: false,
            enable_schedule_by_structure: false,
            pin_written_order: false,
            sync_unhidden_collectives: false,
            contention_aware: false,
            assume_copy_insertion: false,
            refine: None,
            estimator: EstimatorKind::Analytic,
            profile: weft_cost::profile::REFERENCE.to_string(),
            topology: None,
            collective_algorithm: "ring".to_string(),
        }
    }
}

const fn int(name: &'static str, default: &'static str, doc: &'static str) -> OptionSpec {
    OptionSpec {
        name,
        kind: OptionKind::Int,
        default,
        doc,
    }
}

const fn flag(name: &'static str, doc: &'static str) -> OptionSpec {
    OptionSpec {
        name,
        kind: OptionKind::Bool,
        default: "false",
        doc,
    }
}

/// The options, by XLA's field names.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "latency_estimator",
        kind: OptionKind::Choice(&["analytic", "approximate", "test"]),
        default: "analytic",
        doc: "analytic: weft's cost model (profile, topology); approximate: XLA's ApproximateLatencyEstimator; test: the estimator of XLA's scheduler tests",
    },
    OptionSpec {
        name: "profile",
        kind: OptionKind::Text,
        default: "cpu-reference",
        doc: "the analytic estimator's device profile: a built-in name (cpu-reference, h100-sxm, tpu-v5e), cpu-local, or a .toml file",
    },
    OptionSpec {
        name: "topology",
        kind: OptionKind::Text,
        default: "the profile's, else flat",
        doc: "the analytic estimator's topology, as weft run --topology takes it (flat, nodes:8:…, torus:4x4, …)",
    },
    OptionSpec {
        name: "collective_algorithm",
        kind: OptionKind::Choice(&["ring", "tree", "direct", "best"]),
        default: "ring",
        doc: "the analytic estimator's collective algorithm, as weft run --collective-algorithm",
    },
    int(
        "collective_broadcast_overlap_limit",
        "1",
        "collective-broadcasts in flight at once",
    ),
    int(
        "collective_permute_overlap_limit",
        "1",
        "collective-permutes in flight at once",
    ),
    int(
        "all_to_all_overlap_limit",
        "1",
        "all-to-alls in flight at once",
    ),
    int(
        "ragged_all_to_all_overlap_limit",
        "1",
        "ragged-all-to-alls in flight at once",
    ),
    int(
        "all_gather_overlap_limit",
        "1",
        "all-gathers in flight at once",
    ),
    int(
        "all_reduce_overlap_limit",
        "1",
        "all-reduces in flight at once",
    ),
    int(
        "reduce_scatter_overlap_limit",
        "1",
        "reduce-scatters in flight at once",
    ),
    int(
        "send_recv_overlap_limit",
        "1",
        "device send/recv pairs in flight at once",
    ),
    int(
        "send_recv_host_overlap_limit",
        "1",
        "host transfers in flight at once",
    ),
    int(
        "copy_overlap_limit",
        "1",
        "copy-start/done pairs in flight at once",
    ),
    int(
        "memory_limit",
        "unlimited",
        "bytes the schedule should stay under (memory pressure joins the ranking above half of it)",
    ),
    int(
        "max_hops_to_closest_selective_overlap",
        "0",
        "selective overlap distance (backend trackers)",
    ),
    int(
        "rerun",
        "0",
        "reschedules with a 10% lower memory limit while the peak exceeds it",
    ),
    int(
        "parallel_collective_overlap_limit",
        "1",
        "accepted for XLA's configurations; backend trackers use it",
    ),
    int(
        "parallel_scale_up_collective_overlap_limit",
        "1",
        "accepted for XLA's configurations; backend trackers use it",
    ),
    int(
        "parallel_async_compute_limit",
        "2",
        "accepted for XLA's configurations; backend trackers use it",
    ),
    flag("schedule_send_recvs", "schedule send/recv as async pairs"),
    flag(
        "deannotate_group_if_blocked",
        "dissolve the smallest blocked scheduling group instead of failing",
    ),
    flag(
        "force_send_recv_to_use_same_resource",
        "host sends and receives share one resource",
    ),
    flag(
        "use_real_cost_model",
        "accepted for XLA's configurations; choose latency_estimator instead",
    ),
    flag(
        "aggressive_scheduling_policies",
        "async depth, waste avoidance and ready-node counts join the ranking",
    ),
    flag(
        "prioritize_async_depth_over_stall",
        "with aggressive policies, rank async depth before stall",
    ),
    flag(
        "enable_release_start_policy",
        "prefer a ready collective-permute start that frees its resource",
    ),
    flag(
        "resource_sharing",
        "shareable resources (the default tracker has none)",
    ),
    flag(
        "resource_serializing",
        "serial resources (the default tracker has none)",
    ),
    flag(
        "depth_based_memory_pressure_reduction",
        "over the memory limit, prefer the shallower node",
    ),
    flag(
        "enable_selective_resources",
        "selective resources (the default tracker has none)",
    ),
    flag(
        "flexible_scheduling_annotation_scheduling",
        "leave the async start of a finished scheduling group free to move",
    ),
    flag(
        "aggressive_flexible_annotation_scheduling",
        "and delay that start as long as possible",
    ),
    flag(
        "force_delay_over_memory_pressure",
        "rank forced delays before memory pressure",
    ),
    flag(
        "estimate_fragmentation_size",
        "accepted for XLA's configurations; fragmentation is not simulated",
    ),
    flag(
        "track_sync_op_resource_usage",
        "a synchronous collective occupies and frees its kind's resource",
    ),
    flag(
        "top_down_scheduling",
        "schedule from the first instruction down instead of from the root up",
    ),
    flag(
        "enable_schedule_by_structure",
        "prefer async starts (bottom-up) or dones (top-down) last among equals",
    ),
    OptionSpec {
        name: "refine",
        kind: OptionKind::Bool,
        default: "true with the analytic estimator",
        doc: "weft's default: run XLA's algorithm under several configurations and from the written order too, keep the fastest on the runtime's streams whose peak stays within 1.2x the starting schedule's (or memory_limit)",
    },
    flag(
        "assume_copy_insertion",
        "buffer edges only for in-place updates, as if copy insertion (which XLA runs before its scheduler) had given loop state its own storage; a loop's transfer may then overlap the work that reads the state it replaces; refine tries it",
    ),
    flag(
        "contention_aware",
        "inside a transfer's window prefer compute-bound work, outside it memory-bound work (the analytic estimator knows which contends with a transfer for memory bandwidth); refine tries it",
    ),
    flag(
        "sync_unhidden_collectives",
        "with refine: put a collective's start directly before its done when overlapping it costs more than it hides (a transfer queued behind a long one on the async stream); convert-async-collectives-to-sync then makes it synchronous",
    ),
    flag(
        "pin_written_order",
        "keep every computation's written order; only async pairs written back to back move (a computation whose root has _weft_pin_order=\"true\" is pinned without it)",
    ),
];

impl SchedulerConfig {
    /// Whether weft's default search runs (see [`SchedulerConfig::refine`]).
    pub fn refine(&self) -> bool {
        self.refine
            .unwrap_or(self.estimator == EstimatorKind::Analytic)
    }

    /// The overlap limits of the collectives and copies (send/recv and host
    /// transfers apart), to change together.
    pub fn collective_overlap_limits_mut(&mut self) -> [&mut i64; 8] {
        [
            &mut self.collective_broadcast_overlap_limit,
            &mut self.collective_permute_overlap_limit,
            &mut self.all_to_all_overlap_limit,
            &mut self.ragged_all_to_all_overlap_limit,
            &mut self.all_gather_overlap_limit,
            &mut self.all_reduce_overlap_limit,
            &mut self.reduce_scatter_overlap_limit,
            &mut self.copy_overlap_limit,
        ]
    }

    /// The configuration `options` give.
    pub fn from_options(options: &Options) -> SchedulerConfig {
        let base = SchedulerConfig::default();
        let int = |name: &str, default: i64| options.int(name, default);
        let flag = |name: &str| options.bool(name, false);
        SchedulerConfig {
            collective_broadcast_overlap_limit: int(
                "collective_broadcast_overlap_limit",
                base.collective_broadcast_overlap_limit,
            ),
            collective_permute_overlap_limit: int(
                "collective_permute_overlap_limit",
                base.collective_permute_overlap_limit,
            ),
            all_to_all_overlap_limit: int(
                "all_to_all_overlap_limit",
                base.all_to_all_overlap_limit,
            ),
            ragged_all_to_all_overlap_limit: int(
                "ragged_all_to_all_overlap_limit",
                base.ragged_all_to_all_overlap_limit,
            ),
            all_gather_overlap_limit: int(
                "all_gather_overlap_limit",
                base.all_gather_overlap_limit,
            ),
            all_reduce_overlap_limit: int(
                "all_reduce_overlap_limit",
                base.all_reduce_overlap_limit,
            ),
            reduce_scatter_overlap_limit: int(
                "reduce_scatter_overlap_limit",
                base.reduce_scatter_overlap_limit,
            ),
            send_recv_overlap_limit: int("send_recv_overlap_limit", base.send_recv_overlap_limit),
            send_recv_host_overlap_limit: int(
                "send_recv_host_overlap_limit",
                base.send_recv_host_overlap_limit,
            ),
            copy_overlap_limit: int("copy_overlap_limit", base.copy_overlap_limit),
            // XLA's limit is unsigned; a negative one reads as "none".
            memory_limit: u64::try_from(int("memory_limit", -1)).ok(),
            max_hops_to_closest_selective_overlap: int(
                "max_hops_to_closest_selective_overlap",
                base.max_hops_to_closest_selective_overlap,
            ),
            rerun: int("rerun", base.rerun),
            parallel_collective_overlap_limit: int(
                "parallel_collective_overlap_limit",
                base.parallel_collective_overlap_limit,
            ),
            parallel_scale_up_collective_overlap_limit: int(
                "parallel_scale_up_collective_overlap_limit",
                base.parallel_scale_up_collective_overlap_limit,
            ),
            parallel_async_compute_limit: int(
                "parallel_async_compute_limit",
                base.parallel_async_compute_limit,
            ),
            schedule_send_recvs: flag("schedule_send_recvs"),
            deannotate_group_if_blocked: flag("deannotate_group_if_blocked"),
            force_send_recv_to_use_same_resource: flag("force_send_recv_to_use_same_resource"),
            use_real_cost_model: flag("use_real_cost_model"),
            aggressive_scheduling_policies: flag("aggressive_scheduling_policies"),
            prioritize_async_depth_over_stall: flag("prioritize_async_depth_over_stall"),
            enable_release_start_policy: flag("enable_release_start_policy"),
            resource_sharing: flag("resource_sharing"),
            resource_serializing: flag("resource_serializing"),
            depth_based_memory_pressure_reduction: flag("depth_based_memory_pressure_reduction"),
            enable_selective_resources: flag("enable_selective_resources"),
            flexible_scheduling_annotation_scheduling: flag(
                "flexible_scheduling_annotation_scheduling",
            ),
            aggressive_flexible_annotation_scheduling: flag(
                "aggressive_flexible_annotation_scheduling",
            ),
            force_delay_over_memory_pressure: flag("force_delay_over_memory_pressure"),
            estimate_fragmentation_size: flag("estimate_fragmentation_size"),
            track_sync_op_resource_usage: flag("track_sync_op_resource_usage"),
            top_down_scheduling: flag("top_down_scheduling"),
            enable_schedule_by_structure: flag("enable_schedule_by_structure"),
            pin_written_order: flag("pin_written_order"),
            sync_unhidden_collectives: flag("sync_unhidden_collectives"),
            contention_aware: flag("contention_aware"),
            assume_copy_insertion: flag("assume_copy_insertion"),
            refine: options.text("refine").map(|value| value != "false"),
            estimator: match options.word("latency_estimator", "analytic") {
                "test" => EstimatorKind::Test,
                "approximate" => EstimatorKind::Approximate,
                _ => EstimatorKind::Analytic,
            },
            profile: options.text("profile").unwrap_or(base.profile),
            topology: options.text("topology"),
            collective_algorithm: options
                .word("collective_algorithm", &base.collective_algorithm)
                .to_string(),
        }
    }
}

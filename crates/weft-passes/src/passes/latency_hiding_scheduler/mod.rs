//! `latency-hiding-scheduler`: reorders each computation's sequence so that
//! async collectives overlap compute (XLA's `LatencyHidingScheduler`).
//!
//! # The problem
//!
//! An async collective only hides its latency if compute runs between its
//! start and its done. The order a program was written in, or the order a
//! memory-minimising scheduler chose, usually puts the done right after the
//! start. The scheduler moves starts up and dones down, as far as
//! dependencies, overlap limits and memory allow, and puts compute in the
//! windows it opens.
//!
//! # The algorithm
//!
//! XLA's list scheduler, computation by computation, callees first:
//!
//! 1. **Graph** ([`graph`]): one node per instruction, edges to users and
//!    control successors priced by the latency estimator ([`estimator`]),
//!    plus the edges that keep a buffer's readers ahead of the async op
//!    that overwrites it.
//! 2. **Resources** ([`resources`]): each kind of async collective has as
//!    many units as its overlap limit; a start/done pair holds one unit.
//! 3. **Walk** ([`state`]): bottom-up by default (`top_down_scheduling`
//!    reverses it), keeping a clock; the best ready node by the rules of
//!    [`ready_set`] is scheduled next. The key rule schedules an async done
//!    as soon as it is ready, so that walking on fills the time its
//!    transfer takes before its start is reached.
//! 4. **Groups**: instructions sharing a `_scheduling_group_id` are placed
//!    as one unit (the user's way to say "overlap *this* with *that*").
//! 5. **Memory** ([`memory`]): with a `memory_limit`, nodes that free
//!    memory win once half the limit is live; `rerun` repeats the schedule
//!    with a 10% lower limit while the peak exceeds it.
//!
//! Given XLA's estimator and configuration, weft makes XLA's decisions, so
//! the pass also reproduces XLA's schedules outside XLA.
//!
//! # Invariants
//!
//! Before: the module is scheduled (every non-fusion computation has a
//! sequence; run `hlo-memory-scheduler` first otherwise). After: the same
//! instructions, each computation that has async ops the scheduler moves
//! (or a `scheduler_hint="force_delay"`) re-sequenced; every data edge,
//! control edge and async pair still in order; no more of each collective
//! kind in flight than its overlap limit.
//!
//! # Example
//!
//! ```text
//! ags = all-gather-start(p)            ags = all-gather-start(p)
//! agd = all-gather-done(ags)     →     c   = convolution(x, y)
//! c   = convolution(x, y)              agd = all-gather-done(ags)
//! ```

pub mod config;
pub mod estimator;
pub mod graph;
pub mod memory;
pub mod ready_set;
pub mod resources;
pub mod state;
pub mod timeline;

use weft_ir::{Comp, Instr, Module, Opcode};

use crate::analysis::alias::Aliases;
use crate::analysis::call_graph::CallGraph;
use crate::analysis::dataflow::Dataflow;
use crate::pass::{OptionSpec, Options, Pass, PassError};
use crate::scheduling_annotation;

pub use config::{EstimatorKind, SchedulerConfig};
use estimator::Estimator;
use graph::{GraphInputs, ScheduleGraph};
use memory::ModuleMemory;
use resources::ResourceCounter;
pub use state::Placement;
use state::{Inputs, schedule_computation};

/// The pass's name.
pub const NAME: &str = "latency-hiding-scheduler";

/// The options (XLA's `SchedulerConfig` fields and the estimator).
pub const OPTIONS: &[OptionSpec] = config::OPTIONS;

/// What scheduling a module did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The computations rescheduled, in the order they were, with why each
    /// async op was placed where it is.
    pub computations: Vec<(Comp, Vec<Placement>)>,
    /// The largest peak of live bytes over the rescheduled computations.
    pub peak_bytes: i64,
    /// Why each async op is where it is, a line each (`weft opt
    /// --explain`).
    pub remarks: Vec<String>,
}

/// What a ready-set rule means, in words.
pub fn reason_text(reason: &str) -> &'static str {
    match reason {
        "kScheduleDone" => {
            "an async done is placed as soon as it is ready, so its window opens as early as possible"
        }
        "kScheduleAsyncStart" => "an async start is placed as soon as it is ready (top-down)",
        "kLessStall" => "it was ready sooner than the other candidates",
        "kUnlockDone" => "it feeds an async done, which it made ready",
        "kUnlockStart" => "an async start uses it, which it made ready",
        "kFreeBackedupResource" => "it frees a resource other collectives were waiting for",
        "kAsyncDepth" => "more async latency lies beyond it (aggressive policies)",
        "kAsyncHeight" => "more async latency lies behind it (aggressive policies)",
        "kAvoidWaste" => {
            "its cost best fills the time until the next node is ready (aggressive policies)"
        }
        "kStartAtZeroDepth" => {
            "an async start with nothing left to overlap is held back (aggressive policies)"
        }
        "kCreatesMoreReadyNodes" => "it makes more nodes ready (aggressive policies)",
        "kForceEarly" => "scheduler_hint=force_early",
        "kForceDelay" => "scheduler_hint=force_delay",
        "kForceDelayPriority" => "scheduler_delay_priority",
        "kForceDelayAfterTarget" => "its scheduling group left it to be delayed",
        "kDelayDoneOfForceDelayedAsyncStart" => "its start is force-delayed",
        "kScheduleStart" => {
            "a ready collective-permute start that frees its resource (release-start policy)"
        }
        "kDecreaseMemoryOverLimit" => "over the memory limit, it frees the most memory",
        "kMemoryPeakOverLimit" => "it keeps the peak under the memory limit",
        "kNoIncreaseMemoryOverLimit" => "over the memory limit, it does not add memory",
        "kDepthOverLimit" => "over the memory limit, the shallower node",
        "kDecreaseMemory" => "it frees memory",
        "kDelayAsyncStartOfSamePreference" | "kDelayAsyncDoneOfSamePreference" => {
            "schedule by structure"
        }
        "kOriginalOrder" => "nothing else told it apart: the written order decides",
        "kOnlyCandidate" => "it was the only instruction ready",
        "kNop" => "a no-op, placed as soon as it is ready",
        "kScheduledWithItsGroup" => "placed with its scheduling group",
        _ => "a rule of the ready set",
    }
}

/// The lines `--explain` prints for one rescheduled computation.
fn explain_computation(
    module: &Module,
    comp: Comp,
    placements: &[Placement],
    estimator: &Estimator,
    counter: &ResourceCounter<'_>,
    estimated_time: f64,
) -> Vec<String> {
    let unit = if estimator.is_analytic() {
        " us"
    } else {
        " units"
    };
    let sequence: Vec<Instr> = placements.iter().map(|p| p.instr).collect();
    let mut lines = vec![format!(
        "%{}: {} instructions rescheduled, estimated {:.3}{unit}",
        module.comp(comp).name,
        sequence.len(),
        estimated_time
    )];
    let position: rustc_hash::FxHashMap<Instr, usize> = sequence
        .iter()
        .enumerate()
        .map(|(at, &i)| (i, at))
        .collect();
    for (at, placement) in placements.iter().enumerate() {
        let start = placement.instr;
        if !counter.is_supported_async_start(module, start) {
            continue;
        }
        let done = sequence[at + 1..].iter().copied().find(|&candidate| {
            counter.is_supported_async_done(module, candidate)
                && module.instr(candidate).operands.first() == Some(&start)
        });
        let Some(done) = done else {
            continue;
        };
        let done_at = position[&done];
        let window: f64 = sequence[at + 1..done_at]
            .iter()
            .map(|&instr| estimator.node_cost(module, instr))
            .sum();
        let latency = estimator.latency_between(module, start, done);
        let hidden = window.min(latency);
        lines.push(format!(
            "  %{} [{at}] .. %{} [{done_at}]: {} instructions between, {:.3} of {:.3}{unit} of latency hidden",
            module.instr(start).name,
            module.instr(done).name,
            done_at - at - 1,
            hidden,
            latency,
        ));
        lines.push(format!(
            "    start: {} ({})",
            reason_text(placement.reason),
            placement.reason
        ));
        let done_reason = placements[done_at].reason;
        lines.push(format!(
            "    done: {} ({done_reason})",
            reason_text(done_reason)
        ));
    }
    lines
}

/// The computations with something to schedule, callees first.
fn computations_to_schedule(module: &Module, counter: &ResourceCounter<'_>) -> Vec<Comp> {
    let calls = CallGraph::of(module);
    calls
        .callees_first()
        .iter()
        .copied()
        .filter(|&comp| {
            let callers = calls.callers_of(comp);
            let is_fusion = !callers.is_empty()
                && callers
                    .iter()
                    .all(|site| module.instr(site.instr).opcode == Opcode::Fusion);
            !is_fusion
                && module.comp(comp).body().iter().any(|&instr| {
                    counter.is_supported_async_start(module, instr)
                        || counter.is_supported_async_done(module, instr)
                        || graph::has_force_delay_hint(module, instr)
                })
        })
        .collect()
}

/// Top-down, a group made only of async starts and dones means nothing and
/// is dropped, and a done's group moves to its start when the start has
/// none (XLA's preparation for top-down scheduling).
fn prepare_groups_for_top_down(module: &mut Module) -> Result<(), PassError> {
    let comps: Vec<Comp> = module.computations().collect();
    for comp in comps {
        let mut by_annotation: std::collections::BTreeMap<
            scheduling_annotation::Annotation,
            Vec<Instr>,
        > = Default::default();
        for &instr in module.comp(comp).body() {
            if let Some(annotation) =
                scheduling_annotation::get(module.instr(instr)).map_err(PassError::new)?
            {
                by_annotation.entry(annotation).or_default().push(instr);
            }
        }
        for (annotation, members) in by_annotation {
            let mut editor = module.edit();
            let only_async = members.iter().all(|&instr| {
                matches!(
                    editor.data(instr).opcode,
                    Opcode::AsyncStart | Opcode::AsyncDone
                )
            });
            if only_async {
                for instr in members {
                    scheduling_annotation::remove(&mut editor.data_mut(instr));
                }
                continue;
            }
            for instr in members {
                if editor.data(instr).opcode != Opcode::AsyncDone {
                    continue;
                }
                let start =
                    weft_ir::async_chain::ChainTracer::new(editor.module()).chain_start(instr);
                if let Some(start) = start
                    && scheduling_annotation::get(editor.data(start))
                        .map_err(PassError::new)?
                        .is_none()
                {
                    scheduling_annotation::set(&mut editor.data_mut(start), annotation);
                    scheduling_annotation::remove(&mut editor.data_mut(instr));
                }
            }
        }
    }
    Ok(())
}

/// The estimator `config` names, its cost model loaded for `analytic`.
fn make_estimator(config: &SchedulerConfig) -> Result<Estimator, PassError> {
    if config.estimator != EstimatorKind::Analytic {
        return Ok(Estimator::new(config.estimator, None));
    }
    let (profile, _) = weft_cost::Profile::resolve(Some(&config.profile))
        .map_err(|message| PassError::new(format!("{NAME}: {message}")))?;
    let topology = match &config.topology {
        Some(text) => weft_cost::Topology::parse(text, weft_cost::Link::default())
            .map_err(|error| PassError::new(format!("{NAME}: the topology: {error}")))?,
        None => profile
            .topology()
            .unwrap_or_else(|| weft_cost::Topology::flat(weft_cost::Link::default())),
    };
    let selection = config
        .collective_algorithm
        .parse()
        .map_err(|message: String| PassError::new(format!("{NAME}: {message}")))?;
    let interconnect = weft_cost::Interconnect {
        topology,
        selection,
    };
    Ok(Estimator::new(
        EstimatorKind::Analytic,
        Some(estimator::Analytic::new(profile, interconnect)),
    ))
}

/// One run of XLA's algorithm on `comp` from `base` under `config`.
#[allow(clippy::too_many_arguments)]
fn schedule_once(
    module: &Module,
    comp: Comp,
    base: &[Instr],
    config: &SchedulerConfig,
    estimator: &Estimator,
    dataflow: &Dataflow,
    aliases: &Aliases,
    counter: &mut ResourceCounter<'_>,
) -> Result<state::ComputationSchedule, PassError> {
    let memory = ModuleMemory::new(module, dataflow, aliases, config.top_down_scheduling);
    let graph_inputs = GraphInputs {
        estimator,
        dataflow,
        aliases,
    };
    let pin = config.pin_written_order || weft_ir::pinned_order::is_pinned(module, comp);
    let mut graph = ScheduleGraph::build(
        module,
        base,
        &graph_inputs,
        counter,
        config.top_down_scheduling,
        pin,
    );
    graph.analyse();
    let inputs = Inputs {
        module,
        config,
        estimator,
        memory: &memory,
    };
    schedule_computation(&inputs, comp, graph, counter)
}

/// Whether `order` lists every instruction after its operands and control
/// predecessors.
fn is_topological(module: &Module, order: &[Instr]) -> bool {
    let position: rustc_hash::FxHashMap<Instr, usize> =
        order.iter().enumerate().map(|(at, &i)| (i, at)).collect();
    order.iter().enumerate().all(|(at, &instr)| {
        let data = module.instr(instr);
        data.operands
            .iter()
            .chain(data.control_predecessors())
            .all(|other| position.get(other).is_none_or(|&p| p < at))
    })
}

/// The configurations and starting orders weft's default tries besides
/// the one asked for (see [`refine`](SchedulerConfig::refine)).
fn candidates(
    module: &Module,
    comp: Comp,
    base: &[Instr],
    config: &SchedulerConfig,
) -> Vec<(SchedulerConfig, Vec<Instr>, &'static str)> {
    let mut found = vec![(config.clone(), base.to_vec(), "as configured")];
    let written = module.comp(comp).body().to_vec();
    let mut bases = vec![(base.to_vec(), "")];
    if written != base && written.len() == base.len() && is_topological(module, &written) {
        bases.push((written, ", from the written order"));
    }
    // One async stream runs transfers back to back, so more of them may be
    // queued than XLA's limits of one allow.
    let raise = |c: &mut SchedulerConfig| {
        for limit in [
            &mut c.collective_broadcast_overlap_limit,
            &mut c.collective_permute_overlap_limit,
            &mut c.all_to_all_overlap_limit,
            &mut c.ragged_all_to_all_overlap_limit,
            &mut c.all_gather_overlap_limit,
            &mut c.all_reduce_overlap_limit,
            &mut c.reduce_scatter_overlap_limit,
            &mut c.send_recv_overlap_limit,
            &mut c.copy_overlap_limit,
        ] {
            *limit = (*limit).max(QUEUED_TRANSFERS);
        }
    };
    let large = base.len() > LARGE_COMPUTATION;
    for (order, from) in &bases {
        for (raised, aggressive, top_down) in [
            (false, false, false),
            (true, false, false),
            (false, true, false),
            (true, true, false),
            (true, false, true),
        ] {
            if large && (aggressive || top_down) {
                continue;
            }
            let mut candidate = config.clone();
            if raised {
                raise(&mut candidate);
            }
            candidate.aggressive_scheduling_policies |= aggressive;
            candidate.top_down_scheduling |= top_down;
            let label = match (raised, aggressive, top_down) {
                (false, false, false) => "as configured",
                (true, false, false) => "transfers queued",
                (false, true, false) => "aggressive",
                (true, true, false) => "transfers queued, aggressive",
                _ => "transfers queued, top-down",
            };
            if candidate == *config && order == base {
                continue;
            }
            let label: &'static str = match (label, from.is_empty()) {
                (label, true) => label,
                ("as configured", false) => "as configured, from the written order",
                ("transfers queued", false) => "transfers queued, from the written order",
                ("aggressive", false) => "aggressive, from the written order",
                ("transfers queued, aggressive", false) => {
                    "transfers queued, aggressive, from the written order"
                }
                _ => "transfers queued, top-down, from the written order",
            };
            found.push((candidate, order.clone(), label));
        }
    }
    found
}

/// How many transfers weft's default lets queue on the async stream.
const QUEUED_TRANSFERS: i64 = 8;

/// Above this many instructions, weft's default tries fewer candidates.
const LARGE_COMPUTATION: usize = 20_000;

/// The peak weft's default may reach: 1.2 times the starting schedule's
/// (a memory-minimising one, in the async pipeline), or the memory limit
/// when that allows more.
fn memory_bound(config: &SchedulerConfig, base_peak: i64) -> i64 {
    let relative = base_peak.saturating_mul(6) / 5;
    match config.memory_limit {
        Some(limit) => relative.max(i64::try_from(limit).unwrap_or(i64::MAX)),
        None => relative,
    }
}

fn schedule_all(
    module: &mut Module,
    config: &SchedulerConfig,
    comps: &[Comp],
    dataflow: &Dataflow,
    aliases: &Aliases,
    report: &mut Report,
) -> Result<(), PassError> {
    let estimator = make_estimator(config)?;
    let mut counter = ResourceCounter::new(config);
    report.computations.clear();
    report.remarks.clear();
    for &comp in comps {
        let base = module
            .schedule()
            .sequence(comp)
            .map(<[Instr]>::to_vec)
            .ok_or_else(|| {
                PassError::new(format!(
                    "computation '{}' has no schedule",
                    module.comp(comp).name
                ))
                .with_hint("the latency-hiding scheduler refines a schedule: run hlo-memory-scheduler first")
            })?;
        let module_view: &Module = module;
        let mut outcome = schedule_once(
            module_view,
            comp,
            &base,
            config,
            &estimator,
            dataflow,
            aliases,
            &mut counter,
        )?;
        let mut choice = String::new();
        if config.refine() {
            // Weft's default: XLA's algorithm under several configurations
            // and from both starting orders, the fastest on the runtime's
            // streams kept, memory within bounds. The configured run is one
            // of the candidates, so the choice is never slower than it.
            let yardstick = ModuleMemory::new(module_view, dataflow, aliases, false);
            let bound = memory_bound(config, yardstick.sequence_peak(comp, &base));
            let mut best_time =
                timeline::estimate(module_view, &outcome.sequence, &estimator, &counter);
            let mut best_peak = yardstick.sequence_peak(comp, &outcome.sequence);
            let configured_time = best_time;
            let mut best_label = "as configured".to_string();
            let mut pending: Vec<(SchedulerConfig, Vec<Instr>, String)> =
                candidates(module_view, comp, &base, config)
                    .into_iter()
                    .skip(1)
                    .map(|(c, o, l)| (c, o, l.to_string()))
                    .collect();
            for round in 0..2 {
                for (candidate, order, label) in std::mem::take(&mut pending) {
                    let mut candidate_counter = ResourceCounter::new(&candidate);
                    let Ok(tried) = schedule_once(
                        module_view,
                        comp,
                        &order,
                        &candidate,
                        &estimator,
                        dataflow,
                        aliases,
                        &mut candidate_counter,
                    ) else {
                        continue;
                    };
                    let time =
                        timeline::estimate(module_view, &tried.sequence, &estimator, &counter);
                    let peak = yardstick.sequence_peak(comp, &tried.sequence);
                    let fits = peak <= bound;
                    let best_fits = best_peak <= bound;
                    let better = match (fits, best_fits) {
                        (true, false) => true,
                        (false, true) => false,
                        (true, true) => time < best_time * (1.0 - 1e-9),
                        (false, false) => peak < best_peak,
                    };
                    if better {
                        best_time = time;
                        best_peak = peak;
                        best_label = label;
                        outcome = tried;
                    }
                }
                if best_peak <= bound || round == 1 {
                    break;
                }
                // Nothing fits: one collective of a kind at a time, and the
                // candidates again, now under XLA's memory-pressure rules
                // with the bound as the memory limit.
                let limit = u64::try_from(bound).unwrap_or(u64::MAX);
                let mut one_at_a_time = config.clone();
                for overlap in [
                    &mut one_at_a_time.collective_broadcast_overlap_limit,
                    &mut one_at_a_time.collective_permute_overlap_limit,
                    &mut one_at_a_time.all_to_all_overlap_limit,
                    &mut one_at_a_time.ragged_all_to_all_overlap_limit,
                    &mut one_at_a_time.all_gather_overlap_limit,
                    &mut one_at_a_time.all_reduce_overlap_limit,
                    &mut one_at_a_time.reduce_scatter_overlap_limit,
                    &mut one_at_a_time.copy_overlap_limit,
                ] {
                    *overlap = 1;
                }
                for (candidate, order, label) in
                    std::iter::once((one_at_a_time, base.clone(), "one at a time"))
                        .chain(candidates(module_view, comp, &base, config))
                {
                    let mut candidate = candidate;
                    candidate.memory_limit = Some(
                        candidate
                            .memory_limit
                            .map_or(limit, |given| given.min(limit)),
                    );
                    pending.push((candidate, order, format!("{label}, memory-limited")));
                }
            }
            let unit = if estimator.is_analytic() {
                " us"
            } else {
                " units"
            };
            choice = format!(
                "  chosen: {best_label}: {best_time:.3}{unit} on the runtime's streams (as configured: {configured_time:.3}{unit}), peak {best_peak} bytes (bound {bound})"
            );
        }
        module.schedule_mut().set_sequence(comp, outcome.sequence);
        counter.invalidate(comp);
        report.remarks.extend(explain_computation(
            module,
            comp,
            &outcome.placements,
            &estimator,
            &counter,
            outcome.estimated_time,
        ));
        if !choice.is_empty() {
            report.remarks.push(choice);
        }
        report.computations.push((comp, outcome.placements));
    }
    let memory = ModuleMemory::new(module, dataflow, aliases, config.top_down_scheduling);
    report.peak_bytes = memory.peak();
    Ok(())
}

/// Schedules `module` under `config` (see the module docs); the report says
/// why each async op went where it did.
pub fn latency_hiding_scheduler(
    module: &mut Module,
    config: &SchedulerConfig,
) -> Result<Option<Report>, PassError> {
    if !module.is_scheduled() {
        return Err(PassError::new("the module is not scheduled").with_hint(
            "the latency-hiding scheduler refines a schedule: run hlo-memory-scheduler first",
        ));
    }
    let comps = {
        let counter = ResourceCounter::new(config);
        computations_to_schedule(module, &counter)
    };
    if comps.is_empty() {
        return Ok(None);
    }
    if config.top_down_scheduling {
        prepare_groups_for_top_down(module)?;
    }
    for &comp in &comps {
        for &instr in module.comp(comp).body() {
            scheduling_annotation::get(module.instr(instr)).map_err(PassError::new)?;
        }
    }
    let dataflow = Dataflow::of(module);
    let aliases = Aliases::of(module, &dataflow);
    let mut report = Report::default();
    schedule_all(module, config, &comps, &dataflow, &aliases, &mut report)?;
    if let Some(limit) = config.memory_limit {
        let mut lowered = config.clone();
        let mut iteration = 0;
        while iteration < config.rerun && report.peak_bytes > limit as i64 {
            lowered.memory_limit = lowered.memory_limit.map(|l| (l as f64 * 0.9) as u64);
            schedule_all(module, &lowered, &comps, &dataflow, &aliases, &mut report)?;
            iteration += 1;
        }
    }
    Ok(Some(report))
}

struct LatencyHidingScheduler {
    config: SchedulerConfig,
}

impl Pass for LatencyHidingScheduler {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        Ok(latency_hiding_scheduler(module, &self.config)?.is_some())
    }

    fn run_explained(&self, module: &mut Module) -> Result<(bool, Vec<String>), PassError> {
        Ok(match latency_hiding_scheduler(module, &self.config)? {
            Some(report) => {
                let mut remarks = report.remarks;
                remarks.push(format!(
                    "peak memory of the rescheduled computations: {} bytes",
                    report.peak_bytes
                ));
                (true, remarks)
            }
            None => (
                false,
                vec!["nothing to schedule: no async op the scheduler moves".into()],
            ),
        })
    }
}

/// Makes the pass from checked options.
pub fn make(options: &Options) -> Box<dyn Pass> {
    Box::new(LatencyHidingScheduler {
        config: SchedulerConfig::from_options(options),
    })
}

#[cfg(test)]
mod tests;

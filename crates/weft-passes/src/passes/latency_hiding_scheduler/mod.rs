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
//! the pass also reproduces XLA's schedules outside XLA. By default it goes
//! further ([`refine`]): the algorithm runs under several configurations
//! and starting orders, each result is priced on the runtime's streams
//! ([`timeline`]), and the fastest that keeps memory within bounds is kept.
//! [`explain`] says where each async op went and why.
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
pub mod explain;
pub mod graph;
pub mod memory;
pub mod ready_set;
pub mod refine;
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

/// The module's buffers twice: as they are (memory is counted on these),
/// and as copy insertion would leave them ([`Aliases::in_place_only`]), for
/// `assume_copy_insertion`'s buffer edges.
pub struct Buffers {
    /// Every sharing, loop state included.
    pub all: Aliases,
    /// Only the sharing instructions ask for.
    pub in_place: Aliases,
}

/// One run of XLA's algorithm on `comp` from `base` under `config`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn schedule_once(
    module: &Module,
    comp: Comp,
    base: &[Instr],
    config: &SchedulerConfig,
    estimator: &Estimator,
    dataflow: &Dataflow,
    buffers: &Buffers,
    memories: &memory::Memories<'_>,
    counter: &mut ResourceCounter<'_>,
) -> Result<state::ComputationSchedule, PassError> {
    let memory = memories.walking(config.top_down_scheduling);
    let graph_inputs = GraphInputs {
        estimator,
        dataflow,
        aliases: if config.assume_copy_insertion {
            &buffers.in_place
        } else {
            &buffers.all
        },
        copies_assumed: config.assume_copy_insertion,
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
        memory,
    };
    schedule_computation(&inputs, comp, graph, counter)
}

fn schedule_all(
    module: &mut Module,
    config: &SchedulerConfig,
    comps: &[Comp],
    dataflow: &Dataflow,
    buffers: &Buffers,
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
        let memories = memory::Memories::new(module_view, dataflow, &buffers.all);
        let mut outcome = schedule_once(
            module_view,
            comp,
            &base,
            config,
            &estimator,
            dataflow,
            buffers,
            &memories,
            &mut counter,
        )?;
        let mut choice = String::new();
        if config.refine() {
            let refined = refine::choose(
                module_view,
                comp,
                &base,
                config,
                outcome,
                &refine::Context {
                    estimator: &estimator,
                    dataflow,
                    buffers,
                    memories: &memories,
                    counter: &counter,
                },
            );
            outcome = refined.outcome;
            choice = refined.remark;
        }
        module.schedule_mut().set_sequence(comp, outcome.sequence);
        counter.invalidate(comp);
        report.remarks.extend(explain::computation(
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
    let memory = ModuleMemory::new(module, dataflow, &buffers.all, config.top_down_scheduling);
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
    let buffers = Buffers {
        all: Aliases::of(module, &dataflow),
        in_place: Aliases::in_place_only(module, &dataflow),
    };
    let mut report = Report::default();
    schedule_all(module, config, &comps, &dataflow, &buffers, &mut report)?;
    if let Some(limit) = config.memory_limit {
        let mut lowered = config.clone();
        let mut iteration = 0;
        while iteration < config.rerun && report.peak_bytes > limit as i64 {
            lowered.memory_limit = lowered.memory_limit.map(|l| (l as f64 * 0.9) as u64);
            schedule_all(module, &lowered, &comps, &dataflow, &buffers, &mut report)?;
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

//! `hlo-memory-scheduler` (XLA's `HloMemoryScheduler`): give every
//! computation an execution order that keeps peak memory low.
//!
//! **Problem.** An unscheduled module only says what depends on what; any
//! order that runs operands first computes the same values, but the bytes
//! live at once differ from order to order — a value stays allocated from
//! its definition to its last use, so running a consumer early frees its
//! operands early. Later passes (the latency-hiding scheduler, copy
//! insertion, buffer assignment) need one fixed order, and a good one.
//!
//! **Algorithm.** Each computation but fusion bodies (which are part of
//! their fusion and run as one instruction) is ordered by one of XLA's
//! algorithms, chosen by `algorithm`:
//! - `list` (`list.rs`): greedy; of the ready instructions, the one that frees
//!   the most bytes net of what it allocates runs next;
//! - `dfs` (`dfs.rs`): depth-first from the root, visiting first the operands
//!   with the widest fan-out and the most bytes behind them;
//! - `post-order`: XLA's plain instruction post-order, the order an
//!   unscheduled module prints in;
//! - `bfs` (`breadth_first.rs`): breadth-first waves, for concurrency rather
//!   than memory;
//! - `default` (XLA's `DefaultMemoryScheduler`): runs `list`, `dfs` and
//!   `post-order` over the whole module and keeps the schedule whose peak
//!   memory is lowest, preferring them in that order on a tie.
//!
//! Memory is counted as XLA's schedulers count it
//! ([`crate::analysis::buffer_uses`]): per dataflow value, at its shape's
//! bytes (8 bytes per tuple element), parameters and constants free. The
//! peak that decides between schedules is the whole program's, with each
//! loop body, branch and called computation flattened in at its call site
//! ([`crate::analysis::live_range`], as XLA's heap simulator runs over the
//! module), so a callee's temporaries count where it is called.
//!
//! **Invariants.** Before: a module that verifies, scheduled or not (a
//! schedule it has is replaced, as XLA replaces it). After: the module is in
//! the scheduled phase; every computation but fusion bodies has a sequence
//! listing each of its instructions once, after its operands and control
//! predecessors — so an async start comes before its updates and its done,
//! which read it. Nothing else changes: no instruction is added, removed
//! or edited.
//!
//! ```text
//! before                                  after (default: the DFS order has the lowest peak)
//!   %p = f32[42] parameter(0)               %p = f32[42] parameter(0)
//!   %ab = f32[42] abs(%p)                   %exp = f32[42] exponential(%p)
//!   %exp = f32[42] exponential(%p)          %ab = f32[42] abs(%p)
//!   %neg = f32[42] negate(%exp)             %add = f32[42] add(%ab, %exp)   (%ab's last use)
//!   %add = f32[42] add(%ab, %exp)           %neg = f32[42] negate(%exp)
//!   ROOT %sub = … subtract(%add, %neg)      ROOT %sub = … subtract(%add, %neg)
//! ```

mod breadth_first;
mod dependencies;
mod dfs;
mod list;

use rustc_hash::FxHashSet;
use weft_ir::{Comp, Instr, Module, Opcode, Phase};

use crate::analysis::alias::Aliases;
use crate::analysis::buffer_uses::BufferUses;
use crate::analysis::dataflow::Dataflow;
use crate::analysis::live_range::LiveRanges;
use crate::pass::{OptionKind, OptionSpec, Options, Pass, PassError};
use dependencies::Dependencies;

/// The pass's name.
pub const NAME: &str = "hlo-memory-scheduler";

/// The algorithms `algorithm` takes, by name.
const ALGORITHMS: &[&str] = &["default", "list", "dfs", "post-order", "bfs"];

/// Its options.
pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "algorithm",
    kind: OptionKind::Choice(ALGORITHMS),
    default: "default",
    doc: "default (list, dfs and post-order, keeping the lowest peak), list, dfs, post-order or bfs",
}];

/// How to order each computation (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// XLA's `DefaultMemoryScheduler`: the best of list, DFS and post-order.
    Default,
    /// XLA's `ListMemoryScheduler`.
    List,
    /// XLA's `DFSMemoryScheduler`.
    Dfs,
    /// XLA's `PostOrderScheduler`.
    PostOrder,
    /// XLA's `BFScheduler`.
    BreadthFirst,
}

impl Algorithm {
    /// The algorithm an `algorithm` option names.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Some(match name {
            "default" => Algorithm::Default,
            "list" => Algorithm::List,
            "dfs" => Algorithm::Dfs,
            "post-order" => Algorithm::PostOrder,
            "bfs" => Algorithm::BreadthFirst,
            _ => return None,
        })
    }
}

/// A sequence for each scheduled computation.
type ModuleSchedule = Vec<(Comp, Vec<Instr>)>;

/// Schedules every computation of `module` but fusion bodies with
/// `algorithm`, replacing any schedule it had, and moves it to the
/// scheduled phase. Returns the peak memory of the schedule chosen, in
/// bytes, when the algorithm measured it (only `default` does).
pub fn schedule_module(
    module: &mut Module,
    algorithm: Algorithm,
) -> Result<Option<u64>, PassError> {
    let flow = Dataflow::of(module);
    let computations = scheduled_computations(module);
    let (schedule, peak) = match algorithm {
        Algorithm::Default => {
            let aliases = Aliases::of(module, &flow);
            let mut best: Option<(u64, ModuleSchedule)> = None;
            // List first, then DFS, then post-order: on a tie the earlier
            // one stays, as XLA prefers them.
            for candidate in [Algorithm::List, Algorithm::Dfs, Algorithm::PostOrder] {
                let schedule = schedule_with(module, &flow, &computations, candidate)?;
                install(module, &schedule);
                let peak = peak_bytes(module, &flow, &aliases);
                if best.as_ref().is_none_or(|(lowest, _)| peak < *lowest) {
                    best = Some((peak, schedule));
                }
            }
            let (peak, schedule) = best.expect("three candidates");
            (schedule, Some(peak))
        }
        _ => (
            schedule_with(module, &flow, &computations, algorithm)?,
            None,
        ),
    };
    install(module, &schedule);
    module
        .advance_phase(Phase::Scheduled)
        .map_err(PassError::new)?;
    Ok(peak)
}

/// The peak memory of `module` under its current order, in bytes: every
/// buffer's live range over the flattened program (see
/// [`crate::analysis::live_range`]).
pub fn peak_bytes(module: &Module, flow: &Dataflow, aliases: &Aliases) -> u64 {
    LiveRanges::of(module, flow, aliases)
        .memory(aliases)
        .peak_bytes
}

/// The computations XLA schedules: all but fusion bodies, in text order.
pub(crate) fn scheduled_computations(module: &Module) -> Vec<Comp> {
    let fusion_bodies: FxHashSet<Comp> = module
        .all_instrs()
        .filter(|&instr| module.instr(instr).opcode == Opcode::Fusion)
        .flat_map(|instr| module.instr(instr).callees.iter().copied())
        .collect();
    module
        .computations()
        .filter(|comp| !fusion_bodies.contains(comp))
        .collect()
}

/// The order XLA's `HloComputation::Accept` visits `comp` in (depth-first
/// from the unreachable roots, then the root; operands left to right), or
/// `None` when its dependencies form a cycle. The trivial scheduler's order.
pub(crate) fn accept_order(module: &Module, comp: Comp) -> Option<Vec<Instr>> {
    dfs::walk_from_roots(&Dependencies::of(module, comp), None)
}

/// One sequence per computation, by `algorithm` (not `Default`).
fn schedule_with(
    module: &Module,
    flow: &Dataflow,
    computations: &[Comp],
    algorithm: Algorithm,
) -> Result<ModuleSchedule, PassError> {
    let mut schedule = Vec::with_capacity(computations.len());
    for &comp in computations {
        let graph = Dependencies::of(module, comp);
        let order = match algorithm {
            Algorithm::List => {
                list::list_order(module, &graph, &BufferUses::of(module, flow, comp))
            }
            Algorithm::Dfs => dfs::dfs_order(module, &graph, &BufferUses::of(module, flow, comp)),
            Algorithm::PostOrder => Some(weft_ir::order::post_order(module, comp)),
            Algorithm::BreadthFirst => breadth_first::breadth_first_order(&graph),
            Algorithm::Default => unreachable!("the default runs the others"),
        };
        let Some(order) = order else {
            return Err(PassError::new(format!(
                "the operands and control predecessors of %{} form a cycle, so it has no schedule",
                module.comp(comp).name
            )));
        };
        schedule.push((comp, order));
    }
    Ok(schedule)
}

/// Makes `schedule` the module's whole schedule (XLA's `set_schedule`).
fn install(module: &mut Module, schedule: &ModuleSchedule) {
    let old: Vec<Comp> = module.schedule().computations().collect();
    let table = module.schedule_mut();
    for comp in old {
        table.remove_sequence(comp);
    }
    for (comp, sequence) in schedule {
        table.set_sequence(*comp, sequence.clone());
    }
}

/// The pass: [`schedule_module`] with one algorithm.
struct HloMemoryScheduler {
    algorithm: Algorithm,
}

impl Pass for HloMemoryScheduler {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        schedule_module(module, self.algorithm)?;
        // As XLA: a new schedule always counts as a change.
        Ok(true)
    }
}

pub(crate) fn make(options: &Options) -> Box<dyn Pass> {
    let algorithm =
        Algorithm::from_name(options.word("algorithm", "default")).unwrap_or(Algorithm::Default);
    Box::new(HloMemoryScheduler { algorithm })
}

#[cfg(test)]
mod tests;

//! Simulation: a program's timeline on a grid of devices under virtual
//! timing, without computing a value — the figures `weft run --timing
//! virtual` reports, for thousands of devices in seconds.
//!
//! What runs: the module's entry on every device of the grid (SPMD), each
//! computation's instructions in the order a run takes them (the schedule's
//! sequences when the module is scheduled, else the text's order when it
//! defines operands before uses, else XLA's post-order:
//! `evaluate::execution_order`). Loops run their known trip count and
//! conditionals their slowest branch (`control.rs`); calls recurse; a fusion
//! is one kernel. Time follows the runtime's rules exactly (`machine.rs`):
//! the same costs, the same collective, permute and async-stream rules, the
//! same pricing seam for transfers. So on a program a run can run, both
//! give the same step time and the same figures per device, to the
//! nanosecond — apart from the points where a run's values decide
//! (a loop's real trip count, a conditional's real branch).
//!
//! Scale comes from [`classes`]: devices whose timelines must be the same
//! form an equivalence class, refined from the collectives' groups and the
//! transfer each group costs, and each class is simulated once. A symmetric
//! SPMD program on the flat link is one class however many devices run it.
//!
//! Invariants: every device runs the same trace (no values); a class's
//! devices have identical timelines; the result holds one timeline per
//! class, which [`Simulation::device_timeline`] lends to each of its
//! devices. Nothing here panics on a module the verifier accepts; what a
//! simulation cannot model (send/recv, `interpreter.run_parallel`, a loop
//! with no known trip count) is an error at the instruction.

pub mod classes;
mod control;
mod machine;
mod plan;

use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashMap;
use weft_ir::opcode::Flags;
use weft_ir::{Comp, Instr, Module, Opcode};

pub use classes::{Classes, describe_devices};
pub use control::known_trip_count;
pub use plan::place as describe_place;

use crate::devices::Grid;
use crate::devices::timeline::{Detail, DeviceTimeline, Track};
use crate::evaluate::RunError;

/// An analysis giving a loop's trip count from its instructions, if it can.
pub type TripCountAnalysis = dyn Fn(&Module, Instr) -> Option<i64>;

/// How a simulation prices work and transfers, and what it keeps.
#[derive(Clone)]
pub struct SimulateOptions<'a> {
    /// The grid: replicas × partitions.
    pub grid: Grid,
    /// The device every instruction is charged on.
    pub profile: Arc<weft_cost::Profile>,
    /// The flat link, when there is no interconnect.
    pub link: weft_cost::Link,
    /// The topology and algorithm collectives are priced by, if any.
    pub interconnect: Option<Arc<weft_cost::Interconnect>>,
    /// How much of each class's timeline is kept beyond its sums.
    pub detail: Detail,
    /// A loop's trip count when its `backend_config` records none: the
    /// caller's analysis (weft-passes' `while_loop::trip_count`, which this
    /// crate does not depend on, so the runtime stays apart from the
    /// compiler).
    pub trip_count: Option<&'a TripCountAnalysis>,
    /// The trip count of every loop neither gives.
    pub fallback_trip_count: Option<u64>,
}

/// A simulation's outcome.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// The devices' equivalence classes.
    pub classes: Classes,
    /// Each class's timeline (every device of the class has it).
    pub timelines: Vec<DeviceTimeline>,
    /// Each conditional the simulation met, with the branch it took.
    pub branches: Vec<(Instr, usize)>,
}

impl Simulation {
    /// The timeline of device `device` (flattened id): its class's.
    pub fn device_timeline(&self, device: usize) -> &DeviceTimeline {
        &self.timelines[self.classes.class_of[device]]
    }

    /// When the last device finished.
    pub fn step_time(&self) -> Duration {
        DeviceTimeline::step_time(&self.timelines)
    }
}

/// Simulates `module`'s entry on every device of `options.grid`.
pub fn simulate(module: &Module, options: &SimulateOptions<'_>) -> Result<Simulation, RunError> {
    let entry = module.entry.ok_or_else(|| RunError {
        instruction: None,
        instr: None,
        message: "the module has no entry computation".into(),
    })?;
    let grid = options.grid;
    if grid.is_empty() {
        return Err(RunError {
            instruction: None,
            instr: None,
            message: "a grid needs at least one device".into(),
        });
    }
    let pricing = plan::Pricing {
        link: options.link,
        interconnect: options.interconnect.as_deref(),
        profile: &options.profile,
    };
    let mut plans = FxHashMap::default();
    let mut collectives = Vec::new();
    for instr in reachable_collectives(module, entry) {
        plans.insert(instr, plan::plan(module, instr, grid, pricing)?);
        collectives.push(instr);
    }
    let ordered: Vec<&plan::Plan> = collectives.iter().map(|i| &plans[i]).collect();
    let classes = Classes::refine(grid.len(), &ordered);
    let mut machine = machine::Machine::new(
        module,
        &options.profile,
        control::Control::new(
            module,
            &options.profile,
            options.trip_count,
            options.fallback_trip_count,
        ),
        plans,
        &classes,
        options.detail,
    );
    let arguments = vec![machine::Carried::Nothing; module.comp(entry).params().len()];
    machine.run(entry, Track::Compute, arguments)?;
    machine.check_finished()?;
    let branches = machine.control.taken_branches();
    let timelines = std::mem::take(&mut machine.states)
        .into_iter()
        .map(|state| {
            let mut timeline = state.compute_timeline;
            timeline.finished = state.compute;
            timeline.join_stream(state.stream_timeline, state.compute, state.stream);
            timeline
        })
        .collect();
    drop(machine);
    Ok(Simulation {
        classes,
        timelines,
        branches,
    })
}

/// The collectives (and first-class collective starts) of every computation
/// the entry may run, in program order. Fusions, reducers and other
/// computations applied per element hold none.
fn reachable_collectives(module: &Module, entry: Comp) -> Vec<Instr> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![entry];
    let mut found = Vec::new();
    while let Some(comp) = stack.pop() {
        if !seen.insert(comp) {
            continue;
        }
        for &instr in module.comp(comp).body() {
            let data = module.instr(instr);
            // The opcode table marks first-class starts collective too.
            if data.opcode.has(Flags::COLLECTIVE) {
                found.push(instr);
            }
            if matches!(
                data.opcode,
                Opcode::While | Opcode::Conditional | Opcode::Call | Opcode::AsyncStart
            ) {
                stack.extend(data.callees.iter().copied());
            }
        }
    }
    found.sort_by_key(|&instr| Module::instr_index(instr));
    found
}

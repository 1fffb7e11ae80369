//! Control flow without values: how many times a `while` runs, and which
//! branch of a `conditional` is taken.
//!
//! - A loop runs its **known trip count**: the `known_trip_count` of its
//!   `backend_config` (XLA's `WhileLoopBackendConfig`, which
//!   `while-loop-trip-count-annotator` writes), else what the caller's
//!   analysis finds ([`super::SimulateOptions::trip_count`]; the CLI passes
//!   weft-passes' `while_loop::trip_count`, which this crate cannot depend
//!   on), else the caller's fallback count, else it is an error. As in a
//!   run, the condition runs once more than the body.
//! - A conditional takes its **slowest branch**, by the modelled time of
//!   its instructions alone (loops by their trip counts, nested
//!   conditionals by their slowest branch, collectives' own communication
//!   not counted): the selector is a value, which a simulation does not
//!   have, and the slowest branch bounds the step time from above. Every
//!   device takes the same branch, so a program whose devices branch on
//!   their partition id is simulated as if all took that one.

use std::time::Duration;

use rustc_hash::FxHashMap;
use weft_cost::Profile;
use weft_ir::{Comp, Instr, Module, Opcode};

use super::plan::place;
use crate::evaluate::RunError;

/// The trip count `backend_config={"known_trip_count":{"n":"10"}}` records.
pub fn known_trip_count(module: &Module, while_instr: Instr) -> Option<u64> {
    let config = module.instr(while_instr).common().backend_config.as_ref()?;
    let json: serde_json::Value = serde_json::from_str(&config.0).ok()?;
    let n = json.get("known_trip_count")?.get("n")?;
    match n {
        serde_json::Value::String(text) => text.trim().parse().ok(),
        serde_json::Value::Number(number) => number.as_u64(),
        _ => None,
    }
}

/// Decides loops and branches for one simulation, remembering each answer.
pub(super) struct Control<'m, 'o> {
    module: &'m Module,
    profile: &'o Profile,
    analysis: Option<&'o super::TripCountAnalysis>,
    fallback: Option<u64>,
    trips: FxHashMap<Instr, u64>,
    branches: FxHashMap<Instr, usize>,
    times: FxHashMap<Comp, Duration>,
}

impl<'m, 'o> Control<'m, 'o> {
    pub(super) fn new(
        module: &'m Module,
        profile: &'o Profile,
        analysis: Option<&'o super::TripCountAnalysis>,
        fallback: Option<u64>,
    ) -> Control<'m, 'o> {
        Control {
            module,
            profile,
            analysis,
            fallback,
            trips: FxHashMap::default(),
            branches: FxHashMap::default(),
            times: FxHashMap::default(),
        }
    }

    /// How many times the body of `while_instr` runs.
    pub(super) fn trip_count(&mut self, while_instr: Instr) -> Result<u64, RunError> {
        if let Some(&count) = self.trips.get(&while_instr) {
            return Ok(count);
        }
        let count = known_trip_count(self.module, while_instr)
            .or_else(|| {
                self.analysis
                    .and_then(|analysis| analysis(self.module, while_instr))
                    .map(|count| count.max(0) as u64)
            })
            .or(self.fallback)
            .ok_or_else(|| RunError {
                instruction: Some(place(self.module, while_instr)),
                instr: Some(while_instr),
                message: "a simulation runs no values, so it needs this loop's trip count, and neither its backend_config (known_trip_count) nor its condition (a counted loop: a constant start, step and bound) gives one; give --trip-count N".into(),
            })?;
        self.trips.insert(while_instr, count);
        Ok(count)
    }

    /// Which branch of `conditional` a simulation takes: the slowest (the
    /// first of equals).
    pub(super) fn branch(&mut self, conditional: Instr) -> Result<usize, RunError> {
        if let Some(&branch) = self.branches.get(&conditional) {
            return Ok(branch);
        }
        let branches = self.module.instr(conditional).callees.clone();
        let mut slowest = (0, Duration::ZERO);
        for (index, &branch) in branches.iter().enumerate() {
            let time = self.time(branch, 0)?;
            if time > slowest.1 {
                slowest = (index, time);
            }
        }
        self.branches.insert(conditional, slowest.0);
        Ok(slowest.0)
    }

    /// Every conditional decided so far, with its branch, in program order.
    pub(super) fn taken_branches(&self) -> Vec<(Instr, usize)> {
        let mut taken: Vec<(Instr, usize)> = self.branches.iter().map(|(&i, &b)| (i, b)).collect();
        taken.sort_by_key(|&(instr, _)| Module::instr_index(instr));
        taken
    }

    /// The modelled time of `comp`'s instructions, run once.
    fn time(&mut self, comp: Comp, depth: usize) -> Result<Duration, RunError> {
        if let Some(&time) = self.times.get(&comp) {
            return Ok(time);
        }
        if depth >= weft_ir::MAX_CALL_DEPTH {
            return Ok(Duration::ZERO);
        }
        let mut total = Duration::ZERO;
        for &instr in self.module.comp(comp).body() {
            let data = self.module.instr(instr);
            let own = self.profile.time(&weft_cost::work::of(self.module, instr));
            let called = match data.opcode {
                Opcode::While => {
                    let trips = self.trip_count(instr)?;
                    let body = data.callees.first().copied();
                    let condition = data.callees.get(1).copied();
                    let body = match body {
                        Some(body) => self.time(body, depth + 1)?,
                        None => Duration::ZERO,
                    };
                    let condition = match condition {
                        Some(condition) => self.time(condition, depth + 1)?,
                        None => Duration::ZERO,
                    };
                    body.saturating_mul(trips.min(u32::MAX as u64) as u32)
                        .saturating_add(
                            condition.saturating_mul((trips + 1).min(u32::MAX as u64) as u32),
                        )
                }
                Opcode::Conditional => {
                    let branch = self.branch(instr)?;
                    match data.callees.get(branch) {
                        Some(&callee) => self.time(callee, depth + 1)?,
                        None => Duration::ZERO,
                    }
                }
                Opcode::Call | Opcode::AsyncStart => match data.callees.first() {
                    Some(&callee) => self.time(callee, depth + 1)?,
                    None => Duration::ZERO,
                },
                _ => Duration::ZERO,
            };
            total = total.saturating_add(own).saturating_add(called);
        }
        self.times.insert(comp, total);
        Ok(total)
    }
}

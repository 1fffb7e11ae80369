//! weft's default: XLA's algorithm, several ways, the best kept.
//!
//! XLA's latency-hiding scheduler is a greedy list scheduler: one walk,
//! one configuration, decisions no later step revisits. Its users report
//! what that costs (collectives left next to their consumers, peak memory
//! multiplied when layers are unrolled). weft keeps XLA's algorithm — so its
//! decisions can be reproduced and explained — and searches over the
//! choices XLA leaves to the user:
//!
//! - the configuration: as given; with transfers allowed to queue on the
//!   async stream (one stream runs them back to back, so more than XLA's
//!   one-at-a-time may be in flight); with the aggressive policies; top-down;
//! - the starting order: the schedule given (usually a memory-minimising
//!   one) and, when it differs and is valid, the order the program was
//!   written in, whose ties the walk then breaks the writer's way.
//!
//! Each candidate is priced on the runtime's compute and async streams
//! ([`timeline`]) and its peak measured with the
//! scheduler's memory model. The fastest whose peak stays within
//! [`memory_bound`] is kept; if none fits, the candidates run again under
//! XLA's memory-pressure rules with the bound as memory limit, with one
//! collective of a kind at a time added, and the lowest peak wins if
//! still none fits.
//!
//! Invariant: the configured run is a candidate, so the choice is never
//! slower on the streams than XLA's algorithm as configured, unless that
//! run alone breaks the memory bound.

use weft_ir::{Comp, Instr, Module};

use super::config::SchedulerConfig;
use super::estimator::Estimator;
use super::resources::ResourceCounter;
use super::state::ComputationSchedule;
use super::{schedule_once, timeline};
use crate::analysis::dataflow::Dataflow;

/// How many transfers weft's default lets queue on the async stream.
const QUEUED_TRANSFERS: i64 = 8;

/// At most this many pairs are tried synchronous per candidate (each try
/// prices the whole sequence).
const MOST_SYNC_ATTEMPTS: usize = 32;

/// Above this many instructions, weft's default tries fewer candidates.
const LARGE_COMPUTATION: usize = 20_000;

/// What the search reads besides the computation.
pub struct Context<'a> {
    /// The estimator every candidate is priced with.
    pub estimator: &'a Estimator,
    /// The module's dataflow.
    pub dataflow: &'a Dataflow,
    /// The module's buffers.
    pub buffers: &'a super::Buffers,
    /// The memory model every candidate counts with.
    pub memories: &'a super::memory::Memories<'a>,
    /// Which async ops the scheduler moves (as configured).
    pub counter: &'a ResourceCounter<'a>,
}

/// The schedule kept, and a line saying which and why.
pub struct Refined {
    /// The schedule kept.
    pub outcome: ComputationSchedule,
    /// `chosen: …` for `--explain`.
    pub remark: String,
}

/// The peak weft's default may reach: 1.2 times the starting schedule's
/// (a memory-minimising one, in the async pipeline), or the memory limit
/// when that allows more.
pub fn memory_bound(config: &SchedulerConfig, base_peak: i64) -> i64 {
    let relative = base_peak.saturating_mul(6) / 5;
    match config.memory_limit {
        Some(limit) => relative.max(i64::try_from(limit).unwrap_or(i64::MAX)),
        None => relative,
    }
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
) -> Vec<(SchedulerConfig, Vec<Instr>, String)> {
    let mut found = vec![(config.clone(), base.to_vec(), "as configured".to_string())];
    let written = module.comp(comp).body().to_vec();
    let mut bases = vec![(base.to_vec(), "")];
    if written != base && written.len() == base.len() && is_topological(module, &written) {
        bases.push((written, ", from the written order"));
    }
    // One async stream runs transfers back to back, so more of them may be
    // queued than XLA's limits of one allow.
    let raise = |c: &mut SchedulerConfig| {
        for limit in c.collective_overlap_limits_mut() {
            *limit = (*limit).max(QUEUED_TRANSFERS);
        }
        c.send_recv_overlap_limit = c.send_recv_overlap_limit.max(QUEUED_TRANSFERS);
    };
    let large = base.len() > LARGE_COMPUTATION;
    // Contention only means something to the analytic estimator.
    let contention =
        config.estimator == super::config::EstimatorKind::Analytic && !config.contention_aware;
    for (order, from) in &bases {
        for (raised, aggressive, top_down, avoid_contention) in [
            (false, false, false, false),
            (true, false, false, false),
            (false, true, false, false),
            (true, true, false, false),
            (true, false, true, false),
            (false, false, false, true),
            (true, false, false, true),
        ] {
            for copies in [false, true] {
                // A large computation tries the variants that matter most: queued
                // transfers and copied loop state.
                if (large && (aggressive || top_down || avoid_contention))
                    || (avoid_contention && !contention)
                {
                    continue;
                }
                let mut candidate = config.clone();
                if raised {
                    raise(&mut candidate);
                }
                candidate.aggressive_scheduling_policies |= aggressive;
                candidate.top_down_scheduling |= top_down;
                candidate.contention_aware |= avoid_contention;
                candidate.assume_copy_insertion |= copies;
                if candidate == *config && order == base {
                    continue;
                }
                let mut parts: Vec<&str> = Vec::new();
                for (on, part) in [
                    (raised, "transfers queued"),
                    (aggressive, "aggressive"),
                    (top_down, "top-down"),
                    (avoid_contention, "contention-aware"),
                    (copies, "loop state copied"),
                ] {
                    if on {
                        parts.push(part);
                    }
                }
                if parts.is_empty() {
                    parts.push("as configured");
                }
                let label = format!("{}{from}", parts.join(", "));
                found.push((candidate, order.clone(), label));
            }
        }
    }
    found
}

/// Chooses among the candidates for `comp`, `configured` being XLA's
/// algorithm as configured from `base` (see the module docs).
pub fn choose(
    module: &Module,
    comp: Comp,
    base: &[Instr],
    config: &SchedulerConfig,
    configured: ComputationSchedule,
    context: &Context<'_>,
) -> Refined {
    let (estimator, dataflow, buffers, counter) = (
        context.estimator,
        context.dataflow,
        context.buffers,
        context.counter,
    );
    let mut outcome = configured;
    let sync_back = config.sync_unhidden_collectives;
    // Weft's default: XLA's algorithm under several configurations
    // and from both starting orders, the fastest on the runtime's
    // streams kept, memory within bounds. The configured run is one
    // of the candidates, so the choice is never slower than it.
    let yardstick = context.memories.walking(false);
    let bound = memory_bound(config, yardstick.sequence_peak(comp, base));
    // Each candidate is judged after the collectives it would hide nothing
    // with are left synchronous, when that is asked for.
    let settle = |outcome: &mut ComputationSchedule| -> (f64, usize) {
        let time = timeline::estimate(module, &outcome.sequence, estimator, counter, sync_back);
        if !sync_back {
            return (time, 0);
        }
        let sequence = std::mem::take(&mut outcome.sequence);
        let (sequence, made_sync, time) =
            leave_unhidden_synchronous(module, sequence, time, context);
        if made_sync > 0 {
            // The placements follow the sequence `--explain` reads them in.
            let mut by_instr: rustc_hash::FxHashMap<Instr, super::state::Placement> = outcome
                .placements
                .drain(..)
                .map(|placement| (placement.instr, placement))
                .collect();
            outcome.placements = sequence
                .iter()
                .filter_map(|instr| by_instr.remove(instr))
                .collect();
        }
        outcome.sequence = sequence;
        (time, made_sync)
    };
    let (mut best_time, mut best_made_sync) = settle(&mut outcome);
    let mut best_peak = yardstick.sequence_peak(comp, &outcome.sequence);
    let configured_time = best_time;
    let mut best_label = "as configured".to_string();
    let mut pending: Vec<(SchedulerConfig, Vec<Instr>, String)> =
        candidates(module, comp, base, config)
            .into_iter()
            .skip(1)
            .collect();
    for round in 0..2 {
        for (candidate, order, label) in std::mem::take(&mut pending) {
            let mut candidate_counter = ResourceCounter::new(&candidate);
            let Ok(mut tried) = schedule_once(
                module,
                comp,
                &order,
                &candidate,
                estimator,
                dataflow,
                buffers,
                context.memories,
                &mut candidate_counter,
            ) else {
                continue;
            };
            let (time, made_sync) = settle(&mut tried);
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
                best_made_sync = made_sync;
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
        for overlap in one_at_a_time.collective_overlap_limits_mut() {
            *overlap = 1;
        }
        for (candidate, order, label) in
            std::iter::once((one_at_a_time, base.to_vec(), "one at a time".to_string()))
                .chain(candidates(module, comp, base, config))
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
    let remark = format!(
        "  chosen: {best_label}: {best_time:.3}{unit} on the runtime's streams (as configured: {configured_time:.3}{unit}), peak {best_peak} bytes (bound {bound})"
    );
    let mut remark = remark;
    if best_made_sync > 0 {
        remark.push_str(&format!(
            "; {best_made_sync} collective(s) left synchronous, hiding nothing worth the async stream"
        ));
    }
    Refined { outcome, remark }
}

/// For each async pair in turn, moves its start to just before its done
/// when the sequence is faster that way with the pair synchronous (its
/// transfer on the compute stream instead of queued on the async one).
/// Moving a start later is always allowed: only its done uses it, and what
/// it reads is ready earlier still. Returns the sequence, how many pairs it
/// made adjacent, and the time.
fn leave_unhidden_synchronous(
    module: &Module,
    mut sequence: Vec<Instr>,
    mut time: f64,
    context: &Context<'_>,
) -> (Vec<Instr>, usize, f64) {
    let counter = context.counter;
    let starts: Vec<Instr> = sequence
        .iter()
        .copied()
        .filter(|&instr| {
            counter.is_supported_async_start(module, instr)
                && module.instr(instr).opcode != weft_ir::Opcode::Send
                && module.instr(instr).opcode != weft_ir::Opcode::Recv
        })
        .collect();
    let mut made_sync = 0;
    let mut attempts = 0;
    for start in starts {
        if attempts == MOST_SYNC_ATTEMPTS {
            break;
        }
        let Some(start_at) = sequence.iter().position(|&i| i == start) else {
            continue;
        };
        let Some(done_at) = sequence[start_at..]
            .iter()
            .position(|&candidate| {
                counter.is_supported_async_done(module, candidate)
                    && module.instr(candidate).operands.first() == Some(&start)
            })
            .map(|offset| start_at + offset)
        else {
            continue;
        };
        // Only the done may wait on the start, and nothing must be ordered
        // after the start by a control edge.
        let only_the_done_follows = sequence[start_at + 1..done_at].iter().all(|&between| {
            !module.instr(between).operands.contains(&start)
                && !module
                    .instr(between)
                    .control_predecessors()
                    .contains(&start)
        });
        if done_at == start_at + 1 || !only_the_done_follows {
            continue;
        }
        attempts += 1;
        let mut moved = sequence.clone();
        let instr = moved.remove(start_at);
        moved.insert(done_at - 1, instr);
        let moved_time = timeline::estimate(module, &moved, context.estimator, counter, true);
        if moved_time < time * (1.0 - 1e-9) {
            sequence = moved;
            time = moved_time;
            made_sync += 1;
        }
    }
    (sequence, made_sync, time)
}

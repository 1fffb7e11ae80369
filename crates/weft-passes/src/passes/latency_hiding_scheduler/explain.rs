//! `--explain`: where the scheduler put each async op, and why.
//!
//! For every rescheduled computation: its estimated time, then for each
//! async start and its done the instructions between them, the latency of
//! the transfer and how much of it that work hides, and the ready-set rule
//! that placed the start and the one that placed the done, in words.

use weft_ir::{Comp, Instr, Module};

use super::estimator::Estimator;
use super::resources::ResourceCounter;
use super::state::Placement;

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
        "kAvoidContention" => {
            "inside a transfer's window the work that contends least with it for memory bandwidth, outside it the work that would contend most"
        }
        "kOriginalOrder" => "nothing else told it apart: the written order decides",
        "kOnlyCandidate" => "it was the only instruction ready",
        "kNop" => "a no-op, placed as soon as it is ready",
        "kScheduledWithItsGroup" => "placed with its scheduling group",
        _ => "a rule of the ready set",
    }
}

/// The lines `--explain` prints for one rescheduled computation.
pub fn computation(
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

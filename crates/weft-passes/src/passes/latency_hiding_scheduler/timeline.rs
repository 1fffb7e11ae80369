//! How long a computation's sequence takes on one device, as weft's
//! runtime runs it: the yardstick weft's default uses to choose among
//! candidate schedules.
//!
//! The device has a compute stream and one async stream, as `weft run`
//! models it (`docs/runtime.md`): instructions run on the compute stream in
//! sequence order, each for its cost; an async start hands its transfer to
//! the async stream, where it begins at the later of the start and the end
//! of the stream's previous job and lasts the start→done latency; a done
//! holds the compute stream until its transfer is over. The computation
//! ends when both streams are idle. Every device of an SPMD program runs
//! the same sequence, so one device's time is the step's.
//!
//! Work that runs while a transfer is in flight shares the memory
//! bandwidth with it ([`Estimator::node_cost_sharing`]): the yardstick
//! knows that a memory-bound kernel in a window is slower than alone.
//!
//! Costs and latencies are the estimator's, so the yardstick and the
//! scheduler's own clock agree on what an instruction costs; only the
//! streams differ (the list scheduler's clock lets transfers overlap each
//! other, the runtime's stream does not).

use rustc_hash::FxHashMap;
use weft_ir::{Instr, Module};

use super::estimator::Estimator;
use super::resources::ResourceCounter;

/// The time `sequence` takes (see the module docs). With
/// `adjacent_pairs_sync`, a start directly followed by its done counts as
/// the synchronous collective `convert-async-collectives-to-sync` will make
/// of it: its transfer holds the compute stream, not the async one.
pub fn estimate(
    module: &Module,
    sequence: &[Instr],
    estimator: &Estimator,
    counter: &ResourceCounter<'_>,
    adjacent_pairs_sync: bool,
) -> f64 {
    let mut compute = 0.0f64;
    let mut stream = 0.0f64;
    // The stream's transfers: when each runs and the share of the memory
    // bandwidth it takes.
    let mut transfers: Vec<(f64, f64, f64)> = Vec::new();
    let mut done_at: FxHashMap<Instr, f64> = FxHashMap::default();
    let mut dones: FxHashMap<Instr, Instr> = FxHashMap::default();
    for &instr in sequence {
        if counter.is_supported_async_done(module, instr)
            && let Some(&start) = module.instr(instr).operands.first()
        {
            dones.insert(start, instr);
        }
    }
    for (at, &instr) in sequence.iter().enumerate() {
        if counter.is_supported_async_start(module, instr) {
            let latency = dones
                .get(&instr)
                .map_or(0.0, |&done| estimator.latency_between(module, instr, done));
            let adjacent = sequence
                .get(at + 1)
                .is_some_and(|next| dones.get(&instr) == Some(next));
            if adjacent_pairs_sync && adjacent {
                compute += latency;
                done_at.insert(instr, compute);
                continue;
            }
            let begin = compute.max(stream);
            stream = begin + latency;
            done_at.insert(instr, stream);
            transfers.push((begin, stream, estimator.transfer_share(module, instr)));
            compute += estimator.node_cost(module, instr);
            continue;
        }
        if counter.is_supported_async_done(module, instr)
            && let Some(start) = module.instr(instr).operands.first()
            && let Some(&ready) = done_at.get(start)
        {
            compute = compute.max(ready);
        }
        // A synchronous collective holds the compute stream for its
        // transfer; work beside a transfer shares the memory bandwidth.
        // Transfers run back to back in the order they began: the one in
        // flight now is the last to have begun, if it has not landed.
        let begun = transfers.partition_point(|&(begin, _, _)| begin <= compute);
        let share = begun
            .checked_sub(1)
            .map(|last| transfers[last])
            .filter(|&(_, end, _)| compute < end)
            .map_or(0.0, |(_, _, share)| share);
        compute += estimator.node_cost_sharing(module, instr, share)
            + estimator.collective_time(module, instr);
    }
    compute.max(stream)
}

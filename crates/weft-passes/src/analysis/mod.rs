//! Analyses: plain values computed from a `&Module`. A pass computes what it
//! needs when it runs; nothing here is cached inside the module, so nothing
//! can go stale when the module changes. Read them in order: the call graph,
//! then dataflow (values and the positions that hold them), aliasing
//! (buffers: values that share storage), happens-before, then live ranges
//! and memory under a schedule, and what each instruction allocates and
//! frees as a scheduler places it; and what a while loop counts (its induction
//! variable and trip count). Reachability answers, for one computation,
//! which instruction depends on which.

pub mod alias;
pub mod buffer_uses;
pub mod call_graph;
pub mod dataflow;
pub mod live_range;
pub mod ordering;
pub mod reachability;
pub mod side_effects;
pub mod while_loop;

use weft_ir::{Instr, Module};

/// The instructions of `instr`'s computation that use it as an operand, in
/// body order. It reads the computation once: for a question or two about
/// a small computation (a loop's condition); a pass that asks about many
/// instructions uses the editor's index of users instead.
pub fn users_in_computation(module: &Module, instr: Instr) -> Vec<Instr> {
    module
        .comp(module.parent(instr))
        .body()
        .iter()
        .copied()
        .filter(|&user| module.instr(user).operands.contains(&instr))
        .collect()
}

/// Helpers the analyses' tests share.
#[cfg(test)]
pub(crate) mod test_support {
    use weft_ir::{Instr, Module};

    use super::dataflow::Dataflow;

    /// The instruction named `name`.
    pub(crate) fn find(module: &Module, name: &str) -> Instr {
        module
            .all_instrs()
            .find(|&i| module.instr(i).name == name)
            .expect("named")
    }

    /// The values the position `index` of the instruction named `name` may
    /// hold, as the dumps name them.
    pub(crate) fn value_names(
        flow: &Dataflow,
        module: &Module,
        name: &str,
        index: &[i64],
    ) -> Vec<String> {
        flow.value_set(find(module, name), index)
            .iter()
            .map(|&v| flow.describe(module, v))
            .collect()
    }
}

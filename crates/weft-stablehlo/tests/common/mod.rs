//! What the corpus tests share.

use weft_ir::attrs::Attrs;
use weft_ir::{Module, Opcode};

/// One collective as the runtime sees it: its kind (start/done pairs count as
/// the collective they run) and whom it talks to.
pub fn collectives(module: &Module) -> Vec<String> {
    let mut found = Vec::new();
    for comp in module.computations() {
        for &instr in module.comp(comp).body() {
            let data = module.instr(instr);
            let kind = match data.opcode {
                Opcode::AllReduce | Opcode::AllReduceStart => "all-reduce",
                Opcode::AllGather | Opcode::AllGatherStart => "all-gather",
                Opcode::CollectivePermute | Opcode::CollectivePermuteStart => "collective-permute",
                Opcode::AllToAll => "all-to-all",
                Opcode::ReduceScatter => "reduce-scatter",
                Opcode::CollectiveBroadcast => "collective-broadcast",
                _ => continue,
            };
            let peers = match &data.attrs {
                Attrs::Collective(c) => format!("groups={:?}", c.replica_groups.groups()),
                Attrs::CollectivePermute(p) => {
                    let mut pairs = p.source_target_pairs.clone();
                    pairs.sort();
                    format!("pairs={pairs:?}")
                }
                _ => String::new(),
            };
            found.push(format!("{kind} {peers}"));
        }
    }
    found.sort();
    found
}

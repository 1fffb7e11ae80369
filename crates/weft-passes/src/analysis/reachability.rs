//! Reachability inside one computation (XLA's `HloReachabilityMap::Build`):
//! `a` reaches `b` when `a == b` or `b` depends on `a` through operands and
//! control predecessors, transitively.
//!
//! Each instruction gets a row of bits, one per instruction of the
//! computation, set for everything it depends on; rows are filled in
//! dependency order, each the union of its inputs' rows, so building takes
//! one pass over the edges and a question takes one bit test. It is an
//! analysis: computed from `&Module`, stale as soon as an edge changes
//! (frontend attributes and other data that is not an edge do not matter).

use rustc_hash::FxHashMap;
use weft_ir::{Comp, Instr, Module};

/// Which instructions of one computation reach which (see the module docs).
pub struct Reachability {
    /// The row of each instruction of the computation.
    row_of: FxHashMap<Instr, usize>,
    /// `rows[r]` holds the bits of what row `r`'s instruction depends on.
    rows: Vec<Vec<u64>>,
}

impl Reachability {
    /// The reachability of `comp`'s instructions.
    pub fn of(module: &Module, comp: Comp) -> Reachability {
        let body = module.comp(comp).body();
        let row_of: FxHashMap<Instr, usize> = body
            .iter()
            .enumerate()
            .map(|(row, &instr)| (instr, row))
            .collect();
        let words = body.len().div_ceil(64);
        let mut rows = vec![vec![0u64; words]; body.len()];
        let inputs = |instr: Instr| {
            let data = module.instr(instr);
            data.operands
                .iter()
                .chain(data.control_predecessors())
                .filter_map(|input| row_of.get(input).copied())
                .collect::<Vec<usize>>()
        };
        // Rows in dependency order: a depth-first walk that fills a row once
        // all of its inputs' rows are full. The body need not be in that
        // order (text may name an operand before defining it).
        let mut done = vec![false; body.len()];
        for start in 0..body.len() {
            if done[start] {
                continue;
            }
            let mut stack = vec![(start, false)];
            while let Some((row, inputs_done)) = stack.pop() {
                if done[row] {
                    continue;
                }
                let row_inputs = inputs(body[row]);
                if !inputs_done {
                    stack.push((row, true));
                    stack.extend(
                        row_inputs
                            .iter()
                            .filter(|&&input| !done[input])
                            .map(|&input| (input, false)),
                    );
                    continue;
                }
                let mut bits = vec![0u64; words];
                for input in row_inputs {
                    bits[input / 64] |= 1 << (input % 64);
                    for (word, input_word) in bits.iter_mut().zip(&rows[input]) {
                        *word |= input_word;
                    }
                }
                rows[row] = bits;
                done[row] = true;
            }
        }
        Reachability { row_of, rows }
    }

    /// Whether `from` reaches `to`: the same instruction, or one `to`
    /// depends on. Instructions of other computations reach nothing.
    pub fn reaches(&self, from: Instr, to: Instr) -> bool {
        if from == to {
            return true;
        }
        match (self.row_of.get(&from), self.row_of.get(&to)) {
            (Some(&from), Some(&to)) => self.rows[to][from / 64] & (1 << (from % 64)) != 0,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::find;

    #[test]
    fn operands_and_control_edges_are_followed() {
        let module = weft_ir::text::parse(
            "HloModule m\n\nENTRY e {\n  p = f32[] parameter(0)\n  a = f32[] negate(p)\n  b = f32[] negate(p), control-predecessors={a}\n  c = f32[] negate(b)\n  ROOT d = f32[] add(p, p)\n}\n",
        )
        .unwrap();
        let reach = Reachability::of(&module, module.entry().unwrap());
        let [p, a, b, c, d] = ["p", "a", "b", "c", "d"].map(|name| find(&module, name));
        assert!(reach.reaches(p, c) && reach.reaches(a, c) && reach.reaches(b, c));
        assert!(reach.reaches(c, c));
        assert!(!reach.reaches(c, a) && !reach.reaches(a, d) && !reach.reaches(d, p));
    }
}

//! `collective-reduce`: a reduction to one member of each group.
//!
//! Each result's root is the group's first member (the StableHLO
//! interpreter's rule: index 0 of the group) or, with `has_dynamic_root`,
//! the member the last operand names for that result; the root gets the
//! contributions folded in group order with the reducer, as an all-reduce
//! folds them, and every other member gets zeros of the operand's shape.
//! Only the root folds.

use weft_ir::Instr;

use crate::evaluate::{Evaluator, RunError};
use crate::tensor::Tensor;

impl Evaluator<'_> {
    /// The results of a collective-reduce for the member at `position` of
    /// a group whose contributions are `parts` (member by member, operand
    /// by operand).
    pub(crate) fn collective_reduce(
        &mut self,
        instr: Instr,
        parts: &[Vec<&Tensor>],
        position: usize,
    ) -> Result<Vec<Tensor>, RunError> {
        let roots = self.result_roots(instr, parts, position)?;
        let reducer = self.callee(instr, 0)?;
        roots
            .iter()
            .enumerate()
            .map(|(operand, &root)| {
                if root == position {
                    self.fold(instr, reducer, parts.iter().map(|p| p[operand]))
                } else {
                    let own = parts[position][operand];
                    Ok(Tensor::zeros(own.elem, &own.dims))
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::devices::{Grid, GridOptions, Link, run_grid};
    use crate::numbers::{Numbers, decode, encode};
    use crate::tensor::Value;

    #[test]
    fn the_first_member_gets_the_sum_and_the_others_zeros() {
        let text = r#"HloModule m, num_partitions=3

%sum (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %add = s32[] add(s32[] %a, s32[] %b)
}

ENTRY %main (x: s32[2]) -> s32[2] {
  %x = s32[2] parameter(0)
  ROOT %reduced = s32[2] collective-reduce(s32[2] %x), channel_id=1, replica_groups={{2,0,1}}, use_global_device_ids=true, to_apply=%sum
}
"#;
        let module =
            weft_ir::text::parse(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
        let grid = Grid {
            replicas: 1,
            partitions: 3,
        };
        let arguments = (0..3)
            .map(|d| {
                vec![Value::Tensor(encode(
                    weft_ir::ElementType::S32,
                    &[2],
                    &Numbers::Signed(vec![d, 10 * d]),
                ))]
            })
            .collect();
        let options = GridOptions {
            link: Link::UNPACED,
            interconnect: None,
            ..GridOptions::default()
        };
        let evaluations = run_grid(&module, grid, arguments, options).expect("runs");
        let values: Vec<Numbers> = evaluations
            .iter()
            .map(|e| decode(e.result.as_tensor().expect("an array")))
            .collect();
        // Device 2 is the group's root.
        assert_eq!(values[2], Numbers::Signed(vec![3, 30]));
        assert_eq!(values[0], Numbers::Signed(vec![0, 0]));
        assert_eq!(values[1], Numbers::Signed(vec![0, 0]));
    }
}

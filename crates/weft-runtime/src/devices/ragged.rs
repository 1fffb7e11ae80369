//! `ragged-all-to-all`: each member sends a different number of rows to each
//! other member and says where they land.
//!
//! Operands: `input`, `output` (the buffer the result starts from),
//! `input_offsets`, `send_sizes`, `output_offsets`, `recv_sizes`; the four
//! metadata arrays hold `n·k` entries for a group of `n` and `k` updates per
//! peer. For update `u` to the member at position `j`, the entry is
//! `j·k + u` (XLA's layout): rows `input[input_offsets[e] ..][.. send_sizes[e]]`
//! of the sender go to rows `output_offsets[e] ..` of member `j`'s output —
//! the *sender* names the place in the receiver's buffer. Rows are slices
//! along dimension 0. `recv_sizes` describes the same exchange from the
//! receiving side; the result does not depend on it.
//!
//! Every member contributes `(input, input_offsets, send_sizes,
//! output_offsets)` at the rendezvous and builds its own result from its
//! `output` and the senders' rows, in group order (later senders win where
//! updates overlap, as they would on a device writing them in that order).

use weft_ir::Instr;

use crate::evaluate::{Evaluator, RunError};
use crate::numbers::{Numbers, decode};
use crate::tensor::Tensor;

impl Evaluator<'_> {
    /// What a ragged-all-to-all contributes to its rendezvous: the input
    /// and the three arrays that say what goes where.
    pub(crate) fn ragged_contribution<'t>(
        &self,
        instr: Instr,
        operands: &'t [&'t Tensor],
    ) -> Result<[&'t Tensor; 4], RunError> {
        match operands {
            [input, _output, input_offsets, send_sizes, output_offsets, _recv_sizes] => {
                Ok([input, input_offsets, send_sizes, output_offsets])
            }
            _ => Err(self.error(
                instr,
                format!(
                    "ragged-all-to-all takes 6 operands (input, output, input_offsets, send_sizes, output_offsets, recv_sizes), not {}",
                    operands.len()
                ),
            )),
        }
    }

    /// The result of a ragged-all-to-all for the member at `position`:
    /// `output` with every sender's rows for this member written in.
    /// `contributions[s]` is sender `s`'s `[input, input_offsets,
    /// send_sizes, output_offsets]`.
    pub(crate) fn ragged_all_to_all(
        &self,
        instr: Instr,
        output: &Tensor,
        contributions: &[[&Tensor; 4]],
        position: usize,
    ) -> Result<Tensor, RunError> {
        let members = contributions.len();
        let rows = *output
            .dims
            .first()
            .ok_or_else(|| self.error(instr, "ragged-all-to-all needs arrays of rank 1 or more"))?;
        let row_bytes = output.bytes.len() / rows.max(1) as usize;
        let mut result = output.clone();
        for (sender, [input, input_offsets, send_sizes, output_offsets]) in
            contributions.iter().enumerate()
        {
            if input.elem != output.elem || input.dims[1..] != output.dims[1..] {
                return Err(self.error(
                    instr,
                    format!(
                        "member {sender} sends rows of {}{:?} but this member's output holds rows of {}{:?}",
                        input.elem.name(),
                        &input.dims[1..],
                        output.elem.name(),
                        &output.dims[1..]
                    ),
                ));
            }
            let [starts, sizes, targets] =
                [input_offsets, send_sizes, output_offsets].map(|t| integers(t));
            let entries = starts.len();
            if entries == 0
                || !entries.is_multiple_of(members)
                || sizes.len() != entries
                || targets.len() != entries
            {
                return Err(self.error(
                    instr,
                    format!(
                        "member {sender}'s offsets and sizes must all hold a multiple of the group's {members} entries (found {}, {} and {})",
                        entries,
                        sizes.len(),
                        targets.len()
                    ),
                ));
            }
            let updates = entries / members;
            let input_rows = input.dims[0];
            for update in 0..updates {
                let entry = position * updates + update;
                let (start, size, target) = (starts[entry], sizes[entry], targets[entry]);
                if size == 0 {
                    continue;
                }
                if start < 0 || size < 0 || start + size > input_rows {
                    return Err(self.error(
                        instr,
                        format!(
                            "member {sender} sends rows {start}..{} of an input with {input_rows}",
                            start + size
                        ),
                    ));
                }
                if target < 0 || target + size > rows {
                    return Err(self.error(
                        instr,
                        format!(
                            "member {sender} writes rows {target}..{} of an output with {rows}",
                            target + size
                        ),
                    ));
                }
                let from = start as usize * row_bytes..(start + size) as usize * row_bytes;
                let to = target as usize * row_bytes;
                result.bytes[to..to + from.len()].copy_from_slice(&input.bytes[from]);
            }
        }
        Ok(result)
    }
}

/// An integer array's elements.
fn integers(tensor: &Tensor) -> Vec<i64> {
    match decode(tensor) {
        Numbers::Signed(values) => values,
        Numbers::Unsigned(values) => values.into_iter().map(|v| v as i64).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use crate::devices::{Grid, GridOptions, Link, run_grid};
    use crate::numbers::{Numbers, decode, encode};
    use crate::tensor::Value;

    fn s32(values: &[i64], dims: &[i64]) -> Value {
        Value::Tensor(encode(
            weft_ir::ElementType::S32,
            dims,
            &Numbers::Signed(values.to_vec()),
        ))
    }

    /// JAX's own example of two devices: device 0 keeps one row and sends
    /// two to device 1, device 1 sends one row each way.
    #[test]
    fn senders_place_their_rows_in_the_receivers_output() {
        let text = r#"HloModule m, num_partitions=2

ENTRY %main (input: s32[3], output: s32[4], input_offsets: s32[2], send_sizes: s32[2], output_offsets: s32[2], recv_sizes: s32[2]) -> s32[4] {
  %input = s32[3] parameter(0)
  %output = s32[4] parameter(1)
  %input_offsets = s32[2] parameter(2)
  %send_sizes = s32[2] parameter(3)
  %output_offsets = s32[2] parameter(4)
  %recv_sizes = s32[2] parameter(5)
  ROOT %exchanged = s32[4] ragged-all-to-all(%input, %output, %input_offsets, %send_sizes, %output_offsets, %recv_sizes), channel_id=1, replica_groups={{0,1}}
}
"#;
        let module =
            weft_ir::text::parse(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
        let arguments = vec![
            vec![
                s32(&[1, 2, 2], &[3]),
                s32(&[0; 4], &[4]),
                s32(&[0, 1], &[2]),
                s32(&[1, 2], &[2]),
                s32(&[0, 0], &[2]),
                s32(&[1, 1], &[2]),
            ],
            vec![
                s32(&[3, 4, 0], &[3]),
                s32(&[0; 4], &[4]),
                s32(&[0, 1], &[2]),
                s32(&[1, 1], &[2]),
                s32(&[1, 2], &[2]),
                s32(&[2, 1], &[2]),
            ],
        ];
        let grid = Grid {
            replicas: 1,
            partitions: 2,
        };
        let options = GridOptions {
            link: Link::UNPACED,
            interconnect: None,
            ..GridOptions::default()
        };
        let evaluations = run_grid(&module, grid, arguments, options).expect("the exchange runs");
        let results: Vec<Vec<i64>> = evaluations
            .iter()
            .map(|e| match decode(e.result.as_tensor().expect("an array")) {
                Numbers::Signed(values) => values,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(results, vec![vec![1, 3, 0, 0], vec![2, 2, 4, 0]]);
    }
}

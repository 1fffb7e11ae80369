//! `interpreter.run_parallel`: the StableHLO interpreter's driver of a
//! process grid, as the lowering leaves it — a side-effecting custom-call
//! with target `interpreter.run_parallel` whose called computations are the
//! grid's programs in row-major order (replica by replica, each replica's
//! partitions in order), then the infeed functions, with a JSON
//! `backend_config`:
//!
//! ```text
//! {"replicas": R, "partitions": P, "program_results": [n₀, n₁, …]}
//! ```
//!
//! Its operands are the programs' arguments one program after the other,
//! and its result is their results one program after the other (the one
//! result itself, or a tuple): program `k` returns `n_k` results, as a tuple
//! unless `n_k` is 1. Each infeed function is called once, in order, before
//! the grid starts; their values make the grid's shared infeed queue.
//!
//! The programs run on a grid of `R × P` devices (program `k` on the device
//! with flattened id `k`), collectives and transfers meeting as on any grid,
//! the link unpaced. What the devices printed and fed out joins this
//! evaluation's, device by device; their failed checks too, each prefixed
//! with its device.

use weft_ir::Instr;
use weft_ir::interpreter_calls::RunParallelConfig;

use super::{Evaluator, RunError};
use crate::devices::feeds::InfeedQueues;
use crate::devices::{Grid, GridOptions, Link, run_grid_programs};
use crate::tensor::Value;

impl Evaluator<'_> {
    /// Runs the grid of programs `instr` names on `arguments`.
    pub(crate) fn run_parallel(
        &mut self,
        instr: Instr,
        arguments: Vec<Value>,
    ) -> Result<Value, RunError> {
        let data = self.module.instr(instr);
        let config = data.common().backend_config.as_ref().map(|c| c.0.as_str());
        let config =
            RunParallelConfig::from_config(config).map_err(|message| self.error(instr, message))?;
        let grid = Grid {
            replicas: config.replicas,
            partitions: config.partitions,
        };
        let result_counts = config.program_results;
        if data.callees.len() < grid.len() {
            return Err(self.error(
                instr,
                format!(
                    "a grid of {} devices needs as many programs, but it calls {} computation(s)",
                    grid.len(),
                    data.callees.len()
                ),
            ));
        }
        let (programs, infeed_functions) = data.callees.split_at(grid.len());
        let mut infeed = Vec::with_capacity(infeed_functions.len());
        for &function in infeed_functions {
            infeed.push(self.call(function, Vec::new())?);
        }
        let wanted: usize = programs
            .iter()
            .map(|&program| self.module.comp(program).params().len())
            .sum();
        if wanted != arguments.len() {
            return Err(self.error(
                instr,
                format!(
                    "its programs take {wanted} argument(s) together, but it has {} operand(s)",
                    arguments.len()
                ),
            ));
        }
        let mut remaining = arguments.into_iter();
        let per_device: Vec<Vec<Value>> = programs
            .iter()
            .map(|&program| {
                remaining
                    .by_ref()
                    .take(self.module.comp(program).params().len())
                    .collect()
            })
            .collect();
        let options = GridOptions {
            limits: self.limits,
            link: Link::UNPACED,
            interconnect: None,
            ..GridOptions::default()
        };
        let evaluations = run_grid_programs(
            self.module,
            grid,
            programs.to_vec(),
            per_device,
            InfeedQueues::shared(infeed),
            options,
        )
        .map_err(|error| self.error(instr, error.to_string()))?;
        let mut results = Vec::new();
        for (device, (evaluation, count)) in evaluations.into_iter().zip(result_counts).enumerate()
        {
            self.printed.extend(evaluation.printed);
            self.outfeed.extend(evaluation.outfeed);
            self.check_failures.extend(
                evaluation
                    .check_failures
                    .into_iter()
                    .map(|failure| format!("device {device}: {failure}")),
            );
            match (count, evaluation.result) {
                (1, result) => results.push(result),
                (count, Value::Tuple(elements)) if elements.len() == count => {
                    results.extend(elements)
                }
                (count, other) => {
                    return Err(self.error(
                        instr,
                        format!(
                            "program {device} should return {count} results but returned {}",
                            other.describe()
                        ),
                    ));
                }
            }
        }
        Ok(match <[Value; 1]>::try_from(results) {
            Ok([only]) => only,
            Err(many) => Value::Tuple(many),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::{Numbers, decode, encode};

    fn module(text: &str) -> weft_ir::Module {
        weft_ir::text::parse(text).unwrap_or_else(|d| panic!("{}", d.render("test", text)))
    }

    #[test]
    fn each_device_runs_its_own_program_and_results_concatenate() {
        let m = module(
            r#"HloModule m

%first (x: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  ROOT %negate = s32[] negate(s32[] %x)
}

%second (y: s32[]) -> (s32[], u32[]) {
  %y = s32[] parameter(0)
  %id = u32[] partition-id()
  ROOT %tuple = (s32[], u32[]) tuple(s32[] %y, u32[] %id)
}

ENTRY %main (a: s32[], b: s32[]) -> (s32[], s32[], u32[]) {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %grid = (s32[], s32[], u32[]) custom-call(s32[] %a, s32[] %b), custom_call_target="interpreter.run_parallel", called_computations={%first, %second}, custom_call_has_side_effect=true, backend_config="{\"replicas\": 1, \"partitions\": 2, \"program_results\": [1, 2]}"
}
"#,
        );
        let scalar = |v: i64| {
            Value::Tensor(encode(
                weft_ir::ElementType::S32,
                &[],
                &Numbers::Signed(vec![v]),
            ))
        };
        let Value::Tuple(results) = crate::evaluate(&m, vec![scalar(3), scalar(5)]).expect("runs")
        else {
            panic!("a tuple")
        };
        let numbers: Vec<Numbers> = results
            .iter()
            .map(|r| decode(r.as_tensor().expect("an array")))
            .collect();
        assert_eq!(
            numbers,
            vec![
                Numbers::Signed(vec![-3]),
                Numbers::Signed(vec![5]),
                Numbers::Unsigned(vec![1])
            ]
        );
    }
}

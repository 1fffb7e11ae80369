//! `interpreter.run_parallel`: the StableHLO interpreter's driver of a
//! process grid. `programs = [[@f00, @f01, …], [@f10, …], …]` names the
//! function each process runs, one row per replica and one column per
//! partition; the op's operands are the programs' arguments one program
//! after the other (row-major), its results their results likewise; the
//! optional `infeed = [@q0, @q1, …]` names functions of no arguments whose
//! one result each, in order, is what the processes' `infeed` ops take.
//!
//! It becomes a side-effecting custom-call `interpreter.run_parallel` whose
//! called computations are the programs' computations in row-major order,
//! then the infeed functions', with a JSON `backend_config`
//! `{"replicas": R, "partitions": P, "program_results": [n₀, n₁, …]}`
//! (`n_k` the number of results of program `k`, which returns a tuple
//! unless it has one). The runtime runs it on an `R × P` grid of devices
//! (`weft_runtime`'s `evaluate::run_parallel`). Its result is the one
//! result, or a tuple of them all.
//!
//! The module's `replica_count` and `num_partitions` become the grid's (the
//! first run_parallel's of more than one device, when several disagree), so the collectives of the
//! programs verify against the devices they run on; the driver itself, the
//! entry, is meant to run on one device.

use weft_ir::Comp;

use super::{LowerResult, Lowering};
use crate::ir::{Attribute, Op};

impl Lowering<'_> {
    pub(crate) fn lower_run_parallel(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let rows = self.program_grid(op)?;
        let (replicas, partitions) = (rows.len(), rows[0].len());
        let mut callees = Vec::new();
        let mut result_counts = Vec::new();
        let mut argument_count = 0;
        for name in rows.iter().flatten() {
            let func = self.function_named(op, name)?;
            callees.push(self.function_computation(func)?);
            argument_count += self.function_arity(func).0;
            result_counts.push(self.function_arity(func).1);
        }
        let operands = self.operands(op)?;
        if operands.len() != argument_count {
            return Err(self.error(
                op,
                format!(
                    "its programs take {argument_count} argument(s) together, but it has {} operand(s)",
                    operands.len()
                ),
            ));
        }
        let result_count: usize = result_counts.iter().sum();
        if self.body.ops[op].results.len() != result_count {
            return Err(self.error(
                op,
                format!(
                    "its programs return {result_count} result(s) together, but it has {}",
                    self.body.ops[op].results.len()
                ),
            ));
        }
        for name in self.symbol_list(op, "infeed")? {
            let func = self.function_named(op, &name)?;
            if self.function_arity(func) != (0, 1) {
                return Err(self.error(
                    op,
                    format!("infeed function @{name} must take no arguments and return one value"),
                ));
            }
            callees.push(self.function_computation(func)?);
        }
        let config = &mut self.module.config;
        if config.replica_count.is_none() && config.num_partitions.is_none() {
            config.replica_count = (replicas > 1).then_some(replicas as i64);
            config.num_partitions = (partitions > 1).then_some(partitions as i64);
        }
        let shape = self.result_shape(op)?;
        let name = self.name_for(op, "run_parallel");
        let config = weft_ir::interpreter_calls::RunParallelConfig {
            replicas,
            partitions,
            program_results: result_counts,
        }
        .to_config();
        let instr = self.emit_side_effect_call(
            comp,
            &name,
            weft_ir::interpreter_calls::RUN_PARALLEL,
            shape,
            operands,
            Some(config),
        );
        self.module.instrs[instr].callees = callees.into();
        self.bind_results(comp, op, instr);
        Ok(())
    }

    /// The `programs` attribute: a non-empty rectangle of function names.
    fn program_grid(&self, op: Op) -> LowerResult<Vec<Vec<String>>> {
        let rows = self
            .body
            .attribute(op, "programs")
            .and_then(Attribute::as_array)
            .ok_or_else(|| self.error(op, "`programs` must be an array of arrays of functions"))?;
        let mut grid = Vec::new();
        for row in rows {
            let Some(row) = row.as_array() else {
                return Err(self.error(op, "each row of `programs` must be an array of functions"));
            };
            grid.push(
                row.iter()
                    .map(symbol)
                    .collect::<Option<Vec<String>>>()
                    .ok_or_else(|| self.error(op, "`programs` must name functions (@f)"))?,
            );
        }
        match grid.first().map(Vec::len) {
            None | Some(0) => Err(self.error(op, "`programs` cannot be empty")),
            Some(partitions) if grid.iter().any(|row| row.len() != partitions) => Err(self.error(
                op,
                format!(
                    "every row of `programs` must have {partitions} program(s), one per partition"
                ),
            )),
            Some(_) => Ok(grid),
        }
    }

    /// The function names of the optional array attribute `name`.
    fn symbol_list(&self, op: Op, name: &str) -> LowerResult<Vec<String>> {
        match self.body.attribute(op, name) {
            None => Ok(Vec::new()),
            Some(attribute) => attribute
                .as_array()
                .and_then(|items| items.iter().map(symbol).collect())
                .ok_or_else(|| self.error(op, format!("`{name}` must be an array of functions"))),
        }
    }

    /// How many arguments function `func` takes and how many results it
    /// returns.
    fn function_arity(&self, func: Op) -> (usize, usize) {
        let body = self.body;
        let Some(block) = body.ops[func]
            .regions
            .first()
            .and_then(|&region| body.entry_block(region))
        else {
            return (0, 0);
        };
        let results = body.blocks[block]
            .ops
            .last()
            .map_or(0, |&terminator| body.ops[terminator].operands.len());
        (body.blocks[block].arguments.len(), results)
    }
}

/// `@name` as `name`.
fn symbol(attribute: &Attribute) -> Option<String> {
    match attribute {
        Attribute::SymbolRef(path) if path.len() == 1 => Some(path[0].clone()),
        _ => None,
    }
}

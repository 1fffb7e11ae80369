//! The evaluator: runs an HLO module's entry computation on one device.
//!
//! Each computation runs its instructions in execution order: the schedule
//! of a scheduled module; otherwise the order the text gives them, when every
//! operand is defined before its use (so a start written before the compute
//! it should overlap starts first, as the programmer wrote it); otherwise
//! XLA's post-order. A value lives in the
//! environment of its computation until the computation returns. Called
//! computations (loop bodies, branches, reducers, fusions) are run
//! recursively with their arguments bound to their parameters.
//!
//! On one device, async operations run to completion at their start (the
//! N-device runtime makes them truly asynchronous), and a collective whose
//! every group is a single device is the identity; a collective that needs
//! other devices is an error naming it.
//!
//! Errors are [`RunError`]s naming the instruction and its computation;
//! nothing here panics on a module the verifier accepts, and the recursion
//! depth of nested calls is bounded. Should it panic all the same (a bug),
//! the panic is caught and becomes an error at the instruction being
//! evaluated (`panics`).

mod checks;
mod complex;
mod complex_math;
mod control;
mod convolution;
mod data_movement;
mod dimension_size;
mod dot;
mod element_access;
mod elementwise;
mod fft;
mod indexing;
mod instruction;
mod linear_algebra;
mod map;
mod native_comparison;
pub(crate) mod panics;
mod plan;
mod ragged_dot;
mod random_bits;
mod reduce;
mod reduce_precision;
mod run_parallel;
mod scan;
mod sort;
mod stl_sort;
mod strided;
mod structured;
#[cfg(test)]
mod test_support;
mod top_k;
mod transfers;
mod windows;

pub(crate) use data_movement::{concatenate, slice};
pub(crate) use dot::set_cores_per_device;

/// Lets one kernel (a large GEMM) use `threads` threads, 0 meaning all the
/// machine's cores, until a grid run sets each device's share. What a
/// one-core measurement (`weft calibrate`) asks for.
pub fn set_kernel_threads(threads: usize) {
    set_cores_per_device(threads);
}
pub(crate) use elementwise::{binary, fold_f32};

use rustc_hash::FxHashMap;
use weft_ir::async_chain::ChainTracer;
use weft_ir::{Comp, Instr, MAX_CALL_DEPTH, Module};

use crate::tensor::Value;

/// A failure at run time, located at an instruction when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    /// `computation/%instruction`, when the error belongs to one.
    pub instruction: Option<String>,
    /// The instruction itself, so a caller holding the source map can point
    /// at its line.
    pub instr: Option<Instr>,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.instruction {
            Some(at) => write!(f, "{at}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for RunError {}

/// The largest value one instruction may produce, in bytes, unless
/// [`Limits`] says otherwise: a typo'd shape should be an error, not an
/// allocation that takes the machine down.
pub const DEFAULT_MAX_VALUE_BYTES: u64 = 8 << 30;

/// Resource limits of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest value (array or whole tuple) one instruction may produce.
    pub max_value_bytes: u64,
    /// The most iterations one execution of a `while` may run; `None` (the
    /// default, as in XLA) lets a loop run for ever.
    pub max_loop_iterations: Option<u64>,
    /// How long a run may take, from the moment each device starts; past
    /// it the run stops with a report of where each device was.
    pub deadline: Option<std::time::Duration>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_value_bytes: DEFAULT_MAX_VALUE_BYTES,
            max_loop_iterations: None,
            deadline: None,
        }
    }
}

/// The words every deadline error starts with, so a grid's report can tell
/// them from other failures.
pub const DEADLINE_PASSED: &str = "the run passed its deadline";

/// Where a deadline error of a device in the link model's transfer says it
/// was (in place of ` here`).
pub(crate) const IN_TRANSFER: &str = " here, in the link model's transfer";

/// Where a deadline error of a device at a done whose async operation met
/// the deadline says it was (in place of ` here`).
pub(crate) const AT_DONE: &str = " here, waiting for its async operation";

/// Runs `module`'s entry computation on `arguments` and returns its result
/// (failed `check.*` calls are ignored; see [`run`]).
pub fn evaluate(module: &Module, arguments: Vec<Value>) -> Result<Value, RunError> {
    run(module, arguments).map(|evaluation| evaluation.result)
}

/// What a run produced besides its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// The entry computation's value.
    pub result: Value,
    /// One message per failed `check.*` call, in program order.
    pub check_failures: Vec<String>,
    /// What `interpreter.print` printed, one entry per call.
    pub printed: Vec<String>,
    /// What `outfeed` fed out, one value per execution, in order.
    pub outfeed: Vec<Value>,
    /// What ran when, on a device of a grid (empty on a single device).
    pub timeline: crate::devices::timeline::DeviceTimeline,
}

/// Runs `module`'s entry computation on `arguments`.
pub fn run(module: &Module, arguments: Vec<Value>) -> Result<Evaluation, RunError> {
    run_with(module, arguments, Limits::default())
}

/// [`run`] with explicit resource limits.
pub fn run_with(
    module: &Module,
    arguments: Vec<Value>,
    limits: Limits,
) -> Result<Evaluation, RunError> {
    let entry = module.entry.ok_or_else(|| RunError {
        instruction: None,
        instr: None,
        message: "the module has no entry computation".into(),
    })?;
    panics::catch(module, || run_entry(module, entry, arguments, limits, None))
}

/// [`run_with`] of computation `entry` as one device of a grid.
pub(crate) fn run_on_device(
    module: &Module,
    entry: Comp,
    arguments: Vec<Value>,
    limits: Limits,
    device: crate::devices::DeviceContext,
) -> Result<Evaluation, RunError> {
    run_entry(module, entry, arguments, limits, Some(device))
}

fn run_entry(
    module: &Module,
    entry: Comp,
    arguments: Vec<Value>,
    limits: Limits,
    device: Option<crate::devices::DeviceContext>,
) -> Result<Evaluation, RunError> {
    let params = &module.comp(entry).params();
    if params.len() != arguments.len() {
        return Err(RunError {
            instruction: None,
            instr: None,
            message: format!(
                "the entry computation takes {} argument(s), {} given",
                params.len(),
                arguments.len()
            ),
        });
    }
    for (number, (&param, argument)) in params.iter().zip(&arguments).enumerate() {
        // No argument has an unbounded dimension's sentinel as its size: the
        // parameter is refused, naming it, before anything runs.
        if let Err(error) = value_bytes(module, module.shape_of(param)) {
            return Err(RunError {
                instruction: Some(format!(
                    "{}/%{}",
                    module.comp(entry).name,
                    module.instr(param).name
                )),
                instr: Some(param),
                message: format!("parameter {number}: {}", size_message(&error)),
            });
        }
        let expected = instruction::describe_shape(module, module.shape_of(param));
        if instruction::describe_value_shape(argument) != expected {
            return Err(RunError {
                instruction: None,
                instr: None,
                message: format!(
                    "argument {number} must be {expected}, but it is {}",
                    argument.describe()
                ),
            });
        }
    }
    let mut evaluator = Evaluator::new(module, limits, device);
    let result = evaluator.call(entry, arguments)?;
    // A start whose done never ran: its operation ran (or still runs) on the
    // stream, but nothing waited for it, so its result is lost and its
    // collective may leave other devices waiting. The earliest start is
    // reported, so the error is the same on every run.
    if let Some(&(start, _, _)) = evaluator
        .unfinished_starts
        .values()
        .min_by_key(|(start, _, _)| weft_ir::Module::instr_index(*start))
    {
        // Let the lost operations finish first: their collectives still
        // serve the other devices, which must not fail for this device's
        // mistake (and the report must not depend on who stops first).
        for (_, pending, _) in evaluator.unfinished_starts.values() {
            let _ = pending.wait();
        }
        let count = evaluator.unfinished_starts.len();
        let others = match count {
            1 => String::new(),
            n => format!(" (and {} other start(s))", n - 1),
        };
        return Err(evaluator.error(
            start,
            format!(
                "this asynchronous operation was started but no done finished it before the entry computation returned{others}; every start needs its done to run"
            ),
        ));
    }
    if let Some(clock) = evaluator.clock.as_mut() {
        clock.charge_cpu();
    }
    let finished = evaluator.now();
    let mut timeline = evaluator.timeline.take().unwrap_or_default();
    timeline.finished = finished;
    Ok(Evaluation {
        result,
        check_failures: evaluator.check_failures,
        printed: evaluator.printed,
        outfeed: evaluator.outfeed,
        timeline,
    })
}

pub(crate) struct Evaluator<'m> {
    pub(crate) module: &'m Module,
    /// The run plan of each computation run so far.
    plans: FxHashMap<Comp, std::rc::Rc<plan::Plan>>,
    depth: usize,
    /// The instruction being evaluated in the innermost computation running:
    /// the caller of a computation about to run, which a call too deep is
    /// blamed on.
    current: Option<Instr>,
    /// The starts of the async chains run so far: an update or a done finds
    /// its start once, so a chain of n updates costs O(n).
    pub(crate) chains: ChainTracer<'m>,
    /// Failed checks so far.
    pub(crate) check_failures: Vec<String>,
    /// What `interpreter.print` printed so far.
    pub(crate) printed: Vec<String>,
    /// What `outfeed` fed out so far.
    pub(crate) outfeed: Vec<Value>,
    /// The values each `interpreter.probe` saw, by probe id, one per
    /// execution (a probe in a loop records every iteration).
    pub(crate) probes: FxHashMap<String, Vec<Value>>,
    pub(crate) limits: Limits,
    /// The device this evaluator runs as, in a multi-device run.
    pub(crate) device: Option<crate::devices::DeviceContext>,
    /// How many times each collective has run on this device.
    pub(crate) occurrences: FxHashMap<Instr, u64>,
    /// How many collective instances of each channel and group (flattened
    /// ids) this evaluator's thread has run, which is how devices match
    /// them ([`crate::devices::fabric::Key`]).
    pub(crate) instances: FxHashMap<(Option<i64>, Vec<usize>), u64>,
    /// Events and time accounts, on a device of a grid.
    pub(crate) timeline: Option<crate::devices::timeline::DeviceTimeline>,
    /// The asynchronous operations handed to this device's stream whose
    /// done has not run yet (by [`crate::tensor::InFlight::id`]), with the
    /// start that began each. Empty when the entry computation ends in a
    /// correct program.
    pub(crate) unfinished_starts: FxHashMap<usize, (Instr, crate::tensor::InFlight, u64)>,
    /// How many operations this evaluator handed to its async stream (the
    /// next one's span id).
    pub(crate) async_spans_started: u64,
    /// This device's clock (on a grid).
    pub(crate) clock: Option<crate::devices::clock::Clock>,
    /// When [`Limits::deadline`] runs out, counted from this evaluator's
    /// start.
    pub(crate) deadline_at: Option<std::time::Instant>,
    /// The `while` loops running now, outermost first, with the iteration
    /// each is in (for the deadline's report).
    pub(crate) active_loops: Vec<(Instr, u64)>,
}

impl<'m> Evaluator<'m> {
    /// An evaluator of `module`, as `device` when it runs on a grid.
    pub(crate) fn new(
        module: &'m Module,
        limits: Limits,
        device: Option<crate::devices::DeviceContext>,
    ) -> Evaluator<'m> {
        Evaluator {
            module,
            plans: FxHashMap::default(),
            depth: 0,
            current: None,
            chains: ChainTracer::new(module),
            check_failures: Vec::new(),
            printed: Vec::new(),
            outfeed: Vec::new(),
            probes: FxHashMap::default(),
            limits,
            timeline: device
                .as_ref()
                .map(|d| crate::devices::timeline::DeviceTimeline::new(d.detail)),
            clock: device
                .as_ref()
                .map(|d| crate::devices::clock::Clock::new(d.timing.clone(), d.origin)),
            device,
            occurrences: FxHashMap::default(),
            instances: FxHashMap::default(),
            unfinished_starts: FxHashMap::default(),
            async_spans_started: 0,
            deadline_at: limits
                .deadline
                .and_then(|d| std::time::Instant::now().checked_add(d)),
            active_loops: Vec::new(),
        }
    }

    /// The error of a run stopped at its deadline while this evaluator was
    /// about to run `instr`: where it was, down to the loop iterations.
    pub(crate) fn deadline_error(&self, instr: Instr) -> RunError {
        let seconds = self.limits.deadline.unwrap_or_default().as_secs_f64();
        let loops: Vec<String> = self
            .active_loops
            .iter()
            .rev()
            .map(|&(loop_instr, iteration)| {
                format!(
                    "iteration {iteration} of %{}",
                    self.module.instr(loop_instr).name
                )
            })
            .collect();
        let within = if loops.is_empty() {
            String::new()
        } else {
            format!(", in {}", loops.join(", in "))
        };
        self.error(
            instr,
            format!("{DEADLINE_PASSED} of {seconds} s (--deadline) here{within}"),
        )
    }

    /// Runs `comp` with its parameters bound to `arguments`.
    pub(crate) fn call(&mut self, comp: Comp, arguments: Vec<Value>) -> Result<Value, RunError> {
        if self.depth >= MAX_CALL_DEPTH {
            let message = format!(
                "calls %{}, which would nest computations more than {MAX_CALL_DEPTH} deep",
                self.module.comp(comp).name
            );
            return Err(match self.current {
                Some(caller) => self.error(caller, message),
                None => RunError {
                    instruction: Some(self.module.comp(comp).name.to_string()),
                    instr: None,
                    message,
                },
            });
        }
        let data = self.module.comp(comp);
        if data.params().len() != arguments.len() {
            return Err(RunError {
                instruction: Some(data.name.to_string()),
                instr: None,
                message: format!(
                    "called with {} argument(s) but takes {}",
                    arguments.len(),
                    data.params().len()
                ),
            });
        }
        let root = data.root().ok_or_else(|| RunError {
            instruction: Some(data.name.to_string()),
            instr: None,
            message: "the computation has no root".into(),
        })?;
        let plan = self.plan(comp);
        let mut environment: FxHashMap<Instr, Value> =
            FxHashMap::with_capacity_and_hasher(plan.order.len(), Default::default());
        for (&param, argument) in data.params().iter().zip(arguments) {
            environment.insert(param, argument);
        }
        self.depth += 1;
        let caller = panics::running();
        let caller_instruction = self.current;
        let result = (|| {
            for (position, &instr) in plan.order.iter().enumerate() {
                if self.module.instr(instr).opcode == weft_ir::Opcode::Parameter {
                    continue;
                }
                self.check_size(instr)?;
                if self
                    .deadline_at
                    .is_some_and(|deadline| std::time::Instant::now() >= deadline)
                {
                    return Err(self.deadline_error(instr));
                }
                let started = self.now();
                panics::set_running(Some(instr));
                self.current = Some(instr);
                let value = if plan.updates_in_place[position] {
                    // Nothing reads the buffer after this update: it is
                    // moved in, and written in place when no other value
                    // shares its bytes.
                    let buffer = self.module.instr(instr).operands[0];
                    let owned = environment.remove(&buffer);
                    self.update_in_place(instr, owned, &environment)?
                } else {
                    self.instruction(instr, &environment)?
                };
                self.record_instruction(instr, started);
                environment.insert(instr, value);
                for released in &plan.released_after[position] {
                    environment.remove(released);
                }
            }
            environment
                .remove(&root)
                .ok_or_else(|| self.error(root, "the root was never computed"))
        })();
        panics::set_running(caller);
        self.current = caller_instruction;
        self.depth -= 1;
        result
    }

    fn plan(&mut self, comp: Comp) -> std::rc::Rc<plan::Plan> {
        if let Some(plan) = self.plans.get(&comp) {
            return plan.clone();
        }
        let order = execution_order(self.module, comp);
        let plan = std::rc::Rc::new(plan::Plan::new(self.module, comp, order));
        self.plans.insert(comp, plan.clone());
        plan
    }

    /// Now on this device's clock (zero off a grid).
    pub(crate) fn now(&self) -> std::time::Duration {
        self.clock
            .as_ref()
            .map_or(std::time::Duration::ZERO, |clock| clock.now())
    }

    /// Moves this device's clock on to `time` (a wall clock sleeps until
    /// then, stopping early when the run was stopped or its deadline
    /// passed).
    pub(crate) fn advance_clock_to(&mut self, time: std::time::Duration) {
        let fabric = self.device.as_ref().map(|d| d.fabric.clone());
        let deadline = self.deadline_at;
        if let Some(clock) = self.clock.as_mut() {
            clock.advance_to(time, &|| {
                fabric.as_ref().is_some_and(|f| f.is_stopped())
                    || deadline.is_some_and(|at| std::time::Instant::now() >= at)
            });
        }
    }

    /// Lets the link model's transfer for `instr` run until `time`: the
    /// clock moves on to it, and a wall-clock sleep through it ends with
    /// the run's deadline, as an error at `instr`.
    pub(crate) fn transfer_until(
        &mut self,
        instr: Instr,
        time: std::time::Duration,
    ) -> Result<(), RunError> {
        self.advance_clock_to(time);
        if self
            .deadline_at
            .is_some_and(|at| std::time::Instant::now() >= at)
        {
            let mut error = self.deadline_error(instr);
            error.message = error.message.replacen(" here", IN_TRANSFER, 1);
            return Err(error);
        }
        Ok(())
    }

    /// Charges `instr`, which began at `started`, to this device's clock
    /// and puts it on the timeline (the entry computation's instructions on
    /// the compute stream also count as busy time).
    fn record_instruction(&mut self, instr: Instr, started: std::time::Duration) {
        let Some(clock) = self.clock.as_mut() else {
            return;
        };
        clock.charge_instruction(self.module, instr);
        let ended = clock.now();
        let on_compute = self.device.as_ref().is_some_and(|d| d.stream.is_some());
        let top_level = self.depth == 1;
        if let Some(timeline) = self.timeline.as_mut()
            && !clock.within_fusion()
        {
            if top_level && on_compute {
                timeline.busy += ended.saturating_sub(started);
            }
            timeline.push_event(crate::devices::timeline::Event {
                instr,
                track: if on_compute {
                    crate::devices::timeline::Track::Compute
                } else {
                    crate::devices::timeline::Track::Async
                },
                start: started,
                duration: ended.saturating_sub(started),
            });
        }
    }

    /// Refuses an instruction whose result would exceed the size limit, or
    /// has no size (an unbounded dynamic dimension), before computing it.
    fn check_size(&self, instr: Instr) -> Result<(), RunError> {
        let bytes = value_bytes(self.module, self.module.shape_of(instr))
            .map_err(|error| self.error(instr, size_message(&error)))?;
        if bytes > u128::from(self.limits.max_value_bytes) {
            return Err(self.error(
                instr,
                format!(
                    "its result needs {:.1} GiB, more than the limit of {:.1} GiB",
                    bytes as f64 / f64::from(1u32 << 30),
                    self.limits.max_value_bytes as f64 / f64::from(1u32 << 30)
                ),
            ));
        }
        Ok(())
    }

    /// `computation/%instruction`, as errors and reports name `instr`.
    pub(crate) fn place(&self, instr: Instr) -> String {
        format!(
            "{}/%{}",
            self.module.comp(self.module.parent(instr)).name,
            self.module.instr(instr).name
        )
    }

    /// An error at `instr`.
    pub(crate) fn error(&self, instr: Instr, message: impl Into<String>) -> RunError {
        RunError {
            instruction: Some(self.place(instr)),
            instr: Some(instr),
            message: message.into(),
        }
    }
}

/// The order the instructions of `comp` run in (see the module docs): the
/// schedule's sequence, else the text's order when it defines every operand
/// before its use, else XLA's post-order. Shared with the simulator, so a
/// simulation runs exactly what a run would.
pub(crate) fn execution_order(module: &Module, comp: Comp) -> Vec<Instr> {
    match module.schedule().sequence(comp) {
        Some(sequence) => sequence.to_vec(),
        None => {
            text_order(module, comp).unwrap_or_else(|| weft_ir::order::post_order(module, comp))
        }
    }
}

/// The instructions of `comp` in text order, if that order defines every
/// operand before its users.
fn text_order(module: &Module, comp: weft_ir::Comp) -> Option<Vec<Instr>> {
    let body = module.comp(comp).body();
    let mut defined = rustc_hash::FxHashSet::default();
    for &instr in body {
        if module
            .instr(instr)
            .operands
            .iter()
            .any(|o| !defined.contains(o))
        {
            return None;
        }
        defined.insert(instr);
    }
    module
        .comp(comp)
        .root()
        .filter(|root| defined.contains(root))?;
    Some(body.to_vec())
}

/// The bytes a value of `shape` occupies; an error when an array has no
/// size (an unbounded dimension, or a size past `i64`).
fn value_bytes(module: &Module, shape: weft_ir::Shape) -> Result<u128, weft_ir::size::SizeError> {
    match module.shapes.get(shape) {
        weft_ir::ShapeData::Array(array) => Ok(u128::from(array.byte_size()?.get())),
        weft_ir::ShapeData::Tuple(elements) => elements
            .iter()
            .try_fold(0u128, |sum, &e| Ok(sum + value_bytes(module, e)?)),
        _ => Ok(0),
    }
}

/// What a run says of a shape without a size: an unbounded dimension is a
/// shape only a compiler with dynamic shapes can run.
pub(crate) fn size_message(error: &weft_ir::size::SizeError) -> String {
    match error.problem {
        weft_ir::size::SizeProblem::Unbounded { .. } => {
            format!("{error}: weft runs static shapes, and bounded dynamic ones at their bound")
        }
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::{Numbers, decode};

    fn module(text: &str) -> Module {
        weft_ir::text::parse(text).unwrap_or_else(|d| panic!("{}", d.render("test", text)))
    }

    #[test]
    fn an_oversized_result_is_an_error_naming_the_instruction() {
        let m = module(
            "HloModule m\nENTRY e {\n  c = f32[] constant(1)\n  ROOT b = f32[100000,100000] broadcast(c), dimensions={}\n}\n",
        );
        let error = run_with(
            &m,
            Vec::new(),
            Limits {
                max_value_bytes: 1 << 20,
                ..Limits::default()
            },
        )
        .unwrap_err();
        assert_eq!(error.instruction.as_deref(), Some("e/%b"));
        assert!(error.message.contains("37.3 GiB"), "{}", error.message);
    }

    #[test]
    fn arguments_must_match_the_parameters() {
        let m = module("HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n");
        let wrong = Value::Tensor(crate::tensor::Tensor::zeros(
            weft_ir::ElementType::S32,
            &[2],
        ));
        let error = evaluate(&m, vec![wrong]).unwrap_err();
        assert_eq!(error.message, "argument 0 must be f32[2], but it is s32[2]");
        assert!(evaluate(&m, Vec::new()).is_err());
    }

    #[test]
    fn xla_topk_custom_call_returns_values_and_indices() {
        let m = module(
            "HloModule m\nENTRY e {\n  x = f32[5] constant({1, 3, 2, 5, 4})\n  ROOT t = (f32[2], s32[2]) custom-call(x), custom_call_target=\"TopK\"\n}\n",
        );
        let Value::Tuple(parts) = evaluate(&m, Vec::new()).unwrap() else {
            panic!("a tuple")
        };
        let indices = parts[1].as_tensor().unwrap();
        assert_eq!(decode(indices), Numbers::Signed(vec![3, 4]));
    }
}

#[cfg(test)]
mod xla_known_answers {
    use super::*;
    use crate::numbers::{Numbers, decode, encode};

    /// `rng-bit-generator` on state `[12345, 678(, 9)]` giving `u32[3,5]`:
    /// the values XLA:CPU (jaxlib 0.10.2) returns for the same module.
    #[test]
    fn rng_bit_generator_matches_xla() {
        /// Algorithm, state, XLA's next state, XLA's bits.
        type Case<'a> = (&'a str, &'a [u64], &'a [u64], [u64; 15]);
        let cases: [Case; 2] = [
            (
                "rng_three_fry",
                &[12345, 678],
                &[12345, 687],
                [
                    1194812792, 1232543658, 22297115, 1863636269, 3380711233, 837369219,
                    1102409574, 1116434278, 3355973656, 2713253894, 3630461680, 2901764164,
                    1242179602, 153681704, 1204670454,
                ],
            ),
            (
                "rng_philox",
                &[12345, 678, 9],
                &[12345, 682, 9],
                [
                    3227542933, 863022448, 3865583952, 1010072675, 1752207104, 2725129954,
                    2626486073, 2762061021, 1726109637, 669278652, 3585257223, 2077798550,
                    2151636977, 3336290330, 3384517277,
                ],
            ),
        ];
        for (algorithm, state, next_state, bits) in cases {
            let n = state.len();
            let text = format!(
                "HloModule r\nENTRY e {{\n  s = u64[{n}] parameter(0)\n  ROOT r = (u64[{n}], u32[3,5]) rng-bit-generator(s), algorithm={algorithm}\n}}\n"
            );
            let module = weft_ir::text::parse(&text).expect("parses");
            let input = encode(
                weft_ir::ElementType::U64,
                &[n as i64],
                &Numbers::Unsigned(state.to_vec()),
            );
            let Value::Tuple(parts) = evaluate(&module, vec![Value::Tensor(input)]).expect("runs")
            else {
                panic!("a tuple")
            };
            assert_eq!(
                decode(parts[0].as_tensor().unwrap()),
                Numbers::Unsigned(next_state.to_vec()),
                "{algorithm}"
            );
            assert_eq!(
                decode(parts[1].as_tensor().unwrap()),
                Numbers::Unsigned(bits.to_vec()),
                "{algorithm}"
            );
        }
    }
}

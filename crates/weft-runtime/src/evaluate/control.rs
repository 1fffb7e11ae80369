//! Control flow and the ops that call computations or stand for other
//! devices: `while`, `conditional`, the async chain (run to completion on
//! one device), collectives on a single device, and the custom-calls that
//! only annotate their operand.

use weft_ir::{Instr, Opcode, Shape};

use super::{Evaluator, RunError};
use crate::numbers::{Numbers, decode};
use crate::tensor::{Tensor, Value};

impl Evaluator<'_> {
    /// `while`: run the body while the condition holds, at most
    /// [`Limits::max_loop_iterations`](super::Limits) times.
    pub(crate) fn while_loop(&mut self, instr: Instr, init: Value) -> Result<Value, RunError> {
        self.active_loops.push((instr, 0));
        let outcome = self.iterate(instr, init);
        self.active_loops.pop();
        outcome
    }

    fn iterate(&mut self, instr: Instr, init: Value) -> Result<Value, RunError> {
        // XLA keeps a loop's body first, then its condition.
        let (body, condition) = (self.callee(instr, 0)?, self.callee(instr, 1)?);
        let mut state = init;
        let mut iterations: u64 = 0;
        loop {
            let holds = self.call(condition, vec![state.clone()])?;
            let holds = holds
                .as_tensor()
                .and_then(|t| t.bytes.first().copied())
                .ok_or_else(|| self.error(instr, "the loop condition did not return a pred"))?;
            if holds == 0 {
                return Ok(state);
            }
            if self.limits.max_loop_iterations == Some(iterations) {
                return Err(self.error(
                    instr,
                    format!(
                        "this while loop's condition still held after {iterations} iteration(s), the --max-iterations limit"
                    ),
                ));
            }
            iterations += 1;
            if let Some(current) = self.active_loops.last_mut() {
                current.1 = iterations;
            }
            state = self.call(body, vec![state])?;
        }
    }

    /// `conditional`: a `pred` picks the true (first) or false branch; an
    /// index picks its branch, an out-of-range index the last one.
    pub(crate) fn conditional(
        &mut self,
        instr: Instr,
        mut arguments: Vec<Value>,
    ) -> Result<Value, RunError> {
        let branches = self.module.instr(instr).callees.clone();
        if branches.is_empty() || arguments.len() != branches.len() + 1 {
            return Err(self.error(instr, "a conditional needs one operand per branch"));
        }
        let selector = arguments[0]
            .as_tensor()
            .ok_or_else(|| self.error(instr, "the branch selector is not an array"))?;
        let branch = match decode(selector) {
            Numbers::Pred(v) => usize::from(!v.first().copied().unwrap_or(false)),
            Numbers::Signed(v) => {
                let index = v.first().copied().unwrap_or(-1);
                if index < 0 || index as usize >= branches.len() {
                    branches.len() - 1
                } else {
                    index as usize
                }
            }
            _ => return Err(self.error(instr, "the branch selector must be a pred or an s32")),
        };
        let argument = arguments.swap_remove(branch + 1);
        self.call(branches[branch], vec![argument])
    }

    /// `async-start` / `async-update` / `async-done` on one device: the
    /// wrapped computation runs as soon as all its operands are bound, and its
    /// result waits in the chain's value (shaped like the start's tuple:
    /// bound operands, result, context).
    pub(crate) fn async_step(
        &mut self,
        instr: Instr,
        arguments: Vec<Value>,
    ) -> Result<Value, RunError> {
        let opcode = self.module.instr(instr).opcode;
        let start = if opcode == Opcode::AsyncStart {
            instr
        } else {
            self.chains
                .chain_start(instr)
                .ok_or_else(|| self.error(instr, "the async op's chain has no start"))?
        };
        let wrapped = self.callee(start, 0)?;
        let parameter_count = self.module.comp(wrapped).params().len();
        let (mut bound, mut result, previous) = match opcode {
            Opcode::AsyncStart => (arguments, None, None),
            _ => {
                let mut arguments = arguments.into_iter();
                let previous = arguments
                    .next()
                    .ok_or_else(|| self.error(instr, "the async op has no operand"))?;
                let Value::Tuple(slots) = &previous else {
                    return Err(self.error(instr, "the async value is not a tuple"));
                };
                let bound = match slots.first() {
                    Some(Value::Tuple(b)) => b.clone(),
                    _ => return Err(self.error(instr, "the async value has no operand slot")),
                };
                let result = slots
                    .get(1)
                    .cloned()
                    .filter(|_| bound.len() == parameter_count);
                let mut bound = bound;
                bound.extend(arguments);
                (bound, result, Some(previous))
            }
        };
        if result.is_none() && bound.len() == parameter_count {
            let stream = self.device.as_ref().and_then(|d| d.stream.clone());
            result = Some(match stream {
                // On a grid, the wrapped computation runs on the async
                // stream while this device goes on.
                Some(stream) => self.hand_to_stream(
                    instr,
                    start,
                    crate::devices::stream::Job::Call {
                        comp: wrapped,
                        arguments: bound.clone(),
                    },
                    &stream,
                )?,
                None => self.call(wrapped, bound.clone())?,
            });
        }
        if opcode == Opcode::AsyncDone {
            let result = match result {
                Some(value) => Some(self.settle(instr, value)?),
                None => None,
            };
            return result.ok_or_else(|| {
                self.error(
                    instr,
                    format!(
                        "the done is reached with {} of {parameter_count} operands bound",
                        bound.len()
                    ),
                )
            });
        }
        let shape = self.module.shape_of(instr);
        let mut slots = vec![
            Value::Tuple(std::mem::take(&mut bound)),
            result.unwrap_or(Value::Tuple(Vec::new())),
        ];
        let context_shapes: Vec<Shape> = self
            .module
            .shapes
            .tuple_elements(shape)
            .map(|elements| elements.iter().skip(2).copied().collect())
            .unwrap_or_default();
        match previous {
            Some(Value::Tuple(previous_slots))
                if previous_slots.len() == 2 + context_shapes.len() =>
            {
                slots.extend(previous_slots.into_iter().skip(2));
            }
            _ => {
                for context in context_shapes {
                    slots.push(self.zeros(instr, context)?);
                }
            }
        }
        Ok(Value::Tuple(slots))
    }

    /// The value of a start of `shape`: `slots` (operands, result), then its
    /// context slots as zeros.
    fn start_value(
        &self,
        instr: Instr,
        shape: Shape,
        mut slots: Vec<Value>,
    ) -> Result<Value, RunError> {
        let context: Vec<Shape> = self
            .module
            .shapes
            .tuple_elements(shape)
            .map(|e| e.iter().skip(slots.len()).copied().collect())
            .unwrap_or_default();
        for slot in context {
            slots.push(self.zeros(instr, slot)?);
        }
        Ok(Value::Tuple(slots))
    }

    /// A value of zeros of `shape`.
    fn zeros(&self, instr: Instr, shape: Shape) -> Result<Value, RunError> {
        if let Some(elements) = self.module.shapes.tuple_elements(shape) {
            return elements
                .iter()
                .map(|&e| self.zeros(instr, e))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Tuple);
        }
        match self.module.shapes.as_array(shape) {
            Some(array) => Ok(Value::Tensor(Tensor::zeros(array.elem, &array.dims))),
            None if self.module.shapes.get(shape) == &weft_ir::ShapeData::Token => Ok(Value::Token),
            None => Err(self.error(instr, "a context slot of a shape the runtime cannot make")),
        }
    }

    /// A collective (or first-class start/done) when the program runs on one
    /// device: every group is that device alone, so the data stays as it is.
    pub(crate) fn single_device_collective(
        &mut self,
        instr: Instr,
        arguments: Vec<Value>,
    ) -> Result<Value, RunError> {
        if self.device.is_some() {
            return self.collective_on_grid(instr, arguments);
        }
        let config = &self.module.config;
        let devices = config.replicas() * config.num_partitions.unwrap_or(1);
        if devices > 1 {
            return Err(self.error(
                instr,
                format!("this collective needs the program's {devices} devices; the single-device evaluator cannot run it"),
            ));
        }
        let data = self.module.instr(instr);
        let single = |arguments: Vec<Value>| -> Value {
            if arguments.len() == 1 {
                arguments.into_iter().next().expect("one argument")
            } else {
                Value::Tuple(arguments)
            }
        };
        use Opcode as O;
        match data.opcode {
            O::AllReduce
            | O::AllGather
            | O::ReduceScatter
            | O::AllToAll
            | O::CollectiveBroadcast
            | O::CollectiveReduce
            | O::AllReduceStart
            | O::AllReduceDone => Ok(single(arguments)),
            // A group of one: this device's own rows for itself.
            O::RaggedAllToAll => {
                let tensors: Vec<&Tensor> = arguments
                    .iter()
                    .map(Value::as_tensor)
                    .collect::<Option<_>>()
                    .ok_or_else(|| self.error(instr, "a collective's operands must be arrays"))?;
                let contribution = self.ragged_contribution(instr, &tensors)?;
                Ok(Value::Tensor(self.ragged_all_to_all(
                    instr,
                    tensors[1],
                    &[contribution],
                    0,
                )?))
            }
            O::CollectivePermute => {
                let keeps = matches!(&data.attrs, weft_ir::attrs::Attrs::CollectivePermute(p) if p.source_target_pairs.contains(&(0, 0)));
                if keeps {
                    Ok(single(arguments))
                } else {
                    // No pair sends to device 0: it receives zeros.
                    self.zeros(instr, data.shape)
                }
            }
            O::AllGatherStart | O::CollectivePermuteStart | O::CopyStart => {
                let shape = data.shape;
                let operand = single(arguments);
                let result = if data.opcode == O::CollectivePermuteStart
                    && !matches!(&data.attrs, weft_ir::attrs::Attrs::CollectivePermute(p) if p.source_target_pairs.contains(&(0, 0)))
                {
                    let slot = self
                        .module
                        .shapes
                        .tuple_elements(shape)
                        .and_then(|e| e.get(1).copied());
                    match slot {
                        Some(slot) => self.zeros(instr, slot)?,
                        None => operand.clone(),
                    }
                } else {
                    operand.clone()
                };
                self.start_value(instr, shape, vec![operand, result])
            }
            O::AllGatherDone | O::CollectivePermuteDone | O::CopyDone => {
                match arguments.into_iter().next() {
                    Some(Value::Tuple(mut slots)) if slots.len() >= 2 => Ok(slots.swap_remove(1)),
                    _ => Err(self.error(instr, "the done's operand is not its start's value")),
                }
            }
            other => Err(self.error(instr, format!("{} is not a collective", other.name()))),
        }
    }

    /// A collective, first-class start or done on a device of a grid. A start
    /// runs its collective at once and keeps the result in its value's
    /// result slot (shaped as the start's tuple); its done reads the slot.
    fn collective_on_grid(
        &mut self,
        instr: Instr,
        arguments: Vec<Value>,
    ) -> Result<Value, RunError> {
        let data = self.module.instr(instr);
        use Opcode as O;
        match data.opcode {
            O::AllReduce
            | O::AllGather
            | O::ReduceScatter
            | O::AllToAll
            | O::CollectiveBroadcast
            | O::CollectiveReduce
            | O::RaggedAllToAll
            | O::CollectivePermute => self.grid_collective(instr, data.opcode, arguments),
            // all-reduce-start's value is its result (no tuple).
            O::AllReduceStart => self.start_on_stream(instr, data.opcode, arguments),
            O::AllGatherStart | O::CollectivePermuteStart => {
                let shape = data.shape;
                let operand = if arguments.len() == 1 {
                    arguments[0].clone()
                } else {
                    Value::Tuple(arguments.clone())
                };
                let result = self.start_on_stream(instr, data.opcode, arguments)?;
                self.start_value(instr, shape, vec![operand, result])
            }
            O::AllReduceDone => {
                let value = arguments
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.error(instr, "all-reduce-done without its start"))?;
                self.settle(instr, value)
            }
            O::AllGatherDone | O::CollectivePermuteDone | O::CopyDone => {
                match arguments.into_iter().next() {
                    Some(Value::Tuple(mut slots)) if slots.len() >= 2 => {
                        let value = slots.swap_remove(1);
                        self.settle(instr, value)
                    }
                    _ => Err(self.error(instr, "the done's operand is not its start's value")),
                }
            }
            O::CopyStart => {
                let operand = arguments
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.error(instr, "copy-start without an operand"))?;
                Ok(Value::Tuple(vec![
                    operand.clone(),
                    operand,
                    Value::Tensor(Tensor::zeros(weft_ir::ElementType::U32, &[])),
                ]))
            }
            other => Err(self.error(instr, format!("{} is not a collective", other.name()))),
        }
    }

    /// Hands the collective of a start to this device's async stream and
    /// returns its in-flight result (or runs it here when there is no
    /// stream: on the stream itself).
    fn start_on_stream(
        &mut self,
        instr: Instr,
        opcode: Opcode,
        operands: Vec<Value>,
    ) -> Result<Value, RunError> {
        let stream = self.device.as_ref().and_then(|d| d.stream.clone());
        let Some(stream) = stream else {
            return self.grid_collective(instr, opcode, operands);
        };
        self.hand_to_stream(
            instr,
            instr,
            crate::devices::stream::Job::Collective {
                instr,
                opcode,
                operands,
            },
            &stream,
        )
    }

    /// Hands `job`, begun by the start `start`, to this device's async
    /// stream (from `instr`, which errors name) and returns its in-flight
    /// result.
    fn hand_to_stream(
        &mut self,
        instr: Instr,
        start: Instr,
        job: crate::devices::stream::Job,
        stream: &std::sync::mpsc::Sender<crate::devices::stream::AsyncJob>,
    ) -> Result<Value, RunError> {
        let result = crate::tensor::InFlight::new();
        let span = self.async_spans_started;
        self.async_spans_started += 1;
        self.unfinished_starts
            .insert(result.id(), (start, result.clone(), span));
        let job = crate::devices::stream::AsyncJob {
            job,
            result: result.clone(),
            start,
            span,
            started: self.now(),
        };
        // Counted before it is sent, so the tracker never sees the stream
        // idle with a job on its way (see devices::progress).
        let progress = self
            .device
            .as_ref()
            .map(|d| (d.fabric.progress().clone(), d.grid.id(d.id)));
        if let Some((progress, id)) = &progress {
            progress.job_queued(*id);
        }
        if stream.send(job).is_err() {
            if let Some((progress, id)) = &progress {
                progress.job_finished(*id);
            }
            return Err(self.error(instr, "the device's async stream has stopped"));
        }
        Ok(Value::InFlight(result))
    }

    /// `value` with every in-flight part waited for: what a done returns.
    pub(crate) fn settle(&mut self, instr: Instr, value: Value) -> Result<Value, RunError> {
        match value {
            Value::InFlight(pending) => {
                let span = self.unfinished_starts.remove(&pending.id()).map(|u| u.2);
                // Time spent here is communication the device could not
                // hide: from the wait to the moment the result was ready
                // (not to the moment this thread got a core again).
                let waited = self.now();
                // Blocked only while the stream waits too (see devices::progress).
                let at_done = crate::devices::progress::AtDone::enter(self.device.as_ref(), || {
                    self.error(instr, "").instruction.unwrap_or_default()
                });
                let (settled, ready) = pending.wait_timed();
                drop(at_done);
                let settled = settled.map_err(|message| {
                    if message.contains(super::DEADLINE_PASSED) {
                        let mut error = self.deadline_error(instr);
                        error.message = error.message.replacen(" here", super::AT_DONE, 1);
                        error
                    } else {
                        self.error(instr, format!("its async operation failed: {message}"))
                    }
                })?;
                self.advance_clock_to(ready);
                if let Some(timeline) = self.timeline.as_mut() {
                    timeline.exposed += ready.saturating_sub(waited);
                    if let Some(span) = span {
                        timeline.push_done(span, instr, waited);
                    }
                }
                self.settle(instr, settled)
            }
            Value::Tuple(elements) => elements
                .into_iter()
                .map(|e| self.settle(instr, e))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Tuple),
            other => Ok(other),
        }
    }

    /// The custom-calls the evaluator knows.
    pub(crate) fn custom_call(
        &mut self,
        instr: Instr,
        target: &str,
        arguments: Vec<Value>,
    ) -> Result<Value, RunError> {
        if let Some(outcome) = self.check_call(instr, target, &arguments) {
            return outcome;
        }
        let devices = self.device.as_ref().map_or(1, |device| device.grid.len());
        match target {
            // A bug on demand, for the tests of how a panic is caught.
            #[cfg(test)]
            "weft.test.panic" => panic!("the test asked for a panic"),
            // Annotations for the partitioner: on one device a global value
            // is the local one, so they pass their operand through.
            _ if weft_ir::partitioner::is_marker(target)
                && devices == 1
                && arguments.len() == 1
                && super::instruction::describe_value_shape(&arguments[0])
                    == super::instruction::describe_shape(
                        self.module,
                        self.module.shape_of(instr),
                    ) =>
            {
                Ok(arguments.into_iter().next().expect("one argument"))
            }
            // XLA's TopK custom-call: the k largest along the last dimension,
            // as a (values, indices) tuple; k comes from the result's shape.
            "TopK" if arguments.len() == 1 => {
                let Some(Value::Tensor(input)) = arguments.first() else {
                    return Err(self.error(instr, "TopK takes one array"));
                };
                let shape = self.module.shape_of(instr);
                let k = self
                    .module
                    .shapes
                    .tuple_elements(shape)
                    .and_then(|e| e.first().copied())
                    .and_then(|values| self.module.shapes.as_array(values))
                    .and_then(|a| a.dims.last().copied())
                    .ok_or_else(|| {
                        self.error(instr, "TopK must return a (values, indices) tuple")
                    })?;
                let (values, indices) =
                    super::top_k::top_k(input, k, true).map_err(|m| self.error(instr, m))?;
                Ok(Value::Tuple(vec![
                    Value::Tensor(values),
                    Value::Tensor(indices),
                ]))
            }
            // Anywhere else they mean the program is not the per-device one.
            _ if weft_ir::partitioner::is_marker(target) => Err(self.error(
                instr,
                format!(
                    "custom-call target \"{target}\" marks a program before SPMD partitioning, which weft does not do; run the per-device HLO XLA compiles (from JAX: `jax.jit(f).lower(…).compile().as_text()`), or a shard_map program's StableHLO (`jax.jit(f).lower(…).as_text()`), whose shardings weft lowers"
                ),
            )),
            _ => Err(self.error(
                instr,
                format!("custom-call target \"{target}\" is not supported by the evaluator"),
            )),
        }
    }
}

//! The lockstep machine: every equivalence class's compute stream and
//! async stream, stepped together through the one instruction trace every
//! device runs.
//!
//! Each class keeps what a run's device keeps under virtual timing — a
//! clock per stream and a [`DeviceTimeline`] per stream, joined at the end
//! — and every rule is the runtime's (`docs/runtime.md`):
//!
//! - an instruction advances its stream's clock by its modelled cost
//!   (`Profile::time(work::of(..))`), and a top-level instruction of the
//!   entry on the compute stream counts as busy time;
//! - a collective sets each member's clock to the latest arrival of its
//!   group, plus its group's transfer, plus the modelled host work; on the
//!   compute stream all of it is exposed;
//! - a permute receives at its source's arrival plus the transfer;
//! - a start hands its job to the async stream, which takes it up at the
//!   later of the start's time and the end of its previous job; the done
//!   moves the compute clock on to the moment the job's result was ready,
//!   and the wait is exposed. Work started on the async stream runs there
//!   synchronously.
//!
//! A job's timing depends only on its start's time, the stream's previous
//! job and the other members' arrivals at the same collective — which
//! every class reaches at the same step of the trace — so the machine runs
//! each job when its start runs, for every class at once.
//!
//! Values are not computed. What time depends on is which async operation
//! a done waits for, and a value carries that through tuples, loop states
//! and calls: the machine tracks it as a [`Carried`] value — the async
//! operations in flight a value holds — so a done in the next iteration of
//! a software-pipelined loop finds the start of the last.

use std::rc::Rc;
use std::time::Duration;

use rustc_hash::FxHashMap;
use weft_ir::opcode::Flags;
use weft_ir::{Comp, Instr, Module, Opcode};

use super::classes::Classes;
use super::control::Control;
use super::plan::{Plan, Receipt, place};
use crate::devices::timeline::{AsyncSpan, CollectiveRecord, DeviceTimeline, Event, Track};
use crate::evaluate::RunError;

/// What a value holds that time depends on: the async operations in
/// flight in it (by span id), through tuples.
#[derive(Clone, Debug)]
pub(super) enum Carried {
    /// Nothing in flight.
    Nothing,
    /// The result of the async operation with this span id.
    InFlight(u64),
    /// A tuple's elements.
    Tuple(Rc<Vec<Carried>>),
}

impl Carried {
    /// Element `index` of a tuple (nothing of anything else).
    fn element(&self, index: usize) -> Carried {
        match self {
            Carried::Tuple(elements) => elements.get(index).cloned().unwrap_or(Carried::Nothing),
            _ => Carried::Nothing,
        }
    }

    /// Every async operation in flight in it, in tuple order.
    fn in_flight(&self, out: &mut Vec<u64>) {
        match self {
            Carried::Nothing => {}
            Carried::InFlight(span) => out.push(*span),
            Carried::Tuple(elements) => elements.iter().for_each(|e| e.in_flight(out)),
        }
    }
}

/// One class's two streams.
pub(super) struct ClassState {
    /// The compute stream's clock.
    pub(super) compute: Duration,
    /// The async stream's clock.
    pub(super) stream: Duration,
    /// The compute stream's timeline.
    pub(super) compute_timeline: DeviceTimeline,
    /// The async stream's timeline.
    pub(super) stream_timeline: DeviceTimeline,
}

impl ClassState {
    fn now(&self, track: Track) -> Duration {
        match track {
            Track::Compute => self.compute,
            Track::Async => self.stream,
        }
    }

    fn clock(&mut self, track: Track) -> &mut Duration {
        match track {
            Track::Compute => &mut self.compute,
            Track::Async => &mut self.stream,
        }
    }

    fn timeline(&mut self, track: Track) -> &mut DeviceTimeline {
        match track {
            Track::Compute => &mut self.compute_timeline,
            Track::Async => &mut self.stream_timeline,
        }
    }
}

/// An async operation handed to the streams whose done has not run.
struct Pending {
    start: Instr,
    /// When the start handed it over, per class.
    started: Vec<Duration>,
    /// When the stream took it up, per class.
    began: Vec<Duration>,
    /// When its result was ready, per class (once it ran).
    ready: Vec<Duration>,
}

/// The machine.
pub(super) struct Machine<'m, 'o> {
    module: &'m Module,
    profile: &'o weft_cost::Profile,
    pub(super) control: Control<'m, 'o>,
    plans: FxHashMap<Instr, Plan>,
    classes: &'o Classes,
    /// A device of each class, whose groups stand for the class's.
    representatives: Vec<usize>,
    pub(super) states: Vec<ClassState>,
    costs: FxHashMap<Instr, Duration>,
    orders: FxHashMap<Comp, Rc<Vec<Instr>>>,
    /// How many times each instruction ran, per stream (the same on every
    /// class: the trace is one).
    occurrences: FxHashMap<(Instr, bool), u64>,
    pending: FxHashMap<u64, Pending>,
    spans_started: u64,
    depth: usize,
}

impl<'m, 'o> Machine<'m, 'o> {
    /// A machine of one class per class of `classes`, each at time zero.
    pub(super) fn new(
        module: &'m Module,
        profile: &'o weft_cost::Profile,
        control: Control<'m, 'o>,
        plans: FxHashMap<Instr, Plan>,
        classes: &'o Classes,
        detail: crate::devices::timeline::Detail,
    ) -> Machine<'m, 'o> {
        Machine {
            module,
            profile,
            control,
            plans,
            classes,
            representatives: classes.devices.iter().map(|d| d[0]).collect(),
            states: (0..classes.len())
                .map(|_| ClassState {
                    compute: Duration::ZERO,
                    stream: Duration::ZERO,
                    compute_timeline: DeviceTimeline::new(detail),
                    stream_timeline: DeviceTimeline::new(detail),
                })
                .collect(),
            costs: FxHashMap::default(),
            orders: FxHashMap::default(),
            occurrences: FxHashMap::default(),
            pending: FxHashMap::default(),
            spans_started: 0,
            depth: 0,
        }
    }
}

impl Machine<'_, '_> {
    /// Runs `comp` on `track` with its parameters bound to `arguments`.
    pub(super) fn run(
        &mut self,
        comp: Comp,
        track: Track,
        arguments: Vec<Carried>,
    ) -> Result<Carried, RunError> {
        if self.depth >= weft_ir::MAX_CALL_DEPTH {
            return Err(RunError {
                instruction: Some(self.module.comp(comp).name.to_string()),
                instr: None,
                message: format!(
                    "this call would nest computations more than {} deep",
                    weft_ir::MAX_CALL_DEPTH
                ),
            });
        }
        let module = self.module;
        let data = module.comp(comp);
        let mut environment: FxHashMap<Instr, Carried> = FxHashMap::default();
        for (&param, argument) in data.params().iter().zip(arguments) {
            environment.insert(param, argument);
        }
        let order = match self.orders.get(&comp) {
            Some(order) => order.clone(),
            None => {
                let order = Rc::new(crate::evaluate::execution_order(module, comp));
                self.orders.insert(comp, order.clone());
                order
            }
        };
        self.depth += 1;
        let mut started = Vec::with_capacity(self.states.len());
        for &instr in order.iter() {
            if module.instr(instr).opcode == Opcode::Parameter {
                continue;
            }
            started.clear();
            started.extend(self.states.iter().map(|s| s.now(track)));
            let value = self.step(instr, track, &environment);
            let value = match value {
                Ok(value) => value,
                Err(error) => {
                    self.depth -= 1;
                    return Err(error);
                }
            };
            self.charge(instr, track, &started);
            environment.insert(instr, value);
        }
        self.depth -= 1;
        Ok(data
            .root()
            .and_then(|root| environment.remove(&root))
            .unwrap_or(Carried::Nothing))
    }

    /// Charges `instr`, which began at `started` (per class), to `track`'s
    /// clock and puts it on the timeline.
    fn charge(&mut self, instr: Instr, track: Track, started: &[Duration]) {
        let cost = match self.costs.get(&instr) {
            Some(&cost) => cost,
            None => {
                let cost = self.profile.time(&weft_cost::work::of(self.module, instr));
                self.costs.insert(instr, cost);
                cost
            }
        };
        let top_level = self.depth == 1 && track == Track::Compute;
        for (state, &began) in self.states.iter_mut().zip(started) {
            let clock = state.clock(track);
            *clock = clock.saturating_add(cost);
            let ended = *clock;
            let timeline = state.timeline(track);
            if top_level {
                timeline.busy += ended.saturating_sub(began);
            }
            timeline.push_event(Event {
                instr,
                track,
                start: began,
                duration: ended.saturating_sub(began),
            });
        }
    }

    /// Runs `instr` on `track` for every class; returns what its value
    /// carries.
    fn step(
        &mut self,
        instr: Instr,
        track: Track,
        environment: &FxHashMap<Instr, Carried>,
    ) -> Result<Carried, RunError> {
        let module = self.module;
        let data = module.instr(instr);
        let operand = |index: usize| {
            data.operands
                .get(index)
                .and_then(|o| environment.get(o))
                .cloned()
                .unwrap_or(Carried::Nothing)
        };
        let operands = || (0..data.operands.len()).map(operand).collect::<Vec<_>>();
        use Opcode as O;
        Ok(match data.opcode {
            O::Tuple => Carried::Tuple(Rc::new(operands())),
            O::GetTupleElement => match &data.attrs {
                weft_ir::attrs::Attrs::GetTupleElement { index } => {
                    operand(0).element(*index as usize)
                }
                _ => Carried::Nothing,
            },
            O::OptimizationBarrier | O::AddDependency | O::Domain | O::Copy | O::Bitcast => {
                operand(0)
            }
            O::While => {
                let trips = self.control.trip_count(instr)?;
                let (body, condition) = (callee(module, instr, 0)?, callee(module, instr, 1)?);
                let mut state = operand(0);
                for _ in 0..trips {
                    self.run(condition, track, vec![state.clone()])?;
                    state = self.run(body, track, vec![state])?;
                }
                self.run(condition, track, vec![state.clone()])?;
                state
            }
            O::Conditional => {
                let branch = self.control.branch(instr)?;
                let comp = callee(module, instr, branch)?;
                self.run(comp, track, vec![operand(branch + 1)])?
            }
            O::Call => {
                let comp = callee(module, instr, 0)?;
                self.run(comp, track, operands())?
            }
            // One kernel, charged as a whole: what it fuses is not.
            O::Fusion => Carried::Nothing,
            O::AsyncStart => {
                let wrapped = callee(module, instr, 0)?;
                let arguments = operands();
                let result = match track {
                    Track::Compute => {
                        let span = self.begin_job(instr);
                        self.run(wrapped, Track::Async, arguments.clone())?;
                        self.end_job(instr, span);
                        Carried::InFlight(span)
                    }
                    // On the async stream, work runs where it starts.
                    Track::Async => self.run(wrapped, Track::Async, arguments.clone())?,
                };
                Carried::Tuple(Rc::new(vec![Carried::Tuple(Rc::new(arguments)), result]))
            }
            O::AsyncUpdate => operand(0),
            O::AsyncDone => {
                self.settle(instr, track, &operand(0).element(1));
                Carried::Nothing
            }
            O::AllReduceStart | O::AllGatherStart | O::CollectivePermuteStart => match track {
                Track::Compute => {
                    let span = self.begin_job(instr);
                    self.collective(instr, Track::Async)?;
                    self.end_job(instr, span);
                    let result = Carried::InFlight(span);
                    if data.opcode == O::AllReduceStart {
                        result
                    } else {
                        Carried::Tuple(Rc::new(vec![Carried::Nothing, result]))
                    }
                }
                Track::Async => {
                    self.collective(instr, Track::Async)?;
                    Carried::Nothing
                }
            },
            O::AllReduceDone | O::AllGatherDone | O::CollectivePermuteDone => {
                let value = operand(0);
                let result = match data.opcode {
                    O::AllReduceDone => value,
                    _ => value.element(1),
                };
                self.settle(instr, track, &result);
                Carried::Nothing
            }
            // Every other collective (the starts are matched above).
            _ if data.opcode.has(Flags::COLLECTIVE) => {
                self.collective(instr, track)?;
                Carried::Nothing
            }
            O::Send | O::SendDone | O::Recv | O::RecvDone => {
                return Err(self.error(
                    instr,
                    format!(
                        "{} is not simulated yet: a simulation models collectives and their async forms; run the program with `weft run --timing virtual`",
                        data.opcode.name()
                    ),
                ));
            }
            O::CustomCall
                if matches!(&data.attrs, weft_ir::attrs::Attrs::CustomCall(call)
                    if call.target == weft_ir::interpreter_calls::RUN_PARALLEL) =>
            {
                return Err(self.error(
                    instr,
                    "interpreter.run_parallel runs programs of its own, which a simulation does not; run it with `weft run`",
                ));
            }
            _ => Carried::Nothing,
        })
    }

    /// A start hands a job to the async stream: every class's stream takes
    /// it up at the later of now and the end of its previous job. Returns
    /// the job's span id.
    fn begin_job(&mut self, start: Instr) -> u64 {
        let span = self.spans_started;
        self.spans_started += 1;
        let started: Vec<Duration> = self.states.iter().map(|s| s.compute).collect();
        for state in &mut self.states {
            state.stream = state.stream.max(state.compute);
        }
        let began = self.states.iter().map(|s| s.stream).collect();
        self.pending.insert(
            span,
            Pending {
                start,
                started,
                began,
                ready: Vec::new(),
            },
        );
        span
    }

    /// The job of `span`, begun by `start`, has run on every class's
    /// stream: its span and its event go on the stream's timeline.
    fn end_job(&mut self, start: Instr, span: u64) {
        let Some(pending) = self.pending.get_mut(&span) else {
            return;
        };
        pending.ready = self.states.iter().map(|s| s.stream).collect();
        for (class, state) in self.states.iter_mut().enumerate() {
            let (started, began, ready) = (
                pending.started[class],
                pending.began[class],
                pending.ready[class],
            );
            state.stream_timeline.push_event(Event {
                instr: start,
                track: Track::Async,
                start: began,
                duration: ready.saturating_sub(began),
            });
            state.stream_timeline.push_span(AsyncSpan {
                id: span,
                start,
                started,
                began,
                ready,
                done: None,
            });
        }
    }

    /// A done waits for every async operation in flight in `value`: the
    /// compute clock moves on to when each result was ready, and the wait
    /// is exposed.
    fn settle(&mut self, done: Instr, track: Track, value: &Carried) {
        let mut spans = Vec::new();
        value.in_flight(&mut spans);
        for span in spans {
            let Some(pending) = self.pending.remove(&span) else {
                continue;
            };
            for (state, &ready) in self.states.iter_mut().zip(&pending.ready) {
                let waited = state.now(track);
                let clock = state.clock(track);
                *clock = (*clock).max(ready);
                let timeline = state.timeline(track);
                timeline.exposed += ready.saturating_sub(waited);
                timeline.push_done(span, done, waited);
            }
        }
    }

    /// The collective `instr` (or the one a first-class start begins) on
    /// `track`, for every class.
    fn collective(&mut self, instr: Instr, track: Track) -> Result<(), RunError> {
        let on_stream = track == Track::Async;
        let occurrence = {
            let count = self.occurrences.entry((instr, on_stream)).or_insert(0);
            *count += 1;
            *count - 1
        };
        let Some(plan) = self.plans.get(&instr) else {
            return Err(self.error(instr, "a collective the simulation did not plan (a bug)"));
        };
        let arrived: Vec<Duration> = self.states.iter().map(|s| s.now(track)).collect();
        let class_of = &self.classes.class_of;
        for (class, state) in self.states.iter_mut().enumerate() {
            let device = self.representatives[class];
            let arrival = arrived[class];
            let record = match plan {
                Plan::Groups { groups, group_of } => {
                    // Outside every group of a broadcast or reduce: zeros,
                    // at once, and no instance.
                    let Some(index) = group_of[device] else {
                        continue;
                    };
                    let group = &groups[index];
                    let met = group
                        .members
                        .iter()
                        .map(|&member| arrived[class_of[member]])
                        .max()
                        .unwrap_or(arrival)
                        .max(arrival);
                    let clock = state.clock(track);
                    *clock = (*clock).max(met.saturating_add(group.transfer));
                    *clock = clock.saturating_add(group.host);
                    CollectiveRecord {
                        instr,
                        occurrence,
                        group: index,
                        peers: group.members.clone(),
                        bytes: group.received,
                        arrived: arrival,
                        met,
                        transfer: group.transfer,
                        host: group.host,
                        ready: *clock,
                        asynchronous: on_stream,
                    }
                }
                Plan::Permute { receipts, bytes } => match receipts[device] {
                    Receipt::From { source, transfer } => {
                        let sent = arrived[class_of[source]];
                        let data_arrived = sent.saturating_add(transfer);
                        let clock = state.clock(track);
                        *clock = (*clock).max(data_arrived);
                        let met = arrival.max(sent);
                        let transfer = data_arrived.saturating_sub(met);
                        CollectiveRecord {
                            instr,
                            occurrence,
                            group: 0,
                            peers: vec![source, device],
                            bytes: *bytes,
                            arrived: arrival,
                            met,
                            transfer,
                            host: Duration::ZERO,
                            ready: (*clock).max(met + transfer),
                            asynchronous: on_stream,
                        }
                    }
                    Receipt::Nothing => CollectiveRecord {
                        instr,
                        occurrence,
                        group: 0,
                        peers: vec![device],
                        bytes: 0.0,
                        arrived: arrival,
                        met: arrival,
                        transfer: Duration::ZERO,
                        host: Duration::ZERO,
                        ready: arrival,
                        asynchronous: on_stream,
                    },
                },
            };
            let timeline = state.timeline(track);
            if track == Track::Compute {
                timeline.exposed += record.communication();
            }
            timeline.add_collective(record);
        }
        Ok(())
    }

    /// Fails when a start's done never ran, as a run does: the earliest
    /// such start.
    pub(super) fn check_finished(&self) -> Result<(), RunError> {
        let Some(start) = self
            .pending
            .values()
            .map(|p| p.start)
            .min_by_key(|&start| Module::instr_index(start))
        else {
            return Ok(());
        };
        let others = match self.pending.len() {
            1 => String::new(),
            n => format!(" (and {} other start(s))", n - 1),
        };
        Err(self.error(
            start,
            format!(
                "this asynchronous operation was started but no done finished it before the entry computation returned{others}; every start needs its done to run"
            ),
        ))
    }

    fn error(&self, instr: Instr, message: impl Into<String>) -> RunError {
        RunError {
            instruction: Some(place(self.module, instr)),
            instr: Some(instr),
            message: message.into(),
        }
    }
}

/// Callee `index` of `instr`.
fn callee(module: &Module, instr: Instr, index: usize) -> Result<Comp, RunError> {
    module
        .instr(instr)
        .callees
        .get(index)
        .copied()
        .ok_or_else(|| RunError {
            instruction: Some(place(module, instr)),
            instr: Some(instr),
            message: format!("it has no called computation {index}"),
        })
}

//! XLA's rules for asynchronous operations (R1–R14 of the async notes), as
//! `hlo_verifier.cc` applies them today:
//!
//! - per generic async op (`ShapeVerifier::CheckAsyncOp`): R1 output form, R2
//!   shapes against the wrapped computation (prefixes, for late binding), R3
//!   thread, R4 operands, R5 aliasing;
//! - module-wide (`VerifyAsynchronousInstructionPairs`): R6 uses of async
//!   values, R7 first-class pairs, R8 chains, R9 unmatched starts and R10 orphan
//!   updates (both excused when the value is carried across a while loop);
//! - R11 one instruction per main-thread async computation (with XLA's two
//!   exemptions), R13 callers run on their callees' thread;
//! - R12 buffers (`VerifyBuffers`, in [`buffers`]): where `b(…)` shapes may
//!   appear and that each buffer has one writer; async ops are exempt, and an
//!   async computation is checked only through its root custom-call;
//! - R14 on scheduled modules (`VerifyNoCollectiveDeadlocks`, in
//!   [`collective_deadlock`]): sends and receives pair up without a collective
//!   or a conflicting transfer in between, grouped transfers inside a
//!   multi-instruction async computation on a machine of their own.
//!
//! A chain's value may pass through intermediaries (tuple, get-tuple-element,
//! copy, opt-barrier, metadata custom-calls, while loops): [`ChainTracer`]
//! follows them exactly as XLA does.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::async_chain::{ChainTracer, is_metadata_custom_call};
use crate::attrs::Attrs;
use crate::module::{Comp, Instr, MAIN_THREAD};
use crate::opcode::Opcode;
use crate::shape::Shape;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;
use crate::verify::{buffers, collective_deadlock};

pub(super) fn check(cx: &mut Checker) {
    let mut tracer = ChainTracer::new(cx.m);
    let mut async_ops = Vec::new();
    let mut first_class = Vec::new();
    for comp in cx.computations() {
        for &instr in cx.body(comp) {
            let opcode = cx.data(instr).opcode;
            if opcode.is_generic_async() {
                async_ops.push(instr);
            } else if opcode.first_class_partner().is_some()
                || matches!(
                    opcode,
                    Opcode::Send | Opcode::Recv | Opcode::SendDone | Opcode::RecvDone
                )
            {
                first_class.push(instr);
            }
        }
    }
    let users = Users::of(cx, &async_ops, &first_class);
    for &instr in &async_ops {
        check_async_op(cx, &mut tracer, instr);
    }
    check_uses(cx, &users, &async_ops);
    check_first_class_pairs(cx, &mut tracer, &users, &first_class);
    check_chains(cx, &mut tracer, &users, &async_ops);
    check_async_computations(cx, &async_ops);
    buffers::check(cx);
    check_caller_threads(cx);
    if cx.options.collective_deadlocks {
        collective_deadlock::check(cx);
    }
}

/// The users of the async values (and first-class starts) of the module,
/// found in one pass; `(user, operand number)` pairs.
struct Users {
    of: FxHashMap<Instr, Vec<(Instr, usize)>>,
}

impl Users {
    fn of(cx: &Checker, async_ops: &[Instr], first_class: &[Instr]) -> Users {
        let mut of: FxHashMap<Instr, Vec<(Instr, usize)>> = async_ops
            .iter()
            .chain(first_class)
            .map(|&i| (i, Vec::new()))
            .collect();
        if !of.is_empty() {
            for comp in cx.computations() {
                for &user in cx.body(comp) {
                    for (n, operand) in cx.data(user).operands.iter().enumerate() {
                        if let Some(list) = of.get_mut(operand) {
                            list.push((user, n));
                        }
                    }
                }
            }
        }
        Users { of }
    }

    fn get(&self, instr: Instr) -> &[(Instr, usize)] {
        self.of.get(&instr).map_or(&[], Vec::as_slice)
    }
}

// ----- R1–R5: one async op -----

fn check_async_op(cx: &mut Checker, tracer: &mut ChainTracer, instr: Instr) {
    let data = cx.data(instr);
    let opcode = data.opcode;
    let shape = data.shape;
    let is_done = opcode == Opcode::AsyncDone;
    // R1: ((operands…), output, context…).
    let form = if is_done {
        None
    } else {
        match cx.tuple(shape) {
            Some(elements) if elements.len() >= 2 && cx.tuple(elements[0]).is_some() => {
                Some((elements[0], elements[1]))
            }
            _ => {
                cx.report(
                    Rule::AsyncOutputForm,
                    instr,
                    format!(
                        "The output shape of {opcode} {} must be a tuple of at least 2 elements whose first element is a tuple of the bound operands, but is {}",
                        cx.name(instr),
                        cx.text(shape)
                    ),
                )
                .with_hint("write it as ((operand shapes…), output shape, context…), e.g. ((f32[8]), f32[8], s32[])");
                return;
            }
        }
    };
    let Some(computation) = tracer.wrapped_computation(instr) else {
        // R4/R8 report ops that reach no start; nothing to compare against.
        return;
    };
    let params = cx.param_shapes(computation);
    let Some(result) = cx.root_shape(computation) else {
        return;
    };
    let comp_name = cx.m.comps[computation].name.clone();
    let result_text = cx.text(result);
    let layout_sensitive = cx.options.layout_sensitive;
    // R2: prefixes of the computation's parameters and result.
    if let Some((bound, output)) = form {
        let bound_elements = cx.tuple(bound).unwrap_or(&[]);
        let is_prefix = |cx: &Checker, a: Shape, b: Shape| {
            crate::shape_util::is_prefix(&cx.m.shapes, a, b, layout_sensitive)
        };
        let operands_ok = bound_elements.len() <= params.len()
            && bound_elements
                .iter()
                .zip(&params)
                .all(|(&b, &p)| is_prefix(cx, b, p));
        if !operands_ok {
            let want: Vec<String> = params.iter().map(|&p| cx.text(p)).collect();
            cx.report(
                Rule::AsyncComputationShapes,
                instr,
                format!(
                    "{opcode} {}: the bound operands {} are not a prefix of the parameters of %{comp_name} ({})",
                    cx.name(instr),
                    cx.text(bound),
                    want.join(", ")
                ),
            )
            .with_hint("element {0} lists the shapes of the operands bound so far, in parameter order");
        }
        if !is_prefix(cx, output, result) {
            cx.report(
                Rule::AsyncComputationShapes,
                instr,
                format!(
                    "{opcode} {}: the output {} is not a prefix of the result {} of %{comp_name}",
                    cx.name(instr),
                    cx.text(output),
                    cx.text(result)
                ),
            )
            .with_hint(format!(
                "element {{1}} is the computation's result, {result_text}, or () while the output is unbound"
            ));
        }
    } else if !cx.same(shape, result) {
        cx.report(
            Rule::AsyncComputationShapes,
            instr,
            format!(
                "async-done {} has shape {}, but the wrapped computation %{comp_name} returns {}",
                cx.name(instr),
                cx.text(shape),
                cx.text(result)
            ),
        )
        .with_hint(format!("the done's shape is the result, {result_text}"));
    }
    // R3: the chain's thread is the computation's.
    let thread = tracer.thread(instr);
    let computation_thread = cx.m.comps[computation].thread();
    if thread != computation_thread {
        cx.report(
            Rule::AsyncThread,
            instr,
            format!(
                "{opcode} {} runs on thread \"{thread}\", but its wrapped computation %{comp_name} is on thread \"{computation_thread}\"",
                cx.name(instr)
            ),
        )
        .at_attribute("async_execution_thread");
    }
    check_operands(cx, tracer, instr, form, computation, params.len());
    if form.is_some() {
        check_aliasing(cx, instr, computation);
    }
}

/// R4: what the start, update and done take.
fn check_operands(
    cx: &mut Checker,
    tracer: &mut ChainTracer,
    instr: Instr,
    form: Option<(Shape, Shape)>,
    computation: Comp,
    parameter_count: usize,
) {
    let data = cx.data(instr);
    let operands = &data.operands;
    match data.opcode {
        Opcode::AsyncStart => {
            let Some((bound, _)) = form else { return };
            let slots = cx.tuple(bound).unwrap_or(&[]);
            if operands.len() != slots.len() {
                cx.report(
                    Rule::AsyncOperands,
                    instr,
                    format!(
                        "async-start {} has {} operands, but its shape binds {}",
                        cx.name(instr),
                        operands.len(),
                        slots.len()
                    ),
                )
                .with_hint("element {0} of the shape lists one shape per operand");
                return;
            }
            for (i, (&operand, &slot)) in operands.iter().zip(slots).enumerate() {
                let actual = cx.shape_of(operand);
                if !cx.same(actual, slot) {
                    cx.report(
                        Rule::AsyncOperands,
                        instr,
                        format!(
                            "operand {i} of async-start {} is {}, but the shape binds {} in its place",
                            cx.name(instr),
                            cx.text(actual),
                            cx.text(slot)
                        ),
                    )
                    .at_operand(i);
                }
            }
        }
        Opcode::AsyncUpdate => {
            let Some((bound, output)) = form else { return };
            let Some(&first) = operands.first() else {
                cx.report(
                    Rule::AsyncOperands,
                    instr,
                    format!("async-update {} has no operands", cx.name(instr)),
                )
                .with_hint("operand 0 is the async-start or async-update before it");
                return;
            };
            let Some(producer) = tracer.producer(first, &[]) else {
                cx.report(
                    Rule::AsyncOperands,
                    instr,
                    format!(
                        "operand 0 of async-update {} does not come from an async-start or async-update",
                        cx.name(instr)
                    ),
                )
                .at_operand(0);
                return;
            };
            if !wraps_same_computation(cx, tracer, instr, producer, computation) {
                return;
            }
            let producer_shape = cx.shape_of(producer);
            let Some(producer_elements) = cx.tuple(producer_shape).filter(|e| e.len() >= 2) else {
                return;
            };
            let layout_sensitive = cx.options.layout_sensitive;
            let prefix = |cx: &Checker, a, b| {
                crate::shape_util::is_prefix(&cx.m.shapes, a, b, layout_sensitive)
            };
            if !prefix(cx, producer_elements[0], bound) || !prefix(cx, producer_elements[1], output)
            {
                cx.report(
                    Rule::AsyncOperands,
                    instr,
                    format!(
                        "async-update {} binds less than {} before it: {} is not a prefix of {}",
                        cx.name(instr),
                        cx.name(producer),
                        cx.text(producer_shape),
                        cx.text(cx.shape_of(instr))
                    ),
                )
                .with_hint("an update keeps everything the op before it bound and may bind more");
                return;
            }
            let before = cx.tuple(producer_elements[0]).map_or(0, <[Shape]>::len);
            let slots = cx.tuple(bound).unwrap_or(&[]);
            let growth = slots.len().saturating_sub(before);
            if operands.len() - 1 != growth {
                cx.report(
                    Rule::AsyncOperands,
                    instr,
                    format!(
                        "async-update {} binds {growth} more operand{} but has {} extra operand{}",
                        cx.name(instr),
                        if growth == 1 { "" } else { "s" },
                        operands.len() - 1,
                        if operands.len() == 2 { "" } else { "s" }
                    ),
                );
                return;
            }
            for (k, &operand) in operands.iter().enumerate().skip(1) {
                let slot = slots[before + k - 1];
                let actual = cx.shape_of(operand);
                if !cx.same(actual, slot) {
                    cx.report(
                        Rule::AsyncOperands,
                        instr,
                        format!(
                            "operand {k} of async-update {} is {}, but it binds parameter {} of shape {}",
                            cx.name(instr),
                            cx.text(actual),
                            before + k - 1,
                            cx.text(slot)
                        ),
                    )
                    .at_operand(k);
                }
            }
        }
        Opcode::AsyncDone => {
            if operands.len() != 1 {
                cx.report(
                    Rule::AsyncOperands,
                    instr,
                    format!(
                        "async-done {} must have exactly one operand, has {}",
                        cx.name(instr),
                        operands.len()
                    ),
                );
                return;
            }
            let Some(producer) = tracer.producer(operands[0], &[]) else {
                // R8 reports a done that reaches no start.
                return;
            };
            if !wraps_same_computation(cx, tracer, instr, producer, computation) {
                return;
            }
            let bound = cx
                .tuple(cx.shape_of(producer))
                .and_then(|e| e.first().copied())
                .and_then(|b| cx.tuple(b))
                .map_or(0, <[Shape]>::len);
            if bound != parameter_count {
                cx.report(
                    Rule::AsyncOperands,
                    instr,
                    format!(
                        "async-done {} ends a chain whose operands are not all bound: {} binds {bound} of the {parameter_count} parameters of %{}",
                        cx.name(instr),
                        cx.name(producer),
                        cx.m.comps[computation].name
                    ),
                )
                .with_hint("bind the remaining operands with an async-update before the done");
            }
        }
        _ => {}
    }
}

/// Whether `producer` (the op before `instr` in its chain) wraps `computation`
/// too; reports it under R4 when not.
fn wraps_same_computation(
    cx: &mut Checker,
    tracer: &mut ChainTracer,
    instr: Instr,
    producer: Instr,
    computation: Comp,
) -> bool {
    if tracer.wrapped_computation(producer) == Some(computation) {
        return true;
    }
    let opcode = cx.data(instr).opcode;
    cx.report(
        Rule::AsyncOperands,
        instr,
        format!(
            "{opcode} {} wraps %{}, but the op before it wraps another computation",
            cx.name(instr),
            cx.m.comps[computation].name
        ),
    )
    .at_operand(0);
    false
}

/// R5: `output_to_operand_aliasing` of starts and updates.
fn check_aliasing(cx: &mut Checker, instr: Instr, computation: Comp) {
    let data = cx.data(instr);
    let Attrs::Async(attrs) = &data.attrs else {
        return;
    };
    let shape = data.shape;
    let params = cx.param_shapes(computation);
    for alias in &attrs.output_to_operand_aliasing {
        // An empty output index would alias the whole async value: never valid.
        let output = (!alias.output.is_empty())
            .then(|| cx.m.shapes.subshape(shape, &alias.output))
            .flatten();
        let problem = if data.opcode == Opcode::AsyncStart {
            let parameter = usize::try_from(alias.operand)
                .ok()
                .and_then(|p| params.get(p).copied());
            match parameter {
                None => Some(format!(
                    "operand {} is not a parameter of %{}",
                    alias.operand, cx.m.comps[computation].name
                )),
                Some(parameter) => match (
                    alias.output.is_empty(),
                    output,
                    cx.m.shapes.subshape(parameter, &alias.operand_index),
                ) {
                    (true, _, _) => Some("the output index is empty".to_string()),
                    (_, None, _) => Some(format!(
                        "output index {:?} is not in the async shape",
                        alias.output
                    )),
                    (_, _, None) => Some(format!(
                        "index {:?} is not in parameter {}",
                        alias.operand_index, alias.operand
                    )),
                    (_, Some(o), Some(p)) if !cx.same(o, p) => Some(format!(
                        "output {:?} is {} but operand {} at {:?} is {}",
                        alias.output,
                        cx.text(o),
                        alias.operand,
                        alias.operand_index,
                        cx.text(p)
                    )),
                    _ => None,
                },
            }
        } else if alias.operand != 0
            || alias.output.first() != Some(&2)
            || alias.operand_index.first() != Some(&2)
        {
            Some(
                "an async-update may only alias its context (index {2, …}) with operand 0's"
                    .to_string(),
            )
        } else {
            let operand = cx.shape_of(data.operands[0]);
            match (output, cx.m.shapes.subshape(operand, &alias.operand_index)) {
                (Some(o), Some(p)) if cx.same(o, p) => None,
                _ => Some(format!(
                    "the aliased context shapes at {:?} differ",
                    alias.output
                )),
            }
        };
        if let Some(problem) = problem {
            cx.report(
                Rule::AsyncAliasing,
                instr,
                format!(
                    "output_to_operand_aliasing of {}: {problem}",
                    cx.name(instr)
                ),
            )
            .at_attribute("output_to_operand_aliasing");
        }
    }
}

// ----- R6–R10: module-wide pairs and chains -----

/// Opcodes that may consume an async value without being part of its chain.
fn may_hold_async_value(cx: &Checker, user: Instr) -> bool {
    let data = cx.data(user);
    match data.opcode {
        Opcode::Tuple
        | Opcode::GetTupleElement
        | Opcode::While
        | Opcode::Call
        | Opcode::Conditional
        | Opcode::OptimizationBarrier
        | Opcode::Domain
        | Opcode::Copy
        | Opcode::Parameter => true,
        Opcode::CustomCall => {
            matches!(&data.attrs, Attrs::CustomCall(c) if is_metadata_custom_call(&c.target))
        }
        _ => false,
    }
}

fn is_control_dependency(cx: &Checker, user: Instr) -> bool {
    matches!(&cx.data(user).attrs, Attrs::CustomCall(c) if c.target == "control_dep" || c.target == "ControlDep")
}

/// R6: who may use an async-start or async-update.
fn check_uses(cx: &mut Checker, users: &Users, async_ops: &[Instr]) {
    for &instr in async_ops {
        if cx.data(instr).opcode == Opcode::AsyncDone {
            continue;
        }
        for &(user, operand_number) in users.get(instr) {
            let user_opcode = cx.data(user).opcode;
            let ok = match user_opcode {
                Opcode::AsyncUpdate | Opcode::AsyncDone => operand_number == 0,
                _ => may_hold_async_value(cx, user),
            };
            if !ok {
                let message = if matches!(user_opcode, Opcode::AsyncUpdate | Opcode::AsyncDone) {
                    format!(
                        "{} uses {} as operand {operand_number}; an async value may only be operand 0 of the next update or done",
                        cx.name(user),
                        cx.name(instr)
                    )
                } else {
                    format!(
                        "{} ({user_opcode}) uses the async value of {}",
                        cx.name(user),
                        cx.name(instr)
                    )
                };
                cx.report(Rule::AsyncUses, user, message)
                    .at_operand(operand_number)
                    .with_hint("an async value flows only to its update or done, possibly through tuple, get-tuple-element, copy, opt-barrier, while, call or conditional");
            }
        }
    }
}

/// R7: first-class start/done pairs and send/recv.
fn check_first_class_pairs(
    cx: &mut Checker,
    tracer: &mut ChainTracer,
    users: &Users,
    first_class: &[Instr],
) {
    for &instr in first_class {
        let data = cx.data(instr);
        let opcode = data.opcode;
        let partner = opcode.first_class_partner();
        let is_start = opcode
            .flags()
            .contains(crate::opcode::Flags::FIRST_CLASS_START);
        if is_start {
            let Some(done) = partner else { continue };
            let real_users: Vec<Instr> = users
                .get(instr)
                .iter()
                .map(|&(u, _)| u)
                .filter(|&u| !is_control_dependency(cx, u))
                .collect();
            let is_send_recv = matches!(opcode, Opcode::Send | Opcode::Recv);
            let user_ok = |cx: &Checker, u: Instr| {
                let user_opcode = cx.data(u).opcode;
                user_opcode == done
                    || (is_send_recv && user_opcode == Opcode::Tuple)
                    || (!is_send_recv && may_hold_async_value(cx, u))
            };
            let is_async_root = is_send_recv && is_async_computation_root(cx, instr);
            if !is_async_root && (real_users.len() != 1 || !user_ok(cx, real_users[0])) {
                cx.report(
                    Rule::AsyncPairs,
                    instr,
                    format!(
                        "{opcode} {} must have exactly one user, its {done}, but has {}",
                        cx.name(instr),
                        describe_users(cx, &real_users)
                    ),
                )
                .with_hint(format!("every {opcode} is finished by exactly one {done}"));
            }
        } else {
            let Some(start) = partner else { continue };
            let operand = data.operands.first().copied();
            let traced = operand.and_then(|o| tracer.origin(o, &[], |opcode| opcode == start));
            if traced.is_none() {
                cx.report(
                    Rule::AsyncPairs,
                    instr,
                    format!(
                        "the operand of {opcode} {} is not {} {start}",
                        cx.name(instr),
                        // "an all-reduce-start", "a copy-start".
                        if start.name().starts_with(['a', 'e', 'i', 'o', 'u']) {
                            "an"
                        } else {
                            "a"
                        }
                    ),
                )
                .at_operand(0)
                .with_hint(format!("{opcode} takes the {start} it finishes"));
            }
        }
    }
}

/// Whether `instr` is the root of a computation called by an async-start.
fn is_async_computation_root(cx: &Checker, instr: Instr) -> bool {
    let comp = cx.m.parent(instr);
    cx.m.comps[comp].root == Some(instr)
        && cx.computations().any(|c| {
            cx.body(c).iter().any(|&i| {
                let d = cx.data(i);
                d.opcode == Opcode::AsyncStart && d.callees.contains(&comp)
            })
        })
}

fn describe_users(cx: &Checker, users: &[Instr]) -> String {
    match users {
        [] => "none".to_string(),
        [one] => format!("1 ({})", cx.name(*one)),
        many => format!(
            "{} ({})",
            many.len(),
            many.iter()
                .map(|&u| cx.name(u))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// R8–R10: each done walks back to one start; every start has a done and
/// every update a chain, unless carried across a while loop.
fn check_chains(cx: &mut Checker, tracer: &mut ChainTracer, users: &Users, async_ops: &[Instr]) {
    let mut in_chain: FxHashSet<Instr> = FxHashSet::default();
    let mut start_done: FxHashMap<Instr, Instr> = FxHashMap::default();
    for &done in async_ops {
        if cx.data(done).opcode != Opcode::AsyncDone {
            continue;
        }
        if cx.data(done).operands.len() != 1 {
            cx.report(
                Rule::AsyncChains,
                done,
                format!("async-done {} must have exactly one operand", cx.name(done)),
            );
            continue;
        }
        let mut visited: FxHashSet<Instr> = FxHashSet::default();
        let mut current = cx.data(done).operands[0];
        let start = loop {
            let Some(producer) = tracer.producer(current, &[]) else {
                cx.report(
                    Rule::AsyncChains,
                    done,
                    format!("async-done {} does not trace back to an async start", cx.name(done)),
                )
                .at_operand(0)
                .with_hint("its operand must come from an async-start or async-update (directly or through tuples, get-tuple-elements, copies, optimization barriers or while loops)");
                break None;
            };
            match cx.data(producer).opcode {
                Opcode::AsyncStart => break Some(producer),
                Opcode::AsyncUpdate => {
                    if !visited.insert(producer) {
                        cx.report(
                            Rule::AsyncChains,
                            done,
                            format!(
                                "async-update {} is part of multiple chains or a cycle",
                                cx.name(producer)
                            ),
                        );
                        break None;
                    }
                    in_chain.insert(producer);
                    match cx.data(producer).operands.first() {
                        Some(&next) => current = next,
                        None => break None,
                    }
                }
                other => {
                    cx.report(
                        Rule::AsyncChains,
                        done,
                        format!(
                            "async-done {} traces back to non-start {other}",
                            cx.name(done)
                        ),
                    );
                    break None;
                }
            }
        };
        let Some(start) = start else { continue };
        in_chain.insert(start);
        if let Some(&other) = start_done.get(&start) {
            cx.report(
                Rule::AsyncChains,
                done,
                format!(
                    "async-start {} is matched by more than one async-done: {} and {}",
                    cx.name(start),
                    cx.name(other),
                    cx.name(done)
                ),
            );
        } else {
            start_done.insert(start, done);
        }
    }
    // Updates reached only by walking back from dones are in a chain; so are
    // updates that lead to one.
    let mut carried_cache: FxHashMap<Instr, bool> = FxHashMap::default();
    for &instr in async_ops {
        let opcode = cx.data(instr).opcode;
        if opcode == Opcode::AsyncStart && !start_done.contains_key(&instr) {
            if !is_carried_across_while(cx, users, instr, &mut carried_cache) {
                cx.report(
                    Rule::AsyncUnmatchedStart,
                    instr,
                    format!("async-start {} has no matching async done", cx.name(instr)),
                )
                .with_hint("finish it with an async-done (or carry it across a while loop)");
            }
        } else if opcode == Opcode::AsyncUpdate
            && !in_chain.contains(&instr)
            && !is_carried_across_while(cx, users, instr, &mut carried_cache)
        {
            cx.report(
                Rule::AsyncOrphanUpdate,
                instr,
                format!(
                    "Orphan async update {}: no async-done finishes its chain",
                    cx.name(instr)
                ),
            );
        }
    }
}

/// XLA's `IsCarriedAcrossWhileLoop`: the value reaches a while loop's operand
/// or a while body's root, through tuples and other intermediaries.
fn is_carried_across_while(
    cx: &Checker,
    users: &Users,
    instr: Instr,
    cache: &mut FxHashMap<Instr, bool>,
) -> bool {
    if let Some(&known) = cache.get(&instr) {
        return known;
    }
    let mut frontier = vec![instr];
    let mut seen: FxHashSet<Instr> = FxHashSet::default();
    let mut carried = false;
    while let Some(value) = frontier.pop() {
        if !seen.insert(value) || seen.len() > 10_000 {
            continue;
        }
        let comp = cx.m.parent(value);
        if cx.m.comps[comp].root == Some(value) && is_while_body(cx, comp) {
            carried = true;
            break;
        }
        let direct = users.of.get(&value).cloned().unwrap_or_else(|| {
            cx.body(comp)
                .iter()
                .flat_map(|&u| {
                    cx.data(u)
                        .operands
                        .iter()
                        .enumerate()
                        .filter(move |&(_, &o)| o == value)
                        .map(move |(n, _)| (u, n))
                })
                .collect()
        });
        for (user, _) in direct {
            match cx.data(user).opcode {
                Opcode::While => {
                    carried = true;
                    break;
                }
                Opcode::Tuple
                | Opcode::GetTupleElement
                | Opcode::Copy
                | Opcode::OptimizationBarrier => frontier.push(user),
                _ => {}
            }
        }
        if carried {
            break;
        }
    }
    cache.insert(instr, carried);
    carried
}

fn is_while_body(cx: &Checker, comp: Comp) -> bool {
    cx.computations().any(|c| {
        cx.body(c).iter().any(|&i| {
            let d = cx.data(i);
            // A while's callees are its body, then its condition.
            d.opcode == Opcode::While && d.callees.first() == Some(&comp)
        })
    })
}

// ----- R11, R13 (R12 is in `buffers`, R14 in `collective_deadlock`) -----

/// R11: an async computation on the main thread is its root and parameters,
/// unless the start groups collectives or the computation is an async barrier.
fn check_async_computations(cx: &mut Checker, async_ops: &[Instr]) {
    let mut seen: FxHashSet<Comp> = FxHashSet::default();
    for &instr in async_ops {
        let data = cx.data(instr);
        if data.opcode != Opcode::AsyncStart {
            continue;
        }
        let Some(&comp) = data.callees.first() else {
            continue;
        };
        if !seen.insert(comp) || cx.m.comps[comp].thread() != MAIN_THREAD {
            continue;
        }
        let groups_collectives = data
            .common()
            .frontend_attributes
            .as_ref()
            .is_some_and(|f| f.get("_collectives_group").is_some());
        if groups_collectives {
            continue;
        }
        let root = cx.m.comps[comp].root;
        let body = cx.body(comp);
        let is_barrier = body.iter().all(|&i| {
            Some(i) == root
                || matches!(
                    cx.data(i).opcode,
                    Opcode::Parameter | Opcode::GetTupleElement
                )
        });
        let single = body
            .iter()
            .all(|&i| Some(i) == root || cx.data(i).opcode == Opcode::Parameter);
        if !single && !is_barrier {
            let extra = body
                .iter()
                .find(|&&i| Some(i) != root && cx.data(i).opcode != Opcode::Parameter)
                .copied();
            let error = cx.report_comp(
                Rule::AsyncComputation,
                comp,
                format!(
                    "async computation %{} on the main thread must be one instruction and its parameters, but also has {}",
                    cx.m.comps[comp].name,
                    extra.map_or_else(String::new, |e| format!("%{}", cx.m.instrs[e].name))
                ),
            );
            error.instr = extra;
            error.with_hint("put the other instructions in a call, run the computation on another thread (async_execution_thread), or mark the start with frontend attribute _collectives_group");
        }
    }
}

/// R13: an instruction that calls computations (other than the async ops,
/// checked by R3) runs on the same thread as its callees.
fn check_caller_threads(cx: &mut Checker) {
    for comp in cx.computations() {
        let caller_thread = cx.m.comps[comp].thread();
        for &instr in cx.body(comp) {
            let data = cx.data(instr);
            if data.opcode.is_generic_async() {
                continue;
            }
            for &callee in &data.callees {
                let callee_thread = cx.m.comps[callee].thread();
                if callee_thread != caller_thread {
                    cx.report(
                        Rule::CallerThread,
                        instr,
                        format!(
                            "{} {} on thread \"{caller_thread}\" calls %{} on thread \"{callee_thread}\"",
                            data.opcode,
                            cx.name(instr),
                            cx.m.comps[callee].name
                        ),
                    )
                    .with_hint("a computation runs on the thread of the instruction that calls it");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::verify::{Rule, verify};

    const MODULE: &str = "HloModule m\n\n%wrapped (x: f32[8]) -> f32[8] {\n  %x = f32[8] parameter(0)\n  ROOT %n = f32[8] negate(%x)\n}\n\nENTRY %main (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n  %start = ((f32[8]), f32[8], s32[]) async-start(%p), calls=%wrapped\n  ROOT %done = f32[8] async-done(%start), calls=%wrapped\n}\n";

    /// XLA's parser never lets a flat async shape through, so R1 guards
    /// modules that passes build; here a pass flattened the start's shape.
    #[test]
    fn a_flat_start_shape_breaks_r1() {
        let mut m = crate::text::parse(MODULE).expect("parses");
        assert!(verify(&m).is_ok());
        let start = m
            .all_instrs()
            .find(|&i| m.instr(i).name == "start")
            .expect("start");
        let element = m
            .shapes
            .array_with_default_layout(crate::ElementType::F32, &[8]);
        let context = m
            .shapes
            .array_with_default_layout(crate::ElementType::S32, &[]);
        m.instrs[start].shape = m.shapes.tuple(&[element, element, context]);
        let errors = verify(&m).expect_err("a flat shape is rejected");
        assert!(
            errors.iter().any(|e| e.rule == Rule::AsyncOutputForm),
            "{errors:?}"
        );
    }
}

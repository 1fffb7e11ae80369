//! `while-loop-trip-count-annotator` (XLA's `WhileLoopTripCountAnnotator`).
//!
//! **Problem.** How many times a loop runs decides what later passes may do
//! with it — unroll it, pipeline a collective across its iterations, double
//! its buffers — and what a scheduler or cost model charges for it. Counted
//! loops say so only implicitly, through an induction variable spread over
//! the loop's init, body and condition; XLA's later passes read the answer
//! from the while's backend config instead.
//!
//! **Algorithm.** For every while loop whose induction variable
//! [`crate::analysis::while_loop`] finds, the while's
//! `backend_config` becomes XLA's `WhileLoopBackendConfig`:
//! - `known_induction_variable.tuple_index`: the variable's element;
//! - when the variable walks a constant range `min, min + step, …, max`
//!   (all three non-negative, the step positive): `known_trip_count.n =
//!   (max - min) / step + 1` and `known_init_step` `{init: min, step}`; every
//!   get-tuple-element reading the variable out of the finished loop is then
//!   replaced by a new constant, `min + step × n`, its value on exit (the old
//!   get-tuple-element is left for `dce`);
//! - otherwise, when the count is still known (a loop from a negative
//!   start counted by formula, a downward or NE loop run on the variable
//!   alone): `known_trip_count.n` only;
//! - `dynamic_variables`: when the body offloads to the host (a `MoveToHost`
//!   feeding a dynamic-update-slice, a `MoveToDevice` fed by a
//!   dynamic-slice), the elements used in dynamic-slice and
//!   dynamic-update-slice offsets, in order, each with `init` and `step` when
//!   it moves by a constant each iteration — itself plus a constant, or the
//!   induction variable's previous value plus a constant (a copy lagging one
//!   iteration behind, whose init must then agree).
//!
//! XLA writes the config afresh, dropping what a config held before; weft
//! does the same for the four fields of `WhileLoopBackendConfig` and keeps
//! any other field of an existing JSON object. A config that is not a JSON
//! object is an error, as XLA's reading it would be. A range whose last value
//! lies below its first (a loop that never runs) is counted as XLA's
//! fallback counts it, 0, rather than with the negative formula. Every loop
//! with an induction variable counts as a change.
//!
//! **Invariants.** Before: a module that verifies. After: it computes the
//! same values; each annotated while's config states what its loop does;
//! the new constants sit just before the get-tuple-elements they replace, in
//! body and schedule.
//!
//! ```text
//! before                                           after
//!   ROOT %w = (s32[]) while(%init),                  ROOT %w = (s32[]) while(%init), condition=%cond, body=%body,
//!       condition=%cond, body=%body                    backend_config={"known_trip_count":{"n":"10"},
//!   (i = 0; i < 10; i += 1)                              "known_init_step":{"init":"0","step":"1"},
//!                                                        "known_induction_variable":{"tuple_index":"0"},
//!                                                        "dynamic_variables":[]}
//! ```

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};
use weft_ir::attrs::{Attrs, BackendConfig};
use weft_ir::literal::{ArrayLiteral, Literal};
use weft_ir::{Callees, Comp, Editor, Instr, InstrData, Module, Opcode};

use crate::analysis::while_loop::{self, scalar_int};
use crate::pass::{OptionSpec, Options, Pass, PassError};

/// The pass's name.
pub const NAME: &str = "while-loop-trip-count-annotator";

/// Its options: none.
pub const OPTIONS: &[OptionSpec] = &[];

/// The fields of XLA's `WhileLoopBackendConfig`, which the pass rewrites.
const CONFIG_FIELDS: &[&str] = &[
    "known_trip_count",
    "known_init_step",
    "known_induction_variable",
    "dynamic_variables",
];

/// What the pass knows of one loop.
struct LoopFacts {
    induction_variable: usize,
    trip_count: Option<i64>,
    /// `(init, step)` of the induction variable, when its range is known.
    init_step: Option<(i64, i64)>,
    /// Per dynamic variable: its element, and its `(init, step)` if known.
    dynamic_variables: Vec<(i64, Option<(i64, i64)>)>,
}

/// Annotates every while loop of `module` whose induction variable is
/// known; returns whether any was.
pub fn annotate_trip_counts(module: &mut Module) -> Result<bool, PassError> {
    let whiles: Vec<Instr> = module
        .all_instrs()
        .filter(|&instr| module.instr(instr).opcode == Opcode::While)
        .collect();
    let mut editor = module.edit();
    let mut changed = false;
    for while_instr in whiles {
        let Some(facts) = loop_facts(&editor, while_instr) else {
            continue;
        };
        let config = backend_config(&editor, while_instr, &facts)?;
        editor.data_mut(while_instr).common_mut().backend_config = Some(BackendConfig(config));
        if let (Some(count), Some((init, step))) = (facts.trip_count, facts.init_step) {
            let exit_value = init.wrapping_add(step.wrapping_mul(count));
            forward_exit_value(
                &mut editor,
                while_instr,
                facts.induction_variable,
                exit_value,
            );
        }
        changed = true;
    }
    Ok(changed)
}

fn loop_facts(editor: &Editor<'_>, while_instr: Instr) -> Option<LoopFacts> {
    let module = editor.module();
    let induction_variable = while_loop::induction_variable_index(module, while_instr)?;
    let range = while_loop::trivial_loop_range(module, while_instr)
        .filter(|r| r.min >= 0 && r.max >= 0 && r.step > 0 && r.max >= r.min);
    let (trip_count, init_step) = match range {
        Some(range) => (
            Some((range.max - range.min) / range.step + 1),
            Some((range.min, range.step)),
        ),
        None => (while_loop::trip_count(module, while_instr), None),
    };
    let data = module.instr(while_instr);
    let (&body, &init) = (data.callees.first()?, data.operands.first()?);
    let dynamic_variables = dynamic_variable_indices(module, body)
        .into_iter()
        .map(|element| {
            let affine = affine_init_step(
                module,
                body,
                init,
                element,
                induction_variable as i64,
                init_step,
            );
            (element, affine)
        })
        .collect();
    Some(LoopFacts {
        induction_variable,
        trip_count,
        init_step,
        dynamic_variables,
    })
}

/// The while's config with `facts` written in, as XLA's JSON writes a
/// `WhileLoopBackendConfig` (integers as strings, fields in proto order),
/// followed by the fields of an existing config the proto does not have.
fn backend_config(
    editor: &Editor<'_>,
    while_instr: Instr,
    facts: &LoopFacts,
) -> Result<String, PassError> {
    let data = editor.data(while_instr);
    let existing = match &data.common().backend_config {
        Some(BackendConfig(text)) if !text.trim().is_empty() => {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(fields)) => fields,
                _ => {
                    return Err(PassError::new(format!(
                        "%{}'s backend_config is not a JSON object, so it cannot hold a WhileLoopBackendConfig",
                        data.name
                    ))
                    .with_hint("remove the backend_config, or write it as {\"field\":…}"));
                }
            }
        }
        _ => Map::new(),
    };
    let mut config = Map::new();
    if let Some(count) = facts.trip_count {
        config.insert("known_trip_count".into(), json!({ "n": count.to_string() }));
    }
    if let Some((init, step)) = facts.init_step {
        config.insert(
            "known_init_step".into(),
            json!({ "init": init.to_string(), "step": step.to_string() }),
        );
    }
    config.insert(
        "known_induction_variable".into(),
        json!({ "tuple_index": facts.induction_variable.to_string() }),
    );
    let dynamic: Vec<Value> = facts
        .dynamic_variables
        .iter()
        .map(|&(element, affine)| {
            let mut variable = Map::new();
            variable.insert("tuple_index".into(), element.to_string().into());
            if let Some((init, step)) = affine {
                variable.insert("init".into(), init.to_string().into());
                variable.insert("step".into(), step.to_string().into());
            }
            Value::Object(variable)
        })
        .collect();
    config.insert("dynamic_variables".into(), Value::Array(dynamic));
    for (key, value) in existing {
        if !CONFIG_FIELDS.contains(&key.as_str()) {
            config.insert(key, value);
        }
    }
    Ok(Value::Object(config).to_string())
}

/// Replaces each read of the induction variable from the finished loop by
/// a constant holding `exit_value` (XLA's `ForwardInductionVarToConstants`).
fn forward_exit_value(editor: &mut Editor<'_>, while_instr: Instr, index: usize, exit_value: i64) {
    let reads: Vec<Instr> = editor
        .users(while_instr)
        .into_iter()
        .filter(|&user| {
            let data = editor.data(user);
            data.opcode == Opcode::GetTupleElement
                && matches!(data.attrs, Attrs::GetTupleElement { index: i } if i == index as i64)
        })
        .collect();
    for read in reads {
        let shape = editor.data(read).shape;
        let Some(elem) = editor
            .module()
            .shapes
            .as_array(shape)
            .filter(|array| array.rank() == 0 && array.elem.is_integer())
            .map(|array| array.elem)
        else {
            continue;
        };
        let mut literal = ArrayLiteral::zeros(elem, &[]);
        literal.set_int(0, i128::from(exit_value));
        let name = editor.unique_instr_name("constant");
        let constant = editor.insert_before(
            read,
            InstrData {
                name,
                opcode: Opcode::Constant,
                shape,
                operands: Default::default(),
                callees: Callees::new(),
                attrs: Attrs::Constant(Box::new(Literal::Array(literal))),
                common: None,
                metadata: None,
            },
        );
        editor.replace_all_uses(read, constant);
    }
}

/// The elements of the loop state used as dynamic-slice offsets in a body
/// that moves data to or from the host (XLA's
/// `CollectDynamicVariableTupleIndices`).
fn dynamic_variable_indices(module: &Module, body: Comp) -> BTreeSet<i64> {
    let instrs = module.comp(body).body();
    let offloads = instrs.iter().any(|&instr| {
        moves_to_host_into_update(module, instr) || moves_to_device_from_slice(module, instr)
    });
    let mut indices = BTreeSet::new();
    if !offloads {
        return indices;
    }
    for &instr in instrs {
        let data = module.instr(instr);
        let first_offset = match data.opcode {
            Opcode::DynamicSlice => 1,
            Opcode::DynamicUpdateSlice => 2,
            _ => continue,
        };
        for &offset in data.operands.iter().skip(first_offset) {
            indices.extend(elements_read_by(module, offset));
        }
    }
    indices
}

fn custom_call_target(module: &Module, instr: Instr) -> Option<&str> {
    match &module.instr(instr).attrs {
        Attrs::CustomCall(attrs) => Some(attrs.target.as_str()),
        _ => None,
    }
}

/// Reshapes, broadcasts and transposes pass a host move on.
fn passes_move_on(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::Reshape | Opcode::Broadcast | Opcode::Transpose
    )
}

/// A `MoveToHost` whose value reaches a dynamic-update-slice.
fn moves_to_host_into_update(module: &Module, instr: Instr) -> bool {
    if custom_call_target(module, instr) != Some("MoveToHost") {
        return false;
    }
    let mut seen = BTreeSet::new();
    let mut pending = vec![instr];
    while let Some(current) = pending.pop() {
        if !seen.insert(current) {
            continue;
        }
        for user in crate::analysis::users_in_computation(module, current) {
            match module.instr(user).opcode {
                Opcode::DynamicUpdateSlice => return true,
                opcode if passes_move_on(opcode) => pending.push(user),
                _ => {}
            }
        }
    }
    false
}

/// A `MoveToDevice` fed by a dynamic-slice.
fn moves_to_device_from_slice(module: &Module, instr: Instr) -> bool {
    if custom_call_target(module, instr) != Some("MoveToDevice") {
        return false;
    }
    let mut seen = BTreeSet::new();
    let mut pending = vec![instr];
    while let Some(current) = pending.pop() {
        if !seen.insert(current) {
            continue;
        }
        for &operand in module.instr(current).operands.iter() {
            match module.instr(operand).opcode {
                Opcode::DynamicSlice => return true,
                opcode if passes_move_on(opcode) => pending.push(operand),
                _ => {}
            }
        }
    }
    false
}

/// The tuple elements an offset reads, through copies and `+ - × ÷`.
fn elements_read_by(module: &Module, offset: Instr) -> BTreeSet<i64> {
    let mut indices = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut pending = vec![offset];
    while let Some(current) = pending.pop() {
        if !seen.insert(current) {
            continue;
        }
        let data = module.instr(current);
        match (data.opcode, &data.attrs) {
            (Opcode::GetTupleElement, Attrs::GetTupleElement { index }) => {
                indices.insert(*index);
            }
            (Opcode::Copy, _) if data.operands.len() == 1 => pending.push(data.operands[0]),
            (Opcode::Add | Opcode::Subtract | Opcode::Multiply | Opcode::Divide, _) => {
                pending.extend(data.operands.iter().copied());
            }
            _ => {}
        }
    }
    indices
}

/// `element of the state + constant`: the element and the constant.
struct LinearTerm {
    element: Option<i64>,
    offset: i64,
}

/// `expr` as an element of `parameter` plus constants (XLA's
/// `DecomposeLinear`).
fn decompose_linear(
    module: &Module,
    expr: Instr,
    parameter: Instr,
    depth: usize,
) -> Option<LinearTerm> {
    if depth > weft_ir::MAX_CALL_DEPTH {
        return None;
    }
    let data = module.instr(expr);
    match (data.opcode, &data.attrs, data.operands.as_slice()) {
        (Opcode::GetTupleElement, Attrs::GetTupleElement { index }, &[tuple])
            if tuple == parameter =>
        {
            Some(LinearTerm {
                element: Some(*index),
                offset: 0,
            })
        }
        (Opcode::Constant, _, _) => Some(LinearTerm {
            element: None,
            offset: scalar_int(module, expr)?,
        }),
        (Opcode::Add | Opcode::Subtract, _, &[a, b]) => {
            let lhs = decompose_linear(module, a, parameter, depth + 1)?;
            let rhs = decompose_linear(module, b, parameter, depth + 1)?;
            let subtract = data.opcode == Opcode::Subtract;
            if (lhs.element.is_some() && rhs.element.is_some())
                || (rhs.element.is_some() && subtract)
            {
                return None;
            }
            Some(LinearTerm {
                element: lhs.element.or(rhs.element),
                offset: if subtract {
                    lhs.offset.wrapping_sub(rhs.offset)
                } else {
                    lhs.offset.wrapping_add(rhs.offset)
                },
            })
        }
        _ => None,
    }
}

/// The `(init, step)` of state element `element`, when the body moves it by
/// a constant (XLA's `ResolveAffine`; see the module docs).
fn affine_init_step(
    module: &Module,
    body: Comp,
    init: Instr,
    element: i64,
    primary: i64,
    primary_init_step: Option<(i64, i64)>,
) -> Option<(i64, i64)> {
    let position = usize::try_from(element).ok()?;
    let root = module.instr(module.comp(body).root()?);
    let parameter = *module.comp(body).params().first()?;
    if root.opcode != Opcode::Tuple {
        return None;
    }
    let term = decompose_linear(module, *root.operands.get(position)?, parameter, 0)?;
    let source = term.element?;
    let init_data = module.instr(init);
    if init_data.opcode != Opcode::Tuple {
        return None;
    }
    let start = scalar_int(module, *init_data.operands.get(position)?)?;
    if source == element {
        return Some((start, term.offset));
    }
    let (primary_init, primary_step) = primary_init_step?;
    let derived = primary_init
        .wrapping_sub(primary_step)
        .wrapping_add(term.offset);
    (source == primary && start == derived).then_some((derived, primary_step))
}

struct WhileLoopTripCountAnnotator;

impl Pass for WhileLoopTripCountAnnotator {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, module: &mut Module) -> Result<bool, PassError> {
        annotate_trip_counts(module)
    }
}

pub(crate) fn make(_: &Options) -> Box<dyn Pass> {
    Box::new(WhileLoopTripCountAnnotator)
}

#[cfg(test)]
mod tests {
    use weft_ir::text::{PrintOptions, parse, print};

    fn annotate(text: &str) -> Result<(bool, String), super::PassError> {
        let mut module = parse(text).expect("parses");
        let changed = super::annotate_trip_counts(&mut module)?;
        weft_ir::verify(&module).expect("still verifies");
        Ok((changed, print(&module, &PrintOptions::short())))
    }

    fn counted_loop(config: &str) -> String {
        format!(
            "HloModule m\n\n%body (p: (s32[], f32[4])) -> (s32[], f32[4]) {{\n  %p = (s32[], f32[4]) parameter(0)\n  %i = s32[] get-tuple-element(%p), index=0\n  %x = f32[4] get-tuple-element(%p), index=1\n  %two = s32[] constant(2)\n  %next = s32[] add(%i, %two)\n  ROOT %t = (s32[], f32[4]) tuple(%next, %x)\n}}\n\n%cond (p: (s32[], f32[4])) -> pred[] {{\n  %p = (s32[], f32[4]) parameter(0)\n  %i = s32[] get-tuple-element(%p), index=0\n  %b = s32[] constant(15)\n  ROOT %c = pred[] compare(%i, %b), direction=LT\n}}\n\nENTRY %main (x: f32[4]) -> (s32[], f32[4]) {{\n  %x = f32[4] parameter(0)\n  %a = s32[] constant(5)\n  %init = (s32[], f32[4]) tuple(%a, %x)\n  %w = (s32[], f32[4]) while(%init), condition=%cond, body=%body{config}\n  %last = s32[] get-tuple-element(%w), index=0\n  %y = f32[4] get-tuple-element(%w), index=1\n  ROOT %r = (s32[], f32[4]) tuple(%last, %y)\n}}\n"
        )
    }

    #[test]
    fn a_counted_loop_gets_its_config_and_exit_value() {
        let (changed, text) = annotate(&counted_loop("")).expect("runs");
        assert!(changed);
        assert!(
            text.contains(r#"backend_config={"known_trip_count":{"n":"5"},"known_init_step":{"init":"5","step":"2"},"known_induction_variable":{"tuple_index":"0"},"dynamic_variables":[]}"#),
            "{text}"
        );
        // 5 + 2 × 5: the variable's value once the loop is done.
        assert!(text.contains("constant = s32[] constant(15)"), "{text}");
        assert!(
            text.contains("ROOT r = (s32[], f32[4]{0}) tuple(constant, y)"),
            "{text}"
        );
    }

    #[test]
    fn other_fields_stay_and_the_loop_fields_are_rewritten() {
        let (_, text) = annotate(&counted_loop(
            r#", backend_config={"known_trip_count":{"n":"99"},"vendor":{"x":1}}"#,
        ))
        .expect("runs");
        assert!(text.contains(r#"{"known_trip_count":{"n":"5"},"#), "{text}");
        assert!(
            text.contains(r#""dynamic_variables":[],"vendor":{"x":1}}"#),
            "{text}"
        );
    }

    #[test]
    fn a_config_that_is_not_json_is_refused() {
        let error = annotate(&counted_loop(r#", backend_config="opaque""#)).unwrap_err();
        assert!(
            error
                .message
                .contains("%w's backend_config is not a JSON object"),
            "{error}"
        );
    }

    #[test]
    fn a_loop_without_an_induction_variable_is_left_alone() {
        let text = "HloModule m\n\n%body (p: (f32[])) -> (f32[]) {\n  %p = (f32[]) parameter(0)\n  %x = f32[] get-tuple-element(%p), index=0\n  %y = f32[] negate(%x)\n  ROOT %t = (f32[]) tuple(%y)\n}\n\n%cond (p: (f32[])) -> pred[] {\n  %p = (f32[]) parameter(0)\n  ROOT %c = pred[] constant(false)\n}\n\nENTRY %main (x: f32[]) -> (f32[]) {\n  %x = f32[] parameter(0)\n  %init = (f32[]) tuple(%x)\n  ROOT %w = (f32[]) while(%init), condition=%cond, body=%body\n}\n";
        let (changed, out) = annotate(text).expect("runs");
        assert!(!changed);
        assert!(!out.contains("backend_config"), "{out}");
    }
}

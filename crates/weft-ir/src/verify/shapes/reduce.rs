//! Shape rules of the reductions and the ops that apply a computation per
//! element: reduce, reduce-window, select-and-scatter, map, sort, topk and
//! scan (XLA's `InferReduceShape`, `InferReduceWindowShape`,
//! `InferSelectAndScatterShape`, `InferMapShape`, `ShapeVerifier::HandleSort`
//! and `InferTopKShape`).
//!
//! Invariants the rules establish, as XLA does:
//! - a reduction computation (reduce, reduce-window, scatter, the scatter of
//!   select-and-scatter) takes `2N` scalars — `N` accumulators, then `N`
//!   input elements — and returns `N` scalars (a tuple when `N > 1`) whose
//!   types are the accumulators' types; init values are scalars of those
//!   types, and floating-point precisions may differ between accumulators,
//!   inputs and init values;
//! - a reduce's result drops the reduced dimensions and takes the element
//!   types of the computation's result; a reduce-window's result has the
//!   windowed dimensions and the init values' element types;
//! - a sort comparator takes two scalars per operand and returns `pred[]`;
//! - dynamic (`<=N`) dimensions stay dynamic through every rule.
//!
//! Signature problems of a called computation are reported under
//! [`Rule::CalleeSignature`], pointing at the attribute that names it; shape
//! problems under the opcode's own rule. Messages follow XLA's wording.
//!
//! The inferred shapes, and the checks inference makes, come from
//! [`crate::infer::reduce`].

use crate::attrs::{Attrs, WindowDim};
use crate::element_type::ElementType;
use crate::infer::{self, InferError, InferredShape};
use crate::module::{Comp, Instr};
use crate::shape::Shape;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

use super::elementwise::expect_inferred_array;

pub(super) fn check(cx: &mut Checker, instr: Instr) {
    use crate::opcode::Opcode as O;
    match cx.data(instr).opcode {
        O::Reduce => check_reduce(cx, instr),
        O::ReduceWindow => check_reduce_window(cx, instr),
        O::SelectAndScatter => check_select_and_scatter(cx, instr),
        O::Map => check_map(cx, instr),
        O::Sort => check_sort(cx, instr),
        O::TopK => check_topk(cx, instr),
        O::Scan => check_scan(cx, instr),
        _ => {}
    }
}

// ----- shared helpers (also used by the dot/convolution and scatter rules) -----

/// `shape` as XLA's `HumanString` prints it (no layout), for messages.
pub(super) fn human(cx: &Checker, shape: Shape) -> String {
    let mut out = String::new();
    crate::text::shape::print_shape_without_layout(&cx.m.shapes, &mut out, shape);
    out
}

/// The sizes and dynamic flags of an array's dimensions.
pub(super) fn dims_of(cx: &Checker, instr: Instr) -> Option<(Vec<i64>, Vec<bool>)> {
    let array = cx.array_of(instr)?;
    let dynamic = (0..array.rank()).map(|d| array.is_dynamic(d)).collect();
    Some((array.dims.to_vec(), dynamic))
}

/// Whether `a` and `b` are the same element type, all floating-point types
/// counting as one (XLA's `SameElementTypeIgnoringFpPrecision`).
pub(super) fn same_type_ignoring_precision(a: ElementType, b: ElementType) -> bool {
    a == b || (a.is_float() && b.is_float())
}

/// Whether `shape` is a scalar whose type is `elem` up to floating-point
/// precision (`CompatibleIgnoringFpPrecision` against a scalar).
fn is_scalar_like(cx: &Checker, shape: Shape, elem: ElementType) -> bool {
    cx.array(shape)
        .is_some_and(|a| a.rank() == 0 && same_type_ignoring_precision(a.elem, elem))
}

pub(super) use crate::infer::reduce::window_output;

/// What a reduction's accumulators start from: an init value, or (scatter)
/// the operand's elements.
pub(super) enum Init {
    /// An init value operand of this shape.
    Value(Shape),
    /// Elements of this type.
    Element(ElementType),
}

/// Checks a reduction computation against `inits` and the element types of the
/// reduced inputs (XLA's `VerifyReducerShape`). Reports a problem under
/// [`Rule::CalleeSignature`] at `attribute` and returns `false`.
pub(super) fn check_reducer(
    cx: &mut Checker,
    instr: Instr,
    callee: Comp,
    inits: &[Init],
    input_types: &[ElementType],
    attribute: &'static str,
) -> bool {
    let count = input_types.len();
    let params = cx.param_shapes(callee);
    let Some(root) = cx.root_shape(callee) else {
        return false;
    };
    let callee_name = format!("%{}", cx.m.comps[callee].name);
    let fail = |cx: &mut Checker, message: String| {
        cx.report(Rule::CalleeSignature, instr, message)
            .with_hint(format!(
                "{callee_name} must take {} scalars (accumulators, then input elements) and return {}",
                2 * count,
                if count == 1 {
                    "one scalar".to_string()
                } else {
                    format!("a tuple of {count} scalars")
                }
            ))
            .at_attribute(attribute);
    };
    if params.len() != 2 * count {
        fail(
            cx,
            format!(
                "Reduction function must take {} parameters, but takes {} parameter(s).",
                2 * count,
                params.len()
            ),
        );
        return false;
    }
    let accumulators: Vec<Shape> = match cx.tuple(root) {
        Some(elements) => {
            if elements.len() != count {
                fail(
                    cx,
                    format!(
                        "Reduction function must produce a tuple with {count} elements, but has {} elements",
                        elements.len()
                    ),
                );
                return false;
            }
            elements.to_vec()
        }
        None if cx.array(root).is_some() => {
            if count != 1 {
                fail(
                    cx,
                    format!(
                        "Reduction function must produce a tuple with {count} elements, but produces a scalar"
                    ),
                );
                return false;
            }
            vec![root]
        }
        None => {
            fail(
                cx,
                format!(
                    "Reduction function must produce a scalar or tuple of scalars, but has shape: {}",
                    human(cx, root)
                ),
            );
            return false;
        }
    };
    let mut types = Vec::with_capacity(count);
    for &accumulator in &accumulators {
        match cx.array(accumulator) {
            Some(a) if a.rank() == 0 => types.push(a.elem),
            _ => {
                fail(
                    cx,
                    format!(
                        "Reduction function must return a scalar or tuple of scalars but returns shape: {}",
                        human(cx, root)
                    ),
                );
                return false;
            }
        }
    }
    for i in 0..count {
        let accumulator = accumulators[i];
        if !crate::shape_util::compatible(&cx.m.shapes, accumulator, params[i]) {
            let message = format!(
                "Reduction function's {i}-th parameter shape differs from the result shape: {} vs {}",
                human(cx, params[i]),
                human(cx, accumulator)
            );
            fail(cx, message);
            return false;
        }
        let init_problem = match inits.get(i) {
            Some(Init::Value(init)) if !is_scalar_like(cx, *init, types[i]) => {
                Some(human(cx, *init))
            }
            Some(Init::Element(elem)) if !same_type_ignoring_precision(*elem, types[i]) => {
                Some(format!("{elem}[]"))
            }
            _ => None,
        };
        if let Some(init) = init_problem {
            let message = format!(
                "Reduction function's accumulator shape at index {i} differs from the init_value shape: {} vs {init}",
                human(cx, accumulator),
            );
            fail(cx, message);
            return false;
        }
        let element = params[count + i];
        if !is_scalar_like(cx, element, input_types[i]) {
            let message = format!(
                "Reduction function's {}-th parameter shape differs from the input type element type: {} vs {}[]",
                count + i,
                human(cx, element),
                input_types[i]
            );
            fail(cx, message);
            return false;
        }
        if !is_scalar_like(cx, element, types[i]) {
            let message = format!(
                "Reduction function's {}-th parameter shape must match the result shape, but got {} vs {}.",
                count + i,
                human(cx, element),
                human(cx, accumulator)
            );
            fail(cx, message);
            return false;
        }
    }
    true
}

/// The first callee (`to_apply`) of `instr`, if any.
fn to_apply(cx: &Checker, instr: Instr) -> Option<Comp> {
    cx.data(instr).callees.first().copied()
}

/// Reports that operand `index` of `instr` is not an array.
fn not_array(cx: &mut Checker, rule: Rule, instr: Instr, index: usize, what: &str) {
    let operand = cx.data(instr).operands[index];
    let shape = human(cx, cx.shape_of(operand));
    cx.report(
        rule,
        instr,
        format!("Expected array argument for {what}, but got {shape}."),
    )
    .at_operand(index);
}

/// Splits the operands of a variadic reduction into inputs and init values,
/// reporting an odd count.
fn inputs_and_inits(
    cx: &mut Checker,
    rule: Rule,
    instr: Instr,
) -> Option<(Vec<Instr>, Vec<Instr>)> {
    let opcode = cx.data(instr).opcode;
    let operands = operand_shapes(cx, instr);
    if let Err(error) = infer::reduce::inputs_and_inits(opcode, &operands) {
        cx.report_inference(rule, instr, error);
        return None;
    }
    let (inputs, inits) = cx.data(instr).operands.split_at(operands.len() / 2);
    Some((inputs.to_vec(), inits.to_vec()))
}

/// Checks that every input has the dimensions of the first; returns them.
fn same_dimensions(
    cx: &mut Checker,
    rule: Rule,
    instr: Instr,
    inputs: &[Instr],
    what: &str,
) -> Option<(Vec<i64>, Vec<bool>)> {
    let inputs: Vec<Shape> = inputs.iter().map(|&i| cx.shape_of(i)).collect();
    match infer::reduce::reduced_dimensions(&cx.m.shapes, &inputs, what) {
        Ok(dimensions) => Some(dimensions),
        Err(error) => {
            cx.report_inference(rule, instr, error);
            None
        }
    }
}

// ----- reduce -----

fn check_reduce(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Reduce;
    let Some((inputs, inits)) = inputs_and_inits(cx, rule, instr) else {
        return;
    };
    let Some((dims, _)) = same_dimensions(cx, rule, instr, &inputs, "operand of reduce") else {
        return;
    };
    let input_shape = human(cx, cx.shape_of(inputs[0]));
    let reduced = cx.data(instr).attrs.dimensions().unwrap_or(&[]);
    let rank = dims.len() as i64;
    for &d in reduced {
        if d < 0 || d >= rank {
            cx.report(
                rule,
                instr,
                format!("Reducing out-of-bounds dimension {d} in shape {input_shape}."),
            )
            .with_hint(format!("dimensions must be in [0, {rank})"))
            .at_attribute("dimensions");
            return;
        }
    }
    let Some(callee) = to_apply(cx, instr) else {
        return;
    };
    let input_types: Vec<ElementType> = inputs
        .iter()
        .filter_map(|&i| cx.array_of(i).map(|a| a.elem))
        .collect();
    let init_shapes: Vec<Shape> = inits.iter().map(|&i| cx.shape_of(i)).collect();
    let init_values: Vec<Init> = init_shapes.iter().map(|&s| Init::Value(s)).collect();
    if !check_reducer(cx, instr, callee, &init_values, &input_types, "to_apply") {
        return;
    }
    for (i, &d) in reduced.iter().enumerate() {
        if reduced[..i].contains(&d) {
            cx.report(rule, instr, format!("Duplicate reduction dimension: {d}"))
                .at_attribute("dimensions");
            return;
        }
    }
    let operands = operand_shapes(cx, instr);
    let inferred = infer::reduce::reduce(&cx.m.shapes, &operands, reduced, cx.root_shape(callee));
    expect_inferred(cx, rule, instr, inferred);
}

/// The shapes of `instr`'s operands.
fn operand_shapes(cx: &Checker, instr: Instr) -> Vec<Shape> {
    cx.data(instr)
        .operands
        .iter()
        .map(|&o| cx.shape_of(o))
        .collect()
}

/// Compares the declared shape with the inferred one, or reports why
/// inference failed.
fn expect_inferred(
    cx: &mut Checker,
    rule: Rule,
    instr: Instr,
    inferred: Result<InferredShape, InferError>,
) {
    match inferred {
        Ok(inferred) => {
            cx.expect_shape(rule, instr, &inferred);
        }
        Err(error) => cx.report_inference(rule, instr, error),
    }
}

// ----- reduce-window -----

/// The window dimensions of `instr`; empty when the text gives no window,
/// as XLA's parser then makes an empty one.
fn window_dims<'m>(cx: &Checker<'m>, instr: Instr) -> &'m [WindowDim] {
    match &cx.data(instr).attrs {
        Attrs::Window(Some(window)) => &window.dims,
        _ => &[],
    }
}

fn check_reduce_window(cx: &mut Checker, instr: Instr) {
    let rule = Rule::ReduceWindow;
    let Some((inputs, inits)) = inputs_and_inits(cx, rule, instr) else {
        return;
    };
    let Some(callee) = to_apply(cx, instr) else {
        return;
    };
    if same_dimensions(cx, rule, instr, &inputs, "operand of reduce-window").is_none() {
        return;
    }
    let input_types: Vec<ElementType> = inputs
        .iter()
        .filter_map(|&i| cx.array_of(i).map(|a| a.elem))
        .collect();
    let init_shapes: Vec<Shape> = inits.iter().map(|&i| cx.shape_of(i)).collect();
    let init_values: Vec<Init> = init_shapes.iter().map(|&s| Init::Value(s)).collect();
    if !check_reducer(cx, instr, callee, &init_values, &input_types, "to_apply") {
        return;
    }
    let window = window_dims(cx, instr);
    let operands = operand_shapes(cx, instr);
    let inferred =
        infer::reduce::reduce_window(&cx.m.shapes, &operands, window, cx.root_shape(callee));
    expect_inferred(cx, rule, instr, inferred);
}

// ----- select-and-scatter -----

fn check_select_and_scatter(cx: &mut Checker, instr: Instr) {
    let rule = Rule::SelectAndScatter;
    let data = cx.data(instr);
    let [operand, source, init] = data.operands[..] else {
        return;
    };
    let (Some(&select), Some(&scatter)) = (data.callees.first(), data.callees.get(1)) else {
        return;
    };
    let Some((dims, dynamic)) = dims_of(cx, operand) else {
        not_array(cx, rule, instr, 0, "operand of select-and-scatter");
        return;
    };
    let Some(source_array) = cx.array_of(source) else {
        not_array(cx, rule, instr, 1, "source of select-and-scatter");
        return;
    };
    let operand_type = cx.array_of(operand).map_or(ElementType::F32, |a| a.elem);
    // The select computation compares two operand elements: (T, T) -> pred[].
    let params = cx.param_shapes(select);
    let select_root = cx.root_shape(select);
    let select_problem = if params.len() != 2 {
        Some(format!(
            "Select function must take 2 parameters, but takes {} parameter(s).",
            params.len()
        ))
    } else if !select_root
        .and_then(|r| cx.array(r))
        .is_some_and(|a| a.rank() == 0 && a.elem == ElementType::Pred)
    {
        Some("Select function must have rank-0 PRED result.".to_string())
    } else if !is_scalar_like(cx, params[0], operand_type) {
        Some(format!(
            "Select function's first parameter shape currently must match the operand element shape, but got {} vs {operand_type}[].",
            human(cx, params[0])
        ))
    } else if !is_scalar_like(cx, params[1], operand_type) {
        Some(format!(
            "Select function's second parameter shape currently must match the operand element shape, but got {} vs {operand_type}[].",
            human(cx, params[1])
        ))
    } else {
        None
    };
    if let Some(message) = select_problem {
        cx.report(Rule::CalleeSignature, instr, message)
            .with_hint(format!(
                "select must take two {operand_type}[] and return pred[]"
            ))
            .at_attribute("select");
        return;
    }
    let source_type = source_array.elem;
    let init_shape = cx.shape_of(init);
    if !check_reducer(
        cx,
        instr,
        scatter,
        &[Init::Value(init_shape)],
        &[source_type],
        "scatter",
    ) {
        return;
    }
    let window = window_dims(cx, instr);
    let (sizes, _) = match window_output(window, &dims, &dynamic) {
        Ok(output) => output,
        Err(message) => {
            cx.report(rule, instr, message).at_attribute("window");
            return;
        }
    };
    if *source_array.dims != *sizes {
        let reduced = cx.expected_text(&InferredShape::array(operand_type, sizes));
        let source_text = human(cx, cx.shape_of(source));
        cx.report(
            rule,
            instr,
            format!(
                "Source shape does not match the shape of window-reduced operand: source({source_text}), window-reduced operand({reduced})."
            ),
        )
        .with_hint("the source has one element per window position of the operand")
        .at_operand(1);
        return;
    }
    let expected = infer::reduce::select_and_scatter(cx.shape_of(operand));
    cx.expect_shape(rule, instr, &expected);
}

// ----- map -----

fn check_map(cx: &mut Checker, instr: Instr) {
    let rule = Rule::ControlFlow;
    let operands = cx.data(instr).operands.clone();
    let Some(callee) = to_apply(cx, instr) else {
        return;
    };
    let operand_shapes: Vec<Shape> = operands.iter().map(|&o| cx.shape_of(o)).collect();
    if let Err(error) = infer::reduce::map_operands(&cx.m.shapes, &operand_shapes) {
        cx.report_inference(rule, instr, error);
        return;
    }
    let params = cx.param_shapes(callee);
    let hint = "the mapped computation takes one scalar per operand, of the operand's element type, and returns a scalar";
    if params.len() != operands.len() {
        cx.report(
            Rule::CalleeSignature,
            instr,
            format!(
                "Map applied function arity must match number of arguments; got: arity: {}, arguments: {}.",
                params.len(),
                operands.len()
            ),
        )
        .with_hint(hint)
        .at_attribute("to_apply");
        return;
    }
    let Some(root) = cx.root_shape(callee) else {
        return;
    };
    if cx.array(root).filter(|a| a.rank() == 0).is_none() {
        let text = human(cx, root);
        cx.report(
            Rule::CalleeSignature,
            instr,
            format!("Mapped computation's result has to be a scalar; got: {text}."),
        )
        .with_hint(hint)
        .at_attribute("to_apply");
        return;
    };
    for (i, (&param, &operand)) in params.iter().zip(&operands).enumerate() {
        let operand_type = cx.array_of(operand).map(|a| a.elem);
        let problem = match cx.array(param) {
            Some(p) if p.rank() != 0 => Some(format!(
                "Mapped computation's parameter has to be a scalar; got parameter {i} shape: {}.",
                human(cx, param)
            )),
            None => Some(format!(
                "Mapped computation's parameter has to be a scalar; got parameter {i} shape: {}.",
                human(cx, param)
            )),
            Some(p) if !operand_type.is_some_and(|t| same_type_ignoring_precision(t, p.elem)) => {
                Some(format!(
                    "Mapped computation's parameter type has to match argument element type; got parameter {i} shape: {}, argument shape: {}.",
                    human(cx, param),
                    human(cx, cx.shape_of(operand))
                ))
            }
            _ => None,
        };
        if let Some(message) = problem {
            cx.report(Rule::CalleeSignature, instr, message)
                .with_hint(hint)
                .at_attribute("to_apply");
            return;
        }
    }
    match infer::reduce::map(&cx.m.shapes, &operand_shapes, Some(root)) {
        Ok(inferred) => {
            expect_inferred_array(cx, rule, instr, &inferred);
        }
        Err(error) => cx.report_inference(rule, instr, error),
    }
}

// ----- sort -----

fn check_sort(cx: &mut Checker, instr: Instr) {
    let rule = Rule::Sort;
    let data = cx.data(instr);
    let operands = &data.operands;
    let Attrs::Sort { dimension, .. } = data.attrs else {
        return;
    };
    if operands.is_empty() {
        cx.report(
            rule,
            instr,
            "Expected at least 1 operand for sort instruction",
        )
        .at_opcode();
        return;
    }
    let Some(callee) = data.callees.first().copied() else {
        return;
    };
    let mut types = Vec::with_capacity(operands.len());
    for (i, &operand) in operands.iter().enumerate() {
        match cx.array_of(operand) {
            Some(a) => types.push(a.elem),
            None => {
                not_array(cx, rule, instr, i, "operand of sort");
                return;
            }
        }
    }
    let hint = format!(
        "the comparator takes two scalars per operand ({} in all, of the operands' element types) and returns pred[]",
        2 * operands.len()
    );
    let root = cx.root_shape(callee);
    if !root
        .and_then(|r| cx.array(r))
        .is_some_and(|a| a.rank() == 0 && a.elem == ElementType::Pred)
    {
        let text = root.map_or_else(String::new, |r| human(cx, r));
        cx.report(
            Rule::CalleeSignature,
            instr,
            format!(
                "The Sort compare computation shape does not lead to a scalar predicate shape: {text}"
            ),
        )
        .with_hint(hint)
        .at_attribute("to_apply");
        return;
    }
    let params = cx.param_shapes(callee);
    if params.len() != 2 * operands.len() {
        let name = &cx.m.comps[callee].name;
        let message = format!(
            "Expected computation %{name} called from {} to have {} parameters, has {}",
            cx.name(instr),
            2 * operands.len(),
            params.len()
        );
        cx.report(Rule::CalleeSignature, instr, message)
            .with_hint(hint)
            .at_attribute("to_apply");
        return;
    }
    for (index, &param) in params.iter().enumerate() {
        let elem = types[index / 2];
        if !is_scalar_like(cx, param, elem) {
            let message = format!(
                "Expected the {index}-th parameter of the compare computation of sort to have shape {elem}[], but got {}",
                human(cx, param)
            );
            cx.report(Rule::CalleeSignature, instr, message)
                .with_hint(hint)
                .at_attribute("to_apply");
            return;
        }
    }
    let first = cx
        .array_of(operands[0])
        .map(|a| a.dims.clone())
        .unwrap_or_default();
    for (i, &operand) in operands.iter().enumerate().skip(1) {
        if cx.array_of(operand).is_some_and(|a| a.dims != first) {
            let (a, b) = (
                human(cx, cx.shape_of(operands[0])),
                human(cx, cx.shape_of(operand)),
            );
            cx.report(
                rule,
                instr,
                format!(
                    "Expected sort to have to have the same dimensions for all operands. First operand shape is: {a}, shape (operand index {i}) is: {b}"
                ),
            )
            .at_operand(i);
            return;
        }
    }
    if dimension < 0 || dimension >= first.len() as i64 {
        cx.report(
            rule,
            instr,
            format!(
                "Expected the sort_dimension {dimension} of sort to be smaller than the rank {} of the operand(s).",
                first.len()
            ),
        )
        .at_attribute("dimensions");
        return;
    }
    let operands = operand_shapes(cx, instr);
    expect_inferred(cx, rule, instr, infer::reduce::sort(&operands));
}

// ----- topk -----

fn check_topk(cx: &mut Checker, instr: Instr) {
    let data = cx.data(instr);
    let Attrs::TopK { k, .. } = data.attrs else {
        return;
    };
    let Some(&operand) = data.operands.first() else {
        return;
    };
    let inferred = infer::reduce::top_k(&cx.m.shapes, cx.shape_of(operand), k);
    expect_inferred(cx, Rule::Sort, instr, inferred);
}

// ----- scan -----

/// Scan: operands are the scanned inputs, then `num_carries` initial carries.
/// The computation takes one slice of each input (the scanned dimension
/// removed) and each carry, and returns the output slices, then the new
/// carries. The result stacks the output slices along the scanned dimension
/// and ends with the final carries.
fn check_scan(cx: &mut Checker, instr: Instr) {
    let rule = Rule::ControlFlow;
    let data = cx.data(instr);
    let Attrs::Scan(scan) = &data.attrs else {
        return;
    };
    let Some(callee) = data.callees.first().copied() else {
        return;
    };
    let operands = &data.operands;
    let operand_shapes: Vec<Shape> = operands.iter().map(|&o| cx.shape_of(o)).collect();
    let inputs = infer::reduce::scan_inputs(
        &cx.m.shapes,
        &operand_shapes,
        scan.num_carries,
        scan.dimension,
    );
    let slices = match inputs {
        Ok(inputs) => inputs.slices,
        Err(error) => {
            cx.report_inference(rule, instr, error);
            return;
        }
    };
    let params = cx.param_shapes(callee);
    let hint = "the scan computation takes one slice per input, then the carries";
    if params.len() != operands.len() {
        let message = format!(
            "Expected the scan computation to have {} parameters, has {}",
            operands.len(),
            params.len()
        );
        cx.report(Rule::CalleeSignature, instr, message)
            .with_hint(hint)
            .at_attribute("to_apply");
        return;
    }
    for (i, &param) in params.iter().enumerate() {
        let fits = match slices.get(i) {
            Some(slice) => cx.matches(param, slice),
            None => cx.same(param, cx.shape_of(operands[i])),
        };
        if !fits {
            let want = match slices.get(i) {
                Some(slice) => cx.expected_text(slice),
                None => human(cx, cx.shape_of(operands[i])),
            };
            let message = format!(
                "Expected parameter {i} of the scan computation to have shape {want}, but got {}",
                human(cx, param)
            );
            cx.report(Rule::CalleeSignature, instr, message)
                .with_hint(hint)
                .at_attribute("to_apply");
            return;
        }
    }
    let Some(root) = cx.root_shape(callee) else {
        return;
    };
    let inferred = infer::reduce::scan(
        &cx.m.shapes,
        &operand_shapes,
        scan.num_carries,
        scan.dimension,
        Some(root),
    );
    expect_inferred(cx, rule, instr, inferred);
}

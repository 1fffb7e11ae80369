//! Inference for reductions and the ops that apply a computation per element
//! or per window: reduce, reduce-window, select-and-scatter, map, sort, topk
//! and scan (XLA's `InferReduceShape`, `InferReduceWindowShape`,
//! `InferSelectAndScatterShape`, `InferMapShape`, `InferVariadicOpShape` for
//! sort, `InferTopKShape`, `InferScanShape`).
//!
//! A reduction's result takes its element types from the reduction
//! computation's result (one scalar, or a tuple of scalars, per reduced
//! input), as XLA's `InferReduceShape` does; when that computation does not
//! return scalars (which the verifier reports as a signature problem), the
//! init values' element types stand in. Whether a called computation's
//! parameters fit is the verifier's rule: it does not change the shape.

use crate::attrs::WindowDim;
use crate::element_type::ElementType;
use crate::opcode::Opcode;
use crate::shape::{Shape, ShapeTable, UNBOUNDED};

use super::{InferError, InferredShape, shape_text};

/// `[1,2,3]` as XLA prints dimension lists in messages (`{1,2,3}`).
pub fn list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("{{{}}}", items.join(","))
}

/// The sizes and dynamic flags of an array's dimensions.
pub fn dims_of(shapes: &ShapeTable, shape: Shape) -> Option<(Vec<i64>, Vec<bool>)> {
    let array = shapes.as_array(shape)?;
    let dynamic = (0..array.rank()).map(|d| array.is_dynamic(d)).collect();
    Some((array.dims.to_vec(), dynamic))
}

/// XLA's `ExpectArray` error for operand `index`, which is `what`.
fn not_array(shapes: &ShapeTable, shape: Shape, index: usize, what: &str) -> InferError {
    InferError::new(format!(
        "Expected array argument for {what}, but got {}.",
        shape_text(shapes, shape)
    ))
    .at_operand(index)
}

/// XLA's `window_util::DilatedBound`: the extent of `bound` elements spread
/// `dilation` apart.
fn dilated_bound(bound: i64, dilation: i64) -> i64 {
    if bound <= 0 {
        return 0;
    }
    (bound - 1).saturating_mul(dilation).saturating_add(1)
}

/// XLA's `window_util::StridedBound`: how many windows of `window` fit in
/// `bound` at `stride`.
fn strided_bound(bound: i64, window: i64, stride: i64) -> i64 {
    if window > bound || stride <= 0 {
        return 0;
    }
    (bound - window) / stride + 1
}

/// The dimensions of a window applied to an array of `dims` (XLA's
/// `InferWindowOutputShape`): one window dimension per array dimension, each
/// with positive size, stride and dilations. Unbounded dimensions stay
/// unbounded; dynamic ones stay dynamic.
pub fn window_output(
    window: &[WindowDim],
    dims: &[i64],
    dynamic: &[bool],
) -> Result<(Vec<i64>, Vec<bool>), String> {
    if window.len() != dims.len() {
        return Err(format!(
            "Window has dimension {} but base shape has dimension {}.",
            window.len(),
            dims.len()
        ));
    }
    let mut sizes = Vec::with_capacity(dims.len());
    let mut flags = Vec::with_capacity(dims.len());
    for (i, (dim, &base)) in window.iter().zip(dims).enumerate() {
        let problem = if dim.size <= 0 {
            Some("a non-positive dimension")
        } else if dim.stride <= 0 {
            Some("a non-positive stride")
        } else if dim.base_dilation < 1 {
            Some("a non-positive base area dilation factor")
        } else if dim.window_dilation < 1 {
            Some("a non-positive window dilation factor")
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(format!("Window dimension {i} has {problem}."));
        }
        let is_dynamic = dynamic.get(i).copied().unwrap_or(false);
        if base == UNBOUNDED {
            sizes.push(UNBOUNDED);
            flags.push(true);
            continue;
        }
        let padded = dim
            .padding_low
            .saturating_add(dilated_bound(base, dim.base_dilation))
            .saturating_add(dim.padding_high);
        let extent = dilated_bound(dim.size, dim.window_dilation);
        sizes.push(strided_bound(padded, extent, dim.stride));
        flags.push(is_dynamic);
    }
    Ok((sizes, flags))
}

/// The result of `types.len()` arrays of the same dimensions: a tuple when
/// `tuple`, else the one array.
fn arrays(types: &[ElementType], dims: &[i64], dynamic: &[bool], tuple: bool) -> InferredShape {
    let array = |elem| InferredShape::dynamic_array(elem, dims.to_vec(), dynamic.to_vec());
    match types {
        [only] if !tuple => array(*only),
        _ => InferredShape::Tuple(types.iter().map(|&t| array(t)).collect()),
    }
}

/// Splits the operands of a variadic reduction into inputs and init values.
pub fn inputs_and_inits(
    opcode: Opcode,
    operands: &[Shape],
) -> Result<(&[Shape], &[Shape]), InferError> {
    let count = operands.len();
    if count == 0 || !count.is_multiple_of(2) {
        return Err(InferError::new(format!(
            "{opcode} must have an even number of arguments, has {count}"
        ))
        .with_hint("give N inputs followed by their N init values")
        .at_opcode());
    }
    Ok(operands.split_at(count / 2))
}

/// The dimensions every reduced input shares (those of the first).
pub fn reduced_dimensions(
    shapes: &ShapeTable,
    inputs: &[Shape],
    what: &str,
) -> Result<(Vec<i64>, Vec<bool>), InferError> {
    let first = dims_of(shapes, inputs[0]).ok_or_else(|| not_array(shapes, inputs[0], 0, what))?;
    for (i, &input) in inputs.iter().enumerate().skip(1) {
        let (dims, _) = dims_of(shapes, input).ok_or_else(|| not_array(shapes, input, i, what))?;
        if dims != first.0 {
            return Err(InferError::new(format!(
                "All reduced tensors must have the same dimension. Tensor 0 has shape {}, Tensor {i} has shape {}",
                shape_text(shapes, inputs[0]),
                shape_text(shapes, input)
            ))
            .at_operand(i));
        }
    }
    Ok(first)
}

/// The accumulator element types of a reduction, and whether its result is a
/// tuple: from the reduction computation's result when that is a scalar or a
/// tuple of scalars, else from the init values.
fn accumulators(
    shapes: &ShapeTable,
    reducer_result: Option<Shape>,
    inits: &[Shape],
) -> (Vec<ElementType>, bool) {
    let scalar = |s: Shape| shapes.as_array(s).filter(|a| a.rank() == 0).map(|a| a.elem);
    if let Some(root) = reducer_result {
        if let Some(elements) = shapes.tuple_elements(root) {
            let types: Option<Vec<ElementType>> = elements.iter().map(|&e| scalar(e)).collect();
            if let Some(types) = types.filter(|t| t.len() == inits.len()) {
                return (types, true);
            }
        } else if let (Some(elem), 1) = (scalar(root), inits.len()) {
            return (vec![elem], false);
        }
    }
    let types = inits
        .iter()
        .filter_map(|&s| shapes.as_array(s).map(|a| a.elem))
        .collect();
    (types, inits.len() > 1)
}

/// reduce over `dimensions`: the inputs' dimensions without the reduced ones,
/// one array per input.
pub fn reduce(
    shapes: &ShapeTable,
    operands: &[Shape],
    dimensions: &[i64],
    reducer_result: Option<Shape>,
) -> Result<InferredShape, InferError> {
    let (inputs, inits) = inputs_and_inits(Opcode::Reduce, operands)?;
    let (dims, dynamic) = reduced_dimensions(shapes, inputs, "operand of reduce")?;
    let rank = dims.len() as i64;
    if let Some(&d) = dimensions.iter().find(|&&d| d < 0 || d >= rank) {
        return Err(InferError::new(format!(
            "Reducing out-of-bounds dimension {d} in shape {}.",
            shape_text(shapes, inputs[0])
        ))
        .with_hint(format!("dimensions must be in [0, {rank})"))
        .at_attribute("dimensions"));
    }
    for (i, &d) in dimensions.iter().enumerate() {
        if dimensions[..i].contains(&d) {
            return Err(
                InferError::new(format!("Duplicate reduction dimension: {d}"))
                    .at_attribute("dimensions"),
            );
        }
    }
    let (kept, kept_dynamic): (Vec<i64>, Vec<bool>) = dims
        .iter()
        .zip(&dynamic)
        .enumerate()
        .filter(|(d, _)| !dimensions.contains(&(*d as i64)))
        .map(|(_, (&size, &flag))| (size, flag))
        .unzip();
    let (types, tuple) = accumulators(shapes, reducer_result, inits);
    Ok(arrays(&types, &kept, &kept_dynamic, tuple))
}

/// reduce-window: the windowed dimensions, one array per input, of the init
/// values' element types.
pub fn reduce_window(
    shapes: &ShapeTable,
    operands: &[Shape],
    window: &[WindowDim],
    reducer_result: Option<Shape>,
) -> Result<InferredShape, InferError> {
    let (inputs, inits) = inputs_and_inits(Opcode::ReduceWindow, operands)?;
    let (dims, dynamic) = reduced_dimensions(shapes, inputs, "operand of reduce-window")?;
    let (sizes, flags) = window_output(window, &dims, &dynamic).map_err(|message| {
        InferError::new(message)
            .with_hint(format!(
                "the window needs one dimension per operand dimension ({}), each with positive size, stride and dilations",
                dims.len()
            ))
            .at_attribute("window")
    })?;
    // XLA infers each output from its init value.
    let types: Vec<ElementType> = inits
        .iter()
        .filter_map(|&s| shapes.as_array(s).map(|a| a.elem))
        .collect();
    let (_, tuple) = accumulators(shapes, reducer_result, inits);
    Ok(arrays(&types, &sizes, &flags, tuple || types.len() > 1))
}

/// select-and-scatter: the operand's shape.
pub fn select_and_scatter(operand: Shape) -> InferredShape {
    InferredShape::Existing(operand)
}

/// XLA's checks of map's operands: at least one, all arrays of one shape,
/// except that scalars may be mixed with arrays of their element type.
/// Returns the operand whose dimensions the result takes.
pub fn map_operands(shapes: &ShapeTable, operands: &[Shape]) -> Result<usize, InferError> {
    if operands.is_empty() {
        return Err(InferError::new("Map expects at least one argument.").at_opcode());
    }
    let mut shape_index = 0;
    for (i, &operand) in operands.iter().enumerate() {
        let array = shapes
            .as_array(operand)
            .ok_or_else(|| not_array(shapes, operand, i, "operand of map"))?;
        let Some(reference) = shapes.as_array(operands[shape_index]) else {
            unreachable!("operand {shape_index} was checked to be an array");
        };
        if array.dims == reference.dims {
            continue;
        }
        if array.elem == reference.elem || (array.elem.is_float() && reference.elem.is_float()) {
            if array.rank() == 0 {
                continue;
            }
            if reference.rank() == 0 {
                shape_index = i;
                continue;
            }
        }
        let texts: Vec<String> = operands.iter().map(|&o| shape_text(shapes, o)).collect();
        return Err(InferError::new(format!(
            "Map operation requires all operands to have the same shape; got: {}.",
            texts.join(", ")
        ))
        .at_operand(i));
    }
    Ok(shape_index)
}

/// map: the dimensions of the array operands, with the element type the
/// mapped computation returns.
pub fn map(
    shapes: &ShapeTable,
    operands: &[Shape],
    mapped_result: Option<Shape>,
) -> Result<InferredShape, InferError> {
    let shape_index = map_operands(shapes, operands)?;
    let result = mapped_result
        .and_then(|root| shapes.as_array(root))
        .filter(|a| a.rank() == 0);
    let Some(result) = result else {
        let text = mapped_result.map_or_else(|| "nothing".to_string(), |r| shape_text(shapes, r));
        return Err(InferError::new(format!(
            "Mapped computation's result has to be a scalar; got: {text}."
        ))
        .at_attribute("to_apply"));
    };
    Ok(InferredShape::Retyped {
        base: operands[shape_index],
        elem: result.elem,
    })
}

/// sort: the operands (one as itself, several as a tuple).
pub fn sort(operands: &[Shape]) -> Result<InferredShape, InferError> {
    match operands {
        [] => Err(InferError::new("Expected at least 1 operand for sort instruction").at_opcode()),
        [only] => Ok(InferredShape::Existing(*only)),
        many => Ok(InferredShape::tuple_of(many)),
    }
}

/// topk: `(values, s32 indices)`, the operand's last dimension cut to `k`.
pub fn top_k(shapes: &ShapeTable, operand: Shape, k: i64) -> Result<InferredShape, InferError> {
    let array = shapes
        .as_array(operand)
        .ok_or_else(|| not_array(shapes, operand, 0, "operand of top-k operation"))?;
    let (mut dims, dynamic) = dims_of(shapes, operand).expect("an array");
    let Some(last) = dims.last_mut() else {
        return Err(InferError::new("The operand of TopK must have rank >= 1.").at_operand(0));
    };
    if k < 0 || (*last != UNBOUNDED && k > *last) {
        let size = *last;
        return Err(InferError::new(format!(
            "The k value of TopK ({k}) must be in [0, {size}], the size of the operand's last dimension."
        ))
        .at_attribute("k"));
    }
    *last = k;
    Ok(InferredShape::Tuple(vec![
        InferredShape::dynamic_array(array.elem, dims.clone(), dynamic.clone()),
        InferredShape::dynamic_array(ElementType::S32, dims, dynamic),
    ]))
}

/// What scan's inputs say: how many carries there are, and the scanned
/// length (size and dynamic flag), which every input shares.
pub struct ScanInputs {
    /// How many of the operands (the last ones) are carries.
    pub carries: usize,
    /// The scanned dimension's size and whether it is dynamic.
    pub length: (i64, bool),
    /// Each input with the scanned dimension removed: what the scan
    /// computation receives per step.
    pub slices: Vec<InferredShape>,
}

/// Checks scan's operands (the scanned inputs, then `num_carries` initial
/// carries) along `dimension`.
pub fn scan_inputs(
    shapes: &ShapeTable,
    operands: &[Shape],
    num_carries: i64,
    dimension: i64,
) -> Result<ScanInputs, InferError> {
    let carries = match usize::try_from(num_carries) {
        Ok(c) if c <= operands.len() => c,
        _ => {
            return Err(InferError::new(format!(
                "num_carries={num_carries} is out of range for a scan with {} operands",
                operands.len()
            ))
            .at_attribute("num_carries"));
        }
    };
    let input_count = operands.len() - carries;
    if input_count == 0 {
        return Err(
            InferError::new("Cannot infer shape for scan with no inputs")
                .with_hint("a scan needs at least one input besides its carries")
                .at_opcode(),
        );
    }
    let mut length: Option<(i64, bool)> = None;
    let mut slices = Vec::with_capacity(input_count);
    for (i, &input) in operands[..input_count].iter().enumerate() {
        let (mut dims, mut dynamic) =
            dims_of(shapes, input).ok_or_else(|| not_array(shapes, input, i, "input of scan"))?;
        let Some(d) = usize::try_from(dimension).ok().filter(|&d| d < dims.len()) else {
            return Err(InferError::new(format!(
                "scan dimension {dimension} is out of range for operand of rank {}",
                dims.len()
            ))
            .at_attribute("dimensions"));
        };
        let this = (dims.remove(d), dynamic.remove(d));
        match length {
            Some((size, _)) if size != this.0 => {
                return Err(InferError::new(format!(
                    "scan inputs must have the same size in the scanned dimension {dimension}: {size} vs {}",
                    this.0
                ))
                .at_operand(i));
            }
            Some(_) => {}
            None => length = Some(this),
        }
        let elem = shapes.as_array(input).map_or(ElementType::F32, |a| a.elem);
        slices.push(InferredShape::dynamic_array(elem, dims, dynamic));
    }
    let length = length.expect("at least one input");
    Ok(ScanInputs {
        carries,
        length,
        slices,
    })
}

/// scan: the scan computation's outputs stacked along the scanned dimension,
/// then its final carries.
pub fn scan(
    shapes: &ShapeTable,
    operands: &[Shape],
    num_carries: i64,
    dimension: i64,
    body_result: Option<Shape>,
) -> Result<InferredShape, InferError> {
    let ScanInputs {
        carries,
        length: (length, length_dynamic),
        ..
    } = scan_inputs(shapes, operands, num_carries, dimension)?;
    let root = body_result.ok_or_else(|| InferError::new("the computation has no root"))?;
    let stack = |shape: Shape| -> Result<InferredShape, InferError> {
        let array = shapes.as_array(shape).ok_or_else(|| {
            InferError::new(format!(
                "the outputs of the scan computation must be arrays, one is {}",
                shape_text(shapes, shape)
            ))
            .at_attribute("to_apply")
        })?;
        let d = usize::try_from(dimension).unwrap_or(0).min(array.rank());
        let mut dims = array.dims.to_vec();
        let mut dynamic: Vec<bool> = (0..array.rank()).map(|i| array.is_dynamic(i)).collect();
        dims.insert(d, length);
        dynamic.insert(d, length_dynamic);
        Ok(InferredShape::dynamic_array(array.elem, dims, dynamic))
    };
    Ok(match shapes.tuple_elements(root) {
        Some(elements) => {
            let outputs = elements.len().saturating_sub(carries);
            let mut inferred = Vec::with_capacity(elements.len());
            for (i, &element) in elements.iter().enumerate() {
                if i < outputs {
                    inferred.push(stack(element)?);
                } else {
                    inferred.push(InferredShape::Existing(element));
                }
            }
            InferredShape::Tuple(inferred)
        }
        None if carries > 0 => InferredShape::Existing(root),
        None => stack(root)?,
    })
}

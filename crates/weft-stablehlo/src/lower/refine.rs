//! Shape refinement: every `?` dimension of a program made static before it is
//! lowered, as StableHLO's `stablehlo-refine-arguments` and
//! `stablehlo-refine-shapes` passes do.
//!
//! The entry function's arguments take the shapes of the inputs a run gives
//! them. Then, op by op in program order, a result with a `?` dimension takes
//! the size its operands imply: the operand's for elementwise ops, the folded
//! shape operand's for the dynamic-shape ops ([`super::shape_folding`]), the
//! kept dimensions for `reduce`, and so on; a called function is refined for
//! the types (and the foldable integer values) its call passes, and the call's
//! results take the types its body returns.
//!
//! Invariants:
//! - refinement only replaces `?` by a size; it never changes a static
//!   dimension, a rank or an element type (a size that disagrees with a
//!   static one is an error, not a rewrite);
//! - when it succeeds, no value the lowering reads has a `?` dimension; when it
//!   fails, the error names the first op whose result stays unknown and why;
//! - a function is refined once: calls passing other shapes are refused, and
//!   an argument value two calls disagree on is not folded.

use rustc_hash::FxHashMap;
use weft_ir::literal::ArrayLiteral;

use super::result_shapes::{ShapeInference, Size, sizes_of};
use super::shape_folding::{Folded, LARGEST_FOLDED, ShapeFolder};
use super::{LowerResult, op_error};
use crate::ir::{Attribute, Block, Body, Dim, Op, Type, Value};
use crate::ops::OpKind;

/// Whether any value of `body` has a `?` dimension.
pub(crate) fn needs_refinement(body: &Body) -> bool {
    body.values
        .iter()
        .any(|(_, value)| has_dynamic_dimension(&value.ty))
}

fn has_dynamic_dimension(ty: &Type) -> bool {
    match ty {
        Type::Tensor(tensor) => tensor
            .dims
            .as_ref()
            .is_some_and(|dims| dims.contains(&Dim::Dynamic)),
        Type::Tuple(elements) | Type::Future(elements) => {
            elements.iter().any(has_dynamic_dimension)
        }
        _ => false,
    }
}

/// The contents of the integer entry arguments among `arguments`, small
/// enough to fold, keyed by the entry block's argument values.
pub(crate) fn known_arguments(
    body: &Body,
    entry: Op,
    arguments: &[ArrayLiteral],
) -> FxHashMap<Value, Folded> {
    let mut known = FxHashMap::default();
    let Some(block) = entry_block(body, entry) else {
        return known;
    };
    for (&argument, literal) in body.blocks[block].arguments.iter().zip(arguments) {
        // The declared type decides: a bf16 input arrives as 16-bit integers.
        let declared_integer = match body.ty(argument) {
            Type::Tensor(tensor) => tensor.element.is_integer(),
            Type::Element(element) => element.is_integer(),
            _ => false,
        };
        let integer = literal.elem.is_integer() || literal.elem == weft_ir::ElementType::Pred;
        if declared_integer && integer && literal.len() <= LARGEST_FOLDED {
            let values = (0..literal.len())
                .map(|i| literal.get_int(i) as i64)
                .collect();
            known.insert(
                argument,
                Folded {
                    dims: literal.dims.clone(),
                    values,
                },
            );
        }
    }
    known
}

/// Refines `body` in place: the entry's `?` argument dimensions from
/// `arguments` (when a run gives them), then every op's results.
pub(crate) fn refine(
    body: &mut Body,
    entry: Op,
    known: &mut FxHashMap<Value, Folded>,
    arguments: Option<&[ArrayLiteral]>,
) -> LowerResult<()> {
    let Some(block) = entry_block(body, entry) else {
        return Ok(());
    };
    for (index, argument) in body.blocks[block].arguments.clone().into_iter().enumerate() {
        let ty = body.ty(argument).clone();
        if !has_dynamic_dimension(&ty) {
            continue;
        }
        let type_text = crate::verify::type_text(&ty);
        let Some(input) = arguments.and_then(|a| a.get(index)) else {
            return Err(Box::new(
                op_error(
                    body,
                    entry,
                    format!("argument {index} has the dynamic type {type_text}"),
                )
                .with_hint(
                    "give the inputs (`weft run --inputs`, `weft interpret --args`) so their shapes fix it",
                ),
            ));
        };
        let sizes: Vec<Size> = input.dims.iter().map(|&d| Some(d)).collect();
        let refined = with_sizes(&ty, &sizes).ok_or_else(|| {
            Box::new(op_error(
                body,
                entry,
                format!(
                    "argument {index} of type {type_text} cannot take an input of shape {:?}",
                    input.dims
                ),
            ))
        })?;
        body.values[argument].ty = refined;
    }
    let functions = body
        .functions()
        .into_iter()
        .filter_map(|f| Some((body.symbol_name(f)?.to_string(), f)))
        .collect();
    let mut refinement = Refinement {
        body,
        known,
        functions,
        refined: FxHashMap::default(),
    };
    refinement.refined.insert(entry, Vec::new());
    refinement.block(block)
}

struct Refinement<'a> {
    body: &'a mut Body,
    known: &'a mut FxHashMap<Value, Folded>,
    /// `func.func` ops by symbol.
    functions: FxHashMap<String, Op>,
    /// The functions refined so far, with the argument types they were
    /// refined for.
    refined: FxHashMap<Op, Vec<Type>>,
}

impl Refinement<'_> {
    fn block(&mut self, block: Block) -> LowerResult<()> {
        for op in self.body.blocks[block].ops.clone() {
            self.op(op)?;
        }
        Ok(())
    }

    fn op(&mut self, op: Op) -> LowerResult<()> {
        let kind = self.body.ops[op].name.kind();
        match kind {
            Some(OpKind::While) => {
                // The loop state keeps its shape: the regions' arguments and
                // the results take the operands' types.
                let types: Vec<Type> = self.operand_types(op);
                for region in self.body.ops[op].regions.clone() {
                    if let Some(block) = self.body.entry_block(region) {
                        self.set_argument_types(op, block, &types)?;
                        self.block(block)?;
                    }
                }
            }
            Some(OpKind::Call) => return self.call(op),
            _ => {
                for region in self.body.ops[op].regions.clone() {
                    for block in self.body.regions[region].blocks.clone() {
                        self.block(block)?;
                    }
                }
            }
        }
        let results = self.body.ops[op].results.clone();
        if !results
            .iter()
            .any(|&r| has_dynamic_dimension(self.body.ty(r)))
        {
            return Ok(());
        }
        let inferred = ShapeInference::new(self.body, self.known).results(op, kind);
        for (index, &result) in results.iter().enumerate() {
            let ty = self.body.ty(result).clone();
            if !has_dynamic_dimension(&ty) {
                continue;
            }
            let sizes = match &inferred {
                Ok(all) => all.get(index).cloned().unwrap_or_default(),
                Err(_) => Vec::new(),
            };
            let refined = with_sizes(&ty, &sizes).ok_or_else(|| {
                op_error(
                    self.body,
                    op,
                    format!(
                        "its operands give result {index} the shape {}, which disagrees with its type {}",
                        sizes_text(&sizes),
                        crate::verify::type_text(&ty)
                    ),
                )
            })?;
            if has_dynamic_dimension(&refined) {
                let why = match &inferred {
                    Err(reason) => reason.clone(),
                    Ok(_) => "its operands do not fix every dimension".to_string(),
                };
                return Err(Box::new(
                    op_error(
                        self.body,
                        op,
                        format!(
                            "the shape of its result {} is not known before run time: {why}",
                            crate::verify::type_text(&ty)
                        ),
                    )
                    .with_hint(
                        "weft runs static shapes; give the inputs (`weft run --inputs`, `weft interpret --args`) or constant shape operands",
                    ),
                ));
            }
            self.body.values[result].ty = refined;
        }
        Ok(())
    }

    /// Refines the callee of `call` for the types and values it passes, then
    /// the call's results from what the callee returns.
    fn call(&mut self, call: Op) -> LowerResult<()> {
        let symbol = match self.body.attribute(call, "callee") {
            Some(Attribute::SymbolRef(path)) => path.first().cloned().unwrap_or_default(),
            _ => String::new(),
        };
        let Some(&callee) = self.functions.get(&symbol) else {
            return Err(op_error(self.body, call, format!("no function named @{symbol}")).into());
        };
        let Some(block) = entry_block(self.body, callee) else {
            return Ok(());
        };
        let types = self.operand_types(call);
        let operands = self.body.ops[call].operands.clone();
        let arguments = self.body.blocks[block].arguments.clone();
        let folded: Vec<Option<Folded>> = {
            let folder = ShapeFolder::new(self.body, self.known);
            operands
                .iter()
                .map(|&operand| folder.fold(operand).ok())
                .collect()
        };
        match self.refined.get(&callee) {
            Some(earlier) if *earlier == types => {
                // The values an earlier call passed fold only where this call
                // passes the same.
                for (argument, value) in arguments.iter().zip(folded) {
                    if self.known.get(argument) != value.as_ref() {
                        self.known.remove(argument);
                    }
                }
            }
            Some(_) => {
                return Err(Box::new(
                    op_error(
                        self.body,
                        call,
                        format!("calls @{symbol} with other shapes than an earlier call"),
                    )
                    .with_hint("weft refines each function for one set of argument shapes"),
                ));
            }
            None => {
                self.refined.insert(callee, types.clone());
                self.set_argument_types(call, block, &types)?;
                for (&argument, value) in arguments.iter().zip(folded) {
                    if let Some(value) = value {
                        self.known.insert(argument, value);
                    }
                }
                self.block(block)?;
            }
        }
        let returned = match self.body.blocks[block].ops.last() {
            Some(&terminator) => self.operand_types(terminator),
            None => Vec::new(),
        };
        for (result, ty) in self.body.ops[call]
            .results
            .clone()
            .into_iter()
            .zip(returned)
        {
            let sizes = sizes_of(&ty).unwrap_or_default();
            let declared = self.body.ty(result).clone();
            if let Some(refined) = with_sizes(&declared, &sizes) {
                self.body.values[result].ty = refined;
            }
        }
        Ok(())
    }

    /// Gives `block`'s arguments the sizes of `types` where they are `?`.
    fn set_argument_types(&mut self, op: Op, block: Block, types: &[Type]) -> LowerResult<()> {
        for (argument, ty) in self.body.blocks[block]
            .arguments
            .clone()
            .into_iter()
            .zip(types)
        {
            let declared = self.body.ty(argument).clone();
            let sizes = sizes_of(ty).unwrap_or_default();
            let refined = with_sizes(&declared, &sizes).ok_or_else(|| {
                op_error(
                    self.body,
                    op,
                    format!(
                        "passes a value of type {} where {} is expected",
                        crate::verify::type_text(ty),
                        crate::verify::type_text(&declared)
                    ),
                )
            })?;
            self.body.values[argument].ty = refined;
        }
        Ok(())
    }

    fn operand_types(&self, op: Op) -> Vec<Type> {
        self.body.ops[op]
            .operands
            .iter()
            .map(|&v| self.body.ty(v).clone())
            .collect()
    }
}

/// `ty` with its `?` dimensions replaced by the known ones of `sizes`;
/// `None` when a known size disagrees with a static one or the ranks differ.
/// An empty `sizes` (nothing inferred) leaves `ty` as it is.
fn with_sizes(ty: &Type, sizes: &[Size]) -> Option<Type> {
    let Type::Tensor(tensor) = ty else {
        return Some(ty.clone());
    };
    let Some(dims) = &tensor.dims else {
        return Some(ty.clone());
    };
    if sizes.is_empty() && !dims.is_empty() {
        return Some(ty.clone());
    }
    if sizes.len() != dims.len() {
        return None;
    }
    let refined = dims
        .iter()
        .zip(sizes)
        .map(|(&dim, &size)| match (dim, size) {
            (Dim::Static(declared), Some(size)) if declared != size => None,
            (Dim::Dynamic, Some(size)) if size >= 0 => Some(Dim::Static(size)),
            (dim, _) => Some(dim),
        })
        .collect::<Option<Vec<Dim>>>()?;
    let mut tensor = tensor.clone();
    tensor.dims = Some(refined);
    // A bounds encoding describes `?` dimensions, which are gone.
    if tensor.static_dims().is_some() {
        tensor.encoding = None;
    }
    Some(Type::Tensor(tensor))
}

/// `[2, ?, 4]`.
fn sizes_text(sizes: &[Size]) -> String {
    let parts: Vec<String> = sizes
        .iter()
        .map(|s| s.map_or("?".to_string(), |n| n.to_string()))
        .collect();
    format!("[{}]", parts.join(", "))
}

fn entry_block(body: &Body, func: Op) -> Option<Block> {
    body.ops[func]
        .regions
        .first()
        .and_then(|&region| body.entry_block(region))
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::ElementType;

    /// Refines `text` for `arguments`; the printed types of `@main`'s
    /// returned values, or the error.
    fn refined_results(text: &str, arguments: &[ArrayLiteral]) -> Result<Vec<String>, String> {
        let mut body = crate::text::parse(text).expect("parses");
        let main = body.functions()[0];
        let mut known = known_arguments(&body, main, arguments);
        refine(&mut body, main, &mut known, Some(arguments)).map_err(|d| d.message.clone())?;
        let block = entry_block(&body, main).expect("a body");
        let terminator = *body.blocks[block].ops.last().expect("a return");
        Ok(body.ops[terminator]
            .operands
            .iter()
            .map(|&v| crate::verify::type_text(body.ty(v)))
            .collect())
    }

    fn scalar(value: i64) -> ArrayLiteral {
        let mut literal = ArrayLiteral::zeros(ElementType::S64, &[]);
        literal.set_int(0, i128::from(value));
        literal
    }

    #[test]
    fn arguments_and_folded_values_refine_every_result() {
        let types = refined_results(
            r#"
func.func @main(%n: tensor<i64>, %x: tensor<?x3xf32>) -> (tensor<?xf32>, tensor<?x?xi32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sums = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x3xf32>, tensor<f32>) -> tensor<?xf32>
  %twice = stablehlo.add %sums, %sums : tensor<?xf32>
  %size = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %size, %size, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %iota = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi64>) -> tensor<?x?xi32>
  func.return %twice, %iota : tensor<?xf32>, tensor<?x?xi32>
}"#,
            &[scalar(4), ArrayLiteral::zeros(ElementType::F32, &[2, 3])],
        )
        .unwrap();
        assert_eq!(types, ["tensor<2xf32>", "tensor<4x4xi32>"]);
    }

    #[test]
    fn shape_operands_and_attributes_refine_rng_top_k_and_fft() {
        let types = refined_results(
            r#"
func.func @main(%n: tensor<i64>, %x: tensor<?x8xf32>) -> (tensor<?x?xf32>, tensor<?x3xf32>, tensor<?x5xcomplex<f32>>) {
  %low = stablehlo.constant dense<0.0> : tensor<f32>
  %high = stablehlo.constant dense<1.0> : tensor<f32>
  %size = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %size, %size, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %noise = stablehlo.rng %low, %high, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %top:2 = chlo.top_k(%x, k = 3) : tensor<?x8xf32> -> (tensor<?x3xf32>, tensor<?x3xi32>)
  %spectrum = stablehlo.fft %x, type = RFFT, length = [8] : (tensor<?x8xf32>) -> tensor<?x5xcomplex<f32>>
  func.return %noise, %top#0, %spectrum : tensor<?x?xf32>, tensor<?x3xf32>, tensor<?x5xcomplex<f32>>
}"#,
            &[scalar(2), ArrayLiteral::zeros(ElementType::F32, &[6, 8])],
        )
        .unwrap();
        assert_eq!(
            types,
            [
                "tensor<2x2xf32>",
                "tensor<6x3xf32>",
                "tensor<6x5xcomplex<f32>>"
            ]
        );
    }

    #[test]
    fn a_size_that_disagrees_with_a_static_one_is_refused() {
        let error = refined_results(
            r#"
func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  func.return %x : tensor<?x3xf32>
}"#,
            &[ArrayLiteral::zeros(ElementType::F32, &[2, 4])],
        )
        .unwrap_err();
        assert!(
            error.contains(
                "argument 0 of type tensor<?x3xf32> cannot take an input of shape [2, 4]"
            ),
            "{error}"
        );
    }
}

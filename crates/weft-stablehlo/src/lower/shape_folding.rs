//! Shape folding: the integer tensors that give the dynamic-shape ops their
//! shapes (`dynamic_iota`'s output shape, `dynamic_pad`'s amounts,
//! `real_dynamic_slice`'s bounds, …), computed before run time.
//!
//! A value folds when it is computed, through ops this module evaluates, from
//! values known before run time: `stablehlo.constant`s, the sizes of static
//! dimensions (`get_dimension_size`), and the integer entry arguments a caller
//! supplies (`weft run` and `weft interpret` know their inputs). The ops
//! evaluated are those shape computations are written with: `convert`,
//! `reshape`, `broadcast_in_dim`, `concatenate`, `slice`, `transpose`, `iota`,
//! integer arithmetic, comparisons, `select` and `clamp`, and `func.call`
//! (what the callee returns).
//!
//! Invariants:
//! - folding never guesses: a value that does not fold says why (the op or
//!   argument it depends on), and that reason reaches the user's error;
//! - folded values follow the integer semantics of the value's element type:
//!   each result is wrapped to its type's width, booleans are 0 or 1;
//! - only integer (and boolean) tensors of at most [`LARGEST_FOLDED`] elements
//!   fold: shapes are small, and folding is not a second evaluator.

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use weft_ir::ElementType;

use crate::ir::attribute::DenseValues;
use crate::ir::dialect_attr::enum_keyword;
use crate::ir::{Attribute, Body, Type, Value, ValueDef};
use crate::ops::OpKind;

use super::integer_attribute;
use super::ops::integer_list;

/// The most elements a folded tensor may have.
pub(crate) const LARGEST_FOLDED: usize = 4096;

/// How deep a chain of ops folding follows before it gives up (a guard
/// against pathological programs, far above any shape computation).
const DEEPEST_CHAIN: usize = 256;

/// An integer tensor known before run time, its elements in row-major order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Folded {
    pub(crate) dims: Vec<i64>,
    pub(crate) values: Vec<i64>,
}

/// Why a value does not fold; reads as the end of a sentence ("… is not
/// known before run time: {reason}").
pub(crate) type NotFolded = String;

/// Folds values of one program.
pub(crate) struct ShapeFolder<'b> {
    body: &'b Body,
    /// Values known without being computed: the entry arguments whose
    /// contents the caller supplied.
    known: &'b FxHashMap<Value, Folded>,
    /// Values folded so far: a value used many times (a size read once and
    /// reused) is folded once, so shared subgraphs cost no more than trees.
    folded: RefCell<FxHashMap<Value, Result<Folded, NotFolded>>>,
}

impl<'b> ShapeFolder<'b> {
    pub(crate) fn new(body: &'b Body, known: &'b FxHashMap<Value, Folded>) -> ShapeFolder<'b> {
        ShapeFolder {
            body,
            known,
            folded: RefCell::default(),
        }
    }

    /// The contents of `value`, or why they are not known before run time.
    pub(crate) fn fold(&self, value: Value) -> Result<Folded, NotFolded> {
        self.fold_within(value, 0)
    }

    /// The elements of `value` as a list, whatever its rank.
    pub(crate) fn fold_list(&self, value: Value) -> Result<Vec<i64>, NotFolded> {
        self.fold(value).map(|folded| folded.values)
    }

    fn fold_within(&self, value: Value, depth: usize) -> Result<Folded, NotFolded> {
        if let Some(known) = self.known.get(&value) {
            return Ok(known.clone());
        }
        if let Some(earlier) = self.folded.borrow().get(&value) {
            return earlier.clone();
        }
        let folded = self.fold_op_result(value, depth);
        self.folded.borrow_mut().insert(value, folded.clone());
        folded
    }

    fn fold_op_result(&self, value: Value, depth: usize) -> Result<Folded, NotFolded> {
        let (op, result_index) = match self.body.values[value].def {
            ValueDef::Result(op, index) => (op, index as usize),
            ValueDef::Argument(block, index) => {
                let owner = self.body.parent_op(block);
                let owner_name = owner.map_or("", |op| self.body.ops[op].name.as_str());
                return Err(match owner.and_then(|op| self.body.symbol_name(op)) {
                    Some(function) if owner_name == "func.func" => format!(
                        "it depends on argument {index} of @{function}, whose value is known only at run time"
                    ),
                    _ => format!("it depends on an argument of a '{owner_name}' region"),
                });
            }
        };
        if depth > DEEPEST_CHAIN {
            return Err("its computation is too deep to fold".to_string());
        }
        let data = &self.body.ops[op];
        let name = data.name.as_str();
        let result_type = self.body.ty(value);
        let element = integer_element(result_type).ok_or_else(|| {
            format!(
                "it depends on '{name}' of type {}, and only integers fold",
                crate::verify::type_text(result_type)
            )
        })?;
        let Some(kind) = data.name.kind() else {
            return Err(format!("it depends on '{name}', which is not a known op"));
        };
        let operand = |i: usize| -> Result<Folded, NotFolded> {
            let value = *data
                .operands
                .get(i)
                .ok_or_else(|| format!("'{name}' lacks operand {i}"))?;
            self.fold_within(value, depth + 1)
        };
        let result_dims = || -> Result<Vec<i64>, NotFolded> {
            result_type
                .static_dims()
                .ok_or_else(|| format!("'{name}' has a result of unknown shape"))
        };
        let ints = |attribute: &str| -> Result<Vec<i64>, NotFolded> {
            self.body
                .attribute(op, attribute)
                .and_then(integer_list)
                .ok_or_else(|| format!("'{name}' lacks its '{attribute}'"))
        };
        use OpKind as K;
        let folded = match kind {
            K::Constant => self.constant(op, name)?,
            K::Call => {
                // What the callee returns, its arguments known where the
                // refinement of the call found them.
                let returned = self
                    .returned_value(op, result_index)
                    .ok_or_else(|| format!("it depends on '{name}', whose callee is not found"))?;
                return self.fold_within(returned, depth + 1);
            }
            K::Convert | K::Reshape => {
                let input = operand(0)?;
                Folded {
                    dims: result_dims()?,
                    values: input.values,
                }
            }
            K::GetDimensionSize => {
                let dimension = integer_attribute(self.body.attribute(op, "dimension"))
                    .ok_or_else(|| format!("'{name}' lacks its dimension"))?;
                let operand_type = self.body.ty(data.operands[0]);
                let size = operand_type
                    .as_tensor()
                    .and_then(|t| t.dims.as_ref())
                    .and_then(|dims| dims.get(dimension as usize))
                    .and_then(|d| match d {
                        crate::ir::Dim::Static(size) => Some(*size),
                        crate::ir::Dim::Dynamic => None,
                    })
                    .ok_or_else(|| {
                        format!(
                            "it depends on the size of dimension {dimension} of a tensor of type {}, which is dynamic",
                            crate::verify::type_text(operand_type)
                        )
                    })?;
                Folded {
                    dims: Vec::new(),
                    values: vec![size],
                }
            }
            K::Iota => {
                let dims = result_dims()?;
                let dimension = integer_attribute(self.body.attribute(op, "iota_dimension"))
                    .ok_or_else(|| format!("'{name}' lacks its iota_dimension"))?;
                let count = element_count(&dims)?;
                let values = (0..count)
                    .map(|index| coordinate(&dims, index)[dimension as usize])
                    .collect();
                Folded { dims, values }
            }
            K::BroadcastInDim => {
                let input = operand(0)?;
                let dims = result_dims()?;
                let mapping = ints("broadcast_dimensions")?;
                let count = element_count(&dims)?;
                let values = (0..count)
                    .map(|index| {
                        let at = coordinate(&dims, index);
                        let source: Vec<i64> = mapping
                            .iter()
                            .zip(&input.dims)
                            .map(|(&d, &size)| if size == 1 { 0 } else { at[d as usize] })
                            .collect();
                        input.values[linear(&input.dims, &source)]
                    })
                    .collect();
                Folded { dims, values }
            }
            K::Transpose => {
                let input = operand(0)?;
                let dims = result_dims()?;
                let permutation = ints("permutation")?;
                let count = element_count(&dims)?;
                let values = (0..count)
                    .map(|index| {
                        let at = coordinate(&dims, index);
                        let mut source = vec![0; at.len()];
                        for (result_dim, &input_dim) in permutation.iter().enumerate() {
                            source[input_dim as usize] = at[result_dim];
                        }
                        input.values[linear(&input.dims, &source)]
                    })
                    .collect();
                Folded { dims, values }
            }
            K::Slice => {
                let input = operand(0)?;
                let dims = result_dims()?;
                let starts = ints("start_indices")?;
                let strides = ints("strides")?;
                let count = element_count(&dims)?;
                let values = (0..count)
                    .map(|index| {
                        let at = coordinate(&dims, index);
                        let source: Vec<i64> = at
                            .iter()
                            .enumerate()
                            .map(|(d, &i)| starts[d] + i * strides[d])
                            .collect();
                        input.values[linear(&input.dims, &source)]
                    })
                    .collect();
                Folded { dims, values }
            }
            K::Concatenate => {
                let dims = result_dims()?;
                let dimension = integer_attribute(self.body.attribute(op, "dimension"))
                    .ok_or_else(|| format!("'{name}' lacks its dimension"))?
                    as usize;
                let parts = (0..data.operands.len())
                    .map(operand)
                    .collect::<Result<Vec<_>, _>>()?;
                let count = element_count(&dims)?;
                let values = (0..count)
                    .map(|index| {
                        let mut at = coordinate(&dims, index);
                        for part in &parts {
                            if at[dimension] < part.dims[dimension] {
                                return part.values[linear(&part.dims, &at)];
                            }
                            at[dimension] -= part.dims[dimension];
                        }
                        unreachable!("the verifier checked the concatenated sizes")
                    })
                    .collect();
                Folded { dims, values }
            }
            K::Negate | K::Abs | K::Sign | K::Not => {
                let input = operand(0)?;
                let boolean = element == ElementType::Pred;
                let values = input
                    .values
                    .iter()
                    .map(|&x| match kind {
                        K::Negate => x.wrapping_neg(),
                        K::Abs => x.wrapping_abs(),
                        K::Sign => x.signum(),
                        _ if boolean => i64::from(x == 0),
                        _ => !x,
                    })
                    .collect();
                Folded {
                    dims: input.dims,
                    values,
                }
            }
            K::Add
            | K::Subtract
            | K::Multiply
            | K::Divide
            | K::Remainder
            | K::Maximum
            | K::Minimum
            | K::And
            | K::Or
            | K::Xor => {
                let (left, right) = (operand(0)?, operand(1)?);
                let unsigned = is_unsigned(element);
                let values = left
                    .values
                    .iter()
                    .zip(&right.values)
                    .map(|(&a, &b)| binary(kind, a, b, unsigned))
                    .collect::<Result<Vec<_>, _>>()?;
                Folded {
                    dims: left.dims,
                    values,
                }
            }
            K::Compare => {
                let (left, right) = (operand(0)?, operand(1)?);
                let direction = enum_keyword(
                    self.body.attribute(op, "comparison_direction"),
                    "comparison_direction",
                )
                .ok_or_else(|| format!("'{name}' lacks its comparison_direction"))?;
                let unsigned =
                    integer_element(self.body.ty(data.operands[0])).is_some_and(is_unsigned);
                let values = left
                    .values
                    .iter()
                    .zip(&right.values)
                    .map(|(&a, &b)| compare(direction, a, b, unsigned).map(i64::from))
                    .collect::<Result<Vec<_>, _>>()?;
                Folded {
                    dims: left.dims,
                    values,
                }
            }
            K::Select => {
                let (choose, on_true, on_false) = (operand(0)?, operand(1)?, operand(2)?);
                let values = (0..on_true.values.len())
                    .map(|i| {
                        let pick = if choose.dims.is_empty() {
                            choose.values[0]
                        } else {
                            choose.values[i]
                        };
                        if pick != 0 {
                            on_true.values[i]
                        } else {
                            on_false.values[i]
                        }
                    })
                    .collect();
                Folded {
                    dims: on_true.dims,
                    values,
                }
            }
            K::Clamp => {
                let (low, input, high) = (operand(0)?, operand(1)?, operand(2)?);
                let bound = |bound: &Folded, i: usize| {
                    if bound.dims.is_empty() {
                        bound.values[0]
                    } else {
                        bound.values[i]
                    }
                };
                let values = (0..input.values.len())
                    .map(|i| input.values[i].max(bound(&low, i)).min(bound(&high, i)))
                    .collect();
                Folded {
                    dims: input.dims,
                    values,
                }
            }
            _ => {
                return Err(format!(
                    "it depends on '{name}', which shape folding does not evaluate"
                ));
            }
        };
        if folded.values.len() > LARGEST_FOLDED {
            return Err(format!(
                "it is computed by '{name}' with more than {LARGEST_FOLDED} elements"
            ));
        }
        Ok(Folded {
            values: folded
                .values
                .into_iter()
                .map(|v| wrap(v, element))
                .collect(),
            dims: folded.dims,
        })
    }

    /// The value the function `call` calls returns as its result `index`.
    fn returned_value(&self, call: crate::ir::Op, index: usize) -> Option<Value> {
        let Some(Attribute::SymbolRef(path)) = self.body.attribute(call, "callee") else {
            return None;
        };
        let callee = self
            .body
            .functions()
            .into_iter()
            .find(|&f| self.body.symbol_name(f) == path.first().map(String::as_str))?;
        let region = *self.body.ops[callee].regions.first()?;
        let block = self.body.entry_block(region)?;
        let terminator = *self.body.blocks[block].ops.last()?;
        self.body.ops[terminator].operands.get(index).copied()
    }

    /// The elements of a `stablehlo.constant`.
    fn constant(&self, op: crate::ir::Op, name: &str) -> Result<Folded, NotFolded> {
        let Some(Attribute::DenseElements(dense)) = self.body.attribute(op, "value") else {
            return Err(format!("'{name}' has no dense value"));
        };
        let dims = dense
            .ty
            .static_dims()
            .ok_or_else(|| format!("'{name}' has a value of unknown shape"))?;
        let (DenseValues::Array(array) | DenseValues::Splat(array)) = &dense.values else {
            return Err(format!("'{name}' holds strings"));
        };
        let count = element_count(&dims)?;
        // A splat holds one element for the whole tensor.
        let values = (0..count)
            .map(|i| {
                let source = if array.len() == 1 { 0 } else { i };
                array.get_int(source) as i64
            })
            .collect();
        Ok(Folded { dims, values })
    }
}

/// The element type of an integer or boolean tensor type.
fn integer_element(ty: &Type) -> Option<ElementType> {
    let element = match ty {
        Type::Tensor(tensor) => &tensor.element,
        Type::Element(element) => element,
        _ => return None,
    };
    if !element.is_integer() {
        return None;
    }
    element.hlo()
}

/// The number of elements of a tensor of `dims`, when small enough to fold.
fn element_count(dims: &[i64]) -> Result<usize, NotFolded> {
    let count = weft_ir::size::product(dims)
        .filter(|&count| count.as_usize() <= LARGEST_FOLDED)
        .ok_or_else(|| format!("it has more than {LARGEST_FOLDED} elements"))?;
    Ok(count.as_usize())
}

/// The coordinates of row-major element `index` of a tensor of `dims`.
fn coordinate(dims: &[i64], index: usize) -> Vec<i64> {
    let mut index = index as i64;
    let mut at = vec![0; dims.len()];
    for d in (0..dims.len()).rev() {
        at[d] = index % dims[d].max(1);
        index /= dims[d].max(1);
    }
    at
}

/// The row-major position of `at` in a tensor of `dims`.
fn linear(dims: &[i64], at: &[i64]) -> usize {
    at.iter()
        .zip(dims)
        .fold(0i64, |position, (&i, &size)| position * size + i) as usize
}

/// `a op b` on integers; an unsigned type divides and orders without sign.
fn binary(kind: OpKind, a: i64, b: i64, unsigned: bool) -> Result<i64, NotFolded> {
    use OpKind as K;
    Ok(match kind {
        K::Add => a.wrapping_add(b),
        K::Subtract => a.wrapping_sub(b),
        K::Multiply => a.wrapping_mul(b),
        K::Divide | K::Remainder if b == 0 => {
            return Err("it divides by zero".to_string());
        }
        K::Divide if unsigned => ((a as u64) / (b as u64)) as i64,
        K::Divide => a.wrapping_div(b),
        K::Remainder if unsigned => ((a as u64) % (b as u64)) as i64,
        K::Remainder => a.wrapping_rem(b),
        K::Maximum if unsigned => (a as u64).max(b as u64) as i64,
        K::Maximum => a.max(b),
        K::Minimum if unsigned => (a as u64).min(b as u64) as i64,
        K::Minimum => a.min(b),
        K::And => a & b,
        K::Or => a | b,
        _ => a ^ b,
    })
}

/// `a direction b`.
fn compare(direction: &str, a: i64, b: i64, unsigned: bool) -> Result<bool, NotFolded> {
    let order = if unsigned {
        (a as u64).cmp(&(b as u64))
    } else {
        a.cmp(&b)
    };
    Ok(match direction {
        "EQ" => order.is_eq(),
        "NE" => order.is_ne(),
        "LT" => order.is_lt(),
        "LE" => order.is_le(),
        "GT" => order.is_gt(),
        "GE" => order.is_ge(),
        other => return Err(format!("it compares with an unknown direction {other}")),
    })
}

/// `value` as an element of type `element` holds it: truncated to its width,
/// sign-extended when signed, 0 or 1 for a boolean.
fn wrap(value: i64, element: ElementType) -> i64 {
    if element == ElementType::Pred {
        return i64::from(value != 0);
    }
    let bits = element.bit_width();
    if bits >= 64 {
        return value;
    }
    let shift = 64 - bits;
    if is_unsigned(element) {
        ((value as u64) << shift >> shift) as i64
    } else {
        (value << shift) >> shift
    }
}

/// Whether `element` is an unsigned integer type.
fn is_unsigned(element: ElementType) -> bool {
    element.class() == weft_ir::element_type::ElementClass::Unsigned
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Folds the value `@main` returns, with nothing known about arguments.
    fn fold_returned(text: &str) -> Result<Folded, NotFolded> {
        let body = crate::text::parse(text).expect("parses");
        let main = body.functions()[0];
        let block = body.entry_block(body.ops[main].regions[0]).expect("a body");
        let terminator = *body.blocks[block].ops.last().expect("a return");
        let returned = body.ops[terminator].operands[0];
        let known = FxHashMap::default();
        ShapeFolder::new(&body, &known).fold(returned)
    }

    #[test]
    fn shape_computations_fold() {
        let folded = fold_returned(
            r#"
func.func @main(%x: tensor<5x7xf32>) -> tensor<3xi32> {
  %rows = stablehlo.get_dimension_size %x, dim = 0 : (tensor<5x7xf32>) -> tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %half = stablehlo.divide %rows, %two : tensor<i32>
  %pair = stablehlo.broadcast_in_dim %half, dims = [] : (tensor<i32>) -> tensor<2xi32>
  %seven = stablehlo.constant dense<[7, 9]> : tensor<2xi32>
  %low = stablehlo.minimum %pair, %seven : tensor<2xi32>
  %first = stablehlo.slice %low [0:1] : (tensor<2xi32>) -> tensor<1xi32>
  %all = stablehlo.concatenate %first, %seven, dim = 0 : (tensor<1xi32>, tensor<2xi32>) -> tensor<3xi32>
  func.return %all : tensor<3xi32>
}"#,
        )
        .unwrap();
        assert_eq!(folded.dims, [3]);
        assert_eq!(folded.values, [2, 7, 9]);
    }

    #[test]
    fn results_wrap_to_their_type() {
        let folded = fold_returned(
            r#"
func.func @main() -> tensor<2xi8> {
  %big = stablehlo.constant dense<[200, -1]> : tensor<2xi32>
  %small = stablehlo.convert %big : (tensor<2xi32>) -> tensor<2xi8>
  func.return %small : tensor<2xi8>
}"#,
        )
        .unwrap();
        assert_eq!(folded.values, [-56, -1]);
    }

    #[test]
    fn shared_subgraphs_fold_once() {
        // 64 doublings of one value: a tree walk would visit 2^64 nodes.
        let mut text = String::from(
            "func.func @main() -> tensor<i64> {\n  %v0 = stablehlo.constant dense<1> : tensor<i64>\n",
        );
        for i in 1..=64 {
            text.push_str(&format!(
                "  %v{i} = stablehlo.add %v{}, %v{} : tensor<i64>\n",
                i - 1,
                i - 1
            ));
        }
        text.push_str("  func.return %v64 : tensor<i64>\n}");
        // 2^64 wraps to 0 in i64.
        assert_eq!(fold_returned(&text).unwrap().values, [0]);
    }

    #[test]
    fn what_does_not_fold_says_why() {
        let argument = fold_returned(
            r#"
func.func @main(%n: tensor<i32>) -> tensor<i32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %next = stablehlo.add %n, %one : tensor<i32>
  func.return %next : tensor<i32>
}"#,
        )
        .unwrap_err();
        assert!(argument.contains("argument 0 of @main"), "{argument}");
        let division = fold_returned(
            r#"
func.func @main() -> tensor<i32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %ratio = stablehlo.divide %one, %zero : tensor<i32>
  func.return %ratio : tensor<i32>
}"#,
        )
        .unwrap_err();
        assert!(division.contains("divides by zero"), "{division}");
    }
}

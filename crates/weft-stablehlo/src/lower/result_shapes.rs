//! Result shapes from operand shapes: the sizes each op's operands (and
//! folded shape operands) give its results, for [`super::refine`].
//!
//! A rule answers one list of sizes per result, `None` where the operands
//! leave a dimension unknown; an op without a rule answers why. The rules are
//! StableHLO's type inference restricted to sizes: element types and ranks
//! come from the declared result types, which refinement never changes.

use rustc_hash::FxHashMap;

use super::dynamic::{padded_dims, sliced_dims};
use super::integer_attribute;
use super::shape_folding::{Folded, ShapeFolder};
use crate::ir::dialect_attr::Structured;
use crate::ir::{Body, Dim, Op, Type, Value};
use crate::ops::{OpKind, Syntax};

/// A dimension as inference knows it: a size, or unknown.
pub(crate) type Size = Option<i64>;

/// Infers result sizes in one program.
pub(crate) struct ShapeInference<'b> {
    body: &'b Body,
    known: &'b FxHashMap<Value, Folded>,
}

impl<'b> ShapeInference<'b> {
    pub(crate) fn new(body: &'b Body, known: &'b FxHashMap<Value, Folded>) -> ShapeInference<'b> {
        ShapeInference { body, known }
    }

    /// The sizes `op`'s operands give its results, one list per result.
    pub(crate) fn results(&self, op: Op, kind: Option<OpKind>) -> Result<Vec<Vec<Size>>, String> {
        let name = self.body.ops[op].name.as_str().to_string();
        let kind = kind.ok_or_else(|| format!("'{name}' is not a known op"))?;
        let operands = self.body.ops[op].operands.clone();
        let operand_sizes = |i: usize| -> Result<Vec<Size>, String> {
            operands
                .get(i)
                .and_then(|&v| sizes_of(self.body.ty(v)))
                .ok_or_else(|| format!("operand {i} is not a ranked tensor"))
        };
        let fold = |i: usize, what: &str| -> Result<Vec<i64>, String> {
            let value = *operands
                .get(i)
                .ok_or_else(|| format!("its {what} is missing"))?;
            ShapeFolder::new(self.body, self.known)
                .fold_list(value)
                .map_err(|reason| format!("its {what} does not fold: {reason}"))
        };
        let known = |dims: Vec<i64>| vec![dims.into_iter().map(Some).collect::<Vec<Size>>()];
        let ints = |attribute: &str| -> Result<Vec<i64>, String> {
            self.body
                .attribute(op, attribute)
                .and_then(super::ops::integer_list)
                .ok_or_else(|| format!("'{name}' lacks its '{attribute}'"))
        };
        use OpKind as K;
        Ok(match kind {
            K::DynamicIota => known(fold(0, "output_shape")?),
            K::DynamicReshape => known(fold(1, "output_shape")?),
            K::DynamicBroadcastInDim => known(fold(1, "output_dimensions")?),
            K::DynamicPad => {
                let input = static_sizes(&operand_sizes(0)?)?;
                known(padded_dims(
                    &input,
                    &fold(2, "edge_padding_low")?,
                    &fold(3, "edge_padding_high")?,
                    &fold(4, "interior_padding")?,
                ))
            }
            K::RealDynamicSlice => known(sliced_dims(
                &fold(1, "start_indices")?,
                &fold(2, "limit_indices")?,
                &fold(3, "strides")?,
            )),
            K::Pad => {
                let input = static_sizes(&operand_sizes(0)?)?;
                known(padded_dims(
                    &input,
                    &ints("edge_padding_low")?,
                    &ints("edge_padding_high")?,
                    &ints("interior_padding")?,
                ))
            }
            K::Slice => known(sliced_dims(
                &ints("start_indices")?,
                &ints("limit_indices")?,
                &ints("strides")?,
            )),
            K::Reduce => {
                let count = operands.len() / 2;
                let dimensions = ints("dimensions")?;
                (0..count)
                    .map(|i| {
                        let input = operand_sizes(i)?;
                        Ok(input
                            .iter()
                            .enumerate()
                            .filter(|(d, _)| !dimensions.contains(&(*d as i64)))
                            .map(|(_, &size)| size)
                            .collect())
                    })
                    .collect::<Result<_, String>>()?
            }
            K::Transpose => {
                let input = operand_sizes(0)?;
                let permutation = ints("permutation")?;
                vec![
                    permutation
                        .iter()
                        .map(|&d| input.get(d as usize).copied().flatten())
                        .collect(),
                ]
            }
            K::Concatenate => {
                let dimension = integer_attribute(self.body.attribute(op, "dimension"))
                    .ok_or_else(|| format!("'{name}' lacks its dimension"))?
                    as usize;
                let parts = (0..operands.len())
                    .map(operand_sizes)
                    .collect::<Result<Vec<_>, _>>()?;
                let mut sizes = elementwise(&parts, parts.first().map_or(0, Vec::len));
                if let Some(size) = sizes.get_mut(dimension) {
                    *size = parts
                        .iter()
                        .map(|p| p.get(dimension).copied().flatten())
                        .sum::<Option<i64>>();
                }
                vec![sizes]
            }
            K::BroadcastInDim => {
                let input = operand_sizes(0)?;
                let mapping = ints("broadcast_dimensions")?;
                let rank = self.result_rank(op, 0)?;
                let mut sizes = vec![None; rank];
                for (&d, &size) in mapping.iter().zip(&input) {
                    if size != Some(1)
                        && let Some(slot) = sizes.get_mut(d as usize)
                    {
                        *slot = size;
                    }
                }
                vec![sizes]
            }
            K::DotGeneral => {
                let dims = Structured::read(
                    self.body.attribute(op, "dot_dimension_numbers"),
                    "stablehlo.dot",
                )
                .ok_or_else(|| format!("'{name}' has unreadable dot_dimension_numbers"))?;
                let field = |f: &str| dims.ints(f).unwrap_or_default();
                let (lhs, rhs) = (operand_sizes(0)?, operand_sizes(1)?);
                let (lhs_batch, rhs_batch) = (
                    field("lhs_batching_dimensions"),
                    field("rhs_batching_dimensions"),
                );
                let (lhs_contracting, rhs_contracting) = (
                    field("lhs_contracting_dimensions"),
                    field("rhs_contracting_dimensions"),
                );
                let free = |sizes: &[Size], batch: &[i64], contracting: &[i64]| -> Vec<Size> {
                    (0..sizes.len())
                        .filter(|&d| {
                            !batch.contains(&(d as i64)) && !contracting.contains(&(d as i64))
                        })
                        .map(|d| sizes[d])
                        .collect()
                };
                let mut sizes: Vec<Size> = lhs_batch
                    .iter()
                    .zip(&rhs_batch)
                    .map(|(&l, &r)| lhs[l as usize].or(rhs[r as usize]))
                    .collect();
                sizes.extend(free(&lhs, &lhs_batch, &lhs_contracting));
                sizes.extend(free(&rhs, &rhs_batch, &rhs_contracting));
                vec![sizes]
            }
            K::Dot => {
                let (lhs, rhs) = (operand_sizes(0)?, operand_sizes(1)?);
                let mut sizes: Vec<Size> = lhs[..lhs.len().saturating_sub(1)].to_vec();
                sizes.extend(rhs.iter().skip(1));
                vec![sizes]
            }
            K::If | K::Case => {
                let mut returned: Vec<Vec<Vec<Size>>> = Vec::new();
                for &region in &self.body.ops[op].regions {
                    let Some(block) = self.body.entry_block(region) else {
                        continue;
                    };
                    if let Some(&terminator) = self.body.blocks[block].ops.last() {
                        returned.push(
                            self.body.ops[terminator]
                                .operands
                                .iter()
                                .map(|&v| self.body.ty(v))
                                .map(|ty| sizes_of(ty).unwrap_or_default())
                                .collect(),
                        );
                    }
                }
                let results = self.body.ops[op].results.len();
                (0..results)
                    .map(|i| {
                        let branches: Vec<Vec<Size>> = returned
                            .iter()
                            .filter_map(|branch| branch.get(i).cloned())
                            .collect();
                        elementwise(&branches, self.result_rank(op, i).unwrap_or(0))
                    })
                    .collect()
            }
            K::While | K::Sort | K::OptimizationBarrier => (0..operands.len())
                .map(|i| operand_sizes(i).unwrap_or_default())
                .collect(),
            K::Scatter => {
                // The results are the updated inputs: the first half of the
                // operands before the indices.
                let results = self.body.ops[op].results.len();
                (0..results)
                    .map(|i| operand_sizes(i).unwrap_or_default())
                    .collect()
            }
            K::SelectAndScatter => vec![operand_sizes(0)?],
            // The solution has the right-hand side's shape.
            K::TriangularSolve => vec![operand_sizes(1)?],
            K::ReduceWindow => {
                let count = operands.len() / 2;
                let window = ints("window_dimensions")?;
                let optional = |attribute: &str, default: i64| {
                    self.body
                        .attribute(op, attribute)
                        .and_then(super::ops::integer_list)
                        .unwrap_or_else(|| vec![default; window.len()])
                };
                let strides = optional("window_strides", 1);
                let base_dilations = optional("base_dilations", 1);
                let window_dilations = optional("window_dilations", 1);
                let padding = optional("padding", 0);
                (0..count)
                    .map(|i| {
                        let input = operand_sizes(i)?;
                        Ok(input
                            .iter()
                            .enumerate()
                            .map(|(d, &size)| {
                                Some(windowed_size(
                                    size?,
                                    Window {
                                        size: window[d],
                                        stride: strides[d],
                                        low: padding.get(2 * d).copied().unwrap_or(0),
                                        high: padding.get(2 * d + 1).copied().unwrap_or(0),
                                        base_dilation: base_dilations[d],
                                        window_dilation: window_dilations[d],
                                    },
                                ))
                            })
                            .collect())
                    })
                    .collect::<Result<_, String>>()?
            }
            K::Gather | K::DynamicGather => {
                let slice_sizes = if kind == K::DynamicGather {
                    fold(2, "slice_sizes")?
                } else {
                    ints("slice_sizes")?
                };
                vec![self.gather(op, &operand_sizes(1)?, &slice_sizes)?]
            }
            K::Convolution | K::DynamicConv => {
                let padding = if kind == K::DynamicConv {
                    Some(fold(2, "padding")?)
                } else {
                    self.body
                        .attribute(op, "padding")
                        .and_then(super::ops::integer_list)
                };
                vec![self.convolution(op, &operand_sizes(0)?, &operand_sizes(1)?, padding)?]
            }
            K::Rng => known(fold(2, "shape")?),
            K::ChloTopK => {
                // Values and indices: the operand with its last dimension cut to k.
                let mut sizes = operand_sizes(0)?;
                let k = integer_attribute(self.body.attribute(op, "k"))
                    .ok_or_else(|| format!("'{name}' lacks its k"))?;
                if let Some(last) = sizes.last_mut() {
                    *last = Some(k);
                }
                vec![sizes.clone(), sizes]
            }
            K::Fft => {
                // The transformed dimensions are the last ones; a real
                // transform keeps n/2 + 1 complex values of the last.
                let mut sizes = operand_sizes(0)?;
                let lengths = ints("fft_length")?;
                let fft_type = crate::ir::dialect_attr::enum_keyword(
                    self.body.attribute(op, "fft_type"),
                    "fft_type",
                );
                if let (Some(last), Some(&length)) = (sizes.last_mut(), lengths.last()) {
                    match fft_type {
                        Some("RFFT") => *last = Some(length / 2 + 1),
                        Some("IRFFT") => *last = Some(length),
                        _ => {}
                    }
                }
                vec![sizes]
            }
            K::CustomCall | K::Composite | K::Reshape | K::Iota | K::RngBitGenerator => {
                return Err(format!(
                    "weft does not infer the result shape of '{name}' from its operands"
                ));
            }
            _ if elementwise_kind(kind) => {
                let parts = (0..operands.len())
                    .filter_map(|i| operand_sizes(i).ok())
                    .collect::<Vec<_>>();
                (0..self.body.ops[op].results.len())
                    .map(|i| Ok(elementwise(&parts, self.result_rank(op, i)?)))
                    .collect::<Result<_, String>>()?
            }
            _ => {
                return Err(format!(
                    "weft does not infer the result shape of '{name}' from its operands"
                ));
            }
        })
    }

    /// The sizes of a gather's result: the batch dimensions of the indices
    /// around the kept dimensions of the slice, at `offset_dims`.
    fn gather(&self, op: Op, indices: &[Size], slice_sizes: &[i64]) -> Result<Vec<Size>, String> {
        let dims = Structured::read(
            self.body.attribute(op, "dimension_numbers"),
            "stablehlo.gather",
        )
        .ok_or("the gather's dimension_numbers are unreadable")?;
        let field = |name: &str| dims.ints(name).unwrap_or_default();
        let offset_dims = field("offset_dims");
        let collapsed = field("collapsed_slice_dims");
        let operand_batching = field("operand_batching_dims");
        let index_vector_dim = dims.int("index_vector_dim").unwrap_or(0);
        let mut batch = indices
            .iter()
            .enumerate()
            .filter(|&(d, _)| d as i64 != index_vector_dim)
            .map(|(_, &size)| size);
        let mut offsets = slice_sizes
            .iter()
            .enumerate()
            .filter(|&(d, _)| {
                !collapsed.contains(&(d as i64)) && !operand_batching.contains(&(d as i64))
            })
            .map(|(_, &size)| Some(size));
        let rank = self.result_rank(op, 0)?;
        Ok((0..rank as i64)
            .map(|d| {
                if offset_dims.contains(&d) {
                    offsets.next().flatten()
                } else {
                    batch.next().flatten()
                }
            })
            .collect())
    }

    /// The sizes of a convolution's result: the input's batch (over the batch
    /// groups), the kernel's output features, and each spatial dimension
    /// windowed by the kernel.
    fn convolution(
        &self,
        op: Op,
        input: &[Size],
        kernel: &[Size],
        padding: Option<Vec<i64>>,
    ) -> Result<Vec<Size>, String> {
        use crate::text::syntax::linalg::ConvDimensions;
        let dims = ConvDimensions::from_attribute(self.body.attribute(op, "dimension_numbers"))
            .ok_or("the convolution's dimension_numbers are unreadable")?;
        let optional = |attribute: &str| {
            self.body
                .attribute(op, attribute)
                .and_then(super::ops::integer_list)
        };
        let strides = optional("window_strides");
        let lhs_dilation = optional("lhs_dilation");
        let rhs_dilation = optional("rhs_dilation");
        let batch_groups = integer_attribute(self.body.attribute(op, "batch_group_count"))
            .unwrap_or(1)
            .max(1);
        let position = |layout: &crate::text::syntax::linalg::ConvLayout, letter: char| {
            layout
                .non_spatial
                .iter()
                .find(|(_, l)| *l == letter)
                .map_or(0, |(p, _)| *p as usize)
        };
        let mut sizes = vec![None; self.result_rank(op, 0)?];
        let at = |sizes: &[Size], d: usize| sizes.get(d).copied().flatten();
        sizes[position(&dims.output, 'b')] =
            at(input, position(&dims.input, 'b')).map(|b| b / batch_groups);
        sizes[position(&dims.output, 'f')] = at(kernel, position(&dims.kernel, 'o'));
        for k in 0..dims.input.spatial.len() {
            let pick = |list: &Option<Vec<i64>>, default: i64| {
                list.as_ref()
                    .and_then(|l| l.get(k).copied())
                    .unwrap_or(default)
            };
            let size = at(input, dims.input.spatial[k] as usize);
            let window = at(kernel, dims.kernel.spatial[k] as usize);
            let output = size.zip(window).map(|(size, window)| {
                windowed_size(
                    size,
                    Window {
                        size: window,
                        stride: pick(&strides, 1),
                        low: pick(
                            &padding
                                .as_ref()
                                .map(|p| p.iter().step_by(2).copied().collect()),
                            0,
                        ),
                        high: pick(
                            &padding
                                .as_ref()
                                .map(|p| p.iter().skip(1).step_by(2).copied().collect()),
                            0,
                        ),
                        base_dilation: pick(&lhs_dilation, 1),
                        window_dilation: pick(&rhs_dilation, 1),
                    },
                )
            });
            if let Some(slot) = sizes.get_mut(dims.output.spatial[k] as usize) {
                *slot = output;
            }
        }
        Ok(sizes)
    }

    fn result_rank(&self, op: Op, index: usize) -> Result<usize, String> {
        self.body.ops[op]
            .results
            .get(index)
            .and_then(|&r| self.body.ty(r).rank())
            .ok_or_else(|| format!("result {index} is not a ranked tensor"))
    }
}

/// Ops whose result has the shape of their (same-rank) operands.
fn elementwise_kind(kind: OpKind) -> bool {
    use OpKind as K;
    kind.syntax() == Syntax::SameOperandsAndResultType
        || matches!(
            kind,
            K::Compare
                | K::Select
                | K::Clamp
                | K::Complex
                | K::BitcastConvert
                | K::ReducePrecision
                | K::DynamicUpdateSlice
                | K::Map
                | K::UniformQuantize
                | K::UniformDequantize
                | K::ChloErf
                | K::ChloErfc
                | K::ChloErfInv
                | K::ChloLgamma
                | K::ChloDigamma
                | K::ChloTan
                | K::MhloCopy
                | K::Cholesky
                | K::Reverse
        )
}

/// Sizes of rank `rank` from operands of that rank: each dimension's size
/// from the first operand that knows it.
fn elementwise(parts: &[Vec<Size>], rank: usize) -> Vec<Size> {
    (0..rank)
        .map(|d| parts.iter().filter(|p| p.len() == rank).find_map(|p| p[d]))
        .collect()
}

/// The sizes of a ranked tensor type.
pub(crate) fn sizes_of(ty: &Type) -> Option<Vec<Size>> {
    let dims = match ty {
        Type::Tensor(tensor) => tensor.dims.as_ref()?,
        Type::Element(_) => return Some(Vec::new()),
        _ => return None,
    };
    Some(
        dims.iter()
            .map(|d| match d {
                Dim::Static(size) => Some(*size),
                Dim::Dynamic => None,
            })
            .collect(),
    )
}

fn static_sizes(sizes: &[Size]) -> Result<Vec<i64>, String> {
    sizes
        .iter()
        .copied()
        .collect::<Option<Vec<i64>>>()
        .ok_or_else(|| "its operand's shape is not known".to_string())
}

/// One dimension of a window sliding over a (dilated, padded) base.
struct Window {
    size: i64,
    stride: i64,
    low: i64,
    high: i64,
    base_dilation: i64,
    window_dilation: i64,
}

/// How many positions `window` takes along a base dimension of `size`.
fn windowed_size(size: i64, window: Window) -> i64 {
    let base = if size == 0 {
        0
    } else {
        (size - 1) * window.base_dilation + 1
    };
    let padded = base + window.low + window.high;
    let extent = (window.size - 1) * window.window_dilation + 1;
    if padded < extent || window.stride <= 0 {
        0
    } else {
        (padded - extent) / window.stride + 1
    }
}

//! Inference for one instruction: [`infer`] reads the inputs each family's
//! inference takes off a [`Request`] (the opcode, the operands' shapes, the
//! attributes, the callees' [`Signature`]s and, when there is one, the
//! declared result) and dispatches on the opcode.

use crate::attrs::Attrs;
use crate::element_type::ElementType;
use crate::module::{Comp, Module};
use crate::opcode::Opcode;
use crate::shape::{Shape, ShapeTable};

use super::{
    InferError, InferredShape, asynchronous, collectives, control, data_movement, dot_conv,
    elementwise, gather_scatter, misc, reduce, shape_text,
};

/// What inference reads of a called computation: the shape of its root.
/// Whether its parameters fit the operands is a verifier rule, which does
/// not change the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The shape the computation returns; `None` while it has no root.
    pub result: Option<Shape>,
}

impl Signature {
    /// The signature of `comp` in `module`.
    pub fn of(module: &Module, comp: Comp) -> Signature {
        Signature {
            result: module.comps[comp]
                .root
                .map(|root| module.instrs[root].shape),
        }
    }
}

/// One instruction to infer the shape of.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The opcode.
    pub opcode: Opcode,
    /// The operands' shapes, in order.
    pub operands: &'a [Shape],
    /// The attributes.
    pub attrs: &'a Attrs,
    /// The called computations, in the instruction's order.
    pub callees: &'a [Signature],
    /// The result the instruction declares, if it does. XLA passes some
    /// inputs to inference as arguments, and its verifier reads them off the
    /// declared shape; so does [`infer`]: a conversion's target type, an
    /// all-gather's or reduce-scatter's shard count, a recv's or infeed's
    /// data, the context elements of a start. Without it those come from
    /// the attributes where they can (see [`infer`]).
    pub declared: Option<Shape>,
}

/// Infers the result shape of `request`.
///
/// Without a declared result: a conversion converts to the operand's own
/// element type; an all-gather's and a reduce-scatter's shard count is the
/// size of the first replica group; starts have no context elements. recv,
/// infeed, and the opcodes whose result XLA always takes as given
/// (parameter, constant, broadcast, reshape, iota, rng, custom-call, fusion,
/// …) cannot be inferred; with a declared result, those are the declared
/// shape.
pub fn infer(shapes: &ShapeTable, request: &Request) -> Result<InferredShape, InferError> {
    use Opcode as O;
    let Request {
        opcode,
        operands,
        attrs,
        callees,
        declared,
    } = *request;
    let operand = |index: usize| {
        operands.get(index).copied().ok_or_else(|| {
            InferError::new(if index == 0 {
                "no operand".to_string()
            } else {
                format!("{opcode} takes at least {} operands", index + 1)
            })
            .at_opcode()
        })
    };
    let declared_elem = declared.and_then(|d| shapes.as_array(d)).map(|a| a.elem);
    let context = || {
        declared
            .and_then(|d| shapes.tuple_elements(d))
            .and_then(|e| e.get(2..))
            .unwrap_or(&[])
    };
    let dimensions = attrs.dimensions().unwrap_or(&[]);
    let first_dimension = dimensions.first().copied();
    let callee = |index: usize| callees.get(index);
    match opcode {
        _ if elementwise::is_unary(opcode) => elementwise::unary(shapes, opcode, operand(0)?),
        _ if elementwise::is_binary(opcode) => {
            elementwise::binary(shapes, opcode, operand(0)?, operand(1)?)
        }
        O::Select => elementwise::select(shapes, operand(0)?, operand(1)?, operand(2)?),
        O::Clamp => elementwise::clamp(shapes, operand(0)?, operand(1)?, operand(2)?),
        O::Convert => {
            let input = operand(0)?;
            let target = declared_elem.or_else(|| shapes.as_array(input).map(|a| a.elem));
            elementwise::convert(shapes, input, target.unwrap_or(ElementType::F32))
        }
        O::StochasticConvert => {
            let input = operand(0)?;
            let target = declared_elem.or_else(|| shapes.as_array(input).map(|a| a.elem));
            let target = target.unwrap_or(ElementType::F32);
            elementwise::stochastic_convert(shapes, input, operand(1)?, target)
        }
        O::BitcastConvert => match declared_elem {
            Some(target) => elementwise::bitcast_convert(shapes, operand(0)?, target),
            None => Err(not_inferred(opcode)),
        },
        O::ReducePrecision => {
            let bits = match *attrs {
                Attrs::ReducePrecision {
                    exponent_bits,
                    mantissa_bits,
                } => Some((exponent_bits, mantissa_bits)),
                _ => None,
            };
            elementwise::reduce_precision(shapes, operand(0)?, bits)
        }
        O::Transpose => data_movement::transpose(shapes, operand(0)?, dimensions),
        O::Reverse => data_movement::reverse(shapes, operand(0)?, dimensions),
        O::Slice => match attrs {
            Attrs::Slice(ranges) => data_movement::slice(shapes, operand(0)?, ranges),
            _ => Err(missing_attribute(opcode, "slice")),
        },
        O::DynamicSlice => match attrs {
            Attrs::DynamicSlice { sizes } => {
                data_movement::dynamic_slice(shapes, operand(0)?, sizes)
            }
            _ => Err(missing_attribute(opcode, "dynamic_slice_sizes")),
        },
        O::DynamicUpdateSlice => {
            data_movement::dynamic_update_slice(shapes, operand(0)?, operand(1)?)
        }
        O::Concatenate => data_movement::concatenate(shapes, operands, first_dimension),
        O::Pad => match attrs {
            Attrs::Pad(config) => data_movement::pad(shapes, operand(0)?, operand(1)?, config),
            _ => Err(missing_attribute(opcode, "padding")),
        },
        O::GetDimensionSize => {
            data_movement::get_dimension_size(shapes, operand(0)?, first_dimension.unwrap_or(-1))
        }
        O::SetDimensionSize => data_movement::set_dimension_size(
            shapes,
            operand(0)?,
            operand(1)?,
            first_dimension.unwrap_or(-1),
        ),
        O::Broadcast => match declared {
            Some(declared) => Ok(InferredShape::Existing(declared)),
            None => Err(InferError::new(
                "the broadcast result shape cannot be derived from its operand",
            )),
        },
        O::Dot | O::ScaledDot | O::RaggedDot => match attrs {
            Attrs::Dot(dot) if opcode != O::RaggedDot => {
                dot_conv::dot(shapes, opcode, operand(0)?, operand(1)?, dot, declared_elem)
            }
            // The ragged groups follow from the group sizes and the declared
            // result; without one, the verifier's rules decide them.
            Attrs::Dot(_) => match declared {
                Some(declared) => Ok(InferredShape::Existing(declared)),
                None => Err(not_inferred(opcode)),
            },
            _ => Err(missing_attribute(opcode, "dot dimension numbers")),
        },
        O::Convolution => match attrs {
            Attrs::Convolution(convolution) => {
                dot_conv::convolution(shapes, operand(0)?, operand(1)?, convolution, declared_elem)
            }
            _ => Err(missing_attribute(opcode, "dim_labels")),
        },
        O::Reduce => reduce::reduce(
            shapes,
            operands,
            dimensions,
            callee(0).and_then(|c| c.result),
        ),
        O::ReduceWindow => {
            let window = match attrs {
                Attrs::Window(Some(window)) => &window.dims[..],
                _ => &[],
            };
            reduce::reduce_window(shapes, operands, window, callee(0).and_then(|c| c.result))
        }
        O::SelectAndScatter => Ok(reduce::select_and_scatter(operand(0)?)),
        O::Map => reduce::map(shapes, operands, callee(0).and_then(|c| c.result)),
        O::Sort => reduce::sort(operands),
        O::TopK => match *attrs {
            Attrs::TopK { k, .. } => reduce::top_k(shapes, operand(0)?, k),
            _ => Err(missing_attribute(opcode, "k")),
        },
        O::Scan => match attrs {
            Attrs::Scan(scan) => reduce::scan(
                shapes,
                operands,
                scan.num_carries,
                scan.dimension,
                callee(0).and_then(|c| c.result),
            ),
            _ => Err(missing_attribute(opcode, "scan attributes")),
        },
        O::Gather => match attrs {
            Attrs::Gather(gather) => {
                gather_scatter::gather(shapes, operand(0)?, operand(1)?, gather)
            }
            _ => Err(missing_attribute(opcode, "gather dimension numbers")),
        },
        O::Scatter => match attrs {
            Attrs::Scatter(scatter) => gather_scatter::scatter(shapes, operands, scatter),
            _ => Err(missing_attribute(opcode, "scatter dimension numbers")),
        },
        O::Tuple => Ok(control::tuple(operands)),
        O::GetTupleElement => match *attrs {
            Attrs::GetTupleElement { index } => {
                control::get_tuple_element(shapes, operand(0)?, index)
            }
            _ => Err(missing_attribute(opcode, "index")),
        },
        O::While => Ok(control::while_loop(operand(0)?)),
        O::Call | O::Conditional => control::callee_result(callee(0)),
        O::OptimizationBarrier | O::AddDependency | O::Domain | O::Copy => {
            Ok(control::forwarded(operand(0)?))
        }
        O::AfterAll => Ok(control::after_all()),
        O::Constant => match (attrs, declared) {
            (Attrs::Constant(literal), Some(declared)) => {
                Ok(control::constant(shapes, literal, declared)
                    .unwrap_or(InferredShape::Existing(declared)))
            }
            _ => Err(not_inferred(opcode)),
        },
        O::AllReduce | O::AllReduceStart => collectives::all_reduce(shapes, operands),
        O::AllGather | O::AllGatherStart | O::ReduceScatter => {
            let Attrs::Collective(collective) = attrs else {
                return Err(missing_attribute(opcode, "replica_groups"));
            };
            let start = opcode == O::AllGatherStart;
            let result = match (declared, start) {
                (Some(d), true) => shapes.tuple_elements(d).and_then(|e| e.get(1).copied()),
                (declared, _) => declared,
            };
            let shard_count = shard_count(shapes, request, collective, result)?;
            match opcode {
                O::ReduceScatter => {
                    collectives::reduce_scatter(shapes, operands, collective.dimension, shard_count)
                }
                _ => {
                    let gathered = collectives::all_gather(
                        shapes,
                        operands,
                        collective.dimension,
                        shard_count,
                    )?;
                    Ok(if start {
                        asynchronous::all_gather_start(operands, gathered)
                    } else {
                        gathered
                    })
                }
            }
        }
        O::AllToAll => match attrs {
            Attrs::Collective(collective) => {
                Ok(collectives::all_to_all(operands, collective.dimension))
            }
            _ => Err(missing_attribute(opcode, "replica_groups")),
        },
        O::RaggedAllToAll => collectives::ragged_all_to_all(shapes, operands),
        O::CollectiveBroadcast | O::CollectiveReduce => {
            let dynamic_root =
                matches!(attrs, Attrs::Collective(c) if c.has_dynamic_root == Some(true));
            collectives::operands_forwarded(shapes, opcode, operands, dynamic_root)
        }
        O::CollectivePermute | O::CollectivePermuteStart => {
            let in_place = matches!(attrs, Attrs::CollectivePermute(c) if c.slice_sizes.is_some());
            if opcode == O::CollectivePermute {
                collectives::collective_permute(shapes, operands, in_place)
            } else {
                asynchronous::collective_permute_start(shapes, operands, in_place, context())
            }
        }
        O::AllReduceDone => Ok(asynchronous::all_reduce_done(operand(0)?)),
        O::AllGatherDone | O::CollectivePermuteDone | O::AsyncDone => {
            asynchronous::done_of_element_one(shapes, opcode, operand(0)?)
        }
        O::AsyncStart => {
            let output = control::callee_result(callee(0))?;
            Ok(asynchronous::async_start(operands, output, context()))
        }
        O::AsyncUpdate => Ok(InferredShape::Existing(operand(0)?)),
        O::CopyStart => Ok(asynchronous::copy_start(operand(0)?)),
        O::CopyDone => asynchronous::copy_done(shapes, operand(0)?),
        O::Send => Ok(collectives::send(operand(0)?)),
        O::SendDone | O::Outfeed => Ok(collectives::token()),
        O::RecvDone => {
            let data = collectives::data_element(shapes, operand(0)?, "the operand of recv-done")?;
            Ok(collectives::data_and_token(data))
        }
        O::Recv | O::Infeed => match declared {
            Some(declared) => {
                let what = if opcode == O::Recv {
                    "the shape of recv"
                } else {
                    "the shape of infeed"
                };
                let data = collectives::data_element(shapes, declared, what)?;
                Ok(if opcode == O::Recv {
                    collectives::recv(data)
                } else {
                    collectives::data_and_token(data)
                })
            }
            None => Err(not_inferred(opcode)),
        },
        O::Fft => match attrs {
            Attrs::Fft {
                fft_type,
                fft_length,
            } => {
                let input = operand(0)?;
                let array = shapes.as_array(input).ok_or_else(|| {
                    InferError::new(format!(
                        "Expected array argument for operand of fft, but got {}.",
                        shape_text(shapes, input)
                    ))
                    .at_operand(0)
                })?;
                misc::fft(array, *fft_type, fft_length)
            }
            _ => Err(missing_attribute(opcode, "fft_type")),
        },
        O::TriangularSolve => match attrs {
            Attrs::TriangularSolve(options) => {
                misc::triangular_solve(shapes, operand(0)?, operand(1)?, options)
            }
            _ => Err(missing_attribute(opcode, "triangular-solve options")),
        },
        O::Cholesky => misc::cholesky(shapes, operand(0)?),
        O::BatchNormTraining | O::BatchNormInference | O::BatchNormGrad => match *attrs {
            Attrs::BatchNorm { feature_index, .. } => {
                misc::batch_norm(shapes, opcode, operands, feature_index)
            }
            _ => Err(missing_attribute(opcode, "feature_index")),
        },
        O::RngGetAndUpdateState => Ok(misc::rng_get_and_update_state()),
        O::ReplicaId | O::PartitionId => Ok(misc::device_id()),
        _ => match declared {
            // XLA takes these results as given.
            Some(declared) => Ok(InferredShape::Existing(declared)),
            None => Err(not_inferred(opcode)),
        },
    }
}

/// The shard count of an all-gather or reduce-scatter: read off `result`
/// (the declared result) as XLA's verifier reads it, else the size of the
/// first replica group.
fn shard_count(
    shapes: &ShapeTable,
    request: &Request,
    collective: &crate::attrs::CollectiveAttrs,
    result: Option<Shape>,
) -> Result<i64, InferError> {
    let operands = request.operands;
    let input = operands
        .first()
        .and_then(|&o| shapes.as_array(o))
        .zip(collective.dimension)
        .and_then(|(a, d)| usize::try_from(d).ok().and_then(|d| a.dims.get(d).copied()));
    let output = result
        .and_then(|r| collectives::first_result_array(shapes, r, operands.len()))
        .zip(collective.dimension)
        .and_then(|(a, d)| usize::try_from(d).ok().and_then(|d| a.dims.get(d).copied()));
    let from_result = input.and_then(|input| match request.opcode {
        Opcode::ReduceScatter => collectives::reduce_scatter_shard_count(input, output),
        _ => collectives::all_gather_shard_count(input, output),
    });
    if let Some(count) = from_result {
        return Ok(count);
    }
    match collective.replica_groups.groups() {
        Ok(groups) if !groups.is_empty() => Ok(groups[0].len() as i64),
        _ => Err(InferError::new(format!(
            "cannot infer the shard count of {} without its result shape or replica groups",
            request.opcode
        ))
        .at_attribute("replica_groups")),
    }
}

/// The error for an opcode whose result inference cannot derive.
fn not_inferred(opcode: Opcode) -> InferError {
    InferError::new(format!("cannot infer shape for opcode: {}", opcode.name()))
        .with_hint(format!("write the result shape before '{}'", opcode.name()))
}

/// The error for an instruction missing the attribute inference needs.
fn missing_attribute(opcode: Opcode, what: &str) -> InferError {
    InferError::new(format!("{opcode} is missing its {what}"))
}

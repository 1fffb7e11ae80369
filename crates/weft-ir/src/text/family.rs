//! Turning the attributes written on an instruction into its opcode's typed
//! family, checking what is required and what is allowed.

use crate::attrs::*;
use crate::diagnostic::Span;
use crate::module::{Callees, Instr};
use crate::opcode::Opcode;
use crate::shape::Shape;
use crate::text::attr_bag::{Bag, Value};
use crate::text::parser::{PResult, Parser};

/// What a family needs to know about the instruction being built.
pub(crate) struct Site<'a> {
    pub opcode: Opcode,
    pub operands: &'a [Instr],
    /// The span of the operand list's `(`.
    pub operands_span: Span,
}

/// The enum value `word` spells, or an error listing the accepted
/// `spellings`, which are only joined when the word is unknown.
fn enum_word<T>(
    p: &Parser<'_>,
    (span, word): (Span, String),
    parse: impl Fn(&str) -> Option<T>,
    what: &str,
    spellings: fn() -> String,
) -> PResult<T> {
    parse(&word).ok_or_else(|| {
        p.error_at(span, format!("unknown {what} '{word}'"))
            .with_hint(format!("expected one of: {}", spellings()))
    })
}

/// XLA's `PaddingType`s, as a custom call's `padding_type=` spells them.
const PADDING_TYPES: &[&str] = &["PADDING_INVALID", "PADDING_VALID", "PADDING_SAME"];
/// XLA's `CustomCallSchedule`s.
const SCHEDULES: &[&str] = &["SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"];

/// `word` when it is one of `keywords`, else an error listing them.
fn keyword(
    p: &Parser<'_>,
    (span, word): (Span, String),
    what: &str,
    keywords: &[&str],
) -> PResult<String> {
    if keywords.contains(&word.as_str()) {
        return Ok(word);
    }
    Err(p
        .error_at(span, format!("unknown {what} '{word}'"))
        .with_hint(format!("expected one of: {}", keywords.join(", "))))
}

impl Parser<'_> {
    /// Builds the family attributes and callees of `site.opcode` from `bag`.
    pub(crate) fn build_family(
        &mut self,
        site: &Site<'_>,
        bag: &mut Bag<'_>,
    ) -> PResult<(Attrs, Callees)> {
        use Opcode as O;
        let op = site.opcode;
        let mut callees = Callees::new();
        let attrs = match op.family() {
            Family::Plain => {
                match op {
                    O::While => {
                        let condition = bag.req_comp("condition")?;
                        let body = bag.req_comp("body")?;
                        // XLA's order: body first, then condition.
                        callees = Callees::from([body, condition]);
                    }
                    O::Conditional => {
                        let predicated = site
                            .operands
                            .first()
                            .and_then(|&o| self.m.shapes.as_array(self.operand_shape(o)))
                            .is_some_and(|a| a.elem == crate::ElementType::Pred);
                        if predicated {
                            if let Some(span) = bag.span_of("branch_computations") {
                                return Err(self
                                    .error_at(span, "unexpected attribute \"branch_computations\"")
                                    .with_hint("a conditional on a pred takes true_computation= and false_computation="));
                            }
                            callees = Callees::from([
                                bag.req_comp("true_computation")?,
                                bag.req_comp("false_computation")?,
                            ]);
                        } else {
                            callees = bag
                                .comps("branch_computations")?
                                .ok_or_else(|| bag.missing_error("branch_computations"))?
                                .into();
                        }
                    }
                    _ => {}
                }
                let inferred_dimension = if op == O::Reshape {
                    bag.int("inferred_dimension")?
                } else {
                    None
                };
                Attrs::Plain(PlainAttrs { inferred_dimension })
            }
            Family::Parameter | Family::Constant => {
                unreachable!("parameter and constant are built by the operand parser")
            }
            Family::GetTupleElement => Attrs::GetTupleElement {
                index: bag.req_int("index")?,
            },
            Family::Dimensions => {
                if matches!(op, O::Reduce | O::Map) {
                    callees.push(bag.req_comp("to_apply")?);
                }
                let dimensions = match bag.ints("dimensions")? {
                    Some(d) => d,
                    None if op == O::Map => Vec::new(),
                    None if op == O::Broadcast && self.operand_is_scalar(site) => Vec::new(),
                    None => return Err(bag.missing_error("dimensions")),
                };
                if matches!(
                    op,
                    O::Concatenate | O::GetDimensionSize | O::SetDimensionSize
                ) && dimensions.len() != 1
                {
                    return Err(self.error_at(
                        bag.span_of("dimensions").unwrap_or(bag.end),
                        format!(
                            "{op} takes exactly one dimension, found {}",
                            dimensions.len()
                        ),
                    ));
                }
                Attrs::Dimensions {
                    dimensions: dimensions.into(),
                }
            }
            Family::Sort => {
                let dims = bag.req_ints("dimensions")?;
                if dims.len() != 1 {
                    return Err(self.error_at(
                        bag.span_of("dimensions").unwrap_or(bag.end),
                        "sort takes exactly one dimension",
                    ));
                }
                let is_stable = bag.flag("is_stable")?;
                callees.push(bag.req_comp("to_apply")?);
                Attrs::Sort {
                    dimension: dims[0],
                    is_stable,
                }
            }
            Family::Compare => {
                let direction = enum_word(
                    self,
                    bag.req_word("direction")?,
                    Direction::from_name,
                    "comparison direction",
                    Direction::spellings,
                )?;
                let compare_type = match bag.word("type")? {
                    Some(w) => Some(enum_word(
                        self,
                        w,
                        CompareType::from_name,
                        "comparison type",
                        CompareType::spellings,
                    )?),
                    None => None,
                };
                Attrs::Compare {
                    direction,
                    compare_type,
                }
            }
            Family::Slice => match bag.take("slice") {
                Some((_, Value::Slice(ranges))) => Attrs::Slice(ranges.into()),
                Some((span, _)) => return Err(self.error_at(span, "slice expects {[a:b], …}")),
                None => return Err(bag.missing_error("slice")),
            },
            Family::DynamicSlice => Attrs::DynamicSlice {
                sizes: bag.req_ints("dynamic_slice_sizes")?.into(),
            },
            Family::Pad => match bag.take("padding") {
                Some((_, Value::Padding(config))) => Attrs::Pad(config),
                Some((span, _)) => return Err(self.error_at(span, "padding expects lo_hi x …")),
                None => return Err(bag.missing_error("padding")),
            },
            Family::Iota => Attrs::Iota {
                dimension: bag.req_int("iota_dimension")?,
            },
            Family::ReducePrecision => Attrs::ReducePrecision {
                exponent_bits: bag.req_int("exponent_bits")?,
                mantissa_bits: bag.req_int("mantissa_bits")?,
            },
            Family::Convolution => {
                let window = bag.window()?;
                let dims = bag
                    .dim_labels()?
                    .ok_or_else(|| bag.missing_error("dim_labels"))?;
                Attrs::Convolution(Box::new(ConvolutionAttrs {
                    window,
                    dims,
                    feature_group_count: bag.int("feature_group_count")?.unwrap_or(1),
                    batch_group_count: bag.int("batch_group_count")?.unwrap_or(1),
                    precision: bag.precision()?,
                    algorithm: bag
                        .word("algorithm")?
                        .map(|w| keyword(self, w, "precision algorithm", PRECISION_ALGORITHMS))
                        .transpose()?,
                    convolution_kind: bag
                        .word("convolution_kind")?
                        .map(|w| keyword(self, w, "convolution kind", CONVOLUTION_KINDS))
                        .transpose()?,
                    sparsity_config: bag.raw("sparsity_config")?,
                }))
            }
            Family::Dot => {
                let mut dot = DotAttrs {
                    lhs_batch: bag.ints("lhs_batch_dims")?.unwrap_or_default(),
                    lhs_contracting: bag.ints("lhs_contracting_dims")?.unwrap_or_default(),
                    rhs_batch: bag.ints("rhs_batch_dims")?.unwrap_or_default(),
                    rhs_contracting: bag.ints("rhs_contracting_dims")?.unwrap_or_default(),
                    precision: bag.precision()?,
                    ..DotAttrs::default()
                };
                if op == O::RaggedDot {
                    dot.lhs_ragged = bag.ints("lhs_ragged_dims")?.unwrap_or_default();
                    dot.rhs_group = bag.ints("rhs_group_dims")?.unwrap_or_default();
                } else {
                    dot.algorithm = bag
                        .word("algorithm")?
                        .map(|w| keyword(self, w, "precision algorithm", PRECISION_ALGORITHMS))
                        .transpose()?;
                }
                Attrs::Dot(Box::new(dot))
            }
            Family::Gather => Attrs::Gather(Box::new(GatherAttrs {
                offset_dims: bag.req_ints("offset_dims")?,
                collapsed_slice_dims: bag.req_ints("collapsed_slice_dims")?,
                start_index_map: bag.req_ints("start_index_map")?,
                operand_batching_dims: bag.ints("operand_batching_dims")?.unwrap_or_default(),
                start_indices_batching_dims: bag
                    .ints("start_indices_batching_dims")?
                    .unwrap_or_default(),
                index_vector_dim: bag.req_int("index_vector_dim")?,
                slice_sizes: bag.req_ints("slice_sizes")?,
                indices_are_sorted: bag.flag("indices_are_sorted")?,
            })),
            Family::Scatter => {
                let scatter = ScatterAttrs {
                    update_window_dims: bag.req_ints("update_window_dims")?,
                    inserted_window_dims: bag.req_ints("inserted_window_dims")?,
                    scatter_dims_to_operand_dims: bag.req_ints("scatter_dims_to_operand_dims")?,
                    input_batching_dims: bag.ints("input_batching_dims")?.unwrap_or_default(),
                    scatter_indices_batching_dims: bag
                        .ints("scatter_indices_batching_dims")?
                        .unwrap_or_default(),
                    index_vector_dim: bag.req_int("index_vector_dim")?,
                    indices_are_sorted: bag.flag("indices_are_sorted")?,
                    unique_indices: bag.flag("unique_indices")?,
                };
                callees.push(bag.req_comp("to_apply")?);
                Attrs::Scatter(Box::new(scatter))
            }
            Family::Window => {
                let window = bag.window()?;
                if op == O::SelectAndScatter {
                    callees.push(bag.req_comp("select")?);
                    callees.push(bag.req_comp("scatter")?);
                } else {
                    callees.push(bag.req_comp("to_apply")?);
                }
                Attrs::Window(window)
            }
            Family::Collective => {
                let mut c = CollectiveAttrs {
                    channel_id: bag.int("channel_id")?,
                    replica_groups: match bag.take("replica_groups") {
                        Some((_, Value::ReplicaGroups(g))) => *g,
                        Some((span, _)) => {
                            return Err(self.error_at(span, "replica_groups expects groups"));
                        }
                        None => ReplicaGroups::default(),
                    },
                    ..CollectiveAttrs::default()
                };
                if !matches!(op, O::CollectiveBroadcast | O::RaggedAllToAll) {
                    c.constrain_layout = bag.flag("constrain_layout")?;
                }
                if matches!(
                    op,
                    O::AllGather
                        | O::AllGatherStart
                        | O::AllReduce
                        | O::AllReduceStart
                        | O::ReduceScatter
                        | O::CollectiveReduce
                ) {
                    c.use_global_device_ids = bag.flag("use_global_device_ids")?;
                }
                if matches!(op, O::CollectiveBroadcast | O::CollectiveReduce) {
                    c.has_dynamic_root = bag.bool("has_dynamic_root")?;
                }
                if matches!(
                    op,
                    O::AllReduce | O::AllReduceStart | O::ReduceScatter | O::CollectiveReduce
                ) {
                    callees.push(bag.req_comp("to_apply")?);
                    // `mode=` is accepted and ignored, as XLA does.
                    let _ = bag.word("mode")?;
                }
                let dims = match op {
                    O::AllGather | O::AllGatherStart | O::ReduceScatter => {
                        Some(bag.req_ints("dimensions")?)
                    }
                    O::AllToAll | O::RaggedAllToAll => bag.ints("dimensions")?,
                    _ => None,
                };
                if let Some(dims) = dims {
                    if dims.len() != 1 {
                        return Err(self.error_at(
                            bag.span_of("dimensions").unwrap_or(bag.end),
                            format!("{op} takes exactly one dimension, found {}", dims.len()),
                        ));
                    }
                    if op != O::RaggedAllToAll {
                        c.dimension = Some(dims[0]);
                    }
                }
                Attrs::Collective(Box::new(c))
            }
            Family::CollectivePermute => {
                let pairs_span = bag.span_of("source_target_pairs").unwrap_or(bag.end);
                let pairs = bag
                    .int_lists("source_target_pairs")?
                    .ok_or_else(|| bag.missing_error("source_target_pairs"))?;
                let mut source_target_pairs = Vec::with_capacity(pairs.len());
                for pair in pairs {
                    match pair.as_slice() {
                        [s, t] => source_target_pairs.push((*s, *t)),
                        _ => {
                            return Err(self.error_at(
                                pairs_span,
                                "expects 'source_target_pairs=' to be a list of pairs",
                            ));
                        }
                    }
                }
                let slice_sizes = bag.int_lists("slice_sizes")?;
                if slice_sizes.is_some() && site.operands.len() != 4 {
                    return Err(self.error_at(
                        site.operands_span,
                        "CollectivePermute and CollectivePermuteStart must have exactly four operands for dynamic-slice and in-place update.",
                    ));
                }
                Attrs::CollectivePermute(Box::new(CollectivePermuteAttrs {
                    channel_id: bag.int("channel_id")?,
                    source_target_pairs,
                    slice_sizes,
                }))
            }
            Family::SendRecv => Attrs::SendRecv {
                channel_id: bag.int("channel_id")?,
                is_host_transfer: bag.flag("is_host_transfer")?,
            },
            Family::CustomCall => {
                let target = bag
                    .string("custom_call_target")?
                    .ok_or_else(|| bag.missing_error("custom_call_target"))?;
                let mut cc = CustomCallAttrs {
                    target,
                    window: bag.window()?,
                    dim_labels: bag.dim_labels()?,
                    feature_group_count: bag.int("feature_group_count")?,
                    batch_group_count: bag.int("batch_group_count")?,
                    has_side_effect: bag.flag("custom_call_has_side_effect")?,
                    output_to_operand_aliasing: bag.aliasing()?,
                    padding_type: bag
                        .word("padding_type")?
                        .map(|word| keyword(self, word, "padding type", PADDING_TYPES))
                        .transpose()?,
                    precision: bag.precision()?,
                    schedule: bag
                        .word("schedule")?
                        .map(|word| keyword(self, word, "custom-call schedule", SCHEDULES))
                        .transpose()?,
                    ..CustomCallAttrs::default()
                };
                if let Some((span, version)) = bag.word("api_version")? {
                    const VERSIONS: [&str; 4] = [
                        "API_VERSION_ORIGINAL",
                        "API_VERSION_STATUS_RETURNING",
                        "API_VERSION_STATUS_RETURNING_UNIFIED",
                        "API_VERSION_TYPED_FFI",
                    ];
                    if version == "API_VERSION_UNSPECIFIED" {
                        return Err(self.error_at(span, format!("Invalid API version: {version}")));
                    }
                    if !VERSIONS.contains(&version.as_str()) {
                        return Err(self
                            .error_at(
                                span,
                                format!("expects custom-call API version but sees: {version}, error: Unknown API version"),
                            )
                            .with_hint(format!("API versions are {}", VERSIONS.join(", "))));
                    }
                    if version != "API_VERSION_ORIGINAL" {
                        cc.api_version = Some(version);
                    }
                }
                if let Some((_, Value::Literal(l))) = bag.take("literal") {
                    cc.literal = Some(l);
                }
                if let Some((span, value)) = bag.take("operand_layout_constraints") {
                    let Value::Shapes(shapes) = value else {
                        return Err(
                            self.error_at(span, "operand_layout_constraints expects shapes")
                        );
                    };
                    self.check_layout_constraints(site, span, &shapes)?;
                    cc.operand_layout_constraints = Some(shapes);
                    // XLA drops the callees of layout-constrained custom calls.
                    let _ = bag.take("to_apply");
                    let _ = bag.take("called_computations");
                }
                if let Some(c) = bag.comp("to_apply")? {
                    callees.push(c);
                    cc.callee_is_to_apply = true;
                    let _ = bag.take("called_computations");
                } else if let Some(cs) = bag.comps("called_computations")? {
                    callees = cs.into();
                }
                Attrs::CustomCall(Box::new(cc))
            }
            Family::Fusion => {
                let (span, kind) = bag.req_word("kind")?;
                let kind = enum_word(
                    self,
                    (span, kind),
                    FusionKind::from_name,
                    "fusion kind",
                    FusionKind::spellings,
                )?;
                callees.push(bag.req_comp("calls")?);
                Attrs::Fusion(Box::new(FusionAttrs {
                    kind,
                    output_to_operand_aliasing: bag.aliasing()?,
                }))
            }
            Family::Call => {
                callees.push(bag.req_comp("to_apply")?);
                Attrs::Call {
                    is_composite: bag.flag("is_composite")?,
                }
            }
            Family::Async => unreachable!("async instructions are built by the async parser"),
            Family::CopyStart => Attrs::CopyStart {
                cross_program_prefetch_index: bag.int("cross_program_prefetch_index")?,
            },
            Family::Rng => Attrs::Rng {
                distribution: enum_word(
                    self,
                    bag.req_word("distribution")?,
                    Distribution::from_name,
                    "distribution",
                    Distribution::spellings,
                )?,
            },
            Family::RngBitGenerator => Attrs::RngBitGenerator {
                algorithm: enum_word(
                    self,
                    bag.req_word("algorithm")?,
                    RngAlgorithm::from_name,
                    "random algorithm",
                    RngAlgorithm::spellings,
                )?,
            },
            Family::RngGetAndUpdateState => Attrs::RngGetAndUpdateState {
                delta: bag.req_int("delta")?,
            },
            Family::Fft => Attrs::Fft {
                fft_type: enum_word(
                    self,
                    bag.req_word("fft_type")?,
                    FftType::from_name,
                    "fft type",
                    FftType::spellings,
                )?,
                fft_length: bag.req_ints("fft_length")?.into(),
            },
            Family::TriangularSolve => {
                let transpose_a = match bag.word("transpose_a")? {
                    Some((span, w)) => {
                        if !matches!(w.as_str(), "NO_TRANSPOSE" | "TRANSPOSE" | "ADJOINT") {
                            return Err(self
                                .error_at(span, format!("unknown transpose_a value '{w}'"))
                                .with_hint("transpose_a is NO_TRANSPOSE, TRANSPOSE or ADJOINT"));
                        }
                        w
                    }
                    None => String::new(),
                };
                Attrs::TriangularSolve(Box::new(TriangularSolveAttrs {
                    left_side: bag.flag("left_side")?,
                    lower: bag.flag("lower")?,
                    unit_diagonal: bag.flag("unit_diagonal")?,
                    transpose_a: transpose_a.into(),
                }))
            }
            Family::Cholesky => Attrs::Cholesky {
                lower: bag.flag("lower")?,
            },
            Family::BatchNorm => Attrs::BatchNorm {
                epsilon: bag
                    .float("epsilon")?
                    .ok_or_else(|| bag.missing_error("epsilon"))? as f32,
                feature_index: bag.req_int("feature_index")?,
            },
            Family::Infeed => Attrs::Infeed {
                config: bag.string("infeed_config")?.unwrap_or_default().into(),
            },
            Family::Outfeed => Attrs::Outfeed(Box::new(OutfeedAttrs {
                outfeed_shape: match bag.take("outfeed_shape") {
                    Some((_, Value::Shape(s))) => Some(s),
                    _ => None,
                },
                config: bag.string("outfeed_config")?.unwrap_or_default().into(),
            })),
            Family::TopK => Attrs::TopK {
                k: bag.req_int("k")?,
                largest: bag.bool("largest")?.unwrap_or(true),
                is_stable: bag.bool("is_stable")?.unwrap_or(true),
            },
            Family::Scan => {
                let dims = bag.req_ints("dimensions")?;
                let num_carries = bag.req_int("num_carries")?;
                let is_reverse = bag.flag("is_reverse")?;
                let is_associative = bag.flag("is_associative")?;
                callees.push(bag.req_comp("to_apply")?);
                if dims.len() != 1 {
                    return Err(self.error_at(
                        bag.span_of("dimensions").unwrap_or(bag.end),
                        "expects exactly one dimension",
                    ));
                }
                Attrs::Scan(Box::new(ScanAttrs {
                    dimension: dims[0],
                    num_carries,
                    is_reverse,
                    is_associative,
                }))
            }
            Family::Domain => match bag.take("domain") {
                Some((_, Value::Domain(d))) => Attrs::Domain(d),
                Some((span, _)) => return Err(self.error_at(span, "domain expects {kind=…}")),
                None => return Err(bag.missing_error("domain")),
            },
        };
        Ok((attrs, callees))
    }

    fn operand_is_scalar(&self, site: &Site<'_>) -> bool {
        site.operands
            .first()
            .and_then(|&o| self.m.shapes.as_array(self.operand_shape(o)))
            .is_some_and(|a| a.dims.is_empty())
    }

    fn check_layout_constraints(
        &mut self,
        site: &Site<'_>,
        span: Span,
        shapes: &[Shape],
    ) -> PResult<()> {
        if shapes.len() != site.operands.len() {
            return Err(self.error_at(
                span,
                format!(
                    "Expected {} operand layout constraints, {} given",
                    site.operands.len(),
                    shapes.len()
                ),
            ));
        }
        for (i, (&constraint, &operand)) in shapes.iter().zip(site.operands).enumerate() {
            let operand_shape = self.operand_shape(operand);
            if !crate::shape_util::compatible(&self.m.shapes, constraint, operand_shape) {
                let mut text = String::new();
                crate::text::shape::print_shape(&self.m.shapes, &mut text, constraint);
                let mut operand_text = String::new();
                crate::text::shape::print_shape(&self.m.shapes, &mut operand_text, operand_shape);
                return Err(self.error_at(
                    span,
                    format!(
                        "Operand layout constraint shape {text} for operand {i} is not compatible with operand shape {operand_text}"
                    ),
                ));
            }
        }
        Ok(())
    }
}

//! The attributes written on one instruction, parsed by name into typed values
//! and then handed out to the family that owns them.
//!
//! Each attribute name has exactly one value syntax (XLA's attribute kinds), so a
//! value is parsed as soon as its name is read; the opcode's family then `take`s
//! the attributes it knows. Anything left over was not valid for the opcode and is
//! reported at its own position, as XLA does ("unexpected attribute").

use crate::attrs::{
    ConvolutionDims, DomainAttrs, FrontendAttributes, Metadata, OutputOperandAlias, PaddingConfig,
    Precision, ReplicaGroups, ResultAccuracy, Sharding, SliceRange, Statistics, Window,
};
use crate::diagnostic::{Diagnostic, Span};
use crate::literal::Literal;
use crate::module::{Comp, Instr};
use crate::shape::Shape;
use crate::text::fast::byte_scan::same_text;
use crate::text::fast::text_cache::TextCache;
use crate::text::lexer::{Tok, Token};
use crate::text::parser::{PResult, ParseError, Parser};

/// A parsed attribute value.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    Int(i64),
    Bool(bool),
    Float(f64),
    Ints(Vec<i64>),
    IntLists(Vec<Vec<i64>>),
    Bools(Vec<bool>),
    Str(String),
    Word(String),
    Comp(Comp),
    Comps(Vec<Comp>),
    Window(Window),
    DimLabels(Box<ConvolutionDims>),
    Slice(Vec<SliceRange>),
    Padding(PaddingConfig),
    Precision(Vec<Precision>),
    ReplicaGroups(Box<ReplicaGroups>),
    Sharding(Sharding),
    Metadata(Box<Metadata>),
    Frontend(FrontendAttributes),
    Statistics(Box<Statistics>),
    Accuracy(Box<ResultAccuracy>),
    Raw(String),
    Aliasing(Vec<OutputOperandAlias>),
    Shapes(Vec<Shape>),
    Shape(Shape),
    Literal(Box<Literal>),
    Instrs(Vec<Instr>),
    Domain(Box<DomainAttrs>),
}

/// How an attribute's value is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Int,
    Bool,
    Float,
    Ints,
    IntsOrLists,
    IntLists,
    BoolsOrBool,
    Str,
    Word,
    Comp,
    Comps,
    Window,
    DimLabels,
    Slice,
    Padding,
    Precision,
    ReplicaGroups,
    Sharding,
    Metadata,
    Frontend,
    StringOrDict,
    Statistics,
    Accuracy,
    RawBraced,
    Aliasing,
    Shapes,
    Shape,
    UntypedLiteral,
    Instrs,
    Domain,
}

fn kind_of(name: &str) -> Option<Kind> {
    use Kind::*;
    Some(match name {
        "index"
        | "iota_dimension"
        | "exponent_bits"
        | "mantissa_bits"
        | "feature_group_count"
        | "batch_group_count"
        | "index_vector_dim"
        | "channel_id"
        | "feature_index"
        | "k"
        | "num_carries"
        | "delta"
        | "cross_program_prefetch_index"
        | "inferred_dimension" => Int,
        "is_stable"
        | "indices_are_sorted"
        | "unique_indices"
        | "use_global_device_ids"
        | "constrain_layout"
        | "is_host_transfer"
        | "custom_call_has_side_effect"
        | "left_side"
        | "lower"
        | "unit_diagonal"
        | "largest"
        | "is_reverse"
        | "is_associative"
        | "is_composite"
        | "has_dynamic_root" => Bool,
        "epsilon" => Float,
        "dimensions"
        | "dynamic_slice_sizes"
        | "lhs_batch_dims"
        | "lhs_contracting_dims"
        | "rhs_batch_dims"
        | "rhs_contracting_dims"
        | "lhs_ragged_dims"
        | "rhs_group_dims"
        | "offset_dims"
        | "collapsed_slice_dims"
        | "start_index_map"
        | "operand_batching_dims"
        | "start_indices_batching_dims"
        | "update_window_dims"
        | "inserted_window_dims"
        | "scatter_dims_to_operand_dims"
        | "input_batching_dims"
        | "scatter_indices_batching_dims"
        | "fft_length" => Ints,
        "slice_sizes" => IntsOrLists,
        "source_target_pairs" => IntLists,
        "parameter_replication" => BoolsOrBool,
        "custom_call_target" | "infeed_config" | "outfeed_config" | "async_execution_thread" => Str,
        "direction" | "type" | "fft_type" | "distribution" | "algorithm" | "kind" | "schedule"
        | "api_version" | "padding_type" | "transpose_a" | "convolution_kind" | "mode" => Word,
        "to_apply" | "calls" | "condition" | "body" | "select" | "scatter" | "true_computation"
        | "false_computation" => Comp,
        "branch_computations" | "called_computations" => Comps,
        "window" => Window,
        "dim_labels" => DimLabels,
        "slice" => Slice,
        "padding" => Padding,
        "operand_precision" => Precision,
        "replica_groups" => ReplicaGroups,
        "sharding" => Sharding,
        "metadata" => Metadata,
        "frontend_attributes" => Frontend,
        "backend_config" => StringOrDict,
        "statistics" => Statistics,
        "result_accuracy" => Accuracy,
        "origin" | "sparsity_config" => RawBraced,
        "output_to_operand_aliasing" => Aliasing,
        "operand_layout_constraints" => Shapes,
        "outfeed_shape" => Shape,
        "literal" => UntypedLiteral,
        "control-predecessors" => Instrs,
        "domain" => Domain,
        _ => return None,
    })
}

/// One written attribute.
pub(crate) struct Entry<'s> {
    pub name: &'s str,
    pub span: Span,
    pub value: Option<Value>,
}

/// The attributes of one instruction.
#[derive(Default)]
pub(crate) struct Bag<'s> {
    pub entries: Vec<Entry<'s>>,
    /// Where attribute parsing started.
    pub end: Span,
    /// The instruction's opcode: where a missing attribute is reported.
    pub site: Span,
}

impl<'s> Bag<'s> {
    /// Removes and returns attribute `name`.
    pub fn take(&mut self, name: &str) -> Option<(Span, Value)> {
        let entry = self.entries.iter_mut().find(|e| e.name == name)?;
        entry.value.take().map(|v| (entry.span, v))
    }

    /// The span of attribute `name`, if it was written.
    pub fn span_of(&self, name: &str) -> Option<Span> {
        self.entries.iter().find(|e| e.name == name).map(|e| e.span)
    }

    /// The first attribute nobody took, if any.
    pub fn leftover(&self) -> Option<&Entry<'s>> {
        self.entries.iter().find(|e| e.value.is_some())
    }

    fn missing(&self, name: &str) -> ParseError {
        let at = if self.site == Span::default() {
            self.end
        } else {
            self.site
        };
        ParseError::from(Diagnostic::error(
            at,
            format!("attribute {name} is expected but not seen"),
        ))
        .with_label(format!("needs {name}="))
    }

    fn wrong(span: Span, name: &str, what: &str) -> ParseError {
        Diagnostic::error(span, format!("attribute {name} expects {what}")).into()
    }

    pub fn int(&mut self, name: &str) -> PResult<Option<i64>> {
        match self.take(name) {
            None => Ok(None),
            Some((_, Value::Int(v))) => Ok(Some(v)),
            Some((span, _)) => Err(Self::wrong(span, name, "an integer")),
        }
    }

    pub fn req_int(&mut self, name: &str) -> PResult<i64> {
        self.int(name)?.ok_or_else(|| self.missing(name))
    }

    pub fn bool(&mut self, name: &str) -> PResult<Option<bool>> {
        match self.take(name) {
            None => Ok(None),
            Some((_, Value::Bool(v))) => Ok(Some(v)),
            Some((span, _)) => Err(Self::wrong(span, name, "true or false")),
        }
    }

    pub fn flag(&mut self, name: &str) -> PResult<bool> {
        Ok(self.bool(name)?.unwrap_or(false))
    }

    pub fn float(&mut self, name: &str) -> PResult<Option<f64>> {
        match self.take(name) {
            None => Ok(None),
            Some((_, Value::Float(v))) => Ok(Some(v)),
            Some((_, Value::Int(v))) => Ok(Some(v as f64)),
            Some((span, _)) => Err(Self::wrong(span, name, "a number")),
        }
    }

    pub fn ints(&mut self, name: &str) -> PResult<Option<Vec<i64>>> {
        match self.take(name) {
            None => Ok(None),
            Some((_, Value::Ints(v))) => Ok(Some(v)),
            Some((span, _)) => Err(Self::wrong(span, name, "a list of integers like {0,1}")),
        }
    }

    pub fn req_ints(&mut self, name: &str) -> PResult<Vec<i64>> {
        self.ints(name)?.ok_or_else(|| self.missing(name))
    }

    pub fn int_lists(&mut self, name: &str) -> PResult<Option<Vec<Vec<i64>>>> {
        match self.take(name) {
            None => Ok(None),
            Some((_, Value::IntLists(v))) => Ok(Some(v)),
            Some((_, Value::Ints(v))) if v.is_empty() => Ok(Some(Vec::new())),
            Some((span, _)) => Err(Self::wrong(
                span,
                name,
                "a list of lists like {{0,1},{1,0}}",
            )),
        }
    }

    pub fn string(&mut self, name: &str) -> PResult<Option<String>> {
        match self.take(name) {
            None => Ok(None),
            Some((_, Value::Str(v))) => Ok(Some(v)),
            Some((span, _)) => Err(Self::wrong(span, name, "a string")),
        }
    }

    pub fn word(&mut self, name: &str) -> PResult<Option<(Span, String)>> {
        match self.take(name) {
            None => Ok(None),
            Some((span, Value::Word(v))) => Ok(Some((span, v))),
            Some((span, _)) => Err(Self::wrong(span, name, "a word")),
        }
    }

    pub fn req_word(&mut self, name: &str) -> PResult<(Span, String)> {
        self.word(name)?.ok_or_else(|| self.missing(name))
    }

    pub fn comp(&mut self, name: &str) -> PResult<Option<Comp>> {
        match self.take(name) {
            None => Ok(None),
            Some((_, Value::Comp(v))) => Ok(Some(v)),
            Some((span, _)) => Err(Self::wrong(span, name, "a computation")),
        }
    }

    pub fn req_comp(&mut self, name: &str) -> PResult<Comp> {
        self.comp(name)?.ok_or_else(|| self.missing(name))
    }

    pub fn comps(&mut self, name: &str) -> PResult<Option<Vec<Comp>>> {
        match self.take(name) {
            None => Ok(None),
            Some((_, Value::Comps(v))) => Ok(Some(v)),
            Some((span, _)) => Err(Self::wrong(span, name, "a list of computations")),
        }
    }

    pub fn window(&mut self) -> PResult<Option<Window>> {
        match self.take("window") {
            None => Ok(None),
            Some((_, Value::Window(w))) => Ok(Some(w)),
            Some((span, _)) => Err(Self::wrong(span, "window", "a window")),
        }
    }

    pub fn dim_labels(&mut self) -> PResult<Option<ConvolutionDims>> {
        match self.take("dim_labels") {
            None => Ok(None),
            Some((_, Value::DimLabels(d))) => Ok(Some(*d)),
            Some((span, _)) => Err(Self::wrong(span, "dim_labels", "dimension labels")),
        }
    }

    pub fn precision(&mut self) -> PResult<Vec<Precision>> {
        match self.take("operand_precision") {
            None => Ok(Vec::new()),
            Some((_, Value::Precision(p))) => Ok(p),
            Some((span, _)) => Err(Self::wrong(span, "operand_precision", "a precision list")),
        }
    }

    pub fn aliasing(&mut self) -> PResult<Vec<OutputOperandAlias>> {
        match self.take("output_to_operand_aliasing") {
            None => Ok(Vec::new()),
            Some((_, Value::Aliasing(a))) => Ok(a),
            Some((span, _)) => Err(Self::wrong(
                span,
                "output_to_operand_aliasing",
                "an aliasing list",
            )),
        }
    }

    pub fn raw(&mut self, name: &str) -> PResult<Option<String>> {
        match self.take(name) {
            None => Ok(None),
            Some((_, Value::Raw(r))) => Ok(Some(r)),
            Some((span, _)) => Err(Self::wrong(span, name, "a braced value")),
        }
    }

    pub fn missing_error(&self, name: &str) -> ParseError {
        self.missing(name)
    }
}

/// Attribute values parsed before, by their exact text (see
/// [`plain_value_end`] for which texts qualify).
#[derive(Default)]
pub(crate) struct ValueCache<'s> {
    pub replica_groups: TextCache<'s, ReplicaGroups>,
    pub shardings: TextCache<'s, Sharding>,
}

/// The end of the attribute value whose text starts at `start`: the first `,`,
/// space or newline outside brackets, or the bracket closing an enclosing one.
/// `None` when the text holds a quote, `@` or `%` (names, whose meaning a
/// cached value could not follow) or a newline inside brackets, or runs on
/// too long: such values are always parsed.
fn plain_value_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in bytes.get(start..)?.iter().enumerate().take(4096) {
        match c {
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' if depth == 0 => return Some(start + k),
            b'}' | b']' | b')' => depth -= 1,
            b',' | b' ' | b'\n' if depth == 0 => return Some(start + k),
            b'"' | b'\'' | b'@' | b'%' | b'\n' => return None,
            _ => {}
        }
    }
    None
}

impl<'s> Parser<'s> {
    /// The value of the attribute starting at the current token: a copy of
    /// the one parsed from the same text before (the parser then stands after
    /// it), or `parse`'s, remembered when the parse read exactly a text that
    /// may be cached.
    fn cached_or_parsed<T: Clone>(
        &mut self,
        map: impl for<'c> Fn(&'c mut ValueCache<'s>) -> &'c mut TextCache<'s, T>,
        parse: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        let start = self.tok.start as usize;
        let end = match plain_value_end(self.src.as_bytes(), start) {
            Some(end) if self.byte_readers => end,
            _ => return parse(self),
        };
        let text = &self.src[start..end];
        let depth = self.depth();
        if let Some(value) = map(&mut self.value_cache).get(text, depth) {
            let value = value.clone();
            self.seek(end);
            return Ok(value);
        }
        let value = parse(self)?;
        if self.prev_end() as usize == end {
            map(&mut self.value_cache).insert(text, value.clone());
        }
        Ok(value)
    }

    /// An empty bag, reusing the storage of the last one returned.
    pub(crate) fn take_bag(&mut self) -> Bag<'s> {
        Bag {
            entries: std::mem::take(&mut self.bag_storage),
            end: self.span(),
            site: Span::default(),
        }
    }

    /// Gives a finished bag's storage back for the next instruction.
    pub(crate) fn return_bag(&mut self, mut bag: Bag<'s>) {
        bag.entries.clear();
        self.bag_storage = bag.entries;
    }

    /// Parses `, name=value` attributes until there are no more commas.
    pub(crate) fn attributes(&mut self, bag: &mut Bag<'s>) -> PResult<()> {
        bag.end = self.span();
        while self.at(Tok::Comma) {
            // `, name=` as XLA prints it: the name is read from the bytes.
            let comma_end = self.tok.end as usize;
            let bytes = self.src.as_bytes();
            match crate::text::lexer::attr_name_end(bytes, comma_end + 1) {
                Some(end) if self.byte_readers && bytes.get(comma_end) == Some(&b' ') => self
                    .set_token(
                        Token {
                            kind: Tok::AttrName,
                            start: comma_end as u32 + 1,
                            end: end as u32,
                        },
                        comma_end,
                        end + 1,
                    ),
                _ => {
                    self.bump();
                }
            }
            let span = self.span();
            if !self.at(Tok::AttrName) {
                return Err(self
                    .error(format!(
                        "expected an attribute like name=value, found {}",
                        self.found()
                    ))
                    .with_hint("attributes are written name=value with no space before '='"));
            }
            let name = self.cur_text();
            if bag.entries.iter().any(|e| same_text(e.name, name)) {
                return Err(self.error(format!("attribute {name} already exists")));
            }
            let Some(kind) = kind_of(name) else {
                return Err(self
                    .error(format!("unexpected attribute \"{name}\""))
                    .with_label("unknown attribute"));
            };
            self.bump();
            let value = self.attr_value(name, kind)?;
            let span = crate::diagnostic::Span {
                start: span.start,
                end: self.prev_end(),
            };
            bag.entries.push(Entry {
                name,
                span,
                value: Some(value),
            });
        }
        bag.end = self.span();
        Ok(())
    }

    fn attr_value(&mut self, name: &str, kind: Kind) -> PResult<Value> {
        Ok(match kind {
            Kind::Int => Value::Int(self.int()?),
            Kind::Bool => Value::Bool(self.bool()?),
            Kind::Float => Value::Float(self.number()?),
            Kind::Ints => Value::Ints(self.int_list()?),
            Kind::IntsOrLists => {
                if self.at(Tok::LBrace) && self.peek().kind == Tok::LBrace {
                    Value::IntLists(self.int_list_list()?)
                } else {
                    Value::Ints(self.int_list()?)
                }
            }
            Kind::IntLists => Value::IntLists(self.int_list_list()?),
            Kind::BoolsOrBool => Value::Bools(self.bool_list_or_bool()?),
            Kind::Str => Value::Str(self.string()?),
            Kind::Word => {
                let span = self.span();
                match self.kind() {
                    Tok::Ident => {
                        let t = self.bump();
                        Value::Word(self.text(t).to_string())
                    }
                    _ => {
                        return Err(self.error_at(
                            span,
                            format!("expected a value for {name}, found {}", self.found()),
                        ));
                    }
                }
            }
            Kind::Comp => Value::Comp(self.computation_ref()?),
            Kind::Comps => Value::Comps(self.braced_list(|p| p.computation_ref())?),
            Kind::Window => Value::Window(self.window()?),
            Kind::DimLabels => Value::DimLabels(Box::new(self.dim_labels()?)),
            Kind::Slice => Value::Slice(self.slice_ranges()?),
            Kind::Padding => Value::Padding(self.padding_config()?),
            Kind::Precision => Value::Precision(self.precision_list()?),
            Kind::ReplicaGroups => Value::ReplicaGroups(Box::new(
                self.cached_or_parsed(|cache| &mut cache.replica_groups, Parser::replica_groups)?,
            )),
            Kind::Sharding => Value::Sharding(
                self.cached_or_parsed(|cache| &mut cache.shardings, Parser::sharding)?,
            ),
            Kind::Metadata => Value::Metadata(Box::new(self.metadata()?)),
            Kind::Frontend => Value::Frontend(self.frontend_attributes()?),
            Kind::StringOrDict => Value::Str(self.string_or_dict()?),
            Kind::Statistics => Value::Statistics(Box::new(self.statistics()?)),
            Kind::Accuracy => Value::Accuracy(Box::new(self.result_accuracy()?)),
            Kind::RawBraced => Value::Raw(self.raw_braced()?.to_string()),
            Kind::Aliasing => Value::Aliasing(self.output_operand_aliasing()?),
            Kind::Shapes => Value::Shapes(self.braced_list(|p| p.shape())?),
            Kind::Shape => Value::Shape(self.shape()?),
            Kind::UntypedLiteral => Value::Literal(Box::new(self.untyped_literal()?)),
            Kind::Instrs => Value::Instrs(self.braced_list(|p| {
                let span = p.span();
                let name = p.ident("an instruction name")?;
                p.lookup_operand(name).ok_or_else(|| {
                    p.error_at(span, format!("instruction '{name}' is not defined"))
                        .with_hint(
                            "control predecessors must be defined earlier in the same computation",
                        )
                })
            })?),
            Kind::Domain => Value::Domain(Box::new(self.domain()?)),
        })
    }

    /// `{{0}: (0, {}), {1}: (1, {0})}`.
    pub(crate) fn output_operand_aliasing(&mut self) -> PResult<Vec<OutputOperandAlias>> {
        self.braced_list(|p| {
            let output = p.int_list()?;
            p.expect(Tok::Colon, "':' after the output index")?;
            p.expect(Tok::LParen, "'(' before the operand number")?;
            let operand = p.int()?;
            p.expect(Tok::Comma, "',' after the operand number")?;
            let operand_index = p.int_list()?;
            p.expect(Tok::RParen, "')' closing the aliased operand")?;
            Ok(OutputOperandAlias {
                output,
                operand,
                operand_index,
            })
        })
    }

    /// A custom-call `literal=`: `shape value` or a tuple `( shape value, … )`.
    fn untyped_literal(&mut self) -> PResult<Literal> {
        if self.eat(Tok::LParen) {
            let mut elements = Vec::new();
            if !self.eat(Tok::RParen) {
                loop {
                    elements.push(self.nested(|p| p.untyped_literal())?);
                    if self.eat(Tok::Comma) {
                        continue;
                    }
                    self.expect(Tok::RParen, "',' or ')' in a tuple literal")?;
                    break;
                }
            }
            return Ok(Literal::Tuple(elements));
        }
        let shape = self.shape()?;
        self.literal(shape)
    }

    /// `{kind="sharding", entry={…}, exit={…}}`.
    fn domain(&mut self) -> PResult<DomainAttrs> {
        self.expect(Tok::LBrace, "'{' starting the domain")?;
        let (mut kind, mut entry, mut exit) = (None, None, None);
        loop {
            if self.eat(Tok::RBrace) {
                break;
            }
            self.eat(Tok::Comma);
            let span = self.span();
            if !self.at(Tok::AttrName) {
                return Err(self.error(format!("expected a domain field, found {}", self.found())));
            }
            let field = self.cur_text();
            self.bump();
            match field {
                "kind" => kind = Some(self.string()?),
                "entry" => entry = Some(self.sharding()?),
                "exit" => exit = Some(self.sharding()?),
                _ => {
                    return Err(self.error_at(span, format!("unknown domain field '{field}'")));
                }
            }
        }
        let kind = kind.ok_or_else(|| self.error("sub-attribute kind is expected but not seen"))?;
        if kind != "sharding" {
            return Err(self.error(format!("unsupported domain kind: {kind}")));
        }
        Ok(DomainAttrs {
            kind,
            entry: entry
                .ok_or_else(|| self.error("sub-attribute entry is expected but not seen"))?,
            exit: exit.ok_or_else(|| self.error("sub-attribute exit is expected but not seen"))?,
        })
    }
}

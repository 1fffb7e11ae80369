//! Instructions: `[ROOT] name = [shape] opcode(operands), attr=value, …`, nested
//! instructions as operands, compact get-tuple-elements (`%t#0#1`), and the common
//! attributes every instruction may carry.

use crate::attrs::{Attrs, CommonAttrs, ParameterAttrs};
use crate::diagnostic::Span;
use crate::entity::EntityRef;
use crate::module::{Callees, Comp, Instr, InstrData, Operands};
use crate::opcode::{Arity, Flags, Opcode};
use crate::shape::Shape;
use crate::text::attr_bag::{Bag, Value};
use crate::text::family::Site;
use crate::text::fast::byte_scan::TextKey;
use crate::text::lexer::{Tok, Token};
use crate::text::parser::{PResult, Parser};
use compact_str::CompactString;

/// What the opcode token named.
#[derive(Copy, Clone, Debug)]
pub(crate) enum OpcodeSpec {
    /// A real opcode.
    Plain(Opcode),
    /// `<wrapped>-start|-update|-done` sugar around `wrapped`.
    Sugar(Opcode, Opcode),
}

impl<'s> Parser<'s> {
    /// One top-level instruction line of the current computation.
    pub(crate) fn instruction(&mut self) -> PResult<Instr> {
        let root_span = self.span();
        let is_root = self.eat_word("ROOT");
        let name_span = self.span();
        // `name = shape opcode(` as XLA prints it, the shape seen before and the
        // opcode a plain one, is read straight from the bytes: none of `=`, the
        // shape, the opcode or `(` goes through the lexer.
        let direct_head = if self.byte_readers && self.kind() == Tok::Ident {
            self.direct_instruction_head(name_span.end as usize)
        } else {
            None
        };
        let name = match self.kind() {
            Tok::Ident if direct_head.is_some() => {
                let text = self.cur_text();
                text.strip_prefix('%').unwrap_or(text)
            }
            Tok::Ident => self.ident("an instruction name")?,
            Tok::AttrName => {
                return Err(self
                    .error(format!("expects '=' in instruction, found '{}='", self.cur_text()))
                    .with_hint("write a space before '=' or put '%' before the name: `%name=…` and `name = …` both work"));
            }
            _ => {
                return Err(self.error(format!(
                    "expected an instruction name, found {}",
                    self.found()
                )));
            }
        };
        if let Some(suggestion) = reserved_name_fix(name) {
            return Err(self
                .error_at(
                    name_span,
                    format!("illegal instruction name: {name}; suggest renaming to: {suggestion}"),
                )
                .with_hint("element type names and names starting with `__` are reserved"));
        }
        // Most lines read `name = shape opcode(…)` with a shape seen before:
        // its text is looked up without lexing its tokens.
        let after_equal = self.tok.end as usize;
        let instr = if let Some((shape, opcode, opcode_span)) = direct_head {
            self.set_token(
                Token {
                    kind: Tok::LParen,
                    start: opcode_span.end,
                    end: opcode_span.end + 1,
                },
                opcode_span.end as usize,
                opcode_span.end as usize + 1,
            );
            self.rhs_after_opcode(
                Some((name, name_span)),
                Some(shape),
                OpcodeSpec::Plain(opcode),
                opcode_span,
                false,
            )?
        } else if self.at(Tok::Equal)
            && self.src.as_bytes().get(after_equal) == Some(&b' ')
            && let Some((shape, end)) = self.cached_shape_at(after_equal + 1, true)
        {
            self.seek(end);
            self.rhs_after_shape(Some((name, name_span)), Some(shape), false)?
        } else {
            self.expect(Tok::Equal, "'=' in instruction")?;
            self.rhs(Some((name, name_span)), false)?
        };
        if is_root {
            if self.scope().root.is_some() {
                return Err(self.error_at(root_span, "one computation should have only one ROOT"));
            }
            self.scope().root = Some(instr);
        }
        Ok(instr)
    }

    /// After an instruction's name (ending at `name_end`): ` = shape opcode(`
    /// with a shape whose text is cached and a plain opcode directly followed by
    /// `(`, read from the bytes. Gives the shape, the opcode and the opcode's
    /// span; `None` for anything else, which the lexer then reads.
    fn direct_instruction_head(&self, name_end: usize) -> Option<(Shape, Opcode, Span)> {
        let bytes = self.src.as_bytes();
        if !bytes.get(name_end..)?.starts_with(b" = ") {
            return None;
        }
        let (shape, shape_end) = self.cached_shape_at(name_end + 3, true)?;
        if bytes.get(shape_end) != Some(&b' ') {
            return None;
        }
        let opcode_start = shape_end + 1;
        let opcode_end = crate::text::lexer::ident_run_end(bytes, opcode_start);
        if bytes.get(opcode_end) != Some(&b'(') {
            return None;
        }
        // Every opcode name is lowercase letters and dashes, which the lexer
        // reads as one identifier up to the `(`.
        let opcode = Opcode::from_name(&self.src[opcode_start..opcode_end])?;
        Some((shape, opcode, Span::new(opcode_start, opcode_end)))
    }

    /// At the `(` of `parameter(N)`: reads `(N)` when `N` is a plain integer
    /// that fits 64 bits (what the lexer would read as one integer token),
    /// moving past the `)`. `None` leaves anything else to the tokens.
    fn direct_parameter_number(&mut self) -> Option<(i64, Span)> {
        if !self.byte_readers || !self.at(Tok::LParen) {
            return None;
        }
        let bytes = self.src.as_bytes();
        let digits_start = self.tok.end as usize;
        let (number, close) = crate::text::parser::scan_int(bytes, digits_start)?;
        if bytes.get(close) != Some(&b')') {
            return None;
        }
        self.seek(close + 1);
        Some((number, Span::new(digits_start, close)))
    }

    /// The right-hand side of an instruction; `name` is `None` for a nested one.
    pub(crate) fn rhs(&mut self, name: Option<(&'s str, Span)>, nested: bool) -> PResult<Instr> {
        let shape = if self.at_shape() {
            Some(self.shape()?)
        } else {
            // The shape is inferred from the operands and callees.
            self.note_outside_dependency();
            None
        };
        self.rhs_after_shape(name, shape, nested)
    }

    fn rhs_after_shape(
        &mut self,
        name: Option<(&'s str, Span)>,
        shape: Option<Shape>,
        nested: bool,
    ) -> PResult<Instr> {
        let opcode_span = self.span();
        let spec = self.opcode_spec()?;
        self.rhs_after_opcode(name, shape, spec, opcode_span, nested)
    }

    /// The rest of an instruction once its opcode (at `opcode_span`) is read.
    fn rhs_after_opcode(
        &mut self,
        name: Option<(&'s str, Span)>,
        shape: Option<Shape>,
        spec: OpcodeSpec,
        opcode_span: Span,
        nested: bool,
    ) -> PResult<Instr> {
        let instr = match spec {
            OpcodeSpec::Sugar(..)
            | OpcodeSpec::Plain(Opcode::AsyncStart)
            | OpcodeSpec::Plain(Opcode::AsyncUpdate)
            | OpcodeSpec::Plain(Opcode::AsyncDone) => {
                self.async_instruction(name, shape, spec, opcode_span, nested)?
            }
            OpcodeSpec::Plain(opcode) => {
                self.plain_instruction(name, shape, opcode, opcode_span, nested)?
            }
        };
        Ok(instr)
    }

    /// Reads the opcode token, resolving async sugar exactly as XLA does.
    fn opcode_spec(&mut self) -> PResult<OpcodeSpec> {
        if !self.at(Tok::Ident) {
            return Err(self.error(format!("expects opcode, found {}", self.found())));
        }
        let text = self.cur_text();
        if let Some(op) = Opcode::from_name(text) {
            self.bump();
            return Ok(OpcodeSpec::Plain(op));
        }
        for (suffix, kind) in [
            ("-start", Opcode::AsyncStart),
            ("-update", Opcode::AsyncUpdate),
            ("-done", Opcode::AsyncDone),
        ] {
            let Some(prefix) = text.strip_suffix(suffix) else {
                continue;
            };
            match Opcode::from_name(prefix) {
                Some(wrapped) if wrapped.has(Flags::NO_ASYNC_SUGAR) => {
                    return Err(self
                        .error(format!(
                            "expects opcode but sees: {text}, error: Unknown opcode: {text}"
                        ))
                        .with_hint(format!(
                            "{prefix} has first-class asynchronous opcodes ({}); it cannot be wrapped by {suffix} sugar",
                            first_class_names(wrapped)
                        )));
                }
                Some(wrapped) => {
                    self.bump();
                    return Ok(OpcodeSpec::Sugar(kind, wrapped));
                }
                None => {
                    return Err(self.error(format!(
                        "expects async wrapped opcode but sees: {text}, error: Unknown opcode: {prefix}"
                    )));
                }
            }
        }
        Err(self
            .error(format!(
                "expects opcode but sees: {text}, error: Unknown opcode: {text}"
            ))
            .with_label("unknown opcode"))
    }

    /// `(operand, …)`; returns the operands, each operand's span and the `(` span.
    pub(crate) fn operand_list(&mut self) -> PResult<(Operands, Vec<Span>, Span)> {
        let open = self.span();
        // A nested instruction among the operands finds the storage taken and
        // reads its own list into fresh vectors.
        let mut operands = std::mem::take(&mut self.operand_storage);
        let mut spans = std::mem::take(&mut self.operand_span_storage);
        operands.clear();
        spans.clear();
        let read = self.operand_list_into(open, &mut operands, &mut spans);
        let exact = Operands::from_slice(&operands);
        self.operand_storage = operands;
        read.map(|()| (exact, spans, open))
    }

    /// Gives the operand spans taken by [`operand_list`](Self::operand_list)
    /// back for the next instruction.
    pub(crate) fn return_operand_spans(&mut self, spans: Vec<Span>) {
        if spans.capacity() > self.operand_span_storage.capacity() {
            self.operand_span_storage = spans;
        }
    }

    fn operand_list_into(
        &mut self,
        open: Span,
        operands: &mut Vec<Instr>,
        spans: &mut Vec<Span>,
    ) -> PResult<()> {
        if self.byte_readers
            && self.at(Tok::LParen)
            && let Some(end) = self.scan_operand_list(open.start as usize, operands, spans)
        {
            self.seek(end);
            return Ok(());
        }
        operands.clear();
        spans.clear();
        self.expect(Tok::LParen, "'(' at the beginning of operands")?;
        if self.eat(Tok::RParen) {
            return Ok(());
        }
        loop {
            let start = self.span();
            let operand = self.operand()?;
            operands.push(operand);
            spans.push(Span {
                start: start.start,
                end: self.prev_end(),
            });
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RParen, "',' or ')' in the operand list")?;
            return Ok(());
        }
    }

    /// Reads an operand list the way XLA prints it — `(f32[2]{0} %a, %b)` with
    /// single spaces, `/*index=N*/` markers, names defined earlier and shapes
    /// seen before — straight from the bytes, into `operands` and `spans`.
    /// Anything else (nested instructions, compact get-tuple-elements, unknown
    /// names, new shapes, unusual spacing) returns `None` and is read token by
    /// token, which also produces the errors.
    fn scan_operand_list(
        &mut self,
        open: usize,
        operands: &mut Vec<Instr>,
        spans: &mut Vec<Span>,
    ) -> Option<usize> {
        let src = self.src;
        let bytes = src.as_bytes();
        let mut i = open + 1;
        if bytes.get(i) == Some(&b')') {
            return Some(i + 1);
        }
        loop {
            let start = i;
            // An optional shape, which must already be known by its text: a
            // tuple, or a word followed by `[` (a name is followed by `,` or
            // `)`, so `add.3` and `bf16[2]` are told apart by what follows the
            // word, not by its first letter).
            let first = *bytes.get(i)?;
            let is_shape = first == b'('
                || first.is_ascii_lowercase()
                    && bytes.get(crate::text::lexer::ident_run_end(bytes, i)) == Some(&b'[');
            let declared = if is_shape {
                let (shape, end) = self.cached_shape_at(i, true)?;
                if bytes.get(end) != Some(&b' ') {
                    return None;
                }
                i = end + 1;
                Some(shape)
            } else {
                None
            };
            if bytes.get(i) == Some(&b'%') {
                i += 1;
            }
            let name_start = i;
            i = crate::text::lexer::ident_run_end(bytes, i);
            if i == name_start
                || !bytes[name_start].is_ascii_alphabetic() && bytes[name_start] != b'_'
            {
                return None;
            }
            let name = &src[name_start..i];
            let instr = self.lookup_operand(name)?;
            if let Some(declared) = declared
                && let actual = self.declared_operand_shape(instr, declared)
                && declared != actual
                && !crate::shape_util::compatible(&self.m.shapes, declared, actual)
            {
                return None;
            }
            operands.push(instr);
            spans.push(Span::new(start, i));
            match *bytes.get(i)? {
                b')' => return Some(i + 1),
                b',' => {
                    i += 1;
                    if bytes.get(i) == Some(&b' ') {
                        i += 1;
                    }
                    i = crate::text::lexer::after_block_comment(bytes, i)?;
                }
                _ => return None,
            }
        }
    }

    /// `[shape] name[#i…]` or a nested `[shape] opcode(…)`.
    fn operand(&mut self) -> PResult<Instr> {
        let start = self.span();
        let declared = if self.at_shape() {
            Some(self.shape()?)
        } else {
            None
        };
        if !self.at(Tok::Ident) {
            return Err(self.error(format!(
                "expected an operand name or a nested instruction, found {}",
                self.found()
            )));
        }
        if self.peek().kind == Tok::LParen && !self.cur_text().starts_with('%') {
            return self.nested(|p| p.rhs_after_shape(None, declared, true));
        }
        let name_span = self.span();
        let name = self.ident("an operand name")?;
        let Some(mut instr) = self.lookup_operand(name) else {
            return Err(self
                .error_at(name_span, format!("instruction does not exist: {name}"))
                .with_label("not defined in this computation")
                .with_hint("operands must be defined earlier in the same computation"));
        };
        // Compact get-tuple-element: `%t#0#1`. The key is only built for one.
        let mut key = String::new();
        while self.eat(Tok::Hash) {
            if key.is_empty() {
                key.push_str(name);
            }
            if !self.at(Tok::Int) {
                return Err(self.error("expects integer"));
            }
            let index = self.int()?;
            let tuple_shape = self.operand_shape(instr);
            let Some(elements) = self.m.shapes.tuple_elements(tuple_shape) else {
                let mut text = String::new();
                crate::text::shape::print_shape(&self.m.shapes, &mut text, tuple_shape);
                return Err(self.error_at(
                    start,
                    format!("GTE operand must be tuple, but has shape: {text}"),
                ));
            };
            if index < 0 || index as usize >= elements.len() {
                let mut text = String::new();
                crate::text::shape::print_shape(&self.m.shapes, &mut text, tuple_shape);
                return Err(self.error_at(
                    start,
                    format!("GTE index {index} out of bounds for shape: {text}"),
                ));
            }
            let element = elements[index as usize];
            key.push('#');
            key.push_str(&index.to_string());
            instr = match self.scope().synthetic.get(&TextKey(&key)) {
                Some(&existing) => existing,
                None => {
                    let gte_name = key.replace('#', "_");
                    let parent = self.current_comp();
                    let gte = self.m.add_instr(
                        parent,
                        InstrData {
                            name: gte_name.into(),
                            opcode: Opcode::GetTupleElement,
                            shape: element,
                            operands: Operands::from_slice(&[instr]),
                            callees: Callees::new(),
                            attrs: Attrs::GetTupleElement { index },
                            common: None,
                            metadata: None,
                        },
                    );
                    self.scope().synthetic.insert(key.clone(), gte);
                    gte
                }
            };
        }
        if let Some(declared) = declared {
            let actual = self.declared_operand_shape(instr, declared);
            if declared != actual
                && !crate::shape_util::compatible(&self.m.shapes, declared, actual)
            {
                let mut d = String::new();
                crate::text::shape::print_shape(&self.m.shapes, &mut d, declared);
                let mut a = String::new();
                crate::text::shape::print_shape(&self.m.shapes, &mut a, actual);
                return Err(self
                    .error_at(
                        start,
                        format!(
                            "The declared operand shape {d} is not compatible with the shape of the operand instruction {a}."
                        ),
                    )
                    .with_hint(format!("{name} is {a}")));
            }
        }
        Ok(instr)
    }

    /// Every non-async instruction.
    fn plain_instruction(
        &mut self,
        name: Option<(&'s str, Span)>,
        shape: Option<Shape>,
        opcode: Opcode,
        opcode_span: Span,
        nested: bool,
    ) -> PResult<Instr> {
        // parameter(N) and constant(literal) have special operand syntax.
        let (operands, operand_spans, open, special) = match opcode {
            Opcode::Parameter => {
                let open = self.span();
                let direct = self.direct_parameter_number();
                let (number, number_span) = match direct {
                    Some(read) => read,
                    None => {
                        self.expect(Tok::LParen, "'(' after parameter")?;
                        let number_span = self.span();
                        (self.int()?, number_span)
                    }
                };
                if number < 0 {
                    return Err(self.error_at(number_span, "parameter number must be >= 0"));
                }
                // Parameters 0..N each take text, so a number beyond the text's
                // length has gaps below it; rejected before the parameter table
                // grows to it.
                if number as u64 > self.src.len() as u64 {
                    return Err(self.error_at(
                        number_span,
                        format!("parameter number {number} is out of range: the computation cannot have that many parameters"),
                    ));
                }
                if direct.is_none() {
                    self.expect(Tok::RParen, "')' after the parameter number")?;
                }
                if self.scope_has_param(number) {
                    return Err(
                        self.error_at(number_span, format!("Duplicate parameter number {number}"))
                    );
                }
                (
                    Operands::new(),
                    Vec::new(),
                    open,
                    Some(Attrs::Parameter(ParameterAttrs {
                        number,
                        replication: None,
                    })),
                )
            }
            Opcode::Constant => {
                let open = self.span();
                let Some(shape) = shape else {
                    return Err(self
                        .error_at(opcode_span, "cannot infer shape for opcode: constant")
                        .with_hint("write the constant's shape before the opcode, e.g. f32[2] constant({1, 2})"));
                };
                self.expect(Tok::LParen, "'(' after constant")?;
                let literal = self.literal(shape)?;
                self.expect(Tok::RParen, "')' after the literal")?;
                (
                    Operands::new(),
                    Vec::new(),
                    open,
                    Some(Attrs::Constant(Box::new(literal))),
                )
            }
            _ => {
                let (operands, spans, open) = self.operand_list()?;
                (operands, spans, open, None)
            }
        };
        if let Arity::Fixed(n) = opcode.arity()
            && operands.len() != usize::from(n)
            && special.is_none()
        {
            return Err(self.error_at(
                open,
                format!("expects {n} operands, but has {} operands", operands.len()),
            ));
        }
        self.check_operand_count(opcode, &operands, open)?;
        let mut bag = self.take_bag();
        bag.site = opcode_span;
        if nested {
            bag.end = self.span();
        } else {
            self.attributes(&mut bag)?;
        }
        let site = Site {
            opcode,
            operands: &operands,
            operands_span: open,
        };
        let (mut attrs, callees) = match special {
            Some(attrs) => (attrs, Callees::new()),
            None => self.build_family(&site, &mut bag)?,
        };
        if let Attrs::Parameter(p) = &mut attrs
            && let Some((_, Value::Bools(b))) = bag.take("parameter_replication")
        {
            p.replication = Some(b.into());
        }
        if let Some(span) = bag.span_of("result_accuracy")
            && !has_result_accuracy(opcode)
        {
            return Err(self
                .error_at(span, "unexpected attribute \"result_accuracy\"")
                .with_label(format!("not an attribute of {opcode}"))
                .with_hint("result_accuracy applies to transcendental ops such as exponential, log, tanh and sine"));
        }
        let mut common = self.common_attrs(&mut bag)?;
        let metadata = self.metadata_attr(&mut bag);
        if let Some(entry) = bag.leftover() {
            return Err(self
                .error_at(
                    entry.span,
                    format!("unexpected attribute \"{}\"", entry.name),
                )
                .with_label(format!("not an attribute of {opcode}")));
        }
        let shape = match shape {
            Some(s) => s,
            None => self.infer_omitted_shape(opcode, &operands, &attrs, &callees, opcode_span)?,
        };
        self.check_operands_and_shape(opcode, &operands, shape, opcode_span, open)?;
        let shape = self.derived_shape(opcode, &operands, shape);
        self.normalize_tuple_sharding(&mut common, shape);
        let instr = self.add_parsed(
            name,
            InstrData {
                name: CompactString::default(),
                opcode,
                shape,
                operands,
                callees,
                attrs,
                common,
                metadata,
            },
        );
        self.register(instr, name, opcode_span, &operand_spans, &bag)?;
        self.return_bag(bag);
        self.return_operand_spans(operand_spans);
        Ok(instr)
    }

    /// Adds a parsed instruction to the current computation under its written
    /// name (or a generated `<opcode>.anon` name for a nested one).
    #[inline]
    pub(crate) fn add_parsed(
        &mut self,
        name: Option<(&'s str, Span)>,
        mut data: InstrData,
    ) -> Instr {
        data.name = self.instruction_name(name, data.opcode);
        let parent = self.current_comp();
        self.m.add_instr(parent, data)
    }

    pub(crate) fn scope_has_param(&self, number: i64) -> bool {
        let Some(scope) = self.scopes.last() else {
            return false;
        };
        let comp = &self.m.comps[scope.comp];
        comp.params.get(number as usize).is_some_and(
            |&p| matches!(&self.m.instrs[p].attrs, Attrs::Parameter(a) if a.number == number),
        )
    }

    /// The name an instruction gets: its written name, or `<opcode>.anon[.N]` for
    /// a nested one (made unique among every name the parser has seen).
    pub(crate) fn instruction_name(
        &mut self,
        name: Option<(&'s str, Span)>,
        opcode: Opcode,
    ) -> CompactString {
        match name {
            Some((n, _)) => {
                // Only names that could collide with a generated `<op>.anon[.N]`
                // matter to the anonymous-name counter.
                if n.contains(".anon") {
                    self.text_uniquer.reserve(n);
                }
                CompactString::new(n)
            }
            None => self
                .text_uniquer
                .unique(&format!("{}.anon", opcode.name()))
                .into(),
        }
    }

    /// Records a new instruction's name and spans in the current scope.
    pub(crate) fn register(
        &mut self,
        instr: Instr,
        name: Option<(&'s str, Span)>,
        opcode_span: Span,
        operand_spans: &[Span],
        bag: &Bag<'_>,
    ) -> PResult<()> {
        if self.record_spans {
            self.spans.record_instr(
                instr,
                name.map_or(opcode_span, |(_, s)| s),
                opcode_span,
                operand_spans,
                bag.entries.iter().map(|e| e.span),
            );
        }
        // A written name is hashed once, for the computation's table and (as
        // most names are spelled the way XLA spells their key) the module's,
        // and in a part of a text for the table of the parse it is merged into.
        let written_hash = name.map(|(n, _)| crate::names::name_hash(n));
        self.note_name(name.zip(written_hash).map(|((n, _), hash)| (n, hash)));
        let key = crate::names::NameKey::of_hashed(&self.m.instrs[instr].name, written_hash);
        self.set_name_key(instr, key);
        if let (Some((n, span)), Some(hash)) = (name, written_hash) {
            let scope = self.scopes.last_mut().expect("inside a computation");
            if let Err(previous) = scope.names.insert_hashed(&self.m.instrs, n, hash, instr) {
                let previous_span = self.spans.instr(previous);
                let mut d = self
                    .error_at(span, format!("instruction already exists: {n}"))
                    .with_label("defined twice");
                if let Some(prev) = previous_span {
                    let at = crate::diagnostic::line_col(self.src, prev.start as usize);
                    d = d.with_hint(format!(
                        "instruction previously defined here: line {}, column {}",
                        at.line, at.col
                    ));
                }
                return Err(d);
            }
        } else {
            let generated = self.m.instrs[instr].name.to_string();
            self.scope().synthetic.insert(generated, instr);
        }
        Ok(())
    }

    /// Records `instr`'s name key, computed where its name was parsed (while
    /// the name is in cache).
    pub(crate) fn set_name_key(&mut self, instr: Instr, key: Option<crate::names::NameKey>) {
        let index = instr.index();
        // Instructions are nearly always added in handle order.
        if self.name_keys.len() == index {
            self.name_keys.push(key);
            return;
        }
        if self.name_keys.len() < index {
            self.name_keys.resize(index + 1, None);
        }
        self.name_keys[index] = key;
    }

    /// XLA's `NormalizeTupleSharding`: a non-tuple sharding on a tuple-shaped
    /// instruction becomes a tuple of copies of it, one per leaf (one when the
    /// tuple has no leaves).
    pub(crate) fn normalize_tuple_sharding(
        &self,
        common: &mut Option<Box<CommonAttrs>>,
        shape: Shape,
    ) {
        let Some(common) = common.as_deref_mut() else {
            return;
        };
        if let Some(sharding @ crate::attrs::Sharding::Single(_)) = &common.sharding
            && self.m.shapes.is_tuple(shape)
        {
            let leaves = crate::shape_util::leaf_count(&self.m.shapes, shape).max(1);
            common.sharding = Some(crate::attrs::Sharding::Tuple(vec![
                sharding.clone();
                leaves
            ]));
        }
    }

    /// Takes `metadata=` out of `bag`.
    pub(crate) fn metadata_attr(
        &mut self,
        bag: &mut Bag<'_>,
    ) -> Option<Box<crate::attrs::Metadata>> {
        match bag.take("metadata") {
            Some((_, Value::Metadata(m))) => Some(m),
            _ => None,
        }
    }

    /// Takes the common attributes out of `bag`.
    pub(crate) fn common_attrs(&mut self, bag: &mut Bag<'_>) -> PResult<Option<Box<CommonAttrs>>> {
        // Most instructions have nothing left by now.
        if bag.leftover().is_none() {
            return Ok(None);
        }
        let mut common = CommonAttrs::default();
        if let Some((_, Value::Sharding(s))) = bag.take("sharding") {
            common.sharding = Some(s);
        }
        if let Some((_, Value::Frontend(f))) = bag.take("frontend_attributes") {
            common.frontend_attributes = Some(f);
        }
        if let Some((_, Value::Instrs(i))) = bag.take("control-predecessors") {
            common.control_predecessors = i;
        }
        if let Some((_, Value::Statistics(s))) = bag.take("statistics") {
            common.statistics = Some(*s);
        }
        if let Some((_, Value::Accuracy(a))) = bag.take("result_accuracy") {
            common.result_accuracy = Some(*a);
        }
        if let Some((_, Value::Raw(o))) = bag.take("origin") {
            common.origin = Some(o);
        }
        if let Some((_, Value::Str(b))) = bag.take("backend_config") {
            common.backend_config = Some(crate::attrs::BackendConfig(b));
        }
        Ok(if common.is_empty() {
            None
        } else {
            Some(Box::new(common))
        })
    }

    /// A computation reference: `%name` or an inline `{ … }` body.
    pub(crate) fn computation_ref(&mut self) -> PResult<Comp> {
        if self.at(Tok::LBrace) {
            self.note_outside_dependency();
            return self.inline_computation();
        }
        let span = self.span();
        let name = self.ident("a computation name")?;
        if let Some(comp) = self.outside_computation(name) {
            return Ok(comp);
        }
        let comp = self
            .comp_names
            .get(&TextKey(name))
            .copied()
            .ok_or_else(|| {
                self.error_at(span, format!("computation does not exist: {name}"))
                    .with_hint("computations must be defined before they are used")
            })?;
        // As in XLA, a computation exists once its body is parsed: no computation
        // calls itself or one it is nested in.
        if self.scopes.iter().any(|s| s.comp == comp) {
            return Err(self
                .error_at(span, format!("computation does not exist: {name}"))
                .with_hint("a computation cannot call itself or a computation it is nested in"));
        }
        Ok(comp)
    }
}

/// For a name XLA reserves, the name XLA suggests instead: element type names
/// get `_` appended and a leading `__` (other than `__xla_`) becomes `a_`.
fn reserved_name_fix(name: &str) -> Option<String> {
    // This runs for every instruction name: the first byte rules out nearly
    // all of them before anything is compared.
    match name.as_bytes().first()? {
        b'_' => {
            let rest = name.strip_prefix("__")?;
            (!rest.starts_with("xla_")).then(|| format!("a_{rest}"))
        }
        // Element type names start with one of these and are lowercase
        // letters and digits (or `opaque_type`).
        b'b' | b'c' | b'f' | b'o' | b'p' | b's' | b't' | b'u'
            if name.len() <= 13
                && name
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
                && crate::ElementType::from_name(name).is_some() =>
        {
            Some(format!("{name}_"))
        }
        _ => None,
    }
}

/// The ops that take `result_accuracy=` (XLA's transcendental unary ops).
fn has_result_accuracy(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::Acos
            | O::Acosh
            | O::Asin
            | O::Asinh
            | O::Atanh
            | O::ExponentialMinusOne
            | O::Log
            | O::LogPlusOne
            | O::Logistic
            | O::Sqrt
            | O::Cbrt
            | O::Rsqrt
            | O::Tanh
            | O::Erf
            | O::Sine
            | O::Sinh
            | O::Cosine
            | O::Cosh
            | O::Tan
            | O::Exponential
    )
}

impl Parser<'_> {
    /// Operand-count rules of variadic opcodes, checked before their attributes.
    fn check_operand_count(&self, opcode: Opcode, operands: &[Instr], open: Span) -> PResult<()> {
        let n = operands.len();
        let message = match opcode {
            Opcode::Conditional if n == 0 => {
                "conditional requires at least one operand".to_string()
            }
            Opcode::ReduceWindow if n == 0 => {
                "reduce-window expects at least one input and init operand".to_string()
            }
            Opcode::ReduceWindow | Opcode::Reduce if !n.is_multiple_of(2) => {
                format!("expects an even number of operands, but has {n} operands")
            }
            Opcode::Scatter if n.is_multiple_of(2) => {
                format!("expects an odd number of operands, but has {n} operands")
            }
            Opcode::DynamicSlice if n == 0 => "Expected at least one operand.".to_string(),
            Opcode::DynamicUpdateSlice if n < 2 => "Expected at least two operands.".to_string(),
            Opcode::Convolution if n < 2 => format!("expects at least 2 operands, but has {n}"),
            _ => return Ok(()),
        };
        Err(self.error_at(open, message))
    }

    /// XLA builds send, recv, their dones, after-all and add-dependency from their
    /// operands and ignores most of the written shape; this gives the shape XLA
    /// ends up with.
    fn derived_shape(&mut self, opcode: Opcode, operands: &[Instr], written: Shape) -> Shape {
        if !matches!(
            opcode,
            Opcode::Recv
                | Opcode::RecvDone
                | Opcode::Send
                | Opcode::SendDone
                | Opcode::AfterAll
                | Opcode::AddDependency
        ) {
            return written;
        }
        let operand_shapes: Vec<Shape> = operands.iter().map(|&o| self.operand_shape(o)).collect();
        let shapes = &mut self.m.shapes;
        let token = shapes.token();
        let context = shapes.array_with_default_layout(crate::ElementType::U32, &[]);
        let operand = |i: usize| operand_shapes.get(i).copied();
        let first_element = |shapes: &crate::shape::ShapeTable, s: Shape| {
            shapes.tuple_elements(s).and_then(|e| e.first().copied())
        };
        match opcode {
            Opcode::Recv => match first_element(shapes, written) {
                Some(data) => shapes.tuple(&[data, context, token]),
                None => written,
            },
            Opcode::RecvDone => match operand(0).and_then(|s| first_element(shapes, s)) {
                Some(data) => shapes.tuple(&[data, token]),
                None => written,
            },
            Opcode::Send => match operand(0) {
                Some(data) => shapes.tuple(&[data, context, token]),
                None => written,
            },
            Opcode::SendDone | Opcode::AfterAll => token,
            Opcode::AddDependency => operand(0).unwrap_or(written),
            _ => written,
        }
    }

    /// The structural checks XLA's parser makes while building an instruction.
    fn check_operands_and_shape(
        &mut self,
        opcode: Opcode,
        operands: &[Instr],
        shape: Shape,
        opcode_span: Span,
        open: Span,
    ) -> PResult<()> {
        let text = |p: &Self, s: Shape| {
            let mut out = String::new();
            crate::text::shape::print_shape_without_layout(&p.m.shapes, &mut out, s);
            out
        };
        let non_empty_tuple =
            |p: &Self, s: Shape| p.m.shapes.tuple_elements(s).is_some_and(|e| !e.is_empty());
        match opcode {
            Opcode::Recv if !non_empty_tuple(self, shape) => {
                return Err(self
                    .error_at(opcode_span, "recv must have a non-empty tuple shape")
                    .with_hint("recv's shape is (data, u32[] context, token[])"));
            }
            Opcode::Infeed if !non_empty_tuple(self, shape) => {
                return Err(self
                    .error_at(opcode_span, "infeed must have a non-empty tuple shape")
                    .with_hint("infeed's shape is (data, token[])"));
            }
            Opcode::Reshape | Opcode::DynamicReshape => {
                if opcode == Opcode::DynamicReshape && operands.is_empty() {
                    return Err(
                        self.error_at(open, "DynamicReshape requires at least one operand.")
                    );
                }
                let Some(&first) = operands.first() else {
                    return Ok(());
                };
                let (Some(result), Some(input)) = (
                    self.m.shapes.as_array(shape),
                    self.m.shapes.as_array(self.operand_shape(first)),
                ) else {
                    return Ok(());
                };
                let unbounded =
                    |a: &crate::shape::ArrayShape| a.dims.contains(&crate::shape::UNBOUNDED);
                let count = |a: &crate::shape::ArrayShape| a.element_count();
                if !unbounded(input) && !unbounded(result) && count(input) != count(result) {
                    return Err(self.error_at(
                        opcode_span,
                        format!(
                            "expects the same number of elements in result shape {} and operand shape {}",
                            text(self, shape),
                            text(self, self.operand_shape(first))
                        ),
                    ));
                }
                if opcode == Opcode::DynamicReshape && operands.len() - 1 != result.rank() {
                    return Err(self.error_at(
                        open,
                        format!(
                            "expects one dim size operand per result dimension; got {} for {} result dimensions",
                            operands.len() - 1,
                            result.rank()
                        ),
                    ));
                }
            }
            Opcode::Conditional => {
                let Some(&selector) = operands.first() else {
                    return Err(self.error_at(open, "conditional requires at least one operand"));
                };
                match self.m.shapes.as_array(self.operand_shape(selector)) {
                    Some(a) if a.rank() == 0 => {
                        if !matches!(a.elem, crate::ElementType::Pred | crate::ElementType::S32) {
                            return Err(self.error_at(
                                open,
                                "The first operand must be a scalar of PRED or S32",
                            ));
                        }
                    }
                    _ => return Err(self.error_at(open, "The first operand must be a scalar")),
                }
            }
            _ => {}
        }
        Ok(())
    }
}

fn first_class_names(op: Opcode) -> &'static str {
    match op {
        Opcode::AllGather => "all-gather-start / all-gather-done",
        Opcode::AllReduce => "all-reduce-start / all-reduce-done",
        Opcode::CollectivePermute => "collective-permute-start / collective-permute-done",
        Opcode::Copy => "copy-start / copy-done",
        Opcode::Send => "send / send-done",
        Opcode::Recv => "recv / recv-done",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::reserved_name_fix;

    #[test]
    fn reserved_names_get_the_fix_xla_suggests() {
        let cases = [
            ("f32", Some("f32_")),
            ("pred", Some("pred_")),
            ("bf16", Some("bf16_")),
            ("opaque_type", Some("opaque_type_")),
            ("token", Some("token_")),
            ("__foo", Some("a_foo")),
            ("__", Some("a_")),
            ("__xla_foo", None),
            ("__xla_", None),
            ("_foo", None),
            ("f32x", None),
            ("F32", None),
            ("add.1", None),
            ("s32.1", None),
            ("", None),
        ];
        for (name, fix) in cases {
            assert_eq!(reserved_name_fix(name).as_deref(), fix, "{name:?}");
        }
    }
}

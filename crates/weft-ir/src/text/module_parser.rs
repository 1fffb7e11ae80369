//! Modules and computations: the `HloModule` header and its attributes, the
//! stack-frame tables, computation definitions (named and inline), and the
//! module-level finishing steps (entry, schedule, entry layout).

use crate::diagnostic::Span;
use crate::module::{Comp, Schedule};
use crate::module_config::{AliasKind, BufferDonor, InputOutputAlias, ProgramShape};
use crate::shape::Shape;
use crate::stack_frames::{FileLocation, StackFrame, StackFrames};
use crate::text::fast::byte_scan::TextKey;
use crate::text::lexer::{Tok, Token};
use crate::text::parser::{MAX_RECYCLED_SCOPE, PResult, Parser, Scope};
use compact_str::CompactString;

impl<'s> Parser<'s> {
    /// A whole module: with or without the `HloModule` header.
    pub(crate) fn module(&mut self) -> PResult<()> {
        let has_header = self.at_word("HloModule");
        if has_header {
            self.bump();
            let name = match self.kind() {
                Tok::Ident | Tok::Name => {
                    let t = self.bump();
                    self.text(t).trim_start_matches('%').to_string()
                }
                _ => {
                    return Err(
                        self.error(format!("expected the module name, found {}", self.found()))
                    );
                }
            };
            self.m.name = name;
            self.module_attributes()?;
            if self.at_word("FileNames") {
                self.stack_frames()?;
            }
        } else if !(self.at_word("ENTRY") || self.at(Tok::Ident) && self.peek().kind == Tok::LBrace)
        {
            if self.at(Tok::Eof) {
                return Err(self.error("empty input: expected an HLO module"));
            }
            return Err(self
                .error(format!("expected 'HloModule' or a computation, found {}", self.found()))
                .with_hint("an HLO text starts with `HloModule name`, or with `ENTRY name {` / `name {` for a header-less module"));
        }
        while !self.at(Tok::Eof) {
            self.computation()?;
        }
        if self.m.comp_order.is_empty() {
            return Err(self.error("the module has no computations"));
        }
        self.finish_module(has_header)
    }

    fn module_attributes(&mut self) -> PResult<()> {
        let mut seen: Vec<&str> = Vec::new();
        while self.eat(Tok::Comma) {
            if !self.at(Tok::AttrName) {
                return Err(self.error(format!(
                    "expected a module attribute like replica_count=2, found {}",
                    self.found()
                )));
            }
            let name = self.cur_text();
            let span = self.span();
            if seen.contains(&name) {
                return Err(self.error(format!("attribute {name} already exists")));
            }
            seen.push(name);
            self.bump();
            match name {
                "is_scheduled" => {
                    if self.bool()? {
                        self.m.phase = crate::module::Phase::Scheduled;
                    }
                }
                "replica_count" => self.m.config.replica_count = Some(self.int()?),
                "num_partitions" => self.m.config.num_partitions = Some(self.int()?),
                "alias_passthrough_params" => {
                    self.m.config.alias_passthrough_params = self.bool()?;
                }
                "input_output_alias" => {
                    self.m.config.input_output_alias = self.input_output_alias()?;
                }
                "buffer_donor" => self.m.config.buffer_donor = self.buffer_donor()?,
                "entry_computation_layout" => {
                    self.m.config.entry_computation_layout = Some(self.computation_layout()?);
                }
                "allow_spmd_sharding_propagation_to_parameters" => {
                    self.m.config.allow_spmd_sharding_propagation_to_parameters =
                        Some(self.bool_list_or_bool()?);
                }
                "allow_spmd_sharding_propagation_to_output" => {
                    self.m.config.allow_spmd_sharding_propagation_to_output =
                        Some(self.bool_list_or_bool()?);
                }
                "frontend_attributes" => {
                    self.m.config.frontend_attributes = Some(self.frontend_attributes()?);
                }
                "origin_recovery_table" | "debug_attributes" => {
                    let raw_span = self.span();
                    let raw = self.raw_braced()?.to_string();
                    if name == "debug_attributes" {
                        check_debug_log_modes(&raw).map_err(|e| self.error_at(raw_span, e))?;
                    }
                    self.m.config.raw.push((name.to_string(), raw));
                }
                _ => {
                    return Err(self
                        .error_at(span, format!("unexpected attribute \"{name}\""))
                        .with_hint("module attributes are is_scheduled, input_output_alias, buffer_donor, alias_passthrough_params, entry_computation_layout, allow_spmd_sharding_propagation_to_parameters/_to_output, replica_count, num_partitions, frontend_attributes, origin_recovery_table and debug_attributes"));
                }
            }
        }
        Ok(())
    }

    /// `{ {0}: (0, {}, may-alias), … }`.
    fn input_output_alias(&mut self) -> PResult<Vec<InputOutputAlias>> {
        self.expect(Tok::LBrace, "'{' at the start of aliasing description")?;
        let mut entries = Vec::new();
        if self.eat(Tok::RBrace) {
            return Ok(entries);
        }
        loop {
            if !self.at(Tok::LBrace) {
                return Err(self.error("Expects '{' at the start of ShapeIndex"));
            }
            let output_index = self.shape_index()?;
            self.expect(Tok::Colon, "':' after the output index")?;
            self.expect(Tok::LParen, "'(' before the parameter number")?;
            let parameter = self.int()?;
            self.expect(Tok::Comma, "',' after the parameter number")?;
            let parameter_index = self.shape_index()?;
            let kind = if self.eat(Tok::Comma) {
                let span = self.span();
                let word = self.ident("may-alias or must-alias")?;
                Some(match word {
                    "may-alias" => AliasKind::May,
                    "must-alias" => AliasKind::Must,
                    _ => {
                        return Err(self
                            .error_at(span, format!("Unexpected aliasing kind '{word}'"))
                            .with_hint("the kind is may-alias or must-alias"));
                    }
                })
            } else {
                None
            };
            self.expect(Tok::RParen, "')' closing the aliased parameter")?;
            entries.push(InputOutputAlias {
                output_index,
                parameter,
                parameter_index,
                kind,
            });
            if self.eat(Tok::Comma) {
                continue;
            }
            if !self.at(Tok::RBrace) {
                return Err(self.error("Expects '}' at the end of aliasing description"));
            }
            self.bump();
            return Ok(entries);
        }
    }

    /// `{ (0, {}), (1, {0}) }`.
    fn buffer_donor(&mut self) -> PResult<Vec<BufferDonor>> {
        self.expect(Tok::LBrace, "'{' at the start of buffer donors")?;
        let mut entries = Vec::new();
        if self.eat(Tok::RBrace) {
            return Ok(entries);
        }
        loop {
            self.expect(Tok::LParen, "'(' before the parameter number")?;
            let parameter = self.int()?;
            self.expect(Tok::Comma, "',' after the parameter number")?;
            let parameter_index = self.shape_index()?;
            self.expect(Tok::RParen, "')' closing the buffer donor")?;
            entries.push(BufferDonor {
                parameter,
                parameter_index,
            });
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RBrace, "',' or '}' in buffer donors")?;
            return Ok(entries);
        }
    }

    /// `{0,1}` as a shape index.
    fn shape_index(&mut self) -> PResult<Vec<i64>> {
        if !self.at(Tok::LBrace) {
            return Err(self.error("Expects '{' at the start of ShapeIndex"));
        }
        self.bump();
        let mut index = Vec::new();
        if self.eat(Tok::RBrace) {
            return Ok(index);
        }
        loop {
            if !self.at(Tok::Int) {
                return Err(self.error(format!("expects integer, found {}", self.found())));
            }
            index.push(self.int()?);
            if self.eat(Tok::Comma) {
                continue;
            }
            if !self.at(Tok::RBrace) {
                return Err(self.error("Expects '}' at the end of ShapeIndex"));
            }
            self.bump();
            return Ok(index);
        }
    }

    /// `{(p0, p1)->result}`.
    fn computation_layout(&mut self) -> PResult<ProgramShape> {
        self.expect(Tok::LBrace, "'{' at the start of the computation layout")?;
        self.expect(Tok::LParen, "'(' before the parameter shape list")?;
        let mut parameters = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                parameters.push(self.shape()?);
                if self.eat(Tok::Comma) {
                    continue;
                }
                self.expect(Tok::RParen, "')' at the end of the parameter shape list")?;
                break;
            }
        }
        self.expect(Tok::Arrow, "'->' before the result shape")?;
        let result = self.shape()?;
        self.expect(Tok::RBrace, "'}' at the end of the computation layout")?;
        Ok(ProgramShape { parameters, result })
    }

    fn stack_frames(&mut self) -> PResult<()> {
        let mut frames = StackFrames::default();
        self.bump(); // FileNames
        while self.at(Tok::Int) {
            let id = self.int()?;
            frames.file_names.push((id, self.string()?));
        }
        if !self.eat_word("FunctionNames") {
            return Err(self.error("expects 'FunctionNames'"));
        }
        while self.at(Tok::Int) {
            let id = self.int()?;
            frames.function_names.push((id, self.string()?));
        }
        if !self.eat_word("FileLocations") {
            return Err(self.error("expects 'FileLocations'"));
        }
        while self.at(Tok::Int) {
            let id = self.int()?;
            let fields = self.int_fields([
                "file_name_id",
                "function_name_id",
                "line",
                "end_line",
                "column",
                "end_column",
            ])?;
            frames.file_locations.push((
                id,
                FileLocation {
                    file_name_id: fields[0],
                    function_name_id: fields[1],
                    line: fields[2],
                    end_line: fields[3],
                    column: fields[4],
                    end_column: fields[5],
                },
            ));
        }
        if !self.eat_word("StackFrames") {
            return Err(self.error("expects 'StackFrames'"));
        }
        while self.at(Tok::Int) {
            let id = self.int()?;
            let fields = self.int_fields(["file_location_id", "parent_frame_id"])?;
            frames.frames.push((
                id,
                StackFrame {
                    file_location_id: fields[0],
                    parent_frame_id: fields[1],
                },
            ));
        }
        self.m.stack_frames = Some(frames);
        Ok(())
    }

    /// `{a=1 b=2 …}` with exactly the named integer fields, in any order.
    fn int_fields<const N: usize>(&mut self, names: [&str; N]) -> PResult<[i64; N]> {
        // The stack-frame tables run to thousands of entries, nearly all
        // printed as XLA prints them: those are read straight from the bytes.
        if self.byte_readers
            && self.at(Tok::LBrace)
            && let Some((values, end)) =
                scan_int_fields(self.src.as_bytes(), self.tok.start as usize, &names)
        {
            self.seek(end);
            return Ok(values);
        }
        self.expect(Tok::LBrace, "'{'")?;
        let mut values: [Option<i64>; N] = [None; N];
        while !self.at(Tok::RBrace) {
            self.eat(Tok::Comma);
            let span = self.span();
            if !self.at(Tok::AttrName) {
                return Err(self.error(format!("expected a field, found {}", self.found())));
            }
            let name = self.cur_text();
            let Some(i) = names.iter().position(|&n| n == name) else {
                return Err(self
                    .error_at(span, format!("unexpected field '{name}'"))
                    .with_hint(format!("fields are {}", names.join(", "))));
            };
            self.bump();
            values[i] = Some(self.int()?);
        }
        let close = self.span();
        self.bump();
        let mut fields = [0; N];
        for ((field, value), name) in fields.iter_mut().zip(values).zip(names) {
            *field = value.ok_or_else(|| {
                self.error_at(
                    close,
                    format!("sub-attribute {name} is expected but not seen"),
                )
                .with_label(format!("{name}=… missing"))
            })?;
        }
        Ok(fields)
    }

    /// `[ENTRY] name [(params) -> shape] { … } [, execution_thread="t"]`.
    fn computation(&mut self) -> PResult<Comp> {
        let entry_span = self.span();
        let is_entry = self.eat_word("ENTRY");
        if is_entry && self.marked_entry.is_some() {
            return Err(self.error_at(entry_span, "expects only one ENTRY"));
        }
        let name_span = self.span();
        let name = match self.kind() {
            Tok::Ident => self.ident("a computation name")?,
            _ => {
                return Err(self.error(format!(
                    "expected a computation name, found {}",
                    self.found()
                )));
            }
        };
        if let Some(&previous) = self.comp_names.get(&TextKey(name)) {
            let mut d = self.error_at(name_span, format!("computation already exists: {name}"));
            if let Some(prev) = self.spans.comp(previous) {
                let at = crate::diagnostic::line_col(self.src, prev.start as usize);
                d = d.with_hint(format!(
                    "computation previously defined here: line {}, column {}",
                    at.line, at.col
                ));
            }
            return Err(d);
        }
        // The signature is read and checked against the root; XLA ignores its
        // parameter list.
        let mut declared_result = None;
        if let Some((span, shape, result_end)) = self.direct_signature() {
            // The `{` follows the result shape after one space.
            let brace = result_end + 1;
            self.set_token(
                Token {
                    kind: Tok::LBrace,
                    start: brace as u32,
                    end: brace as u32 + 1,
                },
                result_end,
                brace + 1,
            );
            declared_result = Some((span, shape));
        } else if self.at(Tok::LParen) {
            self.bump();
            if !self.eat(Tok::RParen) {
                loop {
                    if !self.at(Tok::Name) {
                        return Err(self.error(format!(
                            "expected a parameter like `name: shape`, found {}",
                            self.found()
                        )));
                    }
                    self.bump();
                    self.shape_with(false)?;
                    if self.eat(Tok::Comma) {
                        continue;
                    }
                    self.expect(Tok::RParen, "',' or ')' in the parameter list")?;
                    break;
                }
            }
            self.expect(Tok::Arrow, "'->' before the result shape")?;
            let span = self.span();
            declared_result = Some((span, self.shape_with(false)?));
        }
        let comp = self.m.add_comp(name);
        self.spans.record_comp(comp, name_span);
        self.comp_names.insert(CompactString::new(name), comp);
        self.computation_body(comp)?;
        if let Some((span, declared)) = declared_result
            && let Some(root) = self.m.comps[comp].root
        {
            let actual = self.m.shape_of(root);
            if !crate::shape_util::compatible(&self.m.shapes, declared, actual) {
                let mut d = String::new();
                crate::text::shape::print_shape_without_layout(&self.m.shapes, &mut d, declared);
                let mut a = String::new();
                crate::text::shape::print_shape_without_layout(&self.m.shapes, &mut a, actual);
                let root_name = self.m.instrs[root].name.clone();
                return Err(self.error_at(
                    span,
                    format!(
                        "Shape of computation {name}, {d}, is not compatible with that of its root instruction {root_name}, {a}"
                    ),
                ));
            }
        }
        if self.eat(Tok::Comma) {
            if !(self.at(Tok::AttrName) && self.cur_text() == "execution_thread") {
                return Err(self.error(format!(
                    "expected execution_thread=\"…\" after the computation, found {}",
                    self.found()
                )));
            }
            self.bump();
            let thread = self.string()?;
            if thread != crate::module::MAIN_THREAD {
                self.m.comps[comp].execution_thread = Some(thread);
            }
        }
        if is_entry {
            self.marked_entry = Some(comp);
        }
        Ok(comp)
    }

    /// At the `(` of a computation's signature: `(name: shape, …) -> shape {`
    /// as XLA prints it, every shape seen before, read from the bytes. Gives
    /// the span of the result shape's first token, the shape and where its
    /// text ends (one space before the `{`); `None` leaves anything else to
    /// the tokens.
    fn direct_signature(&self) -> Option<(Span, Shape, usize)> {
        if !self.byte_readers || !self.at(Tok::LParen) {
            return None;
        }
        let bytes = self.src.as_bytes();
        // Signatures keep shapes as written, without default layouts.
        let cached = |start: usize| self.cached_shape_at(start, false);
        let mut at = self.tok.end as usize;
        if bytes.get(at) == Some(&b')') {
            at += 1;
        } else {
            loop {
                let name_end = crate::text::lexer::param_name_end(bytes, at)?;
                if bytes.get(name_end + 1) != Some(&b' ') {
                    return None;
                }
                let (_, shape_end) = cached(name_end + 2)?;
                match bytes.get(shape_end..shape_end + 2)? {
                    b", " => at = shape_end + 2,
                    [b')', _] => {
                        at = shape_end + 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        if !bytes.get(at..)?.starts_with(b" -> ") {
            return None;
        }
        let result_start = at + 4;
        let (result, result_end) = cached(result_start)?;
        if !bytes.get(result_end..)?.starts_with(b" {") {
            return None;
        }
        // The result shape's first token: `(` of a tuple, or the element type.
        let first_end = match bytes[result_start] {
            b'(' => result_start + 1,
            _ => crate::text::lexer::ident_run_end(bytes, result_start),
        };
        Some((Span::new(result_start, first_end), result, result_end))
    }

    /// The line count the survey found for the body whose `{` is at `open`.
    /// Bodies are parsed in text order; an inline computation's body, which the
    /// survey does not see, leaves the cursor where it is.
    fn surveyed_lines(&mut self, open: u32) -> Option<usize> {
        while let Some(&(at, lines)) = self.body_lines.get(self.next_body) {
            if at > open {
                return None;
            }
            self.next_body += 1;
            if at == open {
                return Some(lines as usize);
            }
        }
        None
    }

    /// `{ instruction* }` for `comp`, then the computation is finished.
    pub(crate) fn computation_body(&mut self, comp: Comp) -> PResult<()> {
        let open = self.expect(Tok::LBrace, "'{' starting the computation body")?;
        let mut names = self.spare_scope_names.pop().unwrap_or_default();
        if let Some(lines) = self.surveyed_lines(open.start) {
            // Grown by doubling, a body's list would be allocated three or four
            // times over for a body of ten lines, and a body of tens of
            // thousands would touch twice its final size in fresh pages. Its
            // name table, grown by doubling, would hash every name again at
            // each step, reading it from its instruction: a module of five big
            // bodies took nearly twice as long to parse. (A recycled table has
            // room for a small body already.)
            self.m.comps[comp].body.reserve(lines);
            names.reserve(lines, &self.m.instrs);
        }
        self.scopes.push(Scope {
            comp,
            names,
            synthetic: Default::default(),
            root: None,
        });
        if self.at(Tok::RBrace) {
            return Err(self.error("a computation needs at least one instruction"));
        }
        while !self.eat(Tok::RBrace) {
            if self.at(Tok::Eof) {
                return Err(self.error("expected '}' closing the computation, found end of input"));
            }
            if self.parsed_ahead.is_some() && self.take_in_parsed_ahead()? {
                continue;
            }
            self.instruction()?;
        }
        let mut scope = self.scopes.pop().expect("pushed above");
        // Most modules are many small computations: their name maps are reused
        // rather than grown from empty each time. A big one is dropped, since
        // clearing it for every later small computation would cost more.
        if scope.names.capacity() <= MAX_RECYCLED_SCOPE {
            scope.names.clear();
            self.spare_scope_names
                .push(std::mem::take(&mut scope.names));
        }
        let root = scope
            .root
            .or_else(|| self.m.comps[comp].body.last().copied());
        self.m.comps[comp].root = root;
        self.finish_computation(comp)
    }

    /// `{ … }` used as an attribute value: a computation named `_`.
    pub(crate) fn inline_computation(&mut self) -> PResult<Comp> {
        let span = self.span();
        let comp = self.m.add_comp("_");
        self.spans.record_comp(comp, span);
        self.nested(|p| p.computation_body(comp))?;
        Ok(comp)
    }

    /// Checks parameters and gives the computation's names their module-unique
    /// form, in body order (what XLA does when a computation joins the module).
    pub(crate) fn finish_computation(&mut self, comp: Comp) -> PResult<()> {
        let data = &self.m.comps[comp];
        for (i, &p) in data.params.iter().enumerate() {
            let number = match &self.m.instrs[p].attrs {
                crate::attrs::Attrs::Parameter(a) => a.number,
                _ => -1,
            };
            if number != i as i64 {
                let span = self.spans.comp(comp).unwrap_or_default();
                return Err(self
                    .error_at(
                        span,
                        format!(
                            "computation {} has no parameter({i}) but has parameter({})",
                            data.name,
                            data.params.len() - 1
                        ),
                    )
                    .with_hint("parameter numbers must run 0, 1, 2, … without gaps"));
            }
        }
        self.comp_uniquer.make_unique(&mut self.m.comps[comp].name);
        let body = std::mem::take(&mut self.m.comps[comp].body);
        self.instr_names
            .register_body(&mut self.m.instrs, &body, &self.name_keys);
        self.m.comps[comp].body = body;
        for &instr in &self.m.comps[comp].body {
            // The module's async checks need only these, so they are noted here
            // rather than found by walking every instruction again.
            let data = &self.m.instrs[instr];
            if data.opcode.is_generic_async() {
                self.async_instrs.push(instr);
            } else if !data.callees.is_empty() {
                self.callers.push(instr);
            }
        }
        self.finished.push(comp);
        Ok(())
    }

    fn finish_module(&mut self, has_header: bool) -> PResult<()> {
        // Computations join the module in the order their parsing finished.
        self.m.comp_order = self.finished.clone();
        let entry = self
            .marked_entry
            .or_else(|| self.m.comp_order.last().copied());
        self.m.entry = entry;
        let Some(entry) = entry else {
            return Ok(());
        };
        if !has_header {
            self.m.name = format!("module_{}", self.m.comps[entry].name);
        }
        self.m.fill_entry_computation_layout();
        if self.m.is_scheduled() {
            let fusion_computations: rustc_hash::FxHashSet<Comp> = self
                .m
                .instrs
                .values()
                .filter(|i| i.opcode == crate::opcode::Opcode::Fusion)
                .flat_map(|i| i.callees.iter().copied())
                .collect();
            let mut schedule = Schedule::default();
            for &comp in &self.m.comp_order {
                if fusion_computations.contains(&comp) {
                    continue;
                }
                schedule.set_sequence(comp, self.m.comps[comp].body.clone());
            }
            self.m.schedule = schedule;
        }
        self.check_async_callers()?;
        self.check_async_chains()?;
        Ok(())
    }

    /// An `async-update`/`async-done` with `calls=` is reached by an async-start
    /// of that computation (through the intermediaries [`ChainTracer`] follows):
    /// the printer drops `calls=` from sugared updates and dones, so a chain it
    /// cannot trace would not read back.
    ///
    /// [`ChainTracer`]: crate::async_chain::ChainTracer
    fn check_async_chains(&mut self) -> PResult<()> {
        use crate::opcode::Opcode;
        if self.async_instrs.is_empty() {
            return Ok(());
        }
        let mut tracer = crate::async_chain::ChainTracer::new(&self.m);
        for &i in &self.async_instrs {
            let data = &self.m.instrs[i];
            if !matches!(data.opcode, Opcode::AsyncUpdate | Opcode::AsyncDone) {
                continue;
            }
            let Some(&callee) = data.callees.first() else {
                continue;
            };
            // One step back, as a sugared update or done binds on reading
            // (a walk to the start would be quadratic in the chain length).
            let producer = data.operands.first().and_then(|&o| tracer.producer(o, &[]));
            if producer.and_then(|p| tracer.wrapped_computation(p)) != Some(callee) {
                let span = self.spans.instr(i).unwrap_or_default();
                return Err(self
                    .error_at(
                        span,
                        format!(
                            "{} {} is not reached by an async-start of computation {}",
                            data.opcode.name(),
                            data.name,
                            self.m.comps[callee].name
                        ),
                    )
                    .with_hint("its operand must come from the async-start or async-update before it (directly or through tuples, get-tuple-elements, copies, optimization barriers or while loops)"));
            }
        }
        Ok(())
    }

    /// Every async wrapped computation is called only by async instructions.
    fn check_async_callers(&mut self) -> PResult<()> {
        let async_comps: rustc_hash::FxHashSet<Comp> = self
            .async_instrs
            .iter()
            .flat_map(|&i| self.m.instrs[i].callees.iter().copied())
            .collect();
        if async_comps.is_empty() {
            return Ok(());
        }
        for &i in &self.callers {
            let data = &self.m.instrs[i];
            if let Some(&callee) = data.callees.iter().find(|c| async_comps.contains(c)) {
                let span = self.spans.instr(i).unwrap_or_default();
                return Err(self.error_at(
                    span,
                    format!(
                        "Async computation {} is called by non-async instruction {}.",
                        self.m.comps[callee].name, data.name
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The debug log modes XLA knows; `debug_attributes` is otherwise kept as text.
const DEBUG_LOG_MODES: [&str; 2] = ["default", "fusion_debugger"];

fn check_debug_log_modes(raw: &str) -> Result<(), String> {
    for (at, _) in raw.match_indices("log_mode=") {
        let value: String = raw[at + "log_mode=".len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !DEBUG_LOG_MODES.contains(&value.as_str()) {
            return Err(format!("Invalid debug_log_mode value: {value}"));
        }
    }
    Ok(())
}

/// Reads `{a=1 b=2 …}` at `start` with exactly `names`, in that order, one
/// space apart: the end of the text and the values, or `None` for anything
/// else (read token by token, which also produces the errors).
fn scan_int_fields<const N: usize>(
    bytes: &[u8],
    start: usize,
    names: &[&str; N],
) -> Option<([i64; N], usize)> {
    let mut values = [0; N];
    let mut i = start + 1;
    for (k, name) in names.iter().enumerate() {
        if k > 0 {
            if bytes.get(i) != Some(&b' ') {
                return None;
            }
            i += 1;
        }
        let rest = bytes.get(i..)?;
        if !rest.starts_with(name.as_bytes()) || rest.get(name.len()) != Some(&b'=') {
            return None;
        }
        let (value, end) = crate::text::parser::scan_int(bytes, i + name.len() + 1)?;
        values[k] = value;
        i = end;
    }
    (bytes.get(i) == Some(&b'}')).then_some((values, i + 1))
}

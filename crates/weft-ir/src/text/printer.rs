//! The HLO text printer: XLA's long form (weft's default: `%` names, operand shapes,
//! computation signatures, metadata), XLA's default form today (the long form
//! without operand shapes) and short form (XLA's `ShortParsable`), with async sugar
//! wherever XLA prints it.
//!
//! Order: computations in XLA's post-order (callees before callers, text order
//! among roots); a scheduled computation's instructions in schedule order, others
//! in XLA's post-order (each instruction without users starts a depth-first walk
//! that visits control predecessors, then operands left to right). Async wrapped
//! computations that are just their root and parameters are not printed when the
//! sugar is on; their async ops print as `<op>-start/-update/-done`.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::async_chain::{ChainTracer, is_single_instruction};
use crate::attrs::*;
use crate::literal::Literal;
use crate::module::{Comp, Instr, InstrData, Module};
use crate::opcode::Opcode;
use crate::order::PostOrder;
use crate::shape::Shape;
use crate::text::integers::{push_int, push_int_list, push_int_list_compact};
use crate::text::shape::{print_shape, print_shape_without_layout};

/// Long or short print style.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Style {
    /// XLA's long text: `%` names, operand shapes, signatures, metadata
    /// (`HloModule::ToString()` as it was until XLA stopped printing operand
    /// shapes by default).
    Long,
    /// XLA's default text today (`HloPrintOptions::Default()`): the long form
    /// without operand shapes, which is what XLA's FileCheck tests match.
    Default,
    /// XLA's `ShortParsable`: no `%`, no operand shapes, no signatures, no
    /// metadata, no control predecessors.
    Short,
}

/// How to print a module.
#[derive(Copy, Clone, Debug)]
pub struct PrintOptions {
    /// The style.
    pub style: Style,
    /// Print async ops around single-instruction computations as
    /// `<op>-start/-update/-done` (XLA's default).
    pub sugar: bool,
    /// Print every constant in full; otherwise arrays of more than ten elements
    /// and tuple constants print as `{...}`.
    pub large_constants: bool,
}

impl PrintOptions {
    /// The long form with sugar and all constants.
    pub fn long() -> Self {
        PrintOptions {
            style: Style::Long,
            sugar: true,
            large_constants: true,
        }
    }

    /// The short form with sugar and all constants.
    pub fn short() -> Self {
        PrintOptions {
            style: Style::Short,
            ..Self::long()
        }
    }
}

impl Default for PrintOptions {
    fn default() -> Self {
        Self::long()
    }
}

/// Whether `<op>-start` sugar for `comp` reads back: the parser refuses sugar
/// around parameters, constants, async ops and ops with first-class async forms
/// (`all-reduce-start` is its own opcode), so those wrappers print unsugared.
fn sugar_reads_back(m: &Module, comp: Comp) -> bool {
    m.comp(comp).root.is_some_and(|root| {
        let op = m.instr(root).opcode;
        !op.is_generic_async()
            && !op.has(crate::opcode::Flags::NO_ASYNC_SUGAR)
            && !matches!(op, Opcode::Parameter | Opcode::Constant)
    })
}

/// Prints `m` as HLO text.
pub fn print_module(m: &Module, options: &PrintOptions) -> String {
    let mut printer = Printer::new(m, options);
    printer.out.reserve(m.instrs.len() * 96 + 256);
    printer.module();
    printer.out
}

/// Prints `m` as HLO text to `sink`, a piece at a time (the whole text is never
/// held in memory).
pub fn write_module(
    m: &Module,
    options: &PrintOptions,
    sink: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut printer = Printer::new(m, options);
    printer.out.reserve(1 << 17);
    printer.sink = Some(sink);
    printer.module();
    printer.flush();
    match printer.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct Printer<'m> {
    m: &'m Module,
    options: PrintOptions,
    out: String,
    /// `%` names, signatures, metadata (every style but the short one).
    long: bool,
    /// Each operand's shape before its name (the long style only).
    operand_shapes: bool,
    tracer: ChainTracer<'m>,
    /// Async wrapped computations that print as sugar (and are skipped).
    sugared: FxHashSet<Comp>,
    /// Per async op, its wrapped computation when it prints as sugar.
    sugar_of: FxHashMap<Instr, Comp>,
    /// Per computation, its instructions in print order.
    orders: FxHashMap<Comp, Vec<Instr>>,
    /// Printed shapes, by shape index: a range of `shape_text`.
    shape_ranges: Vec<Option<(u32, u32)>>,
    shape_text: String,
    /// Where finished text goes; `None` keeps everything in `out`.
    sink: Option<&'m mut dyn std::io::Write>,
    /// The first write error, reported when printing ends.
    error: Option<std::io::Error>,
}

impl<'m> Printer<'m> {
    fn new(m: &'m Module, options: &PrintOptions) -> Self {
        Printer {
            m,
            options: *options,
            out: String::new(),
            long: options.style != Style::Short,
            operand_shapes: options.style == Style::Long,
            tracer: ChainTracer::new(m),
            sugared: FxHashSet::default(),
            sugar_of: FxHashMap::default(),
            orders: FxHashMap::default(),
            shape_ranges: vec![None; m.shapes.len()],
            shape_text: String::new(),
            sink: None,
            error: None,
        }
    }

    /// Hands the text printed so far to the sink once it is large.
    fn flush_if_large(&mut self) {
        if self.out.len() >= 1 << 16 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            if self.error.is_none()
                && let Err(e) = sink.write_all(self.out.as_bytes())
            {
                self.error = Some(e);
            }
            self.out.clear();
        }
    }

    fn shape(&mut self, shape: Shape) {
        use crate::entity::EntityRef;
        let index = shape.index();
        let (start, end) = match self.shape_ranges.get(index).copied().flatten() {
            Some(range) => range,
            None => {
                let start = self.shape_text.len() as u32;
                print_shape(&self.m.shapes, &mut self.shape_text, shape);
                let range = (start, self.shape_text.len() as u32);
                if let Some(slot) = self.shape_ranges.get_mut(index) {
                    *slot = Some(range);
                }
                range
            }
        };
        self.out
            .push_str(&self.shape_text[start as usize..end as usize]);
    }

    fn name(&mut self, name: &str) {
        if self.long {
            self.out.push('%');
        }
        self.out.push_str(name);
    }

    fn comp_name(&mut self, comp: Comp) {
        let name = &self.m.comp(comp).name;
        if self.long {
            self.out.push('%');
        }
        self.out.push_str(name);
    }

    fn module(&mut self) {
        let m = self.m;
        let mut walker = PostOrder::new(m);
        for &comp in &m.comp_order {
            let order = match m.schedule.sequence(comp) {
                Some(sequence) => sequence.to_vec(),
                None => walker.order(comp),
            };
            self.orders.insert(comp, order);
        }
        self.find_sugar();
        self.header();
        for comp in self.computation_order() {
            if self.sugared.contains(&comp) {
                continue;
            }
            self.computation(comp);
            self.out.push_str("\n\n");
        }
    }

    /// Decides which async ops print as sugar.
    fn find_sugar(&mut self) {
        if !self.options.sugar {
            return;
        }
        for instr in self.m.all_instrs() {
            let data = self.m.instr(instr);
            if !data.opcode.is_generic_async() {
                continue;
            }
            if let Some(comp) = self.tracer.wrapped_computation(instr)
                && is_single_instruction(self.m, comp)
                && sugar_reads_back(self.m, comp)
            {
                self.sugar_of.insert(instr, comp);
                if data.opcode == Opcode::AsyncStart {
                    self.sugared.insert(comp);
                }
            }
        }
    }

    fn header(&mut self) {
        let m = self.m;
        let config = &m.config;
        self.out.push_str("HloModule ");
        self.out.push_str(&m.name);
        if m.is_scheduled() {
            self.out.push_str(", is_scheduled=true");
        }
        if !config.input_output_alias.is_empty() {
            let mut entries: Vec<&crate::module_config::InputOutputAlias> =
                config.input_output_alias.iter().collect();
            entries.sort_by(|a, b| a.output_index.cmp(&b.output_index));
            self.out.push_str(", input_output_alias={ ");
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                push_int_list(&mut self.out, &e.output_index);
                self.out.push_str(": (");
                push_int(&mut self.out, e.parameter);
                self.out.push_str(", ");
                push_int_list(&mut self.out, &e.parameter_index);
                self.out.push_str(match e.kind {
                    Some(crate::module_config::AliasKind::Must) => ", must-alias)",
                    _ => ", may-alias)",
                });
            }
            self.out.push_str(" }");
        }
        if !config.buffer_donor.is_empty() {
            let mut entries: Vec<&crate::module_config::BufferDonor> =
                config.buffer_donor.iter().collect();
            entries.sort_by(|a, b| {
                (a.parameter, &a.parameter_index).cmp(&(b.parameter, &b.parameter_index))
            });
            self.out.push_str(", buffer_donor={ ");
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push('(');
                push_int(&mut self.out, e.parameter);
                self.out.push_str(", ");
                push_int_list(&mut self.out, &e.parameter_index);
                self.out.push(')');
            }
            self.out.push_str(" }");
        }
        if config.alias_passthrough_params {
            self.out.push_str(", alias_passthrough_params=true");
        }
        if let Some(layout) = &config.entry_computation_layout {
            self.out.push_str(", entry_computation_layout={(");
            for (i, &p) in layout.parameters.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                    if i % 5 == 0 {
                        self.out.push_str("/*index=");
                        push_int(&mut self.out, i as i64);
                        self.out.push_str("*/");
                    }
                }
                self.shape(p);
            }
            self.out.push_str(")->");
            self.shape(layout.result);
            self.out.push('}');
        }
        for (name, value) in [
            (
                "allow_spmd_sharding_propagation_to_parameters",
                &config.allow_spmd_sharding_propagation_to_parameters,
            ),
            (
                "allow_spmd_sharding_propagation_to_output",
                &config.allow_spmd_sharding_propagation_to_output,
            ),
        ] {
            if let Some(values) = value
                && (values.len() != 1 || values.last() == Some(&true))
            {
                self.out.push_str(", ");
                self.out.push_str(name);
                self.out.push_str("={");
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.out.push_str(if *v { "true" } else { "false" });
                }
                self.out.push('}');
            }
        }
        if let Some(n) = config.replica_count
            && n != 1
        {
            self.out.push_str(", replica_count=");
            push_int(&mut self.out, n);
        }
        if let Some(n) = config.num_partitions
            && n != 1
        {
            self.out.push_str(", num_partitions=");
            push_int(&mut self.out, n);
        }
        if let Some(attrs) = &config.frontend_attributes
            && !attrs.entries.is_empty()
        {
            self.out.push_str(", frontend_attributes=");
            attrs.print(&mut self.out);
        }
        for (name, raw) in &config.raw {
            if name == "debug_attributes" {
                self.out.push_str(",\n");
            } else {
                self.out.push_str(", ");
            }
            self.out.push_str(name);
            self.out.push('=');
            self.out.push_str(raw);
            if name == "origin_recovery_table" {
                self.out.push('\n');
            }
        }
        if self.long
            && let Some(frames) = &m.stack_frames
        {
            self.out.push_str("\n\nFileNames\n");
            for (id, name) in &frames.file_names {
                push_int(&mut self.out, *id);
                self.out.push_str(" \"");
                crate::text::lexer::escape_into(&mut self.out, name);
                self.out.push_str("\"\n");
            }
            self.out.push_str("\nFunctionNames\n");
            for (id, name) in &frames.function_names {
                push_int(&mut self.out, *id);
                self.out.push_str(" \"");
                crate::text::lexer::escape_into(&mut self.out, name);
                self.out.push_str("\"\n");
            }
            self.out.push_str("\nFileLocations\n");
            for (id, l) in &frames.file_locations {
                self.out.push_str(&format!(
                    "{id} {{file_name_id={} function_name_id={} line={} end_line={} column={} end_column={}}}\n",
                    l.file_name_id, l.function_name_id, l.line, l.end_line, l.column, l.end_column
                ));
            }
            self.out.push_str("\nStackFrames\n");
            for (id, f) in &frames.frames {
                self.out.push_str(&format!(
                    "{id} {{file_location_id={} parent_frame_id={}}}\n",
                    f.file_location_id, f.parent_frame_id
                ));
            }
        }
        self.out.push_str("\n\n");
    }

    /// XLA's computation post-order: for each computation no instruction calls, in
    /// module order, the computations it reaches (depth first, callees before
    /// callers), then itself. Callees are visited in the order the instructions
    /// print (XLA uses insertion order, which is the same for canonical text; the
    /// print order keeps printing a fixed point for any input).
    fn computation_order(&self) -> Vec<Comp> {
        let m = self.m;
        let mut called: FxHashSet<Comp> = FxHashSet::default();
        for &c in &m.comp_order {
            for &i in &m.comp(c).body {
                called.extend(m.instr(i).callees.iter().copied());
            }
        }
        let mut emitted: FxHashSet<Comp> = FxHashSet::default();
        let mut order = Vec::with_capacity(m.comp_order.len());
        for &root in &m.comp_order {
            if called.contains(&root) {
                continue;
            }
            // Iterative DFS: (computation, next instruction, next callee).
            let mut stack: Vec<(Comp, usize, usize)> = vec![(root, 0, 0)];
            let mut visiting: FxHashSet<Comp> = FxHashSet::default();
            visiting.insert(root);
            while let Some(top) = stack.last_mut() {
                let (comp, instr_pos, callee_pos) = *top;
                let body = &self.orders[&comp];
                if instr_pos >= body.len() {
                    stack.pop();
                    if emitted.insert(comp) {
                        order.push(comp);
                    }
                    continue;
                }
                let callees = &m.instr(body[instr_pos]).callees;
                if callee_pos >= callees.len() {
                    top.1 += 1;
                    top.2 = 0;
                    continue;
                }
                top.2 += 1;
                let callee = callees[callee_pos];
                if !emitted.contains(&callee) && visiting.insert(callee) {
                    stack.push((callee, 0, 0));
                }
            }
        }
        // Computations reachable only through cycles (invalid, but printable).
        for &c in &m.comp_order {
            if emitted.insert(c) {
                order.push(c);
            }
        }
        order
    }

    fn computation(&mut self, comp: Comp) {
        let m = self.m;
        let data = m.comp(comp);
        if m.entry == Some(comp) {
            self.out.push_str("ENTRY ");
        }
        self.comp_name(comp);
        self.out.push(' ');
        if self.long {
            self.out.push('(');
            for (i, &p) in data.params.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(&m.instr(p).name);
                self.out.push_str(": ");
                print_shape_without_layout(&m.shapes, &mut self.out, m.shape_of(p));
            }
            self.out.push_str(") -> ");
            if let Some(root) = data.root {
                print_shape_without_layout(&m.shapes, &mut self.out, m.shape_of(root));
            }
            self.out.push(' ');
        }
        self.out.push_str("{\n");
        let order = self.orders.remove(&comp).unwrap_or_default();
        for instr in order {
            self.out.push_str("  ");
            if data.root == Some(instr) {
                self.out.push_str("ROOT ");
            }
            self.instruction(instr);
            self.out.push('\n');
            self.flush_if_large();
        }
        self.out.push('}');
        if let Some(thread) = &data.execution_thread {
            self.out.push_str(", execution_thread=\"");
            crate::text::lexer::escape_into(&mut self.out, thread);
            self.out.push('"');
        }
    }

    fn instruction(&mut self, instr: Instr) {
        let m = self.m;
        let data = m.instr(instr);
        self.name(&data.name);
        self.out.push_str(" = ");
        self.shape(data.shape);
        self.out.push(' ');
        let sugar = if data.opcode.is_generic_async() {
            self.sugar_of.get(&instr).copied()
        } else {
            None
        };
        let wrapped_root = sugar.and_then(|c| m.comp(c).root);
        match (sugar, wrapped_root) {
            (Some(_), Some(root)) => {
                self.out.push_str(m.instr(root).opcode.name());
                self.out.push_str(match data.opcode {
                    Opcode::AsyncStart => "-start",
                    Opcode::AsyncUpdate => "-update",
                    _ => "-done",
                });
            }
            _ => self.out.push_str(data.opcode.name()),
        }
        self.out.push('(');
        match &data.attrs {
            Attrs::Parameter(p) => push_int(&mut self.out, p.number),
            Attrs::Constant(literal) => {
                let large = match literal.as_ref() {
                    Literal::Array(a) => a.len() > 10,
                    Literal::Tuple(_) => true,
                    Literal::Elided => false,
                };
                if large && !self.options.large_constants {
                    self.out.push_str("{...}");
                } else {
                    crate::text::literal::print_literal(&mut self.out, literal);
                }
            }
            _ => {
                for (i, &operand) in data.operands.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                        if self.long && i % 5 == 0 {
                            self.out.push_str("/*index=");
                            push_int(&mut self.out, i as i64);
                            self.out.push_str("*/");
                        }
                    }
                    if self.operand_shapes {
                        self.shape(m.shape_of(operand));
                        self.out.push(' ');
                    }
                    self.name(&m.instr(operand).name);
                }
            }
        }
        self.out.push(')');
        match (data.opcode, wrapped_root) {
            (Opcode::AsyncStart, Some(root)) => {
                self.async_thread(data);
                // The wrapped instruction's attributes, as XLA prints them.
                let root_data = m.instr(root);
                self.family_attrs(root_data);
                self.callees(root_data);
                let own_frontend = data
                    .common()
                    .frontend_attributes
                    .as_ref()
                    .is_some_and(|f| !f.entries.is_empty());
                self.common_attrs_before_origin(root_data, !own_frontend);
                self.async_aliasing(data);
            }
            (Opcode::AsyncStart, None) => {
                self.async_thread(data);
                self.async_aliasing(data);
                self.callees(data);
            }
            (Opcode::AsyncUpdate, _) => self.async_aliasing(data),
            (Opcode::AsyncDone, _) => {}
            _ => {
                self.family_attrs(data);
                self.callees(data);
            }
        }
        self.common_attrs_before_origin(data, true);
        self.common_attrs_after(data);
    }

    fn async_thread(&mut self, data: &InstrData) {
        if let Attrs::Async(a) = &data.attrs
            && let Some(thread) = &a.thread
            && thread != crate::module::MAIN_THREAD
        {
            self.out.push_str(", async_execution_thread=\"");
            crate::text::lexer::escape_into(&mut self.out, thread);
            self.out.push('"');
        }
    }

    fn async_aliasing(&mut self, data: &InstrData) {
        if let Attrs::Async(a) = &data.attrs {
            self.aliasing(&a.output_to_operand_aliasing);
        }
    }

    fn aliasing(&mut self, aliasing: &[OutputOperandAlias]) {
        if aliasing.is_empty() {
            return;
        }
        self.out.push_str(", output_to_operand_aliasing={");
        for (i, a) in aliasing.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            push_int_list(&mut self.out, &a.output);
            self.out.push_str(": (");
            push_int(&mut self.out, a.operand);
            self.out.push_str(", ");
            push_int_list(&mut self.out, &a.operand_index);
            self.out.push(')');
        }
        self.out.push('}');
    }

    fn int_attr(&mut self, name: &str, value: i64) {
        self.out.push_str(", ");
        self.out.push_str(name);
        self.out.push('=');
        push_int(&mut self.out, value);
    }

    fn list_attr(&mut self, name: &str, values: &[i64]) {
        self.out.push_str(", ");
        self.out.push_str(name);
        self.out.push('=');
        push_int_list(&mut self.out, values);
    }

    fn flag_attr(&mut self, name: &str, value: bool) {
        if value {
            self.out.push_str(", ");
            self.out.push_str(name);
            self.out.push_str("=true");
        }
    }

    fn string_attr(&mut self, name: &str, value: &str) {
        self.out.push_str(", ");
        self.out.push_str(name);
        self.out.push_str("=\"");
        crate::text::lexer::escape_into(&mut self.out, value);
        self.out.push('"');
    }

    fn word_attr(&mut self, name: &str, value: &str) {
        self.out.push_str(", ");
        self.out.push_str(name);
        self.out.push('=');
        self.out.push_str(value);
    }

    fn window_attr(&mut self, window: &Option<Window>) {
        if let Some(w) = window
            && !w.dims.is_empty()
        {
            self.out.push_str(", window={");
            w.print(&mut self.out);
            self.out.push('}');
        }
    }

    /// The opcode-specific attributes, in XLA's order.
    fn family_attrs(&mut self, data: &InstrData) {
        let m = self.m;
        match &data.attrs {
            Attrs::Plain(_) | Attrs::Parameter(_) | Attrs::Constant(_) => {
                if let Attrs::Parameter(p) = &data.attrs
                    && let Some(replication) = &p.replication
                {
                    self.out.push_str(", parameter_replication={");
                    for (i, r) in replication.iter().enumerate() {
                        if i > 0 {
                            self.out.push(',');
                        }
                        self.out.push_str(if *r { "true" } else { "false" });
                    }
                    self.out.push('}');
                }
                if let Attrs::Plain(PlainAttrs {
                    inferred_dimension: Some(d),
                }) = &data.attrs
                    && *d != -1
                {
                    self.int_attr("inferred_dimension", *d);
                }
            }
            Attrs::GetTupleElement { index } => self.int_attr("index", *index),
            Attrs::Dimensions { dimensions } => {
                if data.opcode == Opcode::Map {
                    let rank = m.shapes.as_array(data.shape).map_or(0, |a| a.rank());
                    let iota: Vec<i64> = (0..rank as i64).collect();
                    self.list_attr("dimensions", &iota);
                } else {
                    self.list_attr("dimensions", dimensions);
                }
            }
            Attrs::Sort {
                dimension,
                is_stable,
            } => {
                self.list_attr("dimensions", &[*dimension]);
                self.flag_attr("is_stable", *is_stable);
            }
            Attrs::Compare {
                direction,
                compare_type,
            } => {
                self.word_attr("direction", direction.name());
                if let Some(t) = compare_type {
                    let default = data
                        .operands
                        .first()
                        .and_then(|&o| m.shapes.as_array(m.shape_of(o)))
                        .map(|a| CompareType::default_for(a.elem));
                    if default != Some(*t) {
                        self.word_attr("type", t.name());
                    }
                }
            }
            Attrs::Slice(ranges) => {
                self.out.push_str(", slice=");
                crate::text::attrs::print_slice_ranges(&mut self.out, ranges);
            }
            Attrs::DynamicSlice { sizes } => self.list_attr("dynamic_slice_sizes", sizes),
            Attrs::Pad(config) => {
                self.out.push_str(", padding=");
                config.print(&mut self.out);
            }
            Attrs::Iota { dimension } => self.int_attr("iota_dimension", *dimension),
            Attrs::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                self.int_attr("exponent_bits", *exponent_bits);
                self.int_attr("mantissa_bits", *mantissa_bits);
            }
            Attrs::Convolution(c) => {
                self.window_attr(&c.window);
                self.out.push_str(", dim_labels=");
                c.dims.print(&mut self.out);
                if c.feature_group_count != 1 {
                    self.int_attr("feature_group_count", c.feature_group_count);
                }
                if c.batch_group_count != 1 {
                    self.int_attr("batch_group_count", c.batch_group_count);
                }
                if let Some(kind) = &c.convolution_kind {
                    self.word_attr("convolution_kind", kind);
                }
                crate::text::attrs::print_precision(
                    &mut self.out,
                    &c.precision,
                    c.algorithm.as_deref(),
                );
                if let Some(s) = &c.sparsity_config {
                    self.word_attr("sparsity_config", s);
                }
            }
            Attrs::Dot(d) => {
                d.print_dims(&mut self.out);
                if !d.lhs_ragged.is_empty() {
                    self.list_attr("lhs_ragged_dims", &d.lhs_ragged);
                }
                if !d.rhs_group.is_empty() {
                    self.list_attr("rhs_group_dims", &d.rhs_group);
                }
                crate::text::attrs::print_precision(
                    &mut self.out,
                    &d.precision,
                    d.algorithm.as_deref(),
                );
            }
            Attrs::Gather(g) => g.print(&mut self.out),
            Attrs::Scatter(s) => s.print(&mut self.out),
            Attrs::Window(w) => self.window_attr(w),
            Attrs::Collective(c) => {
                if let Some(id) = c.channel_id {
                    self.int_attr("channel_id", id);
                }
                self.out.push_str(", replica_groups=");
                c.replica_groups.print(&mut self.out);
                self.flag_attr("constrain_layout", c.constrain_layout);
                match data.opcode {
                    Opcode::AllGather | Opcode::AllGatherStart => {
                        if let Some(d) = c.dimension {
                            self.list_attr("dimensions", &[d]);
                        }
                        self.flag_attr("use_global_device_ids", c.use_global_device_ids);
                    }
                    Opcode::ReduceScatter => {
                        self.flag_attr("use_global_device_ids", c.use_global_device_ids);
                        if let Some(d) = c.dimension {
                            self.list_attr("dimensions", &[d]);
                        }
                    }
                    Opcode::AllToAll => {
                        if let Some(d) = c.dimension {
                            self.list_attr("dimensions", &[d]);
                        }
                    }
                    Opcode::CollectiveBroadcast => {
                        let root = c.has_dynamic_root.unwrap_or(false);
                        self.word_attr("has_dynamic_root", if root { "true" } else { "false" });
                    }
                    Opcode::CollectiveReduce => {
                        self.flag_attr("use_global_device_ids", c.use_global_device_ids);
                        if let Some(root) = c.has_dynamic_root {
                            self.word_attr("has_dynamic_root", if root { "true" } else { "false" });
                        }
                    }
                    _ => self.flag_attr("use_global_device_ids", c.use_global_device_ids),
                }
            }
            Attrs::CollectivePermute(c) => {
                if let Some(id) = c.channel_id {
                    self.int_attr("channel_id", id);
                }
                self.out.push_str(", source_target_pairs={");
                for (i, (s, t)) in c.source_target_pairs.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    push_int_list(&mut self.out, &[*s, *t]);
                }
                self.out.push('}');
                if let Some(sizes) = &c.slice_sizes {
                    self.out.push_str(", slice_sizes={");
                    for (i, s) in sizes.iter().enumerate() {
                        if i > 0 {
                            self.out.push(',');
                        }
                        push_int_list(&mut self.out, s);
                    }
                    self.out.push('}');
                }
            }
            Attrs::SendRecv {
                channel_id,
                is_host_transfer,
            } => {
                if let Some(id) = channel_id {
                    self.int_attr("channel_id", *id);
                }
                self.flag_attr("is_host_transfer", *is_host_transfer);
            }
            Attrs::CustomCall(cc) => {
                self.window_attr(&cc.window);
                if let Some(labels) = &cc.dim_labels {
                    self.out.push_str(", dim_labels=");
                    labels.print(&mut self.out);
                }
                if let Some(n) = cc.feature_group_count
                    && n != 1
                {
                    self.int_attr("feature_group_count", n);
                }
                if let Some(n) = cc.batch_group_count
                    && n != 1
                {
                    self.int_attr("batch_group_count", n);
                }
                crate::text::attrs::print_precision(&mut self.out, &cc.precision, None);
                if let Some(p) = &cc.padding_type {
                    self.word_attr("padding_type", p);
                }
                self.string_attr("custom_call_target", &cc.target);
                if let Some(shapes) = &cc.operand_layout_constraints {
                    self.out.push_str(", operand_layout_constraints={");
                    for (i, &s) in shapes.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.shape(s);
                    }
                    self.out.push('}');
                }
                self.flag_attr("custom_call_has_side_effect", cc.has_side_effect);
                if let Some(literal) = &cc.literal {
                    self.out.push_str(", literal=");
                    self.literal_with_shape(literal);
                }
                self.aliasing(&cc.output_to_operand_aliasing);
                if let Some(s) = &cc.schedule {
                    self.word_attr("schedule", s);
                }
                if let Some(v) = &cc.api_version {
                    self.word_attr("api_version", v);
                }
            }
            Attrs::Fusion(f) => {
                self.word_attr("kind", f.kind.name());
                self.aliasing(&f.output_to_operand_aliasing);
            }
            Attrs::Call { .. } => {}
            Attrs::Async(_) => {}
            Attrs::CopyStart {
                cross_program_prefetch_index,
            } => {
                if let Some(i) = cross_program_prefetch_index {
                    self.int_attr("cross_program_prefetch_index", *i);
                }
            }
            Attrs::Rng { distribution } => self.word_attr("distribution", distribution.name()),
            Attrs::RngBitGenerator { algorithm } => self.word_attr("algorithm", algorithm.name()),
            Attrs::RngGetAndUpdateState { delta } => self.int_attr("delta", *delta),
            Attrs::Fft {
                fft_type,
                fft_length,
            } => {
                self.word_attr("fft_type", fft_type.name());
                self.list_attr("fft_length", fft_length);
            }
            Attrs::TriangularSolve(t) => {
                self.flag_attr("left_side", t.left_side);
                self.flag_attr("lower", t.lower);
                self.flag_attr("unit_diagonal", t.unit_diagonal);
                if !t.transpose_a.is_empty() && &*t.transpose_a != "TRANSPOSE_INVALID" {
                    self.word_attr("transpose_a", &t.transpose_a);
                }
            }
            Attrs::Cholesky { lower } => self.flag_attr("lower", *lower),
            Attrs::BatchNorm {
                epsilon,
                feature_index,
            } => {
                self.out.push_str(", epsilon=");
                self.out
                    .push_str(&crate::text::float::format_g(f64::from(*epsilon), 6));
                self.int_attr("feature_index", *feature_index);
            }
            Attrs::Infeed { config } => {
                if !config.is_empty() {
                    self.string_attr("infeed_config", config);
                }
            }
            Attrs::Outfeed(outfeed) => {
                let OutfeedAttrs {
                    outfeed_shape,
                    config,
                } = &**outfeed;
                let shape = outfeed_shape
                    .or_else(|| data.operands.first().map(|&o| m.shape_of(o)))
                    .unwrap_or(m.shapes.empty_tuple());
                self.out.push_str(", outfeed_shape=");
                self.shape(shape);
                if !config.is_empty() {
                    self.string_attr("outfeed_config", config);
                }
            }
            Attrs::TopK {
                k,
                largest,
                is_stable,
            } => {
                self.int_attr("k", *k);
                self.word_attr("largest", if *largest { "true" } else { "false" });
                self.word_attr("is_stable", if *is_stable { "true" } else { "false" });
            }
            Attrs::Scan(s) => {
                self.list_attr("dimensions", &[s.dimension]);
                self.int_attr("num_carries", s.num_carries);
                self.flag_attr("is_reverse", s.is_reverse);
                self.flag_attr("is_associative", s.is_associative);
            }
            Attrs::Domain(d) => {
                self.out.push_str(", domain={kind=\"");
                crate::text::lexer::escape_into(&mut self.out, &d.kind);
                self.out.push_str("\", entry=");
                d.entry.print(&mut self.out, false);
                self.out.push_str(", exit=");
                d.exit.print(&mut self.out, false);
                self.out.push('}');
            }
        }
    }

    fn literal_with_shape(&mut self, literal: &Literal) {
        match literal {
            Literal::Tuple(elements) => {
                self.out.push_str("( ");
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.literal_with_shape(e);
                }
                self.out.push_str(" )");
            }
            Literal::Array(a) => {
                let shape = {
                    // The literal's shape with the default layout, as it was parsed.
                    let mut text = String::new();
                    text.push_str(a.elem.name());
                    text.push('[');
                    push_int_list_compact(&mut text, &a.dims);
                    text.push(']');
                    if !a.dims.is_empty() {
                        text.push('{');
                        let m2m: Vec<i64> = (0..a.dims.len() as i64).rev().collect();
                        push_int_list_compact(&mut text, &m2m);
                        text.push('}');
                    }
                    text
                };
                self.out.push_str(&shape);
                self.out.push(' ');
                crate::text::literal::print_literal(&mut self.out, literal);
            }
            Literal::Elided => self.out.push_str("{...}"),
        }
    }

    /// Called computations, named as each opcode names them.
    fn callees(&mut self, data: &InstrData) {
        let callees = &data.callees;
        if callees.is_empty() {
            return;
        }
        let m = self.m;
        match data.opcode {
            Opcode::While if callees.len() == 2 => {
                self.out.push_str(", condition=");
                self.comp_name(callees[1]);
                self.out.push_str(", body=");
                self.comp_name(callees[0]);
            }
            Opcode::SelectAndScatter if callees.len() == 2 => {
                self.out.push_str(", select=");
                self.comp_name(callees[0]);
                self.out.push_str(", scatter=");
                self.comp_name(callees[1]);
            }
            Opcode::Conditional => {
                let predicated = data
                    .operands
                    .first()
                    .and_then(|&o| m.shapes.as_array(m.shape_of(o)))
                    .is_some_and(|a| a.elem == crate::ElementType::Pred);
                if predicated && callees.len() == 2 {
                    self.out.push_str(", true_computation=");
                    self.comp_name(callees[0]);
                    self.out.push_str(", false_computation=");
                    self.comp_name(callees[1]);
                } else {
                    self.out.push_str(", branch_computations={");
                    for (i, &c) in callees.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.comp_name(c);
                    }
                    self.out.push('}');
                }
            }
            Opcode::Call
            | Opcode::Map
            | Opcode::ReduceWindow
            | Opcode::Reduce
            | Opcode::AllReduce
            | Opcode::ReduceScatter
            | Opcode::AllReduceStart
            | Opcode::Scatter
            | Opcode::Sort
            | Opcode::Scan
            | Opcode::CollectiveReduce => {
                self.out.push_str(", to_apply=");
                self.comp_name(callees[0]);
                if let Attrs::Call { is_composite: true } = data.attrs {
                    self.out.push_str(", is_composite=true");
                }
            }
            Opcode::CustomCall => {
                self.out.push_str(", called_computations={");
                for (i, &c) in callees.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.comp_name(c);
                }
                self.out.push('}');
            }
            Opcode::AsyncUpdate | Opcode::AsyncDone => {}
            _ => {
                self.out.push_str(", calls=");
                for (i, &c) in callees.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.comp_name(c);
                }
            }
        }
    }

    /// `sharding`, `frontend_attributes`, `control-predecessors`, `statistics`,
    /// `result_accuracy`.
    fn common_attrs_before_origin(&mut self, data: &InstrData, frontend: bool) {
        let Some(common) = data.common.as_deref() else {
            return;
        };
        if let Some(s) = &common.sharding {
            self.out.push_str(", sharding=");
            s.print(&mut self.out, self.long);
        }
        if frontend
            && let Some(f) = &common.frontend_attributes
            && !f.entries.is_empty()
        {
            self.out.push_str(", frontend_attributes=");
            f.print(&mut self.out);
        }
        if self.long && !common.control_predecessors.is_empty() {
            self.out.push_str(", control-predecessors={");
            for (i, &p) in common.control_predecessors.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.name(&self.m.instr(p).name);
            }
            self.out.push('}');
        }
        if let Some(s) = &common.statistics {
            self.out.push_str(", statistics=");
            s.print(&mut self.out);
        }
        // XLA leaves the default accuracy unprinted.
        if let Some(a) = &common.result_accuracy
            && !matches!(a, ResultAccuracy::Mode(mode) if mode == "default")
        {
            self.out.push_str(", result_accuracy=");
            a.print(&mut self.out);
        }
    }

    /// `origin`, `metadata`, `backend_config`.
    fn common_attrs_after(&mut self, data: &InstrData) {
        let common = data.common.as_deref();
        if let Some(origin) = common.and_then(|c| c.origin.as_ref()) {
            self.out.push_str(", origin=");
            self.out.push_str(origin);
        }
        if self.long
            && let Some(metadata) = &data.metadata
            && metadata.is_printed()
        {
            self.out.push_str(", metadata={");
            metadata.print_fields(&mut self.out);
            self.out.push('}');
        }
        if let Some(config) = common.and_then(|c| c.backend_config.as_ref())
            && !config.0.is_empty()
        {
            self.out.push_str(", backend_config=");
            crate::text::attrs::print_string_or_dict(&mut self.out, &config.0);
        }
    }
}

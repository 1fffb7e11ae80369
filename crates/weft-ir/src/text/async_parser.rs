//! Parsing `async-start` / `async-update` / `async-done` and their
//! `<op>-start|-update|-done` sugar, with late binding, as XLA's parser does.
//!
//! Sugar builds the wrapped computation: `async_wrapped` with one `async_param`
//! per operand slot of the start's `{0}` (padded with `f32[1]` dummies up to the
//! wrapped opcode's fixed arity) and the wrapped instruction `async_op`, which gets
//! the attributes written on the start (except the start's own). `call-start` and
//! `fusion-start` wrap a `call`/`fusion` and take their parameters from the called
//! computation. Sugared updates and dones grow the wrapper as they bind operands
//! (late binding) and set its root shape when they bind the output.
//!
//! The common attributes (metadata, frontend attributes, …) stay on the async op;
//! XLA also copies some of them onto the wrapped instruction, which makes it print
//! `statistics=` twice on a sugared start — text XLA cannot read back — so weft
//! does not copy them.

use crate::attrs::{AsyncAttrs, Attrs};
use crate::diagnostic::Span;
use crate::module::{Callees, Comp, Instr, InstrData, MAIN_THREAD, Operands};
use crate::opcode::{Arity, Opcode};
use crate::shape::Shape;
use crate::text::attr_bag::Bag;
use crate::text::family::Site;
use crate::text::instr::OpcodeSpec;
use crate::text::parser::{PResult, Parser};
use compact_str::CompactString;

const SHAPE_FORM: &str = "AsyncStart and AsyncUpdate expect the shape to be in the form of ((operand0_shape, operand1_shape, ...), output_shape, ...).";

impl<'s> Parser<'s> {
    pub(crate) fn async_instruction(
        &mut self,
        name: Option<(&'s str, Span)>,
        shape: Option<Shape>,
        spec: OpcodeSpec,
        opcode_span: Span,
        nested: bool,
    ) -> PResult<Instr> {
        let (kind, wrapped) = match spec {
            OpcodeSpec::Sugar(kind, wrapped) => (kind, Some(wrapped)),
            OpcodeSpec::Plain(kind) => (kind, None),
        };
        let (operands, operand_spans, open) = self.operand_list()?;
        let Some(shape) = shape else {
            return Err(self
                .error_at(
                    opcode_span,
                    format!("cannot infer shape for opcode: {}", kind.name()),
                )
                .with_hint(
                    "async ops need an explicit shape, e.g. ((f32[8]), f32[8], s32[]) for a start",
                ));
        };
        let (bound, output) = if kind == Opcode::AsyncDone {
            (None, None)
        } else {
            match self.async_slots(shape) {
                Some((bound, output)) => (Some(bound), Some(output)),
                None => {
                    let mut hint =
                        String::from("write the start's shape as ((operands…), output, context…)");
                    if let Some(fix) = self.nested_form_of(shape, operands.len()) {
                        hint = format!(
                            "the first element must be the tuple of bound operands; for {} operand(s) write {fix}",
                            operands.len()
                        );
                    }
                    return Err(self.error_at(opcode_span, SHAPE_FORM).with_hint(hint));
                }
            }
        };
        let mut producer = None;
        if kind != Opcode::AsyncStart {
            let Some(&first) = operands.first() else {
                return Err(self.error_at(open, "No operand found for AsyncUpdate and AsyncDone"));
            };
            if self.m.instr(first).opcode == Opcode::AsyncDone {
                return Err(self.error_at(
                    operand_spans[0],
                    "AsyncUpdate and AsyncDone cannot have AsyncDone as operand.",
                ));
            }
            producer = self.async_producer(first);
        }
        let mut bag = self.take_bag();
        bag.site = opcode_span;
        if nested {
            bag.end = self.span();
        } else {
            self.attributes(&mut bag)?;
        }
        let thread = bag.string("async_execution_thread")?;
        let (thread_span, calls_span) =
            (bag.span_of("async_execution_thread"), bag.span_of("calls"));
        let wrapped_takes_aliasing =
            matches!(wrapped, Some(Opcode::CustomCall) | Some(Opcode::Fusion));
        let aliasing = if kind == Opcode::AsyncUpdate
            || kind == Opcode::AsyncStart && !wrapped_takes_aliasing
        {
            bag.aliasing()?
        } else {
            Vec::new()
        };
        let mut common = self.common_attrs(&mut bag)?;
        self.normalize_tuple_sharding(&mut common, shape);
        let metadata = self.metadata_attr(&mut bag);
        let mut callees = Callees::new();
        match (kind, wrapped) {
            (Opcode::AsyncStart, Some(wrapped)) => {
                let comp = self.wrap_sugared_start(
                    wrapped,
                    bound.expect("start has slots"),
                    output.expect("start has slots"),
                    &mut bag,
                    open,
                )?;
                callees.push(comp);
            }
            (Opcode::AsyncStart, None) => {
                let comp = bag.req_comp("calls")?;
                callees.push(comp);
            }
            (_, sugar) => {
                let chain = producer.map(|p| self.producer_chain(p));
                if sugar.is_none()
                    && let Some(comp) = bag.comp("calls")?
                {
                    if let Some((Some(expected), _)) = &chain
                        && *expected != comp
                    {
                        return Err(self.error_at(
                            calls_span.unwrap_or(opcode_span),
                            format!(
                                "Expect async_wrapped_computation to be {}, but got {}",
                                self.m.comps[*expected].name, self.m.comps[comp].name
                            ),
                        ));
                    }
                    callees.push(comp);
                }
                if let (Some(given), Some((_, producer_thread))) = (&thread, &chain)
                    && given != producer_thread
                {
                    return Err(self.error_at(
                        thread_span.unwrap_or(opcode_span),
                        format!(
                            "Expect async_execution_thread to be {producer_thread}, but got {given}"
                        ),
                    ));
                }
                if let Some(wrapped) = sugar
                    && let Some((Some(comp), _)) = chain
                {
                    let root = self.m.comps[comp].root;
                    if let Some(root) = root {
                        let actual = self.m.instr(root).opcode;
                        if actual != wrapped {
                            return Err(self.error_at(
                                opcode_span,
                                format!(
                                    "Expect async wrapped opcode to be {actual}, but got {wrapped}"
                                ),
                            ));
                        }
                    }
                    if kind == Opcode::AsyncUpdate {
                        let (bound, output) = (
                            bound.expect("update has slots"),
                            output.expect("update has slots"),
                        );
                        self.grow_wrapper(comp, &bound, Some(output));
                    } else {
                        self.grow_wrapper(comp, &[], Some(shape));
                    }
                }
            }
        }
        if let Some(entry) = bag.leftover() {
            return Err(self
                .error_at(
                    entry.span,
                    format!("unexpected attribute \"{}\"", entry.name),
                )
                .with_label(format!("not an attribute of {}", kind.name())));
        }
        let thread = thread.filter(|t| t != MAIN_THREAD || kind != Opcode::AsyncStart);
        if kind == Opcode::AsyncStart
            && let (Some(t), Some(&comp)) = (&thread, callees.first())
        {
            // It changes the called computation, which a parse of part of a
            // text does not have.
            self.note_outside_dependency();
            self.set_thread(comp, t);
        }
        let attrs = Attrs::Async(Box::new(AsyncAttrs {
            thread,
            output_to_operand_aliasing: aliasing,
            sugar_opcode: wrapped,
        }));
        let instr = self.add_parsed(
            name,
            InstrData {
                name: CompactString::default(),
                opcode: kind,
                shape,
                operands,
                callees,
                attrs,
                common,
                metadata,
            },
        );
        let start = match kind {
            Opcode::AsyncStart => Some(instr),
            _ => producer.and_then(|p| self.known_chain_start(p)),
        };
        if let Some(start) = start {
            self.chain_starts.insert(instr, start);
        }
        self.register(instr, name, opcode_span, &operand_spans, &bag)?;
        self.return_bag(bag);
        self.return_operand_spans(operand_spans);
        Ok(instr)
    }

    /// The start of the chain `producer` belongs to, as recorded when it was
    /// parsed (so a long chain is traced in one step per op, not from scratch).
    fn known_chain_start(&self, producer: Instr) -> Option<Instr> {
        match self.m.instr(producer).opcode {
            Opcode::AsyncStart => Some(producer),
            _ => self.chain_starts.get(&producer).copied(),
        }
    }

    /// The wrapped computation and thread of the chain `producer` belongs to.
    fn producer_chain(&self, producer: Instr) -> (Option<Comp>, String) {
        let start = self.known_chain_start(producer);
        let computation = self
            .m
            .instr(producer)
            .callees
            .first()
            .copied()
            .or_else(|| start.and_then(|s| self.m.instr(s).callees.first().copied()));
        let thread = start
            .and_then(|s| self.m.instr(s).attrs.as_async())
            .and_then(|a| a.thread.clone())
            .unwrap_or_else(|| MAIN_THREAD.to_string());
        (computation, thread)
    }

    /// The bound-operand shapes and the output slot of a start or update shape,
    /// or `None` if the shape is not `((…), output, …)`.
    fn async_slots(&self, shape: Shape) -> Option<(Vec<Shape>, Shape)> {
        let elements = self.m.shapes.tuple_elements(shape)?;
        if elements.len() < 2 {
            return None;
        }
        let bound = self.m.shapes.tuple_elements(elements[0])?.to_vec();
        Some((bound, elements[1]))
    }

    /// For a spec-000 style flat start shape `(f32[64], f32[32], s32[])` with
    /// `operands` operands, the nested form XLA requires.
    fn nested_form_of(&self, shape: Shape, operands: usize) -> Option<String> {
        let elements = self.m.shapes.tuple_elements(shape)?;
        if elements.len() < operands + 1 || operands == 0 {
            return None;
        }
        // Print without the default layouts the parser filled in, so the hint
        // reads like what was written.
        let text = |s: Shape| {
            let mut out = String::new();
            crate::text::shape::print_shape_without_default_layouts(&self.m.shapes, &mut out, s);
            out
        };
        let bound: Vec<String> = elements[..operands].iter().map(|&s| text(s)).collect();
        let rest: Vec<String> = elements[operands..].iter().map(|&s| text(s)).collect();
        Some(format!("(({}), {})", bound.join(", "), rest.join(", ")))
    }

    /// Builds the wrapped computation of a sugared start.
    fn wrap_sugared_start(
        &mut self,
        wrapped: Opcode,
        bound: Vec<Shape>,
        output: Shape,
        bag: &mut Bag<'_>,
        open: Span,
    ) -> PResult<Comp> {
        let arity = match wrapped.arity() {
            Arity::Fixed(n) => usize::from(n),
            Arity::Variadic => 0,
        };
        let count = arity.max(bound.len());
        let dummy = self
            .m
            .shapes
            .array_with_default_layout(crate::ElementType::F32, &[1]);
        let comp = self.m.add_comp("async_wrapped");
        let mut params = Vec::with_capacity(count);
        for i in 0..count {
            let shape = bound.get(i).copied().unwrap_or(dummy);
            params.push(self.add_param(comp, i, shape));
        }
        let site = Site {
            opcode: wrapped,
            operands: &params,
            operands_span: open,
        };
        let (attrs, callees) = match wrapped {
            Opcode::Parameter
            | Opcode::Constant
            | Opcode::AsyncStart
            | Opcode::AsyncUpdate
            | Opcode::AsyncDone => {
                return Err(self.error_at(
                    open,
                    format!("{} cannot be wrapped by async sugar", wrapped.name()),
                ));
            }
            _ => self.build_family(&site, bag)?,
        };
        let root = self.m.add_instr(
            comp,
            InstrData {
                name: "async_op".into(),
                opcode: wrapped,
                shape: output,
                operands: params.into(),
                callees: callees.clone(),
                attrs,
                common: None,
                metadata: None,
            },
        );
        self.m.comps[comp].root = Some(root);
        if matches!(wrapped, Opcode::Fusion | Opcode::Call)
            && let Some(&called) = callees.first()
        {
            let called_params: Vec<Shape> = self.m.comps[called]
                .params
                .iter()
                .map(|&p| self.m.shape_of(p))
                .collect();
            let called_root = self.m.comps[called].root.map(|r| self.m.shape_of(r));
            self.grow_wrapper_params(comp, &called_params, false);
            if let Some(result) = called_root {
                self.set_root_shape(comp, result);
            }
        }
        self.finish_computation(comp)?;
        Ok(comp)
    }

    fn add_param(&mut self, comp: Comp, number: usize, shape: Shape) -> Instr {
        self.m.add_instr(
            comp,
            InstrData {
                name: "async_param".into(),
                opcode: Opcode::Parameter,
                shape,
                operands: Operands::new(),
                callees: Callees::new(),
                attrs: Attrs::Parameter(crate::attrs::ParameterAttrs {
                    number: number as i64,
                    replication: None,
                }),
                common: None,
                metadata: None,
            },
        )
    }

    /// Late binding: makes the wrapper's parameters match `operand_shapes`
    /// (adding parameters and root operands as needed) and its root match
    /// `result` (unless that is the unbound `()`).
    fn grow_wrapper(&mut self, comp: Comp, operand_shapes: &[Shape], result: Option<Shape>) {
        self.grow_wrapper_params(comp, operand_shapes, true);
        if let Some(result) = result
            && result != self.m.shapes.empty_tuple()
        {
            self.set_root_shape(comp, result);
        }
    }

    fn grow_wrapper_params(&mut self, comp: Comp, operand_shapes: &[Shape], finished: bool) {
        for (i, &shape) in operand_shapes.iter().enumerate() {
            if let Some(&param) = self.m.comps[comp].params.get(i) {
                let current = self.m.shape_of(param);
                if !crate::shape_util::compatible(&self.m.shapes, current, shape) {
                    self.m.instrs[param].shape = shape;
                }
                continue;
            }
            let param = self.add_param(comp, i, shape);
            if finished {
                self.instr_names.register(&mut self.m.instrs, param);
            }
            // Keep parameters ahead of the root in body order.
            let root = self.m.comps[comp].root;
            let body = &mut self.m.comps[comp].body;
            body.pop();
            let root_position = root
                .and_then(|r| body.iter().position(|&i| i == r))
                .unwrap_or(body.len());
            body.insert(root_position, param);
            if let Some(root) = root {
                self.m.instrs[root].operands.push(param);
            }
        }
    }

    fn set_root_shape(&mut self, comp: Comp, shape: Shape) {
        if let Some(root) = self.m.comps[comp].root {
            let current = self.m.shape_of(root);
            if !crate::shape_util::compatible(&self.m.shapes, current, shape) {
                self.m.instrs[root].shape = shape;
            }
        }
    }

    /// Sets the execution thread of `comp` and every computation it calls.
    pub(crate) fn set_thread(&mut self, comp: Comp, thread: &str) {
        let mut stack = vec![comp];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(c) = stack.pop() {
            if !seen.insert(c) {
                continue;
            }
            self.m.comps[c].execution_thread = (thread != MAIN_THREAD).then(|| thread.to_string());
            for &i in &self.m.comps[c].body {
                stack.extend(self.m.instrs[i].callees.iter().copied());
            }
        }
    }
}

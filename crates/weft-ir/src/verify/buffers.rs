//! R12: where explicit buffers (`b(…)` shapes) may appear and how they are
//! written, as XLA's `VerifyBuffers` (`hlo_verifier.cc`) checks it.
//!
//! A buffer is a mutable place holding a value of its inner shape. It enters a
//! program through a `Pin` custom-call (from an array) or a `CreateBuffer`
//! custom-call (from nothing), is updated by custom-calls that alias it from an
//! operand to their result, and leaves through an `Unpin` custom-call (back to
//! an array). The invariants, computation by computation:
//!
//! - **Async computations** (those an `async-start` calls) are checked only
//!   through their root: a root custom-call gets the custom-call checks below,
//!   and nothing else inside is looked at. The async ops themselves
//!   (`async-start`, `async-update`, `async-done`) and calls carrying frontend
//!   attribute `_xla_stream_annotation` may carry buffers anywhere: XLA relies
//!   on the wrapped custom-call's checks and the async shape rules instead.
//! - **`Pin`** takes one array operand that is not a buffer, returns a buffer of
//!   the same shape, and has exactly one output-to-operand alias.
//! - **`CreateBuffer`** takes no operand and returns a buffer.
//! - **`Unpin`** takes one buffer operand, returns an array of the shape the
//!   buffer holds, and has exactly one output-to-operand alias.
//! - **Any other custom-call**: every buffer among its operands is aliased to
//!   exactly one result, and every buffer in its result to exactly one operand.
//! - **Unique writers**: a buffer produced by `Pin`, `CreateBuffer`, another
//!   custom-call, a `while` or a parameter has at most one writer (see
//!   [`BufferChecker::writer_count`]).
//! - **Entry parameters** hold no buffers.
//! - Besides these, only `tuple` and `get-tuple-element` may take or return a
//!   buffer; every other instruction may not.
//!
//! XLA stops at the first problem; here each instruction reports its first one
//! and the check goes on with the next instruction.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::attrs::{Attrs, CustomCallAttrs};
use crate::module::{Comp, Instr, Module};
use crate::opcode::Opcode;
use crate::shape::{Shape, ShapeData};
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

/// Custom-call target that turns an array into a buffer.
const PIN_TARGET: &str = "Pin";
/// Custom-call target that turns a buffer back into an array.
const UNPIN_TARGET: &str = "Unpin";
/// Custom-call target that makes a fresh buffer.
const CREATE_BUFFER_TARGET: &str = "CreateBuffer";
/// Frontend attribute of a `call` run on another stream; its buffers are the
/// callee's business.
const STREAM_ANNOTATION_ATTRIBUTE: &str = "_xla_stream_annotation";

pub(super) fn check(cx: &mut Checker) {
    let m = cx.m;
    let async_computations: FxHashSet<Comp> = m
        .all_instrs()
        .filter(|&i| m.instrs[i].opcode == Opcode::AsyncStart)
        .filter_map(|i| m.instrs[i].callees.first().copied())
        .collect();
    let mut buffers = BufferChecker::new(m);
    for comp in cx.computations() {
        if async_computations.contains(&comp) {
            if let Some(root) = m.comps[comp].root
                && m.instrs[root].opcode == Opcode::CustomCall
            {
                buffers.check_custom_call(cx, root);
            }
            continue;
        }
        let is_entry = m.entry == Some(comp);
        for &instr in cx.body(comp) {
            let data = &m.instrs[instr];
            match data.opcode {
                opcode if opcode.is_generic_async() => {}
                Opcode::Call if has_stream_annotation(m, instr) => {}
                Opcode::CustomCall => buffers.check_custom_call(cx, instr),
                Opcode::While => buffers.check_unique_writers(cx, instr),
                Opcode::Parameter => {
                    if is_entry && !buffers.check_no_buffers(cx, instr) {
                        continue;
                    }
                    buffers.check_unique_writers(cx, instr);
                }
                Opcode::Tuple | Opcode::GetTupleElement => {}
                _ => {
                    buffers.check_no_buffers(cx, instr);
                }
            }
        }
    }
}

fn has_stream_annotation(m: &Module, instr: Instr) -> bool {
    m.instrs[instr]
        .common()
        .frontend_attributes
        .as_ref()
        .is_some_and(|f| f.get(STREAM_ANNOTATION_ATTRIBUTE).is_some())
}

/// XLA's `ShapeIndex::ToString`: `{}`, `{0}`, `{1,0}`.
fn index_text(index: &[i64]) -> String {
    let parts: Vec<String> = index.iter().map(i64::to_string).collect();
    format!("{{{}}}", parts.join(","))
}

/// The checks, with what they compute once per module: which shapes hold a
/// buffer, and who uses each instruction.
struct BufferChecker<'m> {
    m: &'m Module,
    /// Whether a shape is or contains a buffer, by shape.
    holds_buffer: FxHashMap<Shape, bool>,
    /// The distinct users of each instruction, in body order; built on first
    /// need, since most modules have no buffers to count writers of.
    users: Option<FxHashMap<Instr, Vec<Instr>>>,
    /// The computations some while loop calls (as body or condition).
    while_callees: Option<FxHashSet<Comp>>,
}

impl<'m> BufferChecker<'m> {
    fn new(m: &'m Module) -> Self {
        BufferChecker {
            m,
            holds_buffer: FxHashMap::default(),
            users: None,
            while_callees: None,
        }
    }

    fn is_buffer(&self, shape: Shape) -> bool {
        matches!(self.m.shapes.get(shape), ShapeData::Buffer(_))
    }

    /// Whether `shape` is a buffer or a tuple with one somewhere inside.
    fn holds_buffer(&mut self, shape: Shape) -> bool {
        if let Some(&known) = self.holds_buffer.get(&shape) {
            return known;
        }
        let holds = match self.m.shapes.get(shape) {
            ShapeData::Buffer(_) => true,
            ShapeData::Tuple(elements) => elements.iter().any(|&e| self.holds_buffer(e)),
            _ => false,
        };
        self.holds_buffer.insert(shape, holds);
        holds
    }

    /// The indices of every buffer inside `shape`, outermost first. A buffer
    /// is a leaf: what it holds is not searched.
    fn buffer_indices(&self, shape: Shape) -> Vec<Vec<i64>> {
        fn visit(m: &Module, shape: Shape, index: &mut Vec<i64>, found: &mut Vec<Vec<i64>>) {
            match m.shapes.get(shape) {
                ShapeData::Buffer(_) => found.push(index.clone()),
                ShapeData::Tuple(elements) => {
                    for (i, &element) in elements.iter().enumerate() {
                        index.push(i as i64);
                        visit(m, element, index, found);
                        index.pop();
                    }
                }
                _ => {}
            }
        }
        let mut found = Vec::new();
        visit(self.m, shape, &mut Vec::new(), &mut found);
        found
    }

    /// XLA's `VerifyNoBuffersInContext`: neither `instr`'s result nor any of its
    /// operands holds a buffer. Returns whether that holds.
    fn check_no_buffers(&mut self, cx: &mut Checker, instr: Instr) -> bool {
        let m = self.m;
        let data = &m.instrs[instr];
        let offending = std::iter::once(data.shape)
            .chain(data.operands.iter().map(|&o| m.instrs[o].shape))
            .enumerate()
            .find(|&(_, shape)| self.holds_buffer(shape));
        let Some((position, shape)) = offending else {
            return true;
        };
        let what = if position == 0 {
            format!("it returns {}", cx.text(shape))
        } else {
            format!("operand {} is {}", position - 1, cx.text(shape))
        };
        let hint = if data.opcode == Opcode::Parameter {
            "the entry computation's parameters cannot be buffers: pass an array and Pin it"
        } else {
            "only custom-calls (Pin, Unpin, CreateBuffer or ones aliasing the buffer to their result), while loops, tuples and get-tuple-elements may handle buffers"
        };
        let error = cx.report(
            Rule::AsyncBuffers,
            instr,
            format!(
                "Seen buffers while buffers aren't allowed in this context: {} ({}): {what}",
                cx.name(instr),
                data.opcode
            ),
        );
        error.with_hint(hint);
        if position > 0 {
            error.at_operand(position - 1);
        }
        false
    }

    /// XLA's `VerifyCustomCall`.
    fn check_custom_call(&mut self, cx: &mut Checker, instr: Instr) {
        let m = self.m;
        let Attrs::CustomCall(attrs) = &m.instrs[instr].attrs else {
            return;
        };
        let problem = match attrs.target.as_str() {
            PIN_TARGET => self.pin_problem(cx, instr, attrs),
            UNPIN_TARGET => self.unpin_problem(cx, instr, attrs),
            CREATE_BUFFER_TARGET => self.create_buffer_problem(instr),
            _ => self.aliasing_problem(instr, attrs),
        };
        if let Some((message, hint)) = problem {
            cx.report(Rule::AsyncBuffers, instr, message)
                .with_hint(hint)
                .at_attribute("custom_call_target");
            return;
        }
        if attrs.target == UNPIN_TARGET {
            return;
        }
        let buffer_results = self.buffer_indices(m.instrs[instr].shape);
        for index in buffer_results {
            if !self.check_unique_writer(cx, instr, &index) {
                return;
            }
        }
    }

    /// XLA's `VerifyPin`, up to the unique-writer check.
    fn pin_problem(
        &self,
        cx: &Checker,
        instr: Instr,
        attrs: &CustomCallAttrs,
    ) -> Option<(String, &'static str)> {
        let data = &self.m.instrs[instr];
        let name = cx.name(instr);
        let operand_shape = match data.operands.as_slice() {
            [operand] => Some(self.m.instrs[*operand].shape),
            _ => None,
        };
        let Some(operand_shape) =
            operand_shape.filter(|&s| matches!(self.m.shapes.get(s), ShapeData::Array(_)))
        else {
            return Some((
                format!(
                    "custom-call to Pin must have one array non-buffer operand, but {name} has {}",
                    describe_operands(cx, &data.operands)
                ),
                "Pin takes the array to place in a new buffer",
            ));
        };
        let ShapeData::Buffer(held) = *self.m.shapes.get(data.shape) else {
            return Some((
                format!(
                    "custom-call to Pin must have one buffer result, but {name} returns {}",
                    cx.text(data.shape)
                ),
                "write the result as b(<operand shape>)",
            ));
        };
        if !cx.same(operand_shape, held) {
            return Some((
                format!(
                    "custom-call to Pin must have the same shape as the operand, but {name} pins {} into {}",
                    cx.text(operand_shape),
                    cx.text(data.shape)
                ),
                "the buffer holds exactly the operand's shape",
            ));
        }
        if attrs.output_to_operand_aliasing.len() != 1 {
            return Some((
                format!(
                    "custom-call to Pin must have one output-to-operand aliasing, but {name} has {}",
                    attrs.output_to_operand_aliasing.len()
                ),
                "add output_to_operand_aliasing={{}: (0, {})}",
            ));
        }
        None
    }

    /// XLA's `VerifyUnpin`.
    fn unpin_problem(
        &self,
        cx: &Checker,
        instr: Instr,
        attrs: &CustomCallAttrs,
    ) -> Option<(String, &'static str)> {
        let data = &self.m.instrs[instr];
        let name = cx.name(instr);
        let held = match data.operands.as_slice() {
            [operand] => match self.m.shapes.get(self.m.instrs[*operand].shape) {
                ShapeData::Buffer(held) => Some(*held),
                _ => None,
            },
            _ => None,
        };
        let Some(held) = held else {
            return Some((
                format!(
                    "custom-call to Unpin must have one buffer operand, but {name} has {}",
                    describe_operands(cx, &data.operands)
                ),
                "Unpin takes the buffer whose value it returns",
            ));
        };
        if !matches!(self.m.shapes.get(data.shape), ShapeData::Array(_)) {
            return Some((
                format!(
                    "custom-call to Unpin must have one array non-buffer result, but {name} returns {}",
                    cx.text(data.shape)
                ),
                "Unpin returns the array the buffer holds",
            ));
        }
        if !cx.same(held, data.shape) {
            return Some((
                format!(
                    "custom-call to Unpin must have the same shape as the operand, but {name} unpins {} into {}",
                    cx.text(held),
                    cx.text(data.shape)
                ),
                "the result has exactly the shape the buffer holds",
            ));
        }
        if attrs.output_to_operand_aliasing.len() != 1 {
            return Some((
                format!(
                    "custom-call to Unpin must have one output-to-operand aliasing, but {name} has {}",
                    attrs.output_to_operand_aliasing.len()
                ),
                "add output_to_operand_aliasing={{}: (0, {})}",
            ));
        }
        None
    }

    /// XLA's `VerifyCreateBuffer`, up to the unique-writer check.
    fn create_buffer_problem(&self, instr: Instr) -> Option<(String, &'static str)> {
        let data = &self.m.instrs[instr];
        let name = &data.name;
        if !data.operands.is_empty() {
            return Some((
                format!(
                    "custom-call to CreateBuffer can't have an operand, but %{name} has {}",
                    data.operands.len()
                ),
                "CreateBuffer makes a buffer from nothing; use Pin to fill one from an array",
            ));
        }
        if !self.is_buffer(data.shape) {
            return Some((
                format!(
                    "custom-call to CreateBuffer must have one buffer result, but %{name} does not return a buffer"
                ),
                "write the result as b(<shape>)",
            ));
        }
        None
    }

    /// XLA's `VerifyBuffersInOperands` and `VerifyBuffersInResults`: each
    /// buffer going in is aliased to exactly one result, and each buffer coming
    /// out to exactly one operand.
    fn aliasing_problem(
        &self,
        instr: Instr,
        attrs: &CustomCallAttrs,
    ) -> Option<(String, &'static str)> {
        let data = &self.m.instrs[instr];
        let mut operand_part_uses: FxHashMap<(i64, &[i64]), usize> = FxHashMap::default();
        let mut output_part_uses: FxHashMap<&[i64], usize> = FxHashMap::default();
        for alias in &attrs.output_to_operand_aliasing {
            *operand_part_uses
                .entry((alias.operand, alias.operand_index.as_slice()))
                .or_default() += 1;
            *output_part_uses.entry(alias.output.as_slice()).or_default() += 1;
        }
        const HINT: &str = "a custom-call that takes a buffer must return it, aliased once in output_to_operand_aliasing, and vice versa";
        for (number, &operand) in data.operands.iter().enumerate() {
            for index in self.buffer_indices(self.m.instrs[operand].shape) {
                let uses = operand_part_uses
                    .get(&(number as i64, index.as_slice()))
                    .copied()
                    .unwrap_or(0);
                let problem = match uses {
                    0 => "buffer is used in operands but not in results",
                    1 => continue,
                    _ => "buffer is used in results multiple times",
                };
                return Some((
                    format!(
                        "{problem}: operand {number} ShapeIndex {} of %{}",
                        index_text(&index),
                        data.name
                    ),
                    HINT,
                ));
            }
        }
        for index in self.buffer_indices(data.shape) {
            let uses = output_part_uses.get(index.as_slice()).copied().unwrap_or(0);
            let problem = match uses {
                0 => "buffer is used in results but not in operands",
                1 => continue,
                _ => "buffer is used in operands multiple times",
            };
            return Some((
                format!("{problem}: {} of %{}", index_text(&index), data.name),
                HINT,
            ));
        }
        None
    }

    /// XLA's `CheckBufferHasUniqueWriters`: every buffer in `instr`'s result has
    /// at most one writer.
    fn check_unique_writers(&mut self, cx: &mut Checker, instr: Instr) {
        let shape = self.m.instrs[instr].shape;
        if !self.holds_buffer(shape) {
            return;
        }
        for index in self.buffer_indices(shape) {
            if !self.check_unique_writer(cx, instr, &index) {
                return;
            }
        }
    }

    /// XLA's `CheckBufferHasUniqueWriter`; returns whether the buffer at
    /// `index` of `instr`'s result has at most one writer.
    fn check_unique_writer(&mut self, cx: &mut Checker, instr: Instr, index: &[i64]) -> bool {
        let writers = self.writer_count(instr, index);
        if writers <= 1 {
            return true;
        }
        let users: Vec<String> = self.users_of(instr).iter().map(|&u| cx.name(u)).collect();
        cx.report(
            Rule::AsyncBuffers,
            instr,
            format!(
                "an HLO buffer value has more than one writers (or unpins): {} at ShapeIndex {} has {writers}",
                cx.name(instr),
                index_text(index)
            ),
        )
        .with_hint(format!(
            "a buffer is written once; chain the writers instead (users: {})",
            users.join(", ")
        ));
        false
    }

    /// XLA's `CountWriters`: how many users may write the buffer at `index` of
    /// `value`'s result. A custom-call, fusion, call, while or conditional that
    /// takes it counts as one writer (without looking inside); a
    /// get-tuple-element that extracts it, or a tuple that wraps it, passes the
    /// question on to its own users; a while body returning it counts as a
    /// writer, since the loop feeds it back in.
    fn writer_count(&mut self, value: Instr, index: &[i64]) -> usize {
        let users = self.users_of(value);
        users
            .into_iter()
            .map(|user| self.writers_in_user(value, index, user))
            .sum()
    }

    fn writers_in_user(&mut self, value: Instr, index: &[i64], user: Instr) -> usize {
        let m = self.m;
        let data = &m.instrs[user];
        match (data.opcode, &data.attrs) {
            (
                Opcode::CustomCall
                | Opcode::Fusion
                | Opcode::Call
                | Opcode::While
                | Opcode::Conditional,
                _,
            ) => 1,
            (Opcode::GetTupleElement, Attrs::GetTupleElement { index: element }) => {
                match index.split_first() {
                    Some((&first, rest)) if first == *element => self.writer_count(user, rest),
                    _ => 0,
                }
            }
            (Opcode::Tuple, _) => {
                let comp = m.parent(value);
                if m.comps[comp].root == Some(user) {
                    usize::from(self.is_called_by_while(comp))
                } else {
                    let position = data.operands.iter().position(|&o| o == value);
                    let Some(position) = position else { return 0 };
                    let mut inner = Vec::with_capacity(index.len() + 1);
                    inner.push(position as i64);
                    inner.extend_from_slice(index);
                    self.writer_count(user, &inner)
                }
            }
            _ => 0,
        }
    }

    fn users_of(&mut self, instr: Instr) -> Vec<Instr> {
        let m = self.m;
        let users = self.users.get_or_insert_with(|| {
            let mut users: FxHashMap<Instr, Vec<Instr>> = FxHashMap::default();
            for user in m.all_instrs() {
                let operands = &m.instrs[user].operands;
                for (position, &operand) in operands.iter().enumerate() {
                    // One entry per user, however many times it takes the value.
                    if !operands[..position].contains(&operand) {
                        users.entry(operand).or_default().push(user);
                    }
                }
            }
            users
        });
        users.get(&instr).cloned().unwrap_or_default()
    }

    fn is_called_by_while(&mut self, comp: Comp) -> bool {
        let m = self.m;
        self.while_callees
            .get_or_insert_with(|| {
                m.all_instrs()
                    .filter(|&i| m.instrs[i].opcode == Opcode::While)
                    .flat_map(|i| m.instrs[i].callees.iter().copied())
                    .collect()
            })
            .contains(&comp)
    }
}

fn describe_operands(cx: &Checker, operands: &[Instr]) -> String {
    match operands {
        [] => "no operands".to_string(),
        [one] => format!("operand {}", cx.text(cx.shape_of(*one))),
        many => format!("{} operands", many.len()),
    }
}

#[cfg(test)]
mod tests {
    use crate::verify::{Rule, verify};

    fn r12_messages(text: &str) -> Vec<String> {
        let m = crate::text::parse(text).expect("parses");
        match verify(&m) {
            Ok(()) => Vec::new(),
            Err(errors) => errors
                .into_iter()
                .filter(|e| e.rule == Rule::AsyncBuffers)
                .map(|e| e.message)
                .collect(),
        }
    }

    /// A buffer handed back through a while body's root counts as written by
    /// the loop, so a second writer outside the loop is one too many.
    #[test]
    fn a_while_body_root_writes_the_buffer_it_returns() {
        let text = "HloModule m\n\n\
            %body (s: (b(f32[8]))) -> (b(f32[8])) {\n  %s = (b(f32[8])) parameter(0)\n  %b = b(f32[8]) get-tuple-element(%s), index=0\n  ROOT %t = (b(f32[8])) tuple(%b)\n}\n\n\
            %cond (s: (b(f32[8]))) -> pred[] {\n  %s = (b(f32[8])) parameter(0)\n  ROOT %c = pred[] constant(false)\n}\n\n\
            ENTRY %main (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n  %pin = b(f32[8]) custom-call(%p), custom_call_target=\"Pin\", output_to_operand_aliasing={{}: (0, {})}\n  %t = (b(f32[8])) tuple(%pin)\n  %w = (b(f32[8])) while(%t), condition=%cond, body=%body\n  %b = b(f32[8]) get-tuple-element(%w), index=0\n  ROOT %u = f32[8] custom-call(%b), custom_call_target=\"Unpin\", output_to_operand_aliasing={{}: (0, {})}\n}\n";
        assert_eq!(r12_messages(text), Vec::<String>::new());
        // The body's parameter: its buffer flows to the root tuple (one writer,
        // the loop) and to a custom-call (a second).
        let twice = text.replace(
            "ROOT %t = (b(f32[8])) tuple(%b)",
            "%x = b(f32[8]) custom-call(%b), custom_call_target=\"w\", output_to_operand_aliasing={{}: (0, {})}\n  ROOT %t = (b(f32[8])) tuple(%b)",
        );
        let messages = r12_messages(&twice);
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("an HLO buffer value has more than one writers"),
            "{messages:?}"
        );
    }
}

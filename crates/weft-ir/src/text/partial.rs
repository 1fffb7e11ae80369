//! Where the grammar lets a parse be plugged into a larger one: a parse of
//! part of a text, which does not know what the text before it defines, and
//! lines that were parsed ahead of the parser reaching them. The parallel
//! parse (`text/fast/`) implements both traits; a parse of a whole text on
//! one thread has neither and runs exactly the grammar's code.
//!
//! [`OutsideText`] is asked at each point where the grammar reads something a
//! part of a text may not know: an operand or computation named before the
//! part, the shape of such an operand, an async chain that may lead out of it.
//! [`ParsedAhead`] is asked at the first token of each instruction line of a
//! body whether the lines from there on were parsed already.
//!
//! Invariant: with neither plugged in, these methods are the grammar's plain
//! reads (a name lookup, a shape, an async chain's producer).

use crate::module::{Comp, Instr, Module};
use crate::shape::Shape;
use crate::text::parser::{PResult, Parser};

/// What a parse of part of a text does not know, and how it stands in for it.
/// Methods take `&self`: the implementation keeps its state in cells, so that
/// its owner can read it between instructions.
pub(crate) trait OutsideText<'s> {
    /// A check read `operand`'s shape.
    fn read_shape(&self, operand: Instr);

    /// `operand` is written with the `declared` shape: whether that shape is to
    /// be taken as its own (an assumption about an operand defined outside).
    fn assume_shape(&self, operand: Instr, declared: Shape) -> bool;

    /// A walk along an async chain read `instr`.
    fn read_chain_link(&self, m: &Module, instr: Instr);

    /// The instruction being parsed depends on more than the part.
    fn depend(&self);

    /// An operand the part has not defined: an instruction of `parent`'s that
    /// stands for it.
    fn outside_operand(&self, m: &mut Module, parent: Comp, name: &'s str) -> Instr;

    /// A computation named in the part: one that stands for it.
    fn outside_computation(&self, m: &mut Module, name: &'s str) -> Comp;

    /// The instruction just registered was written with this name and its
    /// [`name_hash`](crate::names::name_hash), or with none.
    fn named(&self, name: Option<(&'s str, u64)>);
}

/// Lines of the text parsed before the parser reached them.
pub(crate) trait ParsedAhead<'s> {
    /// Called at the first token of an instruction line of a body: when the
    /// lines from here on were parsed ahead, takes them into `parser` and
    /// leaves it where its own parse must continue, returning `true`.
    fn take_in(&mut self, parser: &mut Parser<'s>) -> PResult<bool>;
}

/// The grammar's reads that a part of a text answers differently.
impl<'s> Parser<'s> {
    /// An operand's shape, for a check that reads it.
    pub(crate) fn operand_shape(&self, operand: Instr) -> Shape {
        if let Some(outside) = &self.outside {
            outside.read_shape(operand);
        }
        self.m.shape_of(operand)
    }

    /// The shape of an operand written with a `declared` shape.
    pub(crate) fn declared_operand_shape(&mut self, operand: Instr, declared: Shape) -> Shape {
        if let Some(outside) = &self.outside
            && outside.assume_shape(operand, declared)
        {
            self.m.instrs[operand].shape = declared;
        }
        self.m.shape_of(operand)
    }

    /// The async-start or async-update whose value reaches `first` (an update's
    /// or done's operand).
    pub(crate) fn async_producer(&self, first: Instr) -> Option<Instr> {
        let mut tracer = crate::async_chain::ChainTracer::new(&self.m);
        let Some(outside) = &self.outside else {
            return tracer.producer(first, &[]);
        };
        tracer.producer_visiting(first, &[], |instr| outside.read_chain_link(&self.m, instr))
    }

    /// Notes that the instruction being parsed depends on more than the text
    /// being parsed.
    pub(crate) fn note_outside_dependency(&self) {
        if let Some(outside) = &self.outside {
            outside.depend();
        }
    }

    /// Looks an operand up; in a part of a text, a name the part has not
    /// defined stands for an operand outside it.
    pub(crate) fn lookup_operand(&mut self, name: &'s str) -> Option<Instr> {
        let found = self.lookup(name);
        if found.is_some() {
            return found;
        }
        let parent = self.current_comp();
        let outside = self.outside.as_deref()?;
        Some(outside.outside_operand(&mut self.m, parent, name))
    }

    /// In a part of a text, the computation that stands for the one named
    /// `name`; `None` in a whole text.
    pub(crate) fn outside_computation(&mut self, name: &'s str) -> Option<Comp> {
        let outside = self.outside.as_deref()?;
        Some(outside.outside_computation(&mut self.m, name))
    }

    /// Tells a part of a text the name of the instruction just registered.
    pub(crate) fn note_name(&self, name: Option<(&'s str, u64)>) {
        if let Some(outside) = &self.outside {
            outside.named(name);
        }
    }

    /// At the first token of an instruction line of a body: takes in the lines
    /// parsed ahead from here on, if there are any, returning whether it did.
    pub(crate) fn take_in_parsed_ahead(&mut self) -> PResult<bool> {
        let Some(mut ahead) = self.parsed_ahead.take() else {
            return Ok(false);
        };
        let taken = ahead.take_in(self);
        self.parsed_ahead = Some(ahead);
        taken
    }
}

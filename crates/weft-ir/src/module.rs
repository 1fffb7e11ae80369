//! The module: computations, the module-wide instruction store, module attributes
//! and the schedule.
//!
//! Ownership and order (the invariants the verifier checks):
//! - the [`Module`] owns every computation ([`CompData`]) and every instruction
//!   ([`InstrData`]) in one module-wide store; an instruction's `parent` says which
//!   computation it belongs to, so moving it into another computation (an async
//!   wrapper, say) keeps its handle;
//! - instruction data (opcode, shape, operands, callees, attributes) is separate from
//!   order: a computation's body lists its live instructions in text order, and the
//!   [`Schedule`] lists, per computation, the order they execute in. Order is private:
//!   it is read through accessors and changed through the building methods here and
//!   the [`Editor`](crate::edit::Editor), which keep body and schedule in step;
//! - the module's [`Phase`] only moves forward, and each phase adds invariants the
//!   verifier checks (a scheduled module has a sequence for every computation XLA
//!   schedules);
//! - every operand and control predecessor of an instruction is in the same
//!   computation; every callee is a computation of the module;
//! - `params[i]` is the `parameter(i)` instruction of the computation; `root` is in
//!   `body`;
//! - computation names are unique in the module and instruction names are unique in
//!   the module (XLA's parser and printer rely on both).

use crate::attrs::{Attrs, CommonAttrs, Metadata};
use crate::entity::{EntityRef, EntityVec};
use crate::module_config::ModuleConfig;
use crate::opcode::Opcode;
use crate::shape::{Shape, ShapeTable};
use crate::stack_frames::StackFrames;

crate::entity!(
    /// An instruction of a [`Module`].
    Instr,
    "inst"
);
crate::entity!(
    /// A computation of a [`Module`].
    Comp,
    "comp"
);

pub use crate::operands::Operands;

/// How deeply computations may call one another, the entry computation
/// being the first level: a loop body, a branch, a reducer or a called
/// computation is one level below its caller's computation. The evaluator
/// runs computations this deep (a loop's body counts once, not once per
/// iteration), and what weft makes — a lowered StableHLO program, an exported
/// HLO module's regions — nests no deeper, so what weft writes, it runs.
/// Real programs nest a handful of levels.
pub const MAX_CALL_DEPTH: usize = 256;

/// The computations an instruction calls. Empty for nearly every
/// instruction, which then allocates nothing; one pointer wide either way.
pub type Callees = thin_vec::ThinVec<Comp>;

/// One instruction, in 96 bytes. A parse writes one per line of text into
/// fresh memory, and printing and verifying read them all, so each byte costs
/// in every pass: 32 bytes more made a parse 3–4% slower, and going from 128
/// to 96 bytes made it up to 4% faster with 8–15% fewer page faults. What only a
/// few instructions carry (callees, common attributes, metadata, the rarer
/// attribute families) lives behind a pointer, and the computation an
/// instruction belongs to is kept beside it ([`Module::parent`]).
#[derive(Clone, Debug)]
pub struct InstrData {
    /// The instruction's name (without `%`). Names of up to 24 bytes, nearly
    /// all of them in real modules, are kept inline: a parse then makes no
    /// allocation per name (two in five of its allocations were names).
    pub name: compact_str::CompactString,
    /// What it does.
    pub opcode: Opcode,
    /// The shape of its result.
    pub shape: Shape,
    /// Its operands, in order.
    pub operands: Operands,
    /// The computations it calls, in the order the opcode gives them their
    /// roles (a while's condition then body, a conditional's branches, …).
    pub callees: Callees,
    /// The opcode's attribute family.
    pub attrs: Attrs,
    /// Attributes any instruction may carry (sharding, frontend attributes, …);
    /// `None` when it carries none.
    pub common: Option<Box<CommonAttrs>>,
    /// `metadata={…}`: where the instruction came from.
    pub metadata: Option<Box<Metadata>>,
}

impl InstrData {
    /// The common attributes, or an empty set.
    pub fn common(&self) -> &CommonAttrs {
        self.common.as_deref().unwrap_or(CommonAttrs::empty())
    }

    /// The common attributes, made mutable (created empty if absent).
    pub fn common_mut(&mut self) -> &mut CommonAttrs {
        self.common.get_or_insert_with(Default::default)
    }

    /// The instructions that must run before this one without being operands.
    pub fn control_predecessors(&self) -> &[Instr] {
        self.common
            .as_deref()
            .map_or(&[], |c| c.control_predecessors.as_slice())
    }
}

/// One computation.
#[derive(Clone, Debug)]
pub struct CompData {
    /// The computation's name (without `%`), kept inline when at most 24
    /// bytes long, as nearly all are.
    pub name: compact_str::CompactString,
    /// `params[i]` is its `parameter(i)`.
    pub(crate) params: Vec<Instr>,
    /// The instruction whose value the computation returns.
    pub(crate) root: Option<Instr>,
    /// The live instructions, in text order (the order a parser saw them, or a pass
    /// put them in).
    pub(crate) body: Vec<Instr>,
    /// The execution thread, when not the main one (`execution_thread="…"`).
    pub execution_thread: Option<String>,
}

impl CompData {
    /// `params()[i]` is the computation's `parameter(i)`.
    #[inline]
    pub fn params(&self) -> &[Instr] {
        &self.params
    }

    /// The instruction whose value the computation returns.
    #[inline]
    pub fn root(&self) -> Option<Instr> {
        self.root
    }

    /// The live instructions, in text order (the order a parser saw them, or
    /// a pass put them in).
    #[inline]
    pub fn body(&self) -> &[Instr] {
        &self.body
    }

    /// The execution thread's name (`"main"` unless set).
    pub fn thread(&self) -> &str {
        self.execution_thread.as_deref().unwrap_or(MAIN_THREAD)
    }
}

/// The name of the main execution thread.
pub const MAIN_THREAD: &str = "main";

/// How far a module has come through compilation. Each phase adds
/// invariants the verifier checks, and a module only moves forward
/// ([`Module::advance_phase`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Instructions run in any order their operands and control
    /// predecessors allow.
    #[default]
    Unscheduled,
    /// Every computation XLA schedules (all but fusion bodies) has a
    /// sequence in the [`Schedule`]; printed as `is_scheduled=true`.
    Scheduled,
}

impl Phase {
    /// The phase's name, as errors give it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Unscheduled => "unscheduled",
            Phase::Scheduled => "scheduled",
        }
    }
}

/// The execution order of the instructions of each scheduled computation: a
/// side table beside the instructions (XLA's `HloSchedule`), per computation.
/// The editor keeps every sequence in step with its computation's body
/// (an instruction inserted next to another takes the same place in the
/// sequence; one removed leaves it); whether each sequence respects the
/// operands is the verifier's to say.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    sequences: rustc_hash::FxHashMap<Comp, Vec<Instr>>,
}

impl Schedule {
    /// The sequence of `comp`, if it is scheduled.
    pub fn sequence(&self, comp: Comp) -> Option<&[Instr]> {
        self.sequences.get(&comp).map(Vec::as_slice)
    }

    /// Makes `sequence` the execution order of `comp`.
    pub fn set_sequence(&mut self, comp: Comp, sequence: Vec<Instr>) {
        self.sequences.insert(comp, sequence);
    }

    /// Forgets the sequence of `comp` and returns it.
    pub fn remove_sequence(&mut self, comp: Comp) -> Option<Vec<Instr>> {
        self.sequences.remove(&comp)
    }

    /// The scheduled computations, in no particular order.
    pub fn computations(&self) -> impl Iterator<Item = Comp> + '_ {
        self.sequences.keys().copied()
    }

    /// Whether no computation has a sequence.
    pub fn is_empty(&self) -> bool {
        self.sequences.is_empty()
    }

    pub(crate) fn sequence_mut(&mut self, comp: Comp) -> Option<&mut Vec<Instr>> {
        self.sequences.get_mut(&comp)
    }
}

/// An HLO module.
#[derive(Clone, Debug)]
pub struct Module {
    /// The module's name.
    pub name: String,
    /// Interned shapes.
    pub shapes: ShapeTable,
    /// Every instruction ever made. Add one with [`Module::add_instr`] (or
    /// [`Module::add_instr_outside_body`]), which also records its computation;
    /// one pushed here directly has none, and the verifier reports it.
    pub instrs: EntityVec<Instr, InstrData>,
    /// Per instruction, the computation it belongs to (see [`Module::parent`]).
    /// Kept beside the instructions rather than in them: it is where an
    /// instruction sits, not what it is, and leaving it out keeps
    /// [`InstrData`] at 96 bytes.
    pub(crate) parents: EntityVec<Instr, Comp>,
    /// Every computation ever made.
    pub comps: EntityVec<Comp, CompData>,
    /// The live computations in text order.
    pub(crate) comp_order: Vec<Comp>,
    /// The entry computation.
    pub entry: Option<Comp>,
    /// Module-level attributes from the `HloModule` line.
    pub config: ModuleConfig,
    /// The stack-frame tables (`FileNames`, `FunctionNames`, …), if any.
    pub stack_frames: Option<StackFrames>,
    /// The execution order of scheduled computations.
    pub(crate) schedule: Schedule,
    /// How far the module has come.
    pub(crate) phase: Phase,
}

impl Module {
    /// An empty module named `name`.
    pub fn new(name: impl Into<String>) -> Module {
        Module {
            name: name.into(),
            shapes: ShapeTable::new(),
            instrs: EntityVec::new(),
            parents: EntityVec::new(),
            comps: EntityVec::new(),
            comp_order: Vec::new(),
            entry: None,
            config: ModuleConfig::default(),
            stack_frames: None,
            schedule: Schedule::default(),
            phase: Phase::Unscheduled,
        }
    }

    /// How far the module has come.
    #[inline]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the module is scheduled (`is_scheduled=true`).
    #[inline]
    pub fn is_scheduled(&self) -> bool {
        self.phase >= Phase::Scheduled
    }

    /// Moves the module forward to `phase` (staying put is fine); going back
    /// is an error naming both phases.
    pub fn advance_phase(&mut self, phase: Phase) -> Result<(), String> {
        if phase < self.phase {
            return Err(format!(
                "a module cannot go back from the {} phase to the {} phase",
                self.phase.name(),
                phase.name()
            ));
        }
        self.phase = phase;
        Ok(())
    }

    /// The execution order of scheduled computations.
    #[inline]
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The schedule, to set or drop sequences wholesale (a scheduler's
    /// output); instruction by instruction, the [`Editor`](crate::edit::Editor)
    /// keeps it in step.
    pub fn schedule_mut(&mut self) -> &mut Schedule {
        &mut self.schedule
    }

    /// Makes `instr` the root of `comp`.
    pub fn set_root(&mut self, comp: Comp, instr: Instr) {
        self.comps[comp].root = Some(instr);
    }

    /// Puts the live computations in the order `order` gives (text order);
    /// `order` must list each live computation once.
    pub fn set_computation_order(&mut self, order: Vec<Comp>) {
        debug_assert_eq!(order.len(), self.comp_order.len());
        self.comp_order = order;
    }

    /// Adds an empty computation and returns its handle.
    pub fn add_comp(&mut self, name: impl Into<compact_str::CompactString>) -> Comp {
        let comp = self.comps.push(CompData {
            name: name.into(),
            params: Vec::new(),
            root: None,
            body: Vec::new(),
            execution_thread: None,
        });
        self.comp_order.push(comp);
        comp
    }

    /// Makes room for `additional` more instructions.
    pub fn reserve_instrs(&mut self, additional: usize) {
        self.instrs.reserve(additional);
        self.parents.reserve(additional);
    }

    /// Adds an instruction of `parent` at the end of its body and returns its
    /// handle. A parameter is also recorded as its computation's parameter.
    #[inline]
    pub fn add_instr(&mut self, parent: Comp, data: InstrData) -> Instr {
        let parameter = match (&data.opcode, &data.attrs) {
            (Opcode::Parameter, Attrs::Parameter(p)) => Some(p.number),
            _ => None,
        };
        let instr = self.add_instr_outside_body(parent, data);
        let comp = &mut self.comps[parent];
        comp.body.push(instr);
        if let Some(number) = parameter {
            let slot = number as usize;
            if comp.params.len() <= slot {
                comp.params.resize(slot + 1, instr);
            }
            comp.params[slot] = instr;
        }
        instr
    }

    /// Adds an instruction of `parent` without putting it in the body (a
    /// placeholder, or one its caller places itself) and returns its handle.
    #[inline]
    pub fn add_instr_outside_body(&mut self, parent: Comp, data: InstrData) -> Instr {
        self.parents.push(parent);
        self.instrs.push(data)
    }

    /// The computation `instr` belongs to.
    ///
    /// # Panics
    /// If `instr` was not added through [`Module::add_instr`] or
    /// [`Module::add_instr_outside_body`].
    #[inline]
    pub fn parent(&self, instr: Instr) -> Comp {
        self.parents[instr]
    }

    /// The data of `instr`.
    #[inline]
    pub fn instr(&self, instr: Instr) -> &InstrData {
        &self.instrs[instr]
    }

    /// The data of `comp`.
    #[inline]
    pub fn comp(&self, comp: Comp) -> &CompData {
        &self.comps[comp]
    }

    /// The entry computation.
    pub fn entry(&self) -> Option<Comp> {
        self.entry
    }

    /// The live computations in text order.
    pub fn computations(&self) -> impl Iterator<Item = Comp> + '_ {
        self.comp_order.iter().copied()
    }

    /// The shape of `instr`'s result.
    #[inline]
    pub fn shape_of(&self, instr: Instr) -> Shape {
        self.instrs[instr].shape
    }

    /// Gives the module the entry computation's own shapes as its
    /// `entry_computation_layout` when it has none, as XLA does for every
    /// module it reads or builds (its printer always writes one): a module
    /// read from text without one gets it, so a module built without one
    /// must get it too, or its text would change once read back.
    pub fn fill_entry_computation_layout(&mut self) {
        let Some(entry) = self.entry else {
            return;
        };
        if self.config.entry_computation_layout.is_some() {
            return;
        }
        let data = &self.comps[entry];
        let parameters = data.params.iter().map(|&p| self.shape_of(p)).collect();
        let result = data
            .root
            .map_or(self.shapes.empty_tuple(), |r| self.shape_of(r));
        self.config.entry_computation_layout =
            Some(crate::module_config::ProgramShape { parameters, result });
    }

    /// Finds a computation by name.
    pub fn comp_by_name(&self, name: &str) -> Option<Comp> {
        self.comp_order
            .iter()
            .copied()
            .find(|&c| self.comps[c].name == name)
    }

    /// Finds an instruction by name in `comp`.
    pub fn instr_by_name(&self, comp: Comp, name: &str) -> Option<Instr> {
        self.comps[comp]
            .body
            .iter()
            .copied()
            .find(|&i| self.instrs[i].name == name)
    }

    /// The instructions of every live computation, computation by computation.
    pub fn all_instrs(&self) -> impl Iterator<Item = Instr> + '_ {
        self.comp_order
            .iter()
            .flat_map(move |&c| self.comps[c].body.iter().copied())
    }

    /// The number of live instructions.
    pub fn instr_count(&self) -> usize {
        self.comp_order
            .iter()
            .map(|&c| self.comps[c].body.len())
            .sum()
    }

    /// The dense index of an instruction handle (for side tables).
    pub fn instr_index(instr: Instr) -> usize {
        instr.index()
    }
}

#[cfg(test)]
mod tests {
    use super::InstrData;
    use crate::attrs::Attrs;

    #[test]
    fn an_instruction_fits_in_96_bytes() {
        assert!(size_of::<InstrData>() <= 96, "{}", size_of::<InstrData>());
        assert!(size_of::<Attrs>() <= 24, "{}", size_of::<Attrs>());
    }
}

//! The editing API: every change a pass makes to a module's structure goes
//! through an [`Editor`], which keeps the module's side tables in step with
//! its instructions (Cranelift's lesson: data and layout are edited together
//! through one cursor, never patched separately).
//!
//! What an editor keeps valid, after every call:
//! - a computation's body lists each of its live instructions once, and an
//!   instruction's parent is the computation whose body holds it;
//! - a scheduled computation's sequence lists the same instructions as its
//!   body: an instruction inserted before or after another takes that place
//!   in both, one appended goes last in both, one removed or moved leaves
//!   both. Whether a sequence still runs operands first is the verifier's
//!   to say (a pass that reorders sets the sequence itself);
//! - the users of every instruction, found without scanning a body: the
//!   editor indexes operands and control edges once, on the first question,
//!   and updates the index with each edit. Raw access to an instruction's
//!   data ([`Editor::data_mut`]) takes the instruction out of the index and
//!   puts it back, as it then is, when the access ends, so the index is
//!   never stale and never rebuilt.
//!
//! Handles are never reused: a removed instruction's handle stays allocated
//! (its data kept, outside every body), so a side table indexed by handles
//! never sees one instruction's entry under another's name.
//!
//! ```text
//! let mut editor = module.edit();
//! let start = editor.insert_before(done_site, start_data);   // body and schedule
//! editor.replace_all_uses(old, done);                        // operands and root
//! editor.remove(old)?;                                       // refuses if still used
//! ```

use rustc_hash::FxHashMap;

use crate::module::{Comp, CompData, Instr, InstrData, Module};

/// Why an edit was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditError(pub String);

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EditError {}

/// Who refers to each instruction: its users (as an operand) and its
/// control successors, each once, in the order they were found.
#[derive(Default)]
struct UseIndex {
    users: FxHashMap<Instr, Vec<Instr>>,
    control_successors: FxHashMap<Instr, Vec<Instr>>,
}

impl UseIndex {
    fn build(m: &Module) -> UseIndex {
        let mut index = UseIndex::default();
        for instr in m.all_instrs() {
            index.note(m, instr);
        }
        index
    }

    /// Records the operands and control predecessors of `instr`.
    fn note(&mut self, m: &Module, instr: Instr) {
        let data = &m.instrs[instr];
        for &operand in data.operands.iter() {
            push_once(self.users.entry(operand).or_default(), instr);
        }
        for &predecessor in data.control_predecessors() {
            push_once(
                self.control_successors.entry(predecessor).or_default(),
                instr,
            );
        }
    }

    /// Forgets the operands and control predecessors of `instr`.
    fn forget(&mut self, m: &Module, instr: Instr) {
        let data = &m.instrs[instr];
        for &operand in data.operands.iter() {
            if let Some(users) = self.users.get_mut(&operand) {
                users.retain(|&u| u != instr);
            }
        }
        for &predecessor in data.control_predecessors() {
            if let Some(successors) = self.control_successors.get_mut(&predecessor) {
                successors.retain(|&s| s != instr);
            }
        }
    }
}

fn push_once(list: &mut Vec<Instr>, instr: Instr) {
    if !list.contains(&instr) {
        list.push(instr);
    }
}

/// Where a new instruction goes in its computation.
#[derive(Clone, Copy)]
enum Place {
    End(Comp),
    Before(Instr),
    After(Instr),
}

/// An exclusive editing session on a module (see the module docs).
pub struct Editor<'m> {
    m: &'m mut Module,
    index: Option<UseIndex>,
    /// The names in use, made on the first request for a new one.
    names: Option<Names>,
    /// The instructions removed in this session.
    removed: rustc_hash::FxHashSet<Instr>,
}

/// Mutable access to one instruction's data through an [`Editor`]: while it
/// lives the instruction is out of the editor's index of users, and when it
/// ends the instruction goes back in with its operands and control edges as
/// they now are.
pub struct DataGuard<'e, 'm> {
    editor: &'e mut Editor<'m>,
    instr: Instr,
}

impl std::ops::Deref for DataGuard<'_, '_> {
    type Target = InstrData;
    fn deref(&self) -> &InstrData {
        &self.editor.m.instrs[self.instr]
    }
}

impl std::ops::DerefMut for DataGuard<'_, '_> {
    fn deref_mut(&mut self) -> &mut InstrData {
        &mut self.editor.m.instrs[self.instr]
    }
}

impl Drop for DataGuard<'_, '_> {
    fn drop(&mut self) {
        if let Some(index) = &mut self.editor.index {
            index.note(self.editor.m, self.instr);
        }
    }
}

/// The instruction and computation names in use, for new ones made as XLA
/// makes them (`all-reduce-start`, then `all-reduce-start.1`).
struct Names {
    instrs: crate::names::NameUniquer,
    comps: crate::names::NameUniquer,
}

impl Module {
    /// Starts editing the module.
    pub fn edit(&mut self) -> Editor<'_> {
        Editor {
            m: self,
            index: None,
            names: None,
            removed: rustc_hash::FxHashSet::default(),
        }
    }
}

impl<'m> Editor<'m> {
    /// The module as it is now.
    #[inline]
    pub fn module(&self) -> &Module {
        self.m
    }

    /// The data of `instr`.
    #[inline]
    pub fn data(&self, instr: Instr) -> &InstrData {
        &self.m.instrs[instr]
    }

    /// The data of `instr`, to change freely (attributes, name, shape,
    /// operands, control predecessors); the index of users follows when the
    /// access ends (see [`DataGuard`]).
    pub fn data_mut(&mut self, instr: Instr) -> DataGuard<'_, 'm> {
        if let Some(index) = &mut self.index {
            index.forget(self.m, instr);
        }
        DataGuard {
            editor: self,
            instr,
        }
    }

    /// Whether `instr` was removed in this session.
    pub fn is_removed(&self, instr: Instr) -> bool {
        self.removed.contains(&instr)
    }

    /// The module's shape table, to make the shapes of new instructions
    /// (shapes do not change who uses whom: the index stays).
    pub fn shapes_mut(&mut self) -> &mut crate::shape::ShapeTable {
        &mut self.m.shapes
    }

    /// The name and execution thread of `comp` (its order stays the
    /// editor's to change).
    pub fn comp_mut(&mut self, comp: Comp) -> &mut CompData {
        &mut self.m.comps[comp]
    }

    /// The schedule, to set a computation's sequence wholesale (a copy of
    /// a scheduled computation, a scheduler's order).
    pub fn schedule_mut(&mut self) -> &mut crate::module::Schedule {
        &mut self.m.schedule
    }

    /// The module itself, for what the editor does not cover (module
    /// attributes, names, the schedule wholesale). Drops the users index.
    pub fn module_mut(&mut self) -> &mut Module {
        self.index = None;
        self.m
    }

    fn names(&mut self) -> &mut Names {
        let m = &*self.m;
        self.names.get_or_insert_with(|| {
            let mut names = Names {
                instrs: crate::names::NameUniquer::default(),
                comps: crate::names::NameUniquer::default(),
            };
            for instr in m.all_instrs() {
                names.instrs.reserve(&m.instrs[instr].name);
            }
            for comp in m.computations() {
                names.comps.reserve(&m.comps[comp].name);
            }
            names
        })
    }

    /// A name for a new instruction: `wanted` if no instruction of the
    /// module has it, else the next free `wanted.N` (XLA's uniquer).
    pub fn unique_instr_name(&mut self, wanted: &str) -> compact_str::CompactString {
        self.names().instrs.unique(wanted).into()
    }

    /// A name for a new computation, as [`Editor::unique_instr_name`] makes
    /// one among computations.
    pub fn unique_comp_name(&mut self, wanted: &str) -> compact_str::CompactString {
        self.names().comps.unique(wanted).into()
    }

    fn index(&mut self) -> &mut UseIndex {
        let m = &*self.m;
        self.index.get_or_insert_with(|| UseIndex::build(m))
    }

    /// The instructions that use `instr` as an operand, each once.
    pub fn users(&mut self, instr: Instr) -> Vec<Instr> {
        self.index().users.get(&instr).cloned().unwrap_or_default()
    }

    /// The instructions that have `instr` as a control predecessor.
    pub fn control_successors(&mut self, instr: Instr) -> Vec<Instr> {
        self.index()
            .control_successors
            .get(&instr)
            .cloned()
            .unwrap_or_default()
    }

    /// Adds an empty computation named `name` (unscheduled: give it a
    /// sequence with [`Editor::schedule_like_body`] in a scheduled module).
    pub fn add_comp(&mut self, name: impl Into<compact_str::CompactString>) -> Comp {
        self.m.add_comp(name)
    }

    /// Gives `comp` a sequence equal to its body, in a scheduled module.
    pub fn schedule_like_body(&mut self, comp: Comp) {
        if self.m.is_scheduled() {
            let body = self.m.comps[comp].body.clone();
            self.m.schedule.set_sequence(comp, body);
        }
    }

    /// Adds `data` at the end of `comp` (and of its sequence).
    pub fn append(&mut self, comp: Comp, data: InstrData) -> Instr {
        self.insert(Place::End(comp), data)
    }

    /// Adds `data` just before `anchor`, in its computation's body and
    /// sequence.
    pub fn insert_before(&mut self, anchor: Instr, data: InstrData) -> Instr {
        self.insert(Place::Before(anchor), data)
    }

    /// Adds `data` just after `anchor`, in its computation's body and
    /// sequence.
    pub fn insert_after(&mut self, anchor: Instr, data: InstrData) -> Instr {
        self.insert(Place::After(anchor), data)
    }

    fn insert(&mut self, place: Place, data: InstrData) -> Instr {
        let comp = match place {
            Place::End(comp) => comp,
            Place::Before(anchor) | Place::After(anchor) => self.m.parent(anchor),
        };
        let instr = self.m.add_instr(comp, data);
        // `add_instr` put it last in the body; move it next to its anchor.
        let body = &mut self.m.comps[comp].body;
        body.pop();
        place_in(body, place, instr);
        if let Some(sequence) = self.m.schedule.sequence_mut(comp) {
            place_in(sequence, place, instr);
        }
        if let Some(index) = &mut self.index {
            index.note(self.m, instr);
        }
        instr
    }

    /// Makes `operand` the `position`th operand of `instr`.
    pub fn set_operand(&mut self, instr: Instr, position: usize, operand: Instr) {
        let mut operands: Vec<Instr> = self.m.instrs[instr].operands.to_vec();
        operands[position] = operand;
        self.set_operands(instr, operands);
    }

    /// Makes `operands` the operands of `instr`.
    pub fn set_operands(&mut self, instr: Instr, operands: Vec<Instr>) {
        if let Some(index) = &mut self.index {
            index.forget(self.m, instr);
        }
        self.m.instrs[instr].operands = operands.into_iter().collect();
        if let Some(index) = &mut self.index {
            index.note(self.m, instr);
        }
    }

    /// Makes every use of `old` a use of `new`: as an operand, and as its
    /// computation's root (XLA's `ReplaceAllUsesWith`). Control edges stay
    /// where they are. Returns how many users changed.
    pub fn replace_all_uses(&mut self, old: Instr, new: Instr) -> usize {
        self.replace_uses_except(old, new, &[])
    }

    /// [`Editor::replace_all_uses`], but leaves the users in `except`
    /// alone (the new instruction itself, when it uses the old one).
    pub fn replace_uses_except(&mut self, old: Instr, new: Instr, except: &[Instr]) -> usize {
        let users: Vec<Instr> = self
            .users(old)
            .into_iter()
            .filter(|user| !except.contains(user))
            .collect();
        for &user in &users {
            let operands = self.m.instrs[user]
                .operands
                .iter()
                .map(|&o| if o == old { new } else { o })
                .collect();
            self.set_operands(user, operands);
        }
        let comp = self.m.parent(old);
        if self.m.comps[comp].root == Some(old) && !except.contains(&old) {
            self.m.comps[comp].root = Some(new);
        }
        users.len()
    }

    /// Makes `instr` the root of `comp`.
    pub fn set_root(&mut self, comp: Comp, instr: Instr) {
        self.m.comps[comp].root = Some(instr);
    }

    /// Adds the control edge `predecessor` → `successor` (once).
    pub fn add_control_edge(&mut self, predecessor: Instr, successor: Instr) {
        let common = self.m.instrs[successor].common_mut();
        if common.control_predecessors.contains(&predecessor) {
            return;
        }
        common.control_predecessors.push(predecessor);
        if let Some(index) = &mut self.index {
            push_once(
                index.control_successors.entry(predecessor).or_default(),
                successor,
            );
        }
    }

    /// Removes the control edge `predecessor` → `successor`, if present.
    pub fn remove_control_edge(&mut self, predecessor: Instr, successor: Instr) {
        if let Some(common) = self.m.instrs[successor].common.as_deref_mut() {
            common.control_predecessors.retain(|&p| p != predecessor);
        }
        if let Some(index) = &mut self.index
            && let Some(successors) = index.control_successors.get_mut(&predecessor)
        {
            successors.retain(|&s| s != successor);
        }
    }

    /// Removes every control edge into and out of `instr`.
    pub fn drop_control_edges(&mut self, instr: Instr) {
        for successor in self.control_successors(instr) {
            self.remove_control_edge(instr, successor);
        }
        let predecessors = self.m.instrs[instr].control_predecessors().to_vec();
        for predecessor in predecessors {
            self.remove_control_edge(predecessor, instr);
        }
    }

    /// Removes `instr` from its computation (body and sequence), with its
    /// control edges. Refused while another instruction uses it or it is
    /// its computation's root.
    pub fn remove(&mut self, instr: Instr) -> Result<(), EditError> {
        let users = self.users(instr);
        let name = &self.m.instrs[instr].name;
        if let Some(&user) = users.first() {
            return Err(EditError(format!(
                "%{name} cannot be removed: %{} uses it",
                self.m.instrs[user].name
            )));
        }
        let comp = self.m.parent(instr);
        if self.m.comps[comp].root == Some(instr) {
            return Err(EditError(format!(
                "%{name} cannot be removed: it is the root of %{}",
                self.m.comps[comp].name
            )));
        }
        self.drop_control_edges(instr);
        if let Some(index) = &mut self.index {
            index.forget(self.m, instr);
        }
        self.take_out(instr);
        self.removed.insert(instr);
        Ok(())
    }

    /// Takes `instr` out of its computation's body, sequence and parameter
    /// list, keeping its data.
    fn take_out(&mut self, instr: Instr) {
        let comp = self.m.parent(instr);
        let data: &mut CompData = &mut self.m.comps[comp];
        data.body.retain(|&i| i != instr);
        if let Some(slot) = data.params.iter().position(|&p| p == instr) {
            // Parameters are numbered: only the last may go.
            if slot + 1 == data.params.len() {
                data.params.pop();
            }
        }
        if let Some(sequence) = self.m.schedule.sequence_mut(comp) {
            sequence.retain(|&i| i != instr);
        }
    }

    /// Moves `instr` to the end of `comp` (and of its sequence), keeping its
    /// handle, operands and control edges: the caller moves the operands
    /// with it, or rewires them, so that they end in the same computation.
    pub fn move_to(&mut self, instr: Instr, comp: Comp) {
        self.take_out(instr);
        self.m.parents[instr] = comp;
        self.m.comps[comp].body.push(instr);
        if let Some(sequence) = self.m.schedule.sequence_mut(comp) {
            sequence.push(instr);
        }
    }

    /// Removes the computation `comp` from the module's live computations
    /// (and its sequence). Its instructions stay allocated but belong to no
    /// live computation; callers first make sure nothing calls it.
    pub fn remove_comp(&mut self, comp: Comp) {
        self.index = None;
        self.m.comp_order.retain(|&c| c != comp);
        self.m.schedule.remove_sequence(comp);
        if self.m.entry == Some(comp) {
            self.m.entry = None;
        }
    }
}

/// Puts `instr` into `order` at `place` (at the end when the anchor is not
/// there).
fn place_in(order: &mut Vec<Instr>, place: Place, instr: Instr) {
    let at = match place {
        Place::End(_) => None,
        Place::Before(anchor) => order.iter().position(|&i| i == anchor),
        Place::After(anchor) => order.iter().position(|&i| i == anchor).map(|at| at + 1),
    };
    match at {
        Some(at) => order.insert(at, instr),
        None => order.push(instr),
    }
}

#[cfg(test)]
mod tests {
    use crate::module::Module;
    use crate::text::{PrintOptions, parse, print};

    fn module(text: &str) -> Module {
        parse(text).expect("parses")
    }

    const SCHEDULED: &str = "HloModule m, is_scheduled=true\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  %a = f32[4] negate(%p)\n  %b = f32[4] abs(%a)\n  ROOT %c = f32[4] add(%a, %b)\n}\n";

    fn find(m: &Module, name: &str) -> crate::module::Instr {
        m.all_instrs()
            .find(|&i| m.instrs[i].name == name)
            .expect("named instruction")
    }

    #[test]
    fn users_are_indexed_and_follow_edits() {
        let mut m = module(SCHEDULED);
        let (p, a, b, c) = (find(&m, "p"), find(&m, "a"), find(&m, "b"), find(&m, "c"));
        let mut editor = m.edit();
        assert_eq!(editor.users(a), vec![b, c]);
        assert_eq!(editor.users(p), vec![a]);
        editor.set_operand(c, 0, p);
        assert_eq!(editor.users(a), vec![b]);
        assert_eq!(editor.users(p), vec![a, c]);
    }

    #[test]
    fn raw_edits_keep_the_index_without_rebuilding_it() {
        let mut m = module(SCHEDULED);
        let (p, a, b, c) = (find(&m, "p"), find(&m, "a"), find(&m, "b"), find(&m, "c"));
        let mut editor = m.edit();
        assert_eq!(editor.users(a), vec![b, c]);
        editor.data_mut(b).operands = [p].into_iter().collect();
        editor.data_mut(c).common_mut().control_predecessors.push(b);
        assert_eq!(editor.users(a), vec![c]);
        assert_eq!(editor.users(p), vec![a, b]);
        assert_eq!(editor.control_successors(b), vec![c]);
        editor.remove(a).unwrap_err();
        assert!(!editor.is_removed(a));
    }

    #[test]
    fn an_insert_takes_its_place_in_body_and_schedule() {
        let mut m = module(SCHEDULED);
        let (a, b) = (find(&m, "a"), find(&m, "b"));
        let mut data = m.instrs[b].clone();
        data.name = "b2".into();
        let mut editor = m.edit();
        let b2 = editor.insert_after(a, data);
        editor.replace_uses_except(b, b2, &[]);
        editor.remove(b).expect("no user left");
        let text = print(&m, &PrintOptions::short());
        assert!(
            text.contains(
                "a = f32[4]{0} negate(p)\n  b2 = f32[4]{0} abs(a)\n  ROOT c = f32[4]{0} add(a, b2)"
            ),
            "{text}"
        );
        assert!(crate::verify::verify(&m).is_ok());
    }

    #[test]
    fn a_used_instruction_or_a_root_is_not_removed() {
        let mut m = module(SCHEDULED);
        let (a, c) = (find(&m, "a"), find(&m, "c"));
        let mut editor = m.edit();
        assert_eq!(
            editor.remove(a).unwrap_err().0,
            "%a cannot be removed: %b uses it"
        );
        assert_eq!(
            editor.remove(c).unwrap_err().0,
            "%c cannot be removed: it is the root of %main"
        );
    }

    #[test]
    fn replacing_the_root_moves_the_root() {
        let mut m = module(SCHEDULED);
        let (b, c) = (find(&m, "b"), find(&m, "c"));
        let mut editor = m.edit();
        editor.replace_all_uses(c, b);
        editor.remove(c).expect("no longer the root");
        let entry = m.entry.expect("entry");
        assert_eq!(m.comp(entry).root(), Some(b));
        assert_eq!(m.schedule().sequence(entry).map(<[_]>::len), Some(3));
        assert!(crate::verify::verify(&m).is_ok());
    }

    #[test]
    fn control_edges_are_indexed_and_dropped_with_their_instruction() {
        let mut m = module(SCHEDULED);
        let (a, b) = (find(&m, "a"), find(&m, "b"));
        let mut editor = m.edit();
        let p = find(editor.module(), "p");
        editor.add_control_edge(p, b);
        assert_eq!(editor.control_successors(p), vec![b]);
        editor.drop_control_edges(b);
        assert!(editor.control_successors(p).is_empty());
        assert!(editor.data(b).control_predecessors().is_empty());
        assert_eq!(editor.users(a).len(), 2);
    }

    #[test]
    fn a_moved_instruction_keeps_its_handle() {
        let mut m = module(SCHEDULED);
        let a = find(&m, "a");
        let mut editor = m.edit();
        let other = editor.add_comp("other");
        editor.schedule_like_body(other);
        editor.move_to(a, other);
        assert_eq!(m.parent(a), other);
        assert_eq!(m.comp(other).body(), &[a]);
        assert_eq!(m.schedule().sequence(other), Some(&[a][..]));
        let entry = m.entry.expect("entry");
        assert!(!m.comp(entry).body().contains(&a));
        assert!(!m.schedule().sequence(entry).unwrap().contains(&a));
    }
}

//! Memory pressure while scheduling (XLA's `MemoryPressureTracker` and
//! `ModulePressureState`), over weft's buffers ([`Aliases`]).
//!
//! Walking bottom-up, a buffer becomes live at its last reader (the first
//! one the walk meets) and dies at the instruction that first defines it;
//! top-down, the other way round. Scheduling an instruction therefore
//! *allocates* the buffers of its operands (bottom-up) or of its results
//! (top-down) and *releases* the ones it defines (bottom-up) or last reads
//! (top-down). An instruction that calls computations adds their peak on
//! top of what is live around it. Entry parameters are live throughout and
//! never counted as allocations, and a get-tuple-element or bitcast of a
//! tuple element does not allocate the element again.
//!
//! The tracker answers two questions: how much is live now
//! ([`PressureTracker::usage`]) and what scheduling an instruction would
//! change ([`PressureTracker::difference`]: the net increase and the
//! transient peak). The scheduler consults them only when a memory limit is
//! set; the peak it reaches is reported either way.

use rustc_hash::FxHashMap;
use weft_ir::{Comp, Instr, Module, Opcode};

use crate::analysis::alias::{Aliases, BufferId};
use crate::analysis::dataflow::Dataflow;

/// What is known of one buffer from the module's schedule.
#[derive(Clone, Debug, Default)]
struct BufferInfo {
    seen: bool,
    first_definition: Option<Instr>,
    last_use: Option<Instr>,
    /// The instructions whose callees define it, outermost first.
    defining_calls: Vec<Instr>,
}

/// The pressure a computation's schedule reaches, and what is live below
/// its last instruction.
#[derive(Clone, Debug, Default)]
pub struct PressureState {
    /// The most bytes live at once.
    pub peak: i64,
    /// Buffers live when the computation ends (from its caller).
    pub live_at_bottom: Vec<BufferId>,
}

/// Buffers across the module, and each scheduled computation's pressure.
pub struct ModuleMemory<'a> {
    module: &'a Module,
    dataflow: &'a Dataflow,
    aliases: &'a Aliases,
    top_down: bool,
    infos: Vec<BufferInfo>,
    states: FxHashMap<Comp, PressureState>,
}

fn is_fusion_callee(module: &Module, caller: Instr) -> bool {
    module.instr(caller).opcode == Opcode::Fusion
}

/// The buffers at every position of `instr`, with the position's index.
fn buffers_at(dataflow: &Dataflow, aliases: &Aliases, instr: Instr) -> Vec<(BufferId, Vec<i64>)> {
    let mut found = Vec::new();
    for position in dataflow.positions(instr) {
        for &value in &position.values {
            let buffer = aliases.buffer_of(value);
            if !found
                .iter()
                .any(|(b, index): &(BufferId, Vec<i64>)| *b == buffer && *index == position.index)
            {
                found.push((buffer, position.index.clone()));
            }
        }
    }
    found
}

impl<'a> ModuleMemory<'a> {
    /// The buffers of `module` under its current schedule, and the
    /// pressure each scheduled computation reaches.
    pub fn new(
        module: &'a Module,
        dataflow: &'a Dataflow,
        aliases: &'a Aliases,
        top_down: bool,
    ) -> ModuleMemory<'a> {
        let mut memory = ModuleMemory {
            module,
            dataflow,
            aliases,
            top_down,
            infos: vec![BufferInfo::default(); aliases.buffers().len()],
            states: FxHashMap::default(),
        };
        if let Some(entry) = module.entry() {
            let mut stack = Vec::new();
            memory.record_buffers(entry, &mut stack);
            memory.reset_states(entry, &[]);
        }
        memory
    }

    fn record_buffers(&mut self, comp: Comp, calls: &mut Vec<Instr>) {
        let module = self.module;
        let Some(sequence) = module.schedule().sequence(comp) else {
            return;
        };
        if calls.len() > weft_ir::MAX_CALL_DEPTH {
            return;
        }
        for &instr in sequence {
            if !is_fusion_callee(module, instr) {
                for &callee in module.instr(instr).callees.iter() {
                    calls.push(instr);
                    self.record_buffers(callee, calls);
                    calls.pop();
                }
            }
            for (buffer, _) in buffers_at(self.dataflow, self.aliases, instr) {
                let info = &mut self.infos[buffer.0 as usize];
                if !info.seen {
                    *info = BufferInfo {
                        seen: true,
                        first_definition: Some(instr),
                        last_use: Some(instr),
                        defining_calls: calls.clone(),
                    };
                }
            }
            for &operand in module.instr(instr).operands.iter() {
                for (buffer, _) in buffers_at(self.dataflow, self.aliases, operand) {
                    self.infos[buffer.0 as usize].last_use = Some(instr);
                }
            }
        }
    }

    fn reset_states(&mut self, comp: Comp, initial: &[BufferId]) {
        let module = self.module;
        let Some(sequence) = module.schedule().sequence(comp) else {
            return;
        };
        let sequence = sequence.to_vec();
        let metadata = self.metadata(comp);
        let mut tracker = PressureTracker::new(self, initial);
        let order: Vec<Instr> = if self.top_down {
            sequence
        } else {
            sequence.into_iter().rev().collect()
        };
        for instr in order {
            if !is_fusion_callee(module, instr) {
                for &callee in module.instr(instr).callees.iter() {
                    let live = tracker.live_buffers();
                    self.reset_states(callee, &live);
                }
            }
            tracker.update(self, &metadata, instr);
        }
        let state = tracker.state();
        self.states.insert(comp, state);
    }

    /// The most bytes live at once while `comp` runs `sequence` (its
    /// callers' live buffers included), walking it the way this model was
    /// built to.
    pub fn sequence_peak(&self, comp: Comp, sequence: &[Instr]) -> i64 {
        let metadata = self.metadata(comp);
        let mut tracker = PressureTracker::new(self, &self.live_at_bottom(comp));
        if self.top_down {
            for &instr in sequence {
                tracker.update(self, &metadata, instr);
            }
        } else {
            for &instr in sequence.iter().rev() {
                tracker.update(self, &metadata, instr);
            }
        }
        tracker.peak() + tracker.initial
    }

    /// Records the pressure `comp`'s new schedule reaches.
    pub fn set_state(&mut self, comp: Comp, state: PressureState) {
        self.states.insert(comp, state);
    }

    /// The largest peak of any computation.
    pub fn peak(&self) -> i64 {
        self.states.values().map(|s| s.peak).max().unwrap_or(0)
    }

    /// What is live below `comp` when it ends, from its callers.
    pub fn live_at_bottom(&self, comp: Comp) -> Vec<BufferId> {
        self.states
            .get(&comp)
            .map(|s| s.live_at_bottom.clone())
            .unwrap_or_default()
    }

    fn size(&self, buffer: BufferId) -> i64 {
        self.aliases.buffer(buffer).bytes as i64
    }

    fn defines(&self, instr: Instr, buffer: BufferId) -> bool {
        let info = &self.infos[buffer.0 as usize];
        info.first_definition == Some(instr)
            || (!self.module.instr(instr).callees.is_empty()
                && info.defining_calls.contains(&instr))
    }

    fn last_uses(&self, instr: Instr, buffer: BufferId) -> bool {
        let info = &self.infos[buffer.0 as usize];
        if info.last_use == Some(instr) {
            return true;
        }
        let data = self.module.instr(instr);
        if matches!(data.opcode, Opcode::AsyncStart | Opcode::AsyncDone)
            && let Some(comp) =
                weft_ir::async_chain::ChainTracer::new(self.module).wrapped_computation(instr)
        {
            return self.module.comp(comp).root() == info.last_use;
        }
        false
    }

    /// What each instruction of `comp` allocates and releases.
    pub fn metadata(&self, comp: Comp) -> ComputationMemory {
        let module = self.module;
        let is_entry = module.entry() == Some(comp);
        let mut outputs: FxHashMap<Instr, Vec<(BufferId, Vec<i64>)>> = FxHashMap::default();
        for &instr in module.comp(comp).body() {
            outputs.insert(instr, buffers_at(self.dataflow, self.aliases, instr));
        }
        let skip_allocation = |user: Instr, index: &[i64], buffer: BufferId| {
            let opcode = module.instr(user).opcode;
            if matches!(opcode, Opcode::GetTupleElement | Opcode::Bitcast) && !index.is_empty() {
                return true;
            }
            let info = &self.infos[buffer.0 as usize];
            info.first_definition.is_some_and(|definition| {
                module.instr(definition).opcode == Opcode::Parameter
                    && module.entry() == Some(module.parent(definition))
            }) || (!info.seen && is_entry && module.instr(user).opcode == Opcode::Parameter)
        };
        let mut allocations: FxHashMap<Instr, Vec<BufferId>> = FxHashMap::default();
        let mut releases: FxHashMap<Instr, Vec<BufferId>> = FxHashMap::default();
        let empty = Vec::new();
        for &instr in module.comp(comp).body() {
            let data = module.instr(instr);
            let mut allocated = Vec::new();
            let mut released = Vec::new();
            if self.top_down {
                for (buffer, index) in outputs.get(&instr).unwrap_or(&empty) {
                    if !skip_allocation(instr, index, *buffer) {
                        allocated.push(*buffer);
                    }
                }
                if data.opcode != Opcode::Parameter {
                    for operand in data.operands.iter() {
                        for (buffer, _) in outputs.get(operand).unwrap_or(&empty) {
                            if self.last_uses(instr, *buffer) {
                                released.push(*buffer);
                            }
                        }
                    }
                }
            } else {
                for operand in data.operands.iter() {
                    for (buffer, index) in outputs.get(operand).unwrap_or(&empty) {
                        if !skip_allocation(instr, index, *buffer) {
                            allocated.push(*buffer);
                        }
                    }
                }
                if data.opcode != Opcode::Parameter {
                    for (buffer, _) in outputs.get(&instr).unwrap_or(&empty) {
                        let defined_here = self
                            .aliases
                            .buffer(*buffer)
                            .values
                            .iter()
                            .any(|&v| self.dataflow.value(v).instruction == instr)
                            || self.defines(instr, *buffer);
                        if defined_here
                            && self.defines(instr, *buffer)
                            && !released.contains(buffer)
                        {
                            released.push(*buffer);
                        }
                    }
                }
            }
            allocations.insert(instr, allocated);
            releases.insert(instr, released);
        }
        ComputationMemory {
            allocations,
            releases,
        }
    }
}

/// The module's memory model under its current schedule, walked each way,
/// each built on first use: every candidate schedule of one computation
/// counts with the same one.
pub struct Memories<'a> {
    module: &'a Module,
    dataflow: &'a Dataflow,
    aliases: &'a Aliases,
    bottom_up: std::cell::OnceCell<ModuleMemory<'a>>,
    top_down: std::cell::OnceCell<ModuleMemory<'a>>,
}

impl<'a> Memories<'a> {
    /// The model of `module`'s buffers, not built yet.
    pub fn new(module: &'a Module, dataflow: &'a Dataflow, aliases: &'a Aliases) -> Memories<'a> {
        Memories {
            module,
            dataflow,
            aliases,
            bottom_up: std::cell::OnceCell::new(),
            top_down: std::cell::OnceCell::new(),
        }
    }

    /// The model walking bottom-up, or top-down.
    pub fn walking(&self, top_down: bool) -> &ModuleMemory<'a> {
        let cell = if top_down {
            &self.top_down
        } else {
            &self.bottom_up
        };
        cell.get_or_init(|| ModuleMemory::new(self.module, self.dataflow, self.aliases, top_down))
    }
}

/// What each instruction of one computation allocates and releases.
pub struct ComputationMemory {
    allocations: FxHashMap<Instr, Vec<BufferId>>,
    releases: FxHashMap<Instr, Vec<BufferId>>,
}

/// Live bytes while a computation is scheduled.
#[derive(Clone, Debug)]
pub struct PressureTracker {
    live: Vec<bool>,
    live_order: Vec<BufferId>,
    usage: i64,
    initial: i64,
    peak: i64,
    live_at_bottom: Vec<BufferId>,
}

impl PressureTracker {
    /// A tracker starting with `initial` live (from the callers).
    pub fn new(memory: &ModuleMemory<'_>, initial: &[BufferId]) -> PressureTracker {
        let mut live = vec![false; memory.aliases.buffers().len()];
        let mut initial_bytes = 0;
        for &buffer in initial {
            if !live[buffer.0 as usize] {
                live[buffer.0 as usize] = true;
                initial_bytes += memory.size(buffer);
            }
        }
        PressureTracker {
            live,
            live_order: initial.to_vec(),
            usage: 0,
            initial: initial_bytes,
            peak: 0,
            live_at_bottom: initial.to_vec(),
        }
    }

    /// Bytes live now, the callers' included.
    pub fn usage(&self) -> i64 {
        self.usage + self.initial
    }

    /// The buffers live now.
    pub fn live_buffers(&self) -> Vec<BufferId> {
        self.live_order
            .iter()
            .copied()
            .filter(|b| self.live[b.0 as usize])
            .collect()
    }

    /// The state reached so far.
    pub fn state(&self) -> PressureState {
        PressureState {
            peak: self.peak,
            live_at_bottom: self.live_at_bottom.clone(),
        }
    }

    /// The most bytes live at once so far (without the callers').
    pub fn peak(&self) -> i64 {
        self.peak
    }

    fn callee_peak(memory: &ModuleMemory<'_>, instr: Instr) -> i64 {
        if is_fusion_callee(memory.module, instr) {
            return 0;
        }
        memory
            .module
            .instr(instr)
            .callees
            .iter()
            .filter_map(|callee| memory.states.get(callee))
            .map(|state| state.peak)
            .max()
            .unwrap_or(0)
    }

    /// Schedules `instr`: its allocations become live, its releases die.
    pub fn update(
        &mut self,
        memory: &ModuleMemory<'_>,
        metadata: &ComputationMemory,
        instr: Instr,
    ) {
        let callees = Self::callee_peak(memory, instr);
        self.peak = self.peak.max(self.usage + callees);
        for &buffer in metadata.allocations.get(&instr).into_iter().flatten() {
            if !self.live[buffer.0 as usize] {
                self.live[buffer.0 as usize] = true;
                self.live_order.push(buffer);
                self.usage += memory.size(buffer);
            }
        }
        self.peak = self.peak.max(self.usage);
        for &buffer in metadata.releases.get(&instr).into_iter().flatten() {
            if self.live[buffer.0 as usize] {
                self.live[buffer.0 as usize] = false;
                self.usage -= memory.size(buffer);
            }
        }
    }

    /// What scheduling `instr` would do: the net change in live bytes and
    /// the transient peak it reaches above what is live now.
    pub fn difference(
        &self,
        memory: &ModuleMemory<'_>,
        metadata: &ComputationMemory,
        instr: Instr,
    ) -> (i64, i64) {
        let mut increase = 0;
        let mut peak = Self::callee_peak(memory, instr);
        for &buffer in metadata.allocations.get(&instr).into_iter().flatten() {
            if !self.live[buffer.0 as usize] {
                increase += memory.size(buffer);
            }
        }
        peak = peak.max(increase);
        for &buffer in metadata.releases.get(&instr).into_iter().flatten() {
            if self.live[buffer.0 as usize] {
                increase -= memory.size(buffer);
            }
        }
        (increase, peak)
    }
}

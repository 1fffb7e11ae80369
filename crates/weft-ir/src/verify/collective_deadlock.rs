//! R14: scheduled device-to-device sends and receives cannot deadlock, as
//! XLA's `VerifyNoCollectiveDeadlocks` (`hlo_verifier.cc`) checks it.
//!
//! The check walks the program in execution order from the entry computation,
//! stepping into every called computation where it is called, and feeds each
//! `send`, `recv` and synchronous collective to a three-state machine (XLA's
//! `DfaState`): expecting nothing, expecting a send, or expecting a recv.
//! Sends and receives are paired by their frontend attribute
//! `_xla_send_recv_source_target_pairs` (the text must be identical). The
//! invariants:
//!
//! 1. No other collective (all-gather, all-to-all, ragged-all-to-all,
//!    collective-permute, collective-broadcast) runs between a send or recv and
//!    its partner: every device would block in the collective while its peer
//!    still waits for the transfer.
//! 2. No two sends run in a row (nor two receives) unless their source-target
//!    pairs together stay free of cycles and of repeated sources or targets.
//! 3. The program does not end with a send or recv that nothing matches.
//! 4. Each transfer's own source-target pairs have no cycle and no repeated
//!    source or target.
//!
//! Host transfers (`is_host_transfer=true`) and pipelined transfers (frontend
//! attribute `_xla_send_recv_pipeline`) take no part: XLA has not modelled the
//! extra ordering pipelining brings.
//!
//! **Grouped transfers.** An async computation that wraps several instructions
//! (a group of sends and receives issued together) runs its own machine, from
//! "expecting nothing", and leaves the caller's machine untouched. When the
//! caller is in the middle of a pair at the group's async-start, the group must
//! be balanced by itself: every send and recv in it matched inside it. An async
//! computation of a single instruction is not a group: its send or recv takes
//! part in the caller's machine, at the async-start.
//!
//! Faithful to XLA, down to its quirks:
//!
//! - the check runs only on scheduled modules, and stops at the first problem;
//! - an instruction that calls computations is never itself a send, recv or
//!   collective to the machine, so `all-reduce` and `reduce-scatter` (which call
//!   their reducer) never count as collectives; only their reducer is walked;
//! - first-class async collectives (`all-gather-start`, …) and the dones are
//!   ignored; the async ops' computation is walked at the async-start only;
//! - a while loop walks its condition, then its body, once each.
//!
//! Two departures: a computation is walked in its schedule's order when it has
//! one (XLA walks its instruction list, which is the same order for a module
//! read from text); and a send or recv without `_xla_send_recv_source_target_pairs`
//! is left out, as nothing can be matched with it (XLA runs this check only
//! when its verifier is asked to, for GPU modules whose transfers all carry
//! the attribute).
//!
//! **Bounds.** The walk steps into a computation wherever it is called, so a
//! computation called twice by one called twice by … would be walked a number
//! of times exponential in that depth (XLA's walk is). But what a computation
//! does to the machine depends only on the machine it starts from, so each
//! (computation, machine) pair is walked once and its outcome remembered: the
//! walk's cost is the number of distinct pairs, which real programs keep
//! small. As a last fence the walk visits at most [`WALK_BUDGET`]
//! instructions; a module that needs more is refused (rule R14 says it could
//! not be checked, never that it passed), and nothing is walked below
//! [`MAX_CALL_DEPTH`] levels of calls, where weft runs nothing anyway. So the
//! check takes bounded time and stack on any module.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::attrs::Attrs;
use crate::module::{Comp, Instr, MAX_CALL_DEPTH, Module};
use crate::opcode::Opcode;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

/// The frontend attribute that names a transfer's (source, target) devices.
const SOURCE_TARGET_PAIRS_ATTRIBUTE: &str = "_xla_send_recv_source_target_pairs";
/// The frontend attribute that marks a pipelined transfer.
const PIPELINE_ATTRIBUTE: &str = "_xla_send_recv_pipeline";

/// How many instructions the walk visits before it gives up.
const WALK_BUDGET: usize = 1 << 24;

pub(super) fn check(cx: &mut Checker) {
    let m = cx.m;
    let Some(entry) = m.entry.filter(|_| m.is_scheduled()) else {
        return;
    };
    let mut walker = Walker {
        m,
        sequences: m
            .computations()
            .filter_map(|comp| Some((comp, m.schedule().sequence(comp)?)))
            .collect(),
        async_computations: m
            .all_instrs()
            .filter(|&i| m.instrs[i].opcode == Opcode::AsyncStart)
            .filter_map(|i| m.instrs[i].callees.first().copied())
            .collect(),
        takes_part: FxHashMap::default(),
        walked: FxHashMap::default(),
        budget: WALK_BUDGET,
    };
    let mut machine = PairingMachine::default();
    let outcome = walker.walk(entry, &mut machine, 1).and_then(|()| {
        // A walk cut short has not seen every partner: the module is
        // refused as unchecked, below.
        if walker.budget == 0 {
            Ok(())
        } else {
            machine.check_pending(m, None)
        }
    });
    if outcome.is_ok() && walker.budget == 0 {
        cx.report_comp(
            Rule::AsyncDeadlock,
            entry,
            format!(
                "the sends, receives and collectives could not be checked for deadlocks: the program's calls repeat them in more than {WALK_BUDGET} distinct ways"
            ),
        )
        .with_hint("call the computations that hold sends and receives from fewer places, or inline them");
        return;
    }
    if let Err(problem) = outcome {
        let error = cx.report(Rule::AsyncDeadlock, problem.instr, problem.message);
        error.with_hint(problem.hint);
        if problem.about_pairs {
            error.at_attribute("frontend_attributes");
        }
    }
}

/// A deadlock (or malformed transfer) found: the check stops at the first.
struct Problem {
    instr: Instr,
    message: String,
    hint: String,
    /// Whether it is about the source-target pairs attribute itself.
    about_pairs: bool,
}

/// The two directions of a transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Direction {
    Send,
    Recv,
}

impl Direction {
    fn opposite(self) -> Direction {
        match self {
            Direction::Send => Direction::Recv,
            Direction::Recv => Direction::Send,
        }
    }

    fn opcode_name(self) -> &'static str {
        match self {
            Direction::Send => "send",
            Direction::Recv => "recv",
        }
    }
}

/// A send or recv that takes part in the check.
#[derive(Clone, Debug)]
struct Transfer {
    instr: Instr,
    /// The attribute's text: transfers pair up when these are identical.
    pairs_text: String,
    /// The (source, target) device pairs it names.
    pairs: Vec<(i64, i64)>,
}

/// XLA's `DfaState` with the transfers still waiting for a partner.
#[derive(Clone, Default)]
struct PairingMachine {
    /// `None`: expecting nothing; `Some(d)`: expecting a transfer of direction
    /// `d` to match the pending ones.
    expecting: Option<Direction>,
    pending_sends: Vec<Transfer>,
    pending_recvs: Vec<Transfer>,
}

impl PairingMachine {
    /// What the machine is, as a key: a transfer is its instruction.
    fn key(&self) -> MachineKey {
        let instrs = |transfers: &[Transfer]| transfers.iter().map(|t| t.instr).collect();
        (
            self.expecting,
            instrs(&self.pending_sends),
            instrs(&self.pending_recvs),
        )
    }

    fn pending(&mut self, direction: Direction) -> &mut Vec<Transfer> {
        match direction {
            Direction::Send => &mut self.pending_sends,
            Direction::Recv => &mut self.pending_recvs,
        }
    }

    /// XLA's `CheckDeadlocksForSend` and `CheckDeadlocksForRecv`.
    fn on_transfer(
        &mut self,
        m: &Module,
        direction: Direction,
        transfer: Transfer,
    ) -> Result<(), Problem> {
        match self.expecting {
            None => {
                self.pending(direction).push(transfer);
                self.expecting = Some(direction.opposite());
            }
            // A second transfer in the same direction before the partner of
            // the first: allowed only if all of them together could still
            // run at once.
            Some(expected) if expected != direction => {
                let same_direction = self.pending(direction);
                if let Some(conflicting) = same_direction
                    .iter()
                    .find(|other| pairs_conflict(&transfer.pairs, &other.pairs))
                {
                    let message = format!(
                        "Expected {}, but found %{}: it follows %{} before a {} matches that",
                        expected.opcode_name(),
                        m.instrs[transfer.instr].name,
                        m.instrs[conflicting.instr].name,
                        expected.opcode_name()
                    );
                    return Err(Problem {
                        instr: transfer.instr,
                        message,
                        hint: format!(
                            "schedule the matching {} of %{} first; two {}s whose source-target pairs together repeat a device or form a cycle cannot both be waiting",
                            expected.opcode_name(),
                            m.instrs[conflicting.instr].name,
                            direction.opcode_name()
                        ),
                        about_pairs: false,
                    });
                }
                same_direction.push(transfer);
            }
            // The expected direction: it completes a pending partner, if one
            // has the same pairs, and otherwise waits as well.
            Some(_) => {
                let partners = self.pending(direction.opposite());
                match partners
                    .iter()
                    .position(|p| p.pairs_text == transfer.pairs_text)
                {
                    Some(position) => {
                        partners.remove(position);
                        if partners.is_empty() {
                            self.expecting = None;
                        }
                    }
                    None => self.pending(direction).push(transfer),
                }
            }
        }
        Ok(())
    }

    /// XLA's `CheckDeadlocksForOtherCollectives`: a collective may not run
    /// while a transfer waits for its partner.
    fn on_other_collective(&self, m: &Module, instr: Instr) -> Result<(), Problem> {
        if self.expecting.is_none() {
            return Ok(());
        }
        let name = &m.instrs[instr].name;
        let waiting_count = self.pending_sends.len() + self.pending_recvs.len();
        let waiting = describe_transfers(m, self.pending_sends.iter().chain(&self.pending_recvs));
        if waiting_count == 0 {
            return Err(Problem {
                instr,
                message: format!("Expected send or recv, but found %{name}"),
                hint: "no collective may run while a send or recv waits for its partner"
                    .to_string(),
                about_pairs: false,
            });
        }
        Err(Problem {
            instr,
            message: format!(
                "Expected send and recv instructions to have the same source-target pairs, but could not match some instructions. Introducing the following instruction will cause a deadlock: %{name}"
            ),
            hint: format!(
                "{waiting} still {} for a partner: schedule the partner (with the same {SOURCE_TARGET_PAIRS_ATTRIBUTE}) before %{name}",
                if waiting_count == 1 { "waits" } else { "wait" }
            ),
            about_pairs: false,
        })
    }

    /// XLA's `CheckPendingSendRecvDeadlocks`, run at the end of the program
    /// (when the machine still expects something) and after a group: the
    /// waiting sends and receives must match each other. `group` names the
    /// async-start of a group.
    fn check_pending(&self, m: &Module, group: Option<Instr>) -> Result<(), Problem> {
        if self.expecting.is_none() && group.is_none() {
            return Ok(());
        }
        let (sends, recvs) = (&self.pending_sends, &self.pending_recvs);
        let place = match group {
            Some(start) => format!(" in the group of %{}", m.instrs[start].name),
            None => " by the end of the program".to_string(),
        };
        if recvs.is_empty() && !sends.is_empty() {
            return Err(Problem {
                instr: sends[0].instr,
                message: format!(
                    "Expected recv to match send: no recv matches {}{place}",
                    describe_transfers(m, sends.iter())
                ),
                hint: format!("add a recv with the same {SOURCE_TARGET_PAIRS_ATTRIBUTE}"),
                about_pairs: false,
            });
        }
        if sends.is_empty() && !recvs.is_empty() {
            return Err(Problem {
                instr: recvs[0].instr,
                message: format!(
                    "Expected send to match recv: no send matches {}{place}",
                    describe_transfers(m, recvs.iter())
                ),
                hint: format!("add a send with the same {SOURCE_TARGET_PAIRS_ATTRIBUTE}"),
                about_pairs: false,
            });
        }
        // As in XLA, a send that finds a recv removes it, but stays available
        // to the receives looked at afterwards.
        let mut unmatched = Vec::new();
        let mut recvs_left: Vec<&Transfer> = recvs.iter().collect();
        for send in sends {
            match recvs_left
                .iter()
                .position(|r| r.pairs_text == send.pairs_text)
            {
                Some(position) => {
                    recvs_left.remove(position);
                }
                None => unmatched.push(send),
            }
        }
        let mut sends_left: Vec<&Transfer> = sends.iter().collect();
        for recv in recvs_left {
            match sends_left
                .iter()
                .position(|s| s.pairs_text == recv.pairs_text)
            {
                Some(position) => {
                    sends_left.remove(position);
                }
                None => unmatched.push(recv),
            }
        }
        let Some(first) = unmatched.first() else {
            return Ok(());
        };
        Err(Problem {
            instr: first.instr,
            message: format!(
                "Deadlock detected{place}. Last checked instructions: {}",
                describe_transfers(m, unmatched.iter().copied())
            ),
            hint: format!(
                "each send needs a recv with the same {SOURCE_TARGET_PAIRS_ATTRIBUTE}, and each recv a send"
            ),
            about_pairs: false,
        })
    }
}

/// `%a ({{0,1}}), %b ({{1,0}})`.
fn describe_transfers<'t>(m: &Module, transfers: impl Iterator<Item = &'t Transfer>) -> String {
    transfers
        .map(|t| format!("%{} ({})", m.instrs[t.instr].name, t.pairs_text))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A [`PairingMachine`] as a key: what it expects, and its waiting sends
/// and receives.
type MachineKey = (Option<Direction>, Vec<Instr>, Vec<Instr>);

/// The walk over the program.
struct Walker<'m> {
    m: &'m Module,
    /// The schedule of each scheduled computation.
    sequences: FxHashMap<Comp, &'m [Instr]>,
    /// Computations an async-start calls.
    async_computations: FxHashSet<Comp>,
    /// Whether a computation holds a send, recv or collective, itself or in a
    /// computation it calls: the others cannot change the machine, so they
    /// are not walked.
    takes_part: FxHashMap<Comp, bool>,
    /// Each computation walked from a machine, and the machine it left.
    walked: FxHashMap<(Comp, MachineKey), PairingMachine>,
    /// How many more instructions the walk may visit ([`WALK_BUDGET`]).
    budget: usize,
}

impl<'m> Walker<'m> {
    /// XLA's `VerifyNoCollectiveDeadlocksRecursive`, at call level `depth`
    /// (the entry is the first), within the bounds the module documentation
    /// gives.
    fn walk(
        &mut self,
        comp: Comp,
        machine: &mut PairingMachine,
        depth: usize,
    ) -> Result<(), Problem> {
        if depth > MAX_CALL_DEPTH || self.budget == 0 || !self.takes_part(comp) {
            return Ok(());
        }
        let walked_from = (comp, machine.key());
        if let Some(left) = self.walked.get(&walked_from) {
            *machine = left.clone();
            return Ok(());
        }
        let m = self.m;
        let order = self
            .sequences
            .get(&comp)
            .copied()
            .unwrap_or(m.comps[comp].body.as_slice());
        for &instr in order {
            if self.budget == 0 {
                return Ok(());
            }
            self.budget -= 1;
            let Some(data) = m.instrs.get(instr) else {
                continue;
            };
            let callees = called_computations(m, instr);
            if callees.is_empty() {
                match data.opcode {
                    Opcode::Send => self.on_transfer(instr, Direction::Send, machine)?,
                    Opcode::Recv => self.on_transfer(instr, Direction::Recv, machine)?,
                    opcode if is_other_collective(opcode) => {
                        machine.on_other_collective(m, instr)?
                    }
                    _ => {}
                }
                continue;
            }
            for callee in callees {
                if self.is_group(callee) {
                    // Sends and receives issued together: their own machine.
                    let mut group = PairingMachine::default();
                    self.walk(callee, &mut group, depth + 1)?;
                    if machine.expecting.is_some() && self.budget > 0 {
                        group.check_pending(m, Some(instr))?;
                    }
                } else {
                    self.walk(callee, machine, depth + 1)?;
                }
            }
        }
        if self.budget > 0 {
            self.walked.insert(walked_from, machine.clone());
        }
        Ok(())
    }

    fn on_transfer(
        &self,
        instr: Instr,
        direction: Direction,
        machine: &mut PairingMachine,
    ) -> Result<(), Problem> {
        match transfer_to_check(self.m, instr)? {
            Some(transfer) => machine.on_transfer(self.m, direction, transfer),
            None => Ok(()),
        }
    }

    /// An async computation of more than its root and parameters (XLA's
    /// `IsAsyncComputation() && !CanExpandIntoSingleInstruction()`).
    fn is_group(&self, comp: Comp) -> bool {
        let data = &self.m.comps[comp];
        self.async_computations.contains(&comp)
            && data
                .body
                .iter()
                .any(|&i| Some(i) != data.root && self.m.instrs[i].opcode != Opcode::Parameter)
    }

    /// Whether `comp` holds a send, recv or collective, itself or in a
    /// computation it calls; found for every computation below it at once,
    /// without recursion (call chains may be long).
    fn takes_part(&mut self, comp: Comp) -> bool {
        if let Some(&known) = self.takes_part.get(&comp) {
            return known;
        }
        let m = self.m;
        let callees = |comp: Comp| {
            m.comps[comp]
                .body
                .iter()
                .flat_map(move |&instr| called_computations(m, instr))
        };
        // Depth-first, each computation decided once its callees are; the
        // handles stage proved the call graph acyclic.
        let mut stack = vec![(comp, callees(comp))];
        let mut on_stack = FxHashSet::from_iter([comp]);
        while let Some((current, pending)) = stack.last_mut() {
            let current = *current;
            match pending.find(|callee| !self.takes_part.contains_key(callee)) {
                Some(callee) if on_stack.insert(callee) => {
                    stack.push((callee, callees(callee)));
                }
                Some(_) => {}
                None => {
                    stack.pop();
                    on_stack.remove(&current);
                    let takes_part = m.comps[current].body.iter().any(|&instr| {
                        let opcode = m.instrs[instr].opcode;
                        matches!(opcode, Opcode::Send | Opcode::Recv)
                            || is_other_collective(opcode)
                            || called_computations(m, instr)
                                .into_iter()
                                .any(|callee| self.takes_part.get(&callee) == Some(&true))
                    });
                    self.takes_part.insert(current, takes_part);
                }
            }
        }
        self.takes_part[&comp]
    }
}

/// The computations `instr` calls, in XLA's order: a while loop's condition
/// comes before its body, and only the async-start of an async chain calls the
/// wrapped computation (XLA's async-update and async-done call nothing).
fn called_computations(m: &Module, instr: Instr) -> Vec<Comp> {
    let data = &m.instrs[instr];
    match data.opcode {
        Opcode::AsyncUpdate | Opcode::AsyncDone => Vec::new(),
        Opcode::While => data.callees.iter().rev().copied().collect(),
        _ => data.callees.to_vec(),
    }
}

/// XLA's `IsOtherCollective`. All-reduce and reduce-scatter are listed as XLA
/// lists them, though the walk never asks about them: they call a reducer.
fn is_other_collective(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::AllGather
            | Opcode::AllReduce
            | Opcode::AllToAll
            | Opcode::RaggedAllToAll
            | Opcode::CollectivePermute
            | Opcode::ReduceScatter
            | Opcode::CollectiveBroadcast
    )
}

/// XLA's `ShouldSkipDeadlockCheck`: `None` for a transfer outside the check;
/// otherwise its pairs, which must name no cycle and no device twice.
fn transfer_to_check(m: &Module, instr: Instr) -> Result<Option<Transfer>, Problem> {
    let data = &m.instrs[instr];
    if matches!(
        data.attrs,
        Attrs::SendRecv {
            is_host_transfer: true,
            ..
        }
    ) {
        return Ok(None);
    }
    let Some(attributes) = &data.common().frontend_attributes else {
        return Ok(None);
    };
    if attributes.get(PIPELINE_ATTRIBUTE).is_some() {
        return Ok(None);
    }
    let Some(text) = attributes.get(SOURCE_TARGET_PAIRS_ATTRIBUTE) else {
        return Ok(None);
    };
    let name = &data.name;
    let problem = |message: String, hint: &str| Problem {
        instr,
        message,
        hint: hint.to_string(),
        about_pairs: true,
    };
    let Some(pairs) = parse_pairs(text) else {
        return Err(problem(
            format!(
                "%{name} has {SOURCE_TARGET_PAIRS_ATTRIBUTE}=\"{text}\", which is not a list of (source, target) pairs"
            ),
            "write the pairs as {{source,target},…}, e.g. {{0,1},{1,2}}",
        ));
    };
    if has_cycle(&pairs) {
        return Err(problem(
            format!(
                "Expected send and recv instructions to have non-cyclical source-target pairs, but found %{name} with {text}"
            ),
            "a cycle of transfers makes every device wait for another; split it into two transfers",
        ));
    }
    if repeats_a_device(&pairs) {
        return Err(problem(
            format!(
                "Expected send and recv instructions to have unique source and target pairs, but found %{name} with {text}"
            ),
            "each device sends to at most one device and receives from at most one",
        ));
    }
    Ok(Some(Transfer {
        instr,
        pairs_text: text.to_string(),
        pairs,
    }))
}

/// XLA's `VerifyNoConflictingSourceTargetPairs` on two transfers' pairs
/// together.
fn pairs_conflict(first: &[(i64, i64)], second: &[(i64, i64)]) -> bool {
    let joined: Vec<(i64, i64)> = first.iter().chain(second).copied().collect();
    has_cycle(&joined) || repeats_a_device(&joined)
}

/// XLA's `collective_permute_cycle::HasCycles`: following each source to its
/// target (the last pair wins for a repeated source) comes back to a device.
fn has_cycle(pairs: &[(i64, i64)]) -> bool {
    let next: FxHashMap<i64, i64> = pairs.iter().copied().collect();
    let mut acyclic: FxHashSet<i64> = FxHashSet::default();
    for &(start, _) in pairs {
        let mut path: FxHashSet<i64> = FxHashSet::default();
        let mut current = Some(start);
        while let Some(device) = current {
            if acyclic.contains(&device) {
                break;
            }
            if !path.insert(device) {
                return true;
            }
            current = next.get(&device).copied();
        }
        acyclic.extend(path);
    }
    false
}

/// XLA's `HasDuplicateSourcesOrTargets`.
fn repeats_a_device(pairs: &[(i64, i64)]) -> bool {
    let mut sources = FxHashSet::default();
    let mut targets = FxHashSet::default();
    pairs
        .iter()
        .any(|&(source, target)| !sources.insert(source) || !targets.insert(target))
}

/// Parses `{{0,1},{1,2}}` (spaces allowed); `None` unless every group is a
/// pair.
fn parse_pairs(text: &str) -> Option<Vec<(i64, i64)>> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = compact.strip_prefix('{')?.strip_suffix('}')?;
    if inner.is_empty() {
        return Some(Vec::new());
    }
    let groups = inner.strip_prefix('{')?.strip_suffix('}')?;
    groups
        .split("},{")
        .map(|group| {
            let mut ids = group.split(',').map(|id| id.parse::<i64>().ok());
            match (ids.next(), ids.next(), ids.next()) {
                (Some(Some(source)), Some(Some(target)), None) => Some((source, target)),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{has_cycle, parse_pairs, repeats_a_device};
    use crate::verify::{Rule, verify};

    #[test]
    fn pairs_parse_and_classify() {
        assert_eq!(parse_pairs("{{0,1}, {1,2}}"), Some(vec![(0, 1), (1, 2)]));
        assert_eq!(parse_pairs("{}"), Some(vec![]));
        assert_eq!(parse_pairs("{{0,1,2}}"), None);
        assert_eq!(parse_pairs("0,1"), None);
        assert!(!has_cycle(&[(0, 1), (1, 2), (2, 3)]));
        assert!(has_cycle(&[(0, 1), (1, 2), (2, 0)]));
        assert!(has_cycle(&[(3, 3)]));
        assert!(repeats_a_device(&[(0, 1), (0, 2)]));
        assert!(repeats_a_device(&[(0, 2), (1, 2)]));
        assert!(!repeats_a_device(&[(0, 1), (1, 2)]));
    }

    /// The R14 messages of the module `text`.
    fn r14_of(text: &str) -> Vec<String> {
        let m = crate::text::parse(text).expect("parses");
        match verify(&m) {
            Ok(()) => Vec::new(),
            Err(errors) => errors
                .into_iter()
                .filter(|e| e.rule == Rule::AsyncDeadlock)
                .map(|e| e.message)
                .collect(),
        }
    }

    fn r14_messages(entry_body: &str) -> Vec<String> {
        let text = format!(
            "HloModule m, is_scheduled=true\n\nENTRY %main (p: f32[8]) -> f32[8] {{\n  %p = f32[8] parameter(0)\n  %tok = token[] after-all()\n{entry_body}  ROOT %out = f32[8] copy(%p)\n}}\n"
        );
        r14_of(&text)
    }

    fn send(name: &str, pairs: &str) -> String {
        format!(
            "  %{name} = (f32[8], u32[], token[]) send(%p, %tok), channel_id=1, frontend_attributes={{_xla_send_recv_source_target_pairs=\"{pairs}\"}}\n  %{name}_done = token[] send-done(%{name}), channel_id=1\n"
        )
    }

    fn recv(name: &str, pairs: &str) -> String {
        format!(
            "  %{name} = (f32[8], u32[], token[]) recv(%tok), channel_id=2, frontend_attributes={{_xla_send_recv_source_target_pairs=\"{pairs}\"}}\n  %{name}_done = (f32[8], token[]) recv-done(%{name}), channel_id=2\n"
        )
    }

    /// A send `%first` in the entry, then a tower of `levels` computations
    /// each calling the one below twice, whose bottom sends and receives on
    /// other devices; then, with `answered`, the recv that matches
    /// `%first`. The bottom is walked from a machine that expects a recv:
    /// without remembering what it did from that machine, the walk would
    /// take 2^levels steps.
    fn tower(levels: usize, answered: bool) -> Vec<String> {
        let pairs =
            |p: &str| format!("frontend_attributes={{_xla_send_recv_source_target_pairs=\"{p}\"}}");
        let mut text = format!(
            "HloModule tower, is_scheduled=true\n\n%c0 (t: token[]) -> token[] {{\n  %t = token[] parameter(0)\n  %z = f32[] constant(0)\n  %d = f32[8] broadcast(%z), dimensions={{}}\n  %s = (f32[8], u32[], token[]) send(%d, %t), channel_id=3, {}\n  %sd = token[] send-done(%s), channel_id=3\n  %r = (f32[8], u32[], token[]) recv(%t), channel_id=4, {}\n  %rd = (f32[8], token[]) recv-done(%r), channel_id=4\n  ROOT %after = token[] after-all(%sd)\n}}\n",
            pairs("{{2,3}}"),
            pairs("{{2,3}}")
        );
        for level in 1..=levels {
            let below = level - 1;
            text.push_str(&format!(
                "\n%c{level} (t: token[]) -> token[] {{\n  %t = token[] parameter(0)\n  %a = token[] call(%t), to_apply=%c{below}\n  ROOT %b = token[] call(%a), to_apply=%c{below}\n}}\n"
            ));
        }
        let answer = if answered {
            format!(
                "  %back = (f32[8], u32[], token[]) recv(%tok), channel_id=2, {}\n  %back_done = (f32[8], token[]) recv-done(%back), channel_id=2\n",
                pairs("{{0,1}}")
            )
        } else {
            String::new()
        };
        text.push_str(&format!(
            "\nENTRY %main (p: f32[8]) -> f32[8] {{\n  %p = f32[8] parameter(0)\n  %tok = token[] after-all()\n  %first = (f32[8], u32[], token[]) send(%p, %tok), channel_id=1, {}\n  %first_done = token[] send-done(%first), channel_id=1\n  %tower = token[] call(%tok), to_apply=%c{levels}\n{answer}  ROOT %out = f32[8] copy(%p)\n}}\n",
            pairs("{{0,1}}")
        ));
        r14_of(&text)
    }

    #[test]
    fn a_tower_of_calls_is_walked_once_per_machine() {
        let started = std::time::Instant::now();
        assert_eq!(tower(40, true), Vec::<String>::new());
        // The walk does not give up on the tower: the unanswered send is
        // found below it (a walk cut short would have said nothing).
        let messages = tower(40, false);
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("Expected recv to match send: no recv matches %first"),
            "{messages:?}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn a_cyclic_transfer_is_refused_on_its_own() {
        let messages = r14_messages(&format!(
            "{}{}",
            send("forth", "{{0,1},{1,0}}"),
            recv("back", "{{0,1},{1,0}}")
        ));
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with(
                "Expected send and recv instructions to have non-cyclical source-target pairs"
            ),
            "{messages:?}"
        );
    }

    /// Two sends in a row are fine when they could run together, and the
    /// receives that follow match them in any order.
    #[test]
    fn disjoint_sends_in_a_row_pair_with_later_receives() {
        let body = format!(
            "{}{}{}{}",
            send("first", "{{0,1}}"),
            send("second", "{{2,3}}"),
            recv("second_back", "{{2,3}}"),
            recv("first_back", "{{0,1}}")
        );
        assert_eq!(r14_messages(&body), Vec::<String>::new());
        // Sharing a target, they could not.
        let body = format!("{}{}", send("first", "{{0,1}}"), send("second", "{{2,1}}"));
        let messages = r14_messages(&body);
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("Expected recv, but found %second"),
            "{messages:?}"
        );
    }

    /// Host transfers, pipelined transfers and transfers without pairs are
    /// outside the check.
    #[test]
    fn unchecked_transfers_never_wait() {
        let body = "  %h = (f32[8], u32[], token[]) send(%p, %tok), channel_id=5, is_host_transfer=true, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1}}\"}\n  %h_done = token[] send-done(%h), channel_id=5, is_host_transfer=true\n  %q = (f32[8], u32[], token[]) send(%p, %tok), channel_id=6, frontend_attributes={_xla_send_recv_pipeline=\"0\",_xla_send_recv_source_target_pairs=\"{{0,1}}\"}\n  %q_done = token[] send-done(%q), channel_id=6\n  %n = (f32[8], u32[], token[]) send(%p, %tok), channel_id=7\n  %n_done = token[] send-done(%n), channel_id=7\n";
        assert_eq!(r14_messages(body), Vec::<String>::new());
    }
}

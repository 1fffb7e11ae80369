//! Each device's clock: what "now" means on the timeline of a run.
//!
//! Three timings ([`Timing`]):
//!
//! - **virtual**: the clock is a number the device advances itself. Every
//!   instruction advances it by its modelled cost ([`weft_cost::work`] on a
//!   [`Profile`]); a transfer advances it by the link model; a collective
//!   sets every member's clock to the moment the whole group has arrived
//!   (the latest member's clock), plus the transfer, plus the modelled
//!   reduction. Nothing depends on the host: the same program gives the
//!   same times on a busy laptop and on a quiet server, to the nanosecond,
//!   however many threads share however many cores — the times a machine
//!   of the profile's speed would show.
//! - **measured**: as virtual, but an instruction advances the clock by the
//!   CPU time its thread spent on it (`CLOCK_THREAD_CPUTIME_ID`), so time a
//!   device spends waiting for a core does not count. Closer to this
//!   machine's real kernels, at the price of their noise. Reading a thread's
//!   CPU time is a system call (about half a microsecond under a
//!   hypervisor), more than many instructions cost, so a short instruction
//!   is timed by the monotonic clock instead, which is read without one
//!   (`MeasuredMarks`); the CPU time read at the next long one settles the
//!   account, so the total charged stays the thread's CPU time.
//! - **wall**: the clock is the wall clock since the run began, shared by
//!   every device; transfers are modelled by sleeping. Honest only when
//!   every device has a core of its own.
//!
//! Invariants: a device's clock never goes back; in virtual and measured
//! timing a clock moves only by charges and by advancing to a time another
//! device's clock reached (carried with contributions and messages), so the
//! times of a run depend only on the program, its inputs and the model. The async stream of a device has a clock of its own: a
//! job starts at the later of its start's time and the stream's last job's
//! end, as on a real device's communication stream.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use weft_cost::{Profile, Work};
use weft_ir::{Instr, Module};

/// How a run measures time.
#[derive(Clone, Debug, PartialEq)]
pub enum Timing {
    /// Modelled costs on a device profile.
    Virtual(Arc<Profile>),
    /// Each instruction's thread CPU time.
    Measured,
    /// The wall clock.
    Wall,
}

impl Timing {
    /// Whether clocks are per device and travel with messages (virtual and
    /// measured), rather than one shared wall clock.
    pub fn is_modelled(&self) -> bool {
        !matches!(self, Timing::Wall)
    }

    /// `virtual`, `measured` or `wall`.
    pub fn name(&self) -> &'static str {
        match self {
            Timing::Virtual(_) => "virtual",
            Timing::Measured => "measured",
            Timing::Wall => "wall",
        }
    }
}

/// The longest a wall-clock sleep lasts before it checks whether the run
/// was stopped.
const SLEEP_SLICE: Duration = Duration::from_millis(20);

/// One clock: a device's compute stream's, or its async stream's.
pub(crate) struct Clock {
    timing: Timing,
    /// The start of the run (wall timing's zero).
    origin: Instant,
    /// Now, in virtual and measured timing.
    now: Duration,
    /// Where the last charge left off (measured timing).
    marks: MeasuredMarks,
    /// The modelled cost of each instruction met so far (virtual timing).
    costs: FxHashMap<Instr, Duration>,
    /// Inside a fusion (virtual timing): its instructions are charged as
    /// one kernel by the fusion itself.
    within_fusion: usize,
}

impl Clock {
    /// A clock for a run that began at `origin`, at zero.
    pub(crate) fn new(timing: Timing, origin: Instant) -> Clock {
        Clock {
            timing,
            origin,
            now: Duration::ZERO,
            marks: MeasuredMarks::new(),
            costs: FxHashMap::default(),
            within_fusion: 0,
        }
    }

    /// The timing this clock keeps.
    pub(crate) fn timing(&self) -> &Timing {
        &self.timing
    }

    /// Now, from the start of the run.
    pub(crate) fn now(&self) -> Duration {
        match self.timing {
            Timing::Wall => self.origin.elapsed(),
            _ => self.now,
        }
    }

    /// Charges the instruction `instr` that just ran: its modelled cost
    /// (virtual) or the CPU time since the last charge (measured).
    pub(crate) fn charge_instruction(&mut self, module: &Module, instr: Instr) {
        match &self.timing {
            Timing::Virtual(profile) => {
                if self.within_fusion > 0 {
                    return;
                }
                let cost = *self
                    .costs
                    .entry(instr)
                    .or_insert_with(|| profile.time(&weft_cost::work::of(module, instr)));
                self.now = self.now.saturating_add(cost);
            }
            Timing::Measured => self.charge_cpu(),
            Timing::Wall => {}
        }
    }

    /// Charges the CPU time this thread spent since the last charge
    /// (measured timing; nothing otherwise).
    pub(crate) fn charge_cpu(&mut self) {
        if self.timing == Timing::Measured {
            let spent = self.marks.charge();
            self.now = self.now.saturating_add(spent);
        }
    }

    /// Forgets the CPU time spent since the last charge (measured timing):
    /// work that the model times instead, such as a modelled transfer's.
    pub(crate) fn skip_cpu(&mut self) {
        if self.timing == Timing::Measured {
            self.marks = MeasuredMarks::new();
        }
    }

    /// Charges modelled `work` (virtual timing; in measured timing the
    /// CPU time of doing it is charged instead, by [`Clock::charge_cpu`]).
    /// Returns the time charged.
    pub(crate) fn charge_work(&mut self, work: &Work) -> Duration {
        match &self.timing {
            Timing::Virtual(profile) => {
                let cost = profile.time(work);
                self.now = self.now.saturating_add(cost);
                cost
            }
            _ => Duration::ZERO,
        }
    }

    /// The instructions of a fusion are about to run (virtual timing
    /// charges the fusion as one kernel instead).
    pub(crate) fn enter_fusion(&mut self) {
        self.within_fusion += 1;
    }

    /// Whether a fusion's instructions are running.
    pub(crate) fn within_fusion(&self) -> bool {
        self.within_fusion > 0
    }

    /// The fusion's instructions have run.
    pub(crate) fn leave_fusion(&mut self) {
        self.within_fusion = self.within_fusion.saturating_sub(1);
    }

    /// Moves the clock on to `time` if it is behind it: a modelled clock
    /// jumps; the wall clock sleeps until then, in slices, returning early
    /// when `stopped()` says the run is over. Never moves a clock back.
    pub(crate) fn advance_to(&mut self, time: Duration, stopped: &dyn Fn() -> bool) {
        match self.timing {
            Timing::Wall => loop {
                let now = self.origin.elapsed();
                if now >= time || stopped() {
                    return;
                }
                std::thread::sleep((time - now).min(SLEEP_SLICE));
            },
            _ => {
                self.now = self.now.max(time);
                self.skip_cpu();
            }
        }
    }
}

/// An interval of a thread shorter than this is timed by the monotonic
/// clock: a thread that lost its core in it would have been away for a
/// scheduler slice (milliseconds), far longer, so a short interval is CPU
/// time all through.
const SHORT_INTERVAL: Duration = Duration::from_micros(50);

/// Measured timing's marks: what a thread's CPU time and the monotonic
/// clock read when it was last charged, and what was charged since the CPU
/// time was last read.
///
/// Invariant: at every read of the CPU time, the charges since the previous
/// read add up to the CPU time between them (unless short intervals
/// overstated it, when the long one is charged nothing).
struct MeasuredMarks {
    cpu: Duration,
    wall: Instant,
    charged_since_cpu: Duration,
}

impl MeasuredMarks {
    fn new() -> MeasuredMarks {
        MeasuredMarks {
            cpu: thread_cpu_time(),
            wall: Instant::now(),
            charged_since_cpu: Duration::ZERO,
        }
    }

    /// The CPU time spent since the last charge, and a new mark.
    fn charge(&mut self) -> Duration {
        let wall = Instant::now();
        let elapsed = wall.saturating_duration_since(self.wall);
        self.wall = wall;
        if elapsed < SHORT_INTERVAL {
            self.charged_since_cpu += elapsed;
            return elapsed;
        }
        let cpu = thread_cpu_time();
        let spent = cpu
            .saturating_sub(self.cpu)
            .saturating_sub(self.charged_since_cpu);
        self.cpu = cpu;
        self.charged_since_cpu = Duration::ZERO;
        spent
    }
}

/// The CPU time this thread has used.
#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Duration {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    if status != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        time.tv_sec.max(0) as u64,
        time.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Elsewhere, measured timing falls back to the process's monotonic clock.
#[cfg(not(target_os = "linux"))]
fn thread_cpu_time() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module() -> Module {
        weft_ir::text::parse(
            "HloModule m\nENTRY e {\n  a = f32[1000] parameter(0)\n  ROOT n = f32[1000] negate(a)\n}\n",
        )
        .expect("parses")
    }

    #[test]
    fn virtual_time_charges_the_modelled_cost_every_time() {
        let module = module();
        let root = module.comp(module.entry.unwrap()).root().unwrap();
        let profile = Arc::new(Profile::built_in(weft_cost::profile::REFERENCE).unwrap());
        let mut clock = Clock::new(Timing::Virtual(profile.clone()), Instant::now());
        clock.charge_instruction(&module, root);
        let once = clock.now();
        assert_eq!(
            once,
            profile.time(&weft_cost::work::of(&module, root)),
            "one negate"
        );
        clock.charge_instruction(&module, root);
        assert_eq!(clock.now(), once * 2);
        clock.enter_fusion();
        clock.charge_instruction(&module, root);
        clock.leave_fusion();
        assert_eq!(clock.now(), once * 2, "a fusion's inside is not charged");
    }

    #[test]
    fn measured_charges_add_up_to_the_threads_cpu_time() {
        let mut marks = MeasuredMarks::new();
        let start = marks.cpu;
        // Short intervals, timed by the monotonic clock.
        let short: Duration = (0..3).map(|_| marks.charge()).sum();
        // A long one: the CPU time settles the account.
        let spin = Instant::now();
        let mut x = 0u64;
        while spin.elapsed() < 2 * SHORT_INTERVAL {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let long = marks.charge();
        assert_eq!(marks.charged_since_cpu, Duration::ZERO);
        let cpu = marks.cpu - start;
        // Every charge since the first mark adds up to the CPU time used
        // (or to the short charges, had a short interval overstated it).
        assert_eq!(short + long, cpu.max(short));
    }

    #[test]
    fn a_modelled_clock_jumps_forward_and_never_back() {
        let mut clock = Clock::new(Timing::Measured, Instant::now());
        clock.advance_to(Duration::from_secs(100), &|| false);
        assert_eq!(clock.now(), Duration::from_secs(100));
        clock.advance_to(Duration::from_secs(1), &|| false);
        assert_eq!(clock.now(), Duration::from_secs(100));
    }

    #[test]
    fn a_wall_sleep_ends_when_the_run_stops() {
        let mut clock = Clock::new(Timing::Wall, Instant::now());
        let started = Instant::now();
        clock.advance_to(Duration::from_secs(3600), &|| true);
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}

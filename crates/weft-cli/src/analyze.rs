//! `weft analyze`: the buffers of a module, how long each lives under the
//! module's schedule, peak memory and what is live at the peak, and what
//! every asynchronous operation holds while it is in flight.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;
use weft_ir::{Instr, Module, Opcode};
use weft_passes::analysis::alias::{Aliases, BufferId};
use weft_passes::analysis::dataflow::Dataflow;
use weft_passes::analysis::live_range::{LiveRanges, MemoryProfile};

use crate::fmt::InputFormat;
use crate::input;

/// How `weft analyze` writes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Tables and a chart, for reading.
    Text,
    /// One JSON object, for tools.
    Json,
}

#[derive(clap::Args)]
pub struct AnalyzeArgs {
    /// The module (HLO; StableHLO when it ends in `.mlir`, lowered first);
    /// `-` or nothing reads standard input.
    file: Option<PathBuf>,
    /// Buffers that several values share (loop state, in-place updates,
    /// aliased inputs and outputs).
    #[arg(long)]
    aliases: bool,
    /// Every buffer's live range in schedule steps, and a chart of live
    /// bytes over the schedule.
    #[arg(long)]
    liveness: bool,
    /// Peak memory, where it is reached and what is live there; and what
    /// each async operation holds from its start to its done.
    #[arg(long)]
    memory: bool,
    /// The output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The input's format, when its name does not say.
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
}

/// What an async operation holds while in flight.
struct Holding {
    start: Instr,
    done: Option<Instr>,
    buffers: Vec<(BufferId, &'static str)>,
}

pub fn run(args: &AnalyzeArgs) -> ExitCode {
    let source = match input::read(args.file.as_deref()) {
        Ok(source) => source,
        Err(error) => {
            tell!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let module = match InputFormat::of(args.file.as_deref(), args.input_format) {
        InputFormat::Hlo => {
            match weft_ir::load::load(&source.text, &weft_ir::verify::VerifyOptions::default()) {
                Ok(loaded) => loaded.module,
                Err(error) => {
                    tell_text!("{}", error.render(&source.name, &source.text));
                    return ExitCode::FAILURE;
                }
            }
        }
        InputFormat::Mlir => match weft_stablehlo::load::load(&source.text, None) {
            Ok(module) => module,
            Err(error) => {
                tell_text!("{}", error.render(&source.name, &source.text));
                return ExitCode::FAILURE;
            }
        },
    };
    let flow = Dataflow::of(&module);
    let aliases = Aliases::of(&module, &flow);
    let ranges = LiveRanges::of(&module, &flow, &aliases);
    let memory = ranges.memory(&aliases);
    let holdings = holdings(&module, &flow, &aliases, &ranges);
    let all = !(args.aliases || args.liveness || args.memory);
    let analysis = Analysis {
        module: &module,
        flow: &flow,
        aliases: &aliases,
        ranges: &ranges,
        memory: &memory,
        holdings: &holdings,
    };
    match args.format {
        Format::Json => say!("{}", analysis.json()),
        Format::Text => {
            if all || args.aliases {
                analysis.print_aliases();
            }
            if all || args.liveness {
                analysis.print_liveness();
            }
            if all || args.memory {
                analysis.print_memory();
            }
        }
    }
    ExitCode::SUCCESS
}

/// For every async start, the buffers it holds until its done: what it
/// reads, and what it writes.
fn holdings(
    module: &Module,
    flow: &Dataflow,
    aliases: &Aliases,
    ranges: &LiveRanges,
) -> Vec<Holding> {
    // Each done, found once, keyed by the start of its chain.
    let mut done_of: std::collections::HashMap<Instr, Instr> = std::collections::HashMap::new();
    for &instr in &ranges.order {
        let opcode = module.instr(instr).opcode;
        if (opcode == Opcode::AsyncDone || opcode.has(weft_ir::opcode::Flags::FIRST_CLASS_DONE))
            && let Some(start) = chain_start(module, instr)
        {
            done_of.insert(start, instr);
        }
    }
    let mut out = Vec::new();
    for &instr in &ranges.order {
        let data = module.instr(instr);
        let is_start = data.opcode == Opcode::AsyncStart
            || data.opcode.has(weft_ir::opcode::Flags::FIRST_CLASS_START);
        if !is_start {
            continue;
        }
        let mut buffers = Vec::new();
        for &operand in data.operands.iter() {
            for position in flow.positions(operand) {
                for &value in &position.values {
                    let buffer = aliases.buffer_of(value);
                    if aliases.buffer(buffer).bytes > 0
                        && !buffers.iter().any(|(b, _)| *b == buffer)
                    {
                        buffers.push((buffer, "reads"));
                    }
                }
            }
        }
        for position in flow.positions(instr) {
            for &value in &position.values {
                let buffer = aliases.buffer_of(value);
                if flow.value(value).instruction == instr
                    && aliases.buffer(buffer).bytes > 0
                    && !buffers.iter().any(|(b, _)| *b == buffer)
                {
                    buffers.push((buffer, "writes"));
                }
            }
        }
        out.push(Holding {
            start: instr,
            done: done_of.get(&instr).copied(),
            buffers,
        });
    }
    out
}

/// The start of the async chain `done` ends (through updates).
fn chain_start(module: &Module, done: Instr) -> Option<Instr> {
    let mut current = *module.instr(done).operands.first()?;
    // A chain is at most as long as the module (a malformed cycle ends
    // the walk).
    for _ in 0..module.instrs.len() {
        if module.instr(current).opcode != Opcode::AsyncUpdate {
            return Some(current);
        }
        current = *module.instr(current).operands.first()?;
    }
    None
}

struct Analysis<'a> {
    module: &'a Module,
    flow: &'a Dataflow,
    aliases: &'a Aliases,
    ranges: &'a LiveRanges,
    memory: &'a MemoryProfile,
    holdings: &'a [Holding],
}

/// `1.5 MiB`, `512 B`.
fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

impl Analysis<'_> {
    fn step_text(&self, step: usize) -> String {
        match self.ranges.order.get(step) {
            Some(&instr) => format!("{step} (%{})", self.module.instr(instr).name),
            None => step.to_string(),
        }
    }

    fn buffer_name(&self, buffer: BufferId) -> String {
        let values = &self.aliases.buffer(buffer).values;
        let first = self.flow.describe(self.module, values[0]);
        if values.len() > 1 {
            format!("{first} (+{} aliased)", values.len() - 1)
        } else {
            first
        }
    }

    fn print_aliases(&self) {
        say!("Buffers shared by several values:");
        let mut any = false;
        for (id, buffer) in self.aliases.buffers().iter().enumerate() {
            if buffer.values.len() < 2 {
                continue;
            }
            any = true;
            let values: Vec<String> = buffer
                .values
                .iter()
                .map(|&v| self.flow.describe(self.module, v))
                .collect();
            say!(
                "  buffer {id:<5} {:>10}  {}",
                bytes_text(buffer.bytes),
                values.join(", ")
            );
        }
        if !any {
            say!("  none");
        }
        say!(
            "{} values in {} buffers",
            self.flow.values().len(),
            self.aliases.buffers().len()
        );
        say!("");
    }

    fn print_liveness(&self) {
        say!("Live ranges (schedule steps):");
        say!(
            "  {:<7} {:>10}  {:>12}  {:>12}  buffer",
            "id",
            "bytes",
            "from",
            "to"
        );
        let mut ranges = self.ranges.ranges();
        ranges.sort_by_key(|&(b, r)| (r.start, b));
        for (buffer, range) in ranges {
            let bytes = self.aliases.buffer(buffer).bytes;
            if bytes == 0 {
                continue;
            }
            say!(
                "  {:<7} {:>10}  {:>12}  {:>12}  {}",
                buffer.0,
                bytes_text(bytes),
                range.start,
                range.end,
                self.buffer_name(buffer)
            );
        }
        say!("");
        say!("Live bytes over the schedule:");
        let steps = self.memory.live_bytes.len();
        let rows = steps.min(48);
        if rows == 0 {
            say!("  (no steps)");
            return;
        }
        let peak = self.memory.peak_bytes.max(1);
        for row in 0..rows {
            let from = row * steps / rows;
            let to = ((row + 1) * steps / rows).max(from + 1);
            let bytes = self.memory.live_bytes[from..to]
                .iter()
                .copied()
                .max()
                .unwrap_or(0);
            let width = (bytes as f64 / peak as f64 * 50.0).round() as usize;
            let label = if to - from == 1 {
                self.step_text(from)
            } else {
                format!("{from}–{}", to - 1)
            };
            say!(
                "  {label:<32} {:>10}  {}",
                bytes_text(bytes),
                "#".repeat(width)
            );
        }
        say!("");
    }

    fn print_memory(&self) {
        say!(
            "Peak memory: {} ({} bytes) at step {}",
            bytes_text(self.memory.peak_bytes),
            self.memory.peak_bytes,
            self.step_text(self.memory.peak_step)
        );
        say!("Live at the peak:");
        const SHOWN: usize = 20;
        for &buffer in self.memory.live_at_peak.iter().take(SHOWN) {
            say!(
                "  {:>10}  {}",
                bytes_text(self.aliases.buffer(buffer).bytes),
                self.buffer_name(buffer)
            );
        }
        if self.memory.live_at_peak.len() > SHOWN {
            say!("  … and {} more", self.memory.live_at_peak.len() - SHOWN);
        }
        if !self.holdings.is_empty() {
            say!("");
            say!("In flight (what each async operation holds, start to done):");
            for holding in self.holdings {
                let start = self.ranges.time(holding.start).unwrap_or(0);
                let end = holding
                    .done
                    .and_then(|d| self.ranges.time(d))
                    .map_or("no done".to_string(), |t| self.step_text(t));
                say!(
                    "  %{} ({}): steps {} to {end}",
                    self.module.instr(holding.start).name,
                    self.module.instr(holding.start).opcode,
                    self.step_text(start)
                );
                for &(buffer, role) in &holding.buffers {
                    say!(
                        "    {role:<6} {:>10}  {}",
                        bytes_text(self.aliases.buffer(buffer).bytes),
                        self.buffer_name(buffer)
                    );
                }
            }
        }
    }

    fn json(&self) -> serde_json::Value {
        let buffer_json = |buffer: BufferId| {
            let data = self.aliases.buffer(buffer);
            let range = self.ranges.range(buffer);
            json!({
                "id": buffer.0,
                "bytes": data.bytes,
                "values": data.values.iter().map(|&v| self.flow.describe(self.module, v)).collect::<Vec<_>>(),
                "live_from": range.map(|r| r.start),
                "live_to": range.map(|r| r.end),
            })
        };
        let instruction = |step: usize| {
            self.ranges
                .order
                .get(step)
                .map(|&i| self.module.instr(i).name.to_string())
        };
        json!({
            "steps": self.ranges.order.len(),
            "peak_bytes": self.memory.peak_bytes,
            "peak_step": self.memory.peak_step,
            "peak_instruction": instruction(self.memory.peak_step),
            "live_at_peak": self.memory.live_at_peak.iter().map(|&b| b.0).collect::<Vec<_>>(),
            "buffers": self.ranges.ranges().into_iter().map(|(b, _)| buffer_json(b)).collect::<Vec<_>>(),
            "live_bytes": self.memory.live_bytes,
            "async": self.holdings.iter().map(|h| json!({
                "start": self.module.instr(h.start).name.to_string(),
                "done": h.done.map(|d| self.module.instr(d).name.to_string()),
                "from_step": self.ranges.time(h.start),
                "to_step": h.done.and_then(|d| self.ranges.time(d)),
                "buffers": h.buffers.iter().map(|&(b, role)| json!({"buffer": b.0, "role": role})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}

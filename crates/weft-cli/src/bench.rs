//! `weft bench`: measure parse and print throughput of HLO files.
//!
//! Each file is read once, then parsed and printed `--repeat` times; the report
//! gives the median time of each phase, the throughput in lines and megabytes per
//! second, and the process's peak resident memory. The first parse is reported
//! too: for the first file it is what `weft fmt` pays, in a process whose memory
//! is all fresh, where the repeats reuse memory the earlier parses freed. Run
//! one file per process when the peak memory or the first parse of that file
//! alone matters.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use weft_ir::text::{PrintOptions, Style};

use crate::input;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// HLO files to measure.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// How many times to parse and print each file (the median is reported).
    #[arg(long, default_value_t = 5, allow_negative_numbers = true, value_parser = crate::flags::repeat)]
    repeat: usize,
    /// Print in the short form instead of the long form.
    #[arg(long)]
    short: bool,
    /// Print one JSON object per file instead of a table.
    #[arg(long)]
    json: bool,
    /// Parse on at most N threads (default: every core; 1 measures the
    /// sequential parser).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

/// The process's peak resident set size in bytes (Linux), if known.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Counts bytes written without keeping them.
struct CountingSink(u64);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn run(args: &BenchArgs) -> ExitCode {
    let repeat = args.repeat.max(1);
    let options = PrintOptions {
        style: if args.short {
            Style::Short
        } else {
            Style::Long
        },
        ..PrintOptions::long()
    };
    if !args.json {
        say!(
            "{:<48} {:>9} {:>10} {:>10} {:>12} {:>9} {:>10} {:>12} {:>10} {:>9}",
            "file",
            "lines",
            "first ms",
            "parse ms",
            "lines/s",
            "MB/s",
            "print ms",
            "lines/s",
            "verify ms",
            "peak MB"
        );
    }
    for path in &args.files {
        let source = match input::read(Some(path)) {
            Ok(s) => s,
            Err(e) => {
                tell!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let lines = source.text.lines().count();
        let bytes = source.text.len();
        let threads = crate::fmt::parse_threads(args.threads);
        let mut parse_ms = Vec::with_capacity(repeat);
        let mut module = None;
        for _ in 0..repeat {
            // Free the previous module first so the peak is one module's.
            drop(module.take());
            let start = Instant::now();
            match weft_ir::text::parse_with_threads(&source.text, threads) {
                Ok(m) => module = Some(m),
                Err(d) => {
                    tell_text!("{}", d.render(&source.name, &source.text));
                    return ExitCode::FAILURE;
                }
            }
            parse_ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        let Some(module) = module else {
            return ExitCode::FAILURE;
        };
        let mut print_ms = Vec::with_capacity(repeat);
        let mut printed = 0;
        for _ in 0..repeat {
            let mut sink = CountingSink(0);
            let start = Instant::now();
            if let Err(e) = weft_ir::text::write_module(&module, &options, &mut sink) {
                tell!("error: {e}");
                return ExitCode::FAILURE;
            }
            print_ms.push(start.elapsed().as_secs_f64() * 1e3);
            printed = sink.0;
        }
        // Verification is timed too (it must stay well under parse time);
        // its verdict is not the benchmark's business.
        let mut verify_ms = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let start = Instant::now();
            let verdict = weft_ir::verify(&module);
            verify_ms.push(start.elapsed().as_secs_f64() * 1e3);
            drop(verdict);
        }
        let first_parse = parse_ms[0];
        let parse = median(parse_ms);
        let print = median(print_ms);
        let verify = median(verify_ms);
        let peak = peak_rss_bytes().unwrap_or(0);
        let name = path.display().to_string();
        if args.json {
            say!(
                "{{\"file\": {:?}, \"lines\": {lines}, \"bytes\": {bytes}, \"threads\": {threads}, \"first_parse_ms\": {first_parse:.3}, \"parse_ms\": {parse:.3}, \"print_ms\": {print:.3}, \"verify_ms\": {verify:.3}, \"printed_bytes\": {printed}, \"peak_rss_bytes\": {peak}}}",
                name
            );
        } else {
            let per_second = |ms: f64| lines as f64 / (ms / 1e3);
            say!(
                "{:<48} {:>9} {:>10.1} {:>10.1} {:>12.0} {:>9.1} {:>10.1} {:>12.0} {:>10.1} {:>9.0}",
                shorten(&name, 48),
                lines,
                first_parse,
                parse,
                per_second(parse),
                bytes as f64 / 1e6 / (parse / 1e3),
                print,
                per_second(print),
                verify,
                peak as f64 / 1e6
            );
        }
    }
    ExitCode::SUCCESS
}

fn shorten(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        return name.to_string();
    }
    let tail: String = name
        .chars()
        .rev()
        .take(width - 1)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("…{tail}")
}

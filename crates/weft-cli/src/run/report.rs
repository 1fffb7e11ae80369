//! The summary of a multi-device run (or simulation): step time, each
//! device's breakdown of compute and communication, a totals row and the
//! critical path, the per-collective report (`--collectives`), as a table
//! or as JSON (`--format json`). `weft run` and `weft simulate` share it,
//! so the two report alike; a simulation of many devices adds its
//! equivalence classes, which the table then shows one row each.
//!
//! Every figure comes from the devices' timelines
//! ([`weft_runtime::devices::timeline`]); with `--repeat N` each figure of
//! each device is the median of the N runs (virtual timing gives the same
//! figures every run, so the median is each run's).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value as Json, json};
use weft_ir::Module;
use weft_runtime::devices::timeline::{DeviceTimeline, Figures};

/// How the run kept time, for the header.
pub(crate) struct TimingNote {
    /// `virtual`, `measured` or `wall`.
    pub mode: &'static str,
    /// Why that mode (`devices outnumber cores`), when it was chosen for
    /// the user.
    pub reason: Option<String>,
    /// The profile of virtual timing, and where it came from.
    pub profile: Option<(String, String)>,
}

/// What the summary describes.
pub(crate) struct Summary<'a> {
    pub module: &'a Module,
    pub grid: weft_runtime::devices::Grid,
    pub ranks: Option<usize>,
    pub link: weft_runtime::devices::Link,
    /// The topology and algorithm collectives were priced by, if not the
    /// flat link.
    pub interconnect: Option<std::sync::Arc<weft_cost::Interconnect>>,
    pub timing: TimingNote,
    /// Each run's step time.
    pub steps: Vec<Duration>,
    /// Each run's figures, per device: `runs[run][device]`.
    pub runs: Vec<Vec<Figures>>,
    /// The last run's timelines (for the per-collective report).
    pub last: Vec<DeviceTimeline>,
    /// A simulation's equivalence classes of devices: with more than
    /// [`DEVICE_ROWS`] devices the table shows a row per class.
    pub classes: Option<&'a weft_runtime::simulate::Classes>,
}

/// The most devices the table shows one row each when it can show classes.
pub(crate) const DEVICE_ROWS: usize = 16;

/// The longest device list a class row shows before it is cut short.
const DEVICE_LIST_WIDTH: usize = 48;

/// Milliseconds, as the table shows them.
fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

impl Summary<'_> {
    /// The median step time and the fastest.
    fn step(&self) -> (Duration, Duration) {
        let mut sorted = self.steps.clone();
        sorted.sort();
        (
            sorted.get(sorted.len() / 2).copied().unwrap_or_default(),
            sorted.first().copied().unwrap_or_default(),
        )
    }

    /// Each device's figures: the median over runs.
    fn devices(&self) -> Vec<Figures> {
        let devices = self.runs.first().map_or(0, Vec::len);
        (0..devices)
            .map(|device| {
                let samples: Vec<Figures> = self.runs.iter().map(|run| run[device]).collect();
                Figures::median(&samples)
            })
            .collect()
    }

    /// The devices' figures added up (`finished` is the latest).
    fn total(devices: &[Figures]) -> Figures {
        devices.iter().fold(Figures::default(), |sum, d| Figures {
            compute: sum.compute + d.compute,
            transfer: sum.transfer + d.transfer,
            wait: sum.wait + d.wait,
            host: sum.host + d.host,
            communication: sum.communication + d.communication,
            exposed: sum.exposed + d.exposed,
            finished: sum.finished.max(d.finished),
        })
    }

    /// The device that finished last (the first of them on a tie).
    fn critical(devices: &[Figures]) -> usize {
        let latest = devices.iter().map(|d| d.finished).max().unwrap_or_default();
        devices
            .iter()
            .position(|d| d.finished == latest)
            .unwrap_or(0)
    }

    /// The link, in words.
    fn link_text(&self) -> String {
        if let Some(interconnect) = &self.interconnect {
            return format!(
                "topology {}, {} collectives",
                interconnect.topology, interconnect.selection
            );
        }
        match self.link.bandwidth {
            Some(bandwidth) => format!(
                "{} GB/s + {} us",
                short_number(bandwidth / 1e9),
                short_number(self.link.latency.as_secs_f64() * 1e6)
            ),
            None => "unpaced".to_string(),
        }
    }

    /// The summary as lines of text.
    pub(crate) fn text(&self, collectives: bool) -> Vec<String> {
        let mut lines = Vec::new();
        let (median, fastest) = self.step();
        let runs = self.steps.len();
        let mut timing = format!("{} timing", self.timing.mode);
        if let Some((name, origin)) = &self.timing.profile {
            timing.push_str(&format!(", profile {name} ({origin})"));
        }
        if let Some(reason) = &self.timing.reason {
            timing.push_str(&format!("; {reason}"));
        }
        if runs > 1 {
            lines.push(format!(
                "step time: {:.3} ms (median of {runs} runs, fastest {:.3} ms; {timing}; each figure below is the device's median)",
                ms(median),
                ms(fastest)
            ));
        } else {
            lines.push(format!("step time: {:.3} ms ({timing})", ms(median)));
        }
        let over_ranks = match self.ranks {
            Some(ranks) => format!(" over {ranks} MPI ranks"),
            None => String::new(),
        };
        lines.push(format!(
            "  {} ({} replica(s) x {} partition(s)){over_ranks}, link {}",
            match self.grid.len() {
                1 => "1 device".to_string(),
                n => format!("{n} devices"),
            },
            self.grid.replicas,
            self.grid.partitions,
            self.link_text()
        ));
        lines.push(
            "  device   compute ms  transfer ms    wait ms    host ms  exposed ms   overlap"
                .to_string(),
        );
        let devices = self.devices();
        let row = |label: String, f: &Figures| {
            format!(
                "  {label:>6} {:>12.3} {:>12.3} {:>10.3} {:>10.3} {:>11.3} {:>8.1}%",
                ms(f.compute),
                ms(f.transfer),
                ms(f.wait),
                ms(f.host),
                ms(f.exposed),
                f.overlap_percent()
            )
        };
        match self.classes {
            Some(classes) if devices.len() > DEVICE_ROWS => {
                lines[2] = "   class   compute ms  transfer ms    wait ms    host ms  exposed ms   overlap  devices".to_string();
                for (class, members) in classes.devices.iter().enumerate() {
                    let mut list = classes.describe(class);
                    if list.len() > DEVICE_LIST_WIDTH {
                        let cut = list[..DEVICE_LIST_WIDTH].rfind(", ").unwrap_or(0);
                        list = format!("{}, …", &list[..cut]);
                    }
                    lines.push(format!(
                        "{}  {} ({} device{})",
                        row(class.to_string(), &devices[members[0]]),
                        list,
                        members.len(),
                        if members.len() == 1 { "" } else { "s" }
                    ));
                }
            }
            _ => {
                for (device, figures) in devices.iter().enumerate() {
                    lines.push(row(device.to_string(), figures));
                }
            }
        }
        if devices.len() > 1 {
            lines.push(row("total".to_string(), &Summary::total(&devices)));
        }
        let critical = Summary::critical(&devices);
        if let Some(figures) = devices.get(critical) {
            lines.push(format!(
                "  critical path: device {critical}, finished at {:.3} ms ({:.3} ms computing, {:.3} ms exposed communication)",
                ms(figures.finished),
                ms(figures.compute),
                ms(figures.exposed)
            ));
        }
        if collectives {
            lines.extend(self.collectives_text());
        }
        lines
    }

    /// The per-collective report as lines of text.
    fn collectives_text(&self) -> Vec<String> {
        let rows = self.collective_rows();
        let mut lines = vec![String::new()];
        if rows.is_empty() {
            lines.push("  no collectives ran".to_string());
            return lines;
        }
        let width = rows
            .iter()
            .map(|r| r.name.len() + 1)
            .max()
            .unwrap_or(0)
            .max("collective".len());
        lines.push(format!(
            "  {:<width$}  {:<24} {:>5} {:>6} {:>12} {:>12} {:>10} {:>10} {:>10}",
            "collective",
            "kind",
            "runs",
            "peers",
            "bytes/run",
            "transfer ms",
            "wait ms",
            "max wait",
            "host ms"
        ));
        for row in rows {
            lines.push(format!(
                "  {:<width$}  {:<24} {:>5} {:>6} {:>12} {:>12.3} {:>10.3} {:>10.3} {:>10.3}",
                format!("%{}", row.name),
                row.kind,
                row.runs,
                row.peers,
                bytes_text(row.bytes),
                ms(row.transfer),
                ms(row.mean_wait),
                ms(row.max_wait),
                ms(row.host)
            ));
        }
        lines.push(
            "  (per run of the collective on one device, averaged over devices and runs; max wait over them)"
                .to_string(),
        );
        lines
    }

    /// One row per collective instruction, in program order.
    fn collective_rows(&self) -> Vec<CollectiveRow> {
        let mut rows: BTreeMap<usize, CollectiveRow> = BTreeMap::new();
        let devices = self.last.len().max(1) as u64;
        for timeline in &self.last {
            for (&instr, totals) in &timeline.collective_totals {
                let data = self.module.instr(instr);
                let row = rows
                    .entry(Module::instr_index(instr))
                    .or_insert_with(|| CollectiveRow {
                        name: data.name.to_string(),
                        kind: format!(
                            "{}{}",
                            data.opcode.name(),
                            if totals.asynchronous { " (async)" } else { "" }
                        ),
                        instances: 0,
                        runs: 0,
                        peers: 0,
                        bytes: 0.0,
                        transfer: Duration::ZERO,
                        mean_wait: Duration::ZERO,
                        max_wait: Duration::ZERO,
                        host: Duration::ZERO,
                    });
                row.instances += totals.count;
                row.peers = row.peers.max(totals.peers);
                row.bytes += totals.bytes;
                row.transfer += totals.transfer;
                row.mean_wait += totals.wait;
                row.max_wait = row.max_wait.max(totals.max_wait);
                row.host += totals.host;
            }
        }
        rows.into_values()
            .map(|mut row| {
                let count = row.instances.max(1);
                row.runs = row.instances.div_ceil(devices);
                row.bytes /= count as f64;
                row.transfer = row.transfer.div_f64(count as f64);
                row.mean_wait = row.mean_wait.div_f64(count as f64);
                row.host = row.host.div_f64(count as f64);
                row
            })
            .collect()
    }

    /// The whole summary as JSON (`outputs` is the caller's).
    pub(crate) fn json(&self, outputs: Json) -> Json {
        let (median, fastest) = self.step();
        let devices = self.devices();
        let figures = |f: &Figures| {
            json!({
                "compute_ms": ms(f.compute),
                "transfer_ms": ms(f.transfer),
                "wait_ms": ms(f.wait),
                "host_ms": ms(f.host),
                "communication_ms": ms(f.communication),
                "exposed_ms": ms(f.exposed),
                "overlap_percent": f.overlap_percent(),
                "finished_ms": ms(f.finished),
            })
        };
        let per_device: Vec<Json> = devices
            .iter()
            .enumerate()
            .map(|(device, f)| {
                let mut row = figures(f);
                row["device"] = json!(device);
                row
            })
            .collect();
        let collectives: Vec<Json> = self
            .collective_rows()
            .into_iter()
            .map(|row| {
                json!({
                    "name": row.name,
                    "kind": row.kind,
                    "runs": row.runs,
                    "peers": row.peers,
                    "bytes_per_run": row.bytes,
                    "transfer_ms": ms(row.transfer),
                    "mean_wait_ms": ms(row.mean_wait),
                    "max_wait_ms": ms(row.max_wait),
                    "host_ms": ms(row.host),
                })
            })
            .collect();
        let classes: Option<Vec<Json>> = self.classes.map(|classes| {
            classes
                .devices
                .iter()
                .enumerate()
                .map(|(class, members)| {
                    let mut row = figures(&devices[members[0]]);
                    row["class"] = json!(class);
                    row["devices"] = json!(classes.describe(class));
                    row["device_count"] = json!(members.len());
                    row
                })
                .collect()
        });
        let mut summary = json!({
            "step_time_ms": ms(median),
            "fastest_step_time_ms": ms(fastest),
            "runs": self.steps.len(),
            "timing": {
                "mode": self.timing.mode,
                "reason": self.timing.reason,
                "profile": self.timing.profile.as_ref().map(|(name, _)| name),
                "profile_origin": self.timing.profile.as_ref().map(|(_, origin)| origin),
            },
            "devices": self.grid.len(),
            "replicas": self.grid.replicas,
            "partitions": self.grid.partitions,
            "ranks": self.ranks,
            "link": match self.link.bandwidth {
                Some(bandwidth) => json!({
                    "bandwidth_gb_per_s": bandwidth / 1e9,
                    "latency_us": self.link.latency.as_secs_f64() * 1e6,
                }),
                None => Json::Null,
            },
            "topology": self.interconnect.as_ref().map(|i| i.topology.to_string()),
            "collective_algorithm": self.interconnect.as_ref().map(|i| i.selection.to_string()),
            "per_device": per_device,
            "total": figures(&Summary::total(&devices)),
            "critical_device": Summary::critical(&devices),
            "collectives": collectives,
            "outputs": outputs,
        });
        if let Some(classes) = classes {
            summary["classes"] = json!(classes);
        }
        summary
    }
}

/// One collective instruction's figures over every device and run.
struct CollectiveRow {
    name: String,
    kind: String,
    /// Instances (devices × runs).
    instances: u64,
    /// Runs per device.
    runs: u64,
    peers: usize,
    bytes: f64,
    transfer: Duration,
    mean_wait: Duration,
    max_wait: Duration,
    host: Duration,
}

/// `value` with at most three decimals, or three significant digits below
/// 1, and no trailing zeros (`25`, `0.35`, `0.0005`).
pub(super) fn short_number(value: f64) -> String {
    let decimals = if value > 0.0 && value < 1.0 {
        (2 - value.log10().floor() as i32).max(3) as usize
    } else {
        3
    };
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// `1.5 MiB`, `512 B`.
fn bytes_text(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// What the summary's columns mean: `weft run --help` shows it.
pub(crate) const COLUMNS: &str = "\
The summary of a multi-device run (and of one device with --trace, --timing or --format json):
  step time    when the last device finished (its compute and async streams)
  compute      time the compute stream ran instructions (busy − exposed)
  transfer     the link model's time for the bytes the device received
  wait         time at collectives waiting for the rest of the group (skew)
  host         the collectives' reduction work after the data arrived
  exposed      time the compute stream stood still for communication
  overlap      1 − exposed / (transfer + wait + host): the hidden share
  total        the devices' figures added up; critical path: the device that finished last";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(bytes_text(512.0), "512 B");
        assert_eq!(bytes_text(1536.0), "1.5 KiB");
        assert_eq!(bytes_text(4.0 * 1024.0 * 1024.0), "4.0 MiB");
        assert_eq!(short_number(25.0), "25");
        assert_eq!(short_number(0.35), "0.35");
        assert_eq!(short_number(0.0005), "0.0005");
        assert_eq!(short_number(0.00012345), "0.000123");
        assert_eq!(short_number(100.0), "100");
    }

    #[test]
    fn the_critical_device_finished_last() {
        let at = |ms: u64| Figures {
            finished: Duration::from_millis(ms),
            ..Figures::default()
        };
        assert_eq!(Summary::critical(&[at(3), at(7), at(7), at(1)]), 1);
        let total = Summary::total(&[at(3), at(7)]);
        assert_eq!(total.finished, Duration::from_millis(7));
    }
}

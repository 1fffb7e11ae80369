//! The numbers the command line takes, checked as clap parses them.
//!
//! Each parser accepts a finite number in a range that makes sense for its
//! flag and refuses anything else — zero, a negative number, `inf`, `NaN`,
//! text — with the accepted range in words; clap puts the flag and the value
//! in front (`invalid value '0' for '--link-bandwidth <GB/S>': …`). So a
//! mistyped number stops the command at once, with exit status 2, instead
//! of making a run hang (a bandwidth of zero paces every transfer for ever)
//! or fail at its end. Flags that take a number must also accept a leading
//! `-` as a value (`allow_negative_numbers`), else clap reads `-1` as an
//! unknown flag and the range is never shown.
//!
//! A legal value may still be absurd (a link so slow that every transfer
//! takes minutes): [`absurd_link`] says so, as warnings, without refusing it.

/// An interval of accepted numbers, and how to say it.
struct Accepted {
    /// The smallest accepted value, and whether it is itself accepted.
    low: (f64, bool),
    /// The largest accepted value (always accepted).
    high: f64,
    /// The unit, after the numbers (`GB/s`).
    unit: &'static str,
    /// What to do instead, when there is something (`--link unpaced …`).
    hint: &'static str,
}

impl Accepted {
    fn contains(&self, value: f64) -> bool {
        let (low, inclusive) = self.low;
        value.is_finite() && value <= self.high && (value > low || (inclusive && value == low))
    }

    /// "must be a number of GB/s from 0.0001 to 1000000 (…)".
    fn describe(&self) -> String {
        let (low, inclusive) = self.low;
        let range = if inclusive {
            format!("from {} to {}", plain(low), plain(self.high))
        } else {
            format!("above {} and at most {}", plain(low), plain(self.high))
        };
        let hint = if self.hint.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.hint)
        };
        format!("must be a number of {} {range}{hint}", self.unit)
    }
}

/// `value` as people write it: `0.0001`, `1000000`, not `1e-4`.
fn plain(value: f64) -> String {
    let text = format!("{value:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A real number of `accepted`.
fn real(text: &str, accepted: &Accepted) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if accepted.contains(value) => Ok(value),
        _ => Err(accepted.describe()),
    }
}

/// A whole number from `low` to `high`.
fn whole(text: &str, low: u64, high: u64, what: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(value) if (low..=high).contains(&value) => Ok(value),
        _ => Err(format!(
            "must be a whole number of {what} from {low} to {high}"
        )),
    }
}

/// The slowest link `--link-bandwidth` accepts, in GB/s: a 1 MiB transfer
/// takes about 10 s on it.
const SLOWEST_LINK: f64 = 1e-4;

/// `--link-bandwidth`: GB/s, from [`SLOWEST_LINK`] to a million.
pub fn link_bandwidth(text: &str) -> Result<f64, String> {
    real(
        text,
        &Accepted {
            low: (SLOWEST_LINK, true),
            high: 1e6,
            unit: "GB/s",
            hint: "--link unpaced turns the link model off",
        },
    )
}

/// `--link-latency`: microseconds, from 0 to a second.
pub fn link_latency(text: &str) -> Result<f64, String> {
    real(
        text,
        &Accepted {
            low: (0.0, true),
            high: 1e6,
            unit: "microseconds",
            hint: "",
        },
    )
}

/// `--timeout`: seconds, from a millisecond to a million seconds.
pub fn timeout_seconds(text: &str) -> Result<f64, String> {
    real(
        text,
        &Accepted {
            low: (0.001, true),
            high: 1e6,
            unit: "seconds",
            hint: "",
        },
    )
}

/// `--deadline`: a positive number of seconds a `Duration` holds with room
/// to spare.
pub fn deadline_seconds(text: &str) -> Result<f64, String> {
    real(
        text,
        &Accepted {
            low: (0.0, false),
            high: 1e9,
            unit: "seconds",
            hint: "",
        },
    )
}

/// `--max-value-gib`: GiB, positive, at most a PiB.
pub fn max_value_gib(text: &str) -> Result<f64, String> {
    real(
        text,
        &Accepted {
            low: (0.0, false),
            high: 1024.0 * 1024.0,
            unit: "GiB",
            hint: "",
        },
    )
}

/// `--repeat` (of `weft run` and `weft bench`): from 1 to a million runs.
pub fn repeat(text: &str) -> Result<usize, String> {
    whole(text, 1, 1_000_000, "runs").map(|n| n as usize)
}

/// The most devices a grid may have: each is two threads of this process.
pub const MOST_DEVICES: u64 = 4096;

/// `--devices`, `--replicas`, `--partitions`: from 1 to [`MOST_DEVICES`].
pub fn device_count(text: &str) -> Result<usize, String> {
    whole(text, 1, MOST_DEVICES, "devices").map(|n| n as usize)
}

/// The most devices `weft simulate` takes: it runs no threads, and its
/// plan of each collective grows with the devices.
pub const MOST_SIMULATED_DEVICES: u64 = 1 << 20;

/// `weft simulate`'s `--devices`, `--replicas`, `--partitions`: from 1 to
/// [`MOST_SIMULATED_DEVICES`].
pub fn simulated_device_count(text: &str) -> Result<usize, String> {
    whole(text, 1, MOST_SIMULATED_DEVICES, "devices").map(|n| n as usize)
}

/// `--max-iterations`: at least one iteration.
pub fn max_iterations(text: &str) -> Result<u64, String> {
    whole(text, 1, u64::MAX, "iterations")
}

/// Warnings about a legal but absurd link model: so slow that a transfer
/// takes seconds, so fast that it is as good as unpaced, or a latency of
/// more than 10 ms per transfer.
pub fn absurd_link(bandwidth_gbps: f64, latency_us: f64) -> Vec<String> {
    let mut warnings = Vec::new();
    let mebibyte_seconds = f64::from(1u32 << 20) / (bandwidth_gbps * 1e9);
    if bandwidth_gbps < 1e-3 {
        warnings.push(format!(
            "--link-bandwidth {}: a 1 MiB transfer would take {mebibyte_seconds:.1} s",
            plain(bandwidth_gbps)
        ));
    } else if bandwidth_gbps > 1e5 {
        warnings.push(format!(
            "--link-bandwidth {}: a 1 MiB transfer would take {:.3} us, as good as --link unpaced",
            plain(bandwidth_gbps),
            mebibyte_seconds * 1e6
        ));
    }
    if latency_us > 1e4 {
        warnings.push(format!(
            "--link-latency {}: every transfer would wait {:.0} ms",
            plain(latency_us),
            latency_us / 1e3
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_refuses_what_would_hang_and_names_the_range() {
        for bad in ["0", "1e-6", "-1", "inf", "NaN", "fast", "1e7", ""] {
            let error = link_bandwidth(bad).unwrap_err();
            assert_eq!(
                error,
                "must be a number of GB/s from 0.0001 to 1000000 (--link unpaced turns the link model off)",
                "{bad}"
            );
        }
        assert_eq!(link_bandwidth("25"), Ok(25.0));
        assert_eq!(link_bandwidth("0.0001"), Ok(1e-4));
        assert_eq!(link_bandwidth(" 2 "), Ok(2.0));
    }

    #[test]
    fn latency_may_be_zero_but_not_negative() {
        assert_eq!(link_latency("0"), Ok(0.0));
        assert_eq!(
            link_latency("-5").unwrap_err(),
            "must be a number of microseconds from 0 to 1000000"
        );
        assert!(link_latency("NaN").is_err());
    }

    #[test]
    fn seconds_are_positive_and_finite() {
        assert_eq!(timeout_seconds("1"), Ok(1.0));
        for bad in ["0", "0.0001", "-1", "inf", "1e7"] {
            assert_eq!(
                timeout_seconds(bad).unwrap_err(),
                "must be a number of seconds from 0.001 to 1000000",
                "{bad}"
            );
        }
        assert_eq!(deadline_seconds("0.5"), Ok(0.5));
        for bad in ["0", "-1", "inf", "NaN", "1e30", "soon"] {
            assert_eq!(
                deadline_seconds(bad).unwrap_err(),
                "must be a number of seconds above 0 and at most 1000000000",
                "{bad}"
            );
        }
        assert_eq!(
            max_value_gib("0").unwrap_err(),
            "must be a number of GiB above 0 and at most 1048576"
        );
        assert_eq!(max_value_gib("0.5"), Ok(0.5));
    }

    #[test]
    fn counts_are_whole_and_at_least_one() {
        assert_eq!(repeat("3"), Ok(3));
        assert_eq!(
            repeat("0").unwrap_err(),
            "must be a whole number of runs from 1 to 1000000"
        );
        assert!(repeat("-1").is_err());
        assert!(repeat("2.5").is_err());
        assert_eq!(device_count("8"), Ok(8));
        assert_eq!(
            device_count("0").unwrap_err(),
            "must be a whole number of devices from 1 to 4096"
        );
        assert!(device_count("100000").is_err());
        assert_eq!(max_iterations("1"), Ok(1));
        assert!(max_iterations("0").is_err());
    }

    #[test]
    fn absurd_links_are_warned_about_with_what_a_transfer_costs() {
        assert!(absurd_link(25.0, 5.0).is_empty());
        assert_eq!(
            absurd_link(0.0005, 5.0),
            vec!["--link-bandwidth 0.0005: a 1 MiB transfer would take 2.1 s".to_string()]
        );
        assert_eq!(
            absurd_link(1e6, 5.0),
            vec![
                "--link-bandwidth 1000000: a 1 MiB transfer would take 0.001 us, as good as --link unpaced"
                    .to_string()
            ]
        );
        assert_eq!(
            absurd_link(25.0, 50000.0),
            vec!["--link-latency 50000: every transfer would wait 50 ms".to_string()]
        );
    }
}

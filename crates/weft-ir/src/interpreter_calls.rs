//! The custom-calls that carry the StableHLO reference interpreter's test
//! dialects through HLO: the contract between the StableHLO lowering, which
//! writes them, and the runtime, which runs them. Both sides use the
//! targets and option types here, so they cannot drift apart.
//!
//! - `check.expect_eq`, `check.expect_almost_eq`, `check.expect_close`,
//!   `check.expect_serialized_eq`: side-effecting calls on (actual,
//!   expected) — or, for `expect_serialized_eq`, the value a probe recorded
//!   — returning `()`; their options ([`CheckOptions`]) are the
//!   `backend_config`, a JSON object. `check.eq` returns a `pred[]`.
//! - `interpreter.print` prints its operands; `interpreter.probe` records
//!   its operand under a probe id and returns it.
//! - `interpreter.run_parallel` runs a grid of programs (its called
//!   computations, row-major, then the infeed functions) with a
//!   [`RunParallelConfig`].
//!
//! Invariant: a `backend_config` written by [`CheckOptions::to_config`] or
//! [`RunParallelConfig::to_config`] reads back equal; an unknown key or a
//! value of the wrong type is an error where it is read, never ignored.

use serde::{Deserialize, Serialize};

/// `check.expect_eq`: exact equality (IEEE for floats).
pub const EXPECT_EQ: &str = "check.expect_eq";
/// `check.expect_almost_eq`: equal within a tolerance.
pub const EXPECT_ALMOST_EQ: &str = "check.expect_almost_eq";
/// `check.expect_close`: within a range of ULPs.
pub const EXPECT_CLOSE: &str = "check.expect_close";
/// `check.expect_serialized_eq`: equal, bit for bit, to what a probe saw.
pub const EXPECT_SERIALIZED_EQ: &str = "check.expect_serialized_eq";
/// `check.eq`: the custom-call JAX's exported tests use; returns a `pred[]`.
pub const EQ: &str = "check.eq";
/// `interpreter.print`.
pub const PRINT: &str = "interpreter.print";
/// `interpreter.probe`.
pub const PROBE: &str = "interpreter.probe";
/// `interpreter.run_parallel`.
pub const RUN_PARALLEL: &str = "interpreter.run_parallel";

/// The tolerance of `expect_almost_eq` (and `check.eq` on floats) when none
/// is given: the check dialect's default.
pub const DEFAULT_TOLERANCE: f64 = 1e-4;
/// The most ULPs `expect_close` allows when none is given: the check
/// dialect's default.
pub const DEFAULT_MAX_ULP_DIFFERENCE: u64 = 1;

/// The options of a check call, as its `backend_config`. Absent options
/// take the check dialect's defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckOptions {
    /// `expect_almost_eq`, `check.eq`: the largest absolute difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// `expect_close`: the most ULPs apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ulp_difference: Option<u64>,
    /// `expect_close`: the fewest ULPs apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ulp_difference: Option<u64>,
    /// `expect_serialized_eq`, `interpreter.probe`: the probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_id: Option<String>,
    /// `expect_serialized_eq`: which of the probe's values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration: Option<u64>,
}

impl CheckOptions {
    /// The options as a `backend_config`; `None` when every option is
    /// absent.
    pub fn to_config(&self) -> Option<String> {
        (self != &CheckOptions::default())
            .then(|| serde_json::to_string(self).expect("options serialize"))
    }

    /// The options of a call whose `backend_config` is `config` (none: the
    /// defaults).
    pub fn from_config(config: Option<&str>) -> Result<CheckOptions, String> {
        match config.map(str::trim) {
            None | Some("") => Ok(CheckOptions::default()),
            Some(text) => serde_json::from_str(text)
                .map_err(|e| format!("its backend_config is not check options: {e}")),
        }
    }
}

/// The options `stablehlo-translate --interpret` gives the check
/// custom-calls of JAX-exported tests, which carry none: `expect_close`
/// within 0 to 3 ULPs, `expect_almost_eq` within 1e-3 (the check ops'
/// defaults are stricter), `check.eq` within [`DEFAULT_TOLERANCE`] on
/// floats. `None` when `target` is not one of those calls.
pub fn driver_options(target: &str) -> Option<CheckOptions> {
    Some(match target {
        EXPECT_CLOSE => CheckOptions {
            max_ulp_difference: Some(3),
            min_ulp_difference: Some(0),
            ..CheckOptions::default()
        },
        EXPECT_ALMOST_EQ => CheckOptions {
            tolerance: Some(1e-3),
            ..CheckOptions::default()
        },
        EQ => CheckOptions {
            tolerance: Some(DEFAULT_TOLERANCE),
            ..CheckOptions::default()
        },
        EXPECT_EQ => CheckOptions::default(),
        _ => return None,
    })
}

/// The grid of an `interpreter.run_parallel` call, as its `backend_config`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunParallelConfig {
    /// Rows of the program grid.
    pub replicas: usize,
    /// Columns of the program grid.
    pub partitions: usize,
    /// How many results each program returns, row-major.
    pub program_results: Vec<usize>,
}

impl RunParallelConfig {
    /// The config as a `backend_config`.
    pub fn to_config(&self) -> String {
        serde_json::to_string(self).expect("a config serializes")
    }

    /// The config of a call whose `backend_config` is `config`; the grid
    /// must be non-empty and give one result count per program.
    pub fn from_config(config: Option<&str>) -> Result<RunParallelConfig, String> {
        let text = config.unwrap_or_default();
        let parsed: RunParallelConfig = serde_json::from_str(text).map_err(|e| {
            format!("its backend_config is not a run_parallel grid ({{\"replicas\": R, \"partitions\": P, \"program_results\": [...]}}): {e}")
        })?;
        if parsed.replicas == 0 || parsed.partitions == 0 {
            return Err("its backend_config has an empty grid".into());
        }
        let programs = parsed.replicas.saturating_mul(parsed.partitions);
        if parsed.program_results.len() != programs {
            return Err(format!(
                "its backend_config needs \"program_results\": one count per program ({programs}), not {}",
                parsed.program_results.len()
            ));
        }
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_options_read_back_and_refuse_unknown_keys() {
        let options = driver_options(EXPECT_CLOSE).unwrap();
        let config = options.to_config().unwrap();
        assert_eq!(config, r#"{"max_ulp_difference":3,"min_ulp_difference":0}"#);
        assert_eq!(CheckOptions::from_config(Some(&config)).unwrap(), options);
        assert_eq!(CheckOptions::default().to_config(), None);
        assert_eq!(
            CheckOptions::from_config(None).unwrap(),
            CheckOptions::default()
        );
        let unknown = CheckOptions::from_config(Some(r#"{"tolerence": 0.1}"#)).unwrap_err();
        assert!(unknown.contains("unknown field `tolerence`"), "{unknown}");
        let negative = CheckOptions::from_config(Some(r#"{"max_ulp_difference": -1}"#));
        assert!(negative.is_err());
        assert_eq!(driver_options("something.else"), None);
    }

    #[test]
    fn run_parallel_configs_are_checked() {
        let config = RunParallelConfig {
            replicas: 2,
            partitions: 1,
            program_results: vec![1, 4],
        };
        let text = config.to_config();
        assert_eq!(RunParallelConfig::from_config(Some(&text)).unwrap(), config);
        let short = RunParallelConfig::from_config(Some(
            r#"{"replicas": 2, "partitions": 2, "program_results": [1]}"#,
        ))
        .unwrap_err();
        assert!(
            short.contains("one count per program (4), not 1"),
            "{short}"
        );
        assert!(RunParallelConfig::from_config(None).is_err());
    }
}

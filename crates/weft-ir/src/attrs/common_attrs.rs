//! Attributes any instruction may carry — sharding, frontend attributes, control
//! predecessors, statistics, result accuracy, origin, metadata and backend config
//! (their text form is in `text/attrs/common_attrs.rs`).

use std::sync::Arc;

use super::sharding::Sharding;
use crate::module::Instr;

/// Source information about an instruction (`metadata={…}`).
///
/// Strings that repeat across a module (`op_type`, `source_file`) are shared;
/// line and column numbers are 32-bit, as in XLA.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Metadata {
    /// `op_type="…"`.
    pub op_type: Option<Arc<str>>,
    /// `op_name="…"`.
    pub op_name: Box<str>,
    /// `source_file="…"`.
    pub source_file: Option<Arc<str>>,
    /// `source_line=N`.
    pub source_line: i32,
    /// `stack_frame_id=N` (0 for none).
    pub stack_frame_id: i32,
    /// The fields few instructions carry; `None` when all of them are unset
    /// (never `Some` of the default), which keeps the common metadata small.
    pub more: Option<Box<MoreMetadata>>,
}

/// The metadata fields few instructions carry.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MoreMetadata {
    /// `source_end_line=N`.
    pub source_end_line: i32,
    /// `source_column=N`.
    pub source_column: i32,
    /// `source_end_column=N`.
    pub source_end_column: i32,
    /// `preserve_layout=true`.
    pub preserve_layout: bool,
    /// `profile_type={…}`.
    pub profile_type: Box<[i64]>,
    /// `deduplicated_name="…"`.
    pub deduplicated_name: Box<str>,
    /// `scheduling_name="…"`.
    pub scheduling_name: Box<str>,
}

impl Metadata {
    /// The rarer fields, made mutable (created unset if absent); call
    /// [`tidy`](Self::tidy) after setting them.
    pub fn more_mut(&mut self) -> &mut MoreMetadata {
        self.more.get_or_insert_with(Default::default)
    }

    /// Drops the rarer fields when all of them are unset.
    pub fn tidy(&mut self) {
        if self.more.as_deref() == Some(&MoreMetadata::default()) {
            self.more = None;
        }
    }

    /// Whether XLA prints this metadata at all (it omits metadata that carries
    /// only line numbers or profile types).
    pub fn is_printed(&self) -> bool {
        self.op_type.as_deref().is_some_and(|s| !s.is_empty())
            || !self.op_name.is_empty()
            || self.source_file.as_deref().is_some_and(|s| !s.is_empty())
            || self
                .more
                .as_deref()
                .is_some_and(|more| !more.scheduling_name.is_empty())
            || self.stack_frame_id != 0
    }
}

/// `frontend_attributes={key="value", …}`: string keys and values, printed sorted
/// by key. A value that is itself a brace dict prints without quotes.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FrontendAttributes {
    /// `(key, value)` pairs, sorted by key.
    pub entries: Vec<(String, String)>,
}

impl FrontendAttributes {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Sets `key` to `value`, keeping the entries sorted.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        let key = key.into();
        let value = value.into();
        match self.entries.binary_search_by(|(k, _)| k.as_str().cmp(&key)) {
            Ok(i) => self.entries[i].1 = value,
            Err(i) => self.entries.insert(i, (key, value)),
        }
    }
}

/// `backend_config=`: an opaque string, usually JSON.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BackendConfig(pub String);

/// `statistics={visualizing_index=N, name=value, …}`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Statistics {
    /// Which statistic a visualizer shows.
    pub visualizing_index: i64,
    /// `(name, value)` pairs in order.
    pub stats: Vec<(String, f64)>,
}

/// `result_accuracy={mode=…}` or `{tolerance={atol=…,rtol=…,ulps=…}}`.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultAccuracy {
    /// A named mode (`default`, `highest`).
    Mode(String),
    /// Numeric tolerances.
    Tolerance {
        /// Absolute tolerance.
        atol: f64,
        /// Relative tolerance.
        rtol: f64,
        /// Units in the last place.
        ulps: i64,
    },
}

/// The common attributes of an instruction.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CommonAttrs {
    /// `sharding={…}`.
    pub sharding: Option<Sharding>,
    /// `frontend_attributes={…}`.
    pub frontend_attributes: Option<FrontendAttributes>,
    /// `control-predecessors={…}`.
    pub control_predecessors: Vec<Instr>,
    /// `statistics={…}`.
    pub statistics: Option<Statistics>,
    /// `result_accuracy={…}`.
    pub result_accuracy: Option<ResultAccuracy>,
    /// `origin={…}` (the original value), kept as written.
    pub origin: Option<String>,
    /// `backend_config=…`.
    pub backend_config: Option<BackendConfig>,
}

static EMPTY_COMMON: CommonAttrs = CommonAttrs {
    sharding: None,
    frontend_attributes: None,
    control_predecessors: Vec::new(),
    statistics: None,
    result_accuracy: None,
    origin: None,
    backend_config: None,
};

impl CommonAttrs {
    /// A shared empty set.
    pub fn empty() -> &'static CommonAttrs {
        &EMPTY_COMMON
    }

    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == EMPTY_COMMON
    }
}

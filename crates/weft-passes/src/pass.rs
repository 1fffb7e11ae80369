//! What a pass is, and the options it takes.
//!
//! A pass has a kebab-case name (XLA's, where XLA has the pass) and a `run`
//! that edits a module and says whether it changed anything. Its options use
//! the field names of XLA's config for the pass, and every pass declares
//! them ([`OptionSpec`]), so that the registry can list them and a wrong key
//! or value is refused before any pass runs, naming what is accepted.

use std::fmt;

use weft_ir::{Module, Opcode};

use crate::opcode_predicate::OpcodePredicate;

/// A transformation of a module.
pub trait Pass {
    /// The pass's kebab-case name.
    fn name(&self) -> &'static str;

    /// Runs the pass on `module`; `Ok(true)` when it changed the module.
    fn run(&self, module: &mut Module) -> Result<bool, PassError>;

    /// Runs the pass and says why it did what it did: lines of text, one
    /// decision each (what `weft opt --explain` prints). Passes with
    /// nothing to explain run as [`Pass::run`] does.
    fn run_explained(&self, module: &mut Module) -> Result<(bool, Vec<String>), PassError> {
        Ok((self.run(module)?, Vec::new()))
    }
}

/// Why a pass could not run or did not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassError {
    /// What went wrong, in words.
    pub message: String,
    /// What to do about it, when something helps.
    pub hint: Option<String>,
}

impl PassError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> PassError {
        PassError {
            message: message.into(),
            hint: None,
        }
    }

    /// The same error with `hint`.
    pub fn with_hint(mut self, hint: impl Into<String>) -> PassError {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for PassError {}

impl From<weft_ir::EditError> for PassError {
    fn from(error: weft_ir::EditError) -> PassError {
        PassError::new(error.0)
    }
}

/// The kind of value an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `true` or `false` (`key` alone means `true`).
    Bool,
    /// An integer (`9223372036854775807` for XLA's `INT64_MAX`).
    Int,
    /// A list of opcode names, comma-separated (possibly empty: `key=`).
    Opcodes,
    /// A number, possibly fractional (`0.5`, `1e9`).
    Float,
    /// One word of a fixed list (`latency_estimator=approximate`).
    Choice(&'static [&'static str]),
    /// Free text without blanks or braces (a profile name, a path, a
    /// topology).
    Text,
    /// A predicate on opcodes, for one of XLA's `HloPredicate`s: `true`,
    /// `false`, `OPCODE,…` (these) or `!OPCODE,…` (all but these); see
    /// [`OpcodePredicate`].
    OpcodePredicate,
}

impl OptionKind {
    /// How a value is written, for listings: `true|false`, `N`, `OPCODE,…`.
    pub fn placeholder(self) -> &'static str {
        match self {
            OptionKind::Bool => "true|false",
            OptionKind::Int => "N",
            OptionKind::Opcodes => "OPCODE,…",
            OptionKind::Float => "X",
            OptionKind::Choice(_) => "WORD",
            OptionKind::Text => "TEXT",
            OptionKind::OpcodePredicate => "true|false|[!]OPCODE,…",
        }
    }

    fn describe(self) -> String {
        match self {
            OptionKind::Bool => "true or false".into(),
            OptionKind::Int => "an integer".into(),
            OptionKind::Opcodes => "a comma-separated list of opcodes".into(),
            OptionKind::Float => "a number".into(),
            OptionKind::Choice(words) => format!("one of {}", words.join(", ")),
            OptionKind::Text => "a text".into(),
            OptionKind::OpcodePredicate => {
                "true, false, a comma-separated list of opcodes, or one with each opcode prefixed by '!'".into()
            }
        }
    }
}

/// One option a pass takes.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// XLA's config field name.
    pub name: &'static str,
    /// Its kind of value.
    pub kind: OptionKind,
    /// Its default, as text.
    pub default: &'static str,
    /// What it does, in a line.
    pub doc: &'static str,
}

/// The options given to one pass, checked against its [`OptionSpec`]s.
#[derive(Clone, Debug, Default)]
pub struct Options {
    values: Vec<(String, Vec<String>)>,
}

impl Options {
    /// No options: every one takes its default.
    pub fn none() -> Options {
        Options::default()
    }

    /// Options from `key → values` pairs, checked against `specs` for
    /// `pass`: an unknown key, a key given twice or a value of the wrong
    /// kind is an error naming the accepted ones.
    pub fn checked(
        pass: &str,
        values: Vec<(String, Vec<String>)>,
        specs: &[OptionSpec],
    ) -> Result<Options, PassError> {
        for (at, (key, given)) in values.iter().enumerate() {
            let Some(spec) = specs.iter().find(|spec| spec.name == key) else {
                let known: Vec<&str> = specs.iter().map(|spec| spec.name).collect();
                let hint = if known.is_empty() {
                    format!("{pass} takes no options")
                } else {
                    format!("{pass} takes: {}", known.join(", "))
                };
                return Err(PassError::new(format!("{pass} has no option '{key}'")).with_hint(hint));
            };
            if values[..at].iter().any(|(earlier, _)| earlier == key) {
                return Err(PassError::new(format!(
                    "{pass}'s option '{key}' is given twice"
                )));
            }
            let wrong = |value: &str| {
                PassError::new(format!(
                    "{pass}'s option '{key}' takes {}, not '{value}'",
                    spec.kind.describe()
                ))
            };
            match spec.kind {
                OptionKind::Bool => {
                    if given.len() > 1
                        || !matches!(
                            given.first().map(String::as_str),
                            None | Some("true" | "false")
                        )
                    {
                        return Err(wrong(&given.join(",")));
                    }
                }
                OptionKind::Int => {
                    if given.len() != 1 || given[0].parse::<i64>().is_err() {
                        return Err(wrong(&given.join(",")));
                    }
                }
                OptionKind::Float => {
                    if given.len() != 1 || !given[0].parse::<f64>().is_ok_and(f64::is_finite) {
                        return Err(wrong(&given.join(",")));
                    }
                }
                OptionKind::Text => {
                    if given.is_empty() || given.iter().all(String::is_empty) {
                        return Err(wrong(&given.join(",")));
                    }
                }
                OptionKind::Choice(words) => {
                    if given.len() != 1 || !words.contains(&given[0].as_str()) {
                        return Err(wrong(&given.join(",")));
                    }
                }
                OptionKind::Opcodes => {
                    if let Some(bad) = given.iter().find(|name| Opcode::from_name(name).is_none()) {
                        return Err(PassError::new(format!(
                            "{pass}'s option '{key}' names '{bad}', which is not an opcode"
                        ))
                        .with_hint("opcodes are written as HLO text writes them: all-reduce, collective-permute, …"));
                    }
                }
                OptionKind::OpcodePredicate => {
                    if let Err(why) = OpcodePredicate::parse(given) {
                        return Err(PassError::new(format!(
                            "{pass}'s option '{key}' takes {}: {why}",
                            spec.kind.describe()
                        )));
                    }
                }
            }
        }
        Ok(Options { values })
    }

    fn get(&self, key: &str) -> Option<&[String]> {
        self.values
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, values)| values.as_slice())
    }

    /// The boolean option `key`, or `default`.
    pub fn bool(&self, key: &str, default: bool) -> bool {
        match self.get(key) {
            None => default,
            Some([]) => true,
            Some(values) => values[0] == "true",
        }
    }

    /// The integer option `key`, or `default`.
    pub fn int(&self, key: &str, default: i64) -> i64 {
        self.get(key)
            .and_then(|values| values.first())
            .and_then(|value| value.parse().ok())
            .unwrap_or(default)
    }

    /// The number option `key`, or `default`.
    pub fn float(&self, key: &str, default: f64) -> f64 {
        self.get(key)
            .and_then(|values| values.first())
            .and_then(|value| value.parse().ok())
            .unwrap_or(default)
    }

    /// The word option `key` (a [`OptionKind::Choice`]), or `default`.
    pub fn word<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.get(key)
            .and_then(|values| values.first())
            .map_or(default, String::as_str)
    }

    /// The opcode-predicate option `key` (an [`OptionKind::OpcodePredicate`]),
    /// or `default`.
    pub fn opcode_predicate(&self, key: &str, default: OpcodePredicate) -> OpcodePredicate {
        self.get(key)
            .and_then(|items| OpcodePredicate::parse(items).ok())
            .unwrap_or(default)
    }

    /// The text option `key`, when given (commas kept: the pipeline text
    /// splits values at them, and a text may hold some).
    pub fn text(&self, key: &str) -> Option<String> {
        self.get(key).map(|values| values.join(","))
    }

    /// The opcode-list option `key`, or `None` when it is not given.
    pub fn opcodes(&self, key: &str) -> Option<Vec<Opcode>> {
        self.get(key).map(|values| {
            values
                .iter()
                .filter_map(|name| Opcode::from_name(name))
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptionSpec] = &[
        OptionSpec {
            name: "flag",
            kind: OptionKind::Bool,
            default: "false",
            doc: "",
        },
        OptionSpec {
            name: "limit",
            kind: OptionKind::Int,
            default: "0",
            doc: "",
        },
        OptionSpec {
            name: "convert",
            kind: OptionKind::Opcodes,
            default: "",
            doc: "",
        },
        OptionSpec {
            name: "ratio",
            kind: OptionKind::Float,
            default: "1",
            doc: "",
        },
        OptionSpec {
            name: "mode",
            kind: OptionKind::Choice(&["fast", "slow"]),
            default: "fast",
            doc: "",
        },
        OptionSpec {
            name: "keep",
            kind: OptionKind::OpcodePredicate,
            default: "true",
            doc: "",
        },
    ];

    fn pairs(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn options_read_with_defaults() {
        let options = Options::checked(
            "p",
            pairs(&[("flag", &[]), ("convert", &["all-reduce", "all-gather"])]),
            SPECS,
        )
        .unwrap();
        assert!(options.bool("flag", false));
        assert_eq!(options.int("limit", 7), 7);
        assert_eq!(
            options.opcodes("convert"),
            Some(vec![Opcode::AllReduce, Opcode::AllGather])
        );
        let options = Options::checked(
            "p",
            pairs(&[("ratio", &["0.25"]), ("mode", &["slow"])]),
            SPECS,
        )
        .unwrap();
        assert_eq!(options.float("ratio", 1.0), 0.25);
        assert_eq!(options.word("mode", "fast"), "slow");
        assert_eq!(Options::none().word("mode", "fast"), "fast");
    }

    #[test]
    fn wrong_options_name_what_is_accepted() {
        let error = Options::checked("p", pairs(&[("limt", &["3"])]), SPECS).unwrap_err();
        assert_eq!(error.message, "p has no option 'limt'");
        assert_eq!(
            error.hint.as_deref(),
            Some("p takes: flag, limit, convert, ratio, mode, keep")
        );
        let error = Options::checked("p", pairs(&[("mode", &["medium"])]), SPECS).unwrap_err();
        assert_eq!(
            error.message,
            "p's option 'mode' takes one of fast, slow, not 'medium'"
        );
        let error = Options::checked("p", pairs(&[("ratio", &["inf"])]), SPECS).unwrap_err();
        assert_eq!(
            error.message,
            "p's option 'ratio' takes a number, not 'inf'"
        );
        let error = Options::checked("p", pairs(&[("limit", &["x"])]), SPECS).unwrap_err();
        assert_eq!(
            error.message,
            "p's option 'limit' takes an integer, not 'x'"
        );
        let error =
            Options::checked("p", pairs(&[("convert", &["all-reduse"])]), SPECS).unwrap_err();
        assert!(
            error
                .message
                .contains("'all-reduse', which is not an opcode")
        );
        let error =
            Options::checked("p", pairs(&[("flag", &["true"]), ("flag", &[])]), SPECS).unwrap_err();
        assert_eq!(error.message, "p's option 'flag' is given twice");
    }

    #[test]
    fn opcode_predicates_read_and_refuse_mixtures() {
        let options = Options::checked("p", pairs(&[("keep", &["!bitcast"])]), SPECS).unwrap();
        assert_eq!(
            options.opcode_predicate("keep", OpcodePredicate::Always),
            OpcodePredicate::NoneOf(vec![Opcode::Bitcast])
        );
        let options = Options::checked("p", pairs(&[("keep", &["false"])]), SPECS).unwrap();
        assert_eq!(
            options.opcode_predicate("keep", OpcodePredicate::Always),
            OpcodePredicate::Never
        );
        assert_eq!(
            Options::none().opcode_predicate("keep", OpcodePredicate::Always),
            OpcodePredicate::Always
        );
        let error =
            Options::checked("p", pairs(&[("keep", &["copy", "!bitcast"])]), SPECS).unwrap_err();
        assert!(
            error
                .message
                .starts_with("p's option 'keep' takes true, false,"),
            "{}",
            error.message
        );
        assert!(error.message.contains("mixes opcodes"), "{}", error.message);
        let error = Options::checked("p", pairs(&[("keep", &["bitcats"])]), SPECS).unwrap_err();
        assert!(error.message.ends_with("'bitcats' is not an opcode"));
    }
}

//! An opcode predicate: the option value that stands for one of XLA's
//! `HloPredicate`s (`keep_sync_annotation`, `should_process`, …) when the
//! predicate only looks at the opcode.
//!
//! Written as an option value:
//!
//! - `true` or `false`: holds for every instruction, or for none
//!   (`HloPredicateTrue`, `HloPredicateFalse`);
//! - `OPCODE,…`: holds for these opcodes (`HloPredicateIsOp<…>`);
//! - `!OPCODE,…`: holds for every opcode except these. Either every item
//!   carries the `!` or none does: a predicate is one list or its complement,
//!   never a mix.
//!
//! An empty list (`key=`) names no opcode, so it holds for none.

use std::fmt;

use weft_ir::Opcode;

/// Which opcodes a predicate holds for (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpcodePredicate {
    /// Holds for every opcode.
    Always,
    /// Holds for no opcode.
    Never,
    /// Holds for exactly these opcodes.
    AnyOf(Vec<Opcode>),
    /// Holds for every opcode except these.
    NoneOf(Vec<Opcode>),
}

impl OpcodePredicate {
    /// Whether the predicate holds for `opcode`.
    pub fn holds(&self, opcode: Opcode) -> bool {
        match self {
            OpcodePredicate::Always => true,
            OpcodePredicate::Never => false,
            OpcodePredicate::AnyOf(opcodes) => opcodes.contains(&opcode),
            OpcodePredicate::NoneOf(opcodes) => !opcodes.contains(&opcode),
        }
    }

    /// Reads a predicate from an option's comma-separated items; the error
    /// says what is wrong with them, in words.
    pub fn parse(items: &[String]) -> Result<OpcodePredicate, String> {
        match items {
            [] => return Ok(OpcodePredicate::AnyOf(Vec::new())),
            [only] if only == "true" => return Ok(OpcodePredicate::Always),
            [only] if only == "false" => return Ok(OpcodePredicate::Never),
            _ => {}
        }
        let negated = items[0].starts_with('!');
        let mut opcodes = Vec::with_capacity(items.len());
        for item in items {
            let (name, item_negated) = match item.strip_prefix('!') {
                Some(name) => (name, true),
                None => (item.as_str(), false),
            };
            if item_negated != negated {
                return Err(format!(
                    "'{}' mixes opcodes with and without '!': prefix every opcode with '!' (any opcode except these) or none (only these)",
                    items.join(",")
                ));
            }
            let opcode = Opcode::from_name(name).ok_or_else(|| {
                if matches!(name, "true" | "false") {
                    format!("'{name}' cannot be listed with opcodes or negated; write it alone")
                } else {
                    format!("'{name}' is not an opcode")
                }
            })?;
            opcodes.push(opcode);
        }
        Ok(if negated {
            OpcodePredicate::NoneOf(opcodes)
        } else {
            OpcodePredicate::AnyOf(opcodes)
        })
    }
}

impl fmt::Display for OpcodePredicate {
    /// The option text that reads back as this predicate.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, opcodes: &[Opcode], prefix: &str| {
            let names: Vec<String> = opcodes
                .iter()
                .map(|opcode| format!("{prefix}{}", opcode.name()))
                .collect();
            f.write_str(&names.join(","))
        };
        match self {
            OpcodePredicate::Always => f.write_str("true"),
            OpcodePredicate::Never => f.write_str("false"),
            OpcodePredicate::AnyOf(opcodes) => list(f, opcodes, ""),
            OpcodePredicate::NoneOf(opcodes) => list(f, opcodes, "!"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<OpcodePredicate, String> {
        let items: Vec<String> = if text.is_empty() {
            Vec::new()
        } else {
            text.split(',').map(str::to_string).collect()
        };
        OpcodePredicate::parse(&items)
    }

    #[test]
    fn every_form_reads_and_prints_back() {
        for text in [
            "true",
            "false",
            "bitcast",
            "all-gather,fusion",
            "!bitcast,!copy",
        ] {
            assert_eq!(parse(text).unwrap().to_string(), text);
        }
        assert_eq!(parse("").unwrap(), OpcodePredicate::AnyOf(Vec::new()));
    }

    #[test]
    fn predicates_hold_as_written() {
        assert!(parse("true").unwrap().holds(Opcode::Add));
        assert!(!parse("false").unwrap().holds(Opcode::Add));
        assert!(!parse("").unwrap().holds(Opcode::Add));
        let only = parse("all-gather,fusion").unwrap();
        assert!(only.holds(Opcode::Fusion) && !only.holds(Opcode::Copy));
        let except = parse("!bitcast").unwrap();
        assert!(except.holds(Opcode::Copy) && !except.holds(Opcode::Bitcast));
    }

    #[test]
    fn mistakes_are_explained() {
        assert_eq!(parse("bitcats").unwrap_err(), "'bitcats' is not an opcode");
        assert!(
            parse("!bitcast,copy")
                .unwrap_err()
                .contains("mixes opcodes")
        );
        assert!(parse("copy,true").unwrap_err().contains("write it alone"));
        assert!(parse("!false").unwrap_err().contains("write it alone"));
    }
}

//! The HLO front end in one call: text → parsed (with its source map) →
//! verified. Every command and test that runs a module from HLO text goes
//! through [`load`], so they refuse the same modules with the same located
//! diagnostics.

use crate::diagnostic::Diagnostic;
use crate::module::Module;
use crate::text::SourceMap;
use crate::verify::VerifyOptions;

/// A parsed, verified module and where its entities are in the text.
#[derive(Debug)]
pub struct Loaded {
    /// The module.
    pub module: Module,
    /// Spans of its instructions and computations in the text.
    pub source_map: SourceMap,
}

/// Where loading stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The text does not parse.
    Parse,
    /// The module does not verify.
    Verify,
}

/// Why a module could not be loaded.
#[derive(Clone, Debug)]
pub struct LoadError {
    /// The stage that failed.
    pub stage: Stage,
    /// Its diagnostics, located in the text (at least one; every verifier
    /// error, not just the first).
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadError {
    /// The diagnostics rendered as rustc renders them, one after another.
    pub fn render(&self, file: &str, source: &str) -> String {
        self.diagnostics
            .iter()
            .map(|d| d.render(file, source))
            .collect()
    }
}

/// Parses `text` and verifies the module with `options`.
pub fn load(text: &str, options: &VerifyOptions) -> Result<Loaded, LoadError> {
    let (module, source_map) = crate::text::parse_with_source_map(text).map_err(|d| LoadError {
        stage: Stage::Parse,
        diagnostics: vec![d],
    })?;
    crate::verify::verify_with(&module, options).map_err(|errors| LoadError {
        stage: Stage::Verify,
        diagnostics: errors
            .iter()
            .map(|e| e.to_diagnostic(&module, text, &source_map))
            .collect(),
    })?;
    Ok(Loaded { module, source_map })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_verify_failures_are_told_apart() {
        let options = VerifyOptions::default();
        let parse = load(
            "HloModule m\nENTRY e {\n  ROOT x = f32[ parameter(0)\n}\n",
            &options,
        );
        assert_eq!(parse.unwrap_err().stage, Stage::Parse);
        let verify = load(
            "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = s32[2] negate(p)\n}\n",
            &options,
        )
        .unwrap_err();
        assert_eq!(verify.stage, Stage::Verify);
        assert!(verify.render("m.hlo", "").contains("error"));
        let loaded = load(
            "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n",
            &options,
        )
        .unwrap();
        assert_eq!(loaded.module.comps.len(), 1);
    }
}

//! The StableHLO front end in one call: text → parsed → verified → lowered to
//! the HLO module each device runs → that module verified (by HLO's rules,
//! blamed on the op an invalid instruction came from). Every command and test that runs or
//! converts a StableHLO program goes through [`load`], so they all refuse the
//! same programs with the same located diagnostics.
//!
//! A failure says at which stage it stopped ([`Stage`]) and carries every
//! diagnostic of that stage (all verifier errors, not just the first).

use weft_ir::literal::ArrayLiteral;
use weft_ir::{Diagnostic, Module};

use crate::ir::Body;

/// Where loading stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The text does not parse.
    Parse,
    /// The program does not verify.
    Verify,
    /// The program has no HLO form (or its shapes are not known).
    Lower,
    /// The program's HLO form does not verify: an op breaks a rule the
    /// StableHLO verifier does not check yet (its types disagree, say). The
    /// error is at the op, as a verifier error is.
    HloVerify,
}

/// Why a program could not be loaded.
#[derive(Clone, Debug)]
pub struct LoadError {
    /// The stage that failed.
    pub stage: Stage,
    /// Its diagnostics, located in the text (at least one).
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

    /// The first diagnostic's message, on one line (for a summary).
    pub fn message(&self) -> &str {
        self.diagnostics.first().map_or("", |d| d.message.as_str())
    }
}

/// Parses and verifies `text`.
pub fn parse_verified(text: &str) -> Result<Body, LoadError> {
    let body = crate::text::parse(text).map_err(|d| LoadError {
        stage: Stage::Parse,
        diagnostics: vec![*d],
    })?;
    crate::verify(&body).map_err(|errors| LoadError {
        stage: Stage::Verify,
        diagnostics: errors.iter().map(|e| e.to_diagnostic(&body)).collect(),
    })?;
    Ok(body)
}

/// Parses, verifies and lowers `text`; `arguments`, when the run's entry
/// arguments are known, fix the shapes the program leaves to run time
/// ([`crate::lower::lower_for_arguments`]).
pub fn load(text: &str, arguments: Option<&[ArrayLiteral]>) -> Result<Module, LoadError> {
    let body = parse_verified(text)?;
    lower(&body, arguments)
}

/// Lowers a verified `body` and verifies the result (the last stages of
/// [`load`], for a caller that keeps the body).
pub fn lower(body: &Body, arguments: Option<&[ArrayLiteral]>) -> Result<Module, LoadError> {
    let lowered = crate::lower::lower_unverified(body, arguments).map_err(|d| LoadError {
        stage: Stage::Lower,
        diagnostics: vec![*d],
    })?;
    lowered.verify(body).map_err(|diagnostics| LoadError {
        stage: Stage::HloVerify,
        diagnostics,
    })?;
    Ok(lowered.module)
}

/// Lowers a verified `body` without verifying the HLO module it makes (for
/// `weft convert --no-verify`, to look at a lowering that does not verify).
pub fn lower_unverified(body: &Body) -> Result<Module, LoadError> {
    crate::lower::lower_unverified(body, None)
        .map(|lowered| lowered.module)
        .map_err(|d| LoadError {
            stage: Stage::Lower,
            diagnostics: vec![*d],
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stage_reports_its_own_failure() {
        let parse = load("func.func @main( {", None).unwrap_err();
        assert_eq!(parse.stage, Stage::Parse);
        let verify = load(
            "func.func @main(%a: tensor<2xi1>) -> tensor<2xi1> {\n  %0 = stablehlo.atan2 %a, %a : tensor<2xi1>\n  func.return %0 : tensor<2xi1>\n}\n",
            None,
        )
        .unwrap_err();
        assert_eq!(verify.stage, Stage::Verify, "{}", verify.message());
        let lower = load(
            "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n  func.return %a : tensor<?xf32>\n}\n",
            None,
        )
        .unwrap_err();
        assert_eq!(lower.stage, Stage::Lower, "{}", lower.message());
        let hlo_verify = load(
            "func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n  %0 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n  func.return %0 : tensor<2xf32>\n}\n",
            None,
        )
        .unwrap_err();
        assert_eq!(
            hlo_verify.stage,
            Stage::HloVerify,
            "{}",
            hlo_verify.message()
        );
        let module = load(
            "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n  func.return %a : tensor<?xf32>\n}\n",
            Some(&[ArrayLiteral {
                elem: weft_ir::ElementType::F32,
                dims: vec![3],
                data: vec![0; 12],
            }]),
        );
        assert!(module.is_ok(), "the argument fixes the ? dimension");
    }
}

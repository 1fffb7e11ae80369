//! Runs a list of passes over a module.
//!
//! After each pass the runner can verify the module (always in debug builds
//! and tests, and with `verify_each`): a pass that leaves it invalid is
//! named in the error, with every verifier finding, so a broken invariant is
//! caught at the pass that broke it, not passes later. The module's phase
//! may only move forward: a pass that moves it back is an error too. The
//! runner also writes the module after chosen passes (`dump_after`) and
//! times each pass.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use weft_ir::Module;
use weft_ir::text::{PrintOptions, print};

use crate::pass::{Pass, PassError};

/// Which passes the runner writes the module after.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DumpAfter {
    /// None.
    #[default]
    Nothing,
    /// Every pass.
    All,
    /// The passes of these names.
    Passes(Vec<String>),
}

/// How the runner runs.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    /// Verify after every pass (debug builds always do).
    pub verify_each: bool,
    /// How strictly to verify.
    pub verify: weft_ir::verify::VerifyOptions,
    /// Ask each pass why it did what it did ([`Pass::run_explained`]).
    pub explain: bool,
    /// Which passes to write the module after.
    pub dump_after: DumpAfter,
    /// Where the dumps go: `NN.<pass>.hlo`, numbered from 1 in pipeline
    /// order (`00.input.hlo` is the module before the first pass).
    pub dump_dir: Option<PathBuf>,
}

/// What one pass did.
#[derive(Clone, Debug)]
pub struct PassRun {
    /// The pass's name.
    pub name: &'static str,
    /// Whether it changed the module.
    pub changed: bool,
    /// How long it took (verification not included).
    pub duration: Duration,
    /// How long verifying after it took, when the runner verified.
    pub verification: Option<Duration>,
    /// Why it did what it did, when the runner asked ([`PipelineOptions::explain`]).
    pub remarks: Vec<String>,
}

/// What a pipeline did.
#[derive(Clone, Debug, Default)]
pub struct PipelineReport {
    /// Each pass's run, in order.
    pub runs: Vec<PassRun>,
}

impl PipelineReport {
    /// Whether any pass changed the module.
    pub fn changed(&self) -> bool {
        self.runs.iter().any(|run| run.changed)
    }
}

/// Why a pipeline stopped.
#[derive(Debug)]
pub enum PipelineError {
    /// Pass number `index` (from 0) failed.
    Failed {
        /// Its name.
        pass: &'static str,
        /// Its place in the pipeline.
        index: usize,
        /// Why.
        error: PassError,
    },
    /// Pass number `index` left a module that does not verify.
    BrokeModule {
        /// Its name.
        pass: &'static str,
        /// Its place in the pipeline.
        index: usize,
        /// What the verifier found.
        errors: Vec<weft_ir::VerifyError>,
    },
    /// A dump could not be written.
    Dump {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

impl PipelineError {
    /// The error in words; `module` (the module as the pass left it) names
    /// the instructions of verifier findings.
    pub fn describe(&self, module: &Module) -> String {
        match self {
            PipelineError::Failed { pass, index, error } => {
                format!("pass {} ({pass}) failed: {error}", index + 1)
            }
            PipelineError::BrokeModule {
                pass,
                index,
                errors,
            } => {
                let mut text = format!(
                    "pass {} ({pass}) left a module that does not verify ({} error{}):",
                    index + 1,
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" }
                );
                for error in errors {
                    text.push_str(&format!("\n  {}", error.describe(module)));
                }
                text.push_str(
                    "\nthis is a bug in the pass: please report it with the input module",
                );
                text
            }
            PipelineError::Dump { path, error } => {
                format!("cannot write the dump {}: {error}", path.display())
            }
        }
    }
}

/// A list of passes to run in order.
#[derive(Default)]
pub struct Pipeline {
    passes: Vec<Box<dyn Pass>>,
}

impl Pipeline {
    /// A pipeline of `passes`.
    pub fn new(passes: Vec<Box<dyn Pass>>) -> Pipeline {
        Pipeline { passes }
    }

    /// The passes' names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|pass| pass.name()).collect()
    }

    /// Runs every pass on `module` (see the module docs).
    pub fn run(
        &self,
        module: &mut Module,
        options: &PipelineOptions,
    ) -> Result<PipelineReport, PipelineError> {
        let verify = options.verify_each || cfg!(debug_assertions);
        let mut report = PipelineReport::default();
        if options.dump_after != DumpAfter::Nothing {
            dump(module, options, 0, "input")?;
        }
        for (index, pass) in self.passes.iter().enumerate() {
            let phase = module.phase();
            let started = Instant::now();
            let outcome = if options.explain {
                pass.run_explained(module)
            } else {
                pass.run(module).map(|changed| (changed, Vec::new()))
            };
            let (changed, remarks) = outcome.map_err(|error| PipelineError::Failed {
                pass: pass.name(),
                index,
                error,
            })?;
            let duration = started.elapsed();
            if module.phase() < phase {
                return Err(PipelineError::Failed {
                    pass: pass.name(),
                    index,
                    error: PassError::new(format!(
                        "it moved the module back from the {} phase to the {} phase",
                        phase.name(),
                        module.phase().name()
                    )),
                });
            }
            let verification = if verify {
                let started = Instant::now();
                weft_ir::verify::verify_with(module, &options.verify).map_err(|errors| {
                    PipelineError::BrokeModule {
                        pass: pass.name(),
                        index,
                        errors,
                    }
                })?;
                Some(started.elapsed())
            } else {
                None
            };
            let dumps = match &options.dump_after {
                DumpAfter::Nothing => false,
                DumpAfter::All => true,
                DumpAfter::Passes(names) => names.iter().any(|name| name == pass.name()),
            };
            if dumps {
                dump(module, options, index + 1, pass.name())?;
            }
            report.runs.push(PassRun {
                name: pass.name(),
                changed,
                duration,
                verification,
                remarks,
            });
        }
        Ok(report)
    }
}

fn dump(
    module: &Module,
    options: &PipelineOptions,
    number: usize,
    name: &str,
) -> Result<(), PipelineError> {
    let Some(dir) = &options.dump_dir else {
        return Ok(());
    };
    let path = dir.join(format!("{number:02}.{name}.hlo"));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, print(module, &PrintOptions::long())))
        .map_err(|error| PipelineError::Dump { path, error })
}

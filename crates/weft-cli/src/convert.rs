//! `weft convert`: StableHLO to HLO (the lowering, per device) and HLO to
//! StableHLO (the export).

use std::path::PathBuf;
use std::process::ExitCode;

use weft_ir::text::{PrintOptions, Style};

use crate::fmt::InputFormat;
use crate::input;

/// The format to convert to.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// XLA HLO text (the program each device runs).
    Hlo,
    /// StableHLO in MLIR text (async chains as async_start/async_done).
    Stablehlo,
}

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// The file to convert (StableHLO when it ends in `.mlir`, HLO otherwise);
    /// `-` or nothing reads standard input.
    file: Option<PathBuf>,
    /// The format to write.
    #[arg(long, value_enum)]
    to: Target,
    /// The input's format, when its name does not say.
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
    /// HLO output: XLA's short form.
    #[arg(long)]
    short: bool,
    /// HLO output: async operations in the generic form instead of sugar.
    #[arg(long)]
    no_sugar: bool,
    /// StableHLO output: print every op in MLIR's generic form.
    #[arg(long)]
    generic: bool,
    /// StableHLO output: write async collectives as `<collective>_start` /
    /// `_done` pairs instead of async_start with a region.
    #[arg(long, value_enum, value_name = "STYLE")]
    async_style: Option<crate::fmt::AsyncStyleArg>,
    /// Skip verifying the result (it is verified by default).
    #[arg(long)]
    no_verify: bool,
    /// Write the output to OUT instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

pub fn run(args: &ConvertArgs) -> ExitCode {
    let source = match input::read(args.file.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            tell!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let format = InputFormat::of(args.file.as_deref(), args.input_format);
    let text = match (format, args.to) {
        (InputFormat::Mlir, Target::Hlo) => match to_hlo(args, &source) {
            Ok(text) => text,
            Err(code) => return code,
        },
        (InputFormat::Hlo, Target::Stablehlo) => match to_stablehlo(args, &source) {
            Ok(text) => text,
            Err(code) => return code,
        },
        (InputFormat::Mlir, Target::Stablehlo) | (InputFormat::Hlo, Target::Hlo) => {
            tell!("error: the input is already in that format (use `weft fmt` to reprint it)");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = input::write_with(args.output.as_deref(), |w| w.write_all(text.as_bytes())) {
        tell!("error: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn to_hlo(args: &ConvertArgs, source: &input::Source) -> Result<String, ExitCode> {
    use weft_stablehlo::load;
    let report = |error: load::LoadError| {
        tell_text!("{}", error.render(&source.name, &source.text));
        if matches!(error.stage, load::Stage::Verify | load::Stage::HloVerify) {
            tell!(
                "error: {} verifier error(s); nothing converted",
                error.diagnostics.len()
            );
        }
        ExitCode::FAILURE
    };
    // The lowering verifies what it makes and blames the op an invalid
    // instruction came from (as `weft run` does); --no-verify skips that to
    // show the module anyway.
    let module = if args.no_verify {
        let body = load::parse_verified(&source.text).map_err(report)?;
        load::lower_unverified(&body).map_err(report)?
    } else {
        load::load(&source.text, None).map_err(report)?
    };
    let options = PrintOptions {
        style: if args.short {
            Style::Short
        } else {
            Style::Long
        },
        sugar: !args.no_sugar,
        large_constants: true,
    };
    Ok(weft_ir::text::print(&module, &options))
}

fn to_stablehlo(args: &ConvertArgs, source: &input::Source) -> Result<String, ExitCode> {
    // The input is verified first, with `weft check`'s located diagnostics:
    // what the export makes of an invalid module is no one's answer.
    let loaded = weft_ir::load::load(&source.text, &weft_ir::verify::VerifyOptions::default())
        .map_err(|error| {
            tell_text!("{}", error.render(&source.name, &source.text));
            if error.stage == weft_ir::load::Stage::Verify {
                let count = error.diagnostics.len();
                let plural = if count == 1 { "" } else { "s" };
                tell!(
                    "error: {}: the module does not verify ({count} error{plural}); nothing converted",
                    source.name
                );
            }
            ExitCode::FAILURE
        })?;
    let style = args.async_style.map(|style| match style {
        crate::fmt::AsyncStyleArg::Region => weft_stablehlo::async_style::AsyncStyle::Region,
        crate::fmt::AsyncStyleArg::Pairs => weft_stablehlo::async_style::AsyncStyle::Pairs,
    });
    export_stablehlo(
        &loaded.module,
        &loaded.source_map,
        source,
        style,
        args.generic,
        !args.no_verify,
    )
}

/// The StableHLO text of `module` (read from `source`, whose `source_map`
/// locates errors at its instructions), with async ops in `style`, in the
/// generic form with `generic`, and parsed back and verified with `verify`.
pub(crate) fn export_stablehlo(
    module: &weft_ir::Module,
    source_map: &weft_ir::text::SourceMap,
    source: &input::Source,
    style: Option<weft_stablehlo::async_style::AsyncStyle>,
    generic: bool,
    verify: bool,
) -> Result<String, ExitCode> {
    let exported = weft_stablehlo::export::export(module).map_err(|message| {
        match message.instr.and_then(|instr| source_map.instr(instr)) {
            Some(span) => tell_text!(
                "{}",
                weft_ir::Diagnostic::error(
                    span,
                    format!("cannot export {}: {}", message.instruction, message.message)
                )
                .render(&source.name, &source.text)
            ),
            None => tell!("error: {}: cannot export {message}", source.name),
        }
        ExitCode::FAILURE
    })?;
    for warning in &exported.warnings {
        tell!("warning: {}: {warning}", source.name);
    }
    let mut body = exported.body;
    if let Some(style) = style {
        for kept in weft_stablehlo::async_style::set_async_style(&mut body, style) {
            tell!(
                "warning: {}: '{}' kept in region form: {}",
                source.name,
                body.ops[kept.op].name.as_str(),
                kept.reason
            );
        }
    }
    let options = weft_stablehlo::text::PrintOptions {
        generic,
        ..Default::default()
    };
    let text = weft_stablehlo::text::print(&body, &options);
    if verify {
        // Verify what a reader will see: the printed text, parsed back. The
        // input verified, so text the parser refuses is weft's own doing.
        let reparsed = weft_stablehlo::text::parse(&text).map_err(|d| {
            tell_text!("{}", d.render("<exported>", &text));
            tell!("note: this is a bug in weft's export; --no-verify writes the file anyway");
            ExitCode::FAILURE
        })?;
        // StableHLO's rules are stricter than XLA's in places (XLA lets an
        // async start carried out of a while loop go unfinished; StableHLO
        // wants every future taken), so a module HLO's verifier accepts can
        // still have no valid StableHLO form. Each error is shown at the HLO
        // instruction its op came from (ops carry their instruction's name
        // as their location).
        if let Err(errors) = weft_stablehlo::verify(&reparsed) {
            for error in &errors {
                let diagnostic = error.to_diagnostic(&reparsed);
                let origin = reparsed
                    .location_name(reparsed.ops[error.op].location.as_ref())
                    .and_then(|name| {
                        module
                            .all_instrs()
                            .find(|&i| *module.instr(i).name == *name)
                    })
                    .and_then(|instr| Some((instr, source_map.instr(instr)?)));
                match origin {
                    Some((instr, span)) => {
                        let mut at_instruction = weft_ir::Diagnostic::error(
                            span,
                            format!(
                                "%{} has no valid StableHLO form: {}",
                                module.instr(instr).name,
                                diagnostic.message
                            ),
                        );
                        if let Some(hint) = diagnostic.hint {
                            at_instruction =
                                at_instruction.with_hint(format!("in the StableHLO: {hint}"));
                        }
                        tell_text!("{}", at_instruction.render(&source.name, &source.text));
                    }
                    None => tell_text!("{}", diagnostic.render("<exported>", &text)),
                }
            }
            tell!(
                "error: {}: the module passes the HLO verifier, but its StableHLO form breaks the rules above; --no-verify writes it anyway",
                source.name
            );
            return Err(ExitCode::FAILURE);
        }
    }
    Ok(text)
}

//! Fuzzes the StableHLO lowering and what it writes.
//!
//! For every UTF-8 input the StableHLO parser accepts and the verifier
//! passes:
//! - lowering to HLO never panics, aborts or overflows the stack; a refusal
//!   is a diagnostic whose span lies in the source;
//! - the HLO it makes prints, and that text parses again (what weft writes,
//!   weft reads);
//! - exporting that HLO back to StableHLO never panics, and the text it
//!   prints parses again.

#![no_main]

#[path = "rejected.rs"]
mod rejected;

use libfuzzer_sys::fuzz_target;
use weft_ir::text::PrintOptions;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(body) = weft_stablehlo::load::parse_verified(text) else {
        return;
    };
    let module = match weft_stablehlo::load::lower(&body, None) {
        Ok(module) => module,
        Err(error) => {
            for diagnostic in &error.diagnostics {
                rejected::check_diagnostic(diagnostic, "fuzz.mlir", text);
            }
            return;
        }
    };
    let printed = weft_ir::text::print_module(&module, &PrintOptions::long());
    if let Err(d) = weft_ir::text::parse(&printed) {
        panic!(
            "the lowered HLO does not parse again:\n{}\n--- printed ---\n{printed}",
            d.render("lowered.hlo", &printed)
        );
    }
    if let Ok(exported) = weft_stablehlo::export::export(&module) {
        let text = weft_stablehlo::text::print(&exported.body, &Default::default());
        if let Err(d) = weft_stablehlo::text::parse(&text) {
            panic!(
                "the exported StableHLO does not parse again:\n{}\n--- printed ---\n{text}",
                d.render("exported.mlir", &text)
            );
        }
    }
});

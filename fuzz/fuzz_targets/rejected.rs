//! What every parser target checks of a rejected input: the diagnostic's
//! span lies in the source, and it renders (long and short) without
//! panicking.

use weft_ir::Diagnostic;

/// Checks the diagnostic `diagnostic` that rejected `text`, shown as `file`.
pub fn check_diagnostic(diagnostic: &Diagnostic, file: &str, text: &str) {
    assert!(
        diagnostic.span.start <= diagnostic.span.end
            && diagnostic.span.end as usize <= text.len(),
        "diagnostic span {:?} outside the {}-byte source: {}",
        diagnostic.span,
        text.len(),
        diagnostic.message
    );
    let _ = diagnostic.render(file, text);
    let _ = diagnostic.short(file, text);
}

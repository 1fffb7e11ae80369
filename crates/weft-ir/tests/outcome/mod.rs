//! What a parse produces, written out as text so that two ways of parsing the
//! same input can be compared in one assertion.

use std::fmt::Write as _;

use weft_ir::entity::EntityRef;
use weft_ir::text::{PrintOptions, SourceMap, print};

/// A module printed in the long form, then in the short form.
pub fn long_and_short(m: &weft_ir::Module) -> String {
    let mut out = print(m, &PrintOptions::long());
    out.push_str(&print(m, &PrintOptions::short()));
    out
}

/// Everything a parse produces, as text to compare.
pub fn outcome(result: Result<(weft_ir::Module, SourceMap), weft_ir::Diagnostic>) -> String {
    let (m, spans) = match result {
        Ok(parsed) => parsed,
        Err(d) => return format!("error: {d:?}"),
    };
    let mut out = long_and_short(&m);
    // The generic form shows every async op's wrapped computation.
    out.push_str(&print(
        &m,
        &PrintOptions {
            sugar: false,
            ..PrintOptions::long()
        },
    ));
    for (instr, data) in m.instrs.iter() {
        let _ = write!(
            out,
            "\n{} {} {:?} {:?} {:?}",
            instr.index(),
            data.name,
            m.parent(instr),
            spans.instr(instr),
            spans.opcode(instr),
        );
        for k in 0..data.operands.len() {
            let _ = write!(out, " {:?}", spans.operand(instr, k));
        }
    }
    out
}

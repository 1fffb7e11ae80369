//! Forms that are an operand list, an attribute dictionary and types:
//! `op %a, %b {attrs} : (t, u) -> v` and `op %a, %b {attrs} : v`.

use crate::ir::Op;
use crate::ops::OpName;
use crate::text::cursor::PResult;
use crate::text::parser::{ParsedOp, Parser};
use crate::text::printer::Printer;
use crate::text::types::{print_function_type, print_type_list};

/// `op %a, %b {attrs} : (t, u) -> v`.
pub(super) fn parse_functional(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let uses = if p.c.peek() == b'%' {
        p.parse_value_uses()?
    } else {
        Vec::new()
    };
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the function type")?;
    let at = p.c.pos;
    let function = p.parse_function_type()?;
    if function.inputs.len() != uses.len() {
        return Err(p.c.error_at(
            at,
            format!(
                "expected {} operand types but had {}",
                uses.len(),
                function.inputs.len()
            ),
        ));
    }
    parsed.data.operands = p.resolve_operands(&uses, &function.inputs)?;
    parsed.result_types = function.results;
    Ok(parsed)
}

pub(super) fn print_functional(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    pr.print_op_name(&data.name.clone());
    if !data.operands.is_empty() {
        pr.out.push(' ');
        pr.print_value_list(&data.operands.clone());
    }
    pr.print_remaining_attributes(op, &[]);
    pr.out.push_str(" : ");
    let function = function_type_of(pr, op);
    print_function_type(&mut pr.out, &function);
    true
}

/// `op %a, %b {attrs} : v` (operand types come from the values).
pub(super) fn parse_result_types(p: &mut Parser<'_>, name: OpName) -> PResult<ParsedOp> {
    let mut parsed = ParsedOp::new(name);
    let uses = if p.c.peek() == b'%' {
        p.parse_value_uses()?
    } else {
        Vec::new()
    };
    p.parse_optional_attr_dict(&mut parsed.data)?;
    p.c.expect(b':', "':' and the result type")?;
    parsed.result_types = p.parse_type_list()?;
    parsed.data.operands = p.resolve_untyped(&uses)?;
    Ok(parsed)
}

pub(super) fn print_result_types(pr: &mut Printer<'_>, op: Op) -> bool {
    let data = &pr.body.ops[op];
    // The form needs a result type to read back.
    if data.results.is_empty() {
        return false;
    }
    pr.print_op_name(&data.name.clone());
    if !data.operands.is_empty() {
        pr.out.push(' ');
        pr.print_value_list(&data.operands.clone());
    }
    pr.print_remaining_attributes(op, &[]);
    pr.out.push_str(" : ");
    let types: Vec<_> = data
        .results
        .iter()
        .map(|&v| pr.body.ty(v).clone())
        .collect();
    print_type_list(&mut pr.out, &types);
    true
}

/// The `(operand types) -> result types` of `op`.
pub(super) fn function_type_of(pr: &Printer<'_>, op: Op) -> crate::ir::FunctionType {
    let data = &pr.body.ops[op];
    crate::ir::FunctionType {
        inputs: data
            .operands
            .iter()
            .map(|&v| pr.body.ty(v).clone())
            .collect(),
        results: data
            .results
            .iter()
            .map(|&v| pr.body.ty(v).clone())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use crate::text::syntax::test_support::round_trip;

    /// Fuzz finding: an op of the `op : types` form without results printed as
    /// `stablehlo.partition_id : `, which does not read back.
    #[test]
    fn result_types_form_without_results_prints_generic() {
        let text = "\"\"()({\"stablehlo.partition_id\"():()->()}):()->()";
        let (custom, _) = round_trip(text);
        assert!(
            custom.contains("\"stablehlo.partition_id\"() : () -> ()"),
            "{custom}"
        );
    }
}

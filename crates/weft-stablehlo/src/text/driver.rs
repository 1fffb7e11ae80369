//! What `stablehlo-translate --interpret` reads from its command line: the
//! entry function's arguments, `--args="[dense<…> : tensor<…>, …]"`, and the
//! `// RUN:` line of a test file that passes them.
//!
//! Each argument is a `dense<…>` elements attribute of a static tensor type,
//! exactly as the driver takes them; splats (`dense<1> : tensor<2xi32>`) are
//! expanded to every element. Anything else is refused with the driver's
//! reason.

use weft_ir::literal::ArrayLiteral;

use crate::ir::Attribute;
use crate::ir::attribute::NotNumbers;

/// The most bytes an argument written as a splat expands to: an argument is
/// a test's input, and a short `--args` text must not ask for gigabytes.
const MAX_ARGUMENT_BYTES: u64 = 1 << 30;

/// The form the driver's messages show.
const FORM: &str = "i.e. --args=[dense<1> : tensor<2xi32>, ...]";

/// Parses `--args` text into one literal per argument, in order.
pub fn parse_arguments(text: &str) -> Result<Vec<ArrayLiteral>, String> {
    let attribute = super::parse_attribute(text).map_err(|d| d.render("--args", text))?;
    let Attribute::Array(items) = attribute else {
        return Err(format!("expected an array attribute for args, {FORM}"));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| match item {
            Attribute::DenseElements(dense) => match dense.numbers(MAX_ARGUMENT_BYTES) {
                Ok(array) if dense.ty.static_dims().is_some() => Ok(array.into_owned()),
                Ok(_) | Err(NotNumbers::NotStatic) => Err(format!(
                    "argument {index} has a dynamically shaped type; arguments need static shapes"
                )),
                Err(NotNumbers::Strings) => Err(format!(
                    "argument {index} holds strings; arguments are numbers or booleans"
                )),
                Err(too_large) => Err(format!("argument {index}: {too_large}")),
            },
            _ => Err(format!(
                "expected dense elements attribute for args elements, {FORM} (argument {index} is not one)"
            )),
        })
        .collect()
}

/// The `--args="…"` text of the first `// RUN:` line of `file` that runs the
/// interpreter and expects it to succeed (a line running `not …` tests an
/// error and is skipped).
pub fn run_line_arguments(file: &str) -> Option<&str> {
    file.lines()
        .filter_map(|line| line.trim_start().strip_prefix("// RUN:"))
        .filter(|command| {
            command.contains("--interpret") && !command.trim_start().starts_with("not ")
        })
        .find_map(|command| {
            let start = command.find("--args=\"")? + "--args=\"".len();
            let end = command[start..].find('"')? + start;
            Some(&command[start..end])
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::ElementType;

    #[test]
    fn splats_and_lists_become_whole_literals() {
        let arguments =
            parse_arguments("[dense<1> : tensor<2xi32>, dense<[[1.5], [2.5]]> : tensor<2x1xf32>]")
                .unwrap();
        assert_eq!(arguments.len(), 2);
        assert_eq!(arguments[0].elem, ElementType::S32);
        assert_eq!(arguments[0].dims, vec![2]);
        assert_eq!(arguments[0].data, [1, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(arguments[1].dims, vec![2, 1]);
        assert_eq!(arguments[1].data.len(), 8);
    }

    #[test]
    fn other_attributes_are_refused_with_the_form() {
        let not_array = parse_arguments("dense<1> : tensor<2xi32>").unwrap_err();
        assert!(
            not_array.contains("expected an array attribute"),
            "{not_array}"
        );
        let not_dense = parse_arguments("[4.0 : f32]").unwrap_err();
        assert!(
            not_dense.contains("expected dense elements attribute"),
            "{not_dense}"
        );
        assert!(not_dense.contains("--args=[dense<1> : tensor<2xi32>, ...]"));
        let garbage = parse_arguments("not_array").unwrap_err();
        assert!(garbage.contains("--args"), "{garbage}");
    }

    #[test]
    fn the_run_line_passing_arguments_is_found() {
        let file = "// RUN: not stablehlo-translate %s --interpret --args=\"[4.0 : f32]\"\n\
                    // RUN: stablehlo-translate %s --interpret --args=\"[dense<1> : tensor<i32>]\" | FileCheck %s\n\
                    func.func @main() { func.return }\n";
        assert_eq!(run_line_arguments(file), Some("[dense<1> : tensor<i32>]"));
        assert_eq!(
            run_line_arguments("// RUN: stablehlo-translate --interpret %s\n"),
            None
        );
    }
}

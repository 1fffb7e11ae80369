//! The MLIR text printer: file structure, ops in the generic form, regions and
//! blocks, SSA names (see [`names`](crate::text::names)). Custom (pretty) op
//! forms are printed by `text::syntax`, next to their parsers.
//!
//! Output conventions are MLIR's: two spaces per nesting level, block labels
//! at the level of the op that owns the region, attribute dictionaries in name
//! order, the dialect prefix dropped for ops of a region's default dialect
//! (`return` inside `func.func`).

use crate::ir::attribute::NamedAttribute;
use crate::ir::{AliasPlacement, Block, Body, Op, Region, Value};
use crate::ops::{OpName, Syntax};
use crate::text::attributes::{print_attribute_dictionary, print_string};
use crate::text::location::{print_location_body, print_trailing_location};
use crate::text::names::{Names, ValueName};
use crate::text::types::{print_function_type, print_type};

/// How to print.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in the generic form (`--mlir-print-op-generic`).
    pub generic: bool,
    /// Leave out locations and location aliases.
    pub strip_locations: bool,
}

/// Prints a whole file.
pub fn print(body: &Body, options: &PrintOptions) -> String {
    let mut printer = Printer {
        body,
        options,
        names: Names::assign(body, options.generic),
        out: String::new(),
        indent: 0,
        default_dialects: vec![""],
    };
    printer.print_file();
    printer.out
}

/// Printer state.
pub(crate) struct Printer<'a> {
    pub(crate) body: &'a Body,
    options: &'a PrintOptions,
    names: Names,
    pub(crate) out: String,
    indent: usize,
    default_dialects: Vec<&'static str>,
}

impl Printer<'_> {
    fn print_file(&mut self) {
        if !self.options.strip_locations {
            self.print_aliases(AliasPlacement::Top);
        }
        self.print_op(self.body.module);
        if !self.options.strip_locations {
            self.print_aliases(AliasPlacement::Bottom);
        }
        if let Some(metadata) = &self.body.file_metadata {
            self.out.push('\n');
            self.out.push_str(metadata);
            self.out.push('\n');
        }
    }

    fn print_aliases(&mut self, placement: AliasPlacement) {
        for alias in &self.body.location_aliases {
            if alias.placement == placement {
                self.out.push('#');
                self.out.push_str(&alias.name);
                self.out.push_str(" = loc(");
                print_location_body(&mut self.out, &alias.location);
                self.out.push_str(")\n");
            }
        }
    }

    /// Prints one op on its own line(s), with indentation and a newline.
    fn print_op(&mut self, op: Op) {
        let data = &self.body.ops[op];
        self.out.push_str(&" ".repeat(self.indent));
        self.print_result_names(op);
        let syntax = data.name.syntax();
        let printed = !self.options.generic
            && !matches!(syntax, Syntax::Generic | Syntax::Unimplemented)
            && {
                let checkpoint = self.out.len();
                let done = crate::text::syntax::print_custom(self, op, syntax);
                if !done {
                    self.out.truncate(checkpoint);
                }
                done
            };
        if !printed {
            self.print_generic(op);
        }
        if !self.options.strip_locations
            && let Some(location) = &self.body.ops[op].location
        {
            print_trailing_location(&mut self.out, location);
        }
        self.out.push('\n');
    }

    fn print_result_names(&mut self, op: Op) {
        let results = &self.body.ops[op].results;
        let Some(&first) = results.first() else {
            return;
        };
        match self.names.value(first) {
            Some(ValueName::Numbered { number, .. }) => {
                self.out.push_str(&format!("%{number}"));
                if results.len() > 1 {
                    self.out.push_str(&format!(":{}", results.len()));
                }
            }
            _ => {
                for (i, &result) in results.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.print_value(result);
                }
            }
        }
        self.out.push_str(" = ");
    }

    /// The op's name as printed in a custom form: without the dialect prefix
    /// when it is the enclosing region's default dialect.
    pub(crate) fn print_op_name(&mut self, name: &OpName) {
        let full = name.as_str();
        if *name == OpName::module() {
            self.out.push_str("module");
            return;
        }
        let dialect = self.default_dialects.last().copied().unwrap_or("");
        if !dialect.is_empty()
            && let Some(short) = full.strip_prefix(dialect).and_then(|s| s.strip_prefix('.'))
        {
            self.out.push_str(short);
            return;
        }
        self.out.push_str(full);
    }

    fn print_generic(&mut self, op: Op) {
        let body = self.body;
        let data = &body.ops[op];
        print_string(&mut self.out, data.name.as_str());
        self.out.push('(');
        self.print_value_list(&data.operands);
        self.out.push(')');
        if !data.successors.is_empty() {
            self.out.push('[');
            for (i, &block) in data.successors.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_block_name(block);
            }
            self.out.push(']');
        }
        if !data.properties.is_empty() {
            self.out.push_str(" <");
            print_attribute_dictionary(&mut self.out, &data.properties);
            self.out.push('>');
        }
        if !data.regions.is_empty() {
            self.out.push_str(" (");
            self.default_dialects.push(default_dialect(&data.name));
            for (i, &region) in data.regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_region(region, true);
            }
            self.default_dialects.pop();
            self.out.push(')');
        }
        if !data.attributes.is_empty() {
            self.out.push(' ');
            print_attribute_dictionary(&mut self.out, &data.attributes);
        }
        self.out.push_str(" : ");
        let function = crate::ir::FunctionType {
            inputs: data.operands.iter().map(|&v| body.ty(v).clone()).collect(),
            results: data.results.iter().map(|&v| body.ty(v).clone()).collect(),
        };
        print_function_type(&mut self.out, &function);
    }

    /// Prints `{ … }` for `region`; the entry block's label and arguments are
    /// printed when `entry_arguments` is set and it has arguments (custom forms
    /// that declare them elsewhere pass `false`).
    pub(crate) fn print_region(&mut self, region: Region, entry_arguments: bool) {
        let body = self.body;
        self.out.push_str("{\n");
        let blocks = &body.regions[region].blocks;
        for (index, &block) in blocks.iter().enumerate() {
            let needs_label =
                index > 0 || (entry_arguments && !body.blocks[block].arguments.is_empty());
            if needs_label {
                self.print_block_header(block);
            }
            self.indent += 2;
            for &op in &body.blocks[block].ops {
                self.print_op(op);
            }
            self.indent -= 2;
        }
        self.out.push_str(&" ".repeat(self.indent));
        self.out.push('}');
    }

    /// Prints a region that belongs to an op with a custom form, with `op`'s
    /// default dialect in force.
    pub(crate) fn print_owned_region(&mut self, op: Op, region: Region, entry_arguments: bool) {
        self.default_dialects
            .push(default_dialect(&self.body.ops[op].name));
        self.print_region(region, entry_arguments);
        self.default_dialects.pop();
    }

    fn print_block_header(&mut self, block: Block) {
        self.out.push_str(&" ".repeat(self.indent));
        self.print_block_name(block);
        let arguments = &self.body.blocks[block].arguments;
        if !arguments.is_empty() {
            self.out.push('(');
            for (i, &argument) in arguments.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_typed_value(argument);
            }
            self.out.push(')');
        }
        self.out.push_str(":\n");
    }

    fn print_block_name(&mut self, block: Block) {
        self.out
            .push_str(&format!("^bb{}", self.names.block(block)));
    }

    /// `%v: type loc(…)?`.
    pub(crate) fn print_typed_value(&mut self, value: Value) {
        self.print_value(value);
        self.out.push_str(": ");
        print_type(&mut self.out, self.body.ty(value));
        self.print_value_location(value);
    }

    /// The location of a block argument, if any and if locations are printed.
    pub(crate) fn print_value_location(&mut self, value: Value) {
        if !self.options.strip_locations
            && let Some(location) = &self.body.values[value].location
        {
            print_trailing_location(&mut self.out, location);
        }
    }

    /// `%name`.
    pub(crate) fn print_value(&mut self, value: Value) {
        self.out.push('%');
        match self.names.value(value) {
            Some(ValueName::Numbered { number, result }) => {
                self.out.push_str(&number.to_string());
                if let Some(result) = result {
                    self.out.push_str(&format!("#{result}"));
                }
            }
            Some(ValueName::Named(name)) => self.out.push_str(name),
            None => self.out.push_str("<<UNKNOWN SSA VALUE>>"),
        }
    }

    /// `%a, %b`.
    pub(crate) fn print_value_list(&mut self, values: &[Value]) {
        for (i, &value) in values.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_value(value);
        }
    }

    /// The types of `values`, comma-separated.
    pub(crate) fn print_value_types(&mut self, values: &[Value]) {
        for (i, &value) in values.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            print_type(&mut self.out, self.body.ty(value));
        }
    }

    /// ` {a = …}` for the attributes a custom form did not print itself
    /// (properties and discardable attributes together, in name order).
    pub(crate) fn print_remaining_attributes(&mut self, op: Op, printed: &[&str]) {
        let data = &self.body.ops[op];
        let mut rest: Vec<NamedAttribute> = data
            .properties
            .iter()
            .chain(&data.attributes)
            .filter(|a| !printed.contains(&a.name.as_str()))
            .cloned()
            .collect();
        if rest.is_empty() {
            return;
        }
        rest.sort_by(|a, b| a.name.cmp(&b.name));
        self.out.push(' ');
        print_attribute_dictionary(&mut self.out, &rest);
    }
}

fn default_dialect(name: &OpName) -> &'static str {
    if *name == OpName::func() { "func" } else { "" }
}

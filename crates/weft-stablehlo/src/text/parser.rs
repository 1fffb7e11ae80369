//! The MLIR text parser: file structure (location aliases, the module), ops in
//! the generic form, regions, blocks and SSA names. Custom (pretty) op forms are
//! parsed by `text::syntax`, one family per file.
//!
//! SSA names are scoped like MLIR's: a region sees the names of its enclosing
//! regions; a name may not be defined twice in one scope; a use must follow its
//! definition (StableHLO regions are single-block SSA regions).

use rustc_hash::{FxHashMap, FxHashSet};
use weft_ir::{Diagnostic, Span};

use crate::ir::attribute::{self, NamedAttribute};
use crate::ir::{
    AliasPlacement, Attribute, Block, BlockData, Body, Location, LocationAlias, Op, OpData, Region,
    RegionData, Type, Value,
};
use crate::ops::{OpName, Syntax};
use crate::text::cursor::{Cursor, PResult};

/// Parses a whole file (one module, written or implied) into a [`Body`].
pub fn parse(text: &str) -> Result<Body, Box<Diagnostic>> {
    let mut parser = Parser::new(text);
    parser.parse_file()?;
    Ok(parser.body)
}

/// Parses one attribute written on its own (`[dense<1> : tensor<2xi32>, …]`,
/// as `--args` of `stablehlo-translate --interpret` takes them).
pub fn parse_attribute(text: &str) -> Result<crate::ir::Attribute, Box<Diagnostic>> {
    let mut parser = Parser::new(text);
    let attribute = parser.parse_attribute()?;
    if !parser.c.at_end() {
        return Err(parser.c.error_expected("the end of the attribute"));
    }
    Ok(attribute)
}

/// What a custom-form parser produces: the op without results, and the result
/// types.
pub(crate) struct ParsedOp {
    pub(crate) data: OpData,
    pub(crate) result_types: Vec<Type>,
}

impl ParsedOp {
    pub(crate) fn new(name: OpName) -> ParsedOp {
        ParsedOp {
            data: OpData::new(name),
            result_types: Vec::new(),
        }
    }
}

/// An argument a custom syntax declares before its region (`%arg0: tensor<f32>`).
pub(crate) struct RegionArgument<'a> {
    pub(crate) name: &'a str,
    pub(crate) ty: Type,
    pub(crate) location: Option<Location>,
    pub(crate) at: usize,
}

#[derive(Default)]
struct Scope<'a> {
    values: FxHashMap<&'a str, Vec<Value>>,
    blocks: FxHashMap<&'a str, Block>,
}

/// The parser state: a cursor, the arena being filled, and the SSA name scopes.
pub(crate) struct Parser<'a> {
    pub(crate) c: Cursor<'a>,
    pub(crate) body: Body,
    scopes: Vec<Scope<'a>>,
    /// The default dialect of each enclosing region (`func` inside a function).
    default_dialects: Vec<&'static str>,
    /// The location aliases defined so far.
    alias_names: FxHashSet<&'a str>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(text: &'a str) -> Parser<'a> {
        let mut body = Body::new();
        // The module made by `Body::new` is replaced by the parsed one (or kept
        // as the implicit module of a file of bare ops).
        body.op_spans.push(Span::new(0, 0));
        Parser {
            c: Cursor::new(text),
            body,
            scopes: Vec::new(),
            default_dialects: Vec::new(),
            alias_names: FxHashSet::default(),
        }
    }

    fn parse_file(&mut self) -> PResult<()> {
        let implicit_module = self.body.module;
        let implicit_block = self.body.module_block();
        self.scopes.push(Scope::default());
        self.default_dialects.push("");
        let mut seen_op = false;
        loop {
            match self.c.peek() {
                0 if self.c.at_end() => break,
                b'#' => self.parse_alias_definition(seen_op)?,
                b'{' if self.c.peek_str("{-#") => {
                    let start = self.c.pos;
                    self.c.eat_str("{-#");
                    let Some(end) = self.c.src[self.c.pos..].find("#-}") else {
                        return Err(self
                            .c
                            .error_at(start, "file metadata block is never closed with '#-}'"));
                    };
                    self.c.pos += end + 3;
                    self.body.file_metadata = Some(self.c.src[start..self.c.pos].to_string());
                }
                _ => {
                    self.parse_operation(implicit_block)?;
                    seen_op = true;
                }
            }
        }
        self.scopes.pop();
        // A file that is exactly one `module` op is that module; anything else
        // is the body of an implicit module, as in MLIR.
        let top = self.body.blocks[implicit_block].ops.clone();
        if let [only] = top[..]
            && self.body.ops[only].name == OpName::module()
            && let [region] = self.body.ops[only].regions[..]
        {
            // The module's body is one block (`Body::module_block`); `module {}`
            // reads as none, and MLIR's parser adds it.
            if self.body.regions[region].blocks.is_empty() {
                self.new_block(region);
            }
            self.body.module = only;
            self.body.ops[only].parent = None;
            self.body.blocks[implicit_block].ops.clear();
        } else {
            self.body.module = implicit_module;
        }
        Ok(())
    }

    /// `#name = loc(…)` (or another alias kind, which weft does not model).
    fn parse_alias_definition(&mut self, after_module: bool) -> PResult<()> {
        let start = self.c.pos;
        self.c.eat(b'#');
        let Some(name) = self.c.suffix_name() else {
            return Err(self.c.error_at(start, "expected an alias name after '#'"));
        };
        self.c.expect(b'=', "'=' in an alias definition")?;
        if self.c.peek_identifier() != Some("loc") {
            return Err(self
                .c
                .error_at(start, format!("alias '#{name}' is not a location alias"))
                .into_hint("weft keeps location aliases; write other attributes inline"));
        }
        let location = self
            .parse_optional_location()?
            .ok_or_else(|| self.c.error_expected("loc(…)"))?;
        if !self.alias_names.insert(name) {
            return Err(self
                .c
                .error_at(start, format!("redefinition of alias '#{name}'")));
        }
        self.body.location_aliases.push(LocationAlias {
            name: name.to_string(),
            location,
            placement: if after_module {
                AliasPlacement::Bottom
            } else {
                AliasPlacement::Top
            },
        });
        Ok(())
    }

    /// One op, appended to `block`.
    pub(crate) fn parse_operation(&mut self, block: Block) -> PResult<Op> {
        let start = self.c.pos;
        let mut result_names: Vec<(&'a str, usize, usize)> = Vec::new();
        if self.c.peek() == b'%' {
            loop {
                let at = self.c.pos;
                let name = self.parse_value_name()?;
                let count = if self.c.eat(b':') {
                    let n = self.c.integer()?;
                    if n < 1 {
                        return Err(self.c.error_at(at, "expected a positive result count"));
                    }
                    n as usize
                } else {
                    1
                };
                result_names.push((name, count, at));
                if !self.c.eat(b',') {
                    break;
                }
            }
            self.c.expect(b'=', "'=' after the result names")?;
        }
        self.c.skip_trivia();
        let name_start = self.c.pos;
        let mut parsed = if self.c.peek() == b'"' {
            let name = self.c.string()?;
            self.parse_generic_op(OpName::parse(&name))?
        } else {
            let Some(word) = self.c.identifier() else {
                return Err(self.c.error_expected("an operation"));
            };
            let name = self.resolve_op_name(word);
            let syntax = name.syntax();
            if matches!(syntax, Syntax::Generic | Syntax::Unimplemented) {
                let message = match &name {
                    OpName::Unregistered(_) => format!("custom op '{word}' is unknown"),
                    OpName::Known(_) => format!("weft cannot read the custom form of '{word}' yet"),
                };
                return Err(Box::new(
                    Diagnostic::error(Span::new(name_start, self.c.pos), message)
                        .with_hint(format!("write it in the generic form: \"{}\"(operands) {{attributes}} : (types) -> types", name.as_str())),
                ));
            }
            self.default_dialects.push(default_dialect(&name));
            let parsed = crate::text::syntax::parse_custom(self, name, syntax);
            self.default_dialects.pop();
            parsed?
        };
        if let Some(location) = self.parse_optional_location()? {
            parsed.data.location = Some(location);
        }
        let defined: usize = result_names.iter().map(|r| r.1).sum();
        if defined != parsed.result_types.len() {
            return Err(Box::new(Diagnostic::error(
                Span::new(start, name_start),
                format!(
                    "operation defines {} results but was provided {} to bind",
                    parsed.result_types.len(),
                    defined
                ),
            )));
        }
        let regions = parsed.data.regions.clone();
        let op = self
            .body
            .add_op(Some(block), parsed.data, parsed.result_types);
        for region in regions {
            self.body.regions[region].parent = Some(op);
        }
        let index = weft_ir::entity::EntityRef::index(op);
        if self.body.op_spans.len() <= index {
            self.body.op_spans.resize(index + 1, Span::default());
        }
        // Diagnostics point at the op's name: its first line, its identity.
        let name_text = &self.c.src[name_start..];
        let name_length = if let Some(quoted) = name_text.strip_prefix('"') {
            quoted.find('"').map_or(1, |end| end + 2)
        } else {
            name_text
                .bytes()
                .take_while(|&b| crate::text::cursor::is_identifier_byte(b))
                .count()
        };
        self.body.op_spans[index] = Span::new(name_start, name_start + name_length);
        let results = self.body.ops[op].results.clone();
        let mut next = 0;
        for (name, count, at) in result_names {
            self.define_values(name, results[next..next + count].to_vec(), at)?;
            next += count;
        }
        Ok(op)
    }

    /// A bare op name as written: dialect-qualified, or short within a region
    /// whose default dialect supplies the prefix (`return` inside `func.func`).
    fn resolve_op_name(&self, word: &str) -> OpName {
        if word == "module" {
            return OpName::module();
        }
        if !word.contains('.') {
            let dialect = self.default_dialects.last().copied().unwrap_or("");
            for prefix in [dialect, "func", "builtin"] {
                if prefix.is_empty() {
                    continue;
                }
                let full = format!("{prefix}.{word}");
                if let Some(kind) = crate::ops::OpKind::from_name(&full) {
                    return OpName::Known(kind);
                }
            }
        }
        OpName::parse(word)
    }

    /// `(%a, %b) [successors] <{props}> (regions) {attrs} : (types) -> types`
    /// after the quoted name.
    fn parse_generic_op(&mut self, name: OpName) -> PResult<ParsedOp> {
        let mut parsed = ParsedOp::new(name.clone());
        self.c.expect(b'(', "'(' and the operand list")?;
        let operand_uses = self.parse_value_use_list(b')')?;
        if self.c.peek() == b'[' {
            self.c.eat(b'[');
            loop {
                let block = self.parse_block_reference()?;
                parsed.data.successors.push(block);
                if self.c.eat(b']') {
                    break;
                }
                self.c.expect(b',', "',' or ']' in the successor list")?;
            }
        }
        let mut has_properties = false;
        if self.c.eat_str("<{") {
            self.c.pos -= 1;
            parsed.data.properties = self.parse_attribute_dictionary()?;
            self.c.expect(b'>', "'>' to close the properties")?;
            has_properties = true;
        }
        self.default_dialects.push(default_dialect(&name));
        if self.c.peek() == b'(' {
            self.c.eat(b'(');
            loop {
                let region = self.parse_region(Vec::new())?;
                parsed.data.regions.push(region);
                if self.c.eat(b')') {
                    break;
                }
                self.c.expect(b',', "',' or ')' in the region list")?;
            }
        }
        self.default_dialects.pop();
        if self.c.peek() == b'{' {
            parsed.data.attributes = self.parse_attribute_dictionary()?;
        }
        if !has_properties {
            // Inherent attributes written in the attribute dictionary are the
            // op's properties, as MLIR reads them.
            let (inherent, discardable): (Vec<NamedAttribute>, Vec<NamedAttribute>) =
                std::mem::take(&mut parsed.data.attributes)
                    .into_iter()
                    .partition(|a| name.is_inherent(&a.name));
            parsed.data.properties = inherent;
            parsed.data.attributes = discardable;
        }
        self.c
            .expect(b':', "':' and the function type of the operation")?;
        let type_at = self.c.pos;
        let function = self.parse_function_type()?;
        if function.inputs.len() != operand_uses.len() {
            return Err(self.c.error_at(
                type_at,
                format!(
                    "expected {} operand types but had {}",
                    operand_uses.len(),
                    function.inputs.len()
                ),
            ));
        }
        parsed.data.operands = self.resolve_operands(&operand_uses, &function.inputs)?;
        parsed.result_types = function.results;
        Ok(parsed)
    }

    /// Runs `parse` one nesting level deeper: regions, attributes, types,
    /// dense literals and locations nest by recursion, so the depth is capped
    /// ([`MAX_DEPTH`](crate::text::MAX_DEPTH)) to keep hostile input from
    /// overflowing the stack.
    pub(crate) fn nested<T>(&mut self, parse: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.c.descend()?;
        let result = parse(self);
        self.c.ascend();
        result
    }

    /// A region `{ … }`; `arguments` are the entry block's arguments when the
    /// custom syntax declared them outside the braces.
    pub(crate) fn parse_region(&mut self, arguments: Vec<RegionArgument<'a>>) -> PResult<Region> {
        self.nested(|p| p.parse_region_unnested(arguments))
    }

    fn parse_region_unnested(&mut self, arguments: Vec<RegionArgument<'a>>) -> PResult<Region> {
        let open = self.c.pos;
        self.c.expect(b'{', "'{' to open a region")?;
        let region = self.body.regions.push(RegionData::default());
        self.scopes.push(Scope::default());
        let result = self.parse_region_body(region, arguments, open);
        self.scopes.pop();
        result?;
        Ok(region)
    }

    fn parse_region_body(
        &mut self,
        region: Region,
        arguments: Vec<RegionArgument<'a>>,
        open: usize,
    ) -> PResult<()> {
        let has_declared_arguments = !arguments.is_empty();
        if self.c.eat(b'}') {
            if has_declared_arguments {
                // A declared argument list needs a block to hold it.
                let block = self.new_block(region);
                self.add_arguments(block, arguments)?;
            }
            return Ok(());
        }
        // The entry block may be written without a label.
        let mut current = if self.c.peek() != b'^' || has_declared_arguments {
            let block = self.new_block(region);
            self.add_arguments(block, arguments)?;
            Some(block)
        } else {
            None
        };
        loop {
            match self.c.peek() {
                b'}' => {
                    self.c.eat(b'}');
                    return Ok(());
                }
                b'^' => {
                    let block = self.parse_block_label(region)?;
                    current = Some(block);
                }
                0 if self.c.at_end() => {
                    return Err(self.c.error_at(open, "region is never closed with '}'"));
                }
                _ => {
                    let Some(block) = current else {
                        return Err(self.c.error_expected("a block label"));
                    };
                    self.parse_operation(block)?;
                }
            }
        }
    }

    fn new_block(&mut self, region: Region) -> Block {
        let block = self.body.blocks.push(BlockData {
            parent: Some(region),
            ..BlockData::default()
        });
        self.body.regions[region].blocks.push(block);
        block
    }

    fn add_arguments(&mut self, block: Block, arguments: Vec<RegionArgument<'a>>) -> PResult<()> {
        for argument in arguments {
            let value = self
                .body
                .add_argument(block, argument.ty, argument.location);
            self.define_values(argument.name, vec![value], argument.at)?;
        }
        Ok(())
    }

    /// `^bb1(%a: t, …):` — defines the block (or completes a forward reference).
    fn parse_block_label(&mut self, region: Region) -> PResult<Block> {
        let start = self.c.pos;
        self.c.eat(b'^');
        let Some(name) = self.c.suffix_name() else {
            return Err(self.c.error_at(start, "expected a block name after '^'"));
        };
        let scope = self.scopes.last_mut().expect("a region scope");
        let block = match scope.blocks.get(name) {
            Some(&block)
                if !self.body.blocks[block].ops.is_empty()
                    || self.body.blocks[block].parent.is_some() =>
            {
                return Err(self
                    .c
                    .error_at(start, format!("redefinition of block '^{name}'")));
            }
            Some(&block) => block,
            None => {
                let block = self.body.blocks.push(BlockData::default());
                scope.blocks.insert(name, block);
                block
            }
        };
        self.body.blocks[block].parent = Some(region);
        self.body.regions[region].blocks.push(block);
        if self.c.eat(b'(') && !self.c.eat(b')') {
            loop {
                let argument = self.parse_typed_argument()?;
                let value = self
                    .body
                    .add_argument(block, argument.ty, argument.location);
                self.define_values(argument.name, vec![value], argument.at)?;
                if self.c.eat(b')') {
                    break;
                }
                self.c
                    .expect(b',', "',' or ')' in the block argument list")?;
            }
        }
        self.c.expect(b':', "':' after the block label")?;
        Ok(block)
    }

    fn parse_block_reference(&mut self) -> PResult<Block> {
        let start = self.c.pos;
        self.c.expect(b'^', "a block name ('^…')")?;
        let Some(name) = self.c.suffix_name() else {
            return Err(self.c.error_at(start, "expected a block name after '^'"));
        };
        let scope = self.scopes.last_mut().expect("a region scope");
        Ok(*scope
            .blocks
            .entry(name)
            .or_insert_with(|| self.body.blocks.push(BlockData::default())))
    }

    /// `%name: type loc(…)?`.
    pub(crate) fn parse_typed_argument(&mut self) -> PResult<RegionArgument<'a>> {
        let mut argument = self.parse_typed_argument_before_attributes()?;
        argument.location = self.parse_optional_location()?;
        Ok(argument)
    }

    /// `%name: type`, leaving what follows (attributes, a location) unread.
    pub(crate) fn parse_typed_argument_before_attributes(&mut self) -> PResult<RegionArgument<'a>> {
        let at = self.c.pos;
        let name = self.parse_value_name()?;
        self.c.expect(b':', "':' and the argument type")?;
        let ty = self.parse_type()?;
        Ok(RegionArgument {
            name,
            ty,
            location: None,
            at,
        })
    }

    /// `%name` (without `#n`), returning the name without `%`.
    pub(crate) fn parse_value_name(&mut self) -> PResult<&'a str> {
        let start = self.c.pos;
        self.c.expect(b'%', "a value name ('%…')")?;
        self.c
            .suffix_name()
            .ok_or_else(|| self.c.error_at(start, "expected a value name after '%'"))
    }

    /// `%name` or `%name#3`: the name, the result index, and where it was.
    pub(crate) fn parse_value_use(&mut self) -> PResult<(&'a str, usize, usize)> {
        self.c.skip_trivia();
        let at = self.c.pos;
        let name = self.parse_value_name()?;
        let index = if self.c.src.as_bytes().get(self.c.pos) == Some(&b'#') {
            self.c.pos += 1;
            self.c.integer()? as usize
        } else {
            0
        };
        Ok((name, index, at))
    }

    /// Value uses separated by commas, up to (and consuming) `close`.
    pub(crate) fn parse_value_use_list(
        &mut self,
        close: u8,
    ) -> PResult<Vec<(&'a str, usize, usize)>> {
        let mut uses = Vec::new();
        if self.c.eat(close) {
            return Ok(uses);
        }
        loop {
            uses.push(self.parse_value_use()?);
            if self.c.eat(close) {
                return Ok(uses);
            }
            self.c
                .expect(b',', &format!("',' or '{}'", close as char))?;
        }
    }

    /// Value uses separated by commas (at least one), with no closing bracket.
    pub(crate) fn parse_value_uses(&mut self) -> PResult<Vec<(&'a str, usize, usize)>> {
        let mut uses = vec![self.parse_value_use()?];
        loop {
            let save = self.c.pos;
            if !self.c.eat(b',') {
                return Ok(uses);
            }
            if self.c.peek() != b'%' {
                self.c.pos = save;
                return Ok(uses);
            }
            uses.push(self.parse_value_use()?);
        }
    }

    /// The value a use names.
    pub(crate) fn lookup(&self, name: &str, index: usize, at: usize) -> PResult<Value> {
        for scope in self.scopes.iter().rev() {
            if let Some(values) = scope.values.get(name) {
                return values.get(index).copied().ok_or_else(|| {
                    self.c.error_at(
                        at,
                        format!(
                            "reference to invalid result number: %{name} has {} results",
                            values.len()
                        ),
                    )
                });
            }
        }
        Err(self
            .c
            .error_at(at, format!("use of undeclared SSA value name '%{name}'")))
    }

    /// Resolves uses and checks them against the types the op declares.
    pub(crate) fn resolve_operands(
        &self,
        uses: &[(&'a str, usize, usize)],
        types: &[Type],
    ) -> PResult<Vec<Value>> {
        let mut values = Vec::with_capacity(uses.len());
        for (&(name, index, at), ty) in uses.iter().zip(types) {
            let value = self.lookup(name, index, at)?;
            let actual = self.body.ty(value);
            if actual != ty {
                let mut expected_text = String::new();
                crate::text::types::print_type(&mut expected_text, ty);
                let mut actual_text = String::new();
                crate::text::types::print_type(&mut actual_text, actual);
                return Err(self.c.error_at(
                    at,
                    format!(
                        "use of value '%{name}' expects different type than prior uses: '{expected_text}' vs '{actual_text}'"
                    ),
                ));
            }
            values.push(value);
        }
        Ok(values)
    }

    /// Resolves uses without a type check (the type comes from the value).
    pub(crate) fn resolve_untyped(&self, uses: &[(&'a str, usize, usize)]) -> PResult<Vec<Value>> {
        uses.iter()
            .map(|&(name, index, at)| self.lookup(name, index, at))
            .collect()
    }

    fn define_values(&mut self, name: &'a str, values: Vec<Value>, at: usize) -> PResult<()> {
        let scope = self.scopes.last_mut().expect("a scope");
        if scope.values.contains_key(name) {
            return Err(self
                .c
                .error_at(at, format!("redefinition of SSA value '%{name}'")));
        }
        // A group of results (`%10:3`) is used as `%10#0`, `%10#1`, ….
        for (index, &value) in values.iter().enumerate() {
            let written = if values.len() == 1 {
                format!("%{name}")
            } else {
                format!("%{name}#{index}")
            };
            self.body.value_names.set(value, Some(written.into()));
        }
        scope.values.insert(name, values);
        Ok(())
    }

    /// An optional `attributes {…}` or bare `{…}` attribute dictionary, split
    /// into inherent (properties) and discardable attributes of `name`.
    pub(crate) fn parse_optional_attr_dict(&mut self, data: &mut OpData) -> PResult<()> {
        if self.c.peek() != b'{' || self.c.peek_str("{-#") {
            return Ok(());
        }
        for entry in self.parse_attribute_dictionary()? {
            let target = if data.name.is_inherent(&entry.name) {
                &mut data.properties
            } else {
                &mut data.attributes
            };
            attribute::set(target, &entry.name, entry.value);
        }
        Ok(())
    }

    /// Sets inherent attribute `name` of `data`.
    pub(crate) fn set_property(data: &mut OpData, name: &str, value: Attribute) {
        attribute::set(&mut data.properties, name, value);
    }
}

/// The dialect whose ops may be written without a prefix inside `name`'s regions.
fn default_dialect(name: &OpName) -> &'static str {
    if *name == OpName::func() { "func" } else { "" }
}

/// Adds a hint to a boxed diagnostic.
pub(crate) trait IntoHint {
    fn into_hint(self, hint: &str) -> Box<Diagnostic>;
}

impl IntoHint for Box<Diagnostic> {
    fn into_hint(self, hint: &str) -> Box<Diagnostic> {
        Box::new((*self).with_hint(hint))
    }
}

#[cfg(test)]
mod tests {
    use crate::text::{PrintOptions, parse, print};

    /// Fuzz finding: a file that is one module without a block (`module{}`), or
    /// one generic `builtin.module` without a region, became the module, and
    /// `Body::module_block` (the verifier's function table) indexed past the
    /// end. A nested module without exactly one region printed in the custom
    /// form as an unindented `{}` (or lost its second region): it now prints
    /// generically (`print_module`).
    #[test]
    fn top_level_module_always_has_a_block() {
        for text in [
            "module{}",
            "\"builtin.module\"() ({}) : () -> ()",
            "\"builtin.module\"() : () -> ()",
            "\"builtin.module\"() ({}, {}) : () -> ()",
        ] {
            let body = parse(text).unwrap_or_else(|d| panic!("{}", d.render("input", text)));
            let _ = crate::verify::verify(&body);
            let _ = body.functions();
            for options in [
                PrintOptions::default(),
                PrintOptions {
                    generic: true,
                    ..Default::default()
                },
            ] {
                let once = print(&body, &options);
                let again =
                    parse(&once).unwrap_or_else(|d| panic!("{}", d.render("printed", &once)));
                let _ = crate::verify::verify(&again);
                assert_eq!(print(&again, &options), once, "{text}");
            }
        }
    }
}

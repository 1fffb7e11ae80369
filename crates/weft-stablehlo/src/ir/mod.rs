//! The op model: MLIR's generic structure of operations, values, blocks and
//! regions, held in one arena per file ([`Body`]).
//!
//! Every operation — `stablehlo.*`, `func.*`, `sdy.*`, `chlo.*`, `check.*`,
//! `interpreter.*` or one weft does not know — is an [`OpData`]: a name, operands,
//! results, attributes (inherent ones in `properties`, the rest in `attributes`),
//! regions and a location. What is special about an op (its pretty syntax, its
//! verifier, its lowering) lives in the [op table](crate::ops) and the passes
//! that read it, not here.
//!
//! Invariants:
//! - handles are never reused; an op's results are values whose definition is
//!   that op, a block's arguments are values whose definition is that block;
//! - `properties` and `attributes` are sorted by name with no name twice;
//! - a region's first block is its entry block;
//! - the printer ignores source names of values and names them the way MLIR
//!   does (`%0`, `%arg0`, `%cst`, …), so printing is canonical; the names as
//!   written are kept only in a side table for diagnostics
//!   ([`Body::value_name`]).

pub mod attribute;
pub mod dialect_attr;
pub mod location;
pub mod types;

use rustc_hash::FxHashMap;
use weft_ir::Span;
use weft_ir::entity;
use weft_ir::entity::{EntityVec, SecondaryMap};

use crate::ops::OpName;
pub use attribute::{Attribute, NamedAttribute};
pub use location::{AliasPlacement, Location, LocationAlias};
pub use types::{Dim, ElementKind, FloatKind, FunctionType, Signedness, TensorType, Type};

entity!(
    /// An operation.
    Op,
    "op"
);
entity!(
    /// An SSA value: an op result or a block argument.
    Value,
    "v"
);
entity!(
    /// A block.
    Block,
    "bb"
);
entity!(
    /// A region.
    Region,
    "region"
);

/// An operation.
#[derive(Clone, Debug)]
pub struct OpData {
    /// `stablehlo.add`, `func.func`, …
    pub name: OpName,
    /// The values it reads.
    pub operands: Vec<Value>,
    /// The values it defines.
    pub results: Vec<Value>,
    /// Inherent attributes (MLIR's properties), sorted by name.
    pub properties: Vec<NamedAttribute>,
    /// Discardable attributes, sorted by name.
    pub attributes: Vec<NamedAttribute>,
    /// Nested regions.
    pub regions: Vec<Region>,
    /// Successor blocks of a terminator.
    pub successors: Vec<Block>,
    /// Where it came from.
    pub location: Option<Location>,
    /// The block it is in (`None` for the top-level module).
    pub parent: Option<Block>,
}

/// Where a value is defined.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Result `index` of an op.
    Result(Op, u32),
    /// Argument `index` of a block.
    Argument(Block, u32),
}

/// A value.
#[derive(Clone, Debug)]
pub struct ValueData {
    /// Its type.
    pub ty: Type,
    /// Where it is defined.
    pub def: ValueDef,
    /// The location of a block argument, if written.
    pub location: Option<Location>,
}

/// A block: arguments and a list of ops, the last of which is its terminator.
#[derive(Clone, Debug, Default)]
pub struct BlockData {
    /// Its arguments.
    pub arguments: Vec<Value>,
    /// Its ops, in order.
    pub ops: Vec<Op>,
    /// The region it is in.
    pub parent: Option<Region>,
}

/// A region: a list of blocks.
#[derive(Clone, Debug, Default)]
pub struct RegionData {
    /// Its blocks; the first is the entry block.
    pub blocks: Vec<Block>,
    /// The op that owns it.
    pub parent: Option<Op>,
}

/// A parsed file: the arena of every entity, the top-level module op, and the
/// file-level definitions around it.
#[derive(Clone, Debug)]
pub struct Body {
    /// Operations.
    pub ops: EntityVec<Op, OpData>,
    /// Values.
    pub values: EntityVec<Value, ValueData>,
    /// Blocks.
    pub blocks: EntityVec<Block, BlockData>,
    /// Regions.
    pub regions: EntityVec<Region, RegionData>,
    /// The top-level `builtin.module`.
    pub module: Op,
    /// Location alias definitions, in source order.
    pub location_aliases: Vec<LocationAlias>,
    /// A `{-# … #-}` file metadata block (dialect resources), kept as written.
    pub file_metadata: Option<String>,
    /// Source spans of op names (side table; empty for built modules).
    pub op_spans: Vec<Span>,
    /// Values' names as written (`%0`, `%iterArg_1`, `%10#2`), for messages
    /// only (side table; empty for built modules).
    pub value_names: SecondaryMap<Value, Option<Box<str>>>,
}

impl Body {
    /// An empty file holding one empty `builtin.module`.
    pub fn new() -> Body {
        let mut body = Body {
            ops: EntityVec::new(),
            values: EntityVec::new(),
            blocks: EntityVec::new(),
            regions: EntityVec::new(),
            module: Op::new_placeholder(),
            location_aliases: Vec::new(),
            file_metadata: None,
            op_spans: Vec::new(),
            value_names: SecondaryMap::with_default(None),
        };
        let module = body.ops.push(OpData::new(OpName::module()));
        let region = body.add_region(module);
        body.add_block(region);
        body.module = module;
        body
    }

    /// Adds an empty region to `op`.
    pub fn add_region(&mut self, op: Op) -> Region {
        let region = self.regions.push(RegionData {
            blocks: Vec::new(),
            parent: Some(op),
        });
        self.ops[op].regions.push(region);
        region
    }

    /// Adds an empty block at the end of `region`.
    pub fn add_block(&mut self, region: Region) -> Block {
        let block = self.blocks.push(BlockData {
            arguments: Vec::new(),
            ops: Vec::new(),
            parent: Some(region),
        });
        self.regions[region].blocks.push(block);
        block
    }

    /// Adds an argument of type `ty` to `block`.
    pub fn add_argument(&mut self, block: Block, ty: Type, location: Option<Location>) -> Value {
        let index = self.blocks[block].arguments.len() as u32;
        let value = self.values.push(ValueData {
            ty,
            def: ValueDef::Argument(block, index),
            location,
        });
        self.blocks[block].arguments.push(value);
        value
    }

    /// Creates `data` with one result per type in `result_types` and appends it
    /// to `block` (or leaves it detached when `block` is `None`).
    pub fn add_op(
        &mut self,
        block: Option<Block>,
        mut data: OpData,
        result_types: Vec<Type>,
    ) -> Op {
        data.parent = block;
        let op = self.ops.push(data);
        for (index, ty) in result_types.into_iter().enumerate() {
            let value = self.values.push(ValueData {
                ty,
                def: ValueDef::Result(op, index as u32),
                location: None,
            });
            self.ops[op].results.push(value);
        }
        if let Some(block) = block {
            self.blocks[block].ops.push(op);
        }
        op
    }

    /// The type of `value`.
    pub fn ty(&self, value: Value) -> &Type {
        &self.values[value].ty
    }

    /// The single block of the module's region.
    pub fn module_block(&self) -> Block {
        self.regions[self.ops[self.module].regions[0]].blocks[0]
    }

    /// The entry block of `region`, if it has blocks.
    pub fn entry_block(&self, region: Region) -> Option<Block> {
        self.regions[region].blocks.first().copied()
    }

    /// The op that owns the region `block` is in.
    pub fn parent_op(&self, block: Block) -> Option<Op> {
        self.regions[self.blocks[block].parent?].parent
    }

    /// The source span of `op`'s name, if it was parsed.
    pub fn span(&self, op: Op) -> Option<Span> {
        self.op_spans
            .get(weft_ir::entity::EntityRef::index(op))
            .copied()
    }

    /// `value`'s name as written (`%iterArg_1`), if it was parsed.
    pub fn value_name(&self, value: Value) -> Option<&str> {
        self.value_names.get(value).as_deref()
    }

    /// `op` and every op nested anywhere under its regions, in pre-order.
    /// Iterative: regions may nest deeper than the stack would allow
    /// recursion to follow.
    pub fn walk(&self, op: Op, visit: &mut dyn FnMut(Op)) {
        let mut pending = vec![op];
        while let Some(op) = pending.pop() {
            visit(op);
            for &region in self.ops[op].regions.iter().rev() {
                for &block in self.regions[region].blocks.iter().rev() {
                    pending.extend(self.blocks[block].ops.iter().rev());
                }
            }
        }
    }

    /// The `func.func` ops of the module, in order.
    pub fn functions(&self) -> Vec<Op> {
        self.blocks[self.module_block()]
            .ops
            .iter()
            .copied()
            .filter(|&op| self.ops[op].name == OpName::func())
            .collect()
    }

    /// The function a run starts in: `@main`, else the only public function,
    /// else the only function.
    pub fn entry_function(&self) -> Option<Op> {
        let functions = self.functions();
        if let Some(&main) = functions
            .iter()
            .find(|&&f| self.symbol_name(f) == Some("main"))
        {
            return Some(main);
        }
        let public: Vec<Op> = functions
            .iter()
            .copied()
            .filter(|&f| {
                self.attribute(f, "sym_visibility")
                    .and_then(Attribute::as_str)
                    .is_none_or(|v| v == "public")
            })
            .collect();
        match (public.as_slice(), functions.as_slice()) {
            ([only], _) | (_, [only]) => Some(*only),
            _ => None,
        }
    }

    /// The name a location gives (`loc("psum.3")`, through aliases, call sites and
    /// fused locations). Each alias is looked for in the list of them: a pass
    /// that names many ops uses [`Body::location_names`].
    pub fn location_name(&self, location: Option<&Location>) -> Option<String> {
        location_name(location, |alias| {
            self.location_aliases
                .iter()
                .find(|a| a.name == alias)
                .map(|a| &a.location)
        })
    }

    /// The names locations give, with the aliases looked up by name.
    pub fn location_names(&self) -> LocationNames<'_> {
        let mut aliases = FxHashMap::default();
        for alias in &self.location_aliases {
            aliases
                .entry(alias.name.as_str())
                .or_insert(&alias.location);
        }
        LocationNames { aliases }
    }

    /// The symbol name (`sym_name`) of `op`, if it has one.
    pub fn symbol_name(&self, op: Op) -> Option<&str> {
        attribute::find(&self.ops[op].properties, "sym_name")
            .or_else(|| attribute::find(&self.ops[op].attributes, "sym_name"))
            .and_then(Attribute::as_str)
    }

    /// An inherent or discardable attribute of `op`.
    pub fn attribute(&self, op: Op, name: &str) -> Option<&Attribute> {
        attribute::find(&self.ops[op].properties, name)
            .or_else(|| attribute::find(&self.ops[op].attributes, name))
    }
}

/// Location aliases by name, to name many ops ([`Body::location_names`]).
pub struct LocationNames<'b> {
    aliases: FxHashMap<&'b str, &'b Location>,
}

impl LocationNames<'_> {
    /// The name `location` gives, as [`Body::location_name`] says.
    pub fn name(&self, location: Option<&Location>) -> Option<String> {
        location_name(location, |alias| self.aliases.get(alias).copied())
    }
}

/// The name `location` gives, following at most 16 steps through aliases
/// (looked up by `alias`), call sites and fused locations.
fn location_name<'l>(
    location: Option<&'l Location>,
    alias: impl Fn(&str) -> Option<&'l Location>,
) -> Option<String> {
    let mut location = location?;
    for _ in 0..16 {
        match location {
            Location::Name { name, .. } => return Some(name.clone()),
            Location::Alias(name) => location = alias(name)?,
            Location::CallSite { callee, .. } => location = callee,
            Location::Fused { locations, .. } => {
                location = locations
                    .iter()
                    .find(|l| matches!(l, Location::Name { .. } | Location::Alias(_)))?;
            }
            _ => return None,
        }
    }
    None
}

impl Default for Body {
    fn default() -> Self {
        Body::new()
    }
}

impl OpData {
    /// An op named `name` with nothing else.
    pub fn new(name: OpName) -> OpData {
        OpData {
            name,
            operands: Vec::new(),
            results: Vec::new(),
            properties: Vec::new(),
            attributes: Vec::new(),
            regions: Vec::new(),
            successors: Vec::new(),
            location: None,
            parent: None,
        }
    }
}

impl Op {
    fn new_placeholder() -> Op {
        <Op as weft_ir::entity::EntityRef>::new(0)
    }
}

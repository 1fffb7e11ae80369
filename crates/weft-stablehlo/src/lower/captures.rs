//! The values each region reads from outside it (its *captures*), found for
//! every region at once.
//!
//! A `while`, `if` or `case` region becomes a computation, and what it
//! captures travels in the loop state or the branch's operand tuple (see
//! `control`). Asking each region afresh — walking everything nested in it,
//! and climbing from every use to see whether its definition is inside —
//! costs the nesting depth cubed. Here regions are numbered in pre-order,
//! so that "defined inside region R" is a comparison of two numbers, and the
//! captures of a region are built from those of the regions directly inside
//! it, innermost first: the whole body costs its size plus the captures'.
//!
//! Order: a region's captures are listed in order of first use, walking its
//! ops in pre-order (an op's operands, then what its regions capture).

use rustc_hash::FxHashSet;
use weft_ir::entity::SecondaryMap;

use crate::ir::{Body, Region, Value, ValueDef};

/// Every region's captures.
pub(crate) struct Captures {
    /// Each region's pre-order number, and the number after its last
    /// descendant's: a region is inside another when its number falls in
    /// the other's range.
    range: SecondaryMap<Region, (u32, u32)>,
    /// What each region captures, in order of first use.
    captures: SecondaryMap<Region, Vec<Value>>,
}

impl Captures {
    /// The captures of every region of `body`.
    pub(crate) fn new(body: &Body) -> Captures {
        let mut range: SecondaryMap<Region, (u32, u32)> = SecondaryMap::with_default((0, 0));
        let mut order: Vec<Region> = Vec::new();
        // Pre-order over regions, iteratively: (region, whether its
        // descendants are done).
        let mut pending: Vec<(Region, bool)> = body.ops[body.module]
            .regions
            .iter()
            .rev()
            .map(|&r| (r, false))
            .collect();
        let mut next = 0u32;
        while let Some((region, finished)) = pending.pop() {
            if finished {
                range.set(region, (range.get(region).0, next));
                continue;
            }
            range.set(region, (next, next));
            next += 1;
            order.push(region);
            pending.push((region, true));
            for &block in body.regions[region].blocks.iter().rev() {
                for &op in body.blocks[block].ops.iter().rev() {
                    pending.extend(body.ops[op].regions.iter().rev().map(|&r| (r, false)));
                }
            }
        }
        let mut captures = Captures {
            range,
            captures: SecondaryMap::with_default(Vec::new()),
        };
        // Innermost first: a region comes after its ancestors in pre-order.
        for &region in order.iter().rev() {
            let mut seen = FxHashSet::default();
            let mut found = Vec::new();
            for &block in &body.regions[region].blocks {
                for &op in &body.blocks[block].ops {
                    let data = &body.ops[op];
                    let inner = data.regions.iter().flat_map(|&r| captures.of(r));
                    for &value in data.operands.iter().chain(inner) {
                        if !captures.defined_within(body, value, region, region)
                            && seen.insert(value)
                        {
                            found.push(value);
                        }
                    }
                }
            }
            captures.captures.set(region, found);
        }
        captures
    }

    /// What `region` captures.
    fn of(&self, region: Region) -> &[Value] {
        self.captures.get(region)
    }

    /// What `regions` — one region, or all the regions of one op — capture
    /// together, in order of first use.
    pub(crate) fn of_regions(&self, body: &Body, regions: &[Region]) -> Vec<Value> {
        let (Some(&first), Some(&last)) = (regions.first(), regions.last()) else {
            return Vec::new();
        };
        if let [only] = regions {
            return self.of(*only).to_vec();
        }
        let mut seen = FxHashSet::default();
        regions
            .iter()
            .flat_map(|&r| self.of(r))
            .copied()
            .filter(|&v| !self.defined_within(body, v, first, last) && seen.insert(v))
            .collect()
    }

    /// Whether `value` is defined inside `first`..=`last`: regions that
    /// follow one another in pre-order (one region, or the regions of one
    /// op), so that together they cover one range of numbers.
    fn defined_within(&self, body: &Body, value: Value, first: Region, last: Region) -> bool {
        let block = match body.values[value].def {
            ValueDef::Result(op, _) => body.ops[op].parent,
            ValueDef::Argument(block, _) => Some(block),
        };
        let Some(region) = block.and_then(|b| body.blocks[b].parent) else {
            return false;
        };
        let at = self.range.get(region).0;
        self.range.get(first).0 <= at && at < self.range.get(last).1
    }
}

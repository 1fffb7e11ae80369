//! Values the parser has read, remembered by their exact text: modules repeat
//! a few shapes, replica groups and shardings verbatim on thousands of lines,
//! and a repeat is looked up rather than parsed again.
//!
//! Invariant: a remembered value is handed out only where parsing its text
//! again would give it. Parsing the same text gives the same value, except
//! that the token parser refuses to nest deeper than
//! [`MAX_DEPTH`](crate::text::parser::MAX_DEPTH) levels; so each entry keeps
//! a bound on how many levels its text nests (one per `(` and `{` in it, plus
//! one), and is handed out only at a depth where that many more are allowed.

use rustc_hash::FxHashMap;

use crate::text::parser::MAX_DEPTH;

/// Values by the exact text they were parsed from.
pub(crate) struct TextCache<'s, T> {
    /// Each value with the nesting bound of its text.
    entries: FxHashMap<&'s str, (T, u32)>,
}

impl<T> Default for TextCache<'_, T> {
    fn default() -> Self {
        TextCache {
            entries: FxHashMap::default(),
        }
    }
}

impl<'s, T> TextCache<'s, T> {
    /// The value parsed from exactly `text`, if parsing it at nesting depth
    /// `depth` would not go past the parser's limit.
    pub fn get(&self, text: &str, depth: u32) -> Option<&T> {
        let (value, levels) = self.entries.get(text)?;
        (depth + levels <= MAX_DEPTH).then_some(value)
    }

    /// Remembers that `text` parses to `value`.
    pub fn insert(&mut self, text: &'s str, value: T) {
        self.entries.insert(text, (value, nesting_bound(text)));
    }
}

/// An upper bound on the levels parsing `text` nests: each level of a shape
/// (a tuple's elements, a buffer's or a layout's inner shape) or of a sharding
/// (a tuple's elements) is opened by a bracket.
fn nesting_bound(text: &str) -> u32 {
    let brackets = text.bytes().filter(|&b| b == b'(' || b == b'{').count();
    u32::try_from(brackets).map_or(u32::MAX, |n| n.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_handed_out_only_where_its_nesting_fits() {
        let mut cache = TextCache::default();
        cache.insert("((f32[], s32[]), f32[2]{0})", 7);
        // Three brackets and the shape itself: four levels.
        assert_eq!(cache.get("((f32[], s32[]), f32[2]{0})", 0), Some(&7));
        assert_eq!(
            cache.get("((f32[], s32[]), f32[2]{0})", MAX_DEPTH - 4),
            Some(&7)
        );
        assert_eq!(
            cache.get("((f32[], s32[]), f32[2]{0})", MAX_DEPTH - 3),
            None
        );
        assert_eq!(cache.get("(f32[], s32[])", 0), None);
    }
}

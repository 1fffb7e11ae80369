//! Values the parser has read, remembered by their exact text: modules repeat
//! a few shapes, replica groups and shardings verbatim on thousands of lines,
//! and a repeat is looked up rather than parsed again.
//!
//! Invariant: a remembered value is handed out only where parsing its text
//! again would give it. Parsing the same text gives the same value, except
//! that the token parser refuses to nest deeper than
//! [`MAX_DEPTH`](crate::text::parser::MAX_DEPTH) levels; so each entry keeps
//! a bound on how many levels its text nests (one more than its deepest
//! bracket nesting), and is handed out only at a depth where that many more
//! are allowed.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use crate::text::fast::byte_scan::same_text;

use crate::text::parser::MAX_DEPTH;

/// Values by the exact text they were parsed from.
pub(crate) struct TextCache<'s, T> {
    /// Each text with its value and the nesting bound of the text.
    entries: HashTable<(&'s str, T, u32)>,
}

impl<T> Default for TextCache<'_, T> {
    fn default() -> Self {
        TextCache {
            entries: HashTable::new(),
        }
    }
}

fn text_hash(text: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(text)
}

impl<'s, T> TextCache<'s, T> {
    /// The value parsed from exactly `text`, if parsing it at nesting depth
    /// `depth` would not go past the parser's limit.
    #[inline]
    pub fn get(&self, text: &str, depth: u32) -> Option<&T> {
        self.get_with_levels(text, depth).map(|(value, _)| value)
    }

    /// [`get`](Self::get), with the nesting bound of the text.
    #[inline]
    pub fn get_with_levels(&self, text: &str, depth: u32) -> Option<(&T, u32)> {
        let (_, value, levels) = self
            .entries
            .find(text_hash(text), |(key, _, _)| same_text(key, text))?;
        (depth + levels <= MAX_DEPTH).then_some((value, *levels))
    }

    /// Remembers that `text` parses to `value`.
    pub fn insert(&mut self, text: &'s str, value: T) {
        let entry = (text, value, nesting_bound(text));
        match self.entries.entry(
            text_hash(text),
            |(key, _, _)| same_text(key, text),
            |(key, _, _)| text_hash(key),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut held) => *held.get_mut() = entry,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(entry);
            }
        }
    }
}

/// An upper bound on the levels parsing `text` nests: each level of a shape
/// (a tuple's elements, a buffer's or a layout's inner shape) or of a sharding
/// (a tuple's elements) lies inside one more bracket, so one more than the
/// deepest bracket nesting bounds them (a wide tuple is as shallow as a
/// narrow one).
fn nesting_bound(text: &str) -> u32 {
    let (mut depth, mut deepest) = (0u32, 0u32);
    for byte in text.bytes() {
        match byte {
            b'(' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest.saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_handed_out_only_where_its_nesting_fits() {
        // Declared before the cache that borrows it.
        let wide = format!("({})", vec!["f32[2]{0}"; 100].join(", "));
        let mut cache = TextCache::default();
        let text = "((f32[], s32[]), f32[2]{0})";
        cache.insert(text, 7);
        // Brackets two deep, and the shape itself: three levels.
        assert_eq!(cache.get(text, 0), Some(&7));
        assert_eq!(cache.get(text, MAX_DEPTH - 3), Some(&7));
        assert_eq!(cache.get(text, MAX_DEPTH - 2), None);
        assert_eq!(cache.get("(f32[], s32[])", 0), None);
        // A wide tuple is as shallow as a narrow one.
        cache.insert(&wide, 8);
        assert_eq!(cache.get(&wide, MAX_DEPTH - 3), Some(&8));
    }
}

//! Unique names, made the way XLA's `NameUniquer` makes them.
//!
//! A name `base.N` (a numeric suffix after the last `.`, not at either end) is
//! split into `base` and `N`; each base keeps the set of suffixes in use. Asking for
//! a name whose suffix is free returns it unchanged; otherwise the smallest free
//! suffix counting up from the base's cursor is used. `foo` is `foo` with suffix 0.
//! So after `p0`, asking for `p0` again gives `p0.1`; after `tuple.0`, asking for
//! `tuple` gives `tuple.1`.

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};

/// The suffixes in use for one base. Almost every base is used once, so the
/// first suffix is stored inline and a set is made only on the second.
#[derive(Clone, Debug)]
struct SuffixSet {
    first: i64,
    more: Option<Box<FxHashSet<i64>>>,
    next: i64,
}

impl SuffixSet {
    fn new(first: i64) -> Self {
        SuffixSet {
            first,
            more: None,
            next: 0,
        }
    }

    fn contains(&self, id: i64) -> bool {
        id == self.first || self.more.as_ref().is_some_and(|m| m.contains(&id))
    }

    fn insert(&mut self, id: i64) -> bool {
        if self.contains(id) {
            return false;
        }
        self.more.get_or_insert_with(Default::default).insert(id);
        true
    }

    fn register(&mut self, id: i64) -> i64 {
        if self.insert(id) {
            return id;
        }
        while !self.insert(self.next) {
            self.next += 1;
        }
        let id = self.next;
        self.next += 1;
        id
    }
}

/// Hands out unique names. Bases are kept as `Cow`s so a parser can register
/// names borrowed from its source text without copying them.
#[derive(Default, Clone, Debug)]
pub struct NameUniquer<'a> {
    bases: FxHashMap<Cow<'a, str>, SuffixSet>,
}

/// Splits `name` into its base and numeric suffix, as XLA does.
fn split_suffix(name: &str) -> (&str, Option<i64>) {
    if let Some(dot) = name.rfind('.')
        && dot > 0
        && dot + 1 < name.len()
    {
        let suffix = &name[dot + 1..];
        let digits = suffix.strip_prefix(['+', '-']).unwrap_or(suffix);
        if !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && let Ok(n) = suffix.parse::<i64>()
        {
            return (&name[..dot], Some(n));
        }
    }
    (name, None)
}

impl<'a> NameUniquer<'a> {
    /// Returns `wanted` if it is free, else the next free variant of it, and marks
    /// the result as used.
    pub fn unique(&mut self, wanted: &str) -> String {
        self.unique_if_taken(wanted)
            .unwrap_or_else(|| wanted.to_string())
    }

    /// Like [`unique`](Self::unique), but returns `None` when `wanted` itself is
    /// the answer (no allocation on the common path).
    pub fn unique_if_taken(&mut self, wanted: &str) -> Option<String> {
        if wanted.is_empty() {
            return Some(self.unique("name"));
        }
        let (base, suffix) = split_suffix(wanted);
        let id = match self.bases.get_mut(base) {
            Some(set) => set.register(suffix.unwrap_or(0)),
            None => {
                let id = suffix.unwrap_or(0);
                self.bases
                    .insert(Cow::Owned(base.to_string()), SuffixSet::new(id));
                id
            }
        };
        Self::answer(wanted, base, suffix, id)
    }

    /// Like [`unique_if_taken`](Self::unique_if_taken) for a name that lives as
    /// long as the uniquer, which is then registered without a copy.
    pub fn unique_borrowed(&mut self, wanted: &'a str) -> Option<String> {
        if wanted.is_empty() {
            return Some(self.unique("name"));
        }
        let (base, suffix) = split_suffix(wanted);
        let id = match self.bases.get_mut(base) {
            Some(set) => set.register(suffix.unwrap_or(0)),
            None => {
                let id = suffix.unwrap_or(0);
                self.bases.insert(Cow::Borrowed(base), SuffixSet::new(id));
                id
            }
        };
        Self::answer(wanted, base, suffix, id)
    }

    fn answer(wanted: &str, base: &str, suffix: Option<i64>, id: i64) -> Option<String> {
        match (suffix, id) {
            (None, 0) => None,
            // XLA re-spells a suffix it keeps (`x.01` becomes `x.1`).
            (Some(s), id) if s == id && wanted[base.len() + 1..] == id.to_string() => None,
            _ => Some(format!("{base}.{id}")),
        }
    }

    /// Makes room for `names` more names.
    pub fn reserve_capacity(&mut self, names: usize) {
        self.bases.reserve(names);
    }

    /// Marks `name` as used without renaming it; returns whether it was free.
    pub fn reserve(&mut self, name: &str) -> bool {
        self.unique_if_taken(name).is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_follow_xla() {
        let mut u = NameUniquer::default();
        assert_eq!(u.unique("p0"), "p0");
        assert_eq!(u.unique("p0"), "p0.1");
        assert_eq!(u.unique("p0"), "p0.2");
        assert_eq!(u.unique("tuple.0"), "tuple.0");
        assert_eq!(u.unique("tuple"), "tuple.1");
        assert_eq!(u.unique("add.5"), "add.5");
        assert_eq!(u.unique("add.5"), "add.0");
        assert_eq!(u.unique("add"), "add.1");
        assert_eq!(u.unique("x.y"), "x.y");
        assert_eq!(u.unique(".5"), ".5");
        assert_eq!(u.unique("p0_0"), "p0_0");
        assert_eq!(u.unique("p0_0"), "p0_0.1");
    }
}

//! Unique names, made the way XLA's `NameUniquer` makes them.
//!
//! A name `base.N` (a numeric suffix after the last `.`, not at either end) is
//! split into `base` and `N`; each base keeps the set of suffixes in use. Asking for
//! a name whose suffix is free returns it unchanged; otherwise the smallest free
//! suffix counting up from the base's cursor is used. `foo` is `foo` with suffix 0.
//! So after `p0`, asking for `p0` again gives `p0.1`; after `tuple.0`, asking for
//! `tuple` gives `tuple.1`.

use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Default, Clone, Debug)]
struct SuffixSet {
    used: FxHashSet<i64>,
    next: i64,
}

impl SuffixSet {
    fn register(&mut self, id: i64) -> i64 {
        if self.used.insert(id) {
            return id;
        }
        while !self.used.insert(self.next) {
            self.next += 1;
        }
        let id = self.next;
        self.next += 1;
        id
    }
}

/// Hands out unique names.
#[derive(Default, Clone, Debug)]
pub struct NameUniquer {
    bases: FxHashMap<String, SuffixSet>,
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

impl NameUniquer {
    /// Returns `wanted` if it is free, else the next free variant of it, and marks
    /// the result as used.
    pub fn unique(&mut self, wanted: &str) -> String {
        let wanted = if wanted.is_empty() { "name" } else { wanted };
        let (base, suffix) = split_suffix(wanted);
        let set = match self.bases.get_mut(base) {
            Some(set) => set,
            None => self.bases.entry(base.to_string()).or_default(),
        };
        let id = set.register(suffix.unwrap_or(0));
        match (suffix, id) {
            (None, 0) => base.to_string(),
            _ => format!("{base}.{id}"),
        }
    }

    /// Marks `name` as used without renaming it; returns whether it was free.
    pub fn reserve(&mut self, name: &str) -> bool {
        self.unique(name) == name
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

//! Unique names, made the way XLA's `NameUniquer` makes them.
//!
//! A name `base.N` (a numeric suffix after the last `.`, not at either end) is
//! split into `base` and `N`; each base keeps the set of suffixes in use. Asking for
//! a name whose suffix is free returns it unchanged; otherwise the smallest free
//! suffix counting up from the base's cursor is used. `foo` is `foo` with suffix 0.
//! So after `p0`, asking for `p0` again gives `p0.1`; after `tuple.0`, asking for
//! `tuple` gives `tuple.1`.

use std::hash::{Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

use crate::entity::{EntityRef, EntityVec};
use crate::module::{Instr, InstrData};

/// The suffixes in use for one base. Almost every base is used once, so the
/// first suffix is stored inline and the rest (with the cursor XLA's uniquer
/// counts up from) only once a second one is registered.
#[derive(Clone, Debug)]
struct SuffixSet {
    first: i64,
    more: Option<Box<MoreSuffixes>>,
}

#[derive(Clone, Debug, Default)]
struct MoreSuffixes {
    used: FxHashSet<i64>,
    next: i64,
}

impl SuffixSet {
    fn new(first: i64) -> Self {
        SuffixSet { first, more: None }
    }

    fn insert(&mut self, id: i64) -> bool {
        if id == self.first {
            return false;
        }
        self.more
            .get_or_insert_with(Default::default)
            .used
            .insert(id)
    }

    fn register(&mut self, id: i64) -> i64 {
        if self.insert(id) {
            return id;
        }
        loop {
            let more = self.more.get_or_insert_with(Default::default);
            let next = more.next;
            more.next += 1;
            if self.insert(next) {
                return next;
            }
        }
    }
}

/// Hands out unique names.
#[derive(Default, Clone, Debug)]
pub struct NameUniquer {
    bases: FxHashMap<Box<str>, SuffixSet>,
}

/// Splits `name` into its base and numeric suffix, as XLA does: the text after
/// the last `.` (not at either end) is a suffix when it is an optionally signed
/// run of digits that fits an `i64`.
fn split_suffix(name: &str) -> (&str, Option<i64>) {
    let bytes = name.as_bytes();
    // Every name goes through here, so the suffix is found and read by hand
    // rather than with `rfind` and `str::parse`.
    let digits_start = bytes
        .iter()
        .rposition(|b| !b.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let (dot, negative) = match digits_start.checked_sub(1).map(|i| (i, bytes[i])) {
        Some((i, b'.')) => (i, false),
        Some((i, sign @ (b'+' | b'-'))) if i > 0 && bytes[i - 1] == b'.' => (i - 1, sign == b'-'),
        _ => return (name, None),
    };
    if dot == 0 || digits_start == bytes.len() {
        return (name, None);
    }
    let mut value: i64 = 0;
    for &digit in &bytes[digits_start..] {
        let digit = i64::from(digit - b'0');
        let next = value.checked_mul(10).and_then(|v| {
            if negative {
                v.checked_sub(digit)
            } else {
                v.checked_add(digit)
            }
        });
        match next {
            Some(v) => value = v,
            None => return (name, None),
        }
    }
    (&name[..dot], Some(value))
}

/// Whether `suffix` (the text after a name's last `.`) is spelled the way an
/// integer prints: no `+`, no leading zeros, no `-0`.
fn is_canonical_suffix(suffix: &str) -> bool {
    let digits = suffix.strip_prefix('-').unwrap_or(suffix);
    !suffix.starts_with('+')
        && (digits == "0" && digits.len() == suffix.len() || !digits.starts_with('0'))
}

impl NameUniquer {
    /// Returns `wanted` if it is free, else the next free variant of it, and marks
    /// the result as used.
    pub fn unique(&mut self, wanted: &str) -> String {
        let wanted = if wanted.is_empty() { "name" } else { wanted };
        let (base, suffix) = split_suffix(wanted);
        let id = match self.bases.get_mut(base) {
            Some(set) => set.register(suffix.unwrap_or(0)),
            None => {
                let id = suffix.unwrap_or(0);
                self.bases.insert(base.into(), SuffixSet::new(id));
                id
            }
        };
        match (suffix, id) {
            (None, 0) => wanted.to_string(),
            _ => format!("{base}.{id}"),
        }
    }

    /// Marks `name` as used; returns whether it was free (and kept its spelling).
    pub fn reserve(&mut self, name: &str) -> bool {
        self.unique(name) == name
    }
}

/// Makes instruction names unique module-wide with exactly the results of a
/// [`NameUniquer`], but stores only a 4-byte instruction index per name: a name's
/// base and suffix are re-read from the instruction when two hashes meet. This
/// keeps the table for a million-instruction module small enough to stay in
/// cache, which matters because every instruction goes through it.
#[derive(Default)]
pub struct InstrNameTable {
    table: HashTable<u32>,
    /// Per base that has collided, the suffix XLA's uniquer would try next.
    cursors: FxHashMap<String, i64>,
}

fn key_hash(base: &str, id: i64) -> u64 {
    let mut hasher = FxHasher::default();
    base.hash(&mut hasher);
    id.hash(&mut hasher);
    hasher.finish()
}

fn key_of(name: &str) -> (&str, i64) {
    let (base, suffix) = split_suffix(name);
    (base, suffix.unwrap_or(0))
}

/// The table key of an instruction name whose registration is known to keep it
/// as written unless the key is taken: computed where the name is parsed (on
/// whichever thread parses it), so registering it later reads no name text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameKey(std::num::NonZeroU64);

impl NameKey {
    /// The key of `name`, or `None` when registering it needs the full reading
    /// (an empty name, or a suffix XLA re-spells).
    pub fn of(name: &str) -> Option<NameKey> {
        if name.is_empty() {
            return None;
        }
        let (base, suffix) = split_suffix(name);
        if suffix.is_some() && !is_canonical_suffix(&name[base.len() + 1..]) {
            return None;
        }
        // A zero hash (one in 2^64) simply takes the full reading.
        std::num::NonZeroU64::new(key_hash(base, suffix.unwrap_or(0))).map(NameKey)
    }
}

impl InstrNameTable {
    /// Registers `instr` whose name has the precomputed `key` (its current
    /// name's): exactly [`register`](Self::register), faster when the key is
    /// free.
    pub fn register_keyed(
        &mut self,
        instrs: &mut EntityVec<Instr, InstrData>,
        instr: Instr,
        key: NameKey,
    ) {
        let view: &EntityVec<Instr, InstrData> = instrs;
        let taken = self
            .table
            .find(key.0.get(), |&other| {
                key_of(&view[Instr::new(other as usize)].name) == key_of(&view[instr].name)
            })
            .is_some();
        if taken {
            return self.register(instrs, instr);
        }
        self.table
            .insert_unique(key.0.get(), instr.index() as u32, |&other| {
                let (base, id) = key_of(&view[Instr::new(other as usize)].name);
                key_hash(base, id)
            });
    }

    /// A table with room for `names` names.
    pub fn with_capacity(names: usize) -> Self {
        InstrNameTable {
            table: HashTable::with_capacity(names),
            cursors: FxHashMap::default(),
        }
    }

    /// Registers `instr`'s name, renaming the instruction if the name (or its
    /// base and suffix) is taken.
    pub fn register(&mut self, instrs: &mut EntityVec<Instr, InstrData>, instr: Instr) {
        let name = instrs[instr].name.as_str();
        if name.is_empty() {
            instrs[instr].name = "name".to_string();
            return self.register(instrs, instr);
        }
        let (base, suffix) = split_suffix(name);
        let id = suffix.unwrap_or(0);
        let taken = {
            let view: &EntityVec<Instr, InstrData> = instrs;
            self.table
                .find(key_hash(base, id), |&other| {
                    key_of(&view[Instr::new(other as usize)].name) == (base, id)
                })
                .is_some()
        };
        let renamed = if !taken {
            match suffix {
                // XLA re-spells a kept suffix (`x.01` becomes `x.1`).
                Some(s) if !is_canonical_suffix(&name[base.len() + 1..]) => {
                    Some(format!("{base}.{s}"))
                }
                _ => None,
            }
        } else {
            let cursor = self.cursors.entry(base.to_string()).or_insert(0);
            let view: &EntityVec<Instr, InstrData> = instrs;
            while self
                .table
                .find(key_hash(base, *cursor), |&other| {
                    key_of(&view[Instr::new(other as usize)].name) == (base, *cursor)
                })
                .is_some()
            {
                *cursor += 1;
            }
            let id = *cursor;
            *cursor += 1;
            Some(match (suffix, id) {
                (None, 0) => base.to_string(),
                _ => format!("{base}.{id}"),
            })
        };
        let hash = match renamed {
            Some(new_name) => {
                instrs[instr].name = new_name;
                let (base, id) = key_of(&instrs[instr].name);
                key_hash(base, id)
            }
            None => key_hash(base, id),
        };
        let view: &EntityVec<Instr, InstrData> = instrs;
        self.table
            .insert_unique(hash, instr.index() as u32, |&other| {
                let (b, i) = key_of(&view[Instr::new(other as usize)].name);
                key_hash(b, i)
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_table_matches_the_uniquer() {
        use crate::attrs::Attrs;
        use crate::module::{Comp, InstrData, Module};
        let names = [
            "p0", "p0", "p0.1", "tuple.0", "tuple", "add.5", "add.5", "add", "x.01", "x.1", "a.2",
            "a.2", "a", "a.0", "p0", "q", "q.7", "q", "q", "",
        ];
        // Keyed and plain registration agree, for every mix of the two.
        for keyed in [false, true] {
            let mut m = Module::new("m");
            let comp: Comp = m.add_comp("c");
            let shape = m.shapes.empty_tuple();
            let mut expected = NameUniquer::default();
            let mut table = InstrNameTable::default();
            for (i, name) in names.into_iter().enumerate() {
                let keyed = keyed && i % 3 != 1;
                let instr = m.add_instr(InstrData {
                    name: name.to_string(),
                    opcode: crate::Opcode::Tuple,
                    shape,
                    operands: Vec::new(),
                    callees: Vec::new(),
                    attrs: Attrs::plain(),
                    common: None,
                    metadata: None,
                    parent: comp,
                });
                match NameKey::of(name) {
                    Some(key) if keyed => table.register_keyed(&mut m.instrs, instr, key),
                    _ => table.register(&mut m.instrs, instr),
                }
                assert_eq!(m.instrs[instr].name, expected.unique(name), "{name:?}");
            }
        }
    }

    /// `split_suffix` and `is_canonical_suffix` agree with the plain reading:
    /// split at the last `.`, parse the rest with `str::parse`, compare with
    /// its printed form.
    #[test]
    fn suffix_reading_matches_str_parse() {
        fn reference(name: &str) -> (&str, Option<i64>) {
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
        let names = [
            "",
            ".",
            "..",
            "a",
            "a.",
            ".5",
            "5",
            "a5",
            "a.5",
            "a.05",
            "a.0",
            "a.00",
            "a.-0",
            "a.-5",
            "a.+5",
            "a.+-5",
            "a.-",
            "a.+",
            "a..5",
            "a.b.7",
            "x.9223372036854775807",
            "x.9223372036854775808",
            "x.-9223372036854775808",
            "x.-9223372036854775809",
            "p0_0",
            "tuple.1.2",
            "a.5x",
            "é.3",
        ];
        for name in names {
            assert_eq!(split_suffix(name), reference(name), "{name:?}");
            if let (base, Some(n)) = split_suffix(name) {
                let written = &name[base.len() + 1..];
                assert_eq!(
                    is_canonical_suffix(written),
                    written == n.to_string(),
                    "{name:?}"
                );
            }
        }
    }

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

//! Unique names, made the way XLA's `NameUniquer` makes them.
//!
//! A name `base.N` (a numeric suffix after the last `.`, not at either end) is
//! split into `base` and `N`; each base keeps the set of suffixes in use. Asking for
//! a name whose suffix is free returns it unchanged; otherwise the smallest free
//! suffix counting up from the base's cursor is used. `foo` is `foo` with suffix 0.
//! So after `p0`, asking for `p0` again gives `p0.1`; after `tuple.0`, asking for
//! `tuple` gives `tuple.1`.

use std::hash::{Hash, Hasher};

use compact_str::CompactString;
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
    bases: FxHashMap<CompactString, SuffixSet>,
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
    /// A uniquer with room for `names` names of different bases.
    pub fn with_capacity(names: usize) -> Self {
        NameUniquer {
            bases: FxHashMap::with_capacity_and_hasher(names, Default::default()),
        }
    }

    /// Returns `wanted` if it is free, else the next free variant of it, and marks
    /// the result as used.
    pub fn unique(&mut self, wanted: &str) -> String {
        let wanted = if wanted.is_empty() { "name" } else { wanted };
        let (base, suffix) = split_suffix(wanted);
        let id = self.register(base, suffix);
        match (suffix, id) {
            (None, 0) => wanted.to_string(),
            _ => format!("{base}.{id}"),
        }
    }

    /// Makes `name` unique in place, with the result of [`unique`](Self::unique):
    /// a name that is free and spelled canonically is left as it is, without
    /// building a new string (almost every computation name is).
    pub fn make_unique(&mut self, name: &mut CompactString) {
        if name.is_empty() {
            *name = self.unique(name).into();
            return;
        }
        let (base, suffix) = split_suffix(name);
        let id = self.register(base, suffix);
        let unchanged = match suffix {
            None => id == 0,
            Some(suffix) => suffix == id && is_canonical_suffix(&name[base.len() + 1..]),
        };
        if !unchanged {
            *name = compact_str::format_compact!("{base}.{id}");
        }
    }

    /// Marks the suffix `suffix` (0 for none) of `base` as used, or the next
    /// free one; returns the suffix used.
    fn register(&mut self, base: &str, suffix: Option<i64>) -> i64 {
        match self.bases.get_mut(base) {
            Some(set) => set.register(suffix.unwrap_or(0)),
            None => {
                let id = suffix.unwrap_or(0);
                self.bases.insert(base.into(), SuffixSet::new(id));
                id
            }
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

/// Bodies of at least this many names are registered slice by slice of the
/// table (see [`InstrNameTable::register_body`]).
const TABLE_ORDER_MIN_NAMES: usize = 1 << 15;

/// The table is filled in `2^TABLE_SLICES_LOG2` slices.
const TABLE_SLICES_LOG2: u32 = 6;

/// The table hash of the instruction stored as `index` (what the table needs
/// to move entries when it grows).
fn stored_hash(instrs: &EntityVec<Instr, InstrData>, index: u32) -> u64 {
    name_key_hash(&instrs[Instr::new(index as usize)].name)
}

/// The hash of a name's text, as every name table of the parser takes it: the
/// table of a computation's names hashes a name once, and the module's table
/// reuses that hash for every name spelled the way XLA spells its key.
pub(crate) fn name_hash(name: &str) -> u64 {
    let mut hasher = FxHasher::default();
    name.hash(&mut hasher);
    hasher.finish()
}

/// The hash of the key `(base, id)`: the hash of its canonical spelling, `base`
/// for suffix 0 and `base.id` otherwise, so that a name spelled that way is
/// hashed as the text it is.
fn key_hash(base: &str, id: i64) -> u64 {
    if id == 0 {
        return name_hash(base);
    }
    name_hash(&format!("{base}.{id}"))
}

/// The canonical spelling of `name`'s key when it is `name` itself or `name`
/// without a final `.0`, read without parsing the suffix; `None` when the
/// suffix is spelled some other way (`x.01`, `x.+1`, `x.-0`), which the full
/// reading ([`split_suffix`]) handles.
fn canonical_key_text(name: &str) -> Option<&str> {
    let bytes = name.as_bytes();
    let digit_count = trailing_digits(bytes);
    let digits_start = bytes.len() - digit_count;
    // Nearly every name is `base.N` with `N` of a few digits, not starting
    // with 0: its own key's spelling.
    if (1..=18).contains(&digit_count)
        && digits_start >= 2
        && bytes[digits_start - 1] == b'.'
        && bytes[digits_start] != b'0'
    {
        return Some(name);
    }
    let digits = &bytes[digits_start..];
    let signed = digits_start >= 2 && matches!(bytes[digits_start - 1], b'+' | b'-');
    let dot = if signed {
        digits_start - 2
    } else {
        digits_start.wrapping_sub(1)
    };
    let has_suffix = !digits.is_empty() && dot != 0 && bytes.get(dot) == Some(&b'.');
    if !has_suffix {
        return Some(name);
    }
    // Up to 18 digits always fit an `i64`; longer runs may not, and then are no
    // suffix at all, which only the full reading tells.
    if digits.len() > 18 {
        let (base, suffix) = split_suffix(name);
        return match suffix {
            Some(_) if !is_canonical_suffix(&name[base.len() + 1..]) => None,
            Some(0) => Some(base),
            _ => Some(name),
        };
    }
    let sign = bytes[dot + 1];
    match digits {
        [b'0'] if !signed => Some(&name[..dot]),
        [b'0', ..] => None,
        _ if sign == b'+' => None,
        _ => Some(name),
    }
}

/// How many ASCII digits `bytes` ends with. Every instruction name is read
/// here, and most end in a numeric suffix of a few digits: the last eight
/// bytes are tested at once as one word.
fn trailing_digits(bytes: &[u8]) -> usize {
    if let Some(last) = bytes.last_chunk::<8>() {
        let word = u64::from_le_bytes(*last) ^ 0x3030_3030_3030_3030;
        // A byte is a digit exactly when, after the xor, its high nibble is
        // zero and its low nibble plus six does not reach 16: bits 4–7 of
        // this are set in the non-digit bytes only (no byte carries into the
        // next).
        const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
        let non_digits = (word & HIGH) | ((word & !HIGH) + 0x0606_0606_0606_0606) & HIGH;
        if non_digits != 0 {
            // The last byte of the name is the word's highest.
            return non_digits.leading_zeros() as usize / 8;
        }
    }
    bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// The hash of the name's key, by way of the same spelling as
/// [`canonical_key_text`] or by the full reading.
fn name_key_hash(name: &str) -> u64 {
    match canonical_key_text(name) {
        Some(text) => name_hash(text),
        None => {
            let (base, id) = key_of(name);
            key_hash(base, id)
        }
    }
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
        Self::of_hashed(name, None)
    }

    /// [`of`](Self::of), given `name`'s [`name_hash`] if it is known already
    /// (most names are their key's spelling, whose hash that is).
    pub(crate) fn of_hashed(name: &str, hash: Option<u64>) -> Option<NameKey> {
        if name.is_empty() {
            return None;
        }
        let text = canonical_key_text(name)?;
        let hash = match hash {
            Some(hash) if text.len() == name.len() => hash,
            _ => name_hash(text),
        };
        // A zero hash (one in 2^64) simply takes the full reading.
        std::num::NonZeroU64::new(hash).map(NameKey)
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
                stored_hash(view, other)
            });
    }

    /// Registers the instructions of `body` in order, each with its key in
    /// `keys` (indexed by instruction) when it has one: exactly
    /// [`register_keyed`](Self::register_keyed) or [`register`](Self::register)
    /// on each in turn.
    ///
    /// A big body is first tried slice by slice of the table rather than in
    /// body order: a slice stays in cache while it fills, where body order
    /// misses the cache at almost every name of a table of a million. The
    /// result is the same as long as no name is taken, since each registration
    /// then keeps its name whatever the order; at the first taken name the
    /// registrations made so far are undone and the body is registered in order.
    pub fn register_body(
        &mut self,
        instrs: &mut EntityVec<Instr, InstrData>,
        body: &[Instr],
        keys: &[Option<NameKey>],
    ) {
        let key_of_instr = |instr: Instr| keys.get(instr.index()).copied().flatten();
        let in_table_order = body.len() >= TABLE_ORDER_MIN_NAMES
            && self.table.capacity() - self.table.len() >= body.len()
            && body.iter().all(|&instr| key_of_instr(instr).is_some());
        if in_table_order && self.register_in_table_order(instrs, body, key_of_instr) {
            return;
        }
        for &instr in body {
            match key_of_instr(instr) {
                Some(key) => self.register_keyed(instrs, instr, key),
                None => self.register(instrs, instr),
            }
        }
    }

    /// Registers `body`, whose instructions all have keys, slice by slice of
    /// the table (in body order within a slice); returns `false`, having
    /// changed nothing, if a name is taken.
    fn register_in_table_order(
        &mut self,
        instrs: &EntityVec<Instr, InstrData>,
        body: &[Instr],
        key_of_instr: impl Fn(Instr) -> Option<NameKey>,
    ) -> bool {
        // A hash's first probe is bucket `hash & (buckets - 1)` (hashbrown's
        // layout, which only the speed depends on), so a slice is a run of
        // buckets.
        let buckets = self.table.num_buckets();
        let shift = buckets.trailing_zeros().saturating_sub(TABLE_SLICES_LOG2);
        let slice_of = |hash: u64| (hash as usize & (buckets - 1)) >> shift;
        let slices = (buckets >> shift).max(1);
        // A counting sort by slice, which keeps body order within a slice.
        let hash_of = |instr: Instr| key_of_instr(instr).map_or(0, |key| key.0.get());
        let mut next = vec![0usize; slices + 1];
        for &instr in body {
            next[slice_of(hash_of(instr)) + 1] += 1;
        }
        for slice in 1..=slices {
            next[slice] += next[slice - 1];
        }
        let mut sorted = vec![(0u64, 0u32); body.len()];
        for &instr in body {
            let hash = hash_of(instr);
            let at = &mut next[slice_of(hash)];
            sorted[*at] = (hash, instr.index() as u32);
            *at += 1;
        }
        for (done, &(hash, index)) in sorted.iter().enumerate() {
            // Names are read only when two hashes meet, which keeps the walk
            // off the instructions (read in table order, they would miss the
            // cache at every one).
            let taken = self
                .table
                .find(hash, |&other| {
                    key_of(&instrs[Instr::new(other as usize)].name)
                        == key_of(&instrs[Instr::new(index as usize)].name)
                })
                .is_some();
            if taken {
                for &(hash, index) in &sorted[..done] {
                    if let Ok(entry) = self.table.find_entry(hash, |&other| other == index) {
                        entry.remove();
                    }
                }
                return false;
            }
            self.table
                .insert_unique(hash, index, |&other| stored_hash(instrs, other));
        }
        true
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
            instrs[instr].name = "name".into();
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
                instrs[instr].name = new_name.into();
                let (base, id) = key_of(&instrs[instr].name);
                key_hash(base, id)
            }
            None => key_hash(base, id),
        };
        let view: &EntityVec<Instr, InstrData> = instrs;
        self.table
            .insert_unique(hash, instr.index() as u32, |&other| {
                stored_hash(view, other)
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick reading of a name's key spelling agrees with the full one on
    /// every kind of suffix, and a name's key hash is its key's.
    #[test]
    fn trailing_digits_are_counted_as_the_byte_loop_counts_them() {
        let by_bytes = |bytes: &[u8]| {
            bytes
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        for stop in 0..=255u8 {
            for length in 0..20 {
                for position in 0..length {
                    let mut bytes = b"0123456789".repeat(2)[..length].to_vec();
                    bytes[position] = stop;
                    assert_eq!(
                        super::trailing_digits(&bytes),
                        by_bytes(&bytes),
                        "byte {stop:#04x} at {position} of {length}"
                    );
                }
            }
        }
        assert_eq!(super::trailing_digits(b""), 0);
        assert_eq!(super::trailing_digits(b"add.12345678901"), 11);
    }

    #[test]
    fn key_spellings_agree_with_the_full_reading() {
        let long = "x.".to_string() + &"9".repeat(19);
        let long_zeros = "x.".to_string() + &"0".repeat(19);
        let long_fit = "x.".to_string() + &"0".repeat(17) + "12";
        let names = [
            "x",
            "x.0",
            "x.1",
            "x.10",
            "x.01",
            "x.00",
            "x.-1",
            "x.-0",
            "x.+1",
            "x.+0",
            "x-1",
            "-1",
            ".1",
            ".-1",
            "x.",
            "1",
            "123",
            "a.b.3",
            "a.3.0",
            "a.0.0",
            "tuple.0",
            "p0",
            "x.9223372036854775807",
            "x.9223372036854775808",
            "x.-9223372036854775808",
            long.as_str(),
            long_zeros.as_str(),
            long_fit.as_str(),
            "add.anon.2",
            "x.123456789012345678",
            "x.999999999999999999",
            "x.1234567890123456789",
            "..1",
            "a..1",
            "a.-12",
        ];
        for name in names {
            let (base, suffix) = split_suffix(name);
            let reference = match suffix {
                Some(_) if !is_canonical_suffix(&name[base.len() + 1..]) => None,
                Some(0) => Some(base),
                _ => Some(name),
            };
            assert_eq!(canonical_key_text(name), reference, "{name}");
            let (base, id) = key_of(name);
            assert_eq!(name_key_hash(name), key_hash(base, id), "{name}");
            if let Some(key) = NameKey::of(name) {
                assert_eq!(key.0.get(), key_hash(base, id), "{name}");
                let given = NameKey::of_hashed(name, Some(name_hash(name)));
                assert_eq!(given, Some(key), "{name}");
            }
        }
    }

    /// Adds an instruction named `name` to the module's first computation.
    fn add_named(m: &mut crate::module::Module, name: &str) -> Instr {
        let shape = m.shapes.empty_tuple();
        let parent = m.comps.keys().next().expect("a computation");
        m.add_instr(
            parent,
            InstrData {
                name: name.into(),
                opcode: crate::Opcode::Tuple,
                shape,
                operands: crate::module::Operands::new(),
                callees: crate::module::Callees::new(),
                attrs: crate::attrs::Attrs::plain(),
                common: None,
                metadata: None,
            },
        )
    }

    #[test]
    fn instruction_table_matches_the_uniquer() {
        use crate::module::Module;
        let names = [
            "p0", "p0", "p0.1", "tuple.0", "tuple", "add.5", "add.5", "add", "x.01", "x.1", "a.2",
            "a.2", "a", "a.0", "p0", "q", "q.7", "q", "q", "",
        ];
        // Keyed and plain registration agree, for every mix of the two.
        for keyed in [false, true] {
            let mut m = Module::new("m");
            m.add_comp("c");
            let mut expected = NameUniquer::default();
            let mut table = InstrNameTable::default();
            for (i, name) in names.into_iter().enumerate() {
                let keyed = keyed && i % 3 != 1;
                let instr = add_named(&mut m, name);
                match NameKey::of(name) {
                    Some(key) if keyed => table.register_keyed(&mut m.instrs, instr, key),
                    _ => table.register(&mut m.instrs, instr),
                }
                assert_eq!(m.instrs[instr].name, expected.unique(name), "{name:?}");
            }
        }
    }

    /// A body big enough to be registered in table order gets the names
    /// registration in body order gives, and leaves the same names taken: when
    /// every name is free, when one was taken before the body, and when the
    /// body names two instructions alike (which undoes the table-order pass).
    #[test]
    fn a_big_body_registers_as_in_body_order() {
        use crate::module::Module;
        let body_len = TABLE_ORDER_MIN_NAMES + 1000;
        for case in ["free", "taken before", "twice in the body"] {
            let mut m = Module::new("m");
            m.add_comp("c");
            let mut expected = NameUniquer::default();
            let mut table = InstrNameTable::with_capacity(body_len + 16);
            for name in ["x", "y.3"] {
                let instr = add_named(&mut m, name);
                table.register(&mut m.instrs, instr);
                assert_eq!(m.instrs[instr].name, expected.unique(name));
            }
            let mut body = Vec::new();
            let mut written = Vec::new();
            let mut keys = vec![None; m.instrs.len()];
            for k in 0..body_len {
                let name = match (case, k) {
                    ("taken before", 3000) => "y.3".to_string(),
                    ("twice in the body", k) if k == body_len - 1 => "n.17".to_string(),
                    _ => format!("n.{k}"),
                };
                let instr = add_named(&mut m, &name);
                keys.push(NameKey::of(&name));
                body.push(instr);
                written.push(name);
            }
            table.register_body(&mut m.instrs, &body, &keys);
            for (&instr, name) in body.iter().zip(&written) {
                assert_eq!(m.instrs[instr].name, expected.unique(name), "{case}");
            }
            for name in ["n.5", "x", "n", "y.3", "n.17"] {
                let instr = add_named(&mut m, name);
                table.register(&mut m.instrs, instr);
                assert_eq!(m.instrs[instr].name, expected.unique(name), "{case}");
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
            "x.999999999999999999",
            "x.-999999999999999999",
            "x.1000000000000000000",
            "x.000000000000000000000001",
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
    fn making_unique_in_place_gives_what_unique_gives() {
        let names = [
            "p0",
            "p0",
            "p0.1",
            "tuple.0",
            "tuple",
            "foo.007",
            "foo.7",
            "foo.7",
            "bar.-3",
            "bar.-0",
            "bar.+4",
            "bar.4",
            "",
            "name",
            "x.9223372036854775807",
            "x.99999999999999999999",
            "a.b.2",
            "a.b",
            ".5",
            "5.",
            "q.01",
        ];
        let (mut reference, mut in_place) = (NameUniquer::default(), NameUniquer::default());
        for name in names {
            let mut made = CompactString::new(name);
            in_place.make_unique(&mut made);
            assert_eq!(made, reference.unique(name), "{name:?}");
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

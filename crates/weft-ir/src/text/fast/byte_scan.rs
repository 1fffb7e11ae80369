//! Classifying a block of text bytes at once (which bytes of a block are
//! newlines, which are not identifier bytes), and comparing short texts in
//! place. The line survey and the scan of identifier runs use the masks where
//! a loop over single bytes would dominate (the text of a shape, a few bytes
//! between brackets, is faster to scan byte by byte); names, shape texts and
//! computation names are compared with [`same_text`], and kept in hash maps as
//! [`TextKey`]s, rather than through `==`, which calls the C library's
//! `memcmp`.
//!
//! Invariants: each function answers exactly what the byte-by-byte test it
//! names answers, for every byte value (the tests below compare them);
//! [`same_text`] is `==`; the vector versions are x86-64's SSE2, which every
//! x86-64 processor has, and other targets get the byte-by-byte loop.

/// Bytes that may continue an identifier: `[A-Za-z0-9_.-]`.
pub(crate) const fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-')
}

/// Bit `k` set where `block[k]` is a newline.
#[inline]
pub(crate) fn newline_mask(block: &[u8; 64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let (quarters, _) = block.as_chunks::<16>();
        quarters.iter().enumerate().fold(0, |mask, (k, quarter)| {
            mask | u64::from(sse2::equal_mask(sse2::load(quarter), b'\n')) << (16 * k)
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    block
        .iter()
        .enumerate()
        .fold(0, |mask, (k, &byte)| mask | u64::from(byte == b'\n') << k)
}

/// Bit `k` set where `block[k]` is not an identifier byte
/// ([`is_identifier_byte`]).
#[inline]
pub(crate) fn not_identifier_mask(block: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::not_identifier_mask(sse2::load(block))
    }
    #[cfg(not(target_arch = "x86_64"))]
    block.iter().enumerate().fold(0, |mask, (k, &byte)| {
        mask | u32::from(!is_identifier_byte(byte)) << k
    })
}

/// Whether `a` and `b` are the same text, compared in place. `==` calls the
/// C library's `memcmp`, whose call costs more than the comparison for the
/// short texts a parse compares (names, shape texts); and glibc's AVX-512
/// `memcmp` reads a text shorter than 32 bytes with one masked 32-byte load,
/// which on AMD processors takes a slow path (measured: 130–440 cycles
/// instead of a few) when the masked-off bytes lie on another page, as those
/// of an empty slice, whose address is not a readable one, always do.
#[inline]
pub(crate) fn same_text(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// [`same_text`] for bytes: texts of up to 32 bytes are compared as two
/// overlapping words (or bytes) each, longer ones 16 bytes at a time.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    match a.len() {
        0 => true,
        1..4 => {
            let (last, middle) = (a.len() - 1, a.len() / 2);
            a[0] == b[0] && a[middle] == b[middle] && a[last] == b[last]
        }
        4..8 => same_ends::<4>(a, b),
        8..16 => same_ends::<8>(a, b),
        16..=32 => same_ends::<16>(a, b),
        _ => same_long_bytes(a, b),
    }
}

/// A text as the key of a hash map: hashed as the `str` it holds (so a map
/// keyed by it hashes as one keyed by `&str`), compared by [`same_text`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct TextKey<'s>(pub &'s str);

impl PartialEq for TextKey<'_> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        same_text(self.0, other.0)
    }
}

impl Eq for TextKey<'_> {}

impl std::hash::Hash for TextKey<'_> {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// Looks up a map keyed by owned strings without building one.
impl hashbrown::Equivalent<String> for TextKey<'_> {
    #[inline]
    fn equivalent(&self, key: &String) -> bool {
        same_text(self.0, key)
    }
}

/// Looks up a map keyed by names kept inline without building one.
impl hashbrown::Equivalent<compact_str::CompactString> for TextKey<'_> {
    #[inline]
    fn equivalent(&self, key: &compact_str::CompactString) -> bool {
        same_text(self.0, key)
    }
}

/// Whether `a` and `b`, of one length of at least `N` bytes, agree in their
/// first and last `N` bytes (which cover them when they are at most `2N`
/// long).
#[inline]
fn same_ends<const N: usize>(a: &[u8], b: &[u8]) -> bool {
    a.first_chunk::<N>() == b.first_chunk::<N>() && a.last_chunk::<N>() == b.last_chunk::<N>()
}

/// [`same_bytes`] for more than 32 bytes of one length: 16 bytes at a time,
/// then the last 16 (which overlap the last whole block).
#[inline(never)]
fn same_long_bytes(a: &[u8], b: &[u8]) -> bool {
    let (blocks_a, _) = a.as_chunks::<16>();
    let (blocks_b, _) = b.as_chunks::<16>();
    blocks_a.iter().zip(blocks_b).all(|(x, y)| x == y)
        && a.last_chunk::<16>() == b.last_chunk::<16>()
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_sub_epi8,
    };

    // SAFETY (for every `unsafe` below): SSE2 is part of every x86-64 target,
    // so its intrinsics may be called; the one load reads exactly the sixteen
    // bytes of the array it is given (an unaligned load needs no alignment).

    #[inline]
    pub(super) fn load(block: &[u8; 16]) -> __m128i {
        unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) }
    }

    /// Bit `k` set where byte `k` of `bytes` is `needle`.
    #[inline]
    pub(super) fn equal_mask(bytes: __m128i, needle: u8) -> u32 {
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(needle as i8))) as u32 }
    }

    #[inline]
    pub(super) fn not_identifier_mask(bytes: __m128i) -> u32 {
        unsafe {
            // `first <= byte <= first + span` as one unsigned compare: the
            // offset is its own minimum with `span` exactly when in range.
            let within = |value: __m128i, first: u8, span: u8| {
                let offset = _mm_sub_epi8(value, _mm_set1_epi8(first as i8));
                _mm_cmpeq_epi8(_mm_min_epu8(offset, _mm_set1_epi8(span as i8)), offset)
            };
            let is = |byte: u8| _mm_cmpeq_epi8(bytes, _mm_set1_epi8(byte as i8));
            // Setting bit 5 makes `A-Z` `a-z` and moves no other byte into it.
            let letter = within(_mm_or_si128(bytes, _mm_set1_epi8(0x20)), b'a', 25);
            let digit = within(bytes, b'0', 9);
            let identifier = _mm_or_si128(
                _mm_or_si128(letter, digit),
                _mm_or_si128(is(b'_'), _mm_or_si128(is(b'.'), is(b'-'))),
            );
            !(_mm_movemask_epi8(identifier) as u32) & 0xFFFF
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{TextKey, is_identifier_byte, newline_mask, not_identifier_mask, same_text};

    #[test]
    fn same_text_is_string_equality() {
        // Every length up to 80, in each a change at every position: through
        // each word, block and overlap of the comparison.
        let texts: Vec<String> = (0..80)
            .flat_map(|length| {
                let base: String = "abcdefghijklmnopqrstuvwxyz0123456789.-_[]"
                    .chars()
                    .cycle()
                    .take(length)
                    .collect();
                let mut variants = vec![base.clone()];
                for position in 0..length {
                    let mut changed = base.clone().into_bytes();
                    changed[position] = b'X';
                    variants.push(String::from_utf8(changed).unwrap());
                }
                variants
            })
            .collect();
        for a in &texts {
            for b in &texts {
                assert_eq!(same_text(a, b), a == b, "{a:?} {b:?}");
                assert_eq!(super::same_bytes(a.as_bytes(), b.as_bytes()), a == b);
            }
        }
    }

    #[test]
    fn a_text_key_hashes_and_compares_as_its_text() {
        use std::hash::BuildHasher;
        let hasher = rustc_hash::FxBuildHasher;
        for text in [
            "",
            "a",
            "region_13.1491",
            "fused_computation.clone.clone.17",
        ] {
            assert_eq!(hasher.hash_one(TextKey(text)), hasher.hash_one(text));
            assert_eq!(
                hasher.hash_one(TextKey(text)),
                hasher.hash_one(text.to_string())
            );
        }
        let mut owned: hashbrown::HashMap<String, u32, rustc_hash::FxBuildHasher> =
            Default::default();
        owned.insert("tuple.7#0".to_string(), 1);
        assert_eq!(owned.get(&TextKey("tuple.7#0")), Some(&1));
        assert_eq!(owned.get(&TextKey("tuple.7#1")), None);
        assert_ne!(TextKey("abcd"), TextKey("abce"));
        assert_eq!(TextKey("abcd"), TextKey(&"xabcd"[1..]));
    }

    /// A block of 64 bytes with `byte` at `position` and identifier bytes
    /// elsewhere.
    fn block_with(byte: u8, position: usize) -> [u8; 64] {
        let mut block = [b'a'; 64];
        block[position] = byte;
        block
    }

    #[test]
    fn masks_agree_with_the_byte_tests_for_every_byte_at_every_position() {
        for byte in 0..=255u8 {
            for position in 0..64 {
                let block = block_with(byte, position);
                let newlines = newline_mask(&block);
                assert_eq!(
                    newlines,
                    u64::from(byte == b'\n') << position,
                    "{byte:#04x}"
                );
                let first: &[u8; 16] = block[position / 16 * 16..].first_chunk().unwrap();
                let outside = not_identifier_mask(first);
                let expected = u32::from(!is_identifier_byte(byte)) << (position % 16);
                assert_eq!(outside, expected, "{byte:#04x} at {position}");
            }
        }
    }
}

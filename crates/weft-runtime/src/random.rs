//! Seeded inputs for a program run without any: the same seed gives the same
//! values on every machine (SplitMix64, no platform randomness).
//!
//! Values are chosen to keep programs well defined: floats uniform in
//! `[-1, 1)`, signed integers in `[-8, 8)`, unsigned in `[0, 16)`, and
//! `pred` a fair coin — small enough that sums and products of a few of them
//! stay in range, and integer indices land near the start of a dimension.

use weft_ir::ElementType;
use weft_ir::element_type::ElementClass;

use crate::numbers::{Numbers, encode};
use crate::tensor::{Tensor, element_count};

/// SplitMix64: a tiny, well-mixed generator.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A float uniform in `[0, 1)`.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A tensor of `elem` and `dims` with values drawn from `random`.
///
/// `dims` must have a size (`weft_ir::size::byte_size`): the caller checks
/// it, and how large a value it may draw, before asking. The values are
/// drawn and encoded a block at a time, so drawing takes the tensor's bytes
/// and little more.
pub fn tensor(random: &mut SplitMix64, elem: ElementType, dims: &[i64]) -> Tensor {
    const BLOCK: usize = 1 << 16;
    let count = element_count(dims);
    let mut bytes = Vec::with_capacity(count * weft_ir::literal::storage_bytes(elem));
    let mut left = count;
    while left > 0 {
        let block = left.min(BLOCK);
        let numbers = draw(random, elem, block);
        bytes.extend_from_slice(&encode(elem, &[block as i64], &numbers).bytes);
        left -= block;
    }
    Tensor::new(elem, dims.to_vec(), bytes)
}

/// `count` values of `elem`, drawn in order.
fn draw(random: &mut SplitMix64, elem: ElementType, count: usize) -> Numbers {
    match elem {
        ElementType::Pred => {
            Numbers::Pred((0..count).map(|_| random.next_u64() & 1 == 1).collect())
        }
        ElementType::C64 | ElementType::C128 => Numbers::Complex(
            (0..count)
                .map(|_| {
                    (
                        random.next_unit() * 2.0 - 1.0,
                        random.next_unit() * 2.0 - 1.0,
                    )
                })
                .collect(),
        ),
        _ => match elem.class() {
            ElementClass::Signed => Numbers::Signed(
                (0..count)
                    .map(|_| (random.next_u64() % 16) as i64 - 8)
                    .collect(),
            ),
            ElementClass::Unsigned => {
                Numbers::Unsigned((0..count).map(|_| random.next_u64() % 16).collect())
            }
            _ => Numbers::Float((0..count).map(|_| random.next_unit() * 2.0 - 1.0).collect()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_values() {
        let a = tensor(&mut SplitMix64::new(7), ElementType::F32, &[4, 4]);
        let b = tensor(&mut SplitMix64::new(7), ElementType::F32, &[4, 4]);
        let c = tensor(&mut SplitMix64::new(8), ElementType::F32, &[4, 4]);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}

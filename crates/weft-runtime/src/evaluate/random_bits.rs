//! `rng-bit-generator`: random bits from a counter-based generator, and the
//! state advanced past them.
//!
//! `rng-bit-generator` is bit-exact with XLA's `RngBitGeneratorExpander`
//! (`xla/hlo/builder/lib/prng.cc`): ThreeFry-2x32 with 20 rounds or
//! Philox-4x32 with 10 rounds; `rng_default` is Philox, as on XLA's CPU
//! and GPU backends. The state is `u64[…]`: the key, then the counter.
//! Types narrower than 32 bits keep the low bits of 32-bit outputs;
//! floating-point and signed outputs are the same bits reinterpreted.

use weft_ir::ElementType;
use weft_ir::attrs::RngAlgorithm;

use crate::numbers::{Numbers, decode, encode};
use crate::tensor::{Tensor, Value, element_count};

/// `rng-bit-generator(state)`: the new state and `dims` of random bits of
/// `elem`.
pub(super) fn rng_bit_generator(
    algorithm: RngAlgorithm,
    state: &Tensor,
    elem: ElementType,
    dims: &[i64],
) -> Result<(Tensor, Tensor), String> {
    let words = match decode(state) {
        Numbers::Unsigned(words) if state.elem == ElementType::U64 && state.dims.len() == 1 => {
            words
        }
        _ => {
            return Err(format!(
                "the state of rng-bit-generator must be a u64 vector, got {}",
                Value::Tensor(state.clone()).describe()
            ));
        }
    };
    let width = elem.bit_width();
    let supported = !matches!(elem, ElementType::Pred) && !elem.is_complex();
    if !supported || !matches!(width, 8 | 16 | 32 | 64) {
        return Err(format!("rng-bit-generator cannot generate {}", elem.name()));
    }
    let count = element_count(dims);
    let (new_state, bits) = match algorithm {
        RngAlgorithm::ThreeFry => {
            if words.len() < 2 {
                return Err("the ThreeFry state needs a key and a counter (u64[2])".into());
            }
            let (key, counter) = (words[0], words[1]);
            let (bits, advance) = if width == 64 {
                (threefry_bits_64(key, counter, count), count as u64)
            } else {
                threefry_bits_32(key, counter, dims)
            };
            let mut new_state = words.clone();
            new_state[1] = counter.wrapping_add(advance);
            (new_state, bits)
        }
        RngAlgorithm::Philox | RngAlgorithm::Default => {
            if words.len() < 2 {
                return Err("the Philox state needs a key and a counter (u64[2] or u64[3])".into());
            }
            let key = words[0];
            // A two-word state has a 64-bit counter; XLA reads the key as the
            // counter's high half and returns only the low half.
            let counter = if words.len() >= 3 {
                u128::from(words[1]) | (u128::from(words[2]) << 64)
            } else {
                u128::from(words[1]) | (u128::from(words[0]) << 64)
            };
            let (bits, advance) = if width == 64 {
                philox_bits_64(key, counter, count)
            } else {
                philox_bits_32(key, counter, count)
            };
            let next = counter.wrapping_add(u128::from(advance));
            let mut new_state = words.clone();
            new_state[1] = next as u64;
            if words.len() >= 3 {
                new_state[2] = (next >> 64) as u64;
            }
            (new_state, bits)
        }
    };
    let size = weft_ir::literal::storage_bytes(elem);
    let mut bytes = Vec::with_capacity(count * size);
    for word in bits {
        // Narrow types keep the low bits of each 32-bit output, as XLA's
        // convert does.
        bytes.extend_from_slice(&word.to_le_bytes()[..size]);
    }
    let state = encode(ElementType::U64, &state.dims, &Numbers::Unsigned(new_state));
    Ok((
        state,
        Tensor {
            elem,
            dims: dims.to_vec(),
            bytes: bytes.into(),
        },
    ))
}

/// ThreeFry-2x32 with 20 rounds (Salmon et al., SC 2011), as XLA's
/// `ThreeFry2x32`.
fn threefry_2x32(key: [u32; 2], input: [u32; 2]) -> [u32; 2] {
    const ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
    let schedule = [key[0], key[1], key[0] ^ key[1] ^ 0x1BD1_1BDA];
    let mut x = [
        input[0].wrapping_add(schedule[0]),
        input[1].wrapping_add(schedule[1]),
    ];
    for injection in 1..=5u32 {
        let rotations = if injection % 2 == 1 {
            &ROTATIONS[..4]
        } else {
            &ROTATIONS[4..]
        };
        for &rotation in rotations {
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(rotation) ^ x[0];
        }
        let i = injection as usize;
        x[0] = x[0].wrapping_add(schedule[i % 3]);
        x[1] = x[1]
            .wrapping_add(schedule[(i + 1) % 3])
            .wrapping_add(injection);
    }
    x
}

fn split_u64(word: u64) -> [u32; 2] {
    [word as u32, (word >> 32) as u32]
}

/// XLA's `ThreeFryRngBit64`: counter `counter + i` for element `i`.
fn threefry_bits_64(key: u64, counter: u64, count: usize) -> Vec<u64> {
    (0..count as u64)
        .map(|i| {
            let [lo, hi] = threefry_2x32(split_u64(key), split_u64(counter.wrapping_add(i)));
            u64::from(lo) | (u64::from(hi) << 32)
        })
        .collect()
}

/// XLA's `ThreeFryRngBit32`: the shape is split in halves along its first
/// even dimension (else its largest), each counter giving the two elements
/// `2h` and `2h + 1` of that dimension. Returns the bits and how far the
/// counter moves.
fn threefry_bits_32(key: u64, counter: u64, dims: &[i64]) -> (Vec<u64>, u64) {
    let key = split_u64(key);
    let generate = |h: u64| threefry_2x32(key, split_u64(counter.wrapping_add(h)));
    if dims.is_empty() {
        return (vec![u64::from(generate(0)[0])], 1);
    }
    let split = dims.iter().position(|&d| d % 2 == 0).unwrap_or_else(|| {
        // No even dimension: the first of the largest.
        let mut best = 0;
        for (i, &d) in dims.iter().enumerate() {
            if d > dims[best] {
                best = i;
            }
        }
        best
    });
    let outer = element_count(&dims[..split]);
    let size = dims[split].max(0) as usize;
    let halves = size.div_ceil(2);
    let inner = element_count(&dims[split + 1..]);
    let mut bits = Vec::with_capacity(outer * size * inner);
    for o in 0..outer {
        for s in 0..size {
            for i in 0..inner {
                let h = ((o * halves + s / 2) * inner + i) as u64;
                bits.push(u64::from(generate(h)[s % 2]));
            }
        }
    }
    (bits, (outer * halves * inner) as u64)
}

/// Philox-4x32 with 10 rounds (Salmon et al., SC 2011), as XLA's
/// `Philox4x32`.
fn philox_4x32(key: [u32; 2], counter: [u32; 4]) -> [u32; 4] {
    const W: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];
    const M: [u64; 2] = [0xD251_1F53, 0xCD9E_8D57];
    let (mut key, mut x) = (key, counter);
    for _ in 0..10 {
        let product0 = M[0] * u64::from(x[0]);
        let product1 = M[1] * u64::from(x[2]);
        x = [
            (product1 >> 32) as u32 ^ x[1] ^ key[0],
            product1 as u32,
            (product0 >> 32) as u32 ^ x[3] ^ key[1],
            product0 as u32,
        ];
        key = [key[0].wrapping_add(W[0]), key[1].wrapping_add(W[1])];
    }
    x
}

/// The Philox outputs of counters `counter`, `counter + 1`, … `blocks`.
fn philox_blocks(key: u64, counter: u128, blocks: usize) -> impl Iterator<Item = [u32; 4]> {
    let key = split_u64(key);
    (0..blocks as u128).map(move |j| {
        let c = counter.wrapping_add(j);
        philox_4x32(
            key,
            [
                c as u32,
                (c >> 32) as u32,
                (c >> 64) as u32,
                (c >> 96) as u32,
            ],
        )
    })
}

/// XLA's `PhiloxRngBit32`: four elements per counter, in order.
fn philox_bits_32(key: u64, counter: u128, count: usize) -> (Vec<u64>, u64) {
    let blocks = count.div_ceil(4);
    let mut bits: Vec<u64> = philox_blocks(key, counter, blocks)
        .flat_map(|block| block.map(u64::from))
        .collect();
    bits.truncate(count);
    (bits, blocks as u64)
}

/// XLA's `PhiloxRngBit64`: two elements per counter, words paired low-high.
fn philox_bits_64(key: u64, counter: u128, count: usize) -> (Vec<u64>, u64) {
    let blocks = count.div_ceil(2);
    let mut bits: Vec<u64> = philox_blocks(key, counter, blocks)
        .flat_map(|b| {
            [
                u64::from(b[0]) | (u64::from(b[1]) << 32),
                u64::from(b[2]) | (u64::from(b[3]) << 32),
            ]
        })
        .collect();
    bits.truncate(count);
    (bits, blocks as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::test_support::*;

    #[test]
    fn threefry_and_philox_match_random123_known_answers() {
        // Known-answer vectors of Random123 (threefry2x32_20, philox4x32_10).
        assert_eq!(threefry_2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
        assert_eq!(
            threefry_2x32([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]),
            [0x1cb9_96fc, 0xbb00_2be7]
        );
        assert_eq!(
            threefry_2x32([0x1319_8a2e, 0x0370_7344], [0x243f_6a88, 0x85a3_08d3]),
            [0xc492_3a9c, 0x483d_f7a0]
        );
        assert_eq!(
            philox_4x32([0, 0], [0, 0, 0, 0]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox_4x32([u32::MAX, u32::MAX], [u32::MAX; 4]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox_4x32(
                [0xa409_3822, 0x299f_31d0],
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    #[test]
    fn rng_bit_generator_lays_out_bits_as_xla() {
        let text = r#"
HloModule m
ENTRY e {
  state = u64[2] parameter(0)
  ROOT r = (u64[2], u32[3,2]) rng-bit-generator(state), algorithm=rng_three_fry
}
"#;
        let key: u64 = 0x0370_7344_1319_8a2e;
        let counter: u64 = 0x85a3_08d3_243f_6a88;
        let state = Value::Tensor(encode(
            ElementType::U64,
            &[2],
            &Numbers::Unsigned(vec![key, counter]),
        ));
        let result = run(text, vec![state]);
        // Split along the first even dimension (dimension 1): each row is
        // one counter's two words; the counter moves by 3.
        let mut expected = Vec::new();
        for row in 0..3u64 {
            let [a, b] = threefry_2x32(split_u64(key), split_u64(counter + row));
            expected.extend([i64::from(a), i64::from(b)]);
        }
        assert_eq!(expected[..2], [0xc492_3a9c, 0x483d_f7a0]);
        assert_eq!(ints(element(&result, 1)), expected);
        assert_eq!(
            ints(element(&result, 0)),
            vec![key as i64, (counter + 3) as i64]
        );

        // Philox (also the default): four words per counter; a two-word
        // state's counter has the key as its high half.
        let text = r#"
HloModule m
ENTRY e {
  state = u64[2] parameter(0)
  ROOT r = (u64[2], u32[6]) rng-bit-generator(state), algorithm=rng_default
}
"#;
        let state = Value::Tensor(encode(
            ElementType::U64,
            &[2],
            &Numbers::Unsigned(vec![5, 7]),
        ));
        let result = run(text, vec![state]);
        let block = |c: u128| {
            philox_4x32(
                [5, 0],
                [
                    c as u32,
                    (c >> 32) as u32,
                    (c >> 64) as u32,
                    (c >> 96) as u32,
                ],
            )
        };
        let base = 7u128 | (5u128 << 64);
        let mut expected: Vec<i64> = block(base).iter().map(|&w| i64::from(w)).collect();
        expected.extend(block(base + 1)[..2].iter().map(|&w| i64::from(w)));
        assert_eq!(ints(element(&result, 1)), expected);
        assert_eq!(ints(element(&result, 0)), vec![5, 9]);
    }
}

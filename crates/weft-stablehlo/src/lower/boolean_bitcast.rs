//! `bitcast_convert` between `i1` and a wider type. StableHLO's `i1` is one
//! bit, but HLO's `pred` takes a byte, so no HLO `bitcast-convert` says it:
//! the bits are unpacked and packed with integer arithmetic instead.
//!
//! - wider → `i1`: each element's W bits become a trailing dimension of W
//!   booleans, least significant bit first (element k is bit k of the value
//!   read little-endian, as the StableHLO interpreter reads it). The value
//!   is bitcast to unsigned words of at most 64 bits, each word is shifted
//!   right by 0, 1, … and its low bit kept.
//! - a complex value is two words, its real part first (the low half read
//!   little-endian). HLO's `bitcast-convert` does not go between complex and
//!   real types, so each part is taken with `real`/`imag` and bitcast on its
//!   own, and `complex` joins them on the way back.
//! - `i1` → wider: the W booleans of the trailing dimension become the bits
//!   of one element: each is shifted left by its position, the words are
//!   or-ed together by a `reduce`, and bitcast to the result type.
//!
//! Before: `stablehlo.bitcast_convert %x : (tensor<f16>) -> tensor<16xi1>`.
//! After: `bitcast-convert` to `u16`, `broadcast` to `u16[16]`,
//! `shift-right-logical` by an `iota`, `and` 1, `compare NE` 0.

use weft_ir::attrs::{Attrs, Direction, SliceRange};
use weft_ir::{Callees, Comp, ElementType, Instr, Opcode, Shape};

use super::chlo::arithmetic::Arithmetic;
use super::{LowerResult, Lowering};
use crate::ir::Op;

/// The unsigned type of `bits` bits.
fn unsigned(bits: u32) -> Option<ElementType> {
    Some(match bits {
        8 => ElementType::U8,
        16 => ElementType::U16,
        32 => ElementType::U32,
        64 => ElementType::U64,
        _ => return None,
    })
}

/// The real type of a complex type's parts.
fn part_of(complex: ElementType) -> ElementType {
    if complex == ElementType::C128 {
        ElementType::F64
    } else {
        ElementType::F32
    }
}

/// Each bit's position in its word: an `iota` along the last dimension of
/// `words` (whose last dimension is a word's bits), of its type.
fn bit_positions(arithmetic: &mut Arithmetic<'_, '_>, words: Instr) -> Instr {
    let shape = arithmetic.shape_with(words, arithmetic.element(words));
    let dimension = arithmetic.dims(words).len() as i64 - 1;
    arithmetic.emit(Opcode::Iota, shape, Vec::new(), Attrs::Iota { dimension })
}

impl Lowering<'_> {
    /// Lowers `op`, a `bitcast_convert` with `i1` on one side.
    pub(crate) fn boolean_bitcast(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let operand = self.operands(op)?[0];
        let result = self.result_shape(op)?;
        let element_of = |lowering: &Self, shape| {
            lowering
                .module
                .shapes
                .as_array(shape)
                .map(|array| array.elem)
        };
        let from = element_of(self, self.module.shape_of(operand));
        let to = element_of(self, result);
        let wide = match (from, to) {
            (Some(ElementType::Pred), Some(wide)) | (Some(wide), Some(ElementType::Pred)) => wide,
            _ => return Err(self.error(op, "a boolean bitcast takes and gives arrays")),
        };
        let bits = wide.bit_width();
        // A complex value's words are its parts.
        let word_bits = if wide.is_complex() {
            bits / 2
        } else {
            bits.min(64)
        };
        let Some(word) = unsigned(word_bits).filter(|_| bits % word_bits == 0) else {
            return Err(self.error(
                op,
                format!("a bitcast between i1 and a {bits}-bit type is not lowered (only whole bytes up to 64 bits a word)"),
            ));
        };
        let words = i64::from(bits / word_bits);
        let name = self.name_for(op, "bitcast_convert");
        let value = if from == Some(ElementType::Pred) {
            self.pack_bits(comp, &name, operand, word, words, result)
        } else {
            self.unpack_bits(comp, &name, operand, word, words, result)
        };
        self.values.insert(self.body.ops[op].results[0], value);
        Ok(())
    }

    /// The bits of `operand` (of a type `words` words of `word` wide) as
    /// booleans of shape `result`.
    fn unpack_bits(
        &mut self,
        comp: Comp,
        name: &str,
        operand: Instr,
        word: ElementType,
        words: i64,
        result: weft_ir::Shape,
    ) -> Instr {
        let word_bits = i64::from(word.bit_width());
        let mut arithmetic = Arithmetic::new(self, comp, name);
        let mut word_dims = arithmetic.dims(operand);
        if words > 1 {
            word_dims.push(words);
        }
        let as_words = if arithmetic.element(operand).is_complex() {
            let part_type = part_of(arithmetic.element(operand));
            let part_shape = arithmetic.shape_with(operand, part_type);
            let part_word_dims: Vec<i64> =
                arithmetic.dims(operand).into_iter().chain([1]).collect();
            let part_word_shape = arithmetic.shape_of_dims(word, &part_word_dims);
            let parts = [Opcode::Real, Opcode::Imag].map(|opcode| {
                let part = arithmetic.emit(opcode, part_shape, vec![operand], Attrs::plain());
                let bits = arithmetic.bitcast_convert(part, word);
                arithmetic.emit(Opcode::Reshape, part_word_shape, vec![bits], Attrs::plain())
            });
            let word_shape = arithmetic.shape_of_dims(word, &word_dims);
            arithmetic.emit(
                Opcode::Concatenate,
                word_shape,
                parts.to_vec(),
                Attrs::Dimensions {
                    dimensions: vec![word_dims.len() as i64 - 1].into(),
                },
            )
        } else {
            let word_shape = arithmetic.shape_of_dims(word, &word_dims);
            arithmetic.emit(
                Opcode::BitcastConvert,
                word_shape,
                vec![operand],
                Attrs::plain(),
            )
        };
        let mut bit_dims = word_dims.clone();
        bit_dims.push(word_bits);
        let bit_shape = arithmetic.shape_of_dims(word, &bit_dims);
        let spread = arithmetic.emit(
            Opcode::Broadcast,
            bit_shape,
            vec![as_words],
            Attrs::Dimensions {
                dimensions: (0..word_dims.len() as i64).collect::<Vec<_>>().into(),
            },
        );
        let positions = bit_positions(&mut arithmetic, spread);
        let shifted = arithmetic.binary(Opcode::ShiftRightLogical, spread, positions);
        let one = arithmetic.integer_like(1, shifted);
        let low = arithmetic.and(shifted, one);
        let zero = arithmetic.integer_like(0, low);
        let booleans = arithmetic.compare(Direction::Ne, low, zero);
        if words == 1 {
            return booleans;
        }
        arithmetic.emit(Opcode::Reshape, result, vec![booleans], Attrs::plain())
    }

    /// The booleans of `operand`'s trailing dimension packed into the bits
    /// of the elements of `result` (`words` words of `word` each).
    fn pack_bits(
        &mut self,
        comp: Comp,
        name: &str,
        operand: Instr,
        word: ElementType,
        words: i64,
        result: weft_ir::Shape,
    ) -> Instr {
        let word_bits = i64::from(word.bit_width());
        let complex = self
            .module
            .shapes
            .as_array(result)
            .map(|array| array.elem)
            .filter(|elem| elem.is_complex());
        let or = self.or_reducer(word, name);
        let mut arithmetic = Arithmetic::new(self, comp, name);
        let mut bit_dims = arithmetic.dims(operand);
        bit_dims.pop();
        let mut word_dims = bit_dims.clone();
        if words > 1 {
            word_dims.push(words);
        }
        let mut grouped_dims = word_dims.clone();
        grouped_dims.push(word_bits);
        let grouped = if words > 1 {
            let shape = arithmetic.shape_of_dims(ElementType::Pred, &grouped_dims);
            arithmetic.emit(Opcode::Reshape, shape, vec![operand], Attrs::plain())
        } else {
            operand
        };
        let as_words = arithmetic.convert(grouped, word);
        let positions = bit_positions(&mut arithmetic, as_words);
        let placed = arithmetic.binary(Opcode::ShiftLeft, as_words, positions);
        let zero = arithmetic.scalar(0, word);
        let word_shape = arithmetic.shape_of_dims(word, &word_dims);
        let packed = arithmetic.emit(
            Opcode::Reduce,
            word_shape,
            vec![placed, zero],
            Attrs::Dimensions {
                dimensions: vec![word_dims.len() as i64].into(),
            },
        );
        arithmetic.set_callees(packed, Callees::from([or]));
        let Some(complex) = complex else {
            return arithmetic.emit(Opcode::BitcastConvert, result, vec![packed], Attrs::plain());
        };
        let part_type = part_of(complex);
        let part_shape = arithmetic.shape_of_dims(part_type, &bit_dims);
        let one_word_shape: Shape = {
            let dims: Vec<i64> = bit_dims.iter().copied().chain([1]).collect();
            arithmetic.shape_of_dims(word, &dims)
        };
        let bare_word_shape = arithmetic.shape_of_dims(word, &bit_dims);
        let [real, imaginary] = [0, 1].map(|index| {
            let mut ranges: Vec<SliceRange> = bit_dims
                .iter()
                .map(|&size| SliceRange {
                    start: 0,
                    limit: size,
                    stride: 1,
                })
                .collect();
            ranges.push(SliceRange {
                start: index,
                limit: index + 1,
                stride: 1,
            });
            let sliced = arithmetic.emit(
                Opcode::Slice,
                one_word_shape,
                vec![packed],
                Attrs::Slice(ranges.into()),
            );
            let bare = arithmetic.emit(
                Opcode::Reshape,
                bare_word_shape,
                vec![sliced],
                Attrs::plain(),
            );
            arithmetic.emit(
                Opcode::BitcastConvert,
                part_shape,
                vec![bare],
                Attrs::plain(),
            )
        });
        arithmetic.emit(
            Opcode::Complex,
            result,
            vec![real, imaginary],
            Attrs::plain(),
        )
    }

    /// A computation or-ing two scalars of `word`.
    fn or_reducer(&mut self, word: ElementType, name: &str) -> Comp {
        let comp = self.new_computation(&format!("{name}.or"));
        let scalar = self.module.shapes.array_with_default_layout(word, &[]);
        let a = self.parameter(comp, 0, scalar, "a");
        let b = self.parameter(comp, 1, scalar, "b");
        let root = self.emit(comp, "or", Opcode::Or, scalar, vec![a, b], Attrs::plain());
        self.module.set_root(comp, root);
        comp
    }
}

//! An instruction's operand list, kept in 16 bytes.
//!
//! Nearly every instruction of a real module has one to three operands, so
//! those are stored inside the [`InstrData`](crate::InstrData) itself; a
//! longer list (tuples, concatenates, fusions and custom-calls of many
//! operands) lives behind one thin pointer. Sixteen bytes instead of the
//! 24 of a `SmallVec<[Instr; 4]>` is part of what keeps an instruction at 96
//! bytes: a parse writes one instruction per line of text into fresh memory,
//! and every pass reads them all.
//!
//! Invariant: an inline list holds at most [`INLINE_OPERANDS`] operands; a
//! heap list may hold any number (it does not move back inline when it
//! shrinks). Which one a list uses is never observable through its API.

use std::fmt;
use std::ops::{Deref, DerefMut};

use thin_vec::ThinVec;

use crate::entity::EntityRef;
use crate::module::Instr;

/// How many operands fit without an allocation.
pub const INLINE_OPERANDS: usize = 3;

/// An instruction's operands, in order. Reads and writes go through the
/// slice it dereferences to; [`push`](Self::push) and the other methods that
/// change the length are the only ones of its own.
#[derive(Clone)]
pub struct Operands(Repr);

#[derive(Clone)]
enum Repr {
    /// `items[..len]` are the operands; the rest is filler, never read.
    Inline {
        len: u8,
        items: [Instr; INLINE_OPERANDS],
    },
    Heap(ThinVec<Instr>),
}

/// What fills the unused inline slots.
fn filler() -> Instr {
    Instr::new(0)
}

impl Operands {
    /// No operands.
    pub fn new() -> Operands {
        Operands(Repr::Inline {
            len: 0,
            items: [filler(); INLINE_OPERANDS],
        })
    }

    /// The operands of `slice`, in order.
    pub fn from_slice(slice: &[Instr]) -> Operands {
        // Spelled out per length: a copy of a length only known at run time
        // would be a `memcpy` call, for at most twelve bytes.
        let items = match *slice {
            [] => [filler(); INLINE_OPERANDS],
            [a] => [a, filler(), filler()],
            [a, b] => [a, b, filler()],
            [a, b, c] => [a, b, c],
            _ => return Operands(Repr::Heap(ThinVec::from(slice))),
        };
        Operands(Repr::Inline {
            len: slice.len() as u8,
            items,
        })
    }

    /// The operands as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Instr] {
        match &self.0 {
            Repr::Inline { len, items } => &items[..*len as usize],
            Repr::Heap(items) => items,
        }
    }

    /// The operands as a mutable slice (to replace one in place).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Instr] {
        match &mut self.0 {
            Repr::Inline { len, items } => &mut items[..*len as usize],
            Repr::Heap(items) => items,
        }
    }

    /// Appends an operand.
    pub fn push(&mut self, operand: Instr) {
        match &mut self.0 {
            Repr::Inline { len, items } if (*len as usize) < INLINE_OPERANDS => {
                items[*len as usize] = operand;
                *len += 1;
            }
            Repr::Inline { items, .. } => {
                let mut heap = ThinVec::with_capacity(INLINE_OPERANDS + 1);
                heap.extend_from_slice(items);
                heap.push(operand);
                self.0 = Repr::Heap(heap);
            }
            Repr::Heap(items) => items.push(operand),
        }
    }

    /// Inserts an operand at `index`, shifting the later ones right.
    ///
    /// # Panics
    /// If `index` is greater than the length.
    pub fn insert(&mut self, index: usize, operand: Instr) {
        assert!(index <= self.len(), "operand index {index} out of range");
        self.push(operand);
        self.as_mut_slice()[index..].rotate_right(1);
    }

    /// Removes and returns the operand at `index`, shifting the later ones
    /// left.
    ///
    /// # Panics
    /// If `index` is out of range.
    pub fn remove(&mut self, index: usize) -> Instr {
        let removed = self[index];
        self.as_mut_slice()[index..].rotate_left(1);
        self.truncate(self.len() - 1);
        removed
    }

    /// Keeps the first `len` operands (all of them if there are fewer).
    pub fn truncate(&mut self, new_len: usize) {
        match &mut self.0 {
            Repr::Inline { len, .. } => *len = (*len).min(new_len as u8),
            Repr::Heap(items) => items.truncate(new_len),
        }
    }

    /// Keeps only the operands `keep` accepts, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Instr) -> bool) {
        let mut kept = 0;
        for index in 0..self.len() {
            let operand = self[index];
            if keep(operand) {
                self[kept] = operand;
                kept += 1;
            }
        }
        self.truncate(kept);
    }

    /// Removes every operand.
    pub fn clear(&mut self) {
        self.truncate(0);
    }
}

impl Default for Operands {
    fn default() -> Operands {
        Operands::new()
    }
}

impl Deref for Operands {
    type Target = [Instr];
    #[inline]
    fn deref(&self) -> &[Instr] {
        self.as_slice()
    }
}

impl DerefMut for Operands {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Instr] {
        self.as_mut_slice()
    }
}

impl PartialEq for Operands {
    fn eq(&self, other: &Operands) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Operands {}

impl fmt::Debug for Operands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl From<&[Instr]> for Operands {
    fn from(slice: &[Instr]) -> Operands {
        Operands::from_slice(slice)
    }
}

impl<const N: usize> From<[Instr; N]> for Operands {
    fn from(array: [Instr; N]) -> Operands {
        Operands::from_slice(&array)
    }
}

impl From<Vec<Instr>> for Operands {
    fn from(vec: Vec<Instr>) -> Operands {
        Operands::from_slice(&vec)
    }
}

impl FromIterator<Instr> for Operands {
    fn from_iter<I: IntoIterator<Item = Instr>>(iter: I) -> Operands {
        let mut operands = Operands::new();
        operands.extend(iter);
        operands
    }
}

impl Extend<Instr> for Operands {
    fn extend<I: IntoIterator<Item = Instr>>(&mut self, iter: I) {
        for operand in iter {
            self.push(operand);
        }
    }
}

impl<'a> IntoIterator for &'a Operands {
    type Item = &'a Instr;
    type IntoIter = std::slice::Iter<'a, Instr>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a> IntoIterator for &'a mut Operands {
    type Item = &'a mut Instr;
    type IntoIter = std::slice::IterMut<'a, Instr>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::{INLINE_OPERANDS, Operands};
    use crate::entity::EntityRef;
    use crate::module::Instr;

    fn instrs(range: std::ops::Range<usize>) -> Vec<Instr> {
        range.map(Instr::new).collect()
    }

    #[test]
    fn an_operand_list_takes_sixteen_bytes() {
        assert_eq!(size_of::<Operands>(), 16);
    }

    #[test]
    fn lists_of_every_length_read_back_in_order() {
        for n in 0..=2 * INLINE_OPERANDS + 1 {
            let expected = instrs(0..n);
            assert_eq!(Operands::from_slice(&expected).as_slice(), expected);
            let pushed: Operands = expected.iter().copied().collect();
            assert_eq!(pushed.as_slice(), expected, "pushed {n}");
            assert_eq!(pushed, Operands::from(expected.clone()));
        }
    }

    #[test]
    fn insert_remove_retain_and_truncate_keep_order_across_the_spill() {
        let mut operands = Operands::from_slice(&instrs(0..3));
        operands.insert(1, Instr::new(9));
        assert_eq!(operands.as_slice(), [0, 9, 1, 2].map(Instr::new));
        assert_eq!(operands.remove(1), Instr::new(9));
        assert_eq!(operands.as_slice(), instrs(0..3));
        operands.retain(|operand| operand != Instr::new(1));
        assert_eq!(operands.as_slice(), [0, 2].map(Instr::new));
        operands.insert(0, Instr::new(7));
        assert_eq!(operands.as_slice(), [7, 0, 2].map(Instr::new));
        operands.truncate(1);
        assert_eq!(operands.as_slice(), [Instr::new(7)]);
        operands[0] = Instr::new(4);
        operands.clear();
        assert!(operands.is_empty());
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn inserting_past_the_end_panics() {
        Operands::new().insert(1, Instr::new(0));
    }
}

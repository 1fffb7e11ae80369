//! The opcode table: the single source of truth for every opcode of XLA's
//! `hlo_opcode.h` — its text name, arity, attribute family and flags.
//!
//! Everything else (name lookup, arity checks, which attribute family an
//! instruction must carry, which opcodes may be wrapped by async sugar) is derived
//! from the one `opcodes!` table below. Adding an opcode is adding one line.

use std::fmt;

use crate::attrs::Family;

/// Opcode flags.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Flags(u16);

impl Flags {
    /// No flag.
    pub const NONE: Flags = Flags(0);
    /// A collective communication operation.
    pub const COLLECTIVE: Flags = Flags(1 << 0);
    /// Has side effects: never removed or reordered freely.
    pub const SIDE_EFFECT: Flags = Flags(1 << 1);
    /// A first-class asynchronous start (`all-reduce-start`, `copy-start`, `send`, …).
    pub const FIRST_CLASS_START: Flags = Flags(1 << 2);
    /// A first-class asynchronous done (`all-reduce-done`, `copy-done`, `send-done`, …).
    pub const FIRST_CLASS_DONE: Flags = Flags(1 << 3);
    /// One of the generic `async-start` / `async-update` / `async-done`.
    pub const GENERIC_ASYNC: Flags = Flags(1 << 4);
    /// Has a first-class start/done form, so `<op>-start` sugar never wraps it
    /// (all-gather, all-reduce, collective-permute, copy, send, recv).
    pub const NO_ASYNC_SUGAR: Flags = Flags(1 << 5);
    /// An elementwise operation.
    pub const ELEMENTWISE: Flags = Flags(1 << 6);

    const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, other: Flags) -> Flags {
        self.union(other)
    }
}

/// The number of operands an opcode takes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Arity {
    /// Exactly this many.
    Fixed(u8),
    /// Any number.
    Variadic,
}

macro_rules! flags {
    () => { Flags::NONE };
    ($first:ident $(| $rest:ident)*) => { Flags::$first $(.union(Flags::$rest))* };
}

macro_rules! arity {
    (var) => {
        Arity::Variadic
    };
    ($n:literal) => {
        Arity::Fixed($n)
    };
}

macro_rules! opcodes {
    ($( $variant:ident, $text:literal, $arity:tt, $family:ident, [$($flag:ident)|*]; )*) => {
        /// An HLO opcode.
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum Opcode {
            $( $variant, )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The opcode's name in HLO text.
            pub fn name(self) -> &'static str {
                match self {
                    $( Opcode::$variant => $text, )*
                }
            }

            /// How many operands the opcode takes.
            pub fn arity(self) -> Arity {
                match self {
                    $( Opcode::$variant => arity!($arity), )*
                }
            }

            /// The attribute family an instruction with this opcode carries.
            pub fn family(self) -> Family {
                match self {
                    $( Opcode::$variant => Family::$family, )*
                }
            }

            /// The opcode's flags.
            pub fn flags(self) -> Flags {
                match self {
                    $( Opcode::$variant => flags!($($flag)|*), )*
                }
            }
        }
    };
}

opcodes! {
    Abs, "abs", 1, Plain, [ELEMENTWISE];
    Acos, "acos", 1, Plain, [ELEMENTWISE];
    Acosh, "acosh", 1, Plain, [ELEMENTWISE];
    Add, "add", 2, Plain, [ELEMENTWISE];
    AddDependency, "add-dependency", 2, Plain, [];
    AfterAll, "after-all", var, Plain, [];
    AllGather, "all-gather", var, Collective, [COLLECTIVE | NO_ASYNC_SUGAR];
    AllGatherDone, "all-gather-done", 1, Plain, [FIRST_CLASS_DONE];
    AllGatherStart, "all-gather-start", var, Collective, [COLLECTIVE | FIRST_CLASS_START];
    AllReduce, "all-reduce", var, Collective, [COLLECTIVE | NO_ASYNC_SUGAR];
    AllReduceDone, "all-reduce-done", 1, Plain, [FIRST_CLASS_DONE];
    AllReduceStart, "all-reduce-start", var, Collective, [COLLECTIVE | FIRST_CLASS_START];
    AllToAll, "all-to-all", var, Collective, [COLLECTIVE];
    And, "and", 2, Plain, [ELEMENTWISE];
    Asin, "asin", 1, Plain, [ELEMENTWISE];
    Asinh, "asinh", 1, Plain, [ELEMENTWISE];
    AsyncDone, "async-done", 1, Async, [GENERIC_ASYNC];
    AsyncStart, "async-start", var, Async, [GENERIC_ASYNC];
    AsyncUpdate, "async-update", var, Async, [GENERIC_ASYNC];
    Atan, "atan", 1, Plain, [ELEMENTWISE];
    Atan2, "atan2", 2, Plain, [ELEMENTWISE];
    Atanh, "atanh", 1, Plain, [ELEMENTWISE];
    BatchNormGrad, "batch-norm-grad", 5, BatchNorm, [];
    BatchNormInference, "batch-norm-inference", 5, BatchNorm, [];
    BatchNormTraining, "batch-norm-training", 3, BatchNorm, [];
    Bitcast, "bitcast", 1, Plain, [];
    BitcastConvert, "bitcast-convert", 1, Plain, [];
    Broadcast, "broadcast", 1, Dimensions, [];
    Call, "call", var, Call, [];
    Cbrt, "cbrt", 1, Plain, [ELEMENTWISE];
    Ceil, "ceil", 1, Plain, [ELEMENTWISE];
    Cholesky, "cholesky", 1, Cholesky, [];
    Clamp, "clamp", 3, Plain, [ELEMENTWISE];
    CountLeadingZeros, "count-leading-zeros", 1, Plain, [ELEMENTWISE];
    CollectiveBroadcast, "collective-broadcast", var, Collective, [COLLECTIVE];
    CollectivePermute, "collective-permute", var, CollectivePermute, [COLLECTIVE | NO_ASYNC_SUGAR];
    CollectivePermuteDone, "collective-permute-done", 1, Plain, [FIRST_CLASS_DONE];
    CollectivePermuteStart, "collective-permute-start", var, CollectivePermute, [COLLECTIVE | FIRST_CLASS_START];
    CollectiveReduce, "collective-reduce", var, Collective, [COLLECTIVE];
    Compare, "compare", 2, Compare, [ELEMENTWISE];
    Complex, "complex", 2, Plain, [ELEMENTWISE];
    Concatenate, "concatenate", var, Dimensions, [];
    Conditional, "conditional", var, Plain, [];
    Constant, "constant", 0, Constant, [];
    Convert, "convert", 1, Plain, [ELEMENTWISE];
    Convolution, "convolution", var, Convolution, [];
    Copy, "copy", 1, Plain, [NO_ASYNC_SUGAR];
    CopyDone, "copy-done", 1, Plain, [FIRST_CLASS_DONE];
    CopyStart, "copy-start", 1, CopyStart, [FIRST_CLASS_START];
    Cosine, "cosine", 1, Plain, [ELEMENTWISE];
    Cosh, "cosh", 1, Plain, [ELEMENTWISE];
    CustomCall, "custom-call", var, CustomCall, [];
    Divide, "divide", 2, Plain, [ELEMENTWISE];
    Domain, "domain", 1, Domain, [];
    Dot, "dot", 2, Dot, [];
    DynamicReshape, "dynamic-reshape", var, Plain, [];
    DynamicSlice, "dynamic-slice", var, DynamicSlice, [];
    DynamicUpdateSlice, "dynamic-update-slice", var, Plain, [];
    Erf, "erf", 1, Plain, [ELEMENTWISE];
    Exponential, "exponential", 1, Plain, [ELEMENTWISE];
    ExponentialMinusOne, "exponential-minus-one", 1, Plain, [ELEMENTWISE];
    Fft, "fft", 1, Fft, [];
    Floor, "floor", 1, Plain, [ELEMENTWISE];
    Fusion, "fusion", var, Fusion, [];
    Gather, "gather", 2, Gather, [];
    GetDimensionSize, "get-dimension-size", 1, Dimensions, [];
    GetTupleElement, "get-tuple-element", 1, GetTupleElement, [];
    Imag, "imag", 1, Plain, [ELEMENTWISE];
    Infeed, "infeed", 1, Infeed, [SIDE_EFFECT];
    Iota, "iota", 0, Iota, [];
    IsFinite, "is-finite", 1, Plain, [ELEMENTWISE];
    Log, "log", 1, Plain, [ELEMENTWISE];
    LogPlusOne, "log-plus-one", 1, Plain, [ELEMENTWISE];
    Logistic, "logistic", 1, Plain, [ELEMENTWISE];
    Map, "map", var, Dimensions, [ELEMENTWISE];
    Maximum, "maximum", 2, Plain, [ELEMENTWISE];
    Minimum, "minimum", 2, Plain, [ELEMENTWISE];
    Mulhi, "mulhi", 2, Plain, [ELEMENTWISE];
    Multiply, "multiply", 2, Plain, [ELEMENTWISE];
    Negate, "negate", 1, Plain, [ELEMENTWISE];
    Not, "not", 1, Plain, [ELEMENTWISE];
    OptimizationBarrier, "opt-barrier", 1, Plain, [];
    Or, "or", 2, Plain, [ELEMENTWISE];
    Outfeed, "outfeed", 2, Outfeed, [SIDE_EFFECT];
    Pad, "pad", 2, Pad, [];
    Parameter, "parameter", 0, Parameter, [];
    PartitionId, "partition-id", 0, Plain, [];
    PopulationCount, "popcnt", 1, Plain, [ELEMENTWISE];
    Power, "power", 2, Plain, [ELEMENTWISE];
    RaggedAllToAll, "ragged-all-to-all", 6, Collective, [COLLECTIVE];
    RaggedDot, "ragged-dot", 3, Dot, [];
    Real, "real", 1, Plain, [ELEMENTWISE];
    Recv, "recv", 1, SendRecv, [SIDE_EFFECT | FIRST_CLASS_START | NO_ASYNC_SUGAR];
    RecvDone, "recv-done", 1, SendRecv, [SIDE_EFFECT | FIRST_CLASS_DONE];
    Reduce, "reduce", var, Dimensions, [];
    ReducePrecision, "reduce-precision", 1, ReducePrecision, [ELEMENTWISE];
    ReduceScatter, "reduce-scatter", var, Collective, [COLLECTIVE];
    ReduceWindow, "reduce-window", var, Window, [];
    Remainder, "remainder", 2, Plain, [ELEMENTWISE];
    ReplicaId, "replica-id", 0, Plain, [];
    Reshape, "reshape", 1, Plain, [];
    Reverse, "reverse", 1, Dimensions, [];
    Rng, "rng", var, Rng, [SIDE_EFFECT];
    RngBitGenerator, "rng-bit-generator", 1, RngBitGenerator, [];
    RngGetAndUpdateState, "rng-get-and-update-state", 0, RngGetAndUpdateState, [SIDE_EFFECT];
    RoundNearestAfz, "round-nearest-afz", 1, Plain, [ELEMENTWISE];
    RoundNearestEven, "round-nearest-even", 1, Plain, [ELEMENTWISE];
    Rsqrt, "rsqrt", 1, Plain, [ELEMENTWISE];
    ScaledDot, "scaled-dot", 4, Dot, [];
    Scan, "scan", var, Scan, [];
    Scatter, "scatter", var, Scatter, [];
    Select, "select", 3, Plain, [ELEMENTWISE];
    SelectAndScatter, "select-and-scatter", 3, Window, [];
    Send, "send", 2, SendRecv, [SIDE_EFFECT | FIRST_CLASS_START | NO_ASYNC_SUGAR];
    SendDone, "send-done", 1, SendRecv, [SIDE_EFFECT | FIRST_CLASS_DONE];
    SetDimensionSize, "set-dimension-size", 2, Dimensions, [];
    ShiftLeft, "shift-left", 2, Plain, [ELEMENTWISE];
    ShiftRightArithmetic, "shift-right-arithmetic", 2, Plain, [ELEMENTWISE];
    ShiftRightLogical, "shift-right-logical", 2, Plain, [ELEMENTWISE];
    Shuffle, "shuffle", 1, Plain, [];
    Sign, "sign", 1, Plain, [ELEMENTWISE];
    Sine, "sine", 1, Plain, [ELEMENTWISE];
    Sinh, "sinh", 1, Plain, [ELEMENTWISE];
    Slice, "slice", 1, Slice, [];
    Sort, "sort", var, Sort, [];
    Sqrt, "sqrt", 1, Plain, [ELEMENTWISE];
    StochasticConvert, "stochastic-convert", 2, Plain, [ELEMENTWISE];
    Subtract, "subtract", 2, Plain, [ELEMENTWISE];
    Tan, "tan", 1, Plain, [ELEMENTWISE];
    Tanh, "tanh", 1, Plain, [ELEMENTWISE];
    TopK, "topk", 1, TopK, [];
    Transpose, "transpose", 1, Dimensions, [];
    TriangularSolve, "triangular-solve", 2, TriangularSolve, [];
    Tuple, "tuple", var, Plain, [];
    While, "while", 1, Plain, [];
    Xor, "xor", 2, Plain, [ELEMENTWISE];
}

impl Opcode {
    /// Looks an opcode up by its exact text name.
    pub fn from_name(name: &str) -> Option<Opcode> {
        static INDEX: std::sync::OnceLock<NameIndex> = std::sync::OnceLock::new();
        INDEX.get_or_init(NameIndex::new).find(name.as_bytes())
    }

    /// Whether the opcode has `flag`.
    pub fn has(self, flag: Flags) -> bool {
        self.flags().contains(flag)
    }

    /// Whether this is one of the generic `async-start` / `async-update` /
    /// `async-done`.
    pub fn is_generic_async(self) -> bool {
        self.has(Flags::GENERIC_ASYNC)
    }

    /// For a first-class start, the done that must finish it, and vice versa.
    pub fn first_class_partner(self) -> Option<Opcode> {
        Some(match self {
            Opcode::AllGatherStart => Opcode::AllGatherDone,
            Opcode::AllGatherDone => Opcode::AllGatherStart,
            Opcode::AllReduceStart => Opcode::AllReduceDone,
            Opcode::AllReduceDone => Opcode::AllReduceStart,
            Opcode::CollectivePermuteStart => Opcode::CollectivePermuteDone,
            Opcode::CollectivePermuteDone => Opcode::CollectivePermuteStart,
            Opcode::CopyStart => Opcode::CopyDone,
            Opcode::CopyDone => Opcode::CopyStart,
            Opcode::Send => Opcode::SendDone,
            Opcode::SendDone => Opcode::Send,
            Opcode::Recv => Opcode::RecvDone,
            Opcode::RecvDone => Opcode::Recv,
            _ => return None,
        })
    }

    /// For a first-class start or done, the synchronous opcode it performs
    /// (`all-reduce-start` → `all-reduce`; `send` → itself).
    pub fn first_class_sync_form(self) -> Option<Opcode> {
        Some(match self {
            Opcode::AllGatherStart | Opcode::AllGatherDone => Opcode::AllGather,
            Opcode::AllReduceStart | Opcode::AllReduceDone => Opcode::AllReduce,
            Opcode::CollectivePermuteStart | Opcode::CollectivePermuteDone => {
                Opcode::CollectivePermute
            }
            Opcode::CopyStart | Opcode::CopyDone => Opcode::Copy,
            Opcode::Send | Opcode::SendDone => Opcode::Send,
            Opcode::Recv | Opcode::RecvDone => Opcode::Recv,
            _ => return None,
        })
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The opcodes by name, for [`Opcode::from_name`], which the parser calls for
/// every instruction. A name is keyed by its length and its first and last
/// eight bytes (the same word twice, zero-padded, for short names); the keys
/// sit in an open-addressing table at most half full, so a lookup reads a
/// slot or two and compares two words, and only names longer than sixteen
/// bytes (whose middle the words miss) are compared in full, in place. A
/// hash map keyed by the string hashed every byte and called `memcmp`: about
/// five times the instructions.
struct NameIndex {
    /// Slot → 1 + the opcode's position in [`Opcode::ALL`]; 0 when empty.
    slots: Vec<u8>,
    /// Per opcode, in [`Opcode::ALL`] order: its name's key.
    keys: Vec<NameWords>,
}

/// The words of a name that a lookup compares.
#[derive(Clone, Copy, PartialEq, Eq)]
struct NameWords {
    head: u64,
    tail: u64,
    len: usize,
}

impl NameWords {
    fn of(name: &[u8]) -> NameWords {
        let len = name.len();
        if let (Some(head), Some(tail)) = (name.first_chunk::<8>(), name.last_chunk::<8>()) {
            return NameWords {
                head: u64::from_le_bytes(*head),
                tail: u64::from_le_bytes(*tail),
                len,
            };
        }
        let word = short_word(name);
        NameWords {
            head: word,
            tail: word,
            len,
        }
    }

    fn slot(self, mask: usize) -> usize {
        let mixed = (self.head ^ self.tail.rotate_left(29) ^ self.len as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (mixed >> 40) as usize & mask
    }
}

/// The bytes of a name shorter than eight bytes as a little-endian word,
/// zero-padded: read as two overlapping loads (whose shared bytes agree)
/// rather than copied byte by byte.
fn short_word(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let (low, high, high_at) = if let (Some(low), Some(high)) =
        (bytes.first_chunk::<4>(), bytes.last_chunk::<4>())
    {
        (
            u64::from(u32::from_le_bytes(*low)),
            u64::from(u32::from_le_bytes(*high)),
            len - 4,
        )
    } else if let (Some(low), Some(high)) = (bytes.first_chunk::<2>(), bytes.last_chunk::<2>()) {
        (
            u64::from(u16::from_le_bytes(*low)),
            u64::from(u16::from_le_bytes(*high)),
            len - 2,
        )
    } else {
        let byte = bytes.first().map_or(0, |&b| u64::from(b));
        (byte, byte, 0)
    };
    low | high << (8 * high_at)
}

impl NameIndex {
    fn new() -> NameIndex {
        assert!(
            Opcode::ALL.len() < usize::from(u8::MAX),
            "slots hold a byte"
        );
        let size = (Opcode::ALL.len() * 2).next_power_of_two();
        let keys: Vec<NameWords> = Opcode::ALL
            .iter()
            .map(|op| NameWords::of(op.name().as_bytes()))
            .collect();
        let mut slots = vec![0u8; size];
        for (position, key) in keys.iter().enumerate() {
            let mut slot = key.slot(size - 1);
            while slots[slot] != 0 {
                slot = (slot + 1) & (size - 1);
            }
            slots[slot] = position as u8 + 1;
        }
        NameIndex { slots, keys }
    }

    fn find(&self, name: &[u8]) -> Option<Opcode> {
        let key = NameWords::of(name);
        let mask = self.slots.len() - 1;
        let mut slot = key.slot(mask);
        loop {
            let position = usize::from(self.slots[slot]).checked_sub(1)?;
            let op = Opcode::ALL[position];
            if self.keys[position] == key
                && (key.len <= 16
                    || crate::text::fast::byte_scan::same_bytes(op.name().as_bytes(), name))
            {
                return Some(op);
            }
            slot = (slot + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_sorted_lookup_works() {
        let mut names: Vec<&str> = Opcode::ALL.iter().map(|op| op.name()).collect();
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "duplicate opcode name");
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op));
        }
        assert_eq!(Opcode::from_name("all-reduce-update"), None);
    }

    #[test]
    fn short_words_are_the_padded_bytes() {
        for len in 0..8 {
            let bytes: Vec<u8> = (1..=len as u8).map(|b| b * 17).collect();
            let mut padded = [0u8; 8];
            padded[..len].copy_from_slice(&bytes);
            assert_eq!(
                super::short_word(&bytes),
                u64::from_le_bytes(padded),
                "{len}"
            );
        }
    }

    #[test]
    fn names_that_only_look_like_opcodes_are_none() {
        let mut near_misses = vec![
            String::new(),
            "a".to_string(),
            "ad".to_string(),
            "adds".to_string(),
            "Add".to_string(),
            "get-tuple-elemenT".to_string(),
            // The same length, first and last eight bytes as an opcode of more
            // than sixteen bytes, with a different middle.
            "get-tuplX-element".to_string(),
            "dynamic-updatX-slice".to_string(),
        ];
        for op in Opcode::ALL {
            let name = op.name();
            near_misses.push(format!("{name}x"));
            near_misses.push(format!("x{name}"));
            near_misses.push(name[..name.len() - 1].to_string());
            near_misses.push(name.to_uppercase());
        }
        for name in near_misses {
            let found = Opcode::from_name(&name);
            assert!(
                found.is_none() || found.map(Opcode::name) == Some(name.as_str()),
                "{name:?} found {found:?}"
            );
        }
    }

    #[test]
    fn first_class_pairs_are_symmetric() {
        for &op in Opcode::ALL {
            if let Some(partner) = op.first_class_partner() {
                assert_eq!(partner.first_class_partner(), Some(op));
                assert!(
                    op.has(Flags::FIRST_CLASS_START) || op.has(Flags::FIRST_CLASS_DONE),
                    "{op}"
                );
            }
        }
    }

    #[test]
    fn sugar_refusal_list_matches_xla() {
        let refused: Vec<&str> = Opcode::ALL
            .iter()
            .filter(|op| op.has(Flags::NO_ASYNC_SUGAR))
            .map(|op| op.name())
            .collect();
        assert_eq!(
            refused,
            [
                "all-gather",
                "all-reduce",
                "collective-permute",
                "copy",
                "recv",
                "send"
            ]
        );
    }
}

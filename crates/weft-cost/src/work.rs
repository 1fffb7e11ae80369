//! What an instruction asks of a device, counted from its shapes and
//! attributes: the analogue of XLA's `HloCostAnalysis`.
//!
//! The counts are deterministic (a function of the module alone, never of
//! the values or of the machine) so a virtual clock built on them gives the
//! same step time on every run. They are split by kind of work because a
//! device does them at very different speeds:
//!
//! - **matrix** operations: the multiply-adds of `dot` and `convolution`
//!   (two per product, as XLA counts), which run on a tuned kernel; beside
//!   them, each product's operations divided by its smallest dimension
//!   (m, n or k of the GEMM), by which a profile charges a thin product
//!   for running below its kernel's peak (Hockney's n½,
//!   [`crate::Profile::matrix_half_size`]);
//! - **vector** operations: one per element of an elementwise op, a
//!   reduction's combine, a sort's comparisons, a scatter's combines;
//! - **transcendentals**: elements of `exp`, `log`, `tanh`, `sqrt`, … (XLA's
//!   list), which cost tens of vector operations each;
//! - **bytes**: what a computing instruction reads and writes in memory
//!   (operands plus result);
//! - **moved** bytes: the same for an instruction that only moves data
//!   (broadcast, transpose, slice, concatenate, pad, reverse, gather,
//!   scatter, dynamic slices and updates, iota; an in-place update counts
//!   only the part it touches). A device with a memory system moves them at
//!   its memory bandwidth; a CPU's data-movement kernels, which follow
//!   strides and indices rather than stream, are slower than its streaming
//!   ones, and a profile may say so.
//!
//! Instructions that move no data on a real device — parameters, constants,
//! tuples and their elements, bitcasts and reshapes, control flow (whose
//! bodies are counted instruction by instruction as they run), async
//! wrappers and collectives (which the link model times) — are free: no
//! work and no launch. A fusion is one kernel: the operations of its fused
//! computation, the bytes of its operands and result only, one launch.
//!
//! Operations are counted per **number class** ([`NumberClass`]) because a
//! device's f64 rate is not its f32 rate; a complex multiply-add counts as
//! four real ones of its component type.

use weft_ir::attrs::Attrs;
use weft_ir::element_type::ElementClass;
use weft_ir::opcode::Flags;
use weft_ir::{ElementType, Instr, Module, Opcode, Shape, ShapeData};

/// The families of numbers a device computes at different speeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NumberClass {
    /// 64-bit floats (and complex numbers made of them).
    F64,
    /// 32-bit floats (and complex numbers made of them).
    F32,
    /// 16-bit and narrower floats (f16, bf16, the f8/f6/f4 families).
    F16,
    /// Integers and `pred`.
    Integer,
}

impl NumberClass {
    /// Every class, in [`NumberClass::index`] order.
    pub const ALL: [NumberClass; 4] = [
        NumberClass::F64,
        NumberClass::F32,
        NumberClass::F16,
        NumberClass::Integer,
    ];

    /// The class of `elem` (a complex type is its component's).
    pub fn of(elem: ElementType) -> NumberClass {
        match elem.class() {
            ElementClass::Float | ElementClass::Complex => match elem.bit_width() {
                128 | 64 if elem.class() == ElementClass::Complex => {
                    if elem.bit_width() == 128 {
                        NumberClass::F64
                    } else {
                        NumberClass::F32
                    }
                }
                64 => NumberClass::F64,
                32 => NumberClass::F32,
                _ => NumberClass::F16,
            },
            _ => NumberClass::Integer,
        }
    }

    /// Its position in per-class arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name profiles use for it.
    pub fn name(self) -> &'static str {
        match self {
            NumberClass::F64 => "f64",
            NumberClass::F32 => "f32",
            NumberClass::F16 => "f16",
            NumberClass::Integer => "integer",
        }
    }
}

/// The work of one instruction (or of several, added up).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Matrix-unit operations (multiply and add counted apart), per
    /// [`NumberClass`].
    pub matrix: [f64; 4],
    /// Each product's matrix operations divided by its smallest dimension
    /// (m, n or k), per [`NumberClass`]: what a kernel below its peak on a
    /// thin product costs on top, in units of its half-peak size.
    pub matrix_over_smallest: [f64; 4],
    /// Vector operations, per [`NumberClass`].
    pub vector: [f64; 4],
    /// Transcendental evaluations.
    pub transcendentals: f64,
    /// Bytes read and written by computing instructions.
    pub bytes: f64,
    /// Bytes read and written by instructions that only move data.
    pub moved: f64,
    /// Kernel launches: 1 for an instruction that does any work.
    pub launches: f64,
}

impl Work {
    /// No work at all.
    pub const FREE: Work = Work {
        matrix: [0.0; 4],
        matrix_over_smallest: [0.0; 4],
        vector: [0.0; 4],
        transcendentals: 0.0,
        bytes: 0.0,
        moved: 0.0,
        launches: 0.0,
    };

    /// Whether the instruction costs nothing.
    pub fn is_free(&self) -> bool {
        *self == Work::FREE
    }

    /// The sum of two amounts of work.
    pub fn plus(mut self, other: &Work) -> Work {
        for class in 0..4 {
            self.matrix[class] += other.matrix[class];
            self.matrix_over_smallest[class] += other.matrix_over_smallest[class];
            self.vector[class] += other.vector[class];
        }
        self.transcendentals += other.transcendentals;
        self.bytes += other.bytes;
        self.moved += other.moved;
        self.launches += other.launches;
        self
    }

    /// One member's share of reducing `contributions` arrays of `elements`
    /// elements of `elem` into one (an all-reduce's, reduce-scatter's or
    /// collective-reduce's combine): as in a ring all-reduce, and as weft's
    /// members share the fold, each member reduces `1/n` of the elements
    /// over the `n` contributions — `(n−1)/n · elements` vector operations,
    /// reading `n` slices of `1/n` and writing one.
    pub fn reduction(elem: ElementType, elements: f64, contributions: usize) -> Work {
        let members = contributions.max(1) as f64;
        let mut work = Work::FREE;
        work.vector[NumberClass::of(elem).index()] =
            elements * (members - 1.0) / members * complex_factor(elem);
        work.bytes = elements * element_bytes(elem) * (members + 1.0) / members;
        work.launches = 1.0;
        work
    }
}

/// The work of `instr` (see the module docs for what counts).
pub fn of(module: &Module, instr: Instr) -> Work {
    let data = module.instr(instr);
    let opcode = data.opcode;
    if is_free(opcode) {
        return Work::FREE;
    }
    let result = module.shape_of(instr);
    let operand_bytes: f64 = data
        .operands
        .iter()
        .map(|&operand| shape_bytes(module, module.shape_of(operand)))
        .sum();
    let result_bytes = shape_bytes(module, result);
    let mut work = Work {
        bytes: operand_bytes + result_bytes,
        launches: 1.0,
        ..Work::FREE
    };
    if opcode == Opcode::Fusion {
        // One kernel: the fused operations, and only the fusion's own
        // operands and result touch memory.
        if let Some(&fused) = data.callees.first() {
            let inner = module
                .comp(fused)
                .body()
                .iter()
                .fold(Work::FREE, |sum, &i| {
                    let mut inner = of(module, i);
                    inner.bytes = 0.0;
                    inner.moved = 0.0;
                    inner.launches = 0.0;
                    sum.plus(&inner)
                });
            work.matrix = inner.matrix;
            work.matrix_over_smallest = inner.matrix_over_smallest;
            work.vector = inner.vector;
            work.transcendentals = inner.transcendentals;
        }
        return work;
    }
    let result_array = first_array(module, result);
    let (class, factor, elements) = match result_array {
        Some((elem, count)) => (NumberClass::of(elem), complex_factor(elem), count),
        None => (NumberClass::Integer, 1.0, 0.0),
    };
    let operand_array = |index: usize| {
        data.operands
            .get(index)
            .and_then(|&o| first_array(module, module.shape_of(o)))
    };
    match opcode {
        _ if data.opcode.has(Flags::ELEMENTWISE) => {
            // A comparison computes in its operands' type.
            let (class, factor) = match (opcode, operand_array(0)) {
                (Opcode::Compare, Some((elem, _))) => (NumberClass::of(elem), complex_factor(elem)),
                _ => (class, factor),
            };
            let per_element = match opcode {
                Opcode::Map => data
                    .callees
                    .first()
                    .map_or(1.0, |&c| module.comp(c).body().len().max(1) as f64),
                _ => 1.0,
            };
            work.vector[class.index()] = elements * per_element * factor;
            if is_transcendental(opcode) {
                work.transcendentals = elements * factor;
            }
        }
        Opcode::Dot | Opcode::RaggedDot | Opcode::ScaledDot => {
            let (contracted, batch) = match (&data.attrs, operand_array(0)) {
                (Attrs::Dot(dot), Some(_)) => {
                    let lhs = module.shapes.as_array(module.shape_of(data.operands[0]));
                    lhs.map_or((1.0, 1.0), |lhs| {
                        let product = |dims: &[i64]| -> f64 {
                            dims.iter().map(|&d| dimension(&lhs.dims, d)).product()
                        };
                        (product(&dot.lhs_contracting), product(&dot.lhs_batch))
                    })
                }
                _ => (1.0, 1.0),
            };
            let operations = 2.0 * elements * contracted * factor;
            work.matrix[class.index()] = operations;
            // The GEMM of each batch: m × k times k × n.
            let rows =
                operand_array(0).map_or(1.0, |(_, count)| count) / (batch * contracted).max(1.0);
            let columns =
                operand_array(1).map_or(1.0, |(_, count)| count) / (batch * contracted).max(1.0);
            let smallest = rows.min(columns).min(contracted).max(1.0);
            work.matrix_over_smallest[class.index()] = operations / smallest;
        }
        Opcode::Convolution => {
            // The kernel's elements and its output features.
            let (kernel_elements, output_features) = match &data.attrs {
                Attrs::Convolution(conv) => data
                    .operands
                    .get(1)
                    .and_then(|&k| module.shapes.as_array(module.shape_of(k)))
                    .map_or((1.0, 1.0), |kernel| {
                        let all: f64 = kernel.dims.iter().map(|&d| d.max(0) as f64).product();
                        let features =
                            dimension(&kernel.dims, conv.dims.kernel_output_feature).max(1.0);
                        (all, features)
                    }),
                _ => (1.0, 1.0),
            };
            let per_output = kernel_elements / output_features;
            let operations = 2.0 * elements * per_output * factor;
            work.matrix[class.index()] = operations;
            // As a GEMM: output positions × (window · input features) times
            // (window · input features) × output features.
            let positions = elements / output_features;
            let smallest = positions.min(output_features).min(per_output).max(1.0);
            work.matrix_over_smallest[class.index()] = operations / smallest;
        }
        Opcode::Reduce => {
            let inputs = data.operands.len() / 2;
            let read = operand_array(0).map_or(0.0, |(_, count)| count);
            work.vector[class.index()] = read * inputs.max(1) as f64 * factor;
        }
        Opcode::ReduceWindow => {
            let window = window_size(&data.attrs);
            work.vector[class.index()] = elements * window * factor;
        }
        Opcode::SelectAndScatter => {
            let window = window_size(&data.attrs);
            let source = operand_array(1).map_or(0.0, |(_, count)| count);
            work.vector[class.index()] = 2.0 * source * window * factor;
        }
        Opcode::Sort | Opcode::TopK => {
            let dimension_size = match (&data.attrs, operand_array(0)) {
                (Attrs::Sort { dimension, .. }, Some(_)) => module
                    .shapes
                    .as_array(module.shape_of(data.operands[0]))
                    .map_or(1.0, |a| dimension_of(&a.dims, *dimension)),
                _ => module
                    .shapes
                    .as_array(module.shape_of(data.operands[0]))
                    .and_then(|a| a.dims.last().copied())
                    .map_or(1.0, |d| d.max(1) as f64),
            };
            let compared = operand_array(0).map_or(0.0, |(_, count)| count);
            work.vector[class.index()] = compared * dimension_size.max(2.0).log2();
        }
        Opcode::Scatter => {
            // In place: the updates are read and the touched elements
            // read and written.
            let updates = data.operands.len().saturating_sub(1) / 2;
            let update = data
                .operands
                .last()
                .map_or(0.0, |&u| shape_bytes(module, module.shape_of(u)));
            let update_elements = operand_array(data.operands.len().saturating_sub(1))
                .map_or(0.0, |(_, count)| count);
            let indices = data
                .operands
                .get(updates)
                .map_or(0.0, |&i| shape_bytes(module, module.shape_of(i)));
            work.bytes = 3.0 * update * updates.max(1) as f64 + indices;
            work.vector[class.index()] = update_elements * updates.max(1) as f64 * factor;
        }
        Opcode::DynamicUpdateSlice => {
            // In place: only the update is read and written.
            let update = data
                .operands
                .get(1)
                .map_or(0.0, |&u| shape_bytes(module, module.shape_of(u)));
            work.bytes = 2.0 * update;
        }
        Opcode::DynamicSlice | Opcode::Gather | Opcode::Slice => {
            // Only what is taken is read.
            let indices: f64 = data
                .operands
                .iter()
                .skip(1)
                .map(|&i| shape_bytes(module, module.shape_of(i)))
                .sum();
            work.bytes = 2.0 * result_bytes + indices;
        }
        Opcode::Fft => {
            let length = result_array
                .and_then(|_| module.shapes.as_array(result))
                .and_then(|a| a.dims.last().copied())
                .map_or(1.0, |d| d.max(2) as f64);
            work.vector[class.index()] = 5.0 * elements * length.log2();
        }
        Opcode::Cholesky => {
            let n = last_dimension(module, result);
            work.matrix[class.index()] = elements * n / 3.0 * factor;
        }
        Opcode::TriangularSolve => {
            let n = operand_array(0)
                .and_then(|_| module.shapes.as_array(module.shape_of(data.operands[0])))
                .and_then(|a| a.dims.last().copied())
                .map_or(1.0, |d| d.max(1) as f64);
            work.matrix[class.index()] = elements * n * factor;
        }
        Opcode::BatchNormTraining | Opcode::BatchNormInference | Opcode::BatchNormGrad => {
            let read = operand_array(0).map_or(0.0, |(_, count)| count);
            work.vector[class.index()] = 4.0 * read * factor;
            work.transcendentals = read / 16.0;
        }
        Opcode::RngBitGenerator | Opcode::Rng => {
            work.vector[NumberClass::Integer.index()] = 4.0 * elements;
        }
        _ => {}
    }
    if moves_data(opcode) {
        work.moved = work.bytes;
        work.bytes = 0.0;
    }
    work
}

/// Opcodes that only move data (see the module docs).
fn moves_data(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        Broadcast
            | Transpose
            | Copy
            | Concatenate
            | Slice
            | Pad
            | Reverse
            | Gather
            | DynamicSlice
            | DynamicUpdateSlice
            | Iota
    )
}

/// Opcodes that cost nothing themselves (see the module docs).
fn is_free(opcode: Opcode) -> bool {
    use Opcode::*;
    opcode.has(Flags::COLLECTIVE)
        || opcode.has(Flags::FIRST_CLASS_START)
        || opcode.has(Flags::FIRST_CLASS_DONE)
        || opcode.is_generic_async()
        || matches!(
            opcode,
            Parameter
                | Constant
                | GetTupleElement
                | Tuple
                | Bitcast
                | Reshape
                | AfterAll
                | AddDependency
                | PartitionId
                | ReplicaId
                | OptimizationBarrier
                | Domain
                | GetDimensionSize
                | SetDimensionSize
                | While
                | Call
                | Conditional
                | Infeed
                | Outfeed
                | RngGetAndUpdateState
        )
}

/// XLA's transcendental opcodes.
fn is_transcendental(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        Exponential
            | ExponentialMinusOne
            | Log
            | LogPlusOne
            | Logistic
            | Power
            | Rsqrt
            | Sqrt
            | Cbrt
            | Tanh
            | Sine
            | Cosine
            | Tan
            | Atan2
            | Erf
            | Asin
            | Acos
            | Atan
            | Sinh
            | Cosh
            | Asinh
            | Acosh
            | Atanh
    )
}

/// Real operations per operation on an element of `elem`: a complex
/// multiply-add is four real ones.
fn complex_factor(elem: ElementType) -> f64 {
    if elem.class() == ElementClass::Complex {
        4.0
    } else {
        1.0
    }
}

/// The bytes one element of `elem` takes (sub-byte types packed).
fn element_bytes(elem: ElementType) -> f64 {
    f64::from(elem.bit_width()) / 8.0
}

/// The bytes a value of `shape` takes (a tuple, its elements').
pub fn shape_bytes(module: &Module, shape: Shape) -> f64 {
    match module.shapes.get(shape) {
        ShapeData::Array(array) => element_count(&array.dims) * element_bytes(array.elem),
        ShapeData::Tuple(elements) => elements.iter().map(|&e| shape_bytes(module, e)).sum(),
        ShapeData::Buffer(inner) => shape_bytes(module, *inner),
        ShapeData::Token | ShapeData::Opaque => 0.0,
    }
}

/// The element type and element count of `shape`, or of a tuple's first
/// array element (a variadic reduce's or sort's results share one count).
fn first_array(module: &Module, shape: Shape) -> Option<(ElementType, f64)> {
    match module.shapes.get(shape) {
        ShapeData::Array(array) => Some((array.elem, element_count(&array.dims))),
        ShapeData::Tuple(elements) => elements.iter().find_map(|&e| first_array(module, e)),
        ShapeData::Buffer(inner) => first_array(module, *inner),
        ShapeData::Token | ShapeData::Opaque => None,
    }
}

/// The number of elements of an array with `dims`; a dynamic dimension
/// counts at its bound, an unbounded one as 1.
fn element_count(dims: &[i64]) -> f64 {
    dims.iter().map(|&d| d.max(1) as f64).product()
}

/// The size of dimension `d` of `dims` (1 when out of range).
fn dimension(dims: &[i64], d: i64) -> f64 {
    dimension_of(dims, d)
}

fn dimension_of(dims: &[i64], d: i64) -> f64 {
    usize::try_from(d)
        .ok()
        .and_then(|d| dims.get(d))
        .map_or(1.0, |&size| size.max(1) as f64)
}

/// The last dimension of `shape` (1 for a scalar).
fn last_dimension(module: &Module, shape: Shape) -> f64 {
    module
        .shapes
        .as_array(shape)
        .and_then(|a| a.dims.last().copied())
        .map_or(1.0, |d| d.max(1) as f64)
}

/// The number of elements a window covers.
fn window_size(attrs: &Attrs) -> f64 {
    match attrs {
        Attrs::Window(Some(window)) => window.dims.iter().map(|d| d.size.max(1) as f64).product(),
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> Module {
        weft_ir::text::parse(text).expect("parses")
    }

    fn root_work(text: &str) -> Work {
        let module = module(text);
        let entry = module.entry.expect("an entry");
        of(&module, module.comp(entry).root().expect("a root"))
    }

    #[test]
    fn a_dot_counts_two_operations_per_product() {
        let work = root_work(
            "HloModule m\nENTRY e {\n  a = f32[8,16] parameter(0)\n  b = f32[16,4] parameter(1)\n  ROOT d = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
        );
        assert_eq!(
            work.matrix[NumberClass::F32.index()],
            2.0 * 8.0 * 4.0 * 16.0
        );
        assert_eq!(work.bytes, 4.0 * (8.0 * 16.0 + 16.0 * 4.0 + 8.0 * 4.0));
        assert_eq!(work.launches, 1.0);
    }

    #[test]
    fn a_product_counts_its_operations_over_its_smallest_dimension() {
        // A batch of 3 products of 8 × 16 by 16 × 4: the smallest is n = 4.
        let work = root_work(
            "HloModule m\nENTRY e {\n  a = f32[3,8,16] parameter(0)\n  b = f32[3,16,4] parameter(1)\n  ROOT d = f32[3,8,4] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}\n}\n",
        );
        let operations = 2.0 * 3.0 * 8.0 * 4.0 * 16.0;
        assert_eq!(work.matrix[NumberClass::F32.index()], operations);
        assert_eq!(
            work.matrix_over_smallest[NumberClass::F32.index()],
            operations / 4.0
        );
        // Contracting 2 is the smallest here.
        let work = root_work(
            "HloModule m\nENTRY e {\n  a = f32[64,2] parameter(0)\n  b = f32[2,32] parameter(1)\n  ROOT d = f32[64,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
        );
        let operations = 2.0 * 64.0 * 32.0 * 2.0;
        assert_eq!(
            work.matrix_over_smallest[NumberClass::F32.index()],
            operations / 2.0
        );
    }

    #[test]
    fn elementwise_ops_count_one_per_element_and_transcendentals_apart() {
        let work = root_work(
            "HloModule m\nENTRY e {\n  a = f64[10] parameter(0)\n  ROOT t = f64[10] tanh(a)\n}\n",
        );
        assert_eq!(work.vector[NumberClass::F64.index()], 10.0);
        assert_eq!(work.transcendentals, 10.0);
        assert_eq!(work.bytes, 160.0);
    }

    #[test]
    fn a_fusion_is_one_kernel_touching_only_its_operands_and_result() {
        let work = root_work(
            "HloModule m\nf {\n  p = f32[100] parameter(0)\n  e = f32[100] exponential(p)\n  ROOT m = f32[100] multiply(e, e)\n}\nENTRY e {\n  a = f32[100] parameter(0)\n  ROOT r = f32[100] fusion(a), kind=kLoop, calls=f\n}\n",
        );
        assert_eq!(work.vector[NumberClass::F32.index()], 200.0);
        assert_eq!(work.transcendentals, 100.0);
        assert_eq!(work.bytes, 800.0);
        assert_eq!(work.launches, 1.0);
    }

    #[test]
    fn bookkeeping_and_collectives_are_free() {
        let work = root_work(
            "HloModule m\nsum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  a = f32[64] parameter(0)\n  ROOT r = f32[64] all-reduce(a), to_apply=sum\n}\n",
        );
        assert!(work.is_free());
    }

    #[test]
    fn in_place_updates_touch_only_the_update() {
        let work = root_work(
            "HloModule m\nENTRY e {\n  a = f32[1000] parameter(0)\n  u = f32[10] parameter(1)\n  i = s32[] parameter(2)\n  ROOT d = f32[1000] dynamic-update-slice(a, u, i)\n}\n",
        );
        assert_eq!(work.moved, 80.0);
        assert_eq!(work.bytes, 0.0);
    }

    #[test]
    fn a_member_reduces_its_share() {
        let work = Work::reduction(ElementType::F32, 800.0, 8);
        assert_eq!(work.vector[NumberClass::F32.index()], 700.0);
        assert_eq!(work.bytes, 800.0 * 4.0 * 9.0 / 8.0);
    }

    #[test]
    fn classes_follow_the_component_type() {
        assert_eq!(NumberClass::of(ElementType::C128), NumberClass::F64);
        assert_eq!(NumberClass::of(ElementType::C64), NumberClass::F32);
        assert_eq!(NumberClass::of(ElementType::Bf16), NumberClass::F16);
        assert_eq!(NumberClass::of(ElementType::S8), NumberClass::Integer);
        assert_eq!(NumberClass::of(ElementType::Pred), NumberClass::Integer);
    }
}

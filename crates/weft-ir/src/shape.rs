//! Shapes: arrays (element type, dimensions, dynamic dimensions, layout), tuples,
//! tokens, opaque values and explicit buffers.
//!
//! Shapes are interned in the module's [`ShapeTable`]: a [`Shape`] handle names one
//! structurally unique [`ShapeData`], so comparing two shapes (layouts included) is
//! comparing two integers. Interned data never changes.
//!
//! Invariants:
//! - an array's `dims`, and its `dynamic` flags when present, have one entry per
//!   dimension; `dynamic` is empty when no dimension is dynamic;
//! - an unbounded dynamic dimension (`?`) has size [`UNBOUNDED`]; a bounded one
//!   (`<=N`) has size `N` and its dynamic flag set;
//! - a layout, when present, lists each dimension once in `minor_to_major`
//!   (the verifier checks this; the parser only checks the count).

use std::hash::{Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use crate::element_type::ElementType;

crate::entity!(
    /// An interned shape; see [`ShapeTable`].
    Shape,
    "shape"
);

/// The size of an unbounded dynamic dimension (`?` in text).
pub const UNBOUNDED: i64 = i64::MIN;

/// The tile dimension that combines dimensions (`*` in text).
pub const COMBINE_DIMENSION: i64 = i64::MIN;

/// The data behind a [`Shape`] handle.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ShapeData {
    /// A dense array of `elem`.
    Array(ArrayShape),
    /// A tuple of shapes; `()` is the empty tuple.
    Tuple(Box<[Shape]>),
    /// `token[]`.
    Token,
    /// `opaque[]`.
    Opaque,
    /// `b(shape)`: an explicit buffer holding a value of the inner shape.
    Buffer(Shape),
}

/// An array shape.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ArrayShape {
    /// The element type.
    pub elem: ElementType,
    /// The size of each dimension ([`UNBOUNDED`] for `?`).
    pub dims: Box<[i64]>,
    /// Per dimension, whether it is dynamic; empty when none is.
    pub dynamic: Box<[bool]>,
    /// The layout, if one was given or filled in.
    pub layout: Option<Box<Layout>>,
}

impl ArrayShape {
    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Whether dimension `d` is dynamic (bounded or unbounded).
    pub fn is_dynamic(&self, d: usize) -> bool {
        self.dynamic.get(d).copied().unwrap_or(false)
    }

    /// The number of elements, or `None` if a dimension is unbounded or the size
    /// overflows ([`crate::size::element_count`]).
    pub fn element_count(&self) -> Option<i64> {
        crate::size::element_count(self.elem, &self.dims)
            .ok()
            .map(crate::size::Size::as_i64)
    }

    /// XLA's `ValidateShape` ([`crate::size::validate`]): dimensions are
    /// non-negative or unbounded and the size in bytes fits in `i64`.
    pub fn validate(&self) -> Result<(), crate::size::SizeError> {
        crate::size::validate(self.elem, &self.dims).map_err(|error| self.named(error))
    }

    /// The bytes a value of this shape takes ([`crate::size::byte_size`]): an
    /// error when a dimension is unbounded or the size overflows.
    pub fn byte_size(&self) -> Result<crate::size::Size, crate::size::SizeError> {
        crate::size::byte_size(self.elem, &self.dims).map_err(|error| self.named(error))
    }

    /// `error` naming this shape with its bounded dimensions as `<=N`.
    fn named(&self, mut error: crate::size::SizeError) -> crate::size::SizeError {
        let dims: Vec<String> = (0..self.rank())
            .map(|d| match self.dims[d] {
                UNBOUNDED => "?".to_string(),
                size if self.is_dynamic(d) => format!("<={size}"),
                size => size.to_string(),
            })
            .collect();
        error.shape = format!("{}[{}]", self.elem.name(), dims.join(","));
        error
    }
}

/// A dimension's level type in a sparse layout (`D(...)`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct DimLevel {
    /// The storage kind of the dimension.
    pub kind: DimLevelKind,
    /// `false` when written with `+`.
    pub unique: bool,
    /// `false` when written with `~`.
    pub ordered: bool,
}

/// The storage kind of one dimension of a sparse layout.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DimLevelKind {
    /// `D`.
    Dense,
    /// `C`.
    Compressed,
    /// `S`.
    Singleton,
    /// `H`.
    LooseCompressed,
}

impl DimLevelKind {
    /// The letter used in text.
    pub fn letter(self) -> char {
        match self {
            DimLevelKind::Dense => 'D',
            DimLevelKind::Compressed => 'C',
            DimLevelKind::Singleton => 'S',
            DimLevelKind::LooseCompressed => 'H',
        }
    }
}

/// One `SC(dim:index,…)` split configuration.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SplitConfig {
    /// The dimension that is split.
    pub dimension: i64,
    /// Where it is split.
    pub indices: Vec<i64>,
}

/// A layout: the physical order of dimensions plus the attributes XLA attaches after
/// the colon (`{1,0:T(8,128)(2,1)S(1)}`). Every field defaults to "absent".
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Layout {
    /// Dimension numbers from most minor to most major.
    pub minor_to_major: Vec<i64>,
    /// `D(...)`: sparse dimension level types.
    pub dim_levels: Vec<DimLevel>,
    /// `T(...)(...)`: tiles, outermost first; [`COMBINE_DIMENSION`] stands for `*`.
    pub tiles: Vec<Vec<i64>>,
    /// `L(n)`: tail padding alignment in elements (absent when 1).
    pub tail_padding_alignment: Option<i64>,
    /// `#(type)`: the index type of a sparse layout.
    pub index_type: Option<ElementType>,
    /// `*(type)`: the pointer type of a sparse layout.
    pub pointer_type: Option<ElementType>,
    /// `E(bits)`: element size in bits when packed.
    pub element_size_bits: Option<i64>,
    /// `S(n)`: the memory space.
    pub memory_space: Option<i64>,
    /// `SC(...)`: split configurations.
    pub split_configs: Vec<SplitConfig>,
    /// `P(shape)`: the physical shape.
    pub physical_shape: Option<Shape>,
    /// `M(n)`: dynamic shape metadata prefix bytes.
    pub dynamic_metadata_prefix_bytes: Option<i64>,
}

impl Layout {
    /// The default (descending, row-major) layout for `rank` dimensions.
    pub fn default_for_rank(rank: usize) -> Layout {
        Layout {
            minor_to_major: (0..rank as i64).rev().collect(),
            ..Layout::default()
        }
    }

    /// Whether this layout has anything besides `minor_to_major`.
    pub fn has_attributes(&self) -> bool {
        !self.dim_levels.is_empty()
            || !self.tiles.is_empty()
            || self.tail_padding_alignment.is_some()
            || self.index_type.is_some()
            || self.pointer_type.is_some()
            || self.element_size_bits.is_some()
            || self.memory_space.is_some()
            || !self.split_configs.is_empty()
            || self.physical_shape.is_some()
            || self.dynamic_metadata_prefix_bytes.is_some()
    }
}

/// How many levels a shape may nest in HLO text, itself included: `f32[]`
/// is one level, `(f32[])` two, `((f32[]), s32[])` three (a layout's `P(…)`
/// physical shape and a `b(…)` buffer count as well). weft's HLO parser
/// reads shapes, like everything it reads by recursion, this deep, so the
/// verifier refuses a module whose shapes nest deeper: weft would write text
/// it cannot read back. XLA sets no limit; real programs nest tuples a few
/// levels deep.
pub const MAX_SHAPE_DEPTH: u32 = crate::text::parser::MAX_DEPTH;

/// The module's shape interner.
#[derive(Clone)]
pub struct ShapeTable {
    data: Vec<ShapeData>,
    /// How deeply each shape nests ([`ShapeTable::depth`]).
    depths: Vec<u32>,
    index: HashTable<Shape>,
    empty_tuple: Shape,
    token: Shape,
}

fn hash_of(data: &ShapeData) -> u64 {
    let mut hasher = FxHasher::default();
    data.hash(&mut hasher);
    hasher.finish()
}

impl ShapeTable {
    /// A table holding the empty tuple and the token shape.
    pub fn new() -> Self {
        let mut table = ShapeTable {
            data: Vec::new(),
            depths: Vec::new(),
            index: HashTable::new(),
            empty_tuple: Shape(0),
            token: Shape(0),
        };
        table.empty_tuple = table.intern(ShapeData::Tuple(Box::new([])));
        table.token = table.intern(ShapeData::Token);
        table
    }

    /// Interns `data`, returning the handle of the equal shape if there is one.
    pub fn intern(&mut self, data: ShapeData) -> Shape {
        let hash = hash_of(&data);
        let shapes = &self.data;
        if let Some(&found) = self.index.find(hash, |&s| shapes[s.0 as usize] == data) {
            return found;
        }
        let handle = Shape(self.data.len() as u32);
        // The shapes `data` holds were interned before it.
        let inner = match &data {
            ShapeData::Array(array) => array
                .layout
                .as_ref()
                .and_then(|layout| layout.physical_shape)
                .map_or(0, |physical| self.depth(physical)),
            ShapeData::Tuple(elements) => {
                elements.iter().map(|&e| self.depth(e)).max().unwrap_or(0)
            }
            ShapeData::Buffer(inner) => self.depth(*inner),
            ShapeData::Token | ShapeData::Opaque => 0,
        };
        self.depths.push(inner.saturating_add(1));
        self.data.push(data);
        let shapes = &self.data;
        self.index
            .insert_unique(hash, handle, |&s| hash_of(&shapes[s.0 as usize]));
        handle
    }

    /// The data of an interned shape.
    #[inline]
    pub fn get(&self, shape: Shape) -> &ShapeData {
        &self.data[shape.0 as usize]
    }

    /// How many levels `shape` nests in text, itself included (see
    /// [`MAX_SHAPE_DEPTH`]).
    #[inline]
    pub fn depth(&self, shape: Shape) -> u32 {
        self.depths[shape.0 as usize]
    }

    /// `()`.
    pub fn empty_tuple(&self) -> Shape {
        self.empty_tuple
    }

    /// `token[]`.
    pub fn token(&self) -> Shape {
        self.token
    }

    /// Interns an array shape.
    pub fn array(&mut self, elem: ElementType, dims: &[i64], layout: Option<Layout>) -> Shape {
        self.intern(ShapeData::Array(ArrayShape {
            elem,
            dims: dims.into(),
            dynamic: Box::new([]),
            layout: layout.map(Box::new),
        }))
    }

    /// Interns an array shape with the default layout.
    pub fn array_with_default_layout(&mut self, elem: ElementType, dims: &[i64]) -> Shape {
        let layout = Layout::default_for_rank(dims.len());
        self.array(elem, dims, Some(layout))
    }

    /// Interns a tuple of `elements`.
    pub fn tuple(&mut self, elements: &[Shape]) -> Shape {
        self.intern(ShapeData::Tuple(elements.into()))
    }

    /// The elements of a tuple shape, or `None` if `shape` is not a tuple.
    pub fn tuple_elements(&self, shape: Shape) -> Option<&[Shape]> {
        match self.get(shape) {
            ShapeData::Tuple(elements) => Some(elements),
            _ => None,
        }
    }

    /// The array data of `shape`, or `None` if it is not an array.
    pub fn as_array(&self, shape: Shape) -> Option<&ArrayShape> {
        match self.get(shape) {
            ShapeData::Array(array) => Some(array),
            _ => None,
        }
    }

    /// Whether `shape` is a tuple.
    pub fn is_tuple(&self, shape: Shape) -> bool {
        matches!(self.get(shape), ShapeData::Tuple(_))
    }

    /// The sub-shape at `index` (a path of tuple element numbers), if it exists.
    pub fn subshape(&self, shape: Shape, index: &[i64]) -> Option<Shape> {
        let mut current = shape;
        for &i in index {
            let elements = self.tuple_elements(current)?;
            current = *elements.get(usize::try_from(i).ok()?)?;
        }
        Some(current)
    }

    /// `shape` with every layout removed (recursively), for layout-insensitive
    /// comparisons.
    pub fn without_layout(&mut self, shape: Shape) -> Shape {
        match self.get(shape).clone() {
            ShapeData::Array(mut array) => {
                if array.layout.is_none() {
                    return shape;
                }
                array.layout = None;
                self.intern(ShapeData::Array(array))
            }
            ShapeData::Tuple(elements) => {
                let stripped: Vec<Shape> =
                    elements.iter().map(|&e| self.without_layout(e)).collect();
                self.tuple(&stripped)
            }
            ShapeData::Buffer(inner) => {
                let inner = self.without_layout(inner);
                self.intern(ShapeData::Buffer(inner))
            }
            ShapeData::Token | ShapeData::Opaque => shape,
        }
    }

    /// `shape` with the default layout filled into every array that has none.
    pub fn with_default_layouts(&mut self, shape: Shape) -> Shape {
        match self.get(shape).clone() {
            ShapeData::Array(mut array) => {
                if array.layout.is_some() {
                    return shape;
                }
                array.layout = Some(Box::new(Layout::default_for_rank(array.rank())));
                self.intern(ShapeData::Array(array))
            }
            ShapeData::Tuple(elements) => {
                let filled: Vec<Shape> = elements
                    .iter()
                    .map(|&e| self.with_default_layouts(e))
                    .collect();
                self.tuple(&filled)
            }
            ShapeData::Buffer(inner) => {
                let inner = self.with_default_layouts(inner);
                self.intern(ShapeData::Buffer(inner))
            }
            ShapeData::Token | ShapeData::Opaque => shape,
        }
    }

    /// How many distinct shapes are interned.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether no shape is interned (never true: `()` and `token[]` always are).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

impl Default for ShapeTable {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for ShapeTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShapeTable")
            .field("len", &self.data.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_shapes_intern_to_one_handle() {
        let mut table = ShapeTable::new();
        let a = table.array_with_default_layout(ElementType::F32, &[2, 4]);
        let b = table.array_with_default_layout(ElementType::F32, &[2, 4]);
        let c = table.array(ElementType::F32, &[2, 4], None);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(table.without_layout(a), c);
        assert_eq!(table.with_default_layouts(c), a);
        let t = table.tuple(&[a, c]);
        assert_eq!(table.subshape(t, &[1]), Some(c));
        assert_eq!(table.subshape(t, &[2]), None);
        assert_eq!(table.tuple(&[]), table.empty_tuple());
    }
}

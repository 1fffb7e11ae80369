//! Shapes in HLO text, parse and print side by side.
//!
//! ```text
//! f32[2,4]{1,0}   f32[<=4,?]   f32[]{:S(2)}   (s32[], (f32[2]{0}))   ()   token[]   b(f32[8]{0})
//! f32[8,128]{1,0:T(8,128)(2,1)E(4)S(1)}
//! ```
//!
//! Tuples print a `/*index=N*/` comment before every fifth element, as XLA does.
//! A `{` after an array starts a layout only when it is followed by an integer or
//! `:` (otherwise it opens a computation body).

use std::fmt::Write;

use crate::element_type::ElementType;
use crate::shape::{
    ArrayShape, COMBINE_DIMENSION, DimLevel, DimLevelKind, Layout, Shape, ShapeData, ShapeTable,
    SplitConfig, UNBOUNDED,
};
use crate::text::integers::push_int;
use crate::text::lexer::Tok;
use crate::text::parser::{MAX_DEPTH, PResult, Parser};

impl<'s> Parser<'s> {
    /// Whether the current token can start a shape.
    pub fn at_shape(&mut self) -> bool {
        match self.kind() {
            Tok::LParen => true,
            Tok::Ident => {
                let text = self.cur_text();
                if text.starts_with('%') {
                    return false;
                }
                // The usual case, `f32[`: decide from the bytes without lexing ahead.
                if self.src.as_bytes().get(self.tok.end as usize) == Some(&b'[') {
                    return ElementType::from_name(text).is_some();
                }
                let next = self.peek();
                if text == "b" {
                    return next.kind == Tok::LParen;
                }
                next.kind == Tok::LSquare && ElementType::from_name(text).is_some()
            }
            _ => false,
        }
    }

    /// A shape; arrays without a layout get the default layout.
    pub fn shape(&mut self) -> PResult<Shape> {
        self.shape_with(true)
    }

    /// A shape; `fill_layout` says whether arrays written without a layout get the
    /// default one (XLA fills them everywhere except in computation signatures).
    pub fn shape_with(&mut self, fill_layout: bool) -> PResult<Shape> {
        // Most shapes repeat verbatim (operand shapes in the long form above all):
        // look the exact text up before parsing it.
        let start = self.tok.start as usize;
        let end = match shape_text_end(self.src.as_bytes(), start) {
            Some(end) if self.byte_readers => end,
            _ => return self.shape_uncached(fill_layout),
        };
        let key = &self.src[start..end];
        if let Some(&shape) = self.shape_cache[usize::from(fill_layout)].get(key, self.depth()) {
            self.seek(end);
            return Ok(shape);
        }
        let shape = self.shape_uncached(fill_layout)?;
        if self.prev_end() as usize == end {
            self.shape_cache[usize::from(fill_layout)].insert(key, shape);
        }
        Ok(shape)
    }

    /// The shape whose text starts at byte `start`, if that exact text has
    /// been read before as a shape (with layouts filled in or not, as
    /// `fill_layout` says), with the end of its text.
    #[inline]
    pub(crate) fn cached_shape_at(
        &self,
        start: usize,
        fill_layout: bool,
    ) -> Option<(Shape, usize)> {
        if !self.byte_readers {
            return None;
        }
        let bytes = self.src.as_bytes();
        let last = &self.last_cached_shape[usize::from(fill_layout)];
        if let Some(memo) = last.get()
            && self.depth() + memo.levels <= MAX_DEPTH
            && let Some(end) = memo.repeated_at(bytes, start)
        {
            return Some((memo.shape, end));
        }
        let end = shape_text_end(bytes, start)?;
        let cache = &self.shape_cache[usize::from(fill_layout)];
        let (&shape, levels) = cache.get_with_levels(&self.src[start..end], self.depth())?;
        last.set(Some(ShapeMemo {
            start: start as u32,
            end: end as u32,
            shape,
            levels,
        }));
        Some((shape, end))
    }

    /// Reads tuple elements from the current token on straight from the bytes
    /// while they are shapes seen before, written as XLA prints them (`, `
    /// between them, `/*index=N*/` before every fifth): a tuple of a loop's
    /// state may have hundreds, nearly all of them repeats. Returns whether it
    /// read the tuple's `)` too; otherwise the parser stands at the first
    /// element left to the tokens.
    fn cached_tuple_elements(&mut self, fill_layout: bool, elements: &mut Vec<Shape>) -> bool {
        let bytes = self.src.as_bytes();
        let start = self.tok.start as usize;
        let mut at = start;
        while let Some((shape, end)) = self.cached_shape_at(at, fill_layout) {
            match bytes.get(end) {
                Some(b')') => {
                    elements.push(shape);
                    self.seek(end + 1);
                    return true;
                }
                Some(b',') if bytes.get(end + 1) == Some(&b' ') => {
                    elements.push(shape);
                    at = end + 2;
                    match crate::text::lexer::after_block_comment(bytes, at) {
                        Some(after) => at = after,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        if at != start {
            self.seek(at);
        }
        false
    }

    fn shape_uncached(&mut self, fill_layout: bool) -> PResult<Shape> {
        self.nested(|p| p.shape_tokens(fill_layout))
    }

    fn shape_tokens(&mut self, fill_layout: bool) -> PResult<Shape> {
        match self.kind() {
            Tok::LParen => {
                self.bump();
                let mut elements: Vec<Shape> = Vec::new();
                if !self.eat(Tok::RParen) {
                    loop {
                        if self.cached_tuple_elements(fill_layout, &mut elements) {
                            break;
                        }
                        elements.push(self.shape_with(fill_layout)?);
                        if self.eat(Tok::Comma) {
                            continue;
                        }
                        self.expect(Tok::RParen, "',' or ')' in tuple shape")?;
                        break;
                    }
                }
                Ok(self.m.shapes.tuple(&elements))
            }
            Tok::Ident if self.cur_text() == "b" => {
                self.bump();
                self.expect(Tok::LParen, "'(' after 'b'")?;
                let inner = self.shape_with(fill_layout)?;
                self.expect(Tok::RParen, "')' closing the buffer shape")?;
                Ok(self.m.shapes.intern(ShapeData::Buffer(inner)))
            }
            Tok::Ident => self.array_shape(fill_layout),
            _ => Err(self.error(format!("expected a shape, found {}", self.found()))),
        }
    }

    fn array_shape(&mut self, fill_layout: bool) -> PResult<Shape> {
        let start = self.tok.start as usize;
        let name_span = self.span();
        let name = self.cur_text();
        let Some(elem) = ElementType::from_name(name) else {
            return Err(self
                .error(format!("expected a shape, found {}", self.found()))
                .with_hint("shapes look like f32[2,4]{1,0}, (s32[], pred[]), or token[]"));
        };
        self.bump();
        self.expect(Tok::LSquare, "'[' after the element type")?;
        let mut dims: Vec<i64> = Vec::new();
        let mut dynamic: Vec<bool> = Vec::new();
        if !self.eat(Tok::RSquare) {
            loop {
                if self.eat(Tok::Leq) {
                    dims.push(self.uint()?);
                    dynamic.push(true);
                } else if self.eat(Tok::Question) {
                    dims.push(UNBOUNDED);
                    dynamic.push(true);
                } else {
                    dims.push(self.uint()?);
                    dynamic.push(false);
                }
                if self.eat(Tok::Comma) {
                    continue;
                }
                self.expect(Tok::RSquare, "',' or ']' in dimensions")?;
                break;
            }
        }
        if !elem.is_array_type() && !dims.is_empty() {
            return Err(self.error_at(
                name_span,
                format!("{} shapes have no dimensions", elem.name()),
            ));
        }
        // `token[]` and `opaque[]` are shapes of their own, not arrays.
        match elem {
            ElementType::Token => return Ok(self.m.shapes.token()),
            ElementType::Opaque => return Ok(self.m.shapes.intern(ShapeData::Opaque)),
            _ => {}
        }
        if !dynamic.iter().any(|&d| d) {
            dynamic.clear();
        }
        // XLA's `ValidateShape`: a shape whose size overflows int64 is no shape,
        // and every size computed later relies on that.
        if let Err(error) = crate::size::validate(elem, &dims) {
            let span = crate::Span {
                start: start as u32,
                end: self.prev_end(),
            };
            return Err(self
                .error_at(span, error.to_string())
                .with_hint("an array's size in bytes must fit in int64, as in XLA"));
        }
        let layout = if self.at(Tok::LBrace) && {
            let next = self.peek();
            next.kind == Tok::Int || next.kind == Tok::Colon
        } {
            let layout_span = self.span();
            let layout = self.layout()?;
            if layout.minor_to_major.len() != dims.len()
                && !(layout.minor_to_major.is_empty() && dims.is_empty())
            {
                return Err(self
                    .error_at(
                        layout_span,
                        format!(
                            "layout has {} minor_to_major entries but the shape has {} dimensions",
                            layout.minor_to_major.len(),
                            dims.len()
                        ),
                    )
                    .with_hint(format!(
                        "the default layout for this shape is {{{}}}",
                        (0..dims.len())
                            .rev()
                            .map(|d| d.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    )));
            }
            if layout.physical_shape.is_some() && layout.dim_levels.is_empty() {
                return Err(self.error_at(
                    layout_span,
                    "Layout has physical shape, but is not for a sparse array",
                ));
            }
            Some(layout)
        } else if fill_layout && elem.is_array_type() {
            Some(Layout::default_for_rank(dims.len()))
        } else {
            None
        };
        Ok(self.m.shapes.intern(ShapeData::Array(ArrayShape {
            elem,
            dims: dims.into(),
            dynamic: dynamic.into(),
            layout: layout.map(Box::new),
        })))
    }

    /// `{minor_to_major[:attributes]}`.
    fn layout(&mut self) -> PResult<Layout> {
        self.expect(Tok::LBrace, "'{'")?;
        let mut layout = Layout::default();
        while self.at(Tok::Int) {
            layout.minor_to_major.push(self.int()?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        if self.eat(Tok::Colon) {
            self.layout_attributes(&mut layout)?;
        }
        self.expect(Tok::RBrace, "'}' closing the layout")?;
        Ok(layout)
    }

    fn layout_attributes(&mut self, layout: &mut Layout) -> PResult<()> {
        loop {
            match self.kind() {
                Tok::RBrace => return Ok(()),
                Tok::Ident => {
                    let word = self.cur_text();
                    let span = self.span();
                    match word {
                        "D" => {
                            self.bump();
                            self.expect(Tok::LParen, "'(' after D")?;
                            loop {
                                layout.dim_levels.push(self.dim_level()?);
                                if !self.eat(Tok::Comma) {
                                    break;
                                }
                            }
                            self.expect(Tok::RParen, "')' closing D(...)")?;
                        }
                        "T" => {
                            self.bump();
                            // `T(8,128)(2,1)`: the first group follows T, the rest are
                            // further parenthesised groups.
                            while self.at(Tok::LParen) {
                                self.bump();
                                let mut tile = Vec::new();
                                if !self.at(Tok::RParen) {
                                    loop {
                                        if self.eat(Tok::Star) {
                                            tile.push(COMBINE_DIMENSION);
                                        } else {
                                            tile.push(self.int()?);
                                        }
                                        if !self.eat(Tok::Comma) {
                                            break;
                                        }
                                    }
                                }
                                self.expect(Tok::RParen, "')' closing a tile")?;
                                layout.tiles.push(tile);
                            }
                        }
                        "L" => {
                            self.bump();
                            layout.tail_padding_alignment = Some(self.paren_int()?);
                        }
                        "E" => {
                            self.bump();
                            layout.element_size_bits = Some(self.paren_int()?);
                        }
                        "S" => {
                            self.bump();
                            layout.memory_space = Some(self.paren_int()?);
                        }
                        "M" => {
                            self.bump();
                            layout.dynamic_metadata_prefix_bytes = Some(self.paren_int()?);
                        }
                        "SC" => {
                            self.bump();
                            while self.eat(Tok::LParen) {
                                let dimension = self.int()?;
                                self.expect(Tok::Colon, "':' in SC(dim:indices)")?;
                                let mut indices = Vec::new();
                                loop {
                                    indices.push(self.int()?);
                                    if !self.eat(Tok::Comma) {
                                        break;
                                    }
                                }
                                self.expect(Tok::RParen, "')' closing SC(...)")?;
                                layout
                                    .split_configs
                                    .push(SplitConfig { dimension, indices });
                            }
                        }
                        "P" => {
                            self.bump();
                            self.expect(Tok::LParen, "'(' after P")?;
                            let physical = self.shape()?;
                            self.expect(Tok::RParen, "')' closing P(...)")?;
                            layout.physical_shape = Some(physical);
                        }
                        _ => {
                            return Err(self
                                .error_at(span, format!("unknown layout attribute '{word}'"))
                                .with_hint(
                                    "layout attributes are D, T, L, #, *, E, S, SC, P and M",
                                ));
                        }
                    }
                }
                Tok::Hash => {
                    self.bump();
                    layout.index_type = Some(self.paren_element_type()?);
                }
                Tok::Star => {
                    self.bump();
                    layout.pointer_type = Some(self.paren_element_type()?);
                }
                _ => {
                    return Err(self.error(format!(
                        "expected a layout attribute or '}}', found {}",
                        self.found()
                    )));
                }
            }
        }
    }

    fn paren_int(&mut self) -> PResult<i64> {
        self.expect(Tok::LParen, "'('")?;
        let v = self.int()?;
        self.expect(Tok::RParen, "')'")?;
        Ok(v)
    }

    fn paren_element_type(&mut self) -> PResult<ElementType> {
        self.expect(Tok::LParen, "'('")?;
        let span = self.span();
        let name = self.ident("an element type")?;
        let ty = ElementType::from_name(name)
            .ok_or_else(|| self.error_at(span, format!("unknown element type '{name}'")))?;
        self.expect(Tok::RParen, "')'")?;
        Ok(ty)
    }

    fn dim_level(&mut self) -> PResult<DimLevel> {
        let span = self.span();
        let word = self.ident("a dimension level type (D, C, S or H)")?;
        let kind = match word {
            "D" => DimLevelKind::Dense,
            "C" => DimLevelKind::Compressed,
            "S" => DimLevelKind::Singleton,
            "H" => DimLevelKind::LooseCompressed,
            _ => {
                return Err(self
                    .error_at(span, format!("unknown dimension level type '{word}'"))
                    .with_hint("dimension level types are D (dense), C (compressed), S (singleton) and H (loose compressed)"));
            }
        };
        let mut level = DimLevel {
            kind,
            unique: true,
            ordered: true,
        };
        loop {
            if self.eat(Tok::Plus) {
                level.unique = false;
            } else if self.eat(Tok::Tilde) {
                level.ordered = false;
            } else {
                return Ok(level);
            }
        }
    }
}

/// The last shape [`Parser::cached_shape_at`] found: most lines have the shape
/// of the line before (half to two thirds of them in the large modules of the
/// corpus), and a repeat is told by comparing bytes, without finding where the
/// text ends and looking it up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShapeMemo {
    /// Where its text was.
    start: u32,
    end: u32,
    shape: Shape,
    /// The nesting bound of its text (see [`TextCache`](crate::text::fast::text_cache)).
    levels: u32,
}

impl ShapeMemo {
    /// Where the shape text starting at `start` ends, if it is this one's
    /// text and [`shape_text_end`] would end it in the same place.
    #[inline]
    fn repeated_at(&self, bytes: &[u8], start: usize) -> Option<usize> {
        let text = &bytes[self.start as usize..self.end as usize];
        let end = start + text.len();
        if !crate::text::fast::byte_scan::same_bytes(bytes.get(start..end)?, text) {
            return None;
        }
        // After a closing bracket the text ends whatever follows; after the
        // `]` of an array without a layout, what follows decides, as in
        // `shape_text_end`.
        match text.last()? {
            b'}' | b')' => Some(end),
            b']' => match after_dimensions(bytes, end) {
                AfterDimensions::End(Some(_)) => Some(end),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The end of the shape text starting at `start` — an array with an optional
/// layout written without spaces, or a balanced tuple — or `None` when the text is
/// not in that simple form (the parser then reads it token by token).
pub(crate) fn shape_text_end(src: &[u8], start: usize) -> Option<usize> {
    const LIMIT: usize = 4096;
    let byte = |i: usize| src.get(i).copied();
    match byte(start)? {
        b'(' => {
            let mut depth = 0usize;
            let mut i = start;
            while i < src.len() && i - start < LIMIT {
                match src[i] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    b'"' | b'\'' | b'%' | b'=' if !src[start..i].ends_with(b"/*index") => {
                        return None;
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        b if b.is_ascii_lowercase() => {
            // Every operand's shape comes through here: slices are scanned
            // with iterators rather than indexed byte by byte.
            let text = &src[start..src.len().min(start + LIMIT)];
            let open = text
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))?;
            if text[open] != b'[' {
                return None;
            }
            let end = open + text[open..].iter().position(|&c| c == b']')? + 1;
            // The token parser reads a layout wherever the next token is `{`
            // and the one after it an integer or `:`, across spaces, line
            // breaks and comments (as XLA does: `-> f32[4] {` opens a body,
            // `f32[4] {0}` has a layout). Only an unspaced layout is read here;
            // the usual followers (`{0}`, ` add(`, ` %x`, `,`, `)`) are told
            // apart by a byte or two.
            let after = start + end;
            if let AfterDimensions::End(end) = after_dimensions(src, after) {
                return end;
            }
            let layout = &text[end..];
            let mut depth = 0usize;
            for (k, &c) in layout.iter().enumerate() {
                match c {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(start + end + k + 1);
                        }
                    }
                    b'\n' => return None,
                    _ => {}
                }
            }
            None
        }
        _ => None,
    }
}

/// What follows the `]` of an array shape's dimensions.
enum AfterDimensions {
    /// A layout written without spaces, which the shape's text goes on into.
    Layout,
    /// The text ends here (`Some(after)`), or the token parser must decide
    /// (`None`).
    End(Option<usize>),
}

/// What follows the dimensions of an array shape ending at `after`.
fn after_dimensions(src: &[u8], after: usize) -> AfterDimensions {
    match src.get(after) {
        Some(b'{')
            if src
                .get(after + 1)
                .is_some_and(|&c| c.is_ascii_digit() || c == b':') =>
        {
            AfterDimensions::Layout
        }
        Some(b' ')
            if src
                .get(after + 1)
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'%' || c == b'_') =>
        {
            AfterDimensions::End(Some(after))
        }
        Some(b'{' | b' ' | b'\t' | b'\n' | b'\r' | b'/') => {
            AfterDimensions::End(spaced_shape_end(src, after))
        }
        _ => AfterDimensions::End(Some(after)),
    }
}

/// Where an array shape whose dimensions end at `after` ends, when a space,
/// a comment or a `{` that does not open an unspaced layout follows: `None`
/// when the token parser may read a layout there.
fn spaced_shape_end(src: &[u8], after: usize) -> Option<usize> {
    let brace = skip_spaces(src, after);
    match src.get(brace) {
        Some(b'{') => {}
        Some(b'/') => return None,
        _ => return Some(after),
    }
    let inside = skip_spaces(src, brace + 1);
    match src.get(inside) {
        Some(c) if c.is_ascii_digit() || matches!(c, b':' | b'-' | b'+' | b'/') => None,
        _ => Some(after),
    }
}

/// The first byte from `at` on that is not a space, tab or line break.
fn skip_spaces(src: &[u8], at: usize) -> usize {
    at + src.get(at..).map_or(0, |rest| {
        rest.iter()
            .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
            .count()
    })
}

/// Appends `shape` with layouts.
pub fn print_shape(shapes: &ShapeTable, out: &mut String, shape: Shape) {
    ShapePrinter {
        shapes,
        layouts: Layouts::All,
    }
    .print(out, shape);
}

/// Appends `shape`, printing only layouts that differ from the default one.
pub fn print_shape_without_default_layouts(shapes: &ShapeTable, out: &mut String, shape: Shape) {
    ShapePrinter {
        shapes,
        layouts: Layouts::NonDefault,
    }
    .print(out, shape);
}

/// Appends `shape` without layouts.
pub fn print_shape_without_layout(shapes: &ShapeTable, out: &mut String, shape: Shape) {
    ShapePrinter {
        shapes,
        layouts: Layouts::None,
    }
    .print(out, shape);
}

/// The printed form of one shape, for messages.
pub fn shape_to_string(shapes: &ShapeTable, shape: Shape) -> String {
    let mut out = String::new();
    print_shape(shapes, &mut out, shape);
    out
}

/// Whether `shape` is a tuple (convenience for printers of other formats).
pub fn is_tuple(shapes: &ShapeTable, shape: Shape) -> bool {
    matches!(shapes.get(shape), ShapeData::Tuple(_))
}

/// Which layouts a [`ShapePrinter`] prints.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Layouts {
    /// Every layout (XLA's `HumanStringWithLayout`).
    All,
    /// Only layouts that differ from the default one (for messages that should
    /// read like what was written).
    NonDefault,
    /// None (XLA's `HumanString`).
    None,
}

/// Prints shapes.
pub(crate) struct ShapePrinter<'m> {
    pub shapes: &'m crate::shape::ShapeTable,
    /// Which layouts are printed.
    pub layouts: Layouts,
}

impl ShapePrinter<'_> {
    /// Appends `shape`.
    pub fn print(&self, out: &mut String, shape: Shape) {
        match self.shapes.get(shape) {
            ShapeData::Array(array) => self.print_array(out, array),
            ShapeData::Tuple(elements) => {
                out.push('(');
                for (i, &e) in elements.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                        if i % 5 == 0 {
                            let _ = write!(out, "/*index={i}*/");
                        }
                    }
                    self.print(out, e);
                }
                out.push(')');
            }
            ShapeData::Token => out.push_str("token[]"),
            ShapeData::Opaque => out.push_str("opaque[]"),
            ShapeData::Buffer(inner) => {
                out.push_str("b(");
                self.print(out, *inner);
                out.push(')');
            }
        }
    }

    fn print_array(&self, out: &mut String, array: &ArrayShape) {
        out.push_str(array.elem.name());
        out.push('[');
        for (d, &size) in array.dims.iter().enumerate() {
            if d > 0 {
                out.push(',');
            }
            if size == UNBOUNDED {
                out.push('?');
            } else {
                if array.is_dynamic(d) {
                    out.push_str("<=");
                }
                push_int(out, size);
            }
        }
        out.push(']');
        if let Some(layout) = &array.layout
            && (!layout.minor_to_major.is_empty() || layout.has_attributes())
            && match self.layouts {
                Layouts::All => true,
                Layouts::NonDefault => **layout != Layout::default_for_rank(array.rank()),
                Layouts::None => false,
            }
        {
            self.print_layout(out, layout);
        }
    }

    /// Appends `{minor_to_major[:attributes]}`.
    pub fn print_layout(&self, out: &mut String, layout: &Layout) {
        out.push('{');
        for (i, &d) in layout.minor_to_major.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_int(out, d);
        }
        if layout.has_attributes() {
            out.push(':');
            if !layout.dim_levels.is_empty() {
                out.push_str("D(");
                for (i, level) in layout.dim_levels.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push(level.kind.letter());
                    if !level.unique {
                        out.push('+');
                    }
                    if !level.ordered {
                        out.push('~');
                    }
                }
                out.push(')');
            }
            if !layout.tiles.is_empty() {
                out.push('T');
                for tile in &layout.tiles {
                    out.push('(');
                    for (i, &d) in tile.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        if d == COMBINE_DIMENSION {
                            out.push('*');
                        } else {
                            push_int(out, d);
                        }
                    }
                    out.push(')');
                }
            }
            if let Some(l) = layout.tail_padding_alignment {
                let _ = write!(out, "L({l})");
            }
            if let Some(t) = layout.index_type {
                let _ = write!(out, "#({t})");
            }
            if let Some(t) = layout.pointer_type {
                let _ = write!(out, "*({t})");
            }
            if let Some(e) = layout.element_size_bits {
                let _ = write!(out, "E({e})");
            }
            if let Some(s) = layout.memory_space {
                let _ = write!(out, "S({s})");
            }
            for split in &layout.split_configs {
                let _ = write!(out, "SC({}:", split.dimension);
                for (i, index) in split.indices.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_int(out, *index);
                }
                out.push(')');
            }
            if let Some(p) = layout.physical_shape {
                out.push_str("P(");
                self.print(out, p);
                out.push(')');
            }
            if let Some(m) = layout.dynamic_metadata_prefix_bytes {
                let _ = write!(out, "M({m})");
            }
        }
        out.push('}');
    }
}

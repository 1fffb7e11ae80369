//! Typed views of dialect attributes.
//!
//! The op model keeps `#stablehlo.*` and `#sdy.*` attributes as their canonical
//! text ([`Attribute::Opaque`]), so a parsed module prints back exactly. Passes
//! that need their contents (the lowering, the verifier) read them here into
//! typed values: the structured families written `#dialect.name<key = value, …>`
//! (dimension numbers, channel handles, mesh-axes replica groups, …), the enums
//! written `#stablehlo<kind KEYWORD>`, and Shardy's positional forms
//! (`#sdy.sharding<@mesh, [{"x"}, {}]>`, `#sdy.mesh<["x"=8]>`).
//!
//! A reader returns `None` for text that is not the attribute it reads; callers
//! turn that into a located error naming what was expected.

use crate::ir::Attribute;
use crate::text::cursor::Cursor;

/// One parameter value of a `#dialect.name<key = value, …>` attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// `3`, `-1`.
    Integer(i64),
    /// `true` / `false`.
    Bool(bool),
    /// `"x"`.
    String(String),
    /// `@mesh`.
    Symbol(String),
    /// A bare keyword (`DEFAULT`, `FFT`).
    Word(String),
    /// `[a, b, …]` or `(a, b, …)`.
    List(Vec<Param>),
    /// A nested structured attribute `#dialect.name<…>`.
    Structured(Structured),
    /// A nested enum `#stablehlo<kind KEYWORD>`: (kind, keyword).
    Enum(String, String),
}

/// A structured dialect attribute: `#dialect.name<key = value, …>`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Structured {
    /// `stablehlo.gather`, `stablehlo.channel_handle`, …
    pub name: String,
    /// The parameters, in the order written.
    pub params: Vec<(String, Param)>,
}

impl Structured {
    /// Reads `attribute` when it is the structured attribute `#{name}<…>`.
    pub fn read(attribute: Option<&Attribute>, name: &str) -> Option<Structured> {
        let Some(Attribute::Opaque(text)) = attribute else {
            return None;
        };
        let mut cursor = Cursor::new(text);
        let structured = parse_structured(&mut cursor)?;
        (cursor.at_end() && structured.name == name).then_some(structured)
    }

    /// The value of parameter `key`.
    pub fn get(&self, key: &str) -> Option<&Param> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The integer list `key` (an absent key reads as empty, as MLIR prints
    /// empty dimension lists by leaving them out).
    pub fn ints(&self, key: &str) -> Option<Vec<i64>> {
        match self.get(key) {
            None => Some(Vec::new()),
            Some(Param::List(items)) => items
                .iter()
                .map(|item| match item {
                    Param::Integer(v) => Some(*v),
                    _ => None,
                })
                .collect(),
            Some(_) => None,
        }
    }

    /// The integer `key`.
    pub fn int(&self, key: &str) -> Option<i64> {
        match self.get(key)? {
            Param::Integer(v) => Some(*v),
            _ => None,
        }
    }
}

/// The precisions of a dot or convolution operand.
pub const PRECISIONS: &[&str] = &["DEFAULT", "HIGH", "HIGHEST"];
/// The directions of `compare`.
pub const COMPARISON_DIRECTIONS: &[&str] = &["EQ", "NE", "GE", "GT", "LE", "LT"];
/// The comparison types of `compare`.
pub const COMPARISON_TYPES: &[&str] = &["NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"];
/// The kinds of `fft`.
pub const FFT_TYPES: &[&str] = &["FFT", "IFFT", "RFFT", "IRFFT"];
/// The algorithms of `rng_bit_generator`.
pub const RNG_ALGORITHMS: &[&str] = &["DEFAULT", "THREE_FRY", "PHILOX"];
/// The distributions of `rng`.
pub const RNG_DISTRIBUTIONS: &[&str] = &["UNIFORM", "NORMAL"];
/// How `triangular_solve` transposes its matrix.
pub const TRANSPOSES: &[&str] = &["TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"];
/// The modes of a `#stablehlo.result_accuracy`.
pub const RESULT_ACCURACY_MODES: &[&str] = &["DEFAULT", "HIGHEST", "TOLERANCE"];

/// The enums StableHLO (and CHLO) write `#stablehlo<kind KEYWORD>`
/// (`#chlo<kind KEYWORD>`), each with every keyword the dialect defines. The
/// parser refuses any other keyword of these kinds where it reads one (as
/// MLIR's does), so what weft reads it can print in any form, and lowers.
pub const ENUMS: &[(&str, &[&str])] = &[
    ("precision", PRECISIONS),
    ("comparison_direction", COMPARISON_DIRECTIONS),
    ("comparison_type", COMPARISON_TYPES),
    ("fft_type", FFT_TYPES),
    ("rng_algorithm", RNG_ALGORITHMS),
    ("rng_distribution", RNG_DISTRIBUTIONS),
    ("transpose", TRANSPOSES),
];

/// The keywords of the enum `kind` ([`ENUMS`]), if weft knows it.
pub fn enum_keywords(kind: &str) -> Option<&'static [&'static str]> {
    ENUMS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, keywords)| *keywords)
}

/// `#stablehlo<kind KEYWORD>` (or `#chlo<kind KEYWORD>`): the keyword, when
/// `attribute` is an enum of `kind`.
pub fn enum_keyword<'a>(attribute: Option<&'a Attribute>, kind: &str) -> Option<&'a str> {
    let Some(Attribute::Opaque(text)) = attribute else {
        return None;
    };
    text.strip_prefix("#stablehlo<")
        .or_else(|| text.strip_prefix("#chlo<"))?
        .strip_suffix('>')?
        .strip_prefix(kind)?
        .strip_prefix(' ')
}

/// `#stablehlo.channel_handle<handle = H, type = T>`: the channel id `H`.
pub fn channel_id(attribute: Option<&Attribute>) -> Option<i64> {
    Structured::read(attribute, "stablehlo.channel_handle")?.int("handle")
}

/// `#dialect.name<…>` at the cursor.
fn parse_structured(c: &mut Cursor<'_>) -> Option<Structured> {
    if !c.eat(b'#') {
        return None;
    }
    let name = dotted_name(c)?;
    let mut structured = Structured {
        name,
        params: Vec::new(),
    };
    if !c.eat(b'<') {
        return Some(structured);
    }
    if c.eat(b'>') {
        return Some(structured);
    }
    loop {
        let key = c.identifier()?.to_string();
        if !c.eat(b'=') {
            return None;
        }
        let value = parse_param(c)?;
        structured.params.push((key, value));
        if c.eat(b'>') {
            return Some(structured);
        }
        if !c.eat(b',') {
            return None;
        }
    }
}

/// `stablehlo.gather`: identifiers joined by dots.
fn dotted_name(c: &mut Cursor<'_>) -> Option<String> {
    let mut name = c.identifier()?.to_string();
    while c.peek() == b'.' {
        c.eat(b'.');
        name.push('.');
        name.push_str(c.identifier()?);
    }
    Some(name)
}

/// One parameter, one nesting level down: lists and nested attributes hold
/// parameters (the parser has checked the text's nesting against
/// [`MAX_DEPTH`](crate::text::MAX_DEPTH); text made elsewhere gets the same bound).
fn parse_param(c: &mut Cursor<'_>) -> Option<Param> {
    c.descend().ok()?;
    let param = parse_param_unnested(c);
    c.ascend();
    param
}

fn parse_param_unnested(c: &mut Cursor<'_>) -> Option<Param> {
    match c.peek() {
        b'[' | b'(' => {
            let close = if c.eat(b'[') {
                b']'
            } else {
                c.eat(b'(');
                b')'
            };
            let mut items = Vec::new();
            if c.eat(close) {
                return Some(Param::List(items));
            }
            loop {
                items.push(parse_param(c)?);
                if c.eat(close) {
                    return Some(Param::List(items));
                }
                if !c.eat(b',') {
                    return None;
                }
            }
        }
        b'"' => c.string().ok().map(Param::String),
        b'@' => {
            c.eat(b'@');
            let name = if c.peek() == b'"' {
                c.string().ok()?
            } else {
                c.suffix_name()?.to_string()
            };
            Some(Param::Symbol(name))
        }
        b'#' => {
            if c.peek_str("#stablehlo<") {
                c.eat_str("#stablehlo<");
                let kind = c.identifier()?.to_string();
                let word = c.identifier()?.to_string();
                c.eat(b'>').then_some(Param::Enum(kind, word))
            } else {
                parse_structured(c).map(Param::Structured)
            }
        }
        b'-' | b'0'..=b'9' => {
            let value = c.integer().ok()?;
            let value = i64::try_from(value).ok()?;
            // A typed integer (`8 : i64`) reads as its value.
            if c.eat(b':') {
                c.identifier()?;
            }
            Some(Param::Integer(value))
        }
        _ => {
            let word = c.identifier()?;
            Some(match word {
                "true" => Param::Bool(true),
                "false" => Param::Bool(false),
                _ => Param::Word(word.to_string()),
            })
        }
    }
}

/// A Shardy mesh: its axes (name, size) and device ids (`None` for `0..N`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SdyMesh {
    /// `(name, size)` per axis, major to minor.
    pub axes: Vec<(String, i64)>,
    /// `device_ids=[…]`, when written.
    pub device_ids: Option<Vec<i64>>,
}

impl SdyMesh {
    /// Reads `#sdy.mesh<["x"=2, "y"=4], device_ids=[…]>` (or `<[…]>` alone).
    pub fn read(attribute: Option<&Attribute>) -> Option<SdyMesh> {
        let Some(Attribute::Opaque(text)) = attribute else {
            return None;
        };
        let body = text.strip_prefix("#sdy.mesh").unwrap_or(text);
        let mut c = Cursor::new(body);
        let mesh = Self::parse_body(&mut c)?;
        c.at_end().then_some(mesh)
    }

    fn parse_body(c: &mut Cursor<'_>) -> Option<SdyMesh> {
        if !c.eat(b'<') {
            return None;
        }
        let mut mesh = SdyMesh::default();
        if !c.eat(b'[') {
            return None;
        }
        if !c.eat(b']') {
            loop {
                let name = c.string().ok()?;
                if !c.eat(b'=') {
                    return None;
                }
                let size = i64::try_from(c.integer().ok()?).ok()?;
                mesh.axes.push((name, size));
                if c.eat(b']') {
                    break;
                }
                if !c.eat(b',') {
                    return None;
                }
            }
        }
        if c.eat(b',') {
            if !c.eat_keyword("device_ids") || !c.eat(b'=') || !c.eat(b'[') {
                return None;
            }
            let mut ids = Vec::new();
            if !c.eat(b']') {
                loop {
                    ids.push(i64::try_from(c.integer().ok()?).ok()?);
                    if c.eat(b']') {
                        break;
                    }
                    if !c.eat(b',') {
                        return None;
                    }
                }
            }
            mesh.device_ids = Some(ids);
        }
        c.eat(b'>').then_some(mesh)
    }

    /// The number of devices.
    pub fn size(&self) -> i64 {
        self.axes.iter().map(|(_, s)| *s).product()
    }

    /// The position of axis `name`.
    pub fn axis(&self, name: &str) -> Option<usize> {
        self.axes.iter().position(|(n, _)| n == name)
    }
}

/// A Shardy tensor sharding: the mesh it refers to and, per dimension, the
/// axes it is split over (major first).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SdySharding {
    /// `@mesh` (or the inline mesh's text).
    pub mesh: String,
    /// Per dimension, the axis names.
    pub dims: Vec<Vec<String>>,
    /// `replicated={…}` axes, if written.
    pub replicated: Vec<String>,
}

impl SdySharding {
    /// Reads `#sdy.sharding<@mesh, [{"x"}, {}]>` or its stripped `<@mesh, […]>`.
    pub fn read(attribute: Option<&Attribute>) -> Option<SdySharding> {
        let Some(Attribute::Opaque(text)) = attribute else {
            return None;
        };
        Self::parse_text(text.strip_prefix("#sdy.sharding").unwrap_or(text))
    }

    /// Reads the stripped form `<@mesh, [{"x"}, {}]>`.
    pub fn parse_text(text: &str) -> Option<SdySharding> {
        let mut c = Cursor::new(text);
        let sharding = Self::parse_body(&mut c)?;
        c.at_end().then_some(sharding)
    }

    fn parse_body(c: &mut Cursor<'_>) -> Option<SdySharding> {
        if !c.eat(b'<') || !c.eat(b'@') {
            return None;
        }
        let mesh = c.suffix_name()?.to_string();
        if !c.eat(b',') || !c.eat(b'[') {
            return None;
        }
        let mut sharding = SdySharding {
            mesh,
            ..SdySharding::default()
        };
        if !c.eat(b']') {
            loop {
                sharding.dims.push(parse_axis_set(c)?);
                if c.eat(b']') {
                    break;
                }
                if !c.eat(b',') {
                    return None;
                }
            }
        }
        while c.eat(b',') {
            let key = c.identifier()?;
            if !c.eat(b'=') {
                return None;
            }
            let axes = parse_axis_set(c)?;
            if key == "replicated" {
                sharding.replicated = axes;
            }
        }
        c.eat(b'>').then_some(sharding)
    }

    /// Reads `#sdy.sharding_per_value<[<…>, <…>]>`.
    pub fn read_per_value(attribute: Option<&Attribute>) -> Option<Vec<SdySharding>> {
        let Some(Attribute::Opaque(text)) = attribute else {
            return None;
        };
        let list = text
            .strip_prefix("#sdy.sharding_per_value<[")?
            .strip_suffix("]>")?;
        let mut c = Cursor::new(list);
        let mut shardings = Vec::new();
        if c.at_end() {
            return Some(shardings);
        }
        loop {
            shardings.push(Self::parse_body(&mut c)?);
            if c.at_end() {
                return Some(shardings);
            }
            if !c.eat(b',') {
                return None;
            }
        }
    }
}

/// `{"x", "y"}` (a `?` or `}` closing mark for open dimensions is accepted).
fn parse_axis_set(c: &mut Cursor<'_>) -> Option<Vec<String>> {
    if !c.eat(b'{') {
        return None;
    }
    let mut axes = Vec::new();
    if c.eat(b'}') {
        c.eat(b'?');
        return Some(axes);
    }
    loop {
        let name = c.string().ok()?;
        // Sub-axes (`"x":(1)2`) are not supported by the partitioner.
        if c.peek() == b':' {
            return None;
        }
        axes.push(name);
        if c.eat(b'}') {
            c.eat(b'?');
            return Some(axes);
        }
        if !c.eat(b',') {
            return None;
        }
    }
}

/// `#sdy<manual_axes{"x", "y"}>`: the axis names.
pub fn manual_axes(attribute: Option<&Attribute>) -> Option<Vec<String>> {
    let Some(Attribute::Opaque(text)) = attribute else {
        return None;
    };
    let set = text.strip_prefix("#sdy<manual_axes")?.strip_suffix('>')?;
    let mut c = Cursor::new(set);
    let axes = parse_axis_set(&mut c)?;
    c.at_end().then_some(axes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opaque(text: &str) -> Attribute {
        Attribute::Opaque(text.to_string())
    }

    #[test]
    fn structured_attributes_read_their_parameters() {
        let gather = opaque(
            "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>",
        );
        let s = Structured::read(Some(&gather), "stablehlo.gather").unwrap();
        assert_eq!(s.ints("offset_dims"), Some(vec![1]));
        assert_eq!(s.ints("operand_batching_dims"), Some(vec![]));
        assert_eq!(s.int("index_vector_dim"), Some(1));
        assert!(Structured::read(Some(&gather), "stablehlo.scatter").is_none());

        let channel = opaque("#stablehlo.channel_handle<handle = 3, type = 1>");
        assert_eq!(channel_id(Some(&channel)), Some(3));

        let groups = opaque(
            "#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = \"x\">]>",
        );
        let s = Structured::read(Some(&groups), "stablehlo.replica_group_mesh_axes").unwrap();
        assert_eq!(s.get("mesh"), Some(&Param::Symbol("mesh".into())));
        let Some(Param::List(axes)) = s.get("axes") else {
            panic!("axes is a list")
        };
        let Param::Structured(axis) = &axes[0] else {
            panic!("axis_ref is structured")
        };
        assert_eq!(axis.get("name"), Some(&Param::String("x".into())));
    }

    #[test]
    fn enums_and_shardy_forms() {
        let direction = opaque("#stablehlo<comparison_direction LT>");
        assert_eq!(
            enum_keyword(Some(&direction), "comparison_direction"),
            Some("LT")
        );
        assert_eq!(enum_keyword(Some(&direction), "precision"), None);

        let mesh = SdyMesh::read(Some(&opaque("#sdy.mesh<[\"x\"=2, \"y\"=4]>"))).unwrap();
        assert_eq!(mesh.axes, vec![("x".into(), 2), ("y".into(), 4)]);
        assert_eq!(mesh.size(), 8);
        let mesh = SdyMesh::read(Some(&opaque("<[\"a\"=2], device_ids=[1, 0]>"))).unwrap();
        assert_eq!(mesh.device_ids, Some(vec![1, 0]));

        let sharding =
            SdySharding::read(Some(&opaque("#sdy.sharding<@mesh, [{\"x\", \"y\"}, {}]>"))).unwrap();
        assert_eq!(sharding.mesh, "mesh");
        assert_eq!(
            sharding.dims,
            vec![vec!["x".to_string(), "y".into()], vec![]]
        );
        let per_value = SdySharding::read_per_value(Some(&opaque(
            "#sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>, <@mesh, []>]>",
        )))
        .unwrap();
        assert_eq!(per_value.len(), 2);
        assert_eq!(
            manual_axes(Some(&opaque("#sdy<manual_axes{\"x\"}>"))),
            Some(vec!["x".to_string()])
        );
    }
}

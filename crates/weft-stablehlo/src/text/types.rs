//! Types in MLIR text: parse and print side by side.

use crate::ir::types::QuantizedType;
use crate::ir::{Dim, ElementKind, FloatKind, FunctionType, Signedness, TensorType, Type};
use crate::text::cursor::PResult;
use crate::text::parser::Parser;

impl Parser<'_> {
    /// `type`: any type, one nesting level down (tuples and function types
    /// hold types).
    pub(crate) fn parse_type(&mut self) -> PResult<Type> {
        self.nested(Self::parse_type_unnested)
    }

    fn parse_type_unnested(&mut self) -> PResult<Type> {
        let start = self.c.pos;
        match self.c.peek() {
            b'(' => return Ok(Type::Function(self.parse_function_type()?)),
            b'!' => return self.parse_dialect_type(),
            _ => {}
        }
        let Some(word) = self.c.peek_identifier() else {
            return Err(self.c.error_expected("a type"));
        };
        match word {
            "tensor" => {
                self.c.identifier();
                Ok(Type::Tensor(self.parse_tensor_body()?))
            }
            "tuple" => {
                self.c.identifier();
                self.c.expect(b'<', "'<'")?;
                let mut elements = Vec::new();
                if !self.c.eat(b'>') {
                    loop {
                        elements.push(self.parse_type()?);
                        if self.c.eat(b'>') {
                            break;
                        }
                        self.c.expect(b',', "',' or '>' in tuple type")?;
                    }
                }
                Ok(Type::Tuple(elements))
            }
            "none" => {
                self.c.identifier();
                Ok(Type::None)
            }
            _ => match self.parse_element_kind() {
                Ok(kind) => Ok(Type::Element(kind)),
                Err(_) => {
                    self.c.pos = start;
                    Err(self.c.error_expected("a type"))
                }
            },
        }
    }

    /// `(t0, t1) -> t` or `(t0) -> (u0, u1)`.
    pub(crate) fn parse_function_type(&mut self) -> PResult<FunctionType> {
        let inputs = self.parse_parenthesized_types()?;
        self.c.expect_str("->")?;
        let results = self.parse_result_types()?;
        Ok(FunctionType { inputs, results })
    }

    /// `(t0, t1)`, possibly empty.
    pub(crate) fn parse_parenthesized_types(&mut self) -> PResult<Vec<Type>> {
        self.c.expect(b'(', "'('")?;
        let mut types = Vec::new();
        if self.c.eat(b')') {
            return Ok(types);
        }
        loop {
            types.push(self.parse_type()?);
            if self.c.eat(b')') {
                return Ok(types);
            }
            self.c.expect(b',', "',' or ')' in a type list")?;
        }
    }

    /// The result side of a function type: one type, or a parenthesized list.
    pub(crate) fn parse_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.c.peek() == b'(' {
            // `(t) -> u` is a function type, not a parenthesized list.
            let save = self.c.pos;
            let types = self.parse_parenthesized_types()?;
            if self.c.peek_str("->") {
                self.c.pos = save;
                return Ok(vec![Type::Function(self.parse_function_type()?)]);
            }
            return Ok(types);
        }
        Ok(vec![self.parse_type()?])
    }

    /// A comma-separated list of types (at least one).
    pub(crate) fn parse_type_list(&mut self) -> PResult<Vec<Type>> {
        let mut types = vec![self.parse_type()?];
        while self.c.eat(b',') {
            types.push(self.parse_type()?);
        }
        Ok(types)
    }

    /// After `tensor`: `<2x?xf32, encoding>`.
    fn parse_tensor_body(&mut self) -> PResult<TensorType> {
        self.c.expect(b'<', "'<' after 'tensor'")?;
        self.c.skip_trivia();
        let dims_start = self.c.pos;
        let bytes = self.c.src.as_bytes();
        let mut dims = Some(Vec::new());
        loop {
            let b = bytes.get(self.c.pos).copied().unwrap_or(0);
            if b == b'*' {
                self.c.pos += 1;
                dims = None;
            } else if b == b'?' {
                self.c.pos += 1;
                if let Some(dims) = &mut dims {
                    dims.push(Dim::Dynamic);
                }
            } else if b.is_ascii_digit() {
                let start = self.c.pos;
                while bytes.get(self.c.pos).is_some_and(u8::is_ascii_digit) {
                    self.c.pos += 1;
                }
                let size: i64 = self.c.src[start..self.c.pos]
                    .parse()
                    .map_err(|_| self.c.error_at(start, "dimension size is too large"))?;
                if let Some(dims) = &mut dims {
                    dims.push(Dim::Static(size));
                }
            } else {
                break;
            }
            if bytes.get(self.c.pos) != Some(&b'x') {
                return Err(self.c.error_expected("'x' after a dimension"));
            }
            self.c.pos += 1;
        }
        let element = self.parse_element_kind()?;
        if let Some(dims) = &dims {
            self.validate_size(dims, &element, dims_start)?;
        }
        let encoding = if self.c.eat(b',') {
            Some(Box::new(self.parse_attribute()?))
        } else {
            None
        };
        self.c.expect(b'>', "'>' to close the tensor type")?;
        Ok(TensorType {
            dims,
            element,
            encoding,
        })
    }

    /// XLA's `ValidateShape` on a tensor type: the size in bytes of its
    /// static dimensions fits in int64. Every size computed from the type
    /// later (a dense literal's, a lowered shape's) relies on it.
    fn validate_size(&self, dims: &[Dim], element: &ElementKind, at: usize) -> PResult<()> {
        let sized: Vec<i64> = dims
            .iter()
            .filter_map(|d| match d {
                Dim::Static(n) => Some(*n),
                Dim::Dynamic => None,
            })
            .collect();
        // Elements without an HLO type (strings, `index`) count at a byte
        // each: their count must fit all the same.
        let elem = element.hlo().unwrap_or(weft_ir::ElementType::U8);
        match weft_ir::size::validate(elem, &sized) {
            Ok(()) => Ok(()),
            Err(_) => Err(Box::new(
                weft_ir::Diagnostic::error(
                    weft_ir::Span::new(at, self.c.pos),
                    "tensor type is too large: its size in bytes overflows int64",
                )
                .with_hint("an array's size in bytes must fit in int64, as in XLA"),
            )),
        }
    }

    /// An element type: `i32`, `ui8`, `f32`, `bf16`, `index`, `complex<f32>`,
    /// `!quant.uniform<…>`.
    pub(crate) fn parse_element_kind(&mut self) -> PResult<ElementKind> {
        if self.c.peek_str("!quant.uniform") {
            return Ok(ElementKind::Quantized(Box::new(self.parse_quantized()?)));
        }
        let start = self.c.pos;
        let Some(word) = self.c.identifier() else {
            return Err(self.c.error_expected("an element type"));
        };
        if let Some(kind) = integer_kind(word) {
            return Ok(kind);
        }
        if let Some(kind) = FloatKind::from_name(word) {
            return Ok(ElementKind::Float(kind));
        }
        match word {
            "index" => Ok(ElementKind::Index),
            "complex" => {
                self.c.expect(b'<', "'<' after 'complex'")?;
                let inner_start = self.c.pos;
                let inner = self.c.identifier().and_then(FloatKind::from_name);
                let Some(inner) = inner else {
                    return Err(self
                        .c
                        .error_at(inner_start, "complex element type must be a float type"));
                };
                self.c.expect(b'>', "'>'")?;
                Ok(ElementKind::Complex(inner))
            }
            _ => {
                self.c.pos = start;
                Err(self.c.error_expected("an element type")
                    .with_hint("element types are iN, siN, uiN, f16, bf16, f32, f64, f8E4M3FN and the other float formats, complex<f32>, index, or !quant.uniform<…>")
                    .into())
            }
        }
    }

    fn parse_dialect_type(&mut self) -> PResult<Type> {
        let start = self.c.pos;
        if self.c.eat_str("!stablehlo.token") {
            return Ok(Type::Token);
        }
        if self.c.eat_str("!stablehlo.future") {
            self.c.expect(b'<', "'<' after '!stablehlo.future'")?;
            let mut elements = vec![self.parse_type()?];
            while self.c.eat(b',') {
                elements.push(self.parse_type()?);
            }
            self.c.expect(b'>', "'>' to close the future type")?;
            return Ok(Type::Future(elements));
        }
        if self.c.peek_str("!quant.uniform") {
            return Ok(Type::Element(ElementKind::Quantized(Box::new(
                self.parse_quantized()?,
            ))));
        }
        self.c.expect(b'!', "'!'")?;
        if self.c.suffix_name().is_none() {
            return Err(self
                .c
                .error_at(start, "expected a dialect type name after '!'"));
        }
        if self.c.src.as_bytes().get(self.c.pos) == Some(&b'<') {
            self.c.pos += 1;
            self.c.balanced(start)?;
        }
        Ok(Type::Opaque(self.c.src[start..self.c.pos].to_string()))
    }

    fn parse_quantized(&mut self) -> PResult<QuantizedType> {
        self.c.expect_str("!quant.uniform")?;
        self.c.expect(b'<', "'<' after '!quant.uniform'")?;
        let storage_start = self.c.pos;
        let storage_word = self.c.identifier().unwrap_or("");
        let storage = match storage_word.as_bytes() {
            [b'i', rest @ ..] | [b'u', rest @ ..] if !rest.is_empty() => {
                let width: u32 = std::str::from_utf8(rest)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| {
                        self.c
                            .error_at(storage_start, "expected a storage type like i8 or u8")
                    })?;
                ElementKind::Integer {
                    width,
                    signedness: if storage_word.starts_with('u') {
                        Signedness::Unsigned
                    } else {
                        Signedness::Signed
                    },
                }
            }
            _ => {
                return Err(self
                    .c
                    .error_at(storage_start, "expected a storage type like i8 or u8"));
            }
        };
        let storage_range = if self.c.eat(b'<') {
            let min = self.c.integer()? as i64;
            self.c.expect(b':', "':' in the storage range")?;
            let max = self.c.integer()? as i64;
            self.c.expect(b'>', "'>'")?;
            Some((min, max))
        } else {
            None
        };
        self.c.expect(b':', "':' after the storage type")?;
        let expressed = self.parse_element_kind()?;
        let axis = if self.c.eat(b':') {
            Some(self.c.integer()? as i64)
        } else {
            None
        };
        self.c.expect(b',', "',' before the scale")?;
        let mut parameters = Vec::new();
        if self.c.eat(b'{') {
            loop {
                parameters.push(self.parse_scale_and_zero_point()?);
                if self.c.eat(b'}') {
                    break;
                }
                self.c.expect(b',', "',' or '}'")?;
            }
        } else {
            parameters.push(self.parse_scale_and_zero_point()?);
        }
        self.c.expect(b'>', "'>' to close the quantized type")?;
        Ok(QuantizedType {
            storage,
            storage_range,
            expressed,
            axis,
            parameters,
        })
    }

    fn parse_scale_and_zero_point(&mut self) -> PResult<(f64, i64)> {
        let start = self.c.pos;
        let scale = self
            .c
            .number_text()
            .and_then(|t| t.parse::<f64>().ok())
            .ok_or_else(|| self.c.error_at(start, "expected a scale"))?;
        let zero_point = if self.c.eat(b':') {
            self.c.integer()? as i64
        } else {
            0
        };
        Ok((scale, zero_point))
    }
}

/// `i32`, `si8`, `ui4`.
fn integer_kind(word: &str) -> Option<ElementKind> {
    let (signedness, digits) = if let Some(rest) = word.strip_prefix("si") {
        (Signedness::Signed, rest)
    } else if let Some(rest) = word.strip_prefix("ui") {
        (Signedness::Unsigned, rest)
    } else {
        (Signedness::Signless, word.strip_prefix('i')?)
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let width: u32 = digits.parse().ok()?;
    (width > 0).then_some(ElementKind::Integer { width, signedness })
}

/// Appends `ty` as MLIR prints it.
pub fn print_type(out: &mut String, ty: &Type) {
    match ty {
        Type::Tensor(tensor) => print_tensor(out, tensor),
        Type::Element(kind) => print_element_kind(out, kind),
        Type::Token => out.push_str("!stablehlo.token"),
        Type::Tuple(elements) => {
            out.push_str("tuple<");
            print_type_list(out, elements);
            out.push('>');
        }
        Type::Future(elements) => {
            out.push_str("!stablehlo.future<");
            print_type_list(out, elements);
            out.push('>');
        }
        Type::Function(function) => print_function_type(out, function),
        Type::None => out.push_str("none"),
        Type::Opaque(text) => out.push_str(text),
    }
}

/// Appends `t0, t1, …`.
pub fn print_type_list(out: &mut String, types: &[Type]) {
    for (i, ty) in types.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        print_type(out, ty);
    }
}

/// Appends `(inputs) -> results`.
pub fn print_function_type(out: &mut String, function: &FunctionType) {
    out.push('(');
    print_type_list(out, &function.inputs);
    out.push_str(") -> ");
    print_result_types(out, &function.results);
}

/// Appends the result side of a function type: a lone non-function type bare,
/// anything else parenthesized.
pub fn print_result_types(out: &mut String, results: &[Type]) {
    if let [single] = results
        && !matches!(single, Type::Function(_))
    {
        print_type(out, single);
        return;
    }
    out.push('(');
    print_type_list(out, results);
    out.push(')');
}

fn print_tensor(out: &mut String, tensor: &TensorType) {
    out.push_str("tensor<");
    match &tensor.dims {
        None => out.push_str("*x"),
        Some(dims) => {
            for dim in dims {
                match dim {
                    Dim::Static(n) => out.push_str(&n.to_string()),
                    Dim::Dynamic => out.push('?'),
                }
                out.push('x');
            }
        }
    }
    print_element_kind(out, &tensor.element);
    if let Some(encoding) = &tensor.encoding {
        out.push_str(", ");
        crate::text::attributes::print_attribute(out, encoding);
    }
    out.push('>');
}

/// Appends an element type.
pub fn print_element_kind(out: &mut String, kind: &ElementKind) {
    match kind {
        ElementKind::Integer { width, signedness } => {
            out.push_str(match signedness {
                Signedness::Signless => "i",
                Signedness::Signed => "si",
                Signedness::Unsigned => "ui",
            });
            out.push_str(&width.to_string());
        }
        ElementKind::Float(kind) => out.push_str(kind.name()),
        ElementKind::Index => out.push_str("index"),
        ElementKind::Complex(kind) => {
            out.push_str("complex<");
            out.push_str(kind.name());
            out.push('>');
        }
        ElementKind::Quantized(q) => print_quantized(out, q),
    }
}

fn print_quantized(out: &mut String, q: &QuantizedType) {
    out.push_str("!quant.uniform<");
    if let ElementKind::Integer { width, signedness } = &q.storage {
        out.push(if *signedness == Signedness::Unsigned {
            'u'
        } else {
            'i'
        });
        out.push_str(&width.to_string());
    }
    if let Some((min, max)) = q.storage_range {
        out.push_str(&format!("<{min}:{max}>"));
    }
    out.push(':');
    print_element_kind(out, &q.expressed);
    if let Some(axis) = q.axis {
        out.push_str(&format!(":{axis}, {{"));
        for (i, &(scale, zero_point)) in q.parameters.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            print_scale_and_zero_point(out, scale, zero_point);
        }
        out.push('}');
    } else if let Some(&(scale, zero_point)) = q.parameters.first() {
        out.push_str(", ");
        print_scale_and_zero_point(out, scale, zero_point);
    }
    out.push('>');
}

fn print_scale_and_zero_point(out: &mut String, scale: f64, zero_point: i64) {
    // MLIR streams the scale as a double, which is C's `%e`.
    out.push_str(&c_exponent_format(scale));
    if zero_point != 0 {
        out.push_str(&format!(":{zero_point}"));
    }
}

/// C's `printf("%e", value)`.
pub(crate) fn c_exponent_format(value: f64) -> String {
    let text = format!("{value:.6e}");
    let Some((mantissa, exponent)) = text.split_once('e') else {
        return text;
    };
    let (sign, digits) = match exponent.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exponent),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

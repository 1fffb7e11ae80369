//! The attributes any instruction may carry in HLO text — sharding, frontend
//! attributes, control predecessors, statistics, result accuracy, origin,
//! metadata and backend config — parse and print side by side.
//!
//! They print after the family attributes and called computations, in this order:
//! `sharding`, `frontend_attributes`, `control-predecessors` (long form only),
//! `statistics`, `result_accuracy`, `origin`, `metadata` (long form only),
//! `backend_config`.

use std::sync::Arc;

use crate::attrs::{FrontendAttributes, Metadata, ResultAccuracy, Statistics};
use crate::text::fast::byte_scan::{TextKey, same_text};
use crate::text::float::format_g;
use crate::text::integers::{push_int, push_int_list};
use crate::text::lexer::{Tok, escape_into};
use crate::text::parser::{PResult, Parser};

impl Metadata {
    /// Appends the space-separated fields (without braces); the output must end
    /// with the opening `{`.
    pub fn print_fields(&self, out: &mut String) {
        fn sep(out: &mut String) {
            if !out.ends_with('{') {
                out.push(' ');
            }
        }
        fn string(out: &mut String, name: &str, value: &str) {
            if !value.is_empty() {
                sep(out);
                out.push_str(name);
                out.push_str("=\"");
                escape_into(out, value);
                out.push('"');
            }
        }
        fn int(out: &mut String, name: &str, value: i32) {
            if value != 0 {
                sep(out);
                out.push_str(name);
                out.push('=');
                push_int(out, i64::from(value));
            }
        }
        string(out, "op_type", self.op_type.as_deref().unwrap_or(""));
        string(out, "op_name", &self.op_name);
        string(
            out,
            "source_file",
            self.source_file.as_deref().unwrap_or(""),
        );
        int(out, "source_line", self.source_line);
        if let Some(more) = self.more.as_deref() {
            int(out, "source_end_line", more.source_end_line);
            int(out, "source_column", more.source_column);
            int(out, "source_end_column", more.source_end_column);
            if !more.profile_type.is_empty() {
                sep(out);
                out.push_str("profile_type=");
                push_int_list(out, &more.profile_type);
            }
            string(out, "deduplicated_name", &more.deduplicated_name);
            if more.preserve_layout {
                sep(out);
                out.push_str("preserve_layout=true");
            }
            string(out, "scheduling_name", &more.scheduling_name);
        }
        int(out, "stack_frame_id", self.stack_frame_id);
    }
}

impl FrontendAttributes {
    /// Appends `{k=v,…}`.
    pub fn print(&self, out: &mut String) {
        out.push('{');
        for (i, (k, v)) in self.entries.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(k);
            out.push('=');
            print_string_or_dict(out, v);
        }
        out.push('}');
    }
}

/// Appends `value` raw if it is a brace dict (`{…}` with balanced braces), else
/// quoted with C escapes — XLA's rule for backend configs and frontend attribute
/// values.
pub fn print_string_or_dict(out: &mut String, value: &str) {
    if lexes_as_dict(value) {
        out.push_str(value);
    } else {
        out.push('"');
        escape_into(out, value);
        out.push('"');
    }
}

/// Whether `text` is `{…}` with balanced braces (skipping `"…"` and `'…'`
/// strings) from its first byte to its last: exactly what the parser reads back
/// as a raw dict (surrounding whitespace would be lost).
pub fn lexes_as_dict(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'{') {
        return false;
    }
    let mut i = 0;
    let mut depth = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1 == bytes.len();
                }
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

impl<'s> Parser<'s> {
    /// `{op_type="…" op_name="…" source_line=N …}`; commas are optional.
    pub(crate) fn metadata(&mut self) -> PResult<Metadata> {
        if self.byte_readers
            && self.at(Tok::LBrace)
            && let Some((mut m, end)) = self.scan_metadata(self.tok.start as usize)
        {
            self.seek(end);
            m.tidy();
            return Ok(m);
        }
        self.expect(Tok::LBrace, "'{' starting metadata")?;
        let mut m = Metadata::default();
        loop {
            if self.eat(Tok::RBrace) {
                m.tidy();
                return Ok(m);
            }
            self.eat(Tok::Comma);
            if self.eat(Tok::RBrace) {
                m.tidy();
                return Ok(m);
            }
            let span = self.span();
            if !self.at(Tok::AttrName) {
                return Err(self.error(format!(
                    "expected a metadata field like op_name=\"…\", found {}",
                    self.found()
                )));
            }
            let name = self.cur_text();
            self.bump();
            match name {
                "op_type" => m.op_type = Some(self.shared_string()?),
                "op_name" => m.op_name = self.string()?.into(),
                "source_file" => m.source_file = Some(self.shared_string()?),
                "source_line" => m.source_line = self.int32()?,
                "source_end_line" => m.more_mut().source_end_line = self.int32()?,
                "source_column" => m.more_mut().source_column = self.int32()?,
                "source_end_column" => m.more_mut().source_end_column = self.int32()?,
                "profile_type" => m.more_mut().profile_type = self.int_list()?.into(),
                "deduplicated_name" => m.more_mut().deduplicated_name = self.string()?.into(),
                "scheduling_name" => m.more_mut().scheduling_name = self.string()?.into(),
                "stack_frame_id" => m.stack_frame_id = self.int32()?,
                "preserve_layout" => m.more_mut().preserve_layout = self.bool()?,
                _ => {
                    return Err(self
                        .error_at(span, format!("unknown metadata field '{name}'"))
                        .with_hint("metadata fields are op_type, op_name, source_file, source_line, source_end_line, source_column, source_end_column, profile_type, deduplicated_name, scheduling_name, stack_frame_id and preserve_layout"));
                }
            }
        }
    }

    /// Reads metadata in the form XLA prints it (`{op_name="…" source_line=1}`:
    /// single spaces, strings without escapes) straight from the bytes; `None`
    /// sends anything else to the token-by-token parser.
    fn scan_metadata(&mut self, start: usize) -> Option<(Metadata, usize)> {
        let src = self.src;
        let bytes = src.as_bytes();
        let mut m = Metadata::default();
        let mut i = start + 1;
        // Fields are separated by spaces and at most one comma, as the token
        // parser reads them; a second comma is its error to report.
        let mut comma = false;
        loop {
            match *bytes.get(i)? {
                b'}' => return Some((m, i + 1)),
                b' ' => {
                    i += 1;
                    continue;
                }
                b',' if !comma => {
                    comma = true;
                    i += 1;
                    continue;
                }
                b',' => return None,
                _ => comma = false,
            }
            // A key runs to its `=` (the longest is 17 bytes); a key that is
            // not one of those matched below sends the metadata to the token
            // parser.
            let window = bytes.get(i..bytes.len().min(i + 24))?;
            let key_length = memchr::memchr(b'=', window)?;
            let key = &src[i..i + key_length];
            i += key_length + 1;
            if bytes.get(i) == Some(&b'"') {
                let body_start = i + 1;
                let length = memchr::memchr3(b'"', b'\\', b'\n', &bytes[body_start..])?;
                if bytes[body_start + length] != b'"' {
                    return None;
                }
                let value = &src[body_start..body_start + length];
                i = body_start + length + 1;
                match key {
                    "op_type" => m.op_type = Some(self.share(value)),
                    "op_name" => m.op_name = value.into(),
                    "source_file" => m.source_file = Some(self.share(value)),
                    "deduplicated_name" => m.more_mut().deduplicated_name = value.into(),
                    "scheduling_name" => m.more_mut().scheduling_name = value.into(),
                    _ => return None,
                }
            } else {
                let (value, end) = crate::text::parser::scan_int(bytes, i)?;
                let value = i32::try_from(value).ok()?;
                i = end;
                match key {
                    "source_line" => m.source_line = value,
                    "source_end_line" => m.more_mut().source_end_line = value,
                    "source_column" => m.more_mut().source_column = value,
                    "source_end_column" => m.more_mut().source_end_column = value,
                    "stack_frame_id" => m.stack_frame_id = value,
                    _ => return None,
                }
            }
        }
    }

    /// `value` as a shared string, reusing an equal one seen before.
    fn share(&mut self, value: &'s str) -> Arc<str> {
        if let Some((last, shared)) = &self.last_shared
            && same_text(last, value)
        {
            return shared.clone();
        }
        let shared = self
            .shared_strings
            .entry(TextKey(value))
            .or_insert_with(|| Arc::from(value))
            .clone();
        self.last_shared = Some((value, shared.clone()));
        shared
    }

    /// A 32-bit integer (XLA's metadata fields are `int32`).
    fn int32(&mut self) -> PResult<i32> {
        let span = self.span();
        let v = self.int()?;
        i32::try_from(v).map_err(|_| self.error_at(span, "value out of range for int32_t"))
    }

    /// A string that is likely to repeat, shared with earlier equal strings.
    fn shared_string(&mut self) -> PResult<Arc<str>> {
        // Shared strings are kept by what is written between their quotes, as
        // the metadata reader keeps them: only a string token without escapes
        // may be looked up (a bare word never is, whatever its text).
        let text = self.cur_text();
        let written = text
            .get(1..text.len().saturating_sub(1))
            .unwrap_or_default();
        if !self.at(Tok::Str) || written.contains('\\') {
            return Ok(self.string()?.into());
        }
        if let Some(shared) = self.shared_strings.get(&TextKey(written)) {
            let shared = shared.clone();
            self.bump();
            return Ok(shared);
        }
        let value: Arc<str> = self.string()?.into();
        self.shared_strings.insert(TextKey(written), value.clone());
        Ok(value)
    }

    /// `{key="value", key={dict}, …}`.
    pub(crate) fn frontend_attributes(&mut self) -> PResult<FrontendAttributes> {
        self.expect(Tok::LBrace, "'{' starting frontend attributes")?;
        let mut attrs = FrontendAttributes::default();
        if self.eat(Tok::RBrace) {
            return Ok(attrs);
        }
        loop {
            let key = match self.kind() {
                Tok::AttrName => {
                    let k = self.cur_text().to_string();
                    self.bump();
                    k
                }
                Tok::Str => {
                    let k = self.string()?;
                    self.expect(Tok::Equal, "'=' after the key")?;
                    k
                }
                _ => {
                    return Err(self.error(format!(
                        "expected a frontend attribute like key=\"value\", found {}",
                        self.found()
                    )));
                }
            };
            let value = if self.at(Tok::LBrace) {
                self.raw_braced()?.to_string()
            } else {
                self.string()?
            };
            attrs.set(key, value);
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RBrace, "',' or '}' in frontend attributes")?;
            return Ok(attrs);
        }
    }

    /// `"escaped string"` or a raw `{…}` dict.
    pub(crate) fn string_or_dict(&mut self) -> PResult<String> {
        if self.at(Tok::LBrace) {
            Ok(self.raw_braced()?.to_string())
        } else {
            self.string()
        }
    }

    /// `{visualizing_index=1,stat-1=33,…}`.
    pub(crate) fn statistics(&mut self) -> PResult<Statistics> {
        self.expect(Tok::LBrace, "'{' starting statistics")?;
        let mut stats = Statistics::default();
        if self.eat(Tok::RBrace) {
            return Ok(stats);
        }
        loop {
            if !self.at(Tok::AttrName) {
                return Err(self.error(format!(
                    "expected a statistic like name=1.5, found {}",
                    self.found()
                )));
            }
            let name = self.cur_text();
            self.bump();
            if name == "visualizing_index" {
                stats.visualizing_index = self.int()?;
            } else {
                let value = self.number()?;
                stats.stats.push((name.to_string(), value));
            }
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RBrace, "',' or '}' in statistics")?;
            return Ok(stats);
        }
    }

    /// An integer or decimal as `f64`.
    pub(crate) fn number(&mut self) -> PResult<f64> {
        match self.kind() {
            Tok::Int | Tok::Decimal => {
                let text = self.cur_text();
                let v = crate::text::float::parse_f64(text)
                    .ok_or_else(|| self.error(format!("malformed number '{text}'")))?;
                self.bump();
                Ok(v)
            }
            Tok::Ident if matches!(self.cur_text(), "inf" | "nan") => {
                let v = if self.cur_text() == "inf" {
                    f64::INFINITY
                } else {
                    f64::NAN
                };
                self.bump();
                Ok(v)
            }
            _ => Err(self.error(format!("expected a number, found {}", self.found()))),
        }
    }

    /// `{mode=highest}` or `{tolerance={atol=…,rtol=…,ulps=…}}`.
    pub(crate) fn result_accuracy(&mut self) -> PResult<ResultAccuracy> {
        self.expect(Tok::LBrace, "'{' starting result_accuracy")?;
        let span = self.span();
        if !self.at(Tok::AttrName) {
            return Err(self.error("expects attribute name"));
        }
        let name = self.cur_text();
        self.bump();
        let accuracy = match name {
            "mode" => {
                let span = self.span();
                let word = self.ident("a result accuracy mode")?;
                let lower = word.to_ascii_lowercase();
                if lower != "default" && lower != "highest" {
                    return Err(self
                        .error_at(
                            span,
                            format!("expects ResultAccuracy type but sees: {word}"),
                        )
                        .with_hint("modes are default and highest"));
                }
                ResultAccuracy::Mode(lower)
            }
            "tolerance" => {
                self.expect(Tok::LBrace, "'{' starting the tolerance")?;
                let (mut atol, mut rtol, mut ulps) = (0.0, 0.0, 0);
                loop {
                    if self.eat(Tok::RBrace) {
                        break;
                    }
                    self.eat(Tok::Comma);
                    let field_span = self.span();
                    if !self.at(Tok::AttrName) {
                        return Err(self.error("expects attribute name"));
                    }
                    let field = self.cur_text();
                    self.bump();
                    match field {
                        "atol" => atol = self.number()?,
                        "rtol" => rtol = self.number()?,
                        "ulps" => ulps = self.int()?,
                        _ => {
                            return Err(self.error_at(
                                field_span,
                                format!("invalid attribute name '{field}' in the tolerance"),
                            ));
                        }
                    }
                }
                ResultAccuracy::Tolerance { atol, rtol, ulps }
            }
            _ => {
                return Err(self
                    .error_at(
                        span,
                        format!("invalid attribute name '{name}' in result_accuracy"),
                    )
                    .with_hint(
                        "result_accuracy is {mode=highest} or {tolerance={atol=…,rtol=…,ulps=…}}",
                    ));
            }
        };
        self.expect(Tok::RBrace, "'}' closing result_accuracy")?;
        Ok(accuracy)
    }
}

impl Statistics {
    /// Appends `{visualizing_index=N,name=value,…}`.
    pub fn print(&self, out: &mut String) {
        out.push_str("{visualizing_index=");
        push_int(out, self.visualizing_index);
        for (name, value) in &self.stats {
            out.push(',');
            out.push_str(name);
            out.push('=');
            out.push_str(&format_g(*value, 6));
        }
        out.push('}');
    }
}

impl ResultAccuracy {
    /// Appends `{mode=…}` or `{tolerance={…}}`.
    pub fn print(&self, out: &mut String) {
        match self {
            ResultAccuracy::Mode(mode) => {
                out.push_str("{mode=");
                out.push_str(mode);
                out.push('}');
            }
            ResultAccuracy::Tolerance { atol, rtol, ulps } => {
                out.push_str("{tolerance={atol=");
                out.push_str(&format_g(*atol, 6));
                out.push_str(",rtol=");
                out.push_str(&format_g(*rtol, 6));
                out.push_str(",ulps=");
                push_int(out, *ulps);
                out.push_str("}}");
            }
        }
    }
}

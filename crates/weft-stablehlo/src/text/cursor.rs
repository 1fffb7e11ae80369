//! Character-level reading of MLIR text: trivia (whitespace, `//` comments),
//! punctuation, identifiers, numbers and string literals.
//!
//! MLIR's grammar is context-sensitive at the character level (`2x3xf32` inside
//! `tensor<…>` is three tokens), so the parser reads through this cursor rather
//! than a token stream. Every read skips trivia first; every error carries the
//! byte offset where reading stopped.
//!
//! The cursor also counts how deeply the text being read nests ([`MAX_DEPTH`]):
//! regions, attributes, types, dense literals and locations are read by
//! recursion, and the brackets of a dialect attribute kept as text are
//! checked against the same budget, so hostile text gets a located error, not
//! a stack overflow.

use weft_ir::{Diagnostic, Span};

use crate::text::parser::IntoHint;

/// How many levels MLIR text may nest: regions in regions, attributes in
/// attributes (the brackets of dialect attributes kept as text included),
/// types in types, dense literals and locations, all counted together along
/// one path from the file's top. Real programs nest a few dozen levels;
/// the limit keeps hostile text from exhausting the stack, and leaves room
/// for what weft writes itself: an exported HLO module nests regions at most
/// [`weft_ir::MAX_CALL_DEPTH`] deep, and its types as deep as HLO text nests
/// shapes ([`weft_ir::shape::MAX_SHAPE_DEPTH`]). Dense literals, as deep as
/// their tensor's rank, are read without recursion and do not count.
pub const MAX_DEPTH: u32 = 512;

/// A position in a source text.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    pub(crate) src: &'a str,
    pub(crate) pos: usize,
    /// How many levels the reader has gone down ([`MAX_DEPTH`]).
    pub(crate) depth: u32,
}

/// Parse results.
pub(crate) type PResult<T> = Result<T, Box<Diagnostic>>;

impl<'a> Cursor<'a> {
    pub(crate) fn new(src: &'a str) -> Cursor<'a> {
        Cursor {
            src,
            pos: 0,
            depth: 0,
        }
    }

    /// Goes one nesting level down, or fails at the cursor when that would
    /// pass [`MAX_DEPTH`]. Each successful call is paired with [`Cursor::ascend`].
    pub(crate) fn descend(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            self.skip_trivia();
            return Err(self.too_deep(self.pos));
        }
        self.depth += 1;
        Ok(())
    }

    /// Comes back up the level [`Cursor::descend`] went down.
    pub(crate) fn ascend(&mut self) {
        self.depth -= 1;
    }

    /// The error for text that nests past [`MAX_DEPTH`] at byte `offset`.
    fn too_deep(&self, offset: usize) -> Box<Diagnostic> {
        self.error_at(offset, format!("nesting is more than {MAX_DEPTH} levels deep"))
            .into_hint(&format!(
                "weft reads regions, attributes, types and locations nested at most {MAX_DEPTH} levels deep"
            ))
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    /// Skips whitespace and `//` comments.
    pub(crate) fn skip_trivia(&mut self) {
        let bytes = self.bytes();
        loop {
            while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if bytes[self.pos..].starts_with(b"//") {
                while self.pos < bytes.len() && bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                return;
            }
        }
    }

    /// The next significant byte (0 at the end).
    pub(crate) fn peek(&mut self) -> u8 {
        self.skip_trivia();
        self.bytes().get(self.pos).copied().unwrap_or(0)
    }

    /// The byte after the next significant one.
    pub(crate) fn peek_second(&mut self) -> u8 {
        self.skip_trivia();
        self.bytes().get(self.pos + 1).copied().unwrap_or(0)
    }

    /// Whether the input is used up.
    pub(crate) fn at_end(&mut self) -> bool {
        self.peek() == 0 && self.pos >= self.src.len()
    }

    /// Whether the next significant text starts with `text`.
    pub(crate) fn peek_str(&mut self, text: &str) -> bool {
        self.skip_trivia();
        self.src[self.pos..].starts_with(text)
    }

    /// Consumes `byte` if it is next.
    pub(crate) fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == byte {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes `text` if it is next.
    pub(crate) fn eat_str(&mut self, text: &str) -> bool {
        if self.peek_str(text) {
            self.pos += text.len();
            true
        } else {
            false
        }
    }

    /// Consumes `byte` or fails with "expected `what`".
    pub(crate) fn expect(&mut self, byte: u8, what: &str) -> PResult<()> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(self.error_expected(what))
        }
    }

    /// Consumes `text` or fails.
    pub(crate) fn expect_str(&mut self, text: &str) -> PResult<()> {
        if self.eat_str(text) {
            Ok(())
        } else {
            Err(self.error_expected(&format!("'{text}'")))
        }
    }

    /// The bare identifier at the cursor, without consuming it.
    pub(crate) fn peek_identifier(&mut self) -> Option<&'a str> {
        self.skip_trivia();
        let bytes = self.bytes();
        let start = self.pos;
        let first = *bytes.get(start)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let mut end = start + 1;
        while end < bytes.len() && is_identifier_byte(bytes[end]) {
            end += 1;
        }
        Some(&self.src[start..end])
    }

    /// Consumes a bare identifier (`[a-zA-Z_][a-zA-Z0-9_$.]*`).
    pub(crate) fn identifier(&mut self) -> Option<&'a str> {
        let word = self.peek_identifier()?;
        self.pos += word.len();
        Some(word)
    }

    /// Consumes the keyword `word` if it is the next whole identifier.
    pub(crate) fn eat_keyword(&mut self, word: &str) -> bool {
        if self.peek_identifier() == Some(word) {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    /// Consumes the keyword `word` or fails.
    pub(crate) fn expect_keyword(&mut self, word: &str) -> PResult<()> {
        if self.eat_keyword(word) {
            Ok(())
        } else {
            Err(self.error_expected(&format!("'{word}'")))
        }
    }

    /// Consumes the name after a sigil (`%`, `@`, `^`, `#`, `!`): letters,
    /// digits and `_$.-`. Returns `None` if there is none.
    pub(crate) fn suffix_name(&mut self) -> Option<&'a str> {
        let bytes = self.bytes();
        let start = self.pos;
        let mut end = start;
        while end < bytes.len() && (is_identifier_byte(bytes[end]) || bytes[end] == b'-') {
            end += 1;
        }
        if end == start {
            return None;
        }
        self.pos = end;
        Some(&self.src[start..end])
    }

    /// Consumes an integer literal (decimal or `0x` hex, optionally negative).
    pub(crate) fn integer(&mut self) -> PResult<i128> {
        self.skip_trivia();
        let start = self.pos;
        let negative = self.eat(b'-');
        let bytes = self.bytes();
        let digits_start = self.pos;
        let value = if bytes[self.pos..].starts_with(b"0x") {
            self.pos += 2;
            let hex_start = self.pos;
            while self.pos < bytes.len() && bytes[self.pos].is_ascii_hexdigit() {
                self.pos += 1;
            }
            u128::from_str_radix(&self.src[hex_start..self.pos], 16).ok()
        } else {
            while self.pos < bytes.len() && bytes[self.pos].is_ascii_digit() {
                self.pos += 1;
            }
            self.src[digits_start..self.pos].parse::<u128>().ok()
        };
        let Some(magnitude) = value.filter(|_| self.pos > digits_start) else {
            self.pos = start;
            return Err(self.error_expected("an integer"));
        };
        let magnitude = i128::try_from(magnitude)
            .map_err(|_| self.error_at(start, "integer literal is too large"))?;
        Ok(if negative { -magnitude } else { magnitude })
    }

    /// Consumes a number literal and returns its text: `-`? digits (`.` digits)?
    /// (`e` `±`? digits)?, or a `0x` hex literal. `None` if there is none.
    pub(crate) fn number_text(&mut self) -> Option<&'a str> {
        self.skip_trivia();
        let bytes = self.bytes();
        let start = self.pos;
        let mut end = start;
        if bytes.get(end) == Some(&b'-') || bytes.get(end) == Some(&b'+') {
            end += 1;
        }
        if !bytes.get(end).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        if bytes[end..].starts_with(b"0x") {
            end += 2;
            while end < bytes.len() && bytes[end].is_ascii_hexdigit() {
                end += 1;
            }
        } else {
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            if bytes.get(end) == Some(&b'.') {
                end += 1;
                while end < bytes.len() && bytes[end].is_ascii_digit() {
                    end += 1;
                }
            }
            if matches!(bytes.get(end), Some(b'e' | b'E')) {
                let mut exponent = end + 1;
                if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
                    exponent += 1;
                }
                if bytes.get(exponent).is_some_and(u8::is_ascii_digit) {
                    end = exponent;
                    while end < bytes.len() && bytes[end].is_ascii_digit() {
                        end += 1;
                    }
                }
            }
        }
        self.pos = end;
        Some(&self.src[start..end])
    }

    /// Consumes a string literal and returns its decoded contents. MLIR escapes
    /// are `\\`, `\"`, `\n`, `\t` and `\XX` (two hex digits, a byte).
    pub(crate) fn string(&mut self) -> PResult<String> {
        self.skip_trivia();
        let start = self.pos;
        if !self.eat(b'"') {
            return Err(self.error_expected("a string literal"));
        }
        let bytes = self.bytes();
        let mut out = Vec::new();
        loop {
            let Some(&b) = bytes.get(self.pos) else {
                return Err(self.error_at(start, "unterminated string literal"));
            };
            self.pos += 1;
            match b {
                b'"' => break,
                b'\n' => return Err(self.error_at(start, "unterminated string literal")),
                b'\\' => {
                    let Some(&escaped) = bytes.get(self.pos) else {
                        return Err(self.error_at(start, "unterminated string literal"));
                    };
                    self.pos += 1;
                    match escaped {
                        b'\\' | b'"' | b'\'' => out.push(escaped),
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        _ if escaped.is_ascii_hexdigit()
                            && bytes.get(self.pos).is_some_and(u8::is_ascii_hexdigit) =>
                        {
                            let hex = &self.src[self.pos - 1..self.pos + 1];
                            out.push(u8::from_str_radix(hex, 16).unwrap_or(0));
                            self.pos += 1;
                        }
                        _ => {
                            return Err(
                                self.error_at(self.pos - 2, "unknown escape in string literal")
                            );
                        }
                    }
                }
                _ => out.push(b),
            }
        }
        String::from_utf8(out).map_err(|_| self.error_at(start, "string literal is not UTF-8"))
    }

    /// Consumes text up to the `close` that balances an already consumed
    /// `open`, honouring nested `<>`, `()`, `[]`, `{}` and string literals, and
    /// returns what was between them.
    /// The brackets count against [`MAX_DEPTH`]: readers of the text
    /// (`ir::dialect_attr`) recurse on them.
    pub(crate) fn balanced(&mut self, start: usize) -> PResult<&'a str> {
        let bytes = self.bytes();
        let mut depth = 1u32;
        let inner_start = self.pos;
        while self.pos < bytes.len() {
            let b = bytes[self.pos];
            match b {
                b'"' => {
                    self.string()?;
                    continue;
                }
                b'<' | b'(' | b'[' | b'{' => {
                    depth += 1;
                    if self.depth + depth > MAX_DEPTH {
                        return Err(self.too_deep(self.pos));
                    }
                }
                b'>' if self.pos > 0 && bytes[self.pos - 1] == b'-' => {}
                b'>' | b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        let inner = &self.src[inner_start..self.pos];
                        self.pos += 1;
                        return Ok(inner);
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        Err(self.error_at(start, "unbalanced brackets: this is never closed"))
    }

    /// An error at the cursor: "expected `what`", naming what was found.
    pub(crate) fn error_expected(&mut self, what: &str) -> Box<Diagnostic> {
        self.skip_trivia();
        let found = self.describe_next();
        let end = self.pos + self.next_token_len();
        Box::new(
            Diagnostic::error(
                Span::new(self.pos, end),
                format!("expected {what}, found {found}"),
            )
            .with_label(format!("expected {what}")),
        )
    }

    /// An error at byte `offset`.
    pub(crate) fn error_at(&self, offset: usize, message: impl Into<String>) -> Box<Diagnostic> {
        let mut probe = self.clone();
        probe.pos = offset;
        let end = offset + probe.next_token_len();
        Box::new(Diagnostic::error(Span::new(offset, end), message))
    }

    fn next_token_len(&self) -> usize {
        let bytes = self.bytes();
        let mut end = self.pos;
        while end < bytes.len()
            && (is_identifier_byte(bytes[end]) || b"%@#!^-".contains(&bytes[end]))
        {
            end += 1;
        }
        if end == self.pos && end < bytes.len() {
            end += self.src[end..].chars().next().map_or(1, char::len_utf8);
        }
        end - self.pos
    }

    fn describe_next(&self) -> String {
        if self.pos >= self.src.len() {
            return "end of input".to_string();
        }
        let len = self.next_token_len();
        format!("'{}'", &self.src[self.pos..self.pos + len])
    }
}

/// Whether `b` may continue a bare identifier.
pub(crate) fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.'
}

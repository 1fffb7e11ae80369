//! The HLO text lexer.
//!
//! The lexer is context-free and lazy: it produces one [`Token`] at a time from a
//! byte offset, and tokens carry byte ranges into the source rather than owned
//! values, so lexing allocates nothing. The parser decides what a token means in
//! context (for example whether `{` after an array shape opens a layout).
//!
//! The rules follow XLA's lexer:
//! - identifiers are `[A-Za-z_][A-Za-z0-9_.-]*`, optionally behind `%`; an identifier
//!   immediately followed by `:` is a [`Tok::Name`] and one immediately followed by
//!   `=` is a [`Tok::AttrName`] (so `dimensions = {0}` is not an attribute); a `%`
//!   name is never either;
//! - `/* … */` and `// …` are comments;
//! - numbers may carry a leading `-`; `NxM…` is [`Tok::DxD`], `lo_hi[_int]x…` is
//!   [`Tok::Pad`], and convolution dimension labels (`b01f_01io->b01f`) are
//!   [`Tok::DimLabels`].

/// The kind of a token.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Tok {
    /// End of input.
    Eof,
    /// A character no token starts with, or an unterminated string or comment.
    Error,
    /// `=`
    Equal,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `*`
    Star,
    /// `#`
    Hash,
    /// `+`
    Plus,
    /// `~`
    Tilde,
    /// `?`
    Question,
    /// `[`
    LSquare,
    /// `]`
    RSquare,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `->`
    Arrow,
    /// `<=`
    Leq,
    /// `...`
    Dots,
    /// An identifier or keyword, possibly behind `%` (the token text includes it).
    Ident,
    /// `name:`; the token text excludes the colon.
    Name,
    /// `name=`; the token text excludes the equals sign.
    AttrName,
    /// A quoted string, quotes included in the token text.
    Str,
    /// An integer, possibly negative.
    Int,
    /// A decimal number with a fraction or exponent, `-inf`, `-nan` or `-nan(0x…)`.
    Decimal,
    /// Convolution dimension labels.
    DimLabels,
    /// `NxMx…`.
    DxD,
    /// A padding spec `lo_hi[_interior]x…`.
    Pad,
}

/// A token: its kind and byte range in the source.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Token {
    /// What the token is.
    pub kind: Tok,
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset one past the last byte (excluding a trailing `:`/`=` for
    /// [`Tok::Name`]/[`Tok::AttrName`]).
    pub end: u32,
}

/// Lexes HLO text lazily.
pub struct Lexer<'s> {
    src: &'s [u8],
    /// Where the next token starts being searched for.
    pos: usize,
}

/// A table saying, for each byte `c`, whether `$test` (an expression over `c`)
/// holds: one load where the lexer's hot loops would test several ranges.
macro_rules! byte_table {
    ($c:ident => $test:expr) => {{
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            let $c = b as u8;
            table[b] = $test;
            b += 1;
        }
        table
    }};
}

/// Bytes that may continue an identifier: `[A-Za-z0-9_.-]`.
const IDENT_CONTINUE: [bool; 256] =
    byte_table!(c => crate::text::fast::byte_scan::is_identifier_byte(c));

/// Bytes of a run of dimension labels before its `_`: `[0-9bf?]`.
const DIM_LABEL_RUN: [bool; 256] =
    byte_table!(c => c.is_ascii_digit() || c == b'b' || c == b'f' || c == b'?');

#[inline]
fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

#[inline]
fn is_ident_continue(b: u8) -> bool {
    IDENT_CONTINUE[usize::from(b)]
}

/// Where an attribute name (`name=`) starting at `start` ends, if the lexer
/// reads one there: an identifier directly followed by `=`. Text that could
/// start dimension labels (`bf_…`) is left to the lexer.
pub(crate) fn attr_name_end(bytes: &[u8], start: usize) -> Option<usize> {
    named_before(bytes, start, b'=')
}

/// Where a parameter name of a computation signature (`name:`) starting at
/// `start` ends, if the lexer reads one there: an identifier directly
/// followed by `:`. Text that could start dimension labels is left to the
/// lexer.
pub(crate) fn param_name_end(bytes: &[u8], start: usize) -> Option<usize> {
    named_before(bytes, start, b':')
}

/// Where an identifier starting at `start` and directly followed by `marker`
/// ends, if the lexer reads one there.
fn named_before(bytes: &[u8], start: usize, marker: u8) -> Option<usize> {
    let first = *bytes.get(start)?;
    if !is_ident_start(first) {
        return None;
    }
    let second = bytes.get(start + 1).copied().unwrap_or(0);
    if DIM_LABEL_RUN[usize::from(first)] && DIM_LABEL_RUN[usize::from(second)] {
        return None;
    }
    let end = ident_run_end(bytes, start);
    (bytes.get(end) == Some(&marker)).then_some(end)
}

/// The position after the `/* … */` comment starting at `at`, or `at` itself
/// when no comment starts there; `None` when the comment is never closed
/// (the lexer's error to report). For the readers that skip XLA's
/// `/*index=N*/` markers straight from the bytes.
pub(crate) fn after_block_comment(bytes: &[u8], at: usize) -> Option<usize> {
    if !bytes.get(at..)?.starts_with(b"/*") {
        return Some(at);
    }
    // The `*/` closing it comes after the `/*` opening it: in `/*/ x */` the
    // first `*/` overlaps the opening and closes nothing.
    let body = at + 2;
    let close = bytes[body..].windows(2).position(|w| w == b"*/")?;
    Some(body + close + 2)
}

/// The end of the run of identifier bytes (`[A-Za-z0-9_.-]`) starting at
/// `from`: for scanners that read names straight from the bytes.
#[inline]
pub(crate) fn ident_run_end(bytes: &[u8], from: usize) -> usize {
    let Some(rest) = bytes.get(from..) else {
        return from;
    };
    // Every line has several names of 10–30 bytes: sixteen bytes are
    // classified per step while that many are left, then four are looked up
    // per step, and the step that meets the end is gone over byte by byte.
    let mut at = 0;
    while let Some(block) = rest.get(at..).and_then(|r| r.first_chunk::<16>()) {
        let outside = crate::text::fast::byte_scan::not_identifier_mask(block);
        if outside != 0 {
            return from + at + outside.trailing_zeros() as usize;
        }
        at += 16;
    }
    while let Some(&[a, b, c, d]) = rest.get(at..at + 4) {
        let run = is_ident_continue(a)
            & is_ident_continue(b)
            & is_ident_continue(c)
            & is_ident_continue(d);
        if !run {
            break;
        }
        at += 4;
    }
    while at < rest.len() && is_ident_continue(rest[at]) {
        at += 1;
    }
    from + at
}

impl<'s> Lexer<'s> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'s str) -> Self {
        Lexer {
            src: src.as_bytes(),
            pos: 0,
        }
    }

    /// The source being lexed.
    pub fn source(&self) -> &'s [u8] {
        self.src
    }

    /// The byte offset the next token will be searched from.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Moves the lexer to `pos` (a token boundary previously returned).
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos;
    }

    #[inline]
    fn byte(&self, at: usize) -> u8 {
        *self.src.get(at).unwrap_or(&0)
    }

    /// Skips whitespace and comments. Returns `Err(start)` for an unterminated
    /// block comment starting at `start`.
    #[inline]
    fn skip_trivia(&mut self) -> Result<(), usize> {
        loop {
            let b = self.byte(self.pos);
            match b {
                b' ' | b'\n' | b'\t' | b'\r' => self.pos += 1,
                b'/' => match self.byte(self.pos + 1) {
                    b'/' => {
                        let rest = &self.src[self.pos..];
                        match rest.iter().position(|&c| c == b'\n') {
                            Some(n) => self.pos += n + 1,
                            None => self.pos = self.src.len(),
                        }
                    }
                    b'*' => match after_block_comment(self.src, self.pos) {
                        Some(after) => self.pos = after,
                        None => return Err(self.pos),
                    },
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    /// Lexes the next token and advances past it.
    pub fn next_token(&mut self) -> Token {
        if let Err(start) = self.skip_trivia() {
            self.pos = self.src.len();
            return Token {
                kind: Tok::Error,
                start: start as u32,
                end: start as u32 + 2,
            };
        }
        let start = self.pos;
        let b = self.byte(start);
        let single = |kind| (kind, start + 1);
        let (kind, end) = match b {
            0 if start >= self.src.len() => (Tok::Eof, start),
            b'=' => single(Tok::Equal),
            b',' => single(Tok::Comma),
            b':' => single(Tok::Colon),
            b'*' => single(Tok::Star),
            b'#' => single(Tok::Hash),
            b'+' => single(Tok::Plus),
            b'~' => single(Tok::Tilde),
            b'?' => {
                // `??_??io->??` style dimension labels may start with `?`.
                match self.dim_labels(start) {
                    Some(end) => (Tok::DimLabels, end),
                    None => single(Tok::Question),
                }
            }
            b'[' => single(Tok::LSquare),
            b']' => single(Tok::RSquare),
            b'{' => single(Tok::LBrace),
            b'}' => single(Tok::RBrace),
            b'(' => single(Tok::LParen),
            b')' => single(Tok::RParen),
            b'<' if self.byte(start + 1) == b'=' => (Tok::Leq, start + 2),
            b'.' if self.byte(start + 1) == b'.' && self.byte(start + 2) == b'.' => {
                (Tok::Dots, start + 3)
            }
            b'"' | b'\'' => match self.string_end(start) {
                Some(end) => (Tok::Str, end),
                None => (Tok::Error, start + 1),
            },
            // As in XLA, a `%` name starts like an identifier (`%.x`, `%0` are
            // errors: the short form, which drops the `%`, could not re-read them).
            b'%' if !is_ident_start(self.byte(start + 1)) => (Tok::Error, start + 1),
            b'%' => {
                let end = self.name_end(start + 1);
                if end == start + 1 {
                    (Tok::Error, end)
                } else {
                    (Tok::Ident, end)
                }
            }
            b'-' if self.byte(start + 1) == b'>' => (Tok::Arrow, start + 2),
            b'-' => self.number(start),
            b'0'..=b'9' if self.plausible_dim_labels(start) => match self.dim_labels(start) {
                Some(end) => (Tok::DimLabels, end),
                None => self.number(start),
            },
            b'0'..=b'9' => self.number(start),
            b'.' if self.byte(start + 1).is_ascii_digit() => self.number(start),
            _ if is_ident_start(b) => {
                if (b == b'b' || b == b'f')
                    && self.plausible_dim_labels(start)
                    && let Some(end) = self.dim_labels(start)
                {
                    (Tok::DimLabels, end)
                } else {
                    let end = self.name_end(start + 1);
                    // `nan(0x…)`: a NaN with a payload is one decimal token.
                    if &self.src[start..end] == b"nan"
                        && self.byte(end) == b'('
                        && let Some(close) = self.src[end..].iter().position(|&c| c == b')')
                    {
                        self.pos = end + close + 1;
                        return Token {
                            kind: Tok::Decimal,
                            start: start as u32,
                            end: self.pos as u32,
                        };
                    }
                    match self.byte(end) {
                        b':' => {
                            self.pos = end + 1;
                            return Token {
                                kind: Tok::Name,
                                start: start as u32,
                                end: end as u32,
                            };
                        }
                        b'=' => {
                            self.pos = end + 1;
                            return Token {
                                kind: Tok::AttrName,
                                start: start as u32,
                                end: end as u32,
                            };
                        }
                        _ => (Tok::Ident, end),
                    }
                }
            }
            _ => (Tok::Error, start + utf8_len(b)),
        };
        self.pos = end.min(self.src.len());
        Token {
            kind,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The end of the identifier characters from `from` on. Names never
    /// swallow the `-` of a following `->`, so such a `-` is left out (down to
    /// `from` at the least).
    fn name_end(&self, from: usize) -> usize {
        let mut end = ident_run_end(self.src, from);
        while end > from && self.byte(end - 1) == b'-' && self.byte(end) == b'>' {
            end -= 1;
        }
        end
    }

    /// The end of a quoted string starting at `start`, if it is terminated.
    fn string_end(&self, start: usize) -> Option<usize> {
        let quote = self.src[start];
        let mut i = start + 1;
        while let Some(offset) = memchr::memchr3(quote, b'\\', b'\n', self.src.get(i..)?) {
            i += offset;
            match self.src[i] {
                b'\\' => i += 2,
                b'\n' => return None,
                _ => return Some(i + 1),
            }
        }
        None
    }

    /// A cheap pre-check for [`dim_labels`](Self::dim_labels): a run of
    /// `[0-9bf?]` followed by `_`.
    #[inline]
    fn plausible_dim_labels(&self, start: usize) -> bool {
        // Every number and every identifier starting with `b` or `f` (`bf16`,
        // `f32`, `broadcast`, …) comes through here: a plain loop over a
        // table, since almost every run ends within a few bytes.
        let rest = &self.src[start..];
        let mut run = 0;
        while run < rest.len() && DIM_LABEL_RUN[usize::from(rest[run])] {
            run += 1;
        }
        run >= 2 && rest.get(run) == Some(&b'_')
    }

    /// Matches `[0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}` at `start`.
    fn dim_labels(&self, start: usize) -> Option<usize> {
        let run = |from: usize, allowed: &dyn Fn(u8) -> bool| {
            let mut i = from;
            while allowed(self.byte(i)) {
                i += 1;
            }
            i
        };
        let lhs = |c: u8| c.is_ascii_digit() || c == b'b' || c == b'f' || c == b'?';
        let rhs = |c: u8| c.is_ascii_digit() || c == b'i' || c == b'o' || c == b'?';
        let a = run(start, &lhs);
        if a - start < 2 || self.byte(a) != b'_' {
            return None;
        }
        let b = run(a + 1, &rhs);
        if b - (a + 1) < 2 || self.byte(b) != b'-' || self.byte(b + 1) != b'>' {
            return None;
        }
        let c = run(b + 2, &lhs);
        if c - (b + 2) < 2 || is_ident_continue(self.byte(c)) && self.byte(c) != b'-' {
            return None;
        }
        Some(c)
    }

    /// Lexes a number-like token at `start` (which holds `-`, `.` or a digit).
    fn number(&self, start: usize) -> (Tok, usize) {
        let mut i = start;
        if self.byte(i) == b'-' {
            i += 1;
            // -inf, -nan, -nan(0x…)
            let rest = &self.src[i..];
            if rest.starts_with(b"inf") && !is_ident_continue(self.byte(i + 3)) {
                return (Tok::Decimal, i + 3);
            }
            if rest.starts_with(b"nan") {
                let mut end = i + 3;
                if self.byte(end) == b'(' {
                    let close = self.src[end..].iter().position(|&c| c == b')');
                    match close {
                        Some(n) => end += n + 1,
                        None => return (Tok::Error, end),
                    }
                }
                if !is_ident_continue(self.byte(end)) {
                    return (Tok::Decimal, end);
                }
            }
        }
        let digits_start = i;
        while self.byte(i).is_ascii_digit() {
            i += 1;
        }
        let int_end = i;
        if int_end == digits_start && self.byte(i) != b'.' {
            return (Tok::Error, start + 1);
        }
        // Padding and DxD tokens: digits followed by `_` or `x` then more digits.
        let next = self.byte(int_end);
        if int_end > digits_start
            && (next == b'_' || next == b'x')
            && let Some((kind, end)) = self.pad_or_dxd(start)
        {
            return (kind, end);
        }
        let mut is_decimal = false;
        if self.byte(i) == b'.' && self.byte(i + 1) != b'.' {
            is_decimal = true;
            i += 1;
            while self.byte(i).is_ascii_digit() {
                i += 1;
            }
        }
        if matches!(self.byte(i), b'e' | b'E') {
            let mut j = i + 1;
            if matches!(self.byte(j), b'+' | b'-') {
                j += 1;
            }
            if self.byte(j).is_ascii_digit() {
                while self.byte(j).is_ascii_digit() {
                    j += 1;
                }
                is_decimal = true;
                i = j;
            }
        }
        if i == digits_start || (i == digits_start + 1 && self.byte(digits_start) == b'.') {
            return (Tok::Error, i.max(start + 1));
        }
        (if is_decimal { Tok::Decimal } else { Tok::Int }, i)
    }

    /// Matches a `DxD` token (`3x3x1`) or a padding token (`0_1x-1_2_1`) at `start`.
    fn pad_or_dxd(&self, start: usize) -> Option<(Tok, usize)> {
        let signed_int = |from: usize| -> Option<usize> {
            let mut i = from;
            if self.byte(i) == b'-' {
                i += 1;
            }
            let d = i;
            while self.byte(i).is_ascii_digit() {
                i += 1;
            }
            (i > d).then_some(i)
        };
        // Each dimension: int (`_` int (`_` int)?)?; dimensions separated by `x`.
        let mut i = start;
        let mut any_underscore = false;
        let mut dims = 0;
        loop {
            i = signed_int(i)?;
            let mut parts = 1;
            while self.byte(i) == b'_' && parts < 3 {
                i = signed_int(i + 1)?;
                parts += 1;
                any_underscore = true;
            }
            dims += 1;
            if self.byte(i) == b'x'
                && (self.byte(i + 1).is_ascii_digit() || self.byte(i + 1) == b'-')
            {
                i += 1;
                continue;
            }
            break;
        }
        if is_ident_continue(self.byte(i)) && self.byte(i) != b'-' {
            return None;
        }
        if any_underscore {
            Some((Tok::Pad, i))
        } else if dims >= 2 {
            Some((Tok::DxD, i))
        } else {
            None
        }
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// Whether any byte of `bytes` is a control character, a quote or a backslash.
/// Checks eight bytes at a time: printed names and metadata rarely need escapes,
/// and the printer asks this for every string it writes.
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_byte = |word: u64, b: u8| {
        let x = word ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGHS != 0
    };
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        // A byte below 0x20 (ignoring the high bit, checked below via 0x7f/0xff).
        let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS != 0;
        if below_space
            || has_byte(word, b'"')
            || has_byte(word, b'\'')
            || has_byte(word, b'\\')
            || has_byte(word, 0x7f)
        {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || matches!(b, b'"' | b'\'' | b'\\' | 0x7f))
}

/// Undoes C escapes in the body of a quoted string (quotes excluded).
pub fn unescape(body: &str) -> Result<String, String> {
    if !body.contains('\\') {
        return Ok(body.to_string());
    }
    let bytes = body.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let Some(&e) = bytes.get(i + 1) else {
            return Err("string ends with a lone backslash".into());
        };
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0C),
            b'v' => out.push(0x0B),
            b'\\' | b'\'' | b'"' | b'?' => out.push(e),
            b'0'..=b'7' => {
                let mut value = u32::from(e - b'0');
                let mut n = 1;
                while n < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    value = value * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    n += 1;
                }
                if value > 255 {
                    return Err(format!("octal escape \\{value:o} is out of range"));
                }
                out.push(value as u8);
            }
            b'x' => {
                let mut value = 0u32;
                let mut n = 0;
                while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    value = value * 16 + (bytes[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                    if value > 255 {
                        return Err("hex escape is out of range".into());
                    }
                }
                if n == 0 {
                    return Err("\\x escape without hex digits".into());
                }
                out.push(value as u8);
            }
            other => return Err(format!("unknown escape sequence \\{}", other as char)),
        }
    }
    String::from_utf8(out).map_err(|_| "string is not valid UTF-8 after unescaping".into())
}

/// Appends `text` with C escapes (XLA's `CEscape`): `\n \r \t \" \' \\` and octal
/// escapes for other control bytes.
pub fn escape_into(out: &mut String, text: &str) {
    if !needs_escape(text.as_bytes()) {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                use std::fmt::Write;
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_comment_ends_at_the_first_close_after_its_opening() {
        let cases: [(&[u8], Option<usize>); 7] = [
            (b"/*index=1*/%q", Some(11)),
            (b"/**/x", Some(4)),
            (b"/*/ x */y", Some(8)),
            (b"/*// x*/ y", Some(8)),
            (b"/*/", None),
            (b"/*", None),
            (b"x/**/", Some(0)),
        ];
        for (text, end) in cases {
            assert_eq!(
                after_block_comment(text, 0),
                end,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    /// The four-bytes-a-step scan agrees with the byte table for every byte
    /// value at every position, near the end of the text included.
    #[test]
    fn identifier_runs_end_where_the_byte_table_says() {
        let by_table = |bytes: &[u8], from: usize| {
            from + bytes[from..]
                .iter()
                .position(|&c| !is_ident_continue(c))
                .unwrap_or(bytes.len() - from)
        };
        for stop in 0..=255u8 {
            // Shorter than a sixteen-byte step, and long enough for one or two.
            for length in [3, 7, 12, 16, 17, 31, 40] {
                for position in 0..length {
                    let mut bytes = b"abcXYZ_09.-az@`[{/:".repeat(3)[..length].to_vec();
                    // Every identifier byte but the one replaced.
                    bytes.iter_mut().for_each(|b| {
                        if !is_ident_continue(*b) {
                            *b = b'q';
                        }
                    });
                    bytes[position] = stop;
                    for from in 0..3 {
                        assert_eq!(
                            ident_run_end(&bytes, from),
                            by_table(&bytes, from),
                            "byte {stop:#04x} at {position} of {length}, from {from}"
                        );
                    }
                }
            }
        }
        assert_eq!(ident_run_end(b"abc", 3), 3);
        assert_eq!(ident_run_end(b"abc", 7), 7);
        assert_eq!(ident_run_end(b"sharding_constraint.12 ", 0), 22);
        assert_eq!(ident_run_end("na\u{ef}ve".as_bytes(), 0), 2);
        assert_eq!(
            ident_run_end(b"abcdefghijklmnopqrstuvwxyz0123456789", 0),
            36
        );
    }

    fn kinds(src: &str) -> Vec<(Tok, &str)> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            if t.kind == Tok::Eof {
                return out;
            }
            out.push((t.kind, &src[t.start as usize..t.end as usize]));
            if t.kind == Tok::Error {
                return out;
            }
        }
    }

    #[test]
    fn names_attributes_and_identifiers() {
        assert_eq!(
            kinds("%add.1 = f32[2,4]{1,0} add(x, y), dimensions={0}"),
            vec![
                (Tok::Ident, "%add.1"),
                (Tok::Equal, "="),
                (Tok::Ident, "f32"),
                (Tok::LSquare, "["),
                (Tok::Int, "2"),
                (Tok::Comma, ","),
                (Tok::Int, "4"),
                (Tok::RSquare, "]"),
                (Tok::LBrace, "{"),
                (Tok::Int, "1"),
                (Tok::Comma, ","),
                (Tok::Int, "0"),
                (Tok::RBrace, "}"),
                (Tok::Ident, "add"),
                (Tok::LParen, "("),
                (Tok::Ident, "x"),
                (Tok::Comma, ","),
                (Tok::Ident, "y"),
                (Tok::RParen, ")"),
                (Tok::Comma, ","),
                (Tok::AttrName, "dimensions"),
                (Tok::LBrace, "{"),
                (Tok::Int, "0"),
                (Tok::RBrace, "}"),
            ]
        );
        assert_eq!(kinds("alpha: f32[]")[0], (Tok::Name, "alpha"));
        assert_eq!(kinds("dimensions = {0}")[0], (Tok::Ident, "dimensions"));
    }

    #[test]
    fn numbers_and_special_tokens() {
        assert_eq!(kinds("-42"), vec![(Tok::Int, "-42")]);
        assert_eq!(kinds("1.5e-3"), vec![(Tok::Decimal, "1.5e-3")]);
        assert_eq!(kinds("-inf"), vec![(Tok::Decimal, "-inf")]);
        assert_eq!(kinds("-nan(0x7)"), vec![(Tok::Decimal, "-nan(0x7)")]);
        assert_eq!(kinds("3x3"), vec![(Tok::DxD, "3x3")]);
        assert_eq!(kinds("0_1x0_1"), vec![(Tok::Pad, "0_1x0_1")]);
        assert_eq!(kinds("-1_2_1"), vec![(Tok::Pad, "-1_2_1")]);
        assert_eq!(
            kinds("b01f_01io->b01f"),
            vec![(Tok::DimLabels, "b01f_01io->b01f")]
        );
        assert_eq!(kinds("()->f32[]")[2], (Tok::Arrow, "->"));
        assert_eq!(kinds("<=4")[0], (Tok::Leq, "<="));
        assert_eq!(kinds("{...}")[1], (Tok::Dots, "..."));
        assert_eq!(kinds("/*index=5*/ x // c\n y").len(), 2);
        assert_eq!(kinds("\"a\\\"b\"")[0], (Tok::Str, "\"a\\\"b\""));
        assert_eq!(kinds("/* open")[0].0, Tok::Error);
    }

    #[test]
    fn wide_escape_check_agrees_with_the_byte_check() {
        let naive = |b: &[u8]| {
            b.iter()
                .any(|&c| c < 0x20 || matches!(c, b'"' | b'\'' | b'\\' | 0x7f))
        };
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in 0..40 {
            for _ in 0..200 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        // Mostly printable text, sometimes any byte.
                        if state.is_multiple_of(7) {
                            (state >> 8) as u8
                        } else {
                            b'a' + (state % 26) as u8
                        }
                    })
                    .collect();
                assert_eq!(needs_escape(&bytes), naive(&bytes), "{bytes:?}");
            }
        }
    }

    #[test]
    fn escapes_round_trip() {
        let text = "\"it's not a problem\n\\";
        let mut escaped = String::new();
        escape_into(&mut escaped, text);
        assert_eq!(escaped, "\\\"it\\'s not a problem\\n\\\\");
        assert_eq!(unescape(&escaped).unwrap(), text);
    }
}

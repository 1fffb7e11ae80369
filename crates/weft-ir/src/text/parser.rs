//! The HLO text parser: a hand-written recursive-descent parser over the lazy
//! [`Lexer`], building the [`Module`] directly.
//!
//! Grammar (notes: XLA's `hlo_parser.cc`):
//!
//! ```text
//! module      := [HloModule name (',' module_attr)*] stack_frames? computation*
//! computation := [ENTRY] name [signature] '{' instruction* '}' [',' execution_thread="t"]
//! instruction := [ROOT] name '=' [shape] opcode '(' operands ')' (',' attribute)*
//! operand     := [shape] name ('#' int)* | [shape] opcode '(' operands ')'
//! ```
//!
//! The parser follows XLA where the text is ambiguous: `%` is optional on names; a
//! header-less text is a module when it starts with `ENTRY` or `name {`; the last
//! computation is the entry when none is marked; the last instruction is the root
//! when none is marked; missing layouts get the default layout; names are made
//! unique module-wide, computation by computation in the order their parsing
//! finishes (so a nested or earlier computation keeps its names and later
//! duplicates get `.1`, `.2`, … as XLA's `NameUniquer` gives them).

use compact_str::CompactString;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::diagnostic::{Diagnostic, Span};
use crate::entity::{EntityRef, EntityVec};
use crate::module::{Comp, Instr, InstrData, Module};
use crate::names::{NameUniquer, name_hash};
use crate::shape::Shape;
use crate::text::fast::byte_scan::{TextKey, same_text};
use crate::text::lexer::{Lexer, Tok, Token};
use crate::text::partial::{OutsideText, ParsedAhead};
use crate::text::source_map::SourceMap;

/// The result of a parse step.
pub(crate) type PResult<T> = Result<T, ParseError>;

/// Why a parse step failed: its diagnostic, boxed. A line goes through dozens
/// of parse steps, each returning through `?`, so their results are kept a
/// word or two wide rather than the width of a diagnostic.
#[derive(Debug)]
pub(crate) struct ParseError(Box<Diagnostic>);

impl ParseError {
    /// Adds a label under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> ParseError {
        self.0.label = Some(label.into());
        self
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> ParseError {
        self.0.hint = Some(hint.into());
        self
    }
}

impl From<Diagnostic> for ParseError {
    fn from(diagnostic: Diagnostic) -> ParseError {
        ParseError(Box::new(diagnostic))
    }
}

impl From<ParseError> for Diagnostic {
    fn from(error: ParseError) -> Diagnostic {
        *error.0
    }
}

/// Names declared in one computation being parsed.
pub(crate) struct Scope {
    pub comp: Comp,
    /// Source name (without `%`) → instruction.
    pub names: ScopeNames,
    /// Names of instructions created by the parser itself (nested instructions,
    /// compact get-tuple-elements), which have no source text to borrow;
    /// looked up by [`TextKey`], without building a `String`.
    pub synthetic: hashbrown::HashMap<String, Instr, FxBuildHasher>,
    /// The instruction marked `ROOT`, if any.
    pub root: Option<Instr>,
}

/// The written names of a computation's instructions, keyed by the name each
/// instruction carries (while its computation is parsed, an instruction's name
/// is the one written; names are made unique only once the computation is
/// finished). Only 4-byte instruction indices are stored, not the names: the
/// table of a body of a million instructions then stays small enough for the
/// caches, and every instruction and operand goes through it.
#[derive(Default)]
pub(crate) struct ScopeNames {
    table: HashTable<u32>,
}

impl ScopeNames {
    /// The instruction named `name`.
    pub fn get(&self, instrs: &EntityVec<Instr, InstrData>, name: &str) -> Option<Instr> {
        self.table
            .find(name_hash(name), |&i| {
                same_text(&instrs[Instr::new(i as usize)].name, name)
            })
            .map(|&i| Instr::new(i as usize))
    }

    /// Records `instr`, which is named `name` (whose [`name_hash`] is `hash`),
    /// unless an instruction of that name is recorded already: then returns
    /// that one.
    pub fn insert_hashed(
        &mut self,
        instrs: &EntityVec<Instr, InstrData>,
        name: &str,
        hash: u64,
        instr: Instr,
    ) -> Result<(), Instr> {
        match self.table.entry(
            hash,
            |&i| same_text(&instrs[Instr::new(i as usize)].name, name),
            |&i| name_hash(&instrs[Instr::new(i as usize)].name),
        ) {
            hashbrown::hash_table::Entry::Occupied(holder) => {
                Err(Instr::new(*holder.get() as usize))
            }
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(instr.index() as u32);
                Ok(())
            }
        }
    }

    /// Makes room for `additional` more names.
    pub fn reserve(&mut self, additional: usize, instrs: &EntityVec<Instr, InstrData>) {
        self.table.reserve(additional, |&i| {
            name_hash(&instrs[Instr::new(i as usize)].name)
        });
    }

    /// How many names fit without growing.
    pub fn capacity(&self) -> usize {
        self.table.capacity()
    }

    /// Forgets every name, keeping the room.
    pub fn clear(&mut self) {
        self.table.clear();
    }
}

/// How many levels [`Parser::nested`] goes down before it refuses: HLO nests
/// shapes, operands, literals and computations only a few levels deep, and a
/// limit keeps hostile text from exhausting the stack.
pub(crate) const MAX_DEPTH: u32 = 64;

/// The parser state.
pub(crate) struct Parser<'s> {
    pub src: &'s str,
    lexer: Lexer<'s>,
    /// The current (not yet consumed) token.
    pub tok: Token,
    /// The module being built.
    pub m: Module,
    pub scopes: Vec<Scope>,
    /// Computation names as written → handle. The names are copied into the
    /// table (inline, as nearly all are at most 24 bytes): a computation is
    /// referred to far from where it is defined, and comparing a reference with
    /// a key that pointed into the text there was a cache miss per lookup.
    pub comp_names: hashbrown::HashMap<CompactString, Comp, FxBuildHasher>,
    pub instr_names: crate::names::InstrNameTable,
    /// Every name the text has given an instruction so far (XLA's parser-level
    /// uniquer): `<opcode>.anon` names of nested instructions avoid them.
    pub text_uniquer: NameUniquer,
    /// The end of the last consumed token.
    prev_end: u32,
    /// The token after `tok`, once [`peek`](Self::peek) has lexed it.
    peeked: Option<Token>,
    pub comp_uniquer: NameUniquer,
    pub spans: SourceMap,
    /// Computations in the order their parsing finished (XLA adds computations to
    /// the module in this order).
    pub finished: Vec<Comp>,
    /// The computation written with `ENTRY`.
    pub marked_entry: Option<Comp>,
    /// Shapes by their exact text, without and with default layouts filled in.
    pub shape_cache: [crate::text::fast::text_cache::TextCache<'s, Shape>; 2],
    /// The last shape found in each of `shape_cache`, by its text.
    pub last_cached_shape: [std::cell::Cell<Option<crate::text::shape::ShapeMemo>>; 2],
    /// Replica groups and shardings by their exact text: modules repeat a few
    /// of them on every collective and every sharded instruction.
    pub value_cache: crate::text::attr_bag::ValueCache<'s>,
    /// Repeated metadata strings (`source_file`, `op_type`) by what is written
    /// between their quotes.
    pub shared_strings: FxHashMap<TextKey<'s>, std::sync::Arc<str>>,
    /// The last shared metadata string, which usually repeats on the next line.
    pub last_shared: Option<(&'s str, std::sync::Arc<str>)>,
    /// How deeply the parser has recursed into nested shapes, operands,
    /// shardings, literals and inline computations.
    depth: u32,
    /// The chain start of each async op parsed so far.
    pub chain_starts: FxHashMap<Instr, Instr>,
    /// Storage reused by the attribute bag of each instruction.
    pub bag_storage: Vec<crate::text::attr_bag::Entry<'s>>,
    /// Storage for the operand list being read, reused from one instruction
    /// to the next: the list is copied out at its exact length, so the
    /// instruction's own vector is allocated once and never grows.
    pub operand_storage: Vec<Instr>,
    /// The spans of the operands just read, reused in the same way (taken by
    /// the instruction being parsed and given back when it is registered).
    pub operand_span_storage: Vec<Span>,
    /// Emptied name maps of finished computations, reused by the next ones.
    pub spare_scope_names: Vec<ScopeNames>,
    /// Per instruction (by index), the table key of its written name, computed
    /// while the name is parsed; `None` where registration needs the name.
    pub name_keys: Vec<Option<crate::names::NameKey>>,
    /// The generic async instructions of finished computations, in module order.
    pub async_instrs: Vec<Instr>,
    /// The other instructions of finished computations that call computations.
    pub callers: Vec<Instr>,
    /// Whether instruction spans go into the source map. Without them, a
    /// diagnostic may lack a pointer to an earlier definition, so a parse that
    /// fails is repeated with them (see [`crate::text::parse_with_threads`]).
    pub record_spans: bool,
    /// Whether text in XLA's own printing is read straight from the bytes
    /// where it can be (see `docs/hlo-text.md`). Off, everything goes through
    /// the tokens: the same result, for differential tests.
    pub byte_readers: bool,
    /// The `{` of every computation body the survey found and its line count,
    /// in text order, so that each body's instruction list and name table are
    /// made at their size at once; `next_body` is the first one the parser has
    /// not reached.
    pub body_lines: Vec<(u32, u32)>,
    pub next_body: usize,
    /// In a parse of part of a text: what lies outside it (see `partial.rs`).
    pub outside: Option<std::rc::Rc<dyn OutsideText<'s> + 's>>,
    /// Lines of the text parsed ahead of the parser (see `partial.rs`).
    pub parsed_ahead: Option<Box<dyn ParsedAhead<'s> + 's>>,
}

/// The largest name map (in entries) kept for reuse when its computation ends.
pub(crate) const MAX_RECYCLED_SCOPE: usize = 1 << 12;

impl<'s> Parser<'s> {
    pub fn new(src: &'s str) -> Parser<'s> {
        Parser::with_capacity(
            src,
            memchr::memchr_iter(b'\n', src.as_bytes()).count(),
            true,
        )
    }

    /// A parser with room for `lines` instructions: about one per line, and
    /// reserving up front keeps the big tables from being copied (and the
    /// allocator from churning) as they grow. The source map gets room only
    /// when it is kept (`record_spans`).
    pub fn with_capacity(src: &'s str, lines: usize, record_spans: bool) -> Parser<'s> {
        let mut lexer = Lexer::new(src);
        let tok = lexer.next_token();
        let mut m = Module::new("");
        m.reserve_instrs(lines);
        Parser {
            src,
            lexer,
            tok,
            m,
            scopes: Vec::new(),
            comp_names: hashbrown::HashMap::default(),
            instr_names: crate::names::InstrNameTable::with_capacity(lines),
            text_uniquer: NameUniquer::default(),
            prev_end: 0,
            peeked: None,
            comp_uniquer: NameUniquer::default(),
            spans: SourceMap::with_capacity(if record_spans { lines } else { 0 }),
            finished: Vec::new(),
            marked_entry: None,
            shape_cache: Default::default(),
            last_cached_shape: Default::default(),
            value_cache: Default::default(),
            shared_strings: FxHashMap::default(),
            last_shared: None,
            depth: 0,
            chain_starts: FxHashMap::default(),
            bag_storage: Vec::new(),
            operand_storage: Vec::new(),
            operand_span_storage: Vec::new(),
            spare_scope_names: Vec::new(),
            record_spans,
            byte_readers: true,
            body_lines: Vec::new(),
            next_body: 0,
            name_keys: Vec::with_capacity(lines),
            async_instrs: Vec::new(),
            callers: Vec::new(),
            outside: None,
            parsed_ahead: None,
        }
    }

    // ----- tokens -----

    /// Consumes the current token.
    #[inline]
    pub fn bump(&mut self) -> Token {
        let t = self.tok;
        self.prev_end = t.end;
        self.tok = match self.peeked.take() {
            Some(next) => next,
            None => self.lexer.next_token(),
        };
        t
    }

    /// The end of the last consumed token.
    #[inline]
    pub fn prev_end(&self) -> u32 {
        self.prev_end
    }

    /// Continues lexing at byte `pos` (the end of text consumed without the
    /// lexer).
    pub fn seek(&mut self, pos: usize) {
        self.prev_end = pos as u32;
        self.peeked = None;
        self.lexer.seek(pos);
        self.tok = self.lexer.next_token();
    }

    /// Makes `token`, found by reading the bytes rather than by the lexer, the
    /// current token, with the text up to `consumed_end` taken as consumed and
    /// the lexer going on at `resume` (the token's end, or past the `=` of an
    /// attribute name). The caller vouches that the lexer would have produced
    /// exactly this token and resumed there.
    pub fn set_token(&mut self, token: Token, consumed_end: usize, resume: usize) {
        self.prev_end = consumed_end as u32;
        self.peeked = None;
        self.lexer.seek(resume);
        self.tok = token;
    }

    /// The kind of the current token.
    #[inline]
    pub fn kind(&self) -> Tok {
        self.tok.kind
    }

    /// Whether the current token is `kind`.
    #[inline]
    pub fn at(&self, kind: Tok) -> bool {
        self.tok.kind == kind
    }

    /// The text of a token.
    #[inline]
    pub fn text(&self, t: Token) -> &'s str {
        &self.src[t.start as usize..t.end as usize]
    }

    /// The text of the current token.
    #[inline]
    pub fn cur_text(&self) -> &'s str {
        self.text(self.tok)
    }

    /// The token after the current one, without consuming anything.
    pub fn peek(&mut self) -> Token {
        match self.peeked {
            Some(t) => t,
            None => {
                let t = self.lexer.next_token();
                self.peeked = Some(t);
                t
            }
        }
    }

    /// The span of the current token.
    #[inline]
    pub fn span(&self) -> Span {
        Span {
            start: self.tok.start,
            end: self.tok.end,
        }
    }

    /// Consumes the current token if it is `kind`.
    #[inline]
    pub fn eat(&mut self, kind: Tok) -> bool {
        if self.tok.kind == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Whether the current token is the identifier `word`.
    #[inline]
    pub fn at_word(&self, word: &str) -> bool {
        // Compared by length and first byte before the text: this runs on
        // every instruction (`ROOT`) and every computation (`ENTRY`).
        self.tok.kind == Tok::Ident
            && (self.tok.end - self.tok.start) as usize == word.len()
            && self.src.as_bytes().get(self.tok.start as usize) == word.as_bytes().first()
            && same_text(self.cur_text(), word)
    }

    /// Consumes the identifier `word` if it is current.
    pub fn eat_word(&mut self, word: &str) -> bool {
        if self.at_word(word) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// An error at the current token.
    pub fn error(&self, message: impl Into<String>) -> ParseError {
        if self.tok.kind == Tok::Error && self.cur_text().starts_with("/*") {
            return ParseError::from(Diagnostic::error(self.span(), "unterminated /* comment"))
                .with_label("this comment is never closed")
                .with_hint("close it with */");
        }
        let mut d = Diagnostic::error(self.span(), message);
        if self.tok.kind == Tok::Error {
            d = d.with_label(format!("unexpected '{}'", self.cur_text().escape_default()));
        } else if self.tok.kind == Tok::Eof {
            d = d.with_label("unexpected end of input");
        }
        d.into()
    }

    /// An error at `span`.
    pub fn error_at(&self, span: Span, message: impl Into<String>) -> ParseError {
        Diagnostic::error(span, message).into()
    }

    /// A description of the current token for "expected X, found Y" messages.
    pub fn found(&self) -> String {
        match self.tok.kind {
            Tok::Eof => "end of input".to_string(),
            Tok::Str => "a string".to_string(),
            Tok::AttrName => format!("'{}='", self.cur_text()),
            Tok::Name => format!("'{}:'", self.cur_text()),
            _ => format!("'{}'", self.cur_text()),
        }
    }

    /// Consumes `kind` or fails with "expected `what`".
    pub fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        if self.tok.kind == kind {
            Ok(self.bump())
        } else {
            Err(self.error(format!("expected {what}, found {}", self.found())))
        }
    }

    // ----- small values -----

    /// An integer token.
    pub fn int(&mut self) -> PResult<i64> {
        if self.tok.kind != Tok::Int {
            return Err(self.error(format!("expected an integer, found {}", self.found())));
        }
        let text = self.cur_text();
        match text.parse::<i64>() {
            Ok(v) => {
                self.bump();
                Ok(v)
            }
            Err(_) => Err(self.error(format!("integer {text} is out of range for s64"))),
        }
    }

    /// A non-negative integer that fits `usize`-like counts.
    pub fn uint(&mut self) -> PResult<i64> {
        let span = self.span();
        let v = self.int()?;
        if v < 0 {
            return Err(self.error_at(span, format!("expected a non-negative integer, found {v}")));
        }
        Ok(v)
    }

    /// `true` or `false`.
    pub fn bool(&mut self) -> PResult<bool> {
        if self.eat_word("true") {
            Ok(true)
        } else if self.eat_word("false") {
            Ok(false)
        } else {
            Err(self.error(format!("expected true or false, found {}", self.found())))
        }
    }

    /// A quoted string, unescaped.
    pub fn string(&mut self) -> PResult<String> {
        if self.tok.kind != Tok::Str {
            return Err(self.error(format!("expected a string, found {}", self.found())));
        }
        let text = self.cur_text();
        let body = &text[1..text.len() - 1];
        match crate::text::lexer::unescape(body) {
            Ok(s) => {
                self.bump();
                Ok(s)
            }
            Err(e) => Err(self.error(e)),
        }
    }

    /// An identifier (with any `%` removed).
    pub fn ident(&mut self, what: &str) -> PResult<&'s str> {
        if self.tok.kind != Tok::Ident {
            return Err(self.error(format!("expected {what}, found {}", self.found())));
        }
        let t = self.bump();
        let text = self.text(t);
        Ok(text.strip_prefix('%').unwrap_or(text))
    }

    /// `{ a, b, … }` of items parsed by `item`; `{}` is empty.
    pub fn braced_list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        self.expect(Tok::LBrace, "'{'")?;
        let mut items = Vec::new();
        if self.eat(Tok::RBrace) {
            return Ok(items);
        }
        loop {
            items.push(item(self)?);
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RBrace, "',' or '}'")?;
            return Ok(items);
        }
    }

    /// `{1,2,3}`.
    pub fn int_list(&mut self) -> PResult<Vec<i64>> {
        // Lists written without spaces (as XLA prints them) are read straight
        // from the bytes.
        if self.byte_readers
            && self.at(Tok::LBrace)
            && let Some((values, end)) = scan_int_list(self.src.as_bytes(), self.tok.start as usize)
        {
            self.seek(end);
            return Ok(values);
        }
        self.braced_list(|p| p.int())
    }

    /// `{{0,1},{1,0}}`.
    pub fn int_list_list(&mut self) -> PResult<Vec<Vec<i64>>> {
        if self.byte_readers && self.at(Tok::LBrace) {
            let bytes = self.src.as_bytes();
            let mut at = self.tok.start as usize + 1;
            let mut lists = Vec::new();
            if bytes.get(at) == Some(&b'}') {
                self.seek(at + 1);
                return Ok(lists);
            }
            while let Some((values, end)) = scan_int_list(bytes, at) {
                lists.push(values);
                match bytes.get(end) {
                    Some(b',') => at = end + 1,
                    Some(b'}') => {
                        self.seek(end + 1);
                        return Ok(lists);
                    }
                    _ => break,
                }
            }
        }
        self.braced_list(|p| p.int_list())
    }

    /// `{true,false}` or a single `true`.
    pub fn bool_list_or_bool(&mut self) -> PResult<Vec<bool>> {
        if self.at(Tok::LBrace) {
            self.braced_list(|p| p.bool())
        } else {
            Ok(vec![self.bool()?])
        }
    }

    /// The raw text of a brace-balanced value starting at the current `{`, skipping
    /// over strings; consumes it. Used for values XLA keeps as opaque text.
    pub fn raw_braced(&mut self) -> PResult<&'s str> {
        if !self.at(Tok::LBrace) {
            return Err(self.error(format!("expected '{{', found {}", self.found())));
        }
        let start = self.tok.start as usize;
        let bytes = self.src.as_bytes();
        let mut depth = 0usize;
        let mut i = start;
        while i < bytes.len() {
            match bytes[i] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        let end = i + 1;
                        self.seek(end);
                        return Ok(&self.src[start..end]);
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
        Err(self.error("unterminated '{'"))
    }

    // ----- names and scopes -----

    /// The innermost computation being parsed.
    pub fn scope(&mut self) -> &mut Scope {
        self.scopes.last_mut().expect("inside a computation")
    }

    /// Looks an operand name up in the innermost scope.
    pub fn lookup(&self, name: &str) -> Option<Instr> {
        let scope = self.scopes.last()?;
        scope
            .names
            .get(&self.m.instrs, name)
            .or_else(|| scope.synthetic.get(&TextKey(name)).copied())
    }

    /// Runs `parse` one nesting level deeper. Shapes, operands, shardings,
    /// literals and inline computations nest by recursion, so the depth is
    /// capped to keep hostile input from overflowing the stack; real HLO nests
    /// fewer than ten levels.
    pub fn nested<T>(&mut self, parse: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            return Err(self
                .error(format!("nesting is more than {MAX_DEPTH} levels deep"))
                .with_hint(
                    "HLO nests shapes, operands, literals and computations only a few levels deep",
                ));
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    /// How many levels [`nested`](Self::nested) has gone down.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The computation being parsed.
    pub fn current_comp(&self) -> Comp {
        self.scopes.last().expect("inside a computation").comp
    }

    /// Finishes parsing: returns the module and the spans.
    pub fn into_parts(self) -> (Module, SourceMap) {
        (self.m, self.spans)
    }
}

/// Reads `{1,-2,3}` (no spaces, no comments) starting at the `{` at `start`;
/// returns the values and the position after `}`, or `None` for anything else.
pub(crate) fn scan_int_list(bytes: &[u8], start: usize) -> Option<(Vec<i64>, usize)> {
    if bytes.get(start) != Some(&b'{') {
        return None;
    }
    let mut i = start + 1;
    if bytes.get(i) == Some(&b'}') {
        return Some((Vec::new(), i + 1));
    }
    // Sized once: a list written this way has one more value than commas
    // before its `}` (a longer count only wastes room when the scan fails).
    // The count stops at a line's end too, so an unclosed list costs at most
    // a scan of the rest of its line.
    let commas = bytes[i..]
        .iter()
        .take_while(|&&c| c != b'}' && c != b'\n')
        .filter(|&&c| c == b',')
        .count();
    let mut values = Vec::with_capacity(commas + 1);
    loop {
        let (value, end) = scan_int(bytes, i)?;
        values.push(value);
        match bytes.get(end)? {
            b',' => i = end + 1,
            b'}' => return Some((values, end + 1)),
            _ => return None,
        }
    }
}

/// Reads an integer (optional `-`, then digits) at `start`.
pub(crate) fn scan_int(bytes: &[u8], start: usize) -> Option<(i64, usize)> {
    let mut i = start;
    let negative = bytes.get(i) == Some(&b'-');
    if negative {
        i += 1;
    }
    let digits = i;
    let mut value: i64 = 0;
    while let Some(&c) = bytes.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        value = value.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
        i += 1;
    }
    if i == digits {
        return None;
    }
    Some((if negative { -value } else { value }, i))
}

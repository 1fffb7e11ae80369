//! Fuzzes the HLO text lexer: lexing every token of any UTF-8 input to the end
//! never panics, every token lies in the source in order, and every token but
//! `Eof` advances the lexer.

#![no_main]

use libfuzzer_sys::fuzz_target;
use weft_ir::text::lexer::{Lexer, Tok};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let len = text.len();
    let mut lexer = Lexer::new(text);
    let mut prev_end = 0usize;
    // Every token but the last consumes at least one byte.
    for _ in 0..=len + 1 {
        let before = lexer.position();
        let t = lexer.next_token();
        let (start, end) = (t.start as usize, t.end as usize);
        assert!(
            prev_end <= start && start <= end && end <= len,
            "token {t:?} out of order or outside the {len}-byte source (previous end {prev_end})"
        );
        assert!(
            text.is_char_boundary(start) && text.is_char_boundary(end),
            "token {t:?} splits a character"
        );
        if t.kind == Tok::Eof {
            assert_eq!(start, len, "Eof before the end of the source");
            assert_eq!(lexer.next_token().kind, Tok::Eof, "Eof is not sticky");
            return;
        }
        assert!(
            lexer.position() > before,
            "token {t:?} does not advance the lexer (position {before})"
        );
        prev_end = end;
    }
    panic!("lexer produced more tokens than the source has bytes");
});

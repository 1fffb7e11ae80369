//! Writing JSON strings, for the machine-readable reports and traces the
//! tools produce (`weft check --json`, Chrome trace files). Only what those
//! need: a string literal with every character JSON requires escaped.

/// `text` as a JSON string literal, quotes included.
pub fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::string_literal;

    #[test]
    fn quotes_backslashes_and_controls_are_escaped() {
        assert_eq!(string_literal("a\"b\\c\nd\u{1}é"), r#""a\"b\\c\nd\u0001é""#);
    }
}

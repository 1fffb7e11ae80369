//! The text that names a pipeline, in the manner of `mlir-opt` and
//! `hlo-opt`: passes separated by commas, each with its options in braces,
//! `key=value` pairs separated by blanks, a list value comma-separated:
//!
//! ```text
//! async-collective-creator{convert=all-reduce,all-gather use_generic_async_start_done=true},dce
//! ```
//!
//! A key alone (`{verbose}`) means `key=true`; `key=` is an empty list.
//! Errors give the column (1-based) in the text where the trouble is.

/// One pass as the text names it, with its options in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassSpec {
    /// The pass's name.
    pub name: String,
    /// Its options, `key → values`, in the order written.
    pub options: Vec<(String, Vec<String>)>,
    /// Where the name starts in the text (0-based byte offset).
    pub at: usize,
}

/// A mistake in the text, at `column` (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// Where (1-based column).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// Reads a pipeline's text.
pub fn parse(text: &str) -> Result<Vec<PassSpec>, SpecError> {
    let error = |at: usize, message: String| SpecError {
        column: at + 1,
        message,
    };
    let bytes = text.as_bytes();
    let mut specs = Vec::new();
    let mut at = 0;
    let skip_blanks = |mut at: usize| {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        at
    };
    if text.trim().is_empty() {
        return Ok(specs);
    }
    loop {
        at = skip_blanks(at);
        let start = at;
        while at < bytes.len() && is_name_byte(bytes[at]) {
            at += 1;
        }
        if at == start {
            return Err(error(
                at,
                match bytes.get(at) {
                    Some(&c) => format!("expected a pass name, found '{}'", c as char),
                    None => "expected a pass name after ','".to_string(),
                },
            ));
        }
        let name = text[start..at].to_string();
        let mut options = Vec::new();
        at = skip_blanks(at);
        if bytes.get(at) == Some(&b'{') {
            let open = at;
            at += 1;
            loop {
                at = skip_blanks(at);
                match bytes.get(at) {
                    None => {
                        return Err(error(
                            open,
                            format!("the options of '{name}' are not closed with '}}'"),
                        ));
                    }
                    Some(b'}') => {
                        at += 1;
                        break;
                    }
                    _ => {}
                }
                let key_start = at;
                while at < bytes.len() && is_name_byte(bytes[at]) {
                    at += 1;
                }
                if at == key_start {
                    return Err(error(
                        at,
                        format!("expected an option name in the options of '{name}'"),
                    ));
                }
                let key = text[key_start..at].to_string();
                let mut values = Vec::new();
                if bytes.get(at) == Some(&b'=') {
                    at += 1;
                    let value_start = at;
                    while at < bytes.len() && !bytes[at].is_ascii_whitespace() && bytes[at] != b'}'
                    {
                        at += 1;
                    }
                    let value = &text[value_start..at];
                    if !value.is_empty() {
                        values = value.split(',').map(str::to_string).collect();
                        if values.iter().any(String::is_empty) {
                            return Err(error(
                                value_start,
                                format!("the value of '{key}' has an empty item"),
                            ));
                        }
                    }
                } else {
                    values.push("true".to_string());
                }
                options.push((key, values));
            }
        }
        specs.push(PassSpec {
            name,
            options,
            at: start,
        });
        at = skip_blanks(at);
        match bytes.get(at) {
            None => return Ok(specs),
            Some(b',') => at += 1,
            Some(&c) => {
                return Err(error(
                    at,
                    format!(
                        "expected ',' or the end after a pass, found '{}'",
                        c as char
                    ),
                ));
            }
        }
    }
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_and_options_read() {
        let text = "a-pass{convert=all-reduce,all-gather flag}, dce ,b{x=}";
        let specs = parse(text).expect("reads");
        assert_eq!(specs.len(), 3);
        assert_eq!(specs[0].name, "a-pass");
        assert_eq!(
            specs[0].options,
            vec![
                (
                    "convert".to_string(),
                    vec!["all-reduce".to_string(), "all-gather".to_string()]
                ),
                ("flag".to_string(), vec!["true".to_string()]),
            ]
        );
        assert_eq!(specs[1].name, "dce");
        assert_eq!(specs[1].at, text.find("dce").unwrap());
        assert_eq!(specs[2].options, vec![("x".to_string(), vec![])]);
        assert_eq!(parse("  ").unwrap(), vec![]);
    }

    #[test]
    fn mistakes_have_columns() {
        assert_eq!(
            parse("dce,").unwrap_err(),
            SpecError {
                column: 5,
                message: "expected a pass name after ','".into()
            }
        );
        assert_eq!(parse("dce{a=1").unwrap_err().column, 4);
        assert_eq!(parse("dce dce").unwrap_err().column, 5);
        assert_eq!(parse("dce{a=1,,2}").unwrap_err().column, 7);
    }
}

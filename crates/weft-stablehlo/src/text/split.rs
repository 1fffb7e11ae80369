//! `-split-input-file`: MLIR test files hold several independent inputs
//! separated by `// -----`. MLIR splits on the marker as a substring (so
//! `// // -----` splits too); each piece keeps its offset so diagnostics point
//! into the original file.

/// The marker.
pub const SPLIT_MARKER: &str = "// -----";

/// One piece of a split file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The text.
    pub text: &'a str,
    /// Byte offset of the text in the whole file.
    pub offset: usize,
}

/// Splits `text` on every line that contains [`SPLIT_MARKER`]; the marker lines
/// belong to no chunk.
pub fn split_input_file(text: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut line_start = 0;
    while line_start < text.len() {
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |p| line_start + p + 1);
        if text[line_start..line_end].contains(SPLIT_MARKER) {
            chunks.push(Chunk {
                text: &text[start..line_start],
                offset: start,
            });
            start = line_end;
        }
        line_start = line_end;
    }
    chunks.push(Chunk {
        text: &text[start..],
        offset: start,
    });
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_the_marker_as_a_substring() {
        let text = "a\n// -----\nb\n// // -----\nc";
        let chunks = split_input_file(text);
        let texts: Vec<&str> = chunks.iter().map(|c| c.text).collect();
        assert_eq!(texts, ["a\n", "b\n", "c"]);
        assert_eq!(chunks[1].offset, 11);
    }
}

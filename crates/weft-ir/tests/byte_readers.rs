//! The readers that take text in XLA's own printing straight from the bytes
//! (result-shape and instruction heads, operand lists, `parameter(N)`,
//! metadata, integer lists, stack frames, repeated shapes, replica groups and
//! shardings) change only how fast a module parses: parsing with them gives
//! exactly what the token parser alone gives — the same instructions under the
//! same handles, both printed forms, the same source spans — and the same
//! diagnostic on bad input.

mod corpus;
mod outcome;

use std::path::{Path, PathBuf};

use corpus::{corpus_dir, read, rows};
use outcome::outcome;
use weft_ir::text::{parse_by_tokens, parse_with_source_map};

/// Panics when the two parses of `text` differ.
fn check(name: &str, text: &str) {
    let with_readers = outcome(parse_with_source_map(text));
    let by_tokens = outcome(parse_by_tokens(text));
    assert!(
        with_readers == by_tokens,
        "{name}: the byte-level readers change the parse\n--- input\n{text}\n--- with the readers\n{with_readers}\n--- tokens only\n{by_tokens}"
    );
}

/// Lines that the readers take, and ones just outside what they take (which
/// the token parser must read from the start of that part), each placed in
/// the entry of a small module.
const LINES: &[&str] = &[
    // Instruction heads.
    "%r = f32[4]{0} add(%p, %q)",
    "%r = f32[4]{0}  add(%p, %q)",
    "%r  = f32[4]{0} add(%p, %q)",
    "%r =f32[4]{0} add(%p, %q)",
    "%r=f32[4]{0} add(%p, %q)",
    "%r = f32[4]{0} add (%p, %q)",
    "%r = f32[4]{0}\tadd(%p, %q)",
    "%r = f32[4]{0} /*c*/ add(%p, %q)",
    "%r = f32[4] add(%p, %q)",
    "%r = f32[4]{0} nan(%p, %q)",
    "%r = f32[4]{0} adder(%p, %q)",
    "%r = f32[4]{0} add-start(%p, %q)",
    "%r = f32[4]{0} add(",
    "r = f32[4]{0} add(p, q)",
    "f32 = f32[4]{0} add(p, q)",
    // Operand lists.
    "%r = f32[4]{0} add(f32[4]{0} %p, f32[4]{0} %q)",
    "%r = f32[4]{0} add(f32[4]{0} p, f32[4] q)",
    "%r = f32[4]{0} add(f32[4]{0}  %p, %q)",
    "%r = f32[4]{0} add(f32[5]{0} %p, %q)",
    "%r = f32[4]{0} add(%p,%q)",
    "%r = f32[4]{0} add(%p , %q)",
    "%r = f32[4]{0} add(%p, /*index=1*/%q)",
    "%r = f32[4]{0} add(%p, /*/ a comment */%q)",
    "%r = f32[4]{0} add(%p, /*// a comment*/ %q)",
    "%r = f32[4]{0} add(%p, /**/%q)",
    "%r = f32[4]{0} add(%p, /*/%q)",
    "%r = f32[4]{0} add(%p, %nothing)",
    "%r = f32[4]{0} add(%p, %q, %p)",
    "%r = f32[4]{0} add(%p, negate(%q))",
    "%r = f32[4]{0} add(%t#0, %q)",
    "%r = f32[4]{0} add(t#0, q)",
    "%r = f32[4]{0} add(%p, %q",
    "%r = f32[4]{0} add(%p,",
    // Parameters.
    "%r = f32[4]{0} parameter(3)",
    "%r = f32[4]{0} parameter(03)",
    "%r = f32[4]{0} parameter( 3 )",
    "%r = f32[4]{0} parameter(3 )",
    "%r = f32[4]{0} parameter(-3)",
    "%r = f32[4]{0} parameter(-0)",
    "%r = f32[4]{0} parameter(-)",
    "%r = f32[4]{0} parameter(9223372036854775807)",
    "%r = f32[4]{0} parameter(0)",
    "%r = f32[4]{0} parameter(3",
    "%r = f32[4]{0} parameter(99999999999999999999)",
    "%r = f32[4]{0} parameter(123456789012345678)",
    "%r = f32[4]{0} parameter(0x3)",
    "%r = f32[4]{0} parameter()",
    // Metadata.
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_type="add" op_name="a/b" source_file="m.py" source_line=3}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b",source_line=3}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a\"b" source_line=3}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b" source_line=99999999999}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b" bogus=1}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b" preserve_layout=true}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b""#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b",, source_line=3}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={,op_name="a/b"}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b",}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b" , source_line=3}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b" source_line=03}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b" source_line=-3}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b" source_line=+3}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a/b" source_line=3x}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={source_line=3op_name="a/b"}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name="a" op_name="b"}"#,
    r#"%r = f32[4]{0} add(%p, %q), metadata={op_name ="a/b"}"#,
    // Attribute names.
    "%r = f32[4,4]{1,0} broadcast(%q),  dimensions={1}",
    "%r = f32[4,4]{1,0} broadcast(%q),dimensions={1}",
    "%r = f32[4,4]{1,0} broadcast(%q), dimensions ={1}",
    "%r = f32[4,4]{1,0} broadcast(%q), /*d*/ dimensions={1}",
    "%r = f32[4,4]{1,0} broadcast(%q), dimensions={1}, dimensions={1}",
    "%r = f32[4,4]{1,0} broadcast(%q), bf_dims={1}",
    "%r = f32[4,4]{1,0} broadcast(%q), b01f_01io->b01f={1}",
    "%r = f32[4,4]{1,0} broadcast(%q), 3d={1}",
    "%r = f32[4,4]{1,0} broadcast(%q), %dimensions={1}",
    "%r = f32[4,4]{1,0} broadcast(%q), dimensions=",
    "%r = f32[4,4]{1,0} broadcast(%q), ",
    // Integer lists and repeated attribute values.
    "%r = f32[4]{0} broadcast(%s), dimensions={}",
    "%r = f32[4,4]{1,0} broadcast(%q), dimensions={1}",
    "%r = f32[4,4]{1,0} broadcast(%q), dimensions={ 1 }",
    "%r = f32[4,4]{1,0} broadcast(%q), dimensions={1,}",
    "%r = f32[4]{0} all-reduce(%p), replica_groups={{0,1},{2,3}}, to_apply=%sum",
    "%r = f32[4]{0} all-reduce(%p), replica_groups={{0,1}, {2,3}}, to_apply=%sum",
    "%r = f32[4]{0} all-reduce(%p), replica_groups=[2,2]<=[4], to_apply=%sum",
    "%r = f32[4]{0} all-reduce(%p), replica_groups={{0,1},{2,3}, to_apply=%sum",
    "%r = f32[4]{0} negate(%p), sharding={devices=[2]0,1}",
    "%r = f32[4]{0} negate(%p), sharding={devices=[2]<=[2]}",
    "%r = f32[4]{0} negate(%p), sharding={devices=[2]0,1",
    // A bare word where a shared metadata string goes, after a string with the
    // same text was shared (found by the fuzz target).
    r#"%r = f32[4]{0} negate(%p), metadata={op_type="a" op_name="b" source_file=a ""source_line=1}"#,
    r#"%r = f32[4]{0} negate(%p), metadata={source_file="a" op_type=a}"#,
    r#"%r = f32[4]{0} negate(%p), metadata={op_type="a\n" source_file="a\n"}"#,
    r#"%r = f32[4]{0} negate(%p), metadata={op_type='a' source_file="a"}"#,
];

/// A module whose entry holds `line`, and a copy of it under another name
/// (unless it is a parameter), so that shapes and attribute values are also
/// read a second time, from the caches.
fn module_with(line: &str) -> String {
    let again = if line.contains("parameter(") {
        String::new()
    } else {
        line.replacen("r ", "r2 ", 1).replacen("r=", "r2=", 1)
    };
    format!(
        r#"HloModule readers, num_partitions=4

%sum (a: f32[], b: f32[]) -> f32[] {{
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(%a, %b)
}}

ENTRY %main (p: f32[4], q: f32[4], s: f32[]) -> f32[4] {{
  %p = f32[4]{{0}} parameter(0)
  %q = f32[4]{{0}} parameter(1)
  %s = f32[] parameter(2)
  %t = (f32[4]{{0}}, f32[4]{{0}}) tuple(%p, %q)
  {line}
  {again}
  ROOT %out = f32[4]{{0}} negate(%p)
}}
"#
    )
}

#[test]
fn lines_the_readers_take_and_lines_they_leave_parse_the_same() {
    for line in LINES {
        check(line, &module_with(line));
    }
}

#[test]
fn stack_frames_parse_the_same() {
    let frames = [
        "{file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}",
        "{function_name_id=1 file_name_id=1 line=3 end_line=3 column=1 end_column=9}",
        "{file_name_id=1, function_name_id=1, line=3, end_line=3, column=1, end_column=9}",
        "{file_name_id=1  function_name_id=1 line=3 end_line=3 column=1 end_column=9}",
        "{file_name_id=1 function_name_id=1 line=3 end_line=3 column=1}",
        "{file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9 extra=1}",
    ];
    for frame in frames {
        let text = format!(
            r#"HloModule frames

FileNames
1 "m.py"

FunctionNames
1 "f"

FileLocations
1 {frame}

StackFrames
1 {{file_location_id=1 parent_frame_id=0}}

ENTRY %main (p: f32[4]) -> f32[4] {{
  %p = f32[4]{{0}} parameter(0)
  ROOT %n = f32[4]{{0}} negate(%p), metadata={{op_name="n" stack_frame_id=1}}
}}
"#
        );
        check(frame, &text);
    }
}

/// Every `.hlo` file under `dir`, recursively.
fn hlo_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            hlo_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "hlo") {
            out.push(path);
        }
    }
}

#[test]
fn every_filetest_parses_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests");
    let mut files = Vec::new();
    hlo_files(&root, &mut files);
    assert!(files.len() > 100, "found only {} filetests", files.len());
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a filetest reads");
        check(&file.display().to_string(), &text);
    }
}

#[test]
fn every_corpus_module_parses_the_same() {
    let dir = skip_without_corpus!();
    let mut checked = 0;
    for row in rows(&dir) {
        if row.templated {
            continue;
        }
        check(&row.file.display().to_string(), &read(&row));
        checked += 1;
    }
    eprintln!("{checked} corpus modules parse the same with and without the byte-level readers");
}

/// Text cut off anywhere (in a name, a shape, an operand list, an attribute,
/// metadata) gets the same diagnostic from both: the readers never read past
/// the end or accept a part the cut has left unfinished.
#[test]
fn every_prefix_of_a_module_parses_the_same() {
    let text = module_with(
        r#"%r = f32[4,4]{1,0} broadcast(f32[4]{0} %q), dimensions={1}, metadata={op_name="b" source_line=3}"#,
    );
    let text = text.replace(
        "ROOT %out = f32[4]{0} negate(%p)",
        "%d = f32[4]{0} all-reduce(%p), replica_groups={{0,1},{2,3}}, to_apply=%sum\n  ROOT %out = f32[4]{0} parameter(3)",
    );
    for end in 0..=text.len() {
        if text.is_char_boundary(end) {
            check(&format!("the first {end} bytes"), &text[..end]);
        }
    }
}

/// Where a shape ends when a `{` follows it after spaces, line breaks or a
/// comment: the token parser reads a layout when the `{` is followed by an
/// integer or `:` (as XLA does), so `-> f32[4] {` opens the body but
/// `-> f32[4] {\n  9…` does not. Found by the fuzz target.
#[test]
fn shapes_end_where_the_token_parser_ends_them() {
    let headers = [
        "ENTRY %e (p: f32[4]) -> f32[4] {",
        "ENTRY %e (p: f32[4]) -> f32[4]{",
        "ENTRY %e (p: f32[4] ) -> f32[4]  {",
        "ENTRY %e (p: f32[4]{0}) -> f32[4] {0} {",
        "ENTRY %e (p: f32[4]{0}) -> f32[4]{ 0} {",
        "ENTRY %e (p: f32[4]) -> f32[4] /*c*/ {",
        "ENTRY %e (p: f32[4]) -> f32[4] /*c*/ {0} {",
        "ENTRY %e (p: f32[4]) -> f32[4]\n{",
        "ENTRY %e (p: (f32[4], s32[])) -> f32[4] {",
    ];
    let bodies = [
        "\n  %p = f32[4]{0} parameter(0)\n  ROOT %n = f32[4]{0} negate(%p)\n}\n",
        "\n  9%p = f32[4]{0} parameter(0)\n  ROOT %n = f32[4]{0} negate(%p)\n}\n",
        "\n  -1 %p = f32[4]{0} parameter(0)\n}\n",
        "\n  :%p = f32[4]{0} parameter(0)\n}\n",
        "}\n",
    ];
    for header in headers {
        for body in bodies {
            check(header, &format!("HloModule shapes\n\n{header}{body}"));
        }
    }
    let instructions = [
        "%n = f32[4] {0} negate(%p)",
        "%n = f32[4]{0} {0} negate(%p)",
        "%n = f32[4] /*c*/ negate(%p)",
        "%n = f32[4] /*c*/ {0} negate(%p)",
        "%n = f32[4]\n  {0} negate(%p)",
    ];
    for line in instructions {
        let text = format!(
            "HloModule shapes\n\nENTRY %e (p: f32[4]) -> f32[4] {{\n  %p = f32[4]{{0}} parameter(0)\n  {line}\n  ROOT %m = f32[4]{{0}} negate(%n)\n}}\n"
        );
        check(line, &text);
    }
}

/// A shape written like the one before it is recognised by its bytes; it
/// must still end where the token parser ends it when the text goes on past
/// the remembered text (a layout after a shape that had none, spaces,
/// comments, line breaks, a longer tuple).
#[test]
fn a_repeated_shape_ends_where_the_token_parser_ends_it() {
    let firsts = [
        "%a = f32[4] negate(%p)",
        "%a = f32[4]{0} negate(%p)",
        "%a = f32[4] add(f32[4] %p, f32[4]{0} %q)",
        "%a = (f32[4]{0}, f32[4]{0}) tuple(%p, %q)",
        "%a = f32[] reduce(%p, %s), dimensions={0}, to_apply=%sum",
    ];
    let seconds = [
        "%b = f32[4]{0} negate(%p)",
        "%b = f32[4] {0} negate(%p)",
        "%b = f32[4]  negate(%p)",
        "%b = f32[4] /*c*/ negate(%p)",
        "%b = f32[4] /*c*/ {0} negate(%p)",
        "%b = f32[4]\n  {0} negate(%p)",
        "%b = f32[4]{0}{0} negate(%p)",
        "%b = f32[4]{0}, negate(%p)",
        "%b = f32[4] add(f32[4] %p, f32[4]{0} %q)",
        "%b = f32[4] add(f32[4]{0} %p, f32[4] {0} %q)",
        "%b = (f32[4]{0}, f32[4]{0}), tuple(%p, %q)",
        "%b = (f32[4]{0}, f32[4]{0}) tuple(%p, %q)",
        "%b = (f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(%p, %q, %p)",
        "%b = f32[] reduce(%p, %s), dimensions={0}, to_apply=%sum",
        "%b = f32[]{} reduce(%p, %s), dimensions={0}, to_apply=%sum",
    ];
    for first in firsts {
        for second in seconds {
            let lines = format!("{first}\n  {second}");
            check(&lines, &module_with(&lines));
        }
    }
}

/// Tuple shapes whose elements were seen before are read element by element
/// from the bytes; every way of writing the elements must still read as the
/// token parser reads it, errors included.
#[test]
fn tuple_elements_seen_before_parse_the_same() {
    let tuples = [
        "(f32[4]{0}, f32[4]{0}, f32[4]{0})",
        "(f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, /*index=5*/f32[4]{0})",
        "(f32[4]{0}, /*index=1*/ f32[4]{0}, f32[4]{0})",
        "(f32[4]{0}, /* a comment */f32[4]{0}, f32[4]{0})",
        // A comment whose text starts with `/`: its first `*/` is the one
        // after the opening `/*`, not the one that overlaps it.
        "(f32[4]{0}, /*/ a comment */f32[4]{0}, f32[4]{0})",
        "(f32[4]{0}, /*// a comment*/ f32[4]{0}, f32[4]{0})",
        "(f32[4]{0}, /**/f32[4]{0}, f32[4]{0})",
        "(f32[4]{0}, /*/f32[4]{0}, f32[4]{0})",
        "(f32[4]{0}, /*index=1*/f32[4]{0}, /*never closed f32[4]{0})",
        "(f32[4]{0}, // a line comment\n f32[4]{0}, f32[4]{0})",
        "(f32[4]{0},f32[4]{0}, f32[4]{0})",
        "(f32[4]{0},  f32[4]{0}, f32[4]{0})",
        "(f32[4]{0}, f32[4]{0} , f32[4]{0})",
        "(f32[4]{0}, f32[7]{0}, f32[4]{0})",
        "(f32[4]{0}, f32[4]{0}, )",
        "(f32[4]{0}, f32[4]{0}",
        "(f32[4]{0}, f32[4]{0}) , f32[4]{0})",
        "(f32[4]{0}, (f32[4]{0}, f32[4]{0}), f32[4]{0})",
        "((f32[4]{0}, f32[4]{0}), (f32[4]{0}, f32[4]{0}))",
        "(f32[4]{0}, f32[4], f32[4]{0})",
        "(f32[4]{0}, f32[4]{0}\n, f32[4]{0})",
    ];
    for tuple in tuples {
        let elements = tuple.matches("f32").count();
        let operands = vec!["%p"; elements].join(", ");
        let line = format!("%r = {tuple} tuple({operands})");
        check(&line, &module_with(&line));
        let nested = format!("%r = ({tuple}, f32[4]{{0}}) tuple(%t, %p)");
        check(&nested, &module_with(&nested));
    }
}

/// Computation signatures as XLA prints them, and ones just outside that form;
/// each computation is written twice so that its shapes are also read from
/// the cache.
#[test]
fn signatures_parse_the_same() {
    let signatures = [
        "(a: f32[4], b: f32[4]) -> f32[4]",
        "(a: f32[4], b: f32[4]) -> f32[4]{0}",
        "(a: f32[4]{0}, b: f32[4]) -> (f32[4], s32[])",
        "() -> f32[4]",
        "(a: f32[4],b: f32[4]) -> f32[4]",
        "(a : f32[4], b: f32[4]) -> f32[4]",
        "(a:f32[4], b: f32[4]) -> f32[4]",
        "(a: f32[4], b: f32[4])->f32[4]",
        "(a: f32[4], b: f32[4] ) -> f32[4]",
        "(%a: f32[4], b: f32[4]) -> f32[4]",
        "(bf_0: f32[4], b: f32[4]) -> f32[4]",
        "(a.1: f32[4], b-2: f32[4]) -> f32[4]",
        "(a: f32[4], b: f32[4]) f32[4]",
        "(a: f32[4], b: f32[4]) -> f32[5]",
        "(a: f32[4], b: f32[4] -> f32[4]",
        "(a: f32[4], b: f32[4]) -> f32[4]  ",
        "(a: f32[4], b: f32[4]) -> f32[4] /*c*/",
    ];
    let mut parsed = 0;
    for signature in signatures {
        let computation = |name: &str| {
            format!(
                "%{name} {signature} {{\n  %a = f32[4]{{0}} parameter(0)\n  %b = f32[4]{{0}} parameter(1)\n  ROOT %c = f32[4]{{0}} add(%a, %b)\n}}\n\n"
            )
        };
        let text = format!(
            "HloModule signatures\n\n{}{}ENTRY %main (p: f32[4]) -> f32[4] {{\n  %p = f32[4]{{0}} parameter(0)\n  %x = f32[4]{{0}} call(%p, %p), to_apply=%first\n  ROOT %y = f32[4]{{0}} call(%x, %p), to_apply=%second\n}}\n",
            computation("first"),
            computation("second"),
        );
        check(signature, &text);
        parsed += usize::from(parse_by_tokens(&text).is_ok());
    }
    // The near-misses include accepted spellings, not only errors.
    assert_eq!(parsed, 11, "signatures that parse");
}

/// The token parser refuses to nest more than 64 levels deep; a shape read
/// before is not read from the cache where parsing its text again would go
/// past that limit, so text near the limit gets the same diagnostic either
/// way. Found by the fuzz target.
#[test]
fn the_nesting_limit_holds_for_remembered_shapes() {
    for depth in 56..=68 {
        let open = "(".repeat(depth);
        let text = format!(
            "HloModule m\n\nENTRY %main {{\n  %p = f32[] parameter(0)\n  %a = ((), (), s32[]) call-start(), to_apply={{\n    %x = f32[] parameter(0)\n    ROOT %y = f32[] add(%x, %x)\n  }}\n  %b = ((), (), s32[]) call-start(), to_apply={{\n    %z ={open}(), (), s32[]) call.1)\n}}\n"
        );
        check(&format!("{depth} parentheses"), &text);
    }
}

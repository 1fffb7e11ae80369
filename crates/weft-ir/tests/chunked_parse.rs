//! The chunked parse (workers parsing the tail of a body while the main parser
//! reads the text before it) gives exactly the sequential parse: the same
//! instructions under the same handles, the same printed text in both forms, the
//! same source spans, and the same diagnostic on bad input, wherever the chunks
//! start (at instruction lines, mid-line, inside strings and comments).

use std::fmt::Write as _;

use weft_ir::entity::EntityRef;
use weft_ir::text::{PrintOptions, parse_split_at, print};

mod corpus;
mod outcome;

use corpus::{corpus_dir, read, rows};
use outcome::{long_and_short, outcome};

fn sequential(text: &str) -> String {
    outcome(parse_split_at(text, &[]))
}

/// The first byte of every line, and of its first non-blank character.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    for (at, _) in text.match_indices('\n') {
        starts.push(at + 1);
        let indent = text[at + 1..]
            .bytes()
            .take_while(|b| *b == b' ' || *b == b'\t')
            .count();
        if indent > 0 {
            starts.push(at + 1 + indent);
        }
    }
    starts
}

/// Checks `text` split at every line start alone, at every pair of line
/// starts, and at every byte offset alone.
fn check_exhaustively(name: &str, text: &str) {
    check_splits(name, text, 0);
}

/// Checks `text` split at every line start alone, at every pair of line starts
/// from byte `pairs_from` on, and at every byte offset alone.
fn check_splits(name: &str, text: &str, pairs_from: usize) {
    let expected = sequential(text);
    let starts = line_starts(text);
    let mut splits: Vec<Vec<usize>> = starts.iter().map(|&s| vec![s]).collect();
    let paired: Vec<usize> = starts.into_iter().filter(|&s| s >= pairs_from).collect();
    for (i, &a) in paired.iter().enumerate() {
        for &b in &paired[i + 1..] {
            splits.push(vec![a, b]);
        }
    }
    splits.extend((0..text.len()).map(|at| vec![at]));
    for split in splits {
        let got = outcome(parse_split_at(text, &split));
        if got != expected {
            panic!(
                "{name}: split at {split:?} differs from the sequential parse\n--- sequential\n{expected}\n--- split\n{got}"
            );
        }
    }
}

/// The reducer and the wrapped computation both test modules call.
macro_rules! called_computations {
    () => {
        r#"%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] add(f32[] %a, f32[] %b)
}

%wrapped (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(f32[8]{0} %x)
}
"#
    };
}

const BODY: &str = concat!(
    "HloModule chunks, entry_computation_layout={(f32[8]{0}, f32[8]{0})->f32[8]{0}}\n\n",
    called_computations!(),
    r#"
ENTRY %main (p0: f32[8], p1: f32[8]) -> f32[8] {
  %p0 = f32[8]{0} parameter(0)
  %p1 = f32[8]{0} parameter(1)
  %sum = f32[8]{0} add(f32[8]{0} %p0, f32[8]{0} %p1), metadata={op_name="sum" source_file="m.py" source_line=3}
  %t = (f32[8]{0}, f32[8]{0}) tuple(%sum, %p1)
  %g = f32[8]{0} get-tuple-element(%t), index=0
  %ar = f32[8]{0} all-reduce(%g), replica_groups={}, to_apply=%add
  /* a comment with a line
  %fake = f32[8]{0} negate(%p0) inside it */
  %s = ((f32[8]{0}), f32[8]{0}) async-start(%ar), calls=%wrapped
  %d = f32[8]{0} async-done(%s)
  %r = f32[2,4]{1,0} reshape(f32[8]{0} %d)
  %c = f32[8]{0} custom-call(%g), custom_call_target="foo", operand_layout_constraints={f32[8]{0}}, backend_config="  %not = f32[8]{0} negate(%p0)"
  %m = f32[8]{0} multiply(%c, %ar), control-predecessors={%sum}
  %x = f32[8]{0} add(%p0, %m)
  ROOT %out = f32[8]{0} add(%x, %g)
}
"#
);

#[test]
fn every_split_of_a_module_gives_the_sequential_parse() {
    assert!(
        !sequential(BODY).starts_with("error"),
        "{}",
        sequential(BODY)
    );
    check_exhaustively("module", BODY);
}

#[test]
fn unscheduled_long_and_short_forms_split_the_same() {
    let short = print(
        &weft_ir::text::parse(BODY).expect("parses"),
        &PrintOptions::short(),
    );
    check_exhaustively("short form", &short);
}

/// Each error is reported exactly as the sequential parser reports it, wherever
/// the chunks start.
#[test]
fn every_split_of_a_bad_module_gives_the_sequential_error() {
    let cases = [
        // A name defined twice, on either side of a split.
        (
            "duplicate",
            "  %x = f32[8]{0} add(%p0, %m)",
            "  %sum = f32[8]{0} add(%p0, %m)",
        ),
        // An operand defined after its use.
        (
            "forward",
            "  %x = f32[8]{0} add(%p0, %m)",
            "  %x = f32[8]{0} add(%p0, %out)",
        ),
        // A declared operand shape that does not match.
        (
            "declared",
            "  %x = f32[8]{0} add(%p0, %m)",
            "  %x = f32[8]{0} add(f32[9]{0} %p0, %m)",
        ),
        // A second ROOT.
        (
            "root",
            "  %x = f32[8]{0} add(%p0, %m)",
            "  ROOT %x = f32[8]{0} add(%p0, %m)",
        ),
        // An unknown computation.
        ("callee", "to_apply=%add", "to_apply=%nothing"),
        // A computation calling the one it is in.
        ("recursion", "to_apply=%add", "to_apply=%main"),
        // A syntax error late in the body.
        (
            "syntax",
            "  ROOT %out = f32[8]{0} add(%x, %g)",
            "  ROOT %out = f32[8]{0} add(%x, %g",
        ),
        // A bad async chain.
        ("chain", "async-done(%s)", "async-done(%s), calls=%add"),
        // An operand named in another computation: a chunk that runs from
        // one body into the next must not carry names over.
        ("other body", "negate(f32[8]{0} %x)", "negate(%a)"),
        // A parameter number given twice, in a small computation and in the
        // entry, and a parameter beyond the signature.
        (
            "parameter",
            "%b = f32[] parameter(1)",
            "%b = f32[] parameter(0)",
        ),
        (
            "entry parameter",
            "%p1 = f32[8]{0} parameter(1)",
            "%p1 = f32[8]{0} parameter(0)",
        ),
        (
            "signature",
            "%x = f32[8]{0} parameter(0)",
            "%x = f32[8]{0} parameter(1)",
        ),
    ];
    for (name, from, to) in cases {
        assert!(BODY.contains(from), "{name}");
        let text = BODY.replacen(from, to, 1);
        let expected = sequential(&text);
        assert!(expected.starts_with("error"), "{name}: {text}");
        // Parsing without a source map gives the same diagnostic.
        for threads in [1, 2] {
            let without_spans = weft_ir::text::parse_with_threads(&text, threads)
                .err()
                .map(|d| format!("error: {d:?}"));
            assert_eq!(without_spans.as_deref(), Some(expected.as_str()), "{name}");
        }
        check_exhaustively(name, &text);
    }
}

/// Async chains a worker parses itself (generic ops whose chain stays in the
/// chunk) and ones the main parser must parse (chains traced back out of the
/// chunk or through a loop, sugar that grows its wrapped computation, a start
/// that sets its computation's thread).
const ASYNC_BODY: &str = concat!(
    "HloModule asyncs\n\n",
    called_computations!(),
    r#"
%wrapped2 (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(f32[8]{0} %x)
}

%wrapped3 (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(f32[8]{0} %x)
}

%wrapped4 (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(f32[8]{0} %x)
}

%loop_body (state: (((f32[8]), f32[8]), s32[])) -> (((f32[8]), f32[8]), s32[]) {
  %state = (((f32[8]{0}), f32[8]{0}), s32[]) parameter(0)
  %start = ((f32[8]{0}), f32[8]{0}) get-tuple-element(%state), index=0
  %i = s32[] get-tuple-element(%state), index=1
  ROOT %next = (((f32[8]{0}), f32[8]{0}), s32[]) tuple(%start, %i)
}

%loop_cond (state: (((f32[8]), f32[8]), s32[])) -> pred[] {
  %state = (((f32[8]{0}), f32[8]{0}), s32[]) parameter(0)
  ROOT %stop = pred[] constant(false)
}

ENTRY %main (p0: f32[8], p1: f32[8]) -> (f32[8], f32[4]) {
  %p0 = f32[8]{0} parameter(0)
  %p1 = f32[8]{0} parameter(1)
  %zero = s32[] constant(0)
  %s = ((f32[8]{0}), f32[8]{0}) async-start(%p0), calls=%wrapped
  %d = f32[8]{0} async-done(%s)
  %st2 = ((f32[8]{0}), f32[8]{0}) async-start(%d), calls=%wrapped2
  %init = (((f32[8]{0}), f32[8]{0}), s32[]) tuple(%st2, %zero)
  %w = (((f32[8]{0}), f32[8]{0}), s32[]) while(%init), condition=%loop_cond, body=%loop_body
  %startw = ((f32[8]{0}), f32[8]{0}) get-tuple-element(%w), index=0
  %dn2 = f32[8]{0} async-done(%startw)
  %st3 = ((f32[8]{0}), f32[8]{0}, s32[]) async-start(%p1), calls=%wrapped3
  %up3 = ((f32[8]{0}), f32[8]{0}, s32[]) async-update(%st3)
  %tu3 = (((f32[8]{0}), f32[8]{0}, s32[]), f32[8]{0}) tuple(%up3, %p0)
  %gt3 = ((f32[8]{0}), f32[8]{0}, s32[]) get-tuple-element(%tu3), index=0
  %dn3 = f32[8]{0} async-done(%gt3), calls=%wrapped3
  %st4 = ((f32[8]{0}), f32[8]{0}) async-start(%dn3), calls=%wrapped4, async_execution_thread="host"
  %dn4 = f32[8]{0} async-done(%st4)
  %rs = ((f32[8]{0}), f32[4]{0}) reduce-scatter-start(%dn2), replica_groups={{0,1}}, dimensions={0}, to_apply=%add
  %rsd = f32[4]{0} reduce-scatter-done(%rs)
  %cs = ((f32[8]{0}), f32[8]{0}, u32[]) custom-call-start(%dn4), custom_call_target="foo"
  %cu = ((f32[8]{0}), f32[8]{0}, u32[]) custom-call-update(%cs)
  %cd = f32[8]{0} custom-call-done(%cu)
  %r = f32[8]{0} add(%cd, %dn2)
  ROOT %out = (f32[8]{0}, f32[4]{0}) tuple(%r, %rsd)
}
"#
);

#[test]
fn every_split_of_async_chains_gives_the_sequential_parse() {
    let expected = sequential(ASYNC_BODY);
    assert!(!expected.starts_with("error"), "{expected}");
    check_exhaustively("async", ASYNC_BODY);
    let short = print(
        &weft_ir::text::parse(ASYNC_BODY).expect("parses"),
        &PrintOptions::short(),
    );
    check_exhaustively("async, short form", &short);
    let cases = [
        // A done whose operand is a done.
        ("done of done", "async-done(%st4)", "async-done(%d)"),
        // A done naming another computation than its chain's.
        ("calls", "calls=%wrapped3\n", "calls=%wrapped2\n"),
        // A done on another thread than its start.
        (
            "thread",
            "async-done(%st4)",
            "async-done(%st4), async_execution_thread=\"other\"",
        ),
        // A done through a loop naming another computation than its chain's.
        (
            "loop calls",
            "async-done(%startw)",
            "async-done(%startw), calls=%wrapped3",
        ),
        // A done whose operand no start reaches.
        ("unreached", "async-done(%startw)", "async-done(%init)"),
        // An update of a chain through a loop, after its done.
        (
            "loop update",
            "  %r = f32[8]{0} add(%cd, %dn2)",
            "  %late = ((f32[8]{0}), f32[8]{0}) async-update(%startw)\n  %r = f32[8]{0} add(%cd, %dn2)",
        ),
    ];
    // Pairs of chunks only in the entry, where chunks are merged (elsewhere a
    // chunk is passed over, which single splits check).
    for (name, from, to) in cases {
        assert!(ASYNC_BODY.contains(from), "{name}");
        let text = ASYNC_BODY.replacen(from, to, 1);
        check_splits(name, &text, text.find("ENTRY").expect("an entry"));
    }
}

/// Every module of the corpus, split at line starts across its largest part
/// and at a few offsets that are not line starts.
#[test]
fn corpus_modules_split_as_they_parse() {
    let dir = skip_without_corpus!();
    let mut checked = 0;
    for row in rows(&dir) {
        if row.templated {
            continue;
        }
        let text = read(&row);
        let starts = line_starts(&text);
        if starts.len() < 4 {
            continue;
        }
        let expected = sequential(&text);
        let at = |fraction: f64| starts[((starts.len() - 1) as f64 * fraction) as usize];
        let mid_line = (at(0.5) + 7).min(text.len() - 1);
        let splits = [
            vec![at(0.5)],
            vec![at(0.25), at(0.5), at(0.75)],
            vec![at(0.1), at(0.9)],
            vec![mid_line],
        ];
        for split in splits {
            let got = outcome(parse_split_at(&text, &split));
            assert!(
                got == expected,
                "{}: split at {split:?} differs from the sequential parse",
                row.file.display()
            );
        }
        checked += 1;
    }
    eprintln!("{checked} corpus modules parse the same split and whole");
}

/// A module of `count` small computations, each calling the one before, and
/// an entry calling the last.
fn many_computations(count: usize) -> String {
    let mut text = String::from("HloModule many\n\n");
    for i in 0..count {
        let call = if i == 0 {
            format!("  %n{i} = f32[4]{{0}} negate(f32[4]{{0}} %a{i})")
        } else {
            format!(
                "  %n{i} = f32[4]{{0}} call(f32[4]{{0}} %a{i}), to_apply=%c{}",
                i - 1
            )
        };
        text.push_str(&format!(
            "%c{i} (a{i}: f32[4], b{i}: f32[4]) -> f32[4] {{\n  %a{i} = f32[4]{{0}} parameter(0)\n  %b{i} = f32[4]{{0}} parameter(1)\n{call}\n  %m{i} = f32[4]{{0}} multiply(%n{i}, %b{i}), metadata={{op_name=\"c{i}\"}}\n  ROOT %r{i} = f32[4]{{0}} add(%m{i}, %a{i})\n}}\n\n"
        ));
    }
    let last = count - 1;
    text.push_str(&format!(
        "ENTRY %main (p: f32[4]) -> f32[4] {{\n  %p = f32[4]{{0}} parameter(0)\n  ROOT %c = f32[4]{{0}} call(%p, %p), to_apply=%c{last}\n}}\n"
    ));
    text
}

/// What a parse gives, without source spans: both printed forms and every
/// instruction's name and computation, or the diagnostic.
fn parsed_with_threads(text: &str, threads: usize) -> String {
    match weft_ir::text::parse_with_threads(text, threads) {
        Ok(m) => {
            let mut out = long_and_short(&m);
            for (instr, data) in m.instrs.iter() {
                let _ = write!(
                    out,
                    "\n{} {} {:?}",
                    instr.index(),
                    data.name,
                    m.parent(instr)
                );
            }
            out
        }
        Err(d) => format!("error: {d:?}"),
    }
}

/// The planned parse of a module of many small computations (the workers
/// take the tail of the text, chunks running from body to body) gives the
/// sequential parse, good or bad, on any number of threads.
#[test]
fn planned_parse_of_many_computations_is_the_sequential_parse() {
    // Big enough for the parser to share it out with workers (8 MB).
    let count = 30_000;
    let text = many_computations(count);
    assert!(text.len() > 8 << 20, "{}", text.len());
    // Late in the text, in the workers' share.
    let (a, b, c, d) = (count - 500, count - 300, count - 200, count - 100);
    let cases = [
        ("good", String::new(), String::new()),
        (
            "duplicate parameter",
            format!("%b{a} = f32[4]{{0}} parameter(1)"),
            format!("%b{a} = f32[4]{{0}} parameter(0)"),
        ),
        (
            "other body",
            format!("multiply(%n{b}, %b{b})"),
            format!("multiply(%n{b}, %b{})", b - 1),
        ),
        (
            "unknown callee",
            format!("to_apply=%c{}", c - 1),
            format!("to_apply=%c{c}"),
        ),
        (
            "syntax",
            format!("add(%m{d}, %a{d})"),
            format!("add(%m{d} %a{d})"),
        ),
    ];
    for (name, from, to) in cases {
        assert!(text.contains(&from), "{name}");
        let text = text.replacen(&from, &to, 1);
        let expected = parsed_with_threads(&text, 1);
        assert_eq!(
            expected.starts_with("error"),
            name != "good",
            "{name}: {expected:.300}"
        );
        for threads in [2, 3, 5] {
            assert!(
                parsed_with_threads(&text, threads) == expected,
                "{name}: {threads} threads differ from the sequential parse"
            );
        }
    }
}

/// A module whose entry body holds `count` instructions, in lines long
/// enough for the body to be split over workers.
fn huge_body(count: usize) -> String {
    let mut text = String::from(
        "HloModule huge\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n  %v0 = f32[4]{0} negate(%p)\n  %v1 = f32[4]{0} negate(%v0)\n",
    );
    for i in 2..count {
        let _ = writeln!(
            text,
            "  %v{i} = f32[4]{{0}} add(%v{}, %v{}), metadata={{op_name=\"layer/add\"}}",
            i - 1,
            i - 2
        );
    }
    let _ = writeln!(text, "  ROOT %r = f32[4]{{0}} negate(%v{})\n}}", count - 1);
    text
}

/// A name defined twice in a huge body is reported at its second definition,
/// as the sequential parse with source positions reports it, however far apart
/// the two are and wherever the workers' share begins.
#[test]
fn duplicate_names_in_a_huge_body_are_reported_where_they_are() {
    let text = huge_body(90_000);
    assert!(text.len() > 4 << 20, "{}", text.len());
    let cases = [
        ("good", "", ""),
        // Far apart, both early (the main parser's share).
        ("early", "%v30000 = f32[4]{0} add", "%v5 = f32[4]{0} add"),
        // Far apart, the second late (a worker's share).
        ("late", "%v85000 = f32[4]{0} add", "%v7 = f32[4]{0} add"),
        // Close together.
        (
            "close",
            "%v60010 = f32[4]{0} add",
            "%v60002 = f32[4]{0} add",
        ),
        // The last instruction, found only when the body ends.
        (
            "root",
            "ROOT %r = f32[4]{0} negate",
            "ROOT %v3 = f32[4]{0} negate",
        ),
    ];
    for (name, from, to) in cases {
        assert!(text.contains(from), "{name}");
        let text = text.replacen(from, to, 1);
        let expected = match weft_ir::text::parse_with_source_map(&text) {
            Ok(_) => None,
            Err(d) => Some(format!("error: {d:?}")),
        };
        assert_eq!(expected.is_some(), name != "good", "{name}: {expected:?}");
        if let Some(expected) = &expected {
            assert!(
                expected.contains("instruction already exists"),
                "{name}: {expected}"
            );
        }
        for threads in [1, 2, 3] {
            let got = parsed_with_threads(&text, threads);
            match &expected {
                Some(expected) => assert_eq!(&got, expected, "{name} on {threads} threads"),
                None => assert!(
                    !got.starts_with("error"),
                    "{name} on {threads} threads: {got:.300}"
                ),
            }
        }
    }
}

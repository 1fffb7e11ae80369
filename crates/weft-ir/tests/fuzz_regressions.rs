//! Regression tests for inputs found by the `parse_hlo` fuzz target
//! (`fuzz/fuzz_targets/parse_hlo.rs`), minimized with `cargo fuzz tmin`.
//!
//! The fuzz target's properties: parsing never panics; a rejected input gets a
//! diagnostic inside the source that renders; an accepted input's long and short
//! prints parse again and print the same text.

use weft_ir::text::{PrintOptions, parse, print};

/// Checks the fuzz target's properties on `text` and returns whether it parsed.
fn check(text: &str) -> bool {
    let module = match parse(text) {
        Ok(module) => module,
        Err(d) => {
            assert!(d.span.start <= d.span.end && d.span.end as usize <= text.len());
            let _ = d.render("fuzz.hlo", text);
            let _ = d.short("fuzz.hlo", text);
            return false;
        }
    };
    for options in [PrintOptions::long(), PrintOptions::short()] {
        let once = print(&module, &options);
        let reparsed = parse(&once).unwrap_or_else(|d| {
            panic!(
                "{:?} print does not parse again:\n{}\n{once}",
                options.style,
                d.render("printed.hlo", &once)
            )
        });
        assert_eq!(once, print(&reparsed, &options), "{:?}", options.style);
    }
    true
}

/// Asserts `text` is rejected with an error located at byte `at`.
fn rejected_at(text: &str, at: u32) {
    assert!(!check(text), "accepted: {text:?}");
    let d = parse(text).unwrap_err();
    assert_eq!(d.span.start, at, "{}", d.render("fuzz.hlo", text));
}

/// A `%` name must start like an identifier, as in XLA: the short form drops the
/// `%`, and `.` (or a digit) cannot start a name there.
#[test]
fn percent_name_must_start_like_an_identifier() {
    rejected_at("H{%.=f32[]constant(2)}", 2);
    rejected_at("H{%0=f32[]constant(2)}", 2);
    assert!(check("H{%_0=f32[]constant(2)}"));
}

/// A computation cannot call itself: `calls=` naming the enclosing computation
/// made the printer sugar the op as `async-update-update`, which re-read as a
/// different instruction.
#[test]
fn computation_cannot_call_itself() {
    let text = "async_dus{state =()parameter(0)s =((),s2[])async-update(state),calls=async_dus}";
    rejected_at(text, text.find("async_dus}").unwrap() as u32);
    let nested = "c {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply={\n    q = f32[] parameter(0)\n    ROOT s = f32[] call(q), to_apply=c\n  }\n}\n";
    rejected_at(nested, nested.find("c\n  }").unwrap() as u32);
}

/// An async-start around a parameter printed as `parameter-start()`, which the
/// parser refuses; such wrappers (and those around constants, async ops and ops
/// with first-class async forms) now print unsugared.
#[test]
fn wrappers_the_parser_refuses_as_sugar_print_unsugared() {
    assert!(check(
        "async_dus{s =f32[]parameter(0)}h{t =((),f32[])async-start(),calls=async_dus}"
    ));
    let all_reduce = "HloModule m\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT a = f32[] add(x, y)\n}\n\nwrapped {\n  p = f32[8] parameter(0)\n  ROOT ar = f32[8] all-reduce(p), to_apply=add\n}\n\nENTRY e {\n  p = f32[8] parameter(0)\n  s = ((f32[8]), f32[8]) async-start(p), calls=wrapped\n  ROOT d = f32[8] async-done(s), calls=wrapped\n}\n";
    assert!(check(all_reduce));
    let printed = print(&parse(all_reduce).unwrap(), &PrintOptions::short());
    assert!(
        printed.contains("async-start(p.1), calls=wrapped"),
        "{printed}"
    );
}

/// An `async-done` with `calls=` whose operand does not come from an async-start
/// printed as `<op>-done` sugar without `calls=`, which then bound to nothing.
#[test]
fn async_done_must_be_reached_by_its_start() {
    let text = "w {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n\nENTRY e {\n  p = f32[] parameter(0)\n  s = ((f32[]), f32[]) async-start(p), calls=w\n  t = ((f32[]), f32[]) parameter(1)\n  ROOT d = f32[] async-done(t), calls=w\n}\n";
    rejected_at(text, text.find("d = ").unwrap() as u32);
}

/// `f32[1888888888888] constant({12345})` allocated the whole array (7.5 TB)
/// before reading the elements and aborted; huge constants are now rejected
/// before allocating, and `{...}` allocates nothing.
#[test]
fn huge_constants_are_rejected_before_allocating() {
    let text = "ENTRY CustomCall {\n  constant = f32[1888888888888]{0} constant({12345})\n}\n";
    rejected_at(text, text.find("{12345}").unwrap() as u32);
    // Minimized by `cargo fuzz tmin`: the 35 GB array was allocated up front.
    rejected_at("H{t =f32[8888888888]constant(", 29);
    // A shape whose size overflows int64 is no shape (XLA's ValidateShape):
    // rejected where it is written, before its constant is read.
    let overflow = "ENTRY e {\n  c = f32[4294967296,4294967296] constant(1)\n}\n";
    rejected_at(overflow, overflow.find("f32[").unwrap() as u32);
    assert!(check(
        "ENTRY e {\n  ROOT c = f32[1000000,1000000,1000000] constant({...})\n}\n"
    ));
    // The bare-value form still fills a moderately large array.
    assert!(check("ENTRY e {\n  ROOT c = f32[1000] constant(1)\n}\n"));
}

/// `parameter(2147483648)` grew the computation's parameter table to the number
/// (a 16 GB allocation, which aborted); numbers beyond what the text can hold
/// are rejected first.
#[test]
fn huge_parameter_numbers_are_rejected_before_allocating() {
    let text = "m{a =f32[]parameter(2147483648)";
    rejected_at(text, text.find("2147483648").unwrap() as u32);
    let text = "ENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(12147483648)\n  ROOT m = f32[] multiply(a, b)\n}\n";
    rejected_at(text, text.find("12147483648").unwrap() as u32);
    // A gap within range is still the computation's error, as before.
    let gap = "ENTRY e {\n  ROOT a = f32[] parameter(3)\n}\n";
    assert!(!check(gap));
}

/// `backend_config=" {}"` printed raw as `backend_config= {}`, which reads back
/// as `{}`: only a value that is exactly one `{…}` prints raw (surrounding
/// whitespace stays quoted), and `'…'` strings inside are skipped as the parser
/// skips them.
#[test]
fn backend_config_prints_raw_only_when_it_reads_back() {
    assert!(check("f{p =f32[]parameter(0),backend_config=\" {}\"}"));
    assert!(check("f{p =f32[]parameter(0),backend_config=\"{} \"}"));
    assert!(check("f{p =f32[]parameter(0),backend_config=\"{'}\"}"));
    assert!(check(
        "f{p =f32[]parameter(0),frontend_attributes={a=\"{'x}\", b=\" {}\"}}"
    ));
    let raw = "f{p =f32[]parameter(0),backend_config={\"a\":{\"b\":'}'}}}";
    assert!(check(raw));
    let printed = print(&parse(raw).unwrap(), &PrintOptions::short());
    assert!(
        printed.contains("backend_config={\"a\":{\"b\":'}'}}"),
        "{printed}"
    );
}

/// Deep nesting overflowed the stack (a silent SIGSEGV that killed the fuzzer
/// without an artifact; reproduced with the inputs below): `(`/`{` nesting is
/// limited to 64 levels, checked before parsing, outside strings and comments.
#[test]
fn deep_nesting_is_rejected_before_recursing() {
    let n = 100_000;
    let shape = format!(
        "ENTRY e {{\n  p = {}f32[]{} parameter(0)\n}}\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    // Sixty-four levels are allowed and every `(` opens one, so the 65th is the
    // first too deep; the element shape inside the tuples is a level of its own.
    rejected_at(&shape, shape.find('(').unwrap() as u32 + 64);
    let tuple_nested = |depth: usize| {
        format!(
            "ENTRY e {{\n  p = {}f32[]{} parameter(0)\n}}\n",
            "(".repeat(depth),
            ")".repeat(depth)
        )
    };
    assert!(check(&tuple_nested(63)));
    assert!(!check(&tuple_nested(64)));
    let operand = format!(
        "ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] {}p{}\n}}\n",
        "negate(".repeat(n),
        ")".repeat(n)
    );
    assert!(!check(&operand));
    let inline = format!(
        "ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply={}{{ a = f32[] parameter(0) }}{}\n}}\n",
        "{\n q = f32[] parameter(0)\n ROOT s = f32[] call(q), to_apply=".repeat(n),
        "}".repeat(n)
    );
    assert!(!check(&inline));
    // Brackets in strings and comments are not nesting.
    let quoted = format!(
        "ENTRY e {{\n  ROOT p = f32[] parameter(0), backend_config=\"{}\" /* {} */\n}}\n",
        "{".repeat(1000),
        "(".repeat(1000)
    );
    assert!(check(&quoted));
    // Real nesting a few levels deep is fine.
    assert!(check(
        "ENTRY e {\n  ROOT p = ((((f32[]), s32[]))) parameter(0)\n}\n"
    ));
}

//! Nesting depth and text weft reads back, through the `weft` binary.
//!
//! Depth is bounded everywhere: StableHLO text nests at most 512 levels,
//! HLO shapes 64, computations 256 (as deep as the evaluator runs), each
//! refused with a located error naming the limit; nothing recurses without
//! a bound on what it reads, and nothing takes time superlinear in the
//! nesting. Text weft prints, weft reads: unknown enum keywords are refused
//! where they are read, and what `convert` writes parses again.
//!
//! Each reproducer of `../shared/repro/` is run with the command its README
//! gives; the deep inputs its generators write are made here instead, at
//! their sizes and beyond. Every run must end, within [`BOUND`], with exit
//! status 0 or 1 and no panic or signal. Tests that read a reproducer file
//! skip with a message when `../shared/repro` is absent.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::Scratch;

/// How long one command may take. Each takes well under a second; the
/// cubic and exponential walks these tests guard against took minutes.
const BOUND: Duration = Duration::from_secs(20);

/// What one run of `weft` did.
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    what: String,
}

impl Outcome {
    /// Exit status 0 or 1, no panic, no signal, no stack overflow.
    fn clean(&self) -> &Self {
        assert!(
            matches!(self.code, Some(0 | 1)),
            "{}: exit status {:?} (a signal?)\n{}",
            self.what,
            self.code,
            self.stderr
        );
        for sign in ["panicked", "overflowed its stack", "RUST_BACKTRACE"] {
            assert!(
                !self.stderr.contains(sign),
                "{}: {sign}\n{}",
                self.what,
                self.stderr
            );
        }
        self
    }

    /// Succeeded.
    fn ok(&self) -> &Self {
        self.clean();
        assert_eq!(self.code, Some(0), "{}:\n{}", self.what, self.stderr);
        self
    }

    /// Failed with an error saying `message`, located in `file`
    /// (`--> file:line:col`).
    fn located_error(&self, file: &Path, message: &str) -> &Self {
        self.clean();
        assert_eq!(self.code, Some(1), "{}: expected an error", self.what);
        assert!(
            self.stderr.contains(message),
            "{}: expected {message:?} in\n{}",
            self.what,
            first_lines(&self.stderr)
        );
        let at = format!("--> {}:", file.display());
        assert!(
            self.stderr.contains(&at),
            "{}: expected the error located ({at}) in\n{}",
            self.what,
            first_lines(&self.stderr)
        );
        self
    }
}

/// The start of a diagnostic (a deep input's source line can be huge).
fn first_lines(text: &str) -> String {
    text.lines()
        .map(|l| l.chars().take(300).collect::<String>())
        .take(12)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `weft args…` in `scratch` with output to files, killed at twice
/// [`BOUND`]; asserts it ended within [`BOUND`].
fn weft(scratch: &Scratch, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Outcome {
    weft_with_stack(scratch, None, args)
}

/// [`weft`], its main thread's stack limited to `stack_kib` (through the
/// shell's `ulimit -s`) when given.
fn weft_with_stack(
    scratch: &Scratch,
    stack_kib: Option<u32>,
    args: &[&dyn AsRef<std::ffi::OsStr>],
) -> Outcome {
    let what = format!(
        "weft {}",
        args.iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let out = scratch.join("stdout");
    let err = scratch.join("stderr");
    let mut command = match stack_kib {
        None => Command::new(env!("CARGO_BIN_EXE_weft")),
        Some(kib) => {
            let mut shell = Command::new("sh");
            shell
                .arg("-c")
                .arg(format!("ulimit -s {kib} && exec \"$0\" \"$@\""))
                .arg(env!("CARGO_BIN_EXE_weft"));
            shell
        }
    };
    let mut child = command
        .args(args.iter().map(|a| a.as_ref()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("a scratch file"))
        .stderr(std::fs::File::create(&err).expect("a scratch file"))
        .spawn()
        .expect("weft starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("weft is waited for") {
            break status;
        }
        if start.elapsed() > 2 * BOUND {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {:?}", 2 * BOUND);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    assert!(elapsed <= BOUND, "{what}: took {elapsed:?}");
    Outcome {
        code: status.code(),
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
        what,
    }
}

/// Writes `text` to `name` in `scratch`.
fn file(scratch: &Scratch, name: &str, text: &str) -> PathBuf {
    let path = scratch.join(name);
    std::fs::write(&path, text).expect("a scratch file");
    path
}

/// `../shared/repro`, when present.
fn repro_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/repro");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: {} is absent (the reproducers live there)",
            dir.display()
        );
        None
    }
}

/// `fmt` of `path` succeeds, and its output, formatted again, is the same.
fn fmt_is_a_fixed_point(scratch: &Scratch, path: &Path, flags: &[&str]) -> String {
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"fmt"];
    args.extend(flags.iter().map(|f| f as &dyn AsRef<std::ffi::OsStr>));
    args.push(&path);
    let once = weft(scratch, &args).ok().stdout.clone();
    let extension = path
        .extension()
        .map_or("hlo", |e| e.to_str().unwrap_or("hlo"));
    let printed = file(scratch, &format!("printed.{extension}"), &once);
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"fmt"];
    args.extend(flags.iter().map(|f| f as &dyn AsRef<std::ffi::OsStr>));
    args.push(&printed);
    let twice = weft(scratch, &args).ok().stdout.clone();
    assert_eq!(once, twice, "fmt of fmt's output differs");
    once
}

/// `convert --to hlo` succeeds and its output is text `fmt` reads.
fn converts_to_readable_hlo(scratch: &Scratch, path: &Path) -> String {
    let hlo = weft(scratch, &[&"convert", &"--to", &"hlo", &path])
        .ok()
        .stdout
        .clone();
    let written = file(scratch, "converted.hlo", &hlo);
    fmt_is_a_fixed_point(scratch, &written, &[]);
    hlo
}

/// The first output's summary of `weft run`.
fn run_output(scratch: &Scratch, path: &Path) -> String {
    let outcome = weft(scratch, &[&"run", &path]);
    outcome.ok();
    outcome
        .stdout
        .lines()
        .find(|l| l.starts_with("out0:"))
        .unwrap_or_default()
        .to_string()
}

// ----- the generators' inputs -----

/// `gen_deep_mlir.sh`: a dictionary, array, tuple type or region nested
/// `depth` deep.
fn deep_mlir(kind: &str, depth: usize) -> String {
    match kind {
        "dict" => format!(
            "func.func @main() attributes {{x = {}1{}}} {{\n  return\n}}\n",
            "{a = ".repeat(depth),
            "}".repeat(depth)
        ),
        "array" => format!(
            "func.func @main() attributes {{x = {}1{}}} {{\n  return\n}}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        ),
        "tuple" => {
            let t = format!("{}tensor<f32>{}", "tuple<".repeat(depth), ">".repeat(depth));
            format!("func.func @main(%a: {t}) -> {t} {{\n  return %a : {t}\n}}\n")
        }
        "region" => format!(
            "func.func @main() {{\n{}\"test.t\"() : () -> ()\n{}return\n}}\n",
            "\"test.op\"() ({\n".repeat(depth),
            "}) : () -> ()\n".repeat(depth)
        ),
        "location" => format!(
            "func.func @main() {{\n  return loc({}\"b\"{})\n}}\n",
            "callsite(\"a\" at ".repeat(depth),
            ")".repeat(depth)
        ),
        "function_type" => format!(
            "func.func @main() attributes {{t = {}() -> (){}}} {{\n  return\n}}\n",
            "(".repeat(depth),
            ") -> ()".repeat(depth)
        ),
        "dialect_attribute" => format!(
            "func.func @main() attributes {{x = #x.y<{}1{}>}} {{\n  return\n}}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        ),
        _ => unreachable!("{kind}"),
    }
}

/// `gen_nested_regions.py KIND depth`, with the values it starts from made
/// constants so that a run has a known answer (`while`, `case`: 3; `calls`:
/// -3).
fn nested_regions(kind: &str, depth: usize) -> String {
    let mut s = String::new();
    match kind {
        "while" => {
            s.push_str("func.func @main() -> tensor<f32> {\n%x = stablehlo.constant dense<3.0> : tensor<f32>\n");
            for d in 0..depth {
                s.push_str(&format!("%w{d} = stablehlo.while(%i{d} = %x) : tensor<f32>\n cond {{\n %f{d} = stablehlo.constant dense<false> : tensor<i1>\n stablehlo.return %f{d} : tensor<i1>\n }} do {{\n"));
            }
            s.push_str("stablehlo.return %x : tensor<f32>\n");
            for d in (0..depth).rev() {
                s.push_str("}\n");
                if d > 0 {
                    s.push_str(&format!("stablehlo.return %w{d} : tensor<f32>\n"));
                }
            }
            s.push_str("return %w0 : tensor<f32>\n}\n");
        }
        "case" => {
            s.push_str("func.func @main() -> tensor<f32> {\n%i = stablehlo.constant dense<0> : tensor<i32>\n%x = stablehlo.constant dense<3.0> : tensor<f32>\n");
            for d in 0..depth {
                s.push_str(&format!("%r{d} = \"stablehlo.case\"(%i) ({{\n"));
            }
            s.push_str("stablehlo.return %x : tensor<f32>\n");
            for d in (0..depth).rev() {
                s.push_str("}) : (tensor<i32>) -> tensor<f32>\n");
                if d > 0 {
                    s.push_str(&format!("stablehlo.return %r{d} : tensor<f32>\n"));
                }
            }
            s.push_str("return %r0 : tensor<f32>\n}\n");
        }
        "calls" => {
            s.push_str("func.func private @f0(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.negate %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n");
            for i in 1..=depth {
                s.push_str(&format!("func.func private @f{i}(%a: tensor<f32>) -> tensor<f32> {{\n  %0 = func.call @f{}(%a) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}}\n", i - 1));
            }
            s.push_str(&format!("func.func @main() -> tensor<f32> {{\n  %a = stablehlo.constant dense<3.0> : tensor<f32>\n  %0 = func.call @f{depth}(%a) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}}\n"));
        }
        _ => unreachable!("{kind}"),
    }
    s
}

// ----- class 2: depth is bounded everywhere -----

/// gen_deep_mlir.sh: dictionaries, arrays, tuple types and regions nested
/// past where the parser overflowed its stack (~9.5k, ~16k, ~21k, ~4k) and
/// far beyond: every command stops at the 512th level with a located error
/// naming the limit.
#[test]
fn deep_mlir_is_refused_where_it_nests_too_deep() {
    let scratch = Scratch::new("repro_depth", "deep_mlir");
    for (kind, depths) in [
        ("dict", [20_000, 100_000]),
        ("array", [20_000, 100_000]),
        ("tuple", [30_000, 100_000]),
        ("region", [5_000, 100_000]),
        ("location", [5_000, 100_000]),
        ("function_type", [5_000, 100_000]),
        ("dialect_attribute", [5_000, 100_000]),
    ] {
        for depth in depths {
            let path = file(
                &scratch,
                &format!("deep_{kind}.mlir"),
                &deep_mlir(kind, depth),
            );
            for command in [
                &["fmt"][..],
                &["check"],
                &["convert", "--to", "hlo"],
                &["run"],
            ] {
                let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = command
                    .iter()
                    .map(|c| c as &dyn AsRef<std::ffi::OsStr>)
                    .collect();
                args.push(&path);
                weft(&scratch, &args).located_error(&path, "nesting is more than 512 levels deep");
            }
        }
    }
}

/// Just within the limit, the same text reads, prints as itself, and its
/// generic form reads too: the limit leaves the printer room.
#[test]
fn mlir_within_the_limit_reads_and_prints() {
    let scratch = Scratch::new("repro_depth", "within_limit");
    for kind in [
        "dict",
        "array",
        "region",
        "location",
        "function_type",
        "dialect_attribute",
    ] {
        let path = file(
            &scratch,
            &format!("within_{kind}.mlir"),
            &deep_mlir(kind, 505),
        );
        fmt_is_a_fixed_point(&scratch, &path, &[]);
        fmt_is_a_fixed_point(&scratch, &path, &["--generic"]);
    }
}

/// gen_nested_regions.py calls 3400: lowering a chain of func.calls
/// overflowed the stack. The lowering refuses a computation nested more
/// than 256 levels deep (as deep as weft runs) at the call, at once however
/// long the chain; a chain within the limit converts to HLO weft reads and
/// runs to the right answer.
#[test]
fn call_chains_lower_or_are_refused_at_the_call() {
    let scratch = Scratch::new("repro_depth", "calls");
    for depth in [3_400, 100_000] {
        let path = file(&scratch, "calls.mlir", &nested_regions("calls", depth));
        weft(&scratch, &[&"convert", &"--to", &"hlo", &path]).located_error(
            &path,
            "cannot lower 'func.call': the function would be a computation nested more than 256 levels deep",
        );
        weft(&scratch, &[&"check", &path]).clean();
    }
    let path = file(&scratch, "calls.mlir", &nested_regions("calls", 250));
    converts_to_readable_hlo(&scratch, &path);
    assert!(run_output(&scratch, &path).contains("min -3.000000 max -3.000000"));
}

/// gen_nested_regions.py case 3000 / while 1200: finding what each region
/// captures was cubic in the depth (more than a minute; 9 s). Their text
/// nests past 512 levels, which the parser refuses; past 256 levels the
/// lowering refuses at once; within, it is linear, and the program runs.
#[test]
fn nested_regions_lower_in_linear_time() {
    let scratch = Scratch::new("repro_depth", "regions");
    for (kind, depth) in [("case", 3_000), ("while", 1_200), ("case", 100_000)] {
        let path = file(
            &scratch,
            &format!("{kind}.mlir"),
            &nested_regions(kind, depth),
        );
        weft(&scratch, &[&"convert", &"--to", &"hlo", &path])
            .located_error(&path, "nesting is more than 512 levels deep");
    }
    for kind in ["case", "while"] {
        let path = file(
            &scratch,
            &format!("{kind}.mlir"),
            &nested_regions(kind, 500),
        );
        weft(&scratch, &[&"convert", &"--to", &"hlo", &path]).located_error(
            &path,
            "its region would be a computation nested more than 256 levels deep",
        );
    }
    for kind in ["case", "while"] {
        let path = file(
            &scratch,
            &format!("{kind}.mlir"),
            &nested_regions(kind, 250),
        );
        converts_to_readable_hlo(&scratch, &path);
        assert!(run_output(&scratch, &path).contains("min 3.000000 max 3.000000"));
    }
}

/// HLO computations nested through `while` bodies, one level per
/// computation, with a loop that runs once at each: the evaluator runs 256
/// levels (the entry is the first), the export writes as many regions and
/// the StableHLO it writes lowers back and runs; one level more is refused
/// by all three at the same instruction.
#[test]
fn the_call_depth_limit_is_one_limit() {
    let scratch = Scratch::new("repro_depth", "one_limit");
    let nested_whiles = |bodies: usize| {
        let mut s = String::from(
            "HloModule whiles\n\n%cond (s: f32[]) -> pred[] {\n  %s = f32[] parameter(0)\n  %one = f32[] constant(1)\n  ROOT %lt = pred[] compare(f32[] %s, f32[] %one), direction=LT\n}\n\n",
        );
        s.push_str(&format!("%body{bodies} (s: f32[]) -> f32[] {{\n  %s = f32[] parameter(0)\n  %one = f32[] constant(1)\n  ROOT %n = f32[] add(f32[] %s, f32[] %one)\n}}\n\n"));
        for i in (0..bodies).rev() {
            s.push_str(&format!("%body{i} (s: f32[]) -> f32[] {{\n  %s = f32[] parameter(0)\n  %w = f32[] while(f32[] %s), condition=%cond, body=%body{}\n  %one = f32[] constant(1)\n  ROOT %n = f32[] add(f32[] %w, f32[] %one)\n}}\n\n", i + 1));
        }
        s.push_str("ENTRY %main () -> f32[] {\n  %z = f32[] constant(0)\n  ROOT %w = f32[] while(f32[] %z), condition=%cond, body=%body0\n}\n");
        s
    };
    // main, then body0 … body254: 256 levels.
    let deepest = file(&scratch, "deepest.hlo", &nested_whiles(254));
    assert!(run_output(&scratch, &deepest).contains("min 255.000000"));
    let exported = weft(&scratch, &[&"convert", &"--to", &"stablehlo", &deepest])
        .ok()
        .stdout
        .clone();
    let exported = file(&scratch, "deepest.mlir", &exported);
    assert!(run_output(&scratch, &exported).contains("min 255.000000"));
    let too_deep = file(&scratch, "too_deep.hlo", &nested_whiles(255));
    for command in [&["run"][..], &["convert", "--to", "stablehlo"]] {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = command
            .iter()
            .map(|c| c as &dyn AsRef<std::ffi::OsStr>)
            .collect();
        args.push(&too_deep);
        weft(&scratch, &args).located_error(&too_deep, "more than 256");
    }
}

/// Deep HLO, which its text does not nest: chains of 100k computations
/// calling the next through call, while, conditional, reduce and fusion.
/// fmt and check read them; the export and the run refuse them at the
/// instruction 256 levels down; nothing overflows or takes long.
#[test]
fn deep_hlo_call_chains() {
    let scratch = Scratch::new("repro_depth", "hlo_chains");
    let depth = 100_000;
    let chain = |head: &str, link: &dyn Fn(usize) -> String, root: &str| {
        let mut s = format!("HloModule chain\n\n{head}");
        for i in 1..=depth {
            s.push_str(&link(i));
        }
        s.push_str(root);
        s
    };
    let programs = [
        (
            "calls",
            chain(
                "%f0 (a: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  ROOT %n = f32[] negate(f32[] %a)\n}\n\n",
                &|i| {
                    format!(
                        "%f{i} (a: f32[]) -> f32[] {{\n  %a = f32[] parameter(0)\n  ROOT %c = f32[] call(f32[] %a), to_apply=%f{}\n}}\n\n",
                        i - 1
                    )
                },
                &format!(
                    "ENTRY %main (a: f32[]) -> f32[] {{\n  %a = f32[] parameter(0)\n  ROOT %c = f32[] call(f32[] %a), to_apply=%f{depth}\n}}\n"
                ),
            ),
        ),
        (
            "conditionals",
            chain(
                "%b0 (s: f32[]) -> f32[] {\n  %s = f32[] parameter(0)\n  ROOT %n = f32[] negate(f32[] %s)\n}\n\n",
                &|i| {
                    format!(
                        "%b{i} (s: f32[]) -> f32[] {{\n  %s = f32[] parameter(0)\n  %p = pred[] constant(true)\n  ROOT %c = f32[] conditional(pred[] %p, f32[] %s, f32[] %s), true_computation=%b{0}, false_computation=%b{0}\n}}\n\n",
                        i - 1
                    )
                },
                &format!(
                    "ENTRY %main (a: f32[]) -> f32[] {{\n  %a = f32[] parameter(0)\n  %p = pred[] constant(true)\n  ROOT %c = f32[] conditional(pred[] %p, f32[] %a, f32[] %a), true_computation=%b{depth}, false_computation=%b{depth}\n}}\n"
                ),
            ),
        ),
        (
            "reduces",
            chain(
                "%r0 (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\n\n",
                &|i| {
                    format!(
                        "%r{i} (x: f32[], y: f32[]) -> f32[] {{\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  %b = f32[1] broadcast(f32[] %x), dimensions={{}}\n  ROOT %s = f32[] reduce(f32[1] %b, f32[] %y), dimensions={{0}}, to_apply=%r{}\n}}\n\n",
                        i - 1
                    )
                },
                &format!(
                    "ENTRY %main (a: f32[4]) -> f32[] {{\n  %a = f32[4] parameter(0)\n  %z = f32[] constant(0)\n  ROOT %s = f32[] reduce(f32[4] %a, f32[] %z), dimensions={{0}}, to_apply=%r{depth}\n}}\n"
                ),
            ),
        ),
        (
            // Scheduled, with a collective at the bottom: the deadlock check
            // (R14) walks down the chain.
            "scheduled_calls",
            chain(
                "%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\n\n%f0 (a: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  ROOT %n = f32[] all-reduce(f32[] %a), replica_groups={}, to_apply=%add\n}\n\n",
                &|i| {
                    format!(
                        "%f{i} (a: f32[]) -> f32[] {{\n  %a = f32[] parameter(0)\n  ROOT %c = f32[] call(f32[] %a), to_apply=%f{}\n}}\n\n",
                        i - 1
                    )
                },
                &format!(
                    "ENTRY %main (a: f32[]) -> f32[] {{\n  %a = f32[] parameter(0)\n  ROOT %c = f32[] call(f32[] %a), to_apply=%f{depth}\n}}\n"
                ),
            )
            .replace("HloModule chain", "HloModule chain, is_scheduled=true"),
        ),
    ];
    for (name, text) in programs {
        let path = file(&scratch, &format!("{name}.hlo"), &text);
        weft(&scratch, &[&"fmt", &"-o", &scratch.join("out.hlo"), &path]).ok();
        weft(&scratch, &[&"check", &path]).ok();
        weft(&scratch, &[&"run", &path]).located_error(&path, "more than 256 deep");
        let export = weft(&scratch, &[&"convert", &"--to", &"stablehlo", &path]);
        if name != "reduces" {
            // Called computations, and those two branches share, are
            // functions: the file does not nest, and the lowering refuses
            // it instead.
            let exported = file(&scratch, "exported.mlir", &export.ok().stdout);
            weft(&scratch, &[&"convert", &"--to", &"hlo", &exported])
                .located_error(&exported, "nested more than 256 levels deep");
        } else {
            export.located_error(&path, "would be a region nested more than 256 levels deep");
        }
    }
}

/// Conditionals whose branches share their callee, 200 levels of them: the
/// export wrote the shared computation into both regions, 2^200 copies. A
/// computation several instructions call that itself holds regions becomes
/// one function; a scheduled module's deadlock check (R14) walks it once.
#[test]
fn shared_callees_export_once() {
    let scratch = Scratch::new("repro_depth", "shared_callees");
    let depth = 200;
    let mut s = String::from(
        "HloModule shared, is_scheduled=true, replica_count=2\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\n\n%b0 (s: f32[]) -> f32[] {\n  %s = f32[] parameter(0)\n  ROOT %r = f32[] all-reduce(f32[] %s), replica_groups={}, to_apply=%add\n}\n\n",
    );
    for i in 1..=depth {
        s.push_str(&format!("%b{i} (s: f32[]) -> f32[] {{\n  %s = f32[] parameter(0)\n  %p = pred[] constant(true)\n  ROOT %c = f32[] conditional(pred[] %p, f32[] %s, f32[] %s), true_computation=%b{0}, false_computation=%b{0}\n}}\n\n", i - 1));
    }
    s.push_str(&format!("ENTRY %main (a: f32[]) -> f32[] {{\n  %a = f32[] parameter(0)\n  %p = pred[] constant(true)\n  ROOT %c = f32[] conditional(pred[] %p, f32[] %a, f32[] %a), true_computation=%b{depth}, false_computation=%b{depth}\n}}\n"));
    let path = file(&scratch, "shared.hlo", &s);
    weft(&scratch, &[&"check", &path]).ok();
    let exported = weft(&scratch, &[&"convert", &"--to", &"stablehlo", &path])
        .ok()
        .stdout
        .clone();
    assert!(exported.len() < 200_000, "{} bytes", exported.len());
    let exported = file(&scratch, "shared.mlir", &exported);
    fmt_is_a_fixed_point(&scratch, &exported, &[]);
}

/// Long chains that are not nesting: 100k async-updates between a start
/// and its done (each traced back afresh: quadratic, minutes), and 100k
/// aliases each the call site of the one before (linear searches).
#[test]
fn long_chains_take_linear_time() {
    let scratch = Scratch::new("repro_depth", "long_chains");
    let n = 100_000;
    // A slice (which StableHLO's async_start holds) and a negate (which the
    // export makes synchronous, looking along the chain for other users).
    for (input, wrapped) in [
        ("f32[64]", "slice(f32[64] %param0), slice={[16:48]}"),
        ("f32[32]", "negate(f32[32] %param0)"),
    ] {
        let state = format!("(({input}), f32[32], s32[])");
        let mut s = format!(
            "HloModule updates\n\n%async_op {{\n  %param0 = {input} parameter(0)\n  ROOT %op = f32[32] {wrapped}\n}}\n\nENTRY %main {{\n  %operand = {input} parameter(0)\n  %u0_ = {state} async-start({input} %operand), calls=%async_op\n"
        );
        for i in 1..n {
            s.push_str(&format!(
                "  %u{i}_ = {state} async-update({state} %u{}_)\n",
                i - 1
            ));
        }
        s.push_str(&format!(
            "  ROOT %done = f32[32] async-done({state} %u{}_)\n}}\n",
            n - 1
        ));
        let path = file(&scratch, "updates.hlo", &s);
        weft(&scratch, &[&"check", &path]).ok();
        weft(&scratch, &[&"run", &path]).ok();
        weft(&scratch, &[&"convert", &"--to", &"stablehlo", &path]).ok();
    }
    let mut s = String::from("#loc0 = loc(\"x\")\n");
    for i in 1..=n {
        s.push_str(&format!(
            "#loc{i} = loc(callsite(#loc{} at #loc{}))\n",
            i - 1,
            i - 1
        ));
    }
    s.push_str(&format!("func.func @main(%a: tensor<f32>) -> tensor<f32> {{\n  %0 = stablehlo.negate %a : tensor<f32> loc(#loc{n})\n  return %0 : tensor<f32>\n}}\n"));
    let path = file(&scratch, "aliases.mlir", &s);
    weft(&scratch, &[&"fmt", &"-o", &scratch.join("out.mlir"), &path]).ok();
    weft(&scratch, &[&"convert", &"--to", &"hlo", &path]).ok();
}

/// Literals as deep as their rank: HLO and StableHLO constants of rank
/// 100k printed by recursion, one level per dimension.
#[test]
fn literals_of_any_rank() {
    let scratch = Scratch::new("repro_depth", "rank");
    let rank = 100_000;
    let ones = vec!["1"; rank];
    let shape = format!("f32[2,{}]", ones.join(","));
    let element = |v: &str| format!("{}{v}{}", "{".repeat(rank), "}".repeat(rank));
    let hlo = format!(
        "HloModule rank\n\nENTRY %main () -> {shape} {{\n  ROOT %c = {shape} constant({{{}, {}}})\n}}\n",
        element("1"),
        element("2")
    );
    let path = file(&scratch, "rank.hlo", &hlo);
    weft(&scratch, &[&"fmt", &"-o", &scratch.join("out.hlo"), &path]).ok();
    let exported = weft(&scratch, &[&"convert", &"--to", &"stablehlo", &path])
        .ok()
        .stdout
        .clone();
    let exported = file(&scratch, "rank.mlir", &exported);
    weft(
        &scratch,
        &[&"fmt", &"-o", &scratch.join("out.mlir"), &exported],
    )
    .ok();
    weft(&scratch, &[&"convert", &"--to", &"hlo", &exported]).ok();
}

// ----- class 6: text weft prints, weft reads -----

/// mlir_unknown_precision_roundtrip.mlir: `fmt` twice. An unknown precision
/// was accepted in the generic form, printed in a custom form weft then
/// refused, and dropped by `convert`: it is refused where it is read.
#[test]
fn unknown_precision_is_refused_where_it_is_read() {
    let Some(repro) = repro_dir() else {
        return;
    };
    let scratch = Scratch::new("repro_depth", "precision");
    for name in [
        "mlir_unknown_precision_roundtrip.mlir",
        "fuzz_parse_mlir_crash-50b5ceae.mlir",
        "fuzz_parse_mlir_precision_min.mlir",
    ] {
        let path = repro.join(name);
        for command in [&["fmt"][..], &["convert", "--to", "hlo"], &["check"]] {
            let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = command
                .iter()
                .map(|c| c as &dyn AsRef<std::ffi::OsStr>)
                .collect();
            args.push(&path);
            let outcome = weft(&scratch, &args);
            outcome.located_error(&path, "unknown precision '");
            assert!(
                outcome
                    .stderr
                    .contains("precision is one of DEFAULT, HIGH, HIGHEST"),
                "{}",
                outcome.stderr
            );
        }
    }
    // Precisions there are: generic in, custom out, read again; and the
    // lowering keeps them.
    let text = "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<f32> {\n  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGH>]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n";
    let path = file(&scratch, "highest.mlir", text);
    let printed = fmt_is_a_fixed_point(&scratch, &path, &[]);
    assert!(printed.contains("precision = [HIGHEST, HIGH]"), "{printed}");
    let hlo = converts_to_readable_hlo(&scratch, &path);
    assert!(hlo.contains("operand_precision={highest,high}"), "{hlo}");
}

/// Every enum of the StableHLO parser, in the generic form: each keyword
/// there is prints and reads back in both forms; any other is refused at
/// the keyword.
#[test]
fn every_enum_keyword_is_checked() {
    let scratch = Scratch::new("repro_depth", "enums");
    let programs = [
        (
            "precision",
            "HIGH",
            "%0 = \"stablehlo.dot\"(%a, %a) {precision_config = [#stablehlo<precision HIGH>, #stablehlo<precision DEFAULT>]} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>",
        ),
        (
            "comparison_direction",
            "GE",
            "%0 = \"stablehlo.compare\"(%a, %a) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>",
        ),
        (
            "comparison_type",
            "TOTALORDER",
            "%0 = \"stablehlo.compare\"(%a, %a) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>",
        ),
        (
            "fft_type",
            "FFT",
            "%c = stablehlo.convert %a : (tensor<2x2xf32>) -> tensor<2x2xcomplex<f32>>\n  %0 = \"stablehlo.fft\"(%c) {fft_length = array<i64: 2>, fft_type = #stablehlo<fft_type FFT>} : (tensor<2x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>>",
        ),
        (
            "rng_distribution",
            "NORMAL",
            "%z = stablehlo.constant dense<0.0> : tensor<f32>\n  %s = stablehlo.constant dense<2> : tensor<2xi64>\n  %0 = \"stablehlo.rng\"(%z, %z, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>",
        ),
        (
            "rng_algorithm",
            "PHILOX",
            "%k = stablehlo.constant dense<[1, 2]> : tensor<2xui64>\n  %0:2 = \"stablehlo.rng_bit_generator\"(%k) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)",
        ),
        (
            "transpose",
            "ADJOINT",
            "%0 = \"stablehlo.triangular_solve\"(%a, %a) {left_side = true, lower = true, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = false} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>",
        ),
    ];
    for (kind, keyword, op) in programs {
        let program = format!("func.func @main(%a: tensor<2x2xf32>) {{\n  {op}\n  return\n}}\n");
        let path = file(&scratch, &format!("{kind}.mlir"), &program);
        fmt_is_a_fixed_point(&scratch, &path, &[]);
        fmt_is_a_fixed_point(&scratch, &path, &["--generic"]);
        let bogus = program.replace(&format!("{kind} {keyword}>"), &format!("{kind} BOGUS>"));
        assert_ne!(bogus, program, "{kind}");
        let path = file(&scratch, &format!("{kind}_bogus.mlir"), &bogus);
        weft(&scratch, &[&"fmt", &path]).located_error(&path, &format!("unknown {kind} 'BOGUS'"));
    }
    // HLO refuses what it does not know where it reads it, too.
    let hlo = "HloModule m\n\nENTRY %main (a: f32[2]) -> f32[2] {\n  %a = f32[2] parameter(0)\n  ROOT %c = f32[2] custom-call(f32[2] %a), custom_call_target=\"x\", schedule=SCHEDULE_SOON\n}\n";
    let path = file(&scratch, "schedule.hlo", hlo);
    weft(&scratch, &[&"fmt", &path])
        .located_error(&path, "unknown custom-call schedule 'SCHEDULE_SOON'");
    // A dot's and a convolution's words: known ones read and print as
    // themselves, others are refused where they are written.
    let dot = "HloModule m\n\nENTRY %main (a: f32[2,2]) -> f32[2,2] {\n  %a = f32[2,2] parameter(0)\n  ROOT %d = f32[2,2] dot(f32[2,2] %a, f32[2,2] %a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, algorithm=dot_bf16_bf16_f32_x3\n}\n";
    let path = file(&scratch, "algorithm.hlo", dot);
    fmt_is_a_fixed_point(&scratch, &path, &[]);
    let path = file(
        &scratch,
        "algorithm_bogus.hlo",
        &dot.replace("dot_bf16_bf16_f32_x3", "dot_bf16_bf16_f32_x4"),
    );
    weft(&scratch, &[&"fmt", &path])
        .located_error(&path, "unknown precision algorithm 'dot_bf16_bf16_f32_x4'");
    let conv = "HloModule m\n\nENTRY %main (a: f32[1,4,1], k: f32[2,1,1]) -> f32[1,3,1] {\n  %a = f32[1,4,1] parameter(0)\n  %k = f32[2,1,1] parameter(1)\n  ROOT %c = f32[1,3,1] convolution(f32[1,4,1] %a, f32[2,1,1] %k), window={size=2}, dim_labels=b0f_0io->b0f, convolution_kind=dgrad\n}\n";
    let path = file(&scratch, "convolution_kind.hlo", conv);
    fmt_is_a_fixed_point(&scratch, &path, &[]);
    let path = file(
        &scratch,
        "convolution_kind_bogus.hlo",
        &conv.replace("convolution_kind=dgrad", "convolution_kind=backprop"),
    );
    weft(&scratch, &[&"fmt", &path]).located_error(&path, "unknown convolution kind 'backprop'");
}

/// mlir_tuple100_convert_unreadable.mlir: `convert --to hlo` wrote tuples
/// nested deeper than weft's HLO parser reads (64 levels, as it counts
/// them). The lowering refuses such a program at the op; just within the
/// limit, it converts to HLO that reads back.
#[test]
fn tuples_nest_in_hlo_as_deep_as_hlo_reads() {
    let Some(repro) = repro_dir() else {
        return;
    };
    let scratch = Scratch::new("repro_depth", "tuples");
    let path = repro.join("mlir_tuple100_convert_unreadable.mlir");
    weft(&scratch, &[&"convert", &"--to", &"hlo", &path])
        .located_error(&path, "[shape.depth] the shape nests 101 levels deep");
    for (depth, fits) in [(63, true), (64, false)] {
        let path = file(&scratch, "tuple.mlir", &deep_mlir("tuple", depth));
        if fits {
            let hlo = converts_to_readable_hlo(&scratch, &path);
            let written = file(&scratch, "tuple.hlo", &hlo);
            let back = weft(&scratch, &[&"convert", &"--to", &"stablehlo", &written])
                .ok()
                .stdout
                .clone();
            let back = file(&scratch, "back.mlir", &back);
            fmt_is_a_fixed_point(&scratch, &back, &[]);
        } else {
            weft(&scratch, &[&"convert", &"--to", &"hlo", &path])
                .located_error(&path, "nests 65 levels deep");
        }
    }
    // A tuple the lowering adds (a loop's state) counts too.
    let t = |depth: usize| format!("{}tensor<f32>{}", "tuple<".repeat(depth), ">".repeat(depth));
    let program = format!(
        "func.func @main(%a: {t63}) -> {t63} {{\n  %c = stablehlo.constant dense<1.0> : tensor<f32>\n  %w:2 = stablehlo.while(%i = %a, %j = %c) : {t63}, tensor<f32>\n    cond {{\n      %f = stablehlo.constant dense<false> : tensor<i1>\n      stablehlo.return %f : tensor<i1>\n    }} do {{\n      stablehlo.return %i, %j : {t63}, tensor<f32>\n    }}\n  return %w#0 : {t63}\n}}\n",
        t63 = t(63)
    );
    let path = file(&scratch, "loop.mlir", &program);
    weft(&scratch, &[&"convert", &"--to", &"hlo", &path]).located_error(
        &path,
        "'stablehlo.while' op is not valid: its HLO form breaks [shape.depth]",
    );
}

/// NaN payloads in a constant survive HLO → StableHLO → HLO, and each text
/// reads back as itself.
#[test]
fn nan_payloads_round_trip() {
    let scratch = Scratch::new("repro_depth", "nan");
    let hlo = "HloModule nan\n\nENTRY %main () -> bf16[2] {\n  ROOT %constant = bf16[2]{0} constant({-nan(0x7f), -nan(0x3f)})\n}\n";
    let path = file(&scratch, "nan.hlo", hlo);
    let exported = weft(&scratch, &[&"convert", &"--to", &"stablehlo", &path])
        .ok()
        .stdout
        .clone();
    assert!(exported.contains("dense<[0xFFFF, 0xFFBF]>"), "{exported}");
    let exported = file(&scratch, "nan.mlir", &exported);
    fmt_is_a_fixed_point(&scratch, &exported, &[]);
    let back = converts_to_readable_hlo(&scratch, &exported);
    assert!(
        back.contains("constant({-nan(0x7f), -nan(0x3f)})"),
        "{back}"
    );
}

/// The limits leave room on a small stack: text nested just within them,
/// and computations nested 256 deep, read, print, lower, export and run
/// with the main thread's stack at 2 MiB (the stack of the threads weft
/// spawns; the main thread has 8 MiB).
#[cfg(unix)]
#[test]
fn the_limits_hold_on_a_small_stack() {
    let scratch = Scratch::new("repro_depth", "small_stack");
    if Command::new("sh")
        .arg("-c")
        .arg("ulimit -s 2048")
        .status()
        .is_err()
    {
        eprintln!("skipped: no sh with ulimit to limit the stack");
        return;
    }
    let small = |args: &[&dyn AsRef<std::ffi::OsStr>]| weft_with_stack(&scratch, Some(2048), args);
    for kind in [
        "dict",
        "array",
        "region",
        "location",
        "function_type",
        "dialect_attribute",
    ] {
        let path = file(&scratch, &format!("{kind}.mlir"), &deep_mlir(kind, 505));
        small(&[&"fmt", &"--generic", &path]).ok();
        small(&[&"check", &path]).clean();
        let path = file(
            &scratch,
            &format!("{kind}_over.mlir"),
            &deep_mlir(kind, 100_000),
        );
        small(&[&"fmt", &path]).located_error(&path, "nesting is more than 512 levels deep");
    }
    for kind in ["while", "case", "calls"] {
        let path = file(
            &scratch,
            &format!("{kind}.mlir"),
            &nested_regions(kind, 254),
        );
        small(&[&"run", &path]).ok();
        let hlo = small(&[&"convert", &"--to", &"hlo", &path])
            .ok()
            .stdout
            .clone();
        let hlo = file(&scratch, &format!("{kind}.hlo"), &hlo);
        small(&[&"run", &hlo]).ok();
        small(&[&"convert", &"--to", &"stablehlo", &hlo]).ok();
        let path = file(
            &scratch,
            &format!("{kind}_over.mlir"),
            &nested_regions(kind, 400),
        );
        small(&[&"convert", &"--to", &"hlo", &path])
            .located_error(&path, "more than 256 levels deep");
    }
}

//! One answer per mistake: `weft check`, `weft convert` and `weft run` refuse
//! the same invalid program with the same located diagnostic and exit status
//! 1, and none of them calls the user's mistake a bug in weft.

use std::process::{Command, Output};

mod common;

use common::Scratch;

/// A `collective_permute_start` whose future no done takes (line 3).
const UNFINISHED_PERMUTE: &str = r#"module @unfinished attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %started = "stablehlo.collective_permute_start"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
    return %x : tensor<2xf32>
  }
}
"#;

/// An `async_start` finished twice (the second done on line 9).
const FINISHED_TWICE: &str = r#"module @twice attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
    %0 = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
      stablehlo.return %g : tensor<8xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
    %1 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
    %2 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
    return %2 : tensor<8xf32>
  }
}
"#;

/// An `add` whose operand types disagree (line 2): the StableHLO verifier
/// does not check it, HLO's verifier rejects the lowered `add`.
const MISMATCHED_ADD: &str = r#"func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"#;

fn weft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .output()
        .expect("weft runs")
}

/// Runs check, convert and run on `program`; each must fail with status 1,
/// report `location` (`file:line:col`) and `message`, and never say "bug in
/// weft".
fn one_answer(test: &str, program: &str, line_col: &str, message: &str) {
    let scratch = Scratch::new("one_answer", test);
    let file = scratch.join("prog.mlir");
    std::fs::write(&file, program).expect("writable scratch");
    let path = file.to_str().expect("a UTF-8 path");
    let location = format!("{path}:{line_col}");
    let commands: [&[&str]; 3] = [
        &["check", path],
        &["convert", "--to", "hlo", path],
        &["run", path],
    ];
    for args in commands {
        let output = weft(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let command = args[0];
        assert_eq!(output.status.code(), Some(1), "weft {command}: {stderr}");
        assert!(
            stderr.contains(&location),
            "weft {command} should point at {location}: {stderr}"
        );
        assert!(
            stderr.contains(message),
            "weft {command} should say `{message}`: {stderr}"
        );
        assert!(
            !stderr.contains("bug in weft"),
            "weft {command} blames itself: {stderr}"
        );
        assert!(
            output.stdout.is_empty(),
            "weft {command} writes nothing: {}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
}

#[test]
fn a_start_without_its_done_is_one_located_error() {
    one_answer(
        "unfinished",
        UNFINISHED_PERMUTE,
        "3:16",
        "result %started is a future with no matching done",
    );
}

#[test]
fn a_future_finished_twice_is_one_located_error() {
    one_answer(
        "twice",
        FINISHED_TWICE,
        "9:10",
        "takes future %0, which 'stablehlo.async_done' (defining %1) already took",
    );
}

#[test]
fn an_op_whose_hlo_form_does_not_verify_is_blamed_at_the_op() {
    one_answer(
        "mismatched_add",
        MISMATCHED_ADD,
        "2:8",
        "'stablehlo.add' op is not valid",
    );
}

/// A ring of permutes around a while loop whose last start leaves the loop
/// (`%while`, line 19) with no done after it. XLA's verifier lets a start
/// carried across a loop go without a done, so `weft check` accepts it; its
/// StableHLO form has a future nothing finishes.
const START_LEAVES_THE_LOOP: &str = r#"HloModule ring, replica_count=2

%body (state: (s32[], (f32[4], f32[4], u32[], u32[]))) -> (s32[], (f32[4], f32[4], u32[], u32[])) {
  %state = (s32[], (f32[4], f32[4], u32[], u32[])) parameter(0)
  %i = s32[] get-tuple-element(%state), index=0
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %inflight = (f32[4], f32[4], u32[], u32[]) get-tuple-element(%state), index=1
  %received = f32[4] collective-permute-done(%inflight)
  %restart = (f32[4], f32[4], u32[], u32[]) collective-permute-start(%received), source_target_pairs={{0,1},{1,0}}
  ROOT %next_state = (s32[], (f32[4], f32[4], u32[], u32[])) tuple(%next, %restart)
}

%cond (state: (s32[], (f32[4], f32[4], u32[], u32[]))) -> pred[] {
  %state = (s32[], (f32[4], f32[4], u32[], u32[])) parameter(0)
  %i = s32[] get-tuple-element(%state), index=0
  %three = s32[] constant(3)
  ROOT %more = pred[] compare(%i, %three), direction=LT
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  %zero = s32[] constant(0)
  %first = (f32[4], f32[4], u32[], u32[]) collective-permute-start(%x), source_target_pairs={{0,1},{1,0}}
  %init = (s32[], (f32[4], f32[4], u32[], u32[])) tuple(%zero, %first)
  %while = (s32[], (f32[4], f32[4], u32[], u32[])) while(%init), condition=%cond, body=%body
  ROOT %copy = f32[4] copy(%x)
}
"#;

#[test]
fn an_hlo_module_without_a_stablehlo_form_is_blamed_at_its_instruction() {
    let scratch = Scratch::new("one_answer", "leaves_the_loop");
    let file = scratch.join("prog.hlo");
    std::fs::write(&file, START_LEAVES_THE_LOOP).expect("writable scratch");
    let path = file.to_str().expect("a UTF-8 path");
    let output = weft(&["convert", "--to", "stablehlo", path]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("{path}:26:3")), "{stderr}");
    assert!(
        stderr.contains("%while has no valid StableHLO form"),
        "{stderr}"
    );
    assert!(!stderr.contains("bug in weft"), "{stderr}");
}

#[test]
fn convert_refuses_an_hlo_module_that_does_not_verify_as_check_does() {
    let scratch = Scratch::new("one_answer", "invalid_hlo");
    let file = scratch.join("prog.hlo");
    std::fs::write(
        &file,
        "HloModule m\n\nENTRY %e (p: f32[2]) -> s32[2] {\n  %p = f32[2] parameter(0)\n  ROOT %n = s32[2] negate(%p)\n}\n",
    )
    .expect("writable scratch");
    let path = file.to_str().expect("a UTF-8 path");
    let location = format!("{path}:5:8");
    for args in [
        &["check", path][..],
        &["convert", "--to", "stablehlo", path][..],
    ] {
        let output = weft(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "weft {}: {stderr}", args[0]);
        assert!(stderr.contains(&location), "weft {}: {stderr}", args[0]);
        assert!(
            stderr.contains("[shape.elementwise]"),
            "weft {}: {stderr}",
            args[0]
        );
        assert!(
            !stderr.contains("bug in weft"),
            "weft {}: {stderr}",
            args[0]
        );
    }
}

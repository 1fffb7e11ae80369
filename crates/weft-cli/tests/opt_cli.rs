//! `weft opt` as a user meets it: passes and options by name, mistakes
//! refused before anything runs with what is accepted, an invalid input
//! located, dumps after chosen passes, timings, both output formats.

use std::process::{Command, Output};

mod common;

use common::Scratch;

const PROGRAM: &str = "HloModule m, replica_count=2\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\nENTRY %main (p: f32[8]) -> f32[8] {\n  %p = f32[8] parameter(0)\n  %dead = f32[8] negate(%p)\n  %ar = f32[8] all-reduce(%p), replica_groups={{0,1}}, to_apply=%add\n  ROOT %out = f32[8] abs(%ar)\n}\n";

fn weft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .output()
        .expect("weft runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn passes_run_in_order_and_write_where_asked() {
    let scratch = Scratch::new("opt_cli", "runs");
    let input = scratch.join("m.hlo");
    std::fs::write(&input, PROGRAM).expect("writable");
    let out = scratch.join("out.hlo");
    let dumps = scratch.join("dumps");
    let output = weft(&[
        "opt",
        input.to_str().unwrap(),
        "--passes",
        "dce, async-collective-creator{convert=all-reduce}",
        "-o",
        out.to_str().unwrap(),
        "--dump-after",
        "dce",
        "--dump-dir",
        dumps.to_str().unwrap(),
        "--timings",
        "--verify-each",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let result = std::fs::read_to_string(&out).expect("written");
    assert!(!result.contains("negate"), "{result}");
    assert!(
        result.contains("all-reduce-start(") && result.contains("all-reduce-done("),
        "{result}"
    );
    // The input, then the module after dce (and not after the other pass).
    let mut dumped: Vec<String> = std::fs::read_dir(&dumps)
        .expect("dump dir")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    dumped.sort();
    assert_eq!(dumped, ["00.input.hlo", "01.dce.hlo"]);
    let after_dce = std::fs::read_to_string(dumps.join("01.dce.hlo")).unwrap();
    assert!(!after_dce.contains("negate") && after_dce.contains("all-reduce("));
    let timings = text(&output.stderr);
    assert!(
        timings.contains("dce")
            && timings.contains("async-collective-creator")
            && timings.contains("total"),
        "{timings}"
    );
}

#[test]
fn mistakes_in_the_pipeline_are_refused_before_reading_the_input() {
    for (passes, words) in [
        (
            "dce,tuple-simplifer",
            "column 5: there is no pass 'tuple-simplifer'",
        ),
        ("dce{bogus=1}", "dce has no option 'bogus'"),
        (
            "async-collective-creator{convert=all-reduse}",
            "'all-reduse', which is not an opcode",
        ),
        ("dce{", "the options of 'dce' are not closed"),
    ] {
        let output = weft(&["opt", "does-not-exist.hlo", "--passes", passes]);
        assert_eq!(output.status.code(), Some(2), "{passes}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(words), "{passes}: {stderr}");
    }
    let output = weft(&["opt", "x.hlo", "--passes", "dce,tuple-simplifer"]);
    assert!(text(&output.stderr).contains("did you mean 'tuple-simplifier'?"));
}

#[test]
fn an_invalid_input_is_located_and_no_pass_runs() {
    let scratch = Scratch::new("opt_cli", "invalid");
    let input = scratch.join("bad.hlo");
    std::fs::write(
        &input,
        "HloModule m\n\nENTRY %main (p: f32[8]) -> f32[4] {\n  %p = f32[8] parameter(0)\n  ROOT %n = f32[4] negate(%p)\n}\n",
    )
    .unwrap();
    let output = weft(&["opt", input.to_str().unwrap(), "--passes", "dce"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("bad.hlo:5:"), "{stderr}");
    assert!(
        stderr.contains("the module does not verify; no pass ran"),
        "{stderr}"
    );
}

#[test]
fn stablehlo_in_stablehlo_out() {
    let scratch = Scratch::new("opt_cli", "stablehlo");
    let input = scratch.join("psum.mlir");
    std::fs::write(
        &input,
        "module @psum attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n    %0 = \"stablehlo.all_reduce\"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({\n    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n      %s = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n    }) : (tensor<4xf32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n",
    )
    .unwrap();
    let output = weft(&[
        "opt",
        input.to_str().unwrap(),
        "--passes",
        "async-collective-creator{convert=all-reduce}",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("stablehlo.async_start") && stdout.contains("stablehlo.async_done"),
        "{stdout}"
    );
    let output = weft(&[
        "opt",
        input.to_str().unwrap(),
        "--passes",
        "async-collective-creator{convert=all-reduce}",
        "--emit",
        "hlo",
    ]);
    assert!(text(&output.stdout).contains("all-reduce-start("));
}

#[test]
fn the_list_names_every_pass_and_its_options() {
    let output = weft(&["opt", "--list-passes"]);
    assert!(output.status.success());
    let stdout = text(&output.stdout);
    for name in [
        "async-collective-creator",
        "convert-async-collectives-to-sync",
        "dce",
        "tuple-simplifier",
        "use_generic_async_start_done",
        "is_nop_opcodes",
    ] {
        assert!(stdout.contains(name), "{name}: {stdout}");
    }
}

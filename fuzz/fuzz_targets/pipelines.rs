//! Fuzzes the passes: random valid modules through random pipelines.
//!
//! The input's bytes choose a program for two replicas — two or three small
//! parameters, up to 16 instructions drawn from elementwise ops, tuples and
//! their elements, and the collectives (all-reduce, all-gather,
//! collective-permute, reduce-scatter, all-to-all) — scheduled or not; and a
//! pipeline of up to five of weft's passes with random options, the
//! schedulers among them. The pipeline
//! runs with verification after every pass. Then the program runs on both
//! replicas before and after, from the same seeded inputs.
//!
//! Findings: a panic anywhere; a pass that fails on a valid module or
//! leaves one that does not verify; and a program whose outputs change — a
//! pass must change how a program runs, never what it computes (bit for
//! bit: both runs evaluate the same operations in the same order per value).

#![no_main]

use libfuzzer_sys::fuzz_target;
use weft_runtime::devices::{GridOptions, groups::Grid};
use weft_runtime::{Limits, Value};

struct Built {
    name: String,
    elem: &'static str,
    dims: Vec<i64>,
}

fn shape(elem: &str, dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("{elem}[{}]", dims.join(","))
}

const ELEMENT_TYPES: &[&str] = &["f32", "s32"];
const UNARY: &[&str] = &["negate", "abs", "exponential", "floor", "sign"];
const BINARY: &[&str] = &["add", "subtract", "multiply", "maximum", "minimum"];
const COLLECTIVES: &[&str] = &[
    "all-reduce",
    "all-gather",
    "collective-permute",
    "reduce-scatter",
    "all-to-all",
];
const NOPS: &[&str] = &["bitcast", "get-tuple-element", "tuple", "copy", "negate"];

/// The tensors of a value, flattened: element type, dimensions and bytes.
fn leaves(value: &Value, out: &mut Vec<(String, Vec<i64>, Vec<u8>)>) {
    match value {
        Value::Tensor(t) => out.push((format!("{:?}", t.elem), t.dims.clone(), t.bytes.to_vec())),
        Value::Tuple(elements) => elements.iter().for_each(|e| leaves(e, out)),
        other => out.push((format!("{other:?}"), Vec::new(), Vec::new())),
    }
}

fn run(module: &weft_ir::Module) -> Option<Vec<Vec<(String, Vec<i64>, Vec<u8>)>>> {
    let entry = module.entry?;
    let mut arguments = Vec::new();
    for device in 0..2u64 {
        let mut random = weft_runtime::random::SplitMix64::new(7 + device);
        let mut values = Vec::new();
        for &parameter in module.comp(entry).params() {
            let array = module.shapes.as_array(module.shape_of(parameter))?;
            values.push(Value::Tensor(weft_runtime::random::tensor(
                &mut random,
                array.elem,
                &array.dims,
            )));
        }
        arguments.push(values);
    }
    let options = GridOptions {
        timeout: std::time::Duration::from_secs(2),
        limits: Limits {
            max_value_bytes: 1 << 20,
            max_loop_iterations: Some(1000),
            deadline: Some(std::time::Duration::from_secs(2)),
        },
        ..GridOptions::default()
    };
    let grid = Grid {
        replicas: 2,
        partitions: 1,
    };
    let evaluations = weft_runtime::devices::run_grid(module, grid, arguments, options).ok()?;
    Some(
        evaluations
            .iter()
            .map(|e| {
                let mut out = Vec::new();
                leaves(&e.result, &mut out);
                out
            })
            .collect(),
    )
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.iter().copied();
    let mut next = move || bytes.next().unwrap_or(0) as usize;
    let scheduled = next() % 2 == 0;
    let mut values: Vec<Built> = Vec::new();
    let mut body = String::new();
    let mut signature = Vec::new();
    let parameters = 2 + next() % 2;
    for p in 0..parameters {
        let elem = ELEMENT_TYPES[next() % ELEMENT_TYPES.len()];
        let rank = 1 + next() % 2;
        let dims: Vec<i64> = (0..rank).map(|_| 2 * (1 + (next() % 3) as i64)).collect();
        let name = format!("p{p}");
        signature.push(format!("{name}: {}", shape(elem, &dims)));
        body.push_str(&format!("  %{name} = {} parameter({p})\n", shape(elem, &dims)));
        values.push(Built { name, elem, dims });
    }
    let count = 1 + next() % 16;
    let mut tuples = 0;
    for i in 0..count {
        let x = &values[next() % values.len()];
        let y = &values[next() % values.len()];
        let name = format!("v{i}");
        let (line, elem, dims) = match next() % 8 {
            0 => (
                format!("{} {}(%{})", shape(x.elem, &x.dims), UNARY[next() % UNARY.len()], x.name),
                x.elem,
                x.dims.clone(),
            ),
            1 if x.elem == y.elem && x.dims == y.dims => (
                format!("{} {}(%{}, %{})", shape(x.elem, &x.dims), BINARY[next() % BINARY.len()], x.name, y.name),
                x.elem,
                x.dims.clone(),
            ),
            2 if x.elem == y.elem && x.dims == y.dims => {
                // A tuple and one of its elements back.
                let tuple = format!("t{tuples}");
                tuples += 1;
                let both = format!("({}, {})", shape(x.elem, &x.dims), shape(y.elem, &y.dims));
                body.push_str(&format!("  %{tuple} = {both} tuple(%{}, %{})\n", x.name, y.name));
                (
                    format!("{} get-tuple-element(%{tuple}), index={}", shape(x.elem, &x.dims), next() % 2),
                    x.elem,
                    x.dims.clone(),
                )
            }
            kind => {
                let collective = COLLECTIVES[(kind + next()) % COLLECTIVES.len()];
                let channel = if next() % 2 == 0 { format!(", channel_id={}", i + 1) } else { String::new() };
                let reducer = if x.elem == "f32" { "%sum_f32" } else { "%sum_s32" };
                match collective {
                    "all-reduce" => (
                        format!("{} all-reduce(%{}){channel}, replica_groups={{{{0,1}}}}, to_apply={reducer}", shape(x.elem, &x.dims), x.name),
                        x.elem,
                        x.dims.clone(),
                    ),
                    "all-gather" => {
                        let mut dims = x.dims.clone();
                        dims[0] *= 2;
                        (
                            format!("{} all-gather(%{}){channel}, replica_groups={{{{0,1}}}}, dimensions={{0}}", shape(x.elem, &dims), x.name),
                            x.elem,
                            dims,
                        )
                    }
                    "collective-permute" => (
                        format!("{} collective-permute(%{}){channel}, source_target_pairs={{{{0,1}},{{1,0}}}}", shape(x.elem, &x.dims), x.name),
                        x.elem,
                        x.dims.clone(),
                    ),
                    "reduce-scatter" => {
                        let mut dims = x.dims.clone();
                        dims[0] /= 2;
                        (
                            format!("{} reduce-scatter(%{}){channel}, replica_groups={{{{0,1}}}}, dimensions={{0}}, to_apply={reducer}", shape(x.elem, &dims), x.name),
                            x.elem,
                            dims,
                        )
                    }
                    _ => (
                        format!("{} all-to-all(%{}){channel}, replica_groups={{{{0,1}}}}, dimensions={{0}}", shape(x.elem, &x.dims), x.name),
                        x.elem,
                        x.dims.clone(),
                    ),
                }
            }
        };
        body.push_str(&format!("  %{name} = {line}\n"));
        values.push(Built { name, elem, dims });
    }
    let last = &values[values.len() - 1];
    let other = &values[next() % values.len()];
    let result = format!("({}, {})", shape(last.elem, &last.dims), shape(other.elem, &other.dims));
    let text = format!(
        "HloModule fuzz, replica_count=2{}\n\n%sum_f32 (a: f32[], b: f32[]) -> f32[] {{\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}}\n\n%sum_s32 (c: s32[], d: s32[]) -> s32[] {{\n  %c = s32[] parameter(0)\n  %d = s32[] parameter(1)\n  ROOT %e = s32[] add(%c, %d)\n}}\n\nENTRY %main ({}) -> {result} {{\n{body}  ROOT %out = {result} tuple(%{}, %{})\n}}\n",
        if scheduled { ", is_scheduled=true" } else { "" },
        signature.join(", "),
        last.name,
        other.name
    );
    let Ok(module) = weft_ir::text::parse(&text) else {
        return;
    };
    if weft_ir::verify(&module).is_err() {
        return;
    }
    // The pipeline.
    let mut passes = Vec::new();
    for _ in 0..1 + next() % 5 {
        passes.push(match next() % 11 {
            0 => {
                let convert: Vec<&str> = COLLECTIVES.iter().copied().filter(|_| next() % 2 == 0).collect();
                let generic = next() % 2 == 0;
                format!(
                    "async-collective-creator{{convert={} use_generic_async_start_done={generic}}}",
                    convert.join(",")
                )
            }
            1 => {
                let nops: Vec<&str> = NOPS.iter().copied().filter(|_| next() % 2 == 0).collect();
                format!("convert-async-collectives-to-sync{{is_nop_opcodes={}}}", nops.join(","))
            }
            2 => "dce".to_string(),
            3 => "call-inliner".to_string(),
            4 => "flatten-call-graph".to_string(),
            5 => "while-loop-trip-count-annotator".to_string(),
            6 => {
                let algorithm = ["default", "list", "dfs", "post-order", "bfs"][next() % 5];
                format!("hlo-memory-scheduler{{algorithm={algorithm}}}")
            }
            7 => "legalize-scheduling-annotations".to_string(),
            8 => {
                // On an unscheduled module the scheduler refuses, as XLA's does:
                // give it a schedule first.
                let estimator = ["analytic", "approximate", "test"][next() % 3];
                format!(
                    "hlo-memory-scheduler,latency-hiding-scheduler{{latency_estimator={estimator} top_down_scheduling={} aggressive_scheduling_policies={} all_reduce_overlap_limit={} collective_permute_overlap_limit={}}}",
                    next() % 2 == 0,
                    next() % 2 == 0,
                    1 + next() % 3,
                    1 + next() % 3,
                )
            }
            9 => "hlo-trivial-scheduler".to_string(),
            _ => "tuple-simplifier".to_string(),
        });
    }
    let pipeline_text = passes.join(",");
    let pipeline = weft_passes::Pipeline::new(
        weft_passes::registry::build(&pipeline_text).expect("the fuzzer writes valid pipelines"),
    );
    let mut transformed = module.clone();
    let options = weft_passes::PipelineOptions {
        verify_each: true,
        ..Default::default()
    };
    if let Err(error) = pipeline.run(&mut transformed, &options) {
        panic!(
            "{}\n--- pipeline ---\n{pipeline_text}\n--- module ---\n{text}",
            error.describe(&transformed)
        );
    }
    let Some(before) = run(&module) else {
        return;
    };
    let after = run(&transformed).unwrap_or_else(|| {
        panic!("the transformed program does not run\n--- pipeline ---\n{pipeline_text}\n--- module ---\n{text}")
    });
    assert!(
        before == after,
        "the pipeline changed the outputs\n--- pipeline ---\n{pipeline_text}\n--- module ---\n{text}"
    );
});

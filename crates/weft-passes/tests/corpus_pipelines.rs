//! Every module of XLA's HLO corpus (`../shared/corpus/xla-hlo/modules`)
//! that verifies goes through weft's passes — the async pipeline (every
//! collective kind made asynchronous, pairs with nothing between them made
//! synchronous again, dead code and tuples cleaned up), then the call-graph
//! passes, then the schedulers (collectives made asynchronous, the module
//! scheduled breadth-first, then rescheduled for memory, then again in plain
//! depth-first order), then the latency-hiding pipeline (`weft opt
//! --pipeline async`'s passes, then XLA's algorithm top-down with aggressive
//! policies on its schedule) — with
//! verification after every pass: no pass may panic, fail, or leave a module
//! that does not verify.
//!
//! The corpus is read at run time; the test skips with a message when it is
//! absent.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

const PIPELINES: &[&str] = &[
    "async-collective-creator{convert=all-reduce,all-gather,collective-permute,all-to-all,reduce-scatter,collective-broadcast,ragged-all-to-all},convert-async-collectives-to-sync,dce,tuple-simplifier",
    "async-collective-creator{convert=all-reduce,all-gather,collective-permute use_generic_async_start_done=true},while-loop-trip-count-annotator,flatten-call-graph,call-inliner",
    "async-collective-creator{convert=all-reduce,all-gather,collective-permute,all-to-all,reduce-scatter},hlo-memory-scheduler{algorithm=bfs},hlo-memory-scheduler,hlo-trivial-scheduler",
    "async-collective-creator{convert=all-reduce,all-gather,collective-permute,all-to-all,reduce-scatter,collective-broadcast,ragged-all-to-all},hlo-memory-scheduler,legalize-scheduling-annotations,latency-hiding-scheduler{sync_unhidden_collectives=true},convert-async-collectives-to-sync,latency-hiding-scheduler{latency_estimator=approximate top_down_scheduling=true aggressive_scheduling_policies=true}",
];

#[test]
fn every_verified_module_survives_the_pipelines() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/xla-hlo/modules");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} is absent", dir.display());
        return;
    };
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    let options = weft_passes::PipelineOptions {
        verify_each: true,
        ..Default::default()
    };
    let (mut verified, mut failures) = (0, Vec::new());
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(module) = weft_ir::text::parse(&text) else {
            continue;
        };
        if weft_ir::verify(&module).is_err() {
            continue;
        }
        verified += 1;
        for pipeline in PIPELINES {
            let passes = weft_passes::registry::build(pipeline).expect("a valid pipeline");
            let mut module = module.clone();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                weft_passes::Pipeline::new(passes)
                    .run(&mut module, &options)
                    .map_err(|e| e.describe(&module))
            }));
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            match outcome {
                Ok(Ok(_)) => {}
                Ok(Err(error)) => failures.push(format!("{name}: {error}")),
                Err(_) => failures.push(format!("{name}: a pass panicked ({pipeline})")),
            }
        }
    }
    eprintln!(
        "{verified} verified modules of {} through {} pipelines",
        files.len(),
        PIPELINES.len()
    );
    assert!(verified > 0, "no module verified");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

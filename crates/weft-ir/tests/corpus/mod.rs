//! The XLA HLO corpus index (`../shared/corpus/xla-hlo/index.tsv`), shared by
//! the conformance tests. The corpus is read at run time; tests skip with a
//! message when it is absent.

#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use weft_ir::text::parse;

pub struct Row {
    pub id: String,
    pub name: String,
    pub origin: String,
    pub expect: String,
    pub stage: String,
    pub templated: bool,
    pub file: PathBuf,
}

pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/xla-hlo");
    dir.join("index.tsv").exists().then_some(dir)
}

pub fn rows(dir: &Path) -> Vec<Row> {
    let index = std::fs::read_to_string(dir.join("index.tsv")).expect("index.tsv");
    let mut lines = index.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (id, name, origin, expect, stage, templated, file) = (
        col("id"),
        col("name"),
        col("origin"),
        col("expect"),
        col("stage"),
        col("templated"),
        col("file"),
    );
    lines
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            Row {
                id: f[id].to_string(),
                name: f[name].to_string(),
                origin: f[origin].to_string(),
                expect: f[expect].to_string(),
                stage: f[stage].to_string(),
                templated: f[templated] == "yes",
                file: dir.join(f[file]),
            }
        })
        .collect()
}

pub fn read(row: &Row) -> String {
    std::fs::read_to_string(&row.file).expect("corpus file")
}

/// Parses without letting a panic escape; a panic is a failure of its own kind.
pub fn guarded_parse(text: &str) -> Result<Result<weft_ir::Module, String>, String> {
    catch_unwind(AssertUnwindSafe(|| {
        parse(text).map_err(|d| d.short("m", text))
    }))
    .map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

#[macro_export]
macro_rules! skip_without_corpus {
    () => {
        match corpus_dir() {
            Some(dir) => dir,
            None => {
                eprintln!("SKIPPED: ../shared/corpus/xla-hlo not found next to the workspace");
                return;
            }
        }
    };
}

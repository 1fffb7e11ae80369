//! Helpers shared by the CLI's integration tests.

#![allow(dead_code)]

use std::path::PathBuf;

/// A fresh directory for one test, removed when the test ends.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A directory named after the test `suite`, this process and `test`.
    pub fn new(suite: &str, test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("weft-{suite}-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        Scratch(dir)
    }

    /// A path inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A bundled example program.
pub fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

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

/// An HLO program of two replicas: one spins in a `while` that never ends
/// (`%loop`, in computation `%spin`), the other waits for it at an
/// all-reduce (`main/%total`). `spinning` picks which replica spins.
pub fn unbalanced(spinning: u32) -> String {
    let direction = if spinning == 0 { "EQ" } else { "NE" };
    format!(
        r#"HloModule unbalanced, replica_count=2

%cond (s: s32[]) -> pred[] {{
  %s = s32[] parameter(0)
  ROOT %forever = pred[] constant(true)
}}

%body (s: s32[]) -> s32[] {{
  %s = s32[] parameter(0)
  %one = s32[] constant(1)
  ROOT %next = s32[] add(%s, %one)
}}

%sum (a: s32[], b: s32[]) -> s32[] {{
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %add = s32[] add(%a, %b)
}}

%spin (x: s32[]) -> s32[] {{
  %x = s32[] parameter(0)
  ROOT %loop = s32[] while(%x), condition=%cond, body=%body
}}

%pass (y: s32[]) -> s32[] {{
  ROOT %y = s32[] parameter(0)
}}

ENTRY %main (x: s32[]) -> s32[] {{
  %x = s32[] parameter(0)
  %replica = u32[] replica-id()
  %zero = u32[] constant(0)
  %spins = pred[] compare(%replica, %zero), direction={direction}
  %value = s32[] conditional(%spins, %x, %x), true_computation=%spin, false_computation=%pass
  ROOT %total = s32[] all-reduce(%value), replica_groups={{{{0,1}}}}, to_apply=%sum
}}
"#
    )
}

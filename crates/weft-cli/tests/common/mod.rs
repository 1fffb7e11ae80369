//! Helpers shared by the CLI's integration tests.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

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

/// [`unbalanced`], but the spinning replica's loop ends after `iterations`
/// iterations when it starts from 0 (give it a zero input): a correct
/// program whose devices arrive at the all-reduce far apart.
pub fn unbalanced_for(spinning: u32, iterations: u64) -> String {
    unbalanced(spinning).replace(
        "ROOT %forever = pred[] constant(true)",
        &format!(
            "%limit = s32[] constant({iterations})\n  ROOT %more = pred[] compare(%s, %limit), direction=LT"
        ),
    )
}

/// An HLO program of two replicas that deadlocks: replica 0 runs
/// all-reduce `main/%first` then `%second` (in computation `%ahead`),
/// replica 1 the same two in the other order (`%second.1`, then
/// `%first.1` in `%behind`), so each waits at a collective the other never
/// reaches: a cycle of waits, found as soon as the second one begins.
pub fn crossed() -> String {
    r#"HloModule crossed, replica_count=2

%sum (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %add = s32[] add(%a, %b)
}

%ahead (x: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  %first = s32[] all-reduce(%x), channel_id=1, replica_groups={{0,1}}, to_apply=%sum
  ROOT %second = s32[] all-reduce(%first), channel_id=2, replica_groups={{0,1}}, to_apply=%sum
}

%behind (y: s32[]) -> s32[] {
  %y = s32[] parameter(0)
  %second.1 = s32[] all-reduce(%y), channel_id=2, replica_groups={{0,1}}, to_apply=%sum
  ROOT %first.1 = s32[] all-reduce(%second.1), channel_id=1, replica_groups={{0,1}}, to_apply=%sum
}

ENTRY %main (x: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  %replica = u32[] replica-id()
  %zero = u32[] constant(0)
  %leads = pred[] compare(%replica, %zero), direction=EQ
  ROOT %result = s32[] conditional(%leads, %x, %x), true_computation=%ahead, false_computation=%behind
}
"#
    .to_string()
}

/// An HLO program of two partitions stuck for good, in a way only the
/// timeout (or the deadline) finds: partition 0 waits at an all-reduce
/// (`ahead/%first`) for partition 1, which waits at a recv-done
/// (`behind/%recv-done`) for a message partition 0 never sends. (A cycle of
/// collectives alone, as [`crossed`], is found at once.)
pub fn stuck() -> String {
    r#"HloModule stuck, num_partitions=2

%sum (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %add = s32[] add(%a, %b)
}

%ahead (x: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  ROOT %first = s32[] all-reduce(%x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=%sum
}

%behind (y: s32[]) -> s32[] {
  %y = s32[] parameter(0)
  %ordering = token[] after-all()
  %recv = (s32[], u32[], token[]) recv(%ordering), channel_id=5, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  %recv-done = (s32[], token[]) recv-done(%recv), channel_id=5
  ROOT %received = s32[] get-tuple-element(%recv-done), index=0
}

ENTRY %main (x: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  %partition = u32[] partition-id()
  %zero = u32[] constant(0)
  %leads = pred[] compare(%partition, %zero), direction=EQ
  ROOT %result = s32[] conditional(%leads, %x, %x), true_computation=%ahead, false_computation=%behind
}
"#
    .to_string()
}

/// A `.npy` file in `scratch` holding the s32 scalar 0, the input that
/// makes [`unbalanced_for`] run exactly its iterations.
pub fn zero_input(scratch: &Scratch) -> PathBuf {
    let zero = scratch.join("zero.npy");
    std::fs::write(
        &zero,
        weft_runtime::npy::write(&weft_runtime::Tensor::zeros(weft_ir::ElementType::S32, &[])),
    )
    .expect("writable scratch");
    zero
}

/// The tests' own device profile.
pub fn test_profile() -> String {
    format!(
        "{}/tests/data/test-profile.toml",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `weft`, with no calibrated profile of this machine leaking in.
pub fn weft_uncalibrated() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
    command.env("WEFT_CACHE_DIR", std::env::temp_dir().join("weft-no-cache"));
    command
}

/// Runs `command` and returns its output, failing the test with its
/// standard error when it does not succeed.
pub fn succeeded(command: &mut Command) -> std::process::Output {
    let output = command.output().expect("weft runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

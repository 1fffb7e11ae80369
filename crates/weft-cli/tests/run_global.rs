//! `weft run` on several devices with global inputs: each device gets its tile
//! of a global `.npy` by the parameter's sharding, and the outputs are
//! reassembled by the entry's result sharding into global `out<i>.npy`;
//! per-device `*.shards.npy` inputs still give per-device outputs; a global
//! input of the wrong shape is an error naming the file, the parameter, both
//! shapes and the per-device alternative.

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::Scratch;
use weft_ir::ElementType;
use weft_runtime::Tensor;

/// Each device adds its partition id to its tile of `x` and negates its tile
/// of `y`. `x` (global s32[4,8]) is cut 2×2 with the devices transposed:
/// tiles (0,0), (0,1), (1,0), (1,1) are held by partitions 0, 2, 1, 3. `y`
/// (global s32[4,6]) is cut in two along columns, each half held by two
/// devices (the last tile dimension replicates): columns 0..3 by partitions
/// 0 and 2, columns 3..6 by 1 and 3.
const TRANSPOSED_TILES: &str = r#"HloModule transposed_tiles, num_partitions=4

ENTRY %main (x: s32[2,4], y: s32[4,3]) -> (s32[2,4], s32[4,3]) {
  %x = s32[2,4]{1,0} parameter(0), sharding={devices=[2,2]<=[2,2]T(1,0)}
  %y = s32[4,3]{1,0} parameter(1), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  %partition = u32[] partition-id()
  %id = s32[] convert(u32[] %partition)
  %ids = s32[2,4]{1,0} broadcast(s32[] %id), dimensions={}
  %x.plus.id = s32[2,4]{1,0} add(s32[2,4]{1,0} %x, s32[2,4]{1,0} %ids)
  %minus.y = s32[4,3]{1,0} negate(s32[4,3]{1,0} %y)
  ROOT %results = (s32[2,4]{1,0}, s32[4,3]{1,0}) tuple(s32[2,4]{1,0} %x.plus.id, s32[4,3]{1,0} %minus.y), sharding={{devices=[2,2]<=[2,2]T(1,0)}, {devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}}
}
"#;

/// A sharded StableHLO program on a 2×2 mesh: `x` split over "x", `y` over
/// "y"; the first result stays split, the second keeps `y`'s split (no
/// declared sharding), the third is declared replicated.
const SHARDED_MLIR: &str = r#"module @sharded attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<8x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<4x6xi32>, tensor<8x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<8x4xi32>
    %1 = stablehlo.multiply %arg1, %arg1 : tensor<4x6xi32>
    return %0, %1, %0 : tensor<8x4xi32>, tensor<4x6xi32>, tensor<8x4xi32>
  }
}
"#;

/// An s32 array of `dims` whose element at row-major position `i` is `f(i)`.
fn array(dims: &[i64], f: impl Fn(i32) -> i32) -> Tensor {
    let count: i64 = dims.iter().product();
    let bytes = (0..count as i32).flat_map(|i| f(i).to_le_bytes()).collect();
    Tensor::new(ElementType::S32, dims.to_vec(), bytes)
}

fn values(tensor: &Tensor) -> Vec<i32> {
    tensor
        .bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

fn write_npy(path: &Path, tensor: &Tensor) {
    std::fs::write(path, weft_runtime::npy::write(tensor)).expect("writes the input");
}

fn read_npy(path: &Path) -> Tensor {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("{} was not written: {e}", path.display()));
    weft_runtime::npy::read(&bytes, Some(ElementType::S32)).expect("an s32 .npy")
}

fn weft_run(program: &Path, arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .arg(program)
        .args(arguments)
        .output()
        .expect("weft runs")
}

/// `weft run PROGRAM FLAGS… --inputs INPUTS… --out OUT --link unpaced`.
fn run_unpaced(program: &Path, flags: &[&str], inputs: &[&Path], out: &Path) -> Output {
    let mut arguments: Vec<&str> = flags.to_vec();
    arguments.push("--inputs");
    arguments.extend(inputs.iter().map(|path| path_str(path)));
    arguments.extend(["--out", path_str(out), "--link", "unpaced"]);
    weft_run(program, &arguments)
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "weft run failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

#[test]
fn global_inputs_are_tiled_by_the_parameter_shardings_and_outputs_reassembled() {
    let dir = Scratch::new("run-global", "transposed");
    let program = dir.join("transposed_tiles.hlo");
    std::fs::write(&program, TRANSPOSED_TILES).expect("writes the program");
    let (x, y) = (array(&[4, 8], |i| 100 * i), array(&[4, 6], |i| i + 1));
    let (x_file, y_file, out) = (dir.join("x.npy"), dir.join("y.npy"), dir.join("out"));
    write_npy(&x_file, &x);
    write_npy(&y_file, &y);
    let output = run_unpaced(&program, &[], &[&x_file, &y_file], &out);
    succeeded(&output);
    // The partition holding each 2×4 tile of x, by tile row and column.
    let holder = [[0, 2], [1, 3]];
    let expected_x: Vec<i32> = (0..32)
        .map(|i| 100 * i + holder[(i / 8 / 2) as usize][(i % 8 / 4) as usize])
        .collect();
    assert_eq!(values(&read_npy(&out.join("out0.npy"))), expected_x);
    let out1 = read_npy(&out.join("out1.npy"));
    assert_eq!(out1.dims, vec![4, 6]);
    assert_eq!(
        values(&out1),
        values(&y).iter().map(|v| -v).collect::<Vec<_>>()
    );
    assert!(!out.join("out0.shards.npy").exists());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("out0: s32[4,8]") && stdout.contains("(global)"),
        "{stdout}"
    );
}

#[test]
fn sharded_stablehlo_runs_from_global_inputs() {
    let dir = Scratch::new("run-global", "mlir");
    let program = dir.join("sharded.mlir");
    std::fs::write(&program, SHARDED_MLIR).expect("writes the program");
    let (x, y) = (array(&[8, 4], |i| i), array(&[4, 6], |i| i - 7));
    let (x_file, y_file, out) = (dir.join("x.npy"), dir.join("y.npy"), dir.join("out"));
    write_npy(&x_file, &x);
    write_npy(&y_file, &y);
    let output = run_unpaced(&program, &["--devices", "4"], &[&x_file, &y_file], &out);
    succeeded(&output);
    let doubled: Vec<i32> = values(&x).iter().map(|v| 2 * v).collect();
    let squared: Vec<i32> = values(&y).iter().map(|v| v * v).collect();
    assert_eq!(values(&read_npy(&out.join("out0.npy"))), doubled);
    assert_eq!(values(&read_npy(&out.join("out1.npy"))), squared);
    let gathered = read_npy(&out.join("out2.npy"));
    assert_eq!(
        (gathered.dims.clone(), values(&gathered)),
        (vec![8, 4], doubled)
    );
}

#[test]
fn per_device_inputs_give_per_device_outputs() {
    let dir = Scratch::new("run-global", "shards");
    let program = dir.join("transposed_tiles.hlo");
    std::fs::write(&program, TRANSPOSED_TILES).expect("writes the program");
    let (x_file, y_file, out) = (
        dir.join("x.shards.npy"),
        dir.join("y.shards.npy"),
        dir.join("out"),
    );
    write_npy(&x_file, &array(&[4, 2, 4], |i| i));
    write_npy(&y_file, &array(&[4, 4, 3], |i| i));
    let output = run_unpaced(&program, &[], &[&x_file, &y_file], &out);
    succeeded(&output);
    // Device d's tile of x holds 8d … 8d + 7, plus d.
    let expected: Vec<i32> = (0..32).map(|i| i + i / 8).collect();
    assert_eq!(values(&read_npy(&out.join("out0.shards.npy"))), expected);
    assert!(out.join("out1.shards.npy").exists());
    assert!(!out.join("out0.npy").exists());
}

#[test]
fn a_global_input_of_the_wrong_shape_is_an_error_with_a_hint() {
    let dir = Scratch::new("run-global", "wrong_shape");
    let program = dir.join("transposed_tiles.hlo");
    std::fs::write(&program, TRANSPOSED_TILES).expect("writes the program");
    // The per-device shape, not the global one.
    let (x_file, y_file) = (dir.join("x.npy"), dir.join("y.npy"));
    write_npy(&x_file, &array(&[2, 4], |i| i));
    write_npy(&y_file, &array(&[4, 6], |i| i));
    let output = weft_run(
        &program,
        &["--inputs", path_str(&x_file), path_str(&y_file)],
    );
    assert!(!output.status.success(), "a wrong shape must fail");
    let stderr = String::from_utf8_lossy(&output.stderr);
    for expected in [
        path_str(&x_file),
        "parameter 0 (%x)",
        "sharding={devices=[2,2]<=[2,2]T(1,0)}",
        "the global input must be s32[4,8], found s32[2,4]",
        "hint: pass per-device values as x.shards.npy, s32[4,2,4] stacked on axis 0",
    ] {
        assert!(
            stderr.contains(expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
}

#[test]
fn outputs_without_a_recorded_sharding_are_written_per_device() {
    let dir = Scratch::new("run-global", "no_result_sharding");
    let program = dir.join("no_result_sharding.hlo");
    std::fs::write(
        &program,
        "HloModule no_result_sharding, num_partitions=2\n\n\
         ENTRY %main (x: s32[3]) -> s32[3] {\n  \
           %x = s32[3]{0} parameter(0), sharding={devices=[2]<=[2]}\n  \
           ROOT %negate = s32[3]{0} negate(s32[3]{0} %x)\n}\n",
    )
    .expect("writes the program");
    let (x_file, out) = (dir.join("x.npy"), dir.join("out"));
    write_npy(&x_file, &array(&[6], |i| i));
    let output = weft_run(
        &program,
        &["--inputs", path_str(&x_file), "--out", path_str(&out)],
    );
    succeeded(&output);
    assert_eq!(
        values(&read_npy(&out.join("out0.shards.npy"))),
        vec![0, -1, -2, -3, -4, -5]
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("the program records no result sharding"),
        "{stdout}"
    );
}

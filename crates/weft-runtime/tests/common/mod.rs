//! What the corpus conformance tests share: locating the corpus, reading
//! the manifest and `.npy` files, loading a program, and comparing outputs
//! within the tolerance of their type.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use weft_ir::{ElementType, Module};
use weft_runtime::Tensor;
use weft_runtime::numbers::{Numbers, decode};

/// The corpus directory and its manifest's text; without the corpus, runs
/// the test `name` as one ignored trial with a message saying why, and exits.
pub fn corpus_or_skip(name: &str, args: &libtest_mimic::Arguments) -> (PathBuf, String) {
    let Some(dir) = corpus_dir() else {
        eprintln!("{name}: ../shared/corpus/jax not found; skipping");
        let trial = libtest_mimic::Trial::test(format!("{name} (corpus absent)"), || Ok(()))
            .with_ignored_flag(true);
        libtest_mimic::run(args, vec![trial]).exit();
    };
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap_or_default();
    (dir, manifest)
}

pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/jax");
    dir.join("manifest.json").exists().then_some(dir)
}

/// `(absolute, relative)` tolerance for a float type: XLA's CPU kernels use
/// their own approximations of `exp`, `tanh`, … and their own summation
/// order, so results agree to a few units in the last place of the type, not
/// bit for bit.
///
/// The type is the narrowest float the program computes in, not the
/// output's: XLA allows itself excess precision (`xla_allow_excess_precision`,
/// on by default), so its CPU pipeline computes bf16 and f16 arithmetic in
/// f32 and drops some of the roundings the unoptimized program asks for.
/// weft rounds where the program says, so an f32 output computed through
/// bf16 agrees with XLA's to bf16 precision.
pub fn tolerance(elem: ElementType) -> (f64, f64) {
    match elem {
        ElementType::F64 => (1e-12, 1e-12),
        ElementType::F32 | ElementType::C64 => (1e-5, 1e-5),
        ElementType::F16 => (1e-3, 2e-3),
        ElementType::Bf16 => (1e-2, 1.6e-2),
        _ => (0.0, 0.0),
    }
}

pub fn load(path: &Path) -> Result<Module, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    if path.extension().is_some_and(|e| e == "mlir") {
        let body = weft_stablehlo::text::parse(&text).map_err(|d| d.render("input", &text))?;
        return weft_stablehlo::lower::lower(&body).map_err(|d| d.render("input", &text));
    }
    weft_ir::text::parse(&text).map_err(|d| d.render("input", &text))
}

pub fn read_npy(path: &Path, elem: ElementType) -> Result<Tensor, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    weft_runtime::npy::read(&bytes, Some(elem)).map_err(|e| format!("{}: {e}", path.display()))
}

/// The float type of least precision any instruction of `module` produces.
pub fn narrowest_float(module: &Module) -> Option<ElementType> {
    let mantissa = |elem: ElementType| match elem {
        ElementType::F64 | ElementType::C128 => 53,
        ElementType::F32 | ElementType::C64 => 24,
        ElementType::F16 => 11,
        ElementType::Bf16 => 8,
        _ => 4,
    };
    module
        .all_instrs()
        .filter_map(|i| module.shapes.as_array(module.shape_of(i)).map(|a| a.elem))
        .filter(|e| e.is_float() || e.is_complex())
        .min_by_key(|&e| mantissa(e))
}

pub fn compare(
    name: &str,
    ours: &Tensor,
    theirs: &Tensor,
    precision: Option<ElementType>,
) -> Result<(), String> {
    if ours.dims != theirs.dims || ours.elem != theirs.elem {
        return Err(format!(
            "{name}: weft gives {}{:?}, XLA {}{:?}",
            ours.elem.name(),
            ours.dims,
            theirs.elem.name(),
            theirs.dims
        ));
    }
    let (absolute, relative) = match precision {
        Some(narrowest) if ours.elem.is_float() || ours.elem.is_complex() => {
            let (a, r) = tolerance(ours.elem);
            let (na, nr) = tolerance(narrowest);
            (a.max(na), r.max(nr))
        }
        _ => tolerance(ours.elem),
    };
    match (decode(ours), decode(theirs)) {
        (Numbers::Float(a), Numbers::Float(b)) => {
            for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
                let same = (x.is_nan() && y.is_nan())
                    || x == y
                    || (x - y).abs() <= absolute + relative * y.abs();
                if !same {
                    return Err(format!(
                        "{name}[{i}]: weft {x}, XLA {y} (tolerance {absolute} + {relative}·|XLA|)"
                    ));
                }
            }
            Ok(())
        }
        (Numbers::Complex(a), Numbers::Complex(b)) => {
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                let close =
                    |p: f64, q: f64| p == q || (p - q).abs() <= absolute + relative * q.abs();
                if !(close(x.0, y.0) && close(x.1, y.1)) {
                    return Err(format!("{name}[{i}]: weft {x:?}, XLA {y:?}"));
                }
            }
            Ok(())
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{name}: weft {a:?}\n   XLA {b:?}")),
    }
}

/// The manifest's programs that have a name, with their names.
pub fn programs(manifest: &str) -> Vec<(String, serde_json::Value)> {
    serde_json::from_str::<serde_json::Value>(manifest)
        .ok()
        .and_then(|m| m.get("programs").and_then(|p| p.as_array()).cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|program| {
            let name = program.get("name")?.as_str()?.to_string();
            Some((name, program))
        })
        .collect()
}

/// The element types of a program's `inputs` or `outputs`.
pub fn dtypes(program: &serde_json::Value, list: &str) -> Vec<ElementType> {
    program
        .get(list)
        .and_then(|l| l.as_array())
        .map(|items| {
            items
                .iter()
                .filter_map(|item| ElementType::from_name(item.get("dtype")?.as_str()?))
                .collect()
        })
        .unwrap_or_default()
}

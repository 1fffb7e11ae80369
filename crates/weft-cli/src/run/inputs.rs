//! The values a run starts from: `.npy` files (global or per device) and
//! seeded random values, checked against the entry's parameters.

use weft_ir::{Module, Shape, ShapeData};
use weft_runtime::random::SplitMix64;
use weft_runtime::{Tensor, Value};

/// The devices' tiles of parameter `number`'s global value `global` (read
/// from `path`, or drawn at random): sliced by the parameter's sharding, or
/// the whole value on every device when it has none.
pub(super) fn global_to_devices(
    module: &Module,
    param: weft_ir::Instr,
    number: usize,
    global: &Tensor,
    grid: weft_runtime::devices::Grid,
    path: Option<&std::path::Path>,
) -> Result<Vec<Tensor>, String> {
    use weft_runtime::devices::sharding::{TileLayout, shard_over_grid, sharding_devices};
    let array = module
        .shapes
        .as_array(module.shape_of(param))
        .expect("the caller checked the parameter is an array");
    let parameter = format!("parameter {number} (%{})", module.instrs[param].name);
    let source = path.map_or_else(|| "random input".to_string(), |p| p.display().to_string());
    let stem = path
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().trim_end_matches(".npy").to_string())
        .unwrap_or_else(|| format!("in{number}"));
    let mut stacked = vec![grid.len() as i64];
    stacked.extend(array.dims.iter());
    let hint = format!(
        "hint: pass per-device values as {stem}.shards.npy, {} stacked on axis 0",
        shape_text(array.elem, &stacked)
    );
    let Some(sharding) = module.instrs[param].common().sharding.as_ref() else {
        if global.dims.as_slice() != &*array.dims {
            return Err(format!(
                "error: {source}: {parameter} has no sharding, so every device gets the whole value: expected {}, found {}\n  {hint}",
                shape_text(array.elem, &array.dims),
                shape_text(global.elem, &global.dims)
            ));
        }
        return Ok(vec![global.clone(); grid.len()]);
    };
    let mut printed = String::new();
    sharding.print(&mut printed, false);
    let layout = TileLayout::new(sharding, sharding_devices(grid).len(), array.dims.len())
        .map_err(|e| {
            format!(
                "error: {source}: {parameter} has sharding={printed}, which maps no global value to the devices: {e}\n  {hint}"
            )
        })?;
    let expected = layout
        .global_dims(&array.dims)
        .map_err(|e| format!("error: {parameter} sharding={printed}: {e}"))?;
    if global.dims != expected {
        return Err(format!(
            "error: {source}: {parameter} has sharding={printed} over {} devices, each holding {}: the global input must be {}, found {}\n  {hint}",
            layout.devices(),
            shape_text(array.elem, &array.dims),
            shape_text(array.elem, &expected),
            shape_text(global.elem, &global.dims)
        ));
    }
    shard_over_grid(global, sharding, grid).map_err(|e| format!("error: {source}: {e}"))
}

/// `f32[16,4]`, as HLO writes a shape.
pub(super) fn shape_text(elem: weft_ir::ElementType, dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("{}[{}]", elem.name(), dims.join(","))
}

/// The global shape of a random value for parameter `param`: its
/// sharding's global shape, or its own without a sharding; `None` when it is
/// not an array or its sharding maps no global value (a manual one), so the
/// devices get values of their own.
pub(super) fn random_global_dims(
    module: &Module,
    param: weft_ir::Instr,
    grid: weft_runtime::devices::Grid,
) -> Option<Vec<i64>> {
    use weft_runtime::devices::sharding::{TileLayout, sharding_devices};
    let array = module.shapes.as_array(module.shape_of(param))?;
    match module.instrs[param].common().sharding.as_ref() {
        Some(sharding) => TileLayout::new(sharding, sharding_devices(grid).len(), array.dims.len())
            .and_then(|layout| layout.global_dims(&array.dims))
            .ok(),
        None => Some(array.dims.to_vec()),
    }
}

/// The per-device values of a `*.shards.npy` file: `[devices, …shape]`.
pub(super) fn read_shards(
    module: &Module,
    shape: Shape,
    path: &std::path::Path,
    number: usize,
    devices: usize,
) -> Result<Vec<Tensor>, String> {
    let tensor = read_array(module, shape, path, number)?;
    let array = module
        .shapes
        .as_array(shape)
        .ok_or_else(|| format!("error: parameter {number} is not an array"))?;
    let mut expected = vec![devices as i64];
    expected.extend(array.dims.iter());
    if tensor.dims != expected {
        return Err(format!(
            "error: {}: parameter {number} needs {} shards of {}{:?}, the file holds {:?}",
            path.display(),
            devices,
            array.elem.name(),
            array.dims,
            tensor.dims
        ));
    }
    let per_device = tensor.bytes.len() / devices.max(1);
    Ok((0..devices)
        .map(|d| {
            Tensor::new(
                tensor.elem,
                array.dims.to_vec(),
                tensor.bytes[d * per_device..(d + 1) * per_device].to_vec(),
            )
        })
        .collect())
}

pub(super) fn read_input(
    module: &Module,
    shape: Shape,
    path: &std::path::Path,
    number: usize,
) -> Result<Value, String> {
    let tensor = read_array(module, shape, path, number)?;
    let array = module
        .shapes
        .as_array(shape)
        .expect("read_array checked the parameter is an array");
    if tensor.dims.as_slice() != &*array.dims {
        return Err(format!(
            "error: {}: parameter {number} is {}{:?}, the file holds {:?}",
            path.display(),
            array.elem.name(),
            array.dims,
            tensor.dims
        ));
    }
    Ok(Value::Tensor(tensor))
}

/// The array in `path`, read as parameter `number`'s element type (its
/// shape is the caller's to check).
pub(super) fn read_array(
    module: &Module,
    shape: Shape,
    path: &std::path::Path,
    number: usize,
) -> Result<Tensor, String> {
    let Some(array) = module.shapes.as_array(shape) else {
        return Err(format!(
            "error: parameter {number} is not an array; it cannot be read from {}",
            path.display()
        ));
    };
    let bytes =
        std::fs::read(path).map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
    weft_runtime::npy::read(&bytes, Some(array.elem))
        .map_err(|e| format!("error: {}: {e}", path.display()))
}

pub(super) fn random_value(
    module: &Module,
    shape: Shape,
    random: &mut SplitMix64,
) -> Option<Value> {
    match module.shapes.get(shape) {
        ShapeData::Array(array) => Some(Value::Tensor(weft_runtime::random::tensor(
            random,
            array.elem,
            &array.dims,
        ))),
        ShapeData::Tuple(elements) => elements
            .iter()
            .map(|&e| random_value(module, e, random))
            .collect::<Option<Vec<_>>>()
            .map(Value::Tuple),
        ShapeData::Token => Some(Value::Token),
        _ => None,
    }
}

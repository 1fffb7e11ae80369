//! The values a run starts from: `.npy` files (global or per device) and
//! seeded random values, checked against the entry's parameters.
//!
//! Errors name a parameter as the program does: its number, the name JAX
//! gave the argument (`metadata={op_name="x"}`) when there is one, and the
//! instruction (`parameter 1 (x, %Arg_1.2)`). A file whose shape is another
//! parameter's is probably given out of order, and the error says which.
//!
//! Every input is measured against an [`InputBudget`] before it exists: a
//! file's header is read and its size checked before its data is, and a
//! random value's shape before it is drawn. A shape without a size (one
//! that overflows, or has an unbounded dimension) is an error, never a
//! wrapped small number.

use weft_ir::{Instr, Module, Shape, ShapeData};
use weft_runtime::random::SplitMix64;
use weft_runtime::{Tensor, Value};

/// How many bytes a run's inputs may take: each value at most `per_value`
/// (`--max-value-gib`, the limit on any value of the run), all of them
/// together at most `total` (`--max-input-gib`). Bytes are reserved before
/// the value they are for is read or drawn.
pub(crate) struct InputBudget {
    per_value: u64,
    total: u64,
    used: u64,
}

impl InputBudget {
    pub(crate) fn new(per_value: u64, total: u64) -> InputBudget {
        InputBudget {
            per_value,
            total,
            used: 0,
        }
    }

    /// Reserves one value of `elem[dims]` for `what` (a parameter, a file);
    /// an error when the shape has no size or the value does not fit.
    pub(super) fn reserve(
        &mut self,
        what: &str,
        elem: weft_ir::ElementType,
        dims: &[i64],
    ) -> Result<(), String> {
        let bytes = weft_ir::size::byte_size(elem, dims)
            .map_err(|e| format!("error: {what}: {e}; it cannot be an input"))?
            .get();
        if bytes > self.per_value {
            return Err(format!(
                "error: {what}: {} needs {}, more than the limit on one value of {} (--max-value-gib)",
                shape_text(elem, dims),
                gib(bytes),
                gib(self.per_value)
            ));
        }
        self.reserve_bytes(what, bytes)
    }

    /// Reserves `bytes` more for `what` against the total alone (copies of
    /// a value already reserved: the devices' tiles of a global value).
    pub(super) fn reserve_bytes(&mut self, what: &str, bytes: u64) -> Result<(), String> {
        let used = self.used.saturating_add(bytes);
        if used > self.total {
            return Err(format!(
                "error: {what}: the inputs would take {}, more than the limit on all inputs of {} (--max-input-gib)",
                gib(used),
                gib(self.total)
            ));
        }
        self.used = used;
        Ok(())
    }
}

/// `12.0 GiB`, as the limits are given.
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

/// The devices' tiles of parameter `number`'s global value, read from `path`
/// ([`global_to_devices`]).
pub(super) fn read_global(
    module: &Module,
    param: Instr,
    path: &std::path::Path,
    number: usize,
    grid: weft_runtime::devices::Grid,
    budget: &mut InputBudget,
) -> Result<Vec<Tensor>, String> {
    let global = read_array(module, param, path, number, FileKind::Global(grid), budget)?;
    // The tiles are copies: as many bytes again.
    budget.reserve_bytes(&path.display().to_string(), global.bytes.len() as u64)?;
    global_to_devices(module, param, number, &global, grid, Some(path))
}

/// The devices' tiles of parameter `number`'s global value `global` (read
/// from `path`, or drawn at random): sliced by the parameter's sharding, or
/// the whole value on every device when it has none.
pub(super) fn global_to_devices(
    module: &Module,
    param: Instr,
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
    let parameter = parameter_label(module, param, number);
    let source = path.map_or_else(|| "random input".to_string(), |p| p.display().to_string());
    let wrong_order = || path.and_then(|p| wrong_order(module, number, p, FileKind::Global(grid)));
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
                "error: {source}: {parameter} has no sharding, so every device gets the whole value: expected {}, found {}\n  {}",
                shape_text(array.elem, &array.dims),
                shape_text(global.elem, &global.dims),
                wrong_order().unwrap_or(hint)
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
            "error: {source}: {parameter} has sharding={printed} over {} devices, each holding {}: the global input must be {}, found {}\n  {}",
            layout.devices(),
            shape_text(array.elem, &array.dims),
            shape_text(array.elem, &expected),
            shape_text(global.elem, &global.dims),
            wrong_order().unwrap_or(hint)
        ));
    }
    shard_over_grid(global, sharding, grid).map_err(|e| format!("error: {source}: {e}"))
}

/// `f32[16,4]`, as HLO writes a shape (`?` for an unbounded dimension).
pub(super) fn shape_text(elem: weft_ir::ElementType, dims: &[i64]) -> String {
    weft_ir::size::shape_text(elem, dims)
}

/// How errors name parameter `number` (the instruction `param`): with the
/// name JAX gave the argument, `parameter 1 (x, %Arg_1.2)`, else
/// `parameter 1 (%Arg_1.2)`.
pub(super) fn parameter_label(module: &Module, param: Instr, number: usize) -> String {
    let data = module.instr(param);
    match data.metadata.as_deref().map(|m| &*m.op_name) {
        Some(source) if !source.is_empty() && source != data.name => {
            format!("parameter {number} ({source}, %{})", data.name)
        }
        _ => format!("parameter {number} (%{})", data.name),
    }
}

/// What a `.npy` file given for a parameter holds.
#[derive(Clone, Copy)]
enum FileKind {
    /// The parameter's own value (a run on one device).
    Whole,
    /// The global value the devices' tiles are cut from.
    Global(weft_runtime::devices::Grid),
    /// One value per device, stacked on axis 0 (`*.shards.npy`).
    Shards(usize),
}

/// The dimensions a file of `kind` must have for parameter `param`, when it
/// can be given one.
fn file_dims(module: &Module, param: Instr, kind: FileKind) -> Option<Vec<i64>> {
    let array = module.shapes.as_array(module.shape_of(param))?;
    match kind {
        FileKind::Whole => Some(array.dims.to_vec()),
        FileKind::Global(grid) => random_global_dims(module, param, grid),
        FileKind::Shards(devices) => Some(
            std::iter::once(devices as i64)
                .chain(array.dims.iter().copied())
                .collect(),
        ),
    }
}

/// When the file at `path`, wrong for parameter `number`, is right for
/// another parameter — its element type and its dimensions for a file of
/// `kind` — a hint naming the first such parameter: the inputs are probably
/// in the wrong order.
fn wrong_order(
    module: &Module,
    number: usize,
    path: &std::path::Path,
    kind: FileKind,
) -> Option<String> {
    let params = &module.comp(module.entry?).params();
    // The header says the shape: the data is not read for a hint.
    let bytes = read_npy_header_bytes(path).ok()?;
    params.iter().enumerate().find_map(|(other, &param)| {
        if other == number {
            return None;
        }
        let elem = module.shapes.as_array(module.shape_of(param))?.elem;
        let header = weft_runtime::npy::read_header(&bytes, Some(elem)).ok()?;
        (Some(&header.dims) == file_dims(module, param, kind).as_ref()).then(|| {
            format!(
                "hint: wrong order? it matches {}",
                parameter_label(module, param, other)
            )
        })
    })
}

/// The global shape of a random value for parameter `param`: its
/// sharding's global shape, or its own without a sharding; `None` when it is
/// not an array or its sharding maps no global value (a manual one), so the
/// devices get values of their own.
pub(super) fn random_global_dims(
    module: &Module,
    param: Instr,
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
    param: Instr,
    path: &std::path::Path,
    number: usize,
    devices: usize,
    budget: &mut InputBudget,
) -> Result<Vec<Tensor>, String> {
    let tensor = read_array(
        module,
        param,
        path,
        number,
        FileKind::Shards(devices),
        budget,
    )?;
    // Each device's value is a copy: as many bytes again.
    budget.reserve_bytes(&path.display().to_string(), tensor.bytes.len() as u64)?;
    let array = module
        .shapes
        .as_array(module.shape_of(param))
        .expect("read_array checked the parameter is an array");
    let mut expected = vec![devices as i64];
    expected.extend(array.dims.iter());
    if tensor.dims != expected {
        return Err(format!(
            "error: {}: {} needs {devices} shards of {}, stacked as {}; the file holds {}{}",
            path.display(),
            parameter_label(module, param, number),
            shape_text(array.elem, &array.dims),
            shape_text(array.elem, &expected),
            shape_text(tensor.elem, &tensor.dims),
            wrong_order(module, number, path, FileKind::Shards(devices))
                .map(|hint| format!("\n  {hint}"))
                .unwrap_or_default()
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

/// Parameter `number`'s value on one device, from `path`.
pub(super) fn read_input(
    module: &Module,
    param: Instr,
    path: &std::path::Path,
    number: usize,
    budget: &mut InputBudget,
) -> Result<Value, String> {
    let tensor = read_array(module, param, path, number, FileKind::Whole, budget)?;
    let array = module
        .shapes
        .as_array(module.shape_of(param))
        .expect("read_array checked the parameter is an array");
    if tensor.dims.as_slice() != &*array.dims {
        return Err(format!(
            "error: {}: {} is {}, the file holds {}{}",
            path.display(),
            parameter_label(module, param, number),
            shape_text(array.elem, &array.dims),
            shape_text(tensor.elem, &tensor.dims),
            wrong_order(module, number, path, FileKind::Whole)
                .map(|hint| format!("\n  {hint}"))
                .unwrap_or_default()
        ));
    }
    Ok(Value::Tensor(tensor))
}

/// The array in `path`, read as parameter `number`'s element type (its
/// shape is the caller's to check). Its header is read first and its size
/// reserved in `budget`: a file too large, or whose shape has no size, is
/// refused without reading its data.
fn read_array(
    module: &Module,
    param: Instr,
    path: &std::path::Path,
    number: usize,
    kind: FileKind,
    budget: &mut InputBudget,
) -> Result<Tensor, String> {
    let Some(array) = module.shapes.as_array(module.shape_of(param)) else {
        return Err(format!(
            "error: {} is not an array; it cannot be read from {}",
            parameter_label(module, param, number),
            path.display()
        ));
    };
    let not_readable = |e: &dyn std::fmt::Display| {
        format!(
            "error: {}: {} is {}: {e}{}",
            path.display(),
            parameter_label(module, param, number),
            shape_text(array.elem, &array.dims),
            wrong_order(module, number, path, kind)
                .map(|hint| format!("\n  {hint}"))
                .unwrap_or_default()
        )
    };
    // A parameter without a size (an unbounded dimension) takes no file.
    weft_ir::size::byte_size(array.elem, &array.dims).map_err(|e| {
        format!(
            "error: {}: {}: {e}; it cannot be an input",
            path.display(),
            parameter_label(module, param, number)
        )
    })?;
    let prefix = read_npy_header_bytes(path)
        .map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
    let header =
        weft_runtime::npy::read_header(&prefix, Some(array.elem)).map_err(|e| not_readable(&e))?;
    budget.reserve(&path.display().to_string(), header.elem, &header.dims)?;
    let bytes =
        std::fs::read(path).map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
    weft_runtime::npy::read(&bytes, Some(array.elem)).map_err(|e| not_readable(&e))
}

/// The array in `path`, of whatever element type it says, its size reserved
/// in `budget` from its header before its data is read (the inputs that fix
/// a shape-polymorphic program's shapes).
pub(super) fn read_any_array(
    path: &std::path::Path,
    budget: &mut InputBudget,
) -> Result<Tensor, String> {
    let cannot = |e: &dyn std::fmt::Display| format!("error: cannot read {}: {e}", path.display());
    let what = path.display().to_string();
    let prefix = read_npy_header_bytes(path).map_err(|e| cannot(&e))?;
    let header =
        weft_runtime::npy::read_header(&prefix, None).map_err(|e| format!("error: {what}: {e}"))?;
    budget.reserve(&what, header.elem, &header.dims)?;
    let bytes = std::fs::read(path).map_err(|e| cannot(&e))?;
    weft_runtime::npy::read(&bytes, None).map_err(|e| format!("error: {what}: {e}"))
}

/// The start of the `.npy` file at `path` up to the end of its header (its
/// magic, version and length say how long the header is), and no more.
pub(super) fn read_npy_header_bytes(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut prefix = Vec::new();
    (&mut file).take(12).read_to_end(&mut prefix)?;
    let header_len = match prefix.get(6) {
        Some(1) if prefix.len() >= 10 => u64::from(u16::from_le_bytes([prefix[8], prefix[9]])),
        Some(2 | 3) if prefix.len() >= 12 => u64::from(u32::from_le_bytes([
            prefix[8], prefix[9], prefix[10], prefix[11],
        ])),
        // Not a file the reader takes: it says why from what is there.
        _ => return Ok(prefix),
    };
    let end = if prefix.get(6) == Some(&1) { 10 } else { 12 } + header_len;
    (&mut file)
        .take(end.saturating_sub(prefix.len() as u64))
        .read_to_end(&mut prefix)?;
    Ok(prefix)
}

/// A random value of `shape` for `what` (a parameter), its arrays reserved
/// in `budget` before they are drawn.
pub(super) fn random_value(
    module: &Module,
    shape: Shape,
    random: &mut SplitMix64,
    budget: &mut InputBudget,
    what: &str,
) -> Result<Value, String> {
    match module.shapes.get(shape) {
        ShapeData::Array(array) => {
            budget.reserve(what, array.elem, &array.dims)?;
            Ok(Value::Tensor(weft_runtime::random::tensor(
                random,
                array.elem,
                &array.dims,
            )))
        }
        ShapeData::Tuple(elements) => elements
            .iter()
            .map(|&e| random_value(module, e, random, budget, what))
            .collect::<Result<Vec<_>, String>>()
            .map(Value::Tuple),
        ShapeData::Token => Ok(Value::Token),
        _ => Err(format!(
            "error: {what} has a shape random inputs cannot fill"
        )),
    }
}

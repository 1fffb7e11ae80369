//! Global values and the tiles devices hold of them, under an HLO sharding.
//!
//! A sharding says which part of a global value each device holds:
//! - `{replicated}`: every device holds all of it;
//! - `{maximal device=d}`: device `d` alone holds it (the others' copies are
//!   not read back);
//! - tiled, `{devices=[t0,t1,…]…}`: dimension `i` is cut into `ti` equal
//!   tiles, and the tile assignment (an explicit list or an iota, possibly
//!   transposed: `<=[2,4]T(1,0)`) says which device holds which tile, row-major
//!   over the tile grid. With `last_tile_dim_replicate` (or trailing
//!   `last_tile_dims={replicated}`) the trailing assignment dimensions list
//!   the devices sharing one tile;
//! - named, `{mesh['x'=2,'y'=4], [{'y'}, {}]}`: the same, from mesh axes.
//!
//! Invariants this module checks and then relies on:
//! - the sharding spans exactly the `devices` of the run, `0..devices`, each
//!   device exactly once (a tile assignment of another size, or naming a
//!   device twice, is an error);
//! - every dimension splits evenly (no padded tiles): a global dimension of
//!   size `g` cut into `t` tiles gives tiles of `g / t`, and `g % t == 0`;
//! - devices holding the same tile hold the same values: [`TileLayout::assemble`]
//!   reads the first of them in device order (device 0 for a replicated
//!   value, device `d` for a maximal one).
//!
//! Manual, unknown and unreduced shardings say nothing about how a global
//! value maps to devices (manual: the program handles it; unreduced: partial
//! sums); they are errors here.
//!
//! Device numbers are the sharding's, which on a run's grid are partition
//! ids — XLA's SPMD shardings name partitions — or, on a grid of a single
//! partition, replica ids ([`sharding_devices`]).

use weft_ir::attrs::{
    AxisRef, NamedSharding, Sharding, ShardingKind, ShardingMesh, SingleSharding, TileAssignment,
};

use super::{DeviceId, Grid};
use crate::tensor::{Tensor, element_count, strides};

/// How a value of some rank is cut into tiles and which device holds which
/// tile: a sharding resolved for a number of devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileLayout {
    /// How many tiles each dimension is cut into.
    tiles: Vec<i64>,
    /// Each device's tile coordinates (one per dimension), by device number.
    coordinates: Vec<Vec<i64>>,
    /// The device holding the value alone (a maximal sharding).
    owner: Option<usize>,
}

impl TileLayout {
    /// Resolves `sharding` for a value of rank `rank` spread over `devices`
    /// devices.
    pub fn new(sharding: &Sharding, devices: usize, rank: usize) -> Result<TileLayout, String> {
        if devices == 0 {
            return Err("a sharding needs at least one device".into());
        }
        let single = match sharding {
            Sharding::Single(single) => single,
            Sharding::Tuple(elements) => {
                return Err(format!(
                    "a tuple sharding ({} elements) describes a tuple, not an array; use the element's sharding",
                    elements.len()
                ));
            }
        };
        let whole = |owner: Option<usize>| TileLayout {
            tiles: vec![1; rank],
            coordinates: vec![vec![0; rank]; devices],
            owner,
        };
        match &single.kind {
            ShardingKind::Replicated => Ok(whole(None)),
            ShardingKind::Maximal(device) => {
                let owner = device_number(*device, devices)?;
                Ok(whole(Some(owner)))
            }
            ShardingKind::Tiled(assignment) => tiled(single, assignment, devices, rank),
            ShardingKind::Named(named) => match &named.mesh {
                ShardingMesh::Maximal(device) => {
                    let owner = device_number(*device, devices)?;
                    Ok(whole(Some(owner)))
                }
                ShardingMesh::Mesh(_) => named_layout(named, devices, rank),
            },
            ShardingKind::Manual => Err(
                "a manual sharding leaves the split of the value to the program: there is no global value to slice or reassemble (pass per-device values instead)"
                    .into(),
            ),
            ShardingKind::Unknown => {
                Err("an unknown sharding does not say which device holds what".into())
            }
            ShardingKind::Unreduced => Err(
                "an unreduced sharding holds partial results still to be reduced, not tiles of a global value"
                    .into(),
            ),
        }
    }

    /// How many tiles each dimension is cut into.
    pub fn tiles(&self) -> &[i64] {
        &self.tiles
    }

    /// The number of devices the layout spans.
    pub fn devices(&self) -> usize {
        self.coordinates.len()
    }

    /// Whether some dimension is cut (devices hold different parts).
    pub fn is_split(&self) -> bool {
        self.tiles.iter().any(|&t| t > 1)
    }

    /// The dimensions of one tile of a global value of dimensions `global`.
    pub fn local_dims(&self, global: &[i64]) -> Result<Vec<i64>, String> {
        self.check_rank(global.len())?;
        global
            .iter()
            .zip(&self.tiles)
            .enumerate()
            .map(|(dim, (&size, &tiles))| {
                if size % tiles == 0 {
                    Ok(size / tiles)
                } else {
                    Err(format!(
                        "dimension {dim} of {global:?} (size {size}) does not split evenly into {tiles} tiles"
                    ))
                }
            })
            .collect()
    }

    /// The dimensions of the global value whose tiles have dimensions `local`.
    pub fn global_dims(&self, local: &[i64]) -> Result<Vec<i64>, String> {
        self.check_rank(local.len())?;
        let dims: Vec<i64> = local
            .iter()
            .zip(&self.tiles)
            .map(|(&l, &t)| l.checked_mul(t))
            .collect::<Option<_>>()
            .filter(|dims: &Vec<i64>| weft_ir::size::product(dims).is_some())
            .ok_or_else(|| {
                format!(
                    "tiles of {local:?} over {:?} make a global value too large for int64",
                    self.tiles
                )
            })?;
        Ok(dims)
    }

    /// Device `device`'s tile of `global`.
    pub fn shard(&self, global: &Tensor, device: usize) -> Result<Tensor, String> {
        let coordinates = self.coordinates.get(device).ok_or_else(|| {
            format!(
                "device {device} is not one of the sharding's {} devices",
                self.devices()
            )
        })?;
        let local = self.local_dims(&global.dims)?;
        let offsets: Vec<i64> = coordinates.iter().zip(&local).map(|(c, l)| c * l).collect();
        let mut bytes = vec![0u8; element_count(&local) * global.element_size()];
        copy_block(
            Block {
                bytes: &global.bytes[..],
                dims: &global.dims,
                offsets: &offsets,
            },
            &mut bytes,
            &local,
            global.element_size(),
        );
        Ok(Tensor::new(global.elem, local, bytes))
    }

    /// The global value whose tiles the devices hold: `per_device[d]` is
    /// device `d`'s tile.
    pub fn assemble(&self, per_device: &[Tensor]) -> Result<Tensor, String> {
        if per_device.len() != self.devices() {
            return Err(format!(
                "the sharding spans {} devices but {} values were given",
                self.devices(),
                per_device.len()
            ));
        }
        let first = &per_device[0];
        if let Some((device, other)) = per_device
            .iter()
            .enumerate()
            .find(|(_, t)| t.dims != first.dims || t.elem != first.elem)
        {
            return Err(format!(
                "the devices' values differ in shape: device 0 holds {}{:?}, device {device} {}{:?}",
                first.elem.name(),
                first.dims,
                other.elem.name(),
                other.dims
            ));
        }
        if let Some(owner) = self.owner {
            return Ok(per_device[owner].clone());
        }
        let global_dims = self.global_dims(&first.dims)?;
        let mut bytes = vec![0u8; first.bytes.len() * self.tile_count()];
        let local_strides = strides(&self.tiles);
        let mut filled = vec![false; self.tile_count()];
        for (device, coordinates) in self.coordinates.iter().enumerate() {
            let tile: usize = coordinates
                .iter()
                .zip(&local_strides)
                .map(|(&c, &s)| c as usize * s)
                .sum();
            // Devices sharing a tile hold the same values: read the first.
            if std::mem::replace(&mut filled[tile], true) {
                continue;
            }
            let offsets: Vec<i64> = coordinates
                .iter()
                .zip(&first.dims)
                .map(|(c, l)| c * l)
                .collect();
            paste_block(
                &per_device[device],
                &mut bytes,
                &global_dims,
                &offsets,
                first.element_size(),
            );
        }
        Ok(Tensor::new(first.elem, global_dims, bytes))
    }

    fn tile_count(&self) -> usize {
        self.tiles.iter().map(|&t| t as usize).product()
    }

    fn check_rank(&self, rank: usize) -> Result<(), String> {
        if rank == self.tiles.len() {
            Ok(())
        } else {
            Err(format!(
                "the sharding is for an array of rank {}, the value has rank {rank}",
                self.tiles.len()
            ))
        }
    }
}

/// Device `device`'s tile of `global` under `sharding`, over `devices`
/// devices.
pub fn shard(
    global: &Tensor,
    sharding: &Sharding,
    devices: usize,
    device: usize,
) -> Result<Tensor, String> {
    TileLayout::new(sharding, devices, global.dims.len())?.shard(global, device)
}

/// The global value of which `per_device[d]` is device `d`'s tile under
/// `sharding`.
pub fn assemble(per_device: &[Tensor], sharding: &Sharding) -> Result<Tensor, String> {
    let Some(first) = per_device.first() else {
        return Err("no device values to assemble".into());
    };
    TileLayout::new(sharding, per_device.len(), first.dims.len())?.assemble(per_device)
}

/// The sharding of each of `leaves` arrays a (possibly nested) tuple value
/// flattens to, in order: a tuple sharding's leaves, or one sharding that
/// applies to every leaf.
pub fn leaf_shardings(sharding: &Sharding, leaves: usize) -> Result<Vec<Sharding>, String> {
    fn flatten(sharding: &Sharding, out: &mut Vec<Sharding>) {
        match sharding {
            Sharding::Tuple(elements) => elements.iter().for_each(|e| flatten(e, out)),
            single => out.push(single.clone()),
        }
    }
    match sharding {
        Sharding::Single(_) => Ok(vec![sharding.clone(); leaves]),
        Sharding::Tuple(_) => {
            let mut out = Vec::new();
            flatten(sharding, &mut out);
            if out.len() == leaves {
                Ok(out)
            } else {
                Err(format!(
                    "the tuple sharding has {} elements for {leaves} arrays",
                    out.len()
                ))
            }
        }
    }
}

/// The devices a sharding spans on `grid`, as flattened grid ids in the
/// sharding's device order. Shardings name partitions (as XLA's SPMD
/// partitioner does): on a grid of several partitions, sharding device `p`
/// is partition `p` of replica 0, the other replicas holding the same tiles.
/// On a grid of one partition (a per-device program run on replicas),
/// sharding device `r` is replica `r`.
pub fn sharding_devices(grid: Grid) -> Vec<usize> {
    if grid.partitions > 1 {
        (0..grid.partitions).collect()
    } else {
        (0..grid.replicas).collect()
    }
}

/// The sharding device whose tile grid device `device` holds (see
/// [`sharding_devices`]).
pub fn sharding_device_of(grid: Grid, device: DeviceId) -> usize {
    if grid.partitions > 1 {
        device.partition
    } else {
        device.replica
    }
}

/// Every grid device's tile of `global` under `sharding`, by flattened
/// device id (see [`sharding_devices`] for which tile a device holds).
pub fn shard_over_grid(
    global: &Tensor,
    sharding: &Sharding,
    grid: Grid,
) -> Result<Vec<Tensor>, String> {
    let layout = TileLayout::new(sharding, sharding_devices(grid).len(), global.dims.len())?;
    (0..grid.len())
        .map(|id| layout.shard(global, sharding_device_of(grid, grid.device(id))))
        .collect()
}

/// The global value of which `per_device[id]` is the tile of the grid
/// device with flattened id `id` under `sharding`.
pub fn assemble_over_grid(
    per_device: &[Tensor],
    sharding: &Sharding,
    grid: Grid,
) -> Result<Tensor, String> {
    if per_device.len() != grid.len() {
        return Err(format!(
            "the grid has {} devices but {} values were given",
            grid.len(),
            per_device.len()
        ));
    }
    let holders: Vec<Tensor> = sharding_devices(grid)
        .into_iter()
        .map(|id| per_device[id].clone())
        .collect();
    assemble(&holders, sharding)
}

/// `device` as a device number of a run of `devices`.
fn device_number(device: i64, devices: usize) -> Result<usize, String> {
    usize::try_from(device)
        .ok()
        .filter(|&d| d < devices)
        .ok_or_else(|| format!("the sharding names device {device}, the run has {devices}"))
}

/// The layout of a classic tiled sharding.
fn tiled(
    single: &SingleSharding,
    assignment: &TileAssignment,
    devices: usize,
    rank: usize,
) -> Result<TileLayout, String> {
    let (dims, ids) = match assignment {
        TileAssignment::Explicit { dims, devices } => (dims.clone(), devices.clone()),
        TileAssignment::Iota(iota) => (
            iota.dims.clone(),
            iota.device_ids().map_err(|e| e.to_string())?,
        ),
    };
    // Trailing assignment dimensions that list devices sharing a tile.
    let replicated = if single.last_tile_dim_replicate {
        1
    } else {
        for kind in &single.last_tile_dims {
            if kind != "replicated" {
                return Err(format!(
                    "the sharding has a {kind} subgroup (last_tile_dims={{{}}}): only replicated subgroups map a global value to devices",
                    single.last_tile_dims.join(", ")
                ));
            }
        }
        single.last_tile_dims.len()
    };
    if dims.len() != rank + replicated {
        return Err(format!(
            "the tile assignment has {} dimensions, an array of rank {rank} needs {}",
            dims.len(),
            rank + replicated
        ));
    }
    if ids.len() != devices {
        return Err(format!(
            "the tile assignment {dims:?} names {} devices, the run has {devices}",
            ids.len()
        ));
    }
    let mut coordinates: Vec<Option<Vec<i64>>> = vec![None; devices];
    let mut index = vec![0i64; dims.len()];
    for &id in &ids {
        let device = device_number(id, devices)?;
        if coordinates[device].is_some() {
            return Err(format!(
                "the tile assignment names device {device} more than once"
            ));
        }
        coordinates[device] = Some(index[..rank].to_vec());
        // Row-major over the assignment dimensions.
        for d in (0..dims.len()).rev() {
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(TileLayout {
        tiles: dims[..rank].to_vec(),
        coordinates: coordinates
            .into_iter()
            .map(|c| c.expect("every device named once"))
            .collect(),
        owner: None,
    })
}

/// The layout of a named (mesh) sharding: dimension `d`'s tile index is the
/// device's coordinates along the axes of `dims[d]`, major first.
fn named_layout(named: &NamedSharding, devices: usize, rank: usize) -> Result<TileLayout, String> {
    let ShardingMesh::Mesh(mesh) = &named.mesh else {
        unreachable!("maximal meshes are resolved by the caller")
    };
    if !named.unreduced.is_empty() {
        return Err("the sharding has unreduced axes: partial results, not tiles".into());
    }
    if !named.manual.is_empty() {
        return Err(
            "the sharding has manual axes: the program splits the value itself (pass per-device values instead)"
                .into(),
        );
    }
    if !named.dims.is_empty() && named.dims.len() != rank {
        return Err(format!(
            "the sharding has {} dimension shardings, the array rank {rank}",
            named.dims.len()
        ));
    }
    let ids = mesh.device_ids().map_err(|e| e.to_string())?;
    if ids.len() != devices {
        return Err(format!(
            "the mesh has {} devices, the run has {devices}",
            ids.len()
        ));
    }
    let sizes: Vec<i64> = mesh.axes.iter().map(|(_, size)| *size).collect();
    // An axis reference's size, and a device's coordinate along it from its
    // mesh coordinates (a sub-axis `(pre)size` strides by `pre`).
    let part = |axis: &AxisRef, coordinate: &[i64]| -> (i64, i64) {
        match axis.sub {
            Some(sub) => (sub.size, (coordinate[axis.axis] / sub.pre_size) % sub.size),
            None => (sizes[axis.axis], coordinate[axis.axis]),
        }
    };
    let origin = vec![0; sizes.len()];
    let tiles: Vec<i64> = (0..rank)
        .map(|d| {
            named.dims.get(d).map_or(1, |dim| {
                dim.axes.iter().map(|a| part(a, &origin).0).product()
            })
        })
        .collect();
    let mut coordinates: Vec<Option<Vec<i64>>> = vec![None; devices];
    for (position, &id) in ids.iter().enumerate() {
        let device = device_number(id, devices)?;
        let mut mesh_coordinate = vec![0i64; sizes.len()];
        let mut rest = position as i64;
        for axis in (0..sizes.len()).rev() {
            mesh_coordinate[axis] = rest % sizes[axis];
            rest /= sizes[axis];
        }
        let tile = (0..rank)
            .map(|d| {
                named.dims.get(d).map_or(0, |dim| {
                    dim.axes.iter().fold(0, |index, axis| {
                        let (size, at) = part(axis, &mesh_coordinate);
                        index * size + at
                    })
                })
            })
            .collect();
        if coordinates[device].replace(tile).is_some() {
            return Err(format!("the mesh names device {device} more than once"));
        }
    }
    Ok(TileLayout {
        tiles,
        coordinates: coordinates
            .into_iter()
            .map(|c| c.expect("every device named once"))
            .collect(),
        owner: None,
    })
}

/// A block of an array: its bytes, its dimensions and where the block starts.
struct Block<'a> {
    bytes: &'a [u8],
    dims: &'a [i64],
    offsets: &'a [i64],
}

/// Copies the block of dimensions `block` at `source.offsets` of `source`
/// into `out`, which holds exactly that block, row-major.
fn copy_block(source: Block<'_>, out: &mut [u8], block: &[i64], element: usize) {
    for_each_row(block, |index, row| {
        let from = linear(source.dims, source.offsets, index) * element;
        let to = linear(block, &vec![0; block.len()], index) * element;
        out[to..to + row * element].copy_from_slice(&source.bytes[from..from + row * element]);
    });
}

/// Writes `tile` into `global` (of dimensions `dims`) at `offsets`.
fn paste_block(tile: &Tensor, global: &mut [u8], dims: &[i64], offsets: &[i64], element: usize) {
    for_each_row(&tile.dims, |index, row| {
        let from = linear(&tile.dims, &vec![0; tile.dims.len()], index) * element;
        let to = linear(dims, offsets, index) * element;
        global[to..to + row * element].copy_from_slice(&tile.bytes[from..from + row * element]);
    });
}

/// Calls `row(index, length)` for every row (run along the last dimension)
/// of an array of dimensions `dims`, `index` being the row's first element.
fn for_each_row(dims: &[i64], mut row: impl FnMut(&[i64], usize)) {
    if dims.iter().any(|&d| d <= 0) {
        return;
    }
    let Some((&last, outer)) = dims.split_last() else {
        row(&[], 1);
        return;
    };
    let mut index = vec![0i64; dims.len()];
    loop {
        row(&index, last as usize);
        let mut d = outer.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < outer[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// The row-major element offset of `offsets + index` in an array of `dims`.
fn linear(dims: &[i64], offsets: &[i64], index: &[i64]) -> usize {
    strides(dims)
        .iter()
        .zip(offsets.iter().zip(index))
        .map(|(&stride, (&o, &i))| stride * (o + i) as usize)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::ElementType;

    fn sharding(text: &str) -> Sharding {
        weft_ir::text::parse_sharding(text).unwrap_or_else(|d| panic!("{text}: {}", d.message))
    }

    /// An s32 array of `dims` holding 0, 1, 2, … row-major.
    fn iota(dims: &[i64]) -> Tensor {
        let count: i64 = dims.iter().product();
        let bytes = (0..count as i32).flat_map(i32::to_le_bytes).collect();
        Tensor::new(ElementType::S32, dims.to_vec(), bytes)
    }

    fn values(tensor: &Tensor) -> Vec<i32> {
        tensor
            .bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    }

    /// Every device's tile of `global`, and the value they reassemble to.
    fn round_trip(global: &Tensor, text: &str, devices: usize) -> Vec<Tensor> {
        let sharding = sharding(text);
        let tiles: Vec<Tensor> = (0..devices)
            .map(|d| shard(global, &sharding, devices, d).expect("shards"))
            .collect();
        assert_eq!(
            assemble(&tiles, &sharding).expect("assembles"),
            *global,
            "{text}"
        );
        tiles
    }

    #[test]
    fn rows_split_over_devices_in_order() {
        let tiles = round_trip(&iota(&[4, 2]), "{devices=[4,1]<=[4]}", 4);
        assert_eq!(tiles[2].dims, vec![1, 2]);
        assert_eq!(values(&tiles[2]), vec![4, 5]);
    }

    #[test]
    fn columns_split_by_an_explicit_assignment() {
        let tiles = round_trip(&iota(&[2, 4]), "{devices=[1,2]1,0}", 2);
        // Device 1 holds the first tile of columns.
        assert_eq!(values(&tiles[1]), vec![0, 1, 4, 5]);
        assert_eq!(values(&tiles[0]), vec![2, 3, 6, 7]);
    }

    #[test]
    fn transposed_iota_assignment() {
        // <=[2,2]T(1,0) lists devices 0, 2, 1, 3 row-major over the tiles:
        // tile (0,1) is device 2's and tile (1,0) device 1's.
        let tiles = round_trip(&iota(&[4, 4]), "{devices=[2,2]<=[2,2]T(1,0)}", 4);
        assert_eq!(values(&tiles[1]), vec![8, 9, 12, 13]);
        assert_eq!(values(&tiles[2]), vec![2, 3, 6, 7]);
        assert_eq!(values(&tiles[3]), vec![10, 11, 14, 15]);
    }

    #[test]
    fn last_tile_dim_replicate_shares_tiles() {
        let text = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}";
        // Devices 0, 2 hold rows 0..2, devices 1, 3 rows 2..4.
        let tiles = round_trip(&iota(&[4, 3]), text, 4);
        assert_eq!(tiles[0], tiles[2]);
        assert_eq!(tiles[1], tiles[3]);
        assert_eq!(values(&tiles[1]), vec![6, 7, 8, 9, 10, 11]);
        let layout = TileLayout::new(&sharding(text), 4, 2).expect("layout");
        assert_eq!(layout.tiles(), &[2, 1]);
        assert_eq!(layout.global_dims(&[2, 3]), Ok(vec![4, 3]));
        // Subgroups written as last_tile_dims={replicated} mean the same.
        let subgroup = TileLayout::new(
            &sharding("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dims={replicated}}"),
            4,
            2,
        );
        assert_eq!(subgroup, Ok(layout));
    }

    #[test]
    fn three_dimensional_tiles() {
        round_trip(&iota(&[2, 6, 4]), "{devices=[2,3,2]<=[3,4]T(1,0)}", 12);
    }

    #[test]
    fn replicated_and_maximal_read_one_device() {
        let global = iota(&[3]);
        let tiles = round_trip(&global, "{replicated}", 3);
        assert!(tiles.iter().all(|t| *t == global));
        let other = Tensor::new(
            ElementType::S32,
            vec![3],
            [7i32, 8, 9]
                .into_iter()
                .flat_map(i32::to_le_bytes)
                .collect(),
        );
        let zeros = Tensor::zeros(ElementType::S32, &[3]);
        let per_device = [zeros.clone(), other.clone(), zeros];
        assert_eq!(
            assemble(&per_device, &sharding("{maximal device=1}")),
            Ok(other)
        );
        assert_eq!(
            assemble(&per_device, &sharding("{replicated}")).map(|t| values(&t)),
            Ok(vec![0, 0, 0])
        );
    }

    #[test]
    fn scalars_and_empty_arrays() {
        round_trip(&iota(&[]), "{replicated}", 2);
        round_trip(&iota(&[]), "{devices=[2]<=[2] last_tile_dim_replicate}", 2);
        round_trip(&iota(&[4, 0]), "{devices=[2,1]<=[2]}", 2);
    }

    #[test]
    fn named_shardings_split_along_mesh_axes() {
        // Rows over 'y' (devices differing in y hold different rows), 'x'
        // replicates: device (x, y) = 2x + y.
        let text = "{mesh['x'=2,'y'=2], [{'y'}, {}]}";
        let tiles = round_trip(&iota(&[4, 2]), text, 4);
        assert_eq!(tiles[0], tiles[2]);
        assert_eq!(values(&tiles[1]), vec![4, 5, 6, 7]);
        // Both axes on one dimension, 'y' major.
        let tiles = round_trip(&iota(&[4]), "{mesh['x'=2,'y'=2], [{'y', 'x'}]}", 4);
        assert_eq!(values(&tiles[1]), vec![2]);
        // A sub-axis: 'x':(2)2 is the major half of an axis of 4.
        let tiles = round_trip(&iota(&[2]), "{mesh['x'=4], [{'x':(2)2}]}", 4);
        assert_eq!(values(&tiles[1]), vec![0]);
        assert_eq!(values(&tiles[2]), vec![1]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let global = iota(&[6, 2]);
        let cases = [
            (
                "{devices=[4,1]<=[4]}",
                4,
                "does not split evenly into 4 tiles",
            ),
            ("{devices=[2,1]<=[2]}", 4, "names 2 devices, the run has 4"),
            ("{devices=[2,1]0,0}", 2, "names device 0 more than once"),
            ("{devices=[2,1]0,5}", 2, "names device 5, the run has 2"),
            (
                "{devices=[2]<=[2]}",
                2,
                "the tile assignment has 1 dimensions",
            ),
            ("{manual}", 2, "a manual sharding"),
            ("{unreduced}", 2, "unreduced"),
            ("{{replicated}, {replicated}}", 2, "a tuple sharding"),
            (
                "{devices=[2,1,1]<=[2] last_tile_dims={manual}}",
                2,
                "manual subgroup",
            ),
            ("{mesh['x'=2], [{}], manual={'x'}}", 2, "manual axes"),
            ("{maximal device=3}", 2, "names device 3, the run has 2"),
        ];
        for (text, devices, message) in cases {
            let error = shard(&global, &sharding(text), devices, 0).expect_err(text);
            assert!(error.contains(message), "{text}: {error}");
        }
        let layout = TileLayout::new(&sharding("{devices=[2,1]<=[2]}"), 2, 2).expect("layout");
        let error = layout
            .assemble(&[iota(&[3, 2]), iota(&[2, 2])])
            .expect_err("shapes differ");
        assert!(error.contains("differ in shape"), "{error}");
        let error = layout.assemble(&[iota(&[3, 2])]).expect_err("one value");
        assert!(error.contains("spans 2 devices but 1 values"), "{error}");
    }

    #[test]
    fn tuple_shardings_give_one_per_leaf() {
        let leaves = leaf_shardings(&sharding("{{replicated}, {devices=[2]<=[2]}}"), 2);
        assert_eq!(
            leaves,
            Ok(vec![
                sharding("{replicated}"),
                sharding("{devices=[2]<=[2]}")
            ])
        );
        assert_eq!(
            leaf_shardings(&sharding("{replicated}"), 3).map(|l| l.len()),
            Ok(3)
        );
        assert!(leaf_shardings(&sharding("{{replicated}}"), 2).is_err());
    }

    #[test]
    fn shardings_name_partitions_else_replicas() {
        let partitions = Grid {
            replicas: 2,
            partitions: 4,
        };
        assert_eq!(sharding_devices(partitions), vec![0, 1, 2, 3]);
        assert_eq!(sharding_device_of(partitions, partitions.device(6)), 2);
        let replicas = Grid {
            replicas: 8,
            partitions: 1,
        };
        assert_eq!(sharding_devices(replicas).len(), 8);
        assert_eq!(sharding_device_of(replicas, replicas.device(5)), 5);
        // Replica 1 holds the same tiles as replica 0.
        let global = iota(&[4, 2]);
        let rows = sharding("{devices=[4,1]<=[4]}");
        let tiles = shard_over_grid(&global, &rows, partitions).expect("shards");
        assert_eq!(tiles.len(), 8);
        assert_eq!(tiles[1], tiles[5]);
        assert_eq!(values(&tiles[6]), vec![4, 5]);
        assert_eq!(assemble_over_grid(&tiles, &rows, partitions), Ok(global));
    }
}

"""Write two JAX programs on 8 devices for `weft run`, their inputs and JAX's results.

    python export.py OUT_DIR

shard_map.mlir              a shard_map program's StableHLO, which weft lowers itself
jit.hlo                     a jit program with shardings as XLA compiles it: per device
x.npy, w.npy                the global inputs of both programs
x.shards.npy, w.shards.npy  jit.hlo's inputs per device, stacked on axis 0
*.expected.npy              JAX's results
"""

import sys
from pathlib import Path

import jax

jax.config.update("jax_num_cpu_devices", 8)  # or XLA_FLAGS=--xla_force_host_platform_device_count=8

import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
mesh = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))


def row_parallel(x, w):  # on each device: x[:, its columns] @ w[its rows, :]
    return jax.lax.psum(x @ w, "i")


shard_map_f = jax.jit(
    jax.shard_map(row_parallel, mesh=mesh, in_specs=(P(None, "i"), P("i", None)), out_specs=P())
)


@jax.jit
def jit_f(x, w):  # XLA's partitioner decides how: x's rows are split over the devices
    h = jnp.tanh(x @ w)
    return h - h.mean(axis=0)


rng = np.random.default_rng(0)
x = rng.standard_normal((16, 64), dtype=np.float32)
w = rng.standard_normal((64, 32), dtype=np.float32)
np.save(out / "x.npy", x)  # the global inputs of both programs
np.save(out / "w.npy", w)
put = lambda array, spec: jax.device_put(array, NamedSharding(mesh, spec))
shard_map_args = (put(x, P(None, "i")), put(w, P("i", None)))
jit_args = (put(x, P("i", None)), put(w, P()))
for name, array in zip(["x", "w"], jit_args):  # jit.hlo's per-device inputs
    np.save(out / f"{name}.shards.npy", np.stack([s.data for s in array.addressable_shards]))

# debug_info=True keeps JAX's names (x, w, dot_general, ...) as locations,
# which weft gives the instructions it lowers.
(out / "shard_map.mlir").write_text(shard_map_f.lower(*shard_map_args).as_text(debug_info=True))
np.save(out / "shard_map.expected.npy", shard_map_f(*shard_map_args))

compiled = jit_f.lower(*jit_args).compile()
(out / "jit.hlo").write_text(compiled.as_text())
np.save(out / "jit.expected.npy", jit_f(*jit_args))

# The result's sharding in HLO syntax, for weft's --out-sharding (compiled HLO
# does not record it; JAX spells it only through this private method).
result = compiled.output_shardings._to_xla_hlo_sharding(2)
print(f"wrote {out}; jit.hlo's result sharding is {result}")

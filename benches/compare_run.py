#!/usr/bin/env python3
"""The evaluator against XLA:CPU on programs as JAX writes them.

`--program chain` (the default) is the matmul chain of the baseline notes:
four chained 256x256 f32 matmuls with tanh, relu, an add and a sum (134
MFLOP). `--program mlp-grad` is the gradient of a two-layer MLP's loss
(`jax.grad`), whose dots contract transposed operands (xᵀ·dy, dy·wᵀ) as every
backward pass does (1.1 GFLOP). `--program scan-stack` is a `lax.scan` that
stacks its carry over 8 steps: XLA's while loop writing each step's row block
into the stacked result with a dynamic-update-slice. The program is built with JAX, its StableHLO
and inputs written to a temporary directory; `jax.jit` on XLA:CPU (median of
warmed-up calls) and `weft run --repeat` on the same StableHLO and inputs are
timed in the same run; the outputs are checked to agree and the ratio
printed. For the chain, the reference interpreter's time (94.8 s) is quoted
from the baseline notes: measuring it takes minutes per call.

    python3 benches/compare_run.py --python VENV/bin/python [--program chain|mlp-grad|scan-stack] [--weft target/release/weft]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

PROGRAM = r'''
import json, sys, time
import numpy as np
import jax, jax.numpy as jnp

def chain(x, w1, w2, w3, w4):
    h = jnp.tanh(x @ w1)
    h = jax.nn.relu(h @ w2)
    h = jnp.tanh(h @ w3) + h
    return jnp.sum(h @ w4)

def mlp_loss(w1, w2, x, y):
    p = jnp.tanh(x @ w1) @ w2
    return jnp.mean((p - y) ** 2)

def mlp_grad(w1, w2, x, y):
    g1, g2 = jax.grad(mlp_loss, argnums=(0, 1))(w1, w2, x, y)
    return jnp.sum(g1) + jnp.sum(g2 * g2)

def scan_stack(x):
    def step(carry, _):
        carry = jnp.tanh(carry) * 0.5 + carry
        return carry, carry
    _, ys = jax.lax.scan(step, x, None, length=8)
    return jnp.sum(ys)

PROGRAMS = {
    "chain": (chain, [(256, 256)] * 5),
    "mlp-grad": (mlp_grad, [(1024, 1024), (1024, 256), (128, 1024), (128, 256)]),
    "scan-stack": (scan_stack, [(128, 256)]),
}

out_dir, repeat, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
function, shapes = PROGRAMS[name]
rng = np.random.default_rng(0)
args = [rng.standard_normal(shape, dtype=np.float32) * 0.1 for shape in shapes]
for i, a in enumerate(args):
    np.save(f"{out_dir}/in{i}.npy", a)
jitted = jax.jit(function)
with open(f"{out_dir}/program.mlir", "w") as f:
    f.write(jitted.lower(*args).as_text())
result = jitted(*args).block_until_ready()
for _ in range(5):
    jitted(*args).block_until_ready()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    jitted(*args).block_until_ready()
    times.append((time.perf_counter() - start) * 1e3)
times.sort()
print(json.dumps({"xla_ms": times[len(times) // 2], "result": float(result), "inputs": len(args)}))
'''

DESCRIPTIONS = {
    "chain": "matmul chain (4 x 256^2 f32, 134 MFLOP)",
    "mlp-grad": "MLP gradient (jax.grad, 128x1024x1024 + 128x1024x256, transposed dots, 1.1 GFLOP)",
    "scan-stack": "lax.scan stacking 8 steps of a 128x256 f32 carry (a while loop of dynamic-update-slices)",
}

REFERENCE_INTERPRETER_MS = 94.8e3


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", required=True, help="a Python with jax installed")
    parser.add_argument("--weft", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "weft"))
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--program", choices=sorted(DESCRIPTIONS), default="chain")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        xla = subprocess.run([args.python, "-c", PROGRAM, work, str(args.repeat), args.program],
                             capture_output=True, text=True)
        if xla.returncode != 0:
            sys.exit(f"the JAX side failed:\n{xla.stderr}")
        xla = json.loads(xla.stdout.strip().splitlines()[-1])
        inputs = [os.path.join(work, f"in{i}.npy") for i in range(xla["inputs"])]
        weft = subprocess.run(
            [args.weft, "run", os.path.join(work, "program.mlir"), "--inputs", *inputs,
             "--repeat", str(args.repeat), "--out", work],
            capture_output=True, text=True)
        if weft.returncode != 0:
            sys.exit(f"weft failed:\n{weft.stderr}")
        weft_ms = float(weft.stderr.split("run: ")[1].split(" ms")[0])
        import_numpy = subprocess.run(
            [args.python, "-c", f"import numpy as np; print(float(np.load('{work}/out0.npy')))"],
            capture_output=True, text=True)
        ours = float(import_numpy.stdout.strip())
    print(f"{DESCRIPTIONS[args.program]}, median of {args.repeat}:")
    print(f"  weft run        {weft_ms:9.3f} ms   result {ours:.6f}")
    print(f"  XLA:CPU jit     {xla['xla_ms']:9.3f} ms   result {xla['result']:.6f}   weft/XLA = {weft_ms / xla['xla_ms']:.2f}x (goal <= 2x)")
    if args.program == "chain":
        print(f"  reference interpreter (notes) {REFERENCE_INTERPRETER_MS:.0f} ms   speed-up {REFERENCE_INTERPRETER_MS / weft_ms:,.0f}x (goal >= 1000x)")
    print(f"  |difference| = {abs(ours - xla['result']):.3g}")


if __name__ == "__main__":
    main()

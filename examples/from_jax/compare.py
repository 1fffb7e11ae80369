"""Compare a result of `weft run` with JAX's: the shapes must be equal and the
values close (float sums may add up in another order; tanh and friends may
differ in the last bits).

    python compare.py EXPECTED.npy WEFT.npy

Exit status 0 when they agree, 1 otherwise.
"""

import sys

import numpy as np

expected, got = np.load(sys.argv[1]), np.load(sys.argv[2])
if expected.shape != got.shape:
    sys.exit(f"{sys.argv[2]}: shape {got.shape}, JAX's is {expected.shape}")
difference = np.abs(expected.astype(np.float64) - got.astype(np.float64)).max(initial=0)
agree = np.allclose(got, expected, rtol=1e-5, atol=1e-5)
print(f"{sys.argv[2]}: {'agrees' if agree else 'DIFFERS'}, largest difference {difference:.3g}")
sys.exit(0 if agree else 1)

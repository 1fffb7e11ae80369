#!/usr/bin/env python3
"""How close `weft simulate` on a `cpu-local` profile comes to `weft run`.

`weft simulate` prices every instruction on a device profile; with the
profile `weft calibrate` measures on this machine, its step time should be
the step time `weft run --timing measured` measures here. This bench checks
that, the way a user would: calibrate, then run and simulate each program.

Each round calibrates a fresh profile (into a temporary file, never the
cache), then for each program runs `weft run --timing measured --repeat N`
(the median step time of N runs) and `weft simulate --profile` on that
profile, back to back. A shared machine's speed drifts by tens of percent
over minutes, so a profile is only compared with runs measured right after
it; the table gives each program's median over the rounds of simulated ÷
measured, and the range.

    cargo build --release -p weft-cli
    python3 benches/simulate_accuracy.py [--rounds 3] [--repeat 5] [FILE ...]

Without files it measures the README's examples (both forms of each).
Programs that finish in well under a millisecond measure mostly the cost of
starting a run (threads, first calls), which a step model does not describe;
the bench reports them like any other.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLES = [
    "overlap_allreduce.sync.hlo",
    "overlap_allreduce.async.hlo",
    "dp_train_step.sync.hlo",
    "dp_train_step.hlo",
    "collective_matmul.sync.hlo",
    "collective_matmul.hlo",
]
STEP = re.compile(r"^step time: ([0-9.]+) ms", re.M)


def step_time(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    match = STEP.search(done.stdout + done.stderr)
    if not match:
        sys.exit(f"no step time from {' '.join(command)}:\n{done.stdout}{done.stderr}")
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="programs (default: the README's examples)")
    parser.add_argument("--weft", default=os.path.join(ROOT, "target", "release", "weft"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5, help="runs per measured step time")
    parser.add_argument("--tolerance", type=float, default=0.2, help="the agreement asked for")
    args = parser.parse_args()
    files = args.files or [os.path.join(ROOT, "examples", name) for name in EXAMPLES]
    ratios = {f: [] for f in files}
    times = {f: [] for f in files}
    with tempfile.TemporaryDirectory() as scratch:
        profile = os.path.join(scratch, "cpu-local.toml")
        for round_number in range(args.rounds):
            subprocess.run(
                [args.weft, "calibrate", "--output", profile],
                check=True,
                capture_output=True,
            )
            for f in files:
                measured = step_time(
                    [args.weft, "run", f, "--timing", "measured", "--repeat", str(args.repeat)]
                )
                simulated = step_time([args.weft, "simulate", f, "--profile", profile])
                ratios[f].append(simulated / measured)
                times[f].append((measured, simulated))
            print(f"round {round_number + 1} of {args.rounds} done", file=sys.stderr)
    width = max(len(os.path.basename(f)) for f in files)
    print(f"{'program':<{width}}  measured ms  simulated ms  simulated/measured  (range)     within {args.tolerance:.0%}")
    within = 0
    for f in files:
        ratio = statistics.median(ratios[f])
        measured = statistics.median(m for m, _ in times[f])
        simulated = statistics.median(s for _, s in times[f])
        ok = abs(ratio - 1) <= args.tolerance
        within += ok
        print(
            f"{os.path.basename(f):<{width}}  {measured:11.3f}  {simulated:12.3f}  {ratio:18.2f}"
            f"  ({min(ratios[f]):.2f}-{max(ratios[f]):.2f})  {'yes' if ok else 'no'}"
        )
    print(f"{within} of {len(files)} within {args.tolerance:.0%}")


if __name__ == "__main__":
    main()

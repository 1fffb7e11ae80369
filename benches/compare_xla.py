#!/usr/bin/env python3
"""Parse and print throughput of weft against XLA's own HLO parser and printer, on the
same files, in one run.

    python3 benches/compare_xla.py --python /path/to/venv/bin/python FILE...
    python3 benches/compare_xla.py --python VENV/bin/python --generate 1000000 --largest 3

`--python` names an interpreter that has jax (jaxlib) installed: XLA's parser and printer
are called through `jaxlib._hlo`, as `../shared/notes/jax-baseline.md` §3 describes.
`--generate N` adds a synthetic N-line module made by `../shared/tools/make_big_hlo.py`;
`--largest K` adds the K largest `.hlo` modules of `../shared/corpus/xla-hlo`.
`--copies K` adds a module of K copies of the largest corpus module, each copy's names
prefixed with its number and all but the last copy's entry made an ordinary
computation: a module of several big bodies, which the corpus does not have.

Each file is measured in `--rounds` rounds. A round runs weft (every core), weft
(`--threads 1`) and XLA back to back, each in a fresh process that parses and prints the
file `--repeat` times (median), so the peak memory reported is that file's alone. The
machines this runs on are shared and their speed drifts over seconds: pairing weft with
XLA round by round, and taking the median of the rounds' ratios, keeps a slow stretch from
landing on one side only. The table gives median times over the rounds, the median ratio
and, in brackets, the lowest and highest round's ratio; "fastest" divides XLA's fastest
parse by weft's (a busy machine only ever adds time, so the fastest rounds are the ones
it disturbed least). weft prints the long form (`weft
fmt`'s default); XLA prints the same form (operand shapes and large constants on). Ratios
are weft's throughput over XLA's: higher is better for weft. weft parses on every core by
default (XLA's parser uses one); the "1 thread" columns are weft's parse with
`--threads 1`.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import re
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(os.path.dirname(ROOT), "shared")

XLA_SNIPPET = r"""
import json, resource, statistics, sys, time
import jaxlib._hlo as h
path, repeat = sys.argv[1], int(sys.argv[2])
text = open(path).read()
parse, printing = [], []
module = None
for _ in range(repeat):
    module = None
    t = time.perf_counter(); module = h.hlo_module_from_text(text); parse.append(time.perf_counter() - t)
options = h.HloPrintOptions()
options.print_operand_shape = True
options.print_large_constants = True
for _ in range(repeat):
    t = time.perf_counter(); out = module.to_string(options); printing.append(time.perf_counter() - t)
print(json.dumps({"parse_ms": statistics.median(parse) * 1e3, "print_ms": statistics.median(printing) * 1e3,
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def weft_bench(weft, path, repeat, threads=None):
    command = [weft, "bench", "--json", "--repeat", str(repeat), path]
    if threads:
        command += ["--threads", str(threads)]
    out = subprocess.run(command,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def xla_bench(python, path, repeat):
    out = subprocess.run([python, "-c", XLA_SNIPPET, path, str(repeat)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def copies_of(path, copies, out):
    """Writes a module of `copies` copies of the module at `path`: every `%name`
    of copy k becomes `%c<k>name` (instruction and computation names alike, so
    no two copies share one), and every entry but the last loses `ENTRY`."""
    header, _, body = open(path).read().partition("\n")
    if not header.startswith("HloModule"):
        sys.exit(f"{path}: expected a module starting with an HloModule line")
    parts = [header]
    for k in range(copies):
        copy = re.sub(r"%([\w.\-]+)", lambda m: f"%c{k}" + m.group(1), body)
        if k < copies - 1:
            copy = re.sub(r"^ENTRY\s+", "", copy, flags=re.M)
        parts.append(copy)
    with open(out, "w") as f:
        f.write("\n".join(parts))


def largest_corpus_modules(count):
    modules = os.path.join(SHARED, "corpus", "xla-hlo", "modules")
    by_size = sorted(os.listdir(modules), key=lambda f: os.path.getsize(os.path.join(modules, f)))
    return [os.path.join(modules, f) for f in by_size[-count:]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--python", required=True, help="a Python interpreter with jax installed")
    parser.add_argument("--weft", default=os.path.join(ROOT, "target", "release", "weft"))
    parser.add_argument("--repeat", type=int, default=1,
                        help="parses and prints per process (the median is taken)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds of weft, weft on one thread and XLA, back to back")
    parser.add_argument("--generate", type=int, default=0, help="add a synthetic module of N lines")
    parser.add_argument("--largest", type=int, default=0, help="add the K largest corpus modules")
    parser.add_argument("--copies", type=int, default=0,
                        help="add a module of K copies of the largest corpus module")
    args = parser.parse_args()

    files = list(args.files)
    scratch = tempfile.mkdtemp(prefix="weft-bench-")
    if args.generate:
        generated = os.path.join(scratch, f"big_{args.generate}.hlo")
        subprocess.run([sys.executable, os.path.join(SHARED, "tools", "make_big_hlo.py"),
                        "--lines", str(args.generate), "--out", generated], check=True,
                       stdout=subprocess.DEVNULL)
        files.append(generated)
    if args.largest:
        files += largest_corpus_modules(args.largest)
    if args.copies:
        copied = os.path.join(scratch, f"copies_{args.copies}.hlo")
        copies_of(largest_corpus_modules(1)[0], args.copies, copied)
        files.append(copied)
    if not files:
        parser.error("no files: give FILE..., --generate, --largest or --copies")

    header = (f"{'file':<44} {'lines':>9} | {'weft parse':>10} {'1 thread':>10} {'XLA parse':>10} "
              f"{'ratio [range]':>17} {'1 thread [range]':>17} {'fastest':>8} | "
              f"{'weft print':>10} {'XLA print':>10} {'ratio [range]':>17} | {'weft MB':>8} {'XLA MB':>8}")
    print(f"{args.rounds} rounds of weft, weft --threads 1 and XLA back to back, in an order that turns each round; "
          f"times are medians, ratios the median and range of the rounds' ratios; "
          f"'fastest' is XLA's fastest parse over weft's fastest")
    print(header)
    print("-" * len(header))
    for path in files:
        lines = sum(1 for _ in open(path))
        rounds = []
        runs = [lambda: weft_bench(args.weft, path, args.repeat),
                lambda: weft_bench(args.weft, path, args.repeat, threads=1),
                lambda: xla_bench(args.python, path, args.repeat)]
        for k in range(args.rounds):
            # The order turns from round to round: a process starts in the memory
            # the one before it freed, and on a virtual machine that decides how
            # much its first use of memory costs, so no side may always follow
            # the same one.
            order = [(k + j) % 3 for j in range(3)]
            results = {}
            for which in order:
                results[which] = runs[which]()
            rounds.append((results[0], results[1], results[2]))
        name = os.path.basename(path)
        name = name if len(name) <= 44 else "…" + name[-43:]

        def median(side, key):
            return statistics.median(r[side][key] for r in rounds)

        def ratio(side, key):
            ratios = [r[2][key] / r[side][key] for r in rounds]
            text = f"{statistics.median(ratios):.1f}x [{min(ratios):.1f}-{max(ratios):.1f}]"
            return f"{text:>17}"

        def fastest(side, key):
            best = min(r[2][key] for r in rounds) / min(r[side][key] for r in rounds)
            return f"{best:>7.1f}x"

        peak = lambda side: max(r[side]["peak_rss_bytes"] for r in rounds) / 1e6
        print(f"{name:<44} {lines:>9} | {median(0, 'parse_ms'):>8.0f}ms {median(1, 'parse_ms'):>8.0f}ms "
              f"{median(2, 'parse_ms'):>8.0f}ms {ratio(0, 'parse_ms')} {ratio(1, 'parse_ms')} {fastest(0, 'parse_ms')} | "
              f"{median(0, 'print_ms'):>8.0f}ms {median(2, 'print_ms'):>8.0f}ms {ratio(0, 'print_ms')} | "
              f"{peak(0):>8.0f} {peak(2):>8.0f}")
        sys.stdout.flush()

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The keys of `iolab run --json`, numbers masked, from two builds side by side.

    tests/tools/run_json_keys.py BEFORE/bin/iolab AFTER/bin/iolab STEP [STEP...] [-- ARGS]

runs each step with each build (`iolab run STEP --json --seconds 1 ARGS`) and prints, per step,
the key paths one build writes and the other does not ("-" only before, "+" only after), every
array's items folded into one ("[]"), values left out. A change may add keys
(an addition is "+"); a "-" is a key a reader of the JSON loses. Exit status 1 when any key is
lost. The figures differ from run to run, so only the shape is compared.
"""
import json
import subprocess
import sys


def shape(v, path, out):
    if isinstance(v, dict):
        out.add((path, "object"))
        for k, x in v.items():
            shape(x, f"{path}.{k}", out)
    elif isinstance(v, list):
        out.add((path, "array"))
        for x in v:
            shape(x, f"{path}[]", out)
    elif isinstance(v, bool):
        out.add((path, "bool"))
    elif isinstance(v, (int, float)):
        out.add((path, "number"))
    elif v is None:
        out.add((path, "null"))
    else:
        out.add((path, "string"))


def keys(iolab, step, args):
    r = subprocess.run([iolab, "run", step, "--json", "--seconds", "1"] + args,
                       capture_output=True, text=True, timeout=300)
    if not r.stdout.strip():
        sys.exit(f"{iolab} run {step}: no JSON ({r.stderr.strip()})")
    out = set()
    shape(json.loads(r.stdout), "", out)
    # Paths only: a figure undefined in one run is a null where another run has a number.
    return {p for p, _ in out}


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    if len(argv) < 3:
        sys.exit(__doc__)
    before, after, steps = argv[0], argv[1], argv[2:]
    lost = False
    for step in steps:
        a, b = keys(before, step, extra), keys(after, step, extra)
        print(f"{step}: {len(a)} keys before, {len(b)} after")
        for k in sorted(a - b):
            print(f"  - {k}")
            lost = True
        for k in sorted(b - a):
            print(f"  + {k}")
    sys.exit(1 if lost else 0)


if __name__ == "__main__":
    main()

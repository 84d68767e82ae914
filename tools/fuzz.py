"""The differential program fuzzer of pyonnx (issues 13 and 19).

Generates random valid numpy programs (seeded: program i depends only on seed i), runs each
under numpy (the oracle) and under pyonnx.compile on two input sets of different sizes with one
compiled function, and classifies the outcome: pass / refused (ConversionError, grouped by
construct) / wrong-value / wrong-dtype / wrong-shape / wrong-mutation / crash / timeout.
With --grad, smooth programs and pyonnx.grad/value_and_grad/vjp/jacobian against float64
central finite differences. Exits 1 when any program shows a bug, 0 otherwise.

Examples:
  python tools/fuzz.py --seed 0 --count 200
  python tools/fuzz.py --seed 0 --count 20000 --jobs 2 --out /tmp/fuzz      # a campaign
  python tools/fuzz.py --seed 1234 --count 1 --out /tmp/f --minimize         # one failure, shrunk
  python tools/fuzz.py --grad --seed 0 --count 500
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fuzzing.campaign import campaign, table  # noqa: E402
from fuzzing.runner import BUGS  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--count", type=int, default=100, help="number of programs: seeds S..S+N-1")
    ap.add_argument("--grad", action="store_true", help="gradient mode (smooth programs, FD oracle)")
    ap.add_argument("--out", help="directory for each failing program as a standalone .py")
    ap.add_argument("--minimize", action="store_true", help="also write a delta-debugged *_min.py")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per program (default 20)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--verbose", action="store_true", help="print every non-passing seed")
    a = ap.parse_args(argv)
    seeds = range(a.seed, a.seed + a.count)
    counts, groups, elapsed = campaign(seeds, "grad" if a.grad else "compile", a.out, a.minimize,
                                       a.timeout, a.jobs)
    if a.verbose:
        for (cls, group), items in sorted(groups.items()):
            for seed, detail in items:
                print(f"seed {seed}: {cls}: {detail}")
    print(table(counts, groups, elapsed))
    if a.out:  # every non-passing seed with its class and group, for summaries
        import json
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "results.json"), "w") as fh:
            json.dump({"counts": dict(counts), "elapsed": elapsed,
                       "groups": [{"class": c, "group": g, "seeds": [s for s, _ in items],
                                   "details": [d for _, d in items[:3]]}
                                  for (c, g), items in groups.items()]}, fh, indent=1)
    return 1 if any(counts.get(c) for c in BUGS) else 0


if __name__ == "__main__":
    sys.exit(main())

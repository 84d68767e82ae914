"""A campaign's findings as Markdown: the class table, then one minimized program per group.

``python tools/fuzzing/summary.py DIR [--grad]`` reads ``DIR/all/results.json`` (written by
``tools/fuzz.py --out DIR/all``), minimizes the first seed of every bug group into ``DIR/min/``
and writes ``DIR/SUMMARY.md``.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fuzzing.minimize import minimize  # noqa: E402
from fuzzing.report import write_failure  # noqa: E402
from fuzzing.runner import BUGS, CLASSES  # noqa: E402


def main(out_dir: str, grad: bool, budget: float = 25.0) -> None:
    import logging
    import warnings
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    if grad:
        from fuzzing.grad_gen import generate
        from fuzzing.grad_runner import run
    else:
        from fuzzing.generator import Generator
        from fuzzing.runner import run

        def generate(s):
            return Generator(s).program()
    res = json.load(open(os.path.join(out_dir, "all", "results.json")))
    counts, n = res["counts"], sum(res["counts"].values())
    md = [f"# {'Gradient' if grad else 'Compile'} mode: {n} programs (seeds 0..{n - 1})", "",
          "| class | count | % |", "|---|---|---|"]
    md += [f"| {c} | {counts.get(c, 0)} | {100 * counts.get(c, 0) / n:.1f} |" for c in CLASSES]
    groups = sorted(res["groups"], key=lambda g: -len(g["seeds"]))
    md += ["", "## Bug groups (one minimized program each)", ""]
    for i, g in enumerate(x for x in groups if x["class"] in BUGS):
        md += [f"### {i}. {g['class']}: {g['group']} ({len(g['seeds'])} programs)", "",
               f"seeds: {', '.join(map(str, sorted(g['seeds'])[:12]))}", ""]
        # value and mutation groups mix causes: several examples
        many = 4 if g["class"] in ("wrong-value", "wrong-mutation") else 1
        for seed in sorted(g["seeds"])[:many]:
            prog = generate(seed)
            out = run(prog)
            small = prog.source
            if out.cls == g["class"]:
                sp, out = minimize(prog, out, run, budget_s=budget, max_runs=120)
                small = sp.source
                write_failure(os.path.join(out_dir, "min"), sp, out, suffix=f"_group{i}")
            md += [f"seed {seed}: `{out.detail[:300]}`", "", "```python", small.strip(), "```", ""]
    md += ["## Refusals by construct", "", "| count | message (names, numbers, dtypes blanked) | seeds |",
           "|---|---|---|"]
    md += [f"| {len(g['seeds'])} | {g['group'].replace('|', '/')} | {', '.join(map(str, sorted(g['seeds'])[:6]))} |"
           for g in groups if g["class"] == "refused"]
    inv = [g for g in groups if g["class"] == "invalid"]
    if inv:
        md += ["", "## Invalid (generator side)", ""]
        md += [f"- {len(g['seeds'])}: {g['group'] or g['details'][0][:200]}" for g in inv]
    with open(os.path.join(out_dir, "SUMMARY.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], "--grad" in sys.argv)

"""Seeds → outcomes, in worker processes; the class table and the groups of refusals and bugs."""

from __future__ import annotations

import collections
import multiprocessing as mp
import time

from fuzzing.runner import BUGS, CLASSES

_OPTS: dict = {}


def _init(opts):
    _OPTS.update(opts)
    import warnings
    warnings.simplefilter("ignore")
    import logging
    logging.disable(logging.WARNING)  # onnx-ir's "attribute type is ambiguous" chatter


def one(seed: int):
    """Generates, runs, (minimizes), writes one program; returns (seed, class, group, detail)."""
    from fuzzing.report import write_failure
    mode, out = _OPTS["mode"], _OPTS.get("out")
    if mode == "grad":
        from fuzzing.grad_gen import generate
        from fuzzing.grad_runner import run
    else:
        from fuzzing.generator import Generator
        from fuzzing.runner import run

        def generate(s):
            return Generator(s).program()
    try:
        prog = generate(seed)
    except Exception as e:  # noqa: BLE001 - a generator bug: counted as invalid
        return seed, "invalid", f"generator: {type(e).__name__}: {e}", ""
    outcome = run(prog, _OPTS["timeout"])
    if out and outcome.cls in BUGS:
        write_failure(out, prog, outcome)
        if _OPTS.get("minimize") and outcome.cls != "timeout":
            from fuzzing.minimize import minimize
            small, small_out = minimize(prog, outcome, lambda p: run(p, _OPTS["timeout"]))
            write_failure(out, small, small_out, suffix="_min")
    return seed, outcome.cls, outcome.group, outcome.detail[:300]


def campaign(seeds, mode="compile", out=None, minimize=False, timeout=20.0, jobs=1, log=print):
    opts = {"mode": mode, "out": out, "minimize": minimize, "timeout": timeout}
    counts = collections.Counter()
    groups = collections.defaultdict(list)
    start = time.time()
    if jobs > 1:
        with mp.get_context("fork").Pool(jobs, _init, (opts,), maxtasksperchild=200) as pool:
            results = pool.imap_unordered(one, seeds, chunksize=4)
            for i, r in enumerate(results, 1):
                _add(r, counts, groups)
                if i % 500 == 0:
                    log(f"  {i} programs, {time.time() - start:.0f} s: {dict(counts)}")
    else:
        _init(opts)
        for r in map(one, seeds):
            _add(r, counts, groups)
    return counts, groups, time.time() - start


def _add(r, counts, groups):
    seed, cls, group, detail = r
    counts[cls] += 1
    if cls != "pass":
        groups[(cls, group)].append((seed, detail))


def table(counts, groups, elapsed) -> str:
    n = sum(counts.values())
    lines = [f"{n} programs in {elapsed:.0f} s ({n / max(elapsed, 1e-9):.1f}/s)", ""]
    lines += [f"  {c:15s} {counts.get(c, 0):6d}  {100 * counts.get(c, 0) / max(n, 1):5.1f}%"
              for c in CLASSES]
    for title, want in (("bugs", BUGS), ("refused, by construct", ("refused",)),
                        ("invalid (generator bugs)", ("invalid",))):
        rows = sorted(((len(v), k, v) for k, v in groups.items() if k[0] in want), reverse=True)
        if rows:
            lines += ["", f"{title}:"]
            lines += [f"  {cnt:5d}  {k[1] or k[0]}  (seeds {', '.join(str(s) for s, _ in v[:5])})"
                      for cnt, k, v in rows]
    return "\n".join(lines)
